//! Writeback previews through the pipeline: the seed's five entry criteria as checks (at
//! preview and again at apply, under the gate lock), the idempotency rules, the adapter
//! calls, and the compact LoopX result run appended to `runs/index.jsonl` after every
//! decision (session-runtime seed, "Entry Criteria", "Flow", "Failure Semantics").
//!
//! Any failing criterion makes the item read-only (predicted `preview_only`): it can be
//! rejected, or a blocker recorded — an agent todo with task class `blocker`, proposed as a
//! new pending write intent in the same goal (LoopX 0.5.4 refuses a *user* todo with that
//! class: user todos take only `user_gate` / `user_action`).

use super::adapters::Adapter;
use super::apply::{Decision, Outcome};
use super::item::Item;
use super::preview::{GoalSnapshot, Predicted, Prepared};
use super::writeback::{Writeback, judge_boundary, judge_payload};
use super::{Engine, EngineError};
use crate::gate::GateDir;
use crate::loopx::edit::{TodoArgs, TodoOp};
use crate::scan::{self, Policy};
use crate::wire::{ResultRecord, Status};
use serde_json::{Value, json};

/// Check names of the five entry criteria, in the seed's order.
pub const CRITERIA: [&str; 5] = [
    "entry.1 projection ids",
    "entry.2 LoopX source event",
    "entry.3 runtime dry run",
    "entry.4 compact payload",
    "entry.5 result reporting",
];

/// A failing entry criterion makes the item read-only.
const READ_ONLY: Option<Predicted> = Some(Predicted::Status(Status::PreviewOnly));

/// LoopX `TODO_AGENT_CLAIM_PATTERN`: `^[a-z][a-z0-9_.:@-]{0,79}$`.
fn is_agent(s: &str) -> bool {
    let b = s.as_bytes();
    (1..=80).contains(&b.len())
        && b[0].is_ascii_lowercase()
        && b[1..]
            .iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'_' | b'.' | b':' | b'@' | b'-'))
}

/// Whether `row` (the LoopX run named `run`) is the event `wb` reflects: of the class's
/// kind, and saying what the payload says (a gate decision reflects the decision LoopX
/// recorded, for that gate; a reward overlay the reward recorded on the judged run; a quota
/// hint a quota run, never `eligible` from a voided slot; pointers any LoopX run but
/// writegate's own result rows).
fn source_consistency(class: Option<&str>, row: &Value, run: &str, wb: &Writeback) -> Result<(), String> {
    let classification = row.get("classification").and_then(Value::as_str).unwrap_or("");
    let say = |k: &str| wb.payload.get(k).and_then(Value::as_str);
    if classification == "controlled_writeback" {
        return Err(format!("run {run} is a writegate result row, not a LoopX event"));
    }
    match class {
        Some("operator_gate_decision") => {
            let Some(gate) = row.get("operator_gate").filter(|g| g.is_object()) else {
                return Err(format!("run {run} is a {classification} run, not an operator gate decision"));
            };
            let recorded = gate.get("decision").and_then(Value::as_str).unwrap_or("");
            if say("decision_label") != Some(recorded) {
                return Err(format!(
                    "the payload says decision_label {:?}; LoopX recorded {recorded:?} for this gate",
                    say("decision_label").unwrap_or("")
                ));
            }
            let gate_id = gate.get("gate").and_then(Value::as_str).unwrap_or("");
            if let Some(id) = say("decision_id").filter(|id| *id != gate_id) {
                return Err(format!("the payload's decision_id {id} is not the recorded gate {gate_id}"));
            }
            if let Some(r) = say("source_run_id").filter(|r| *r != run) {
                return Err(format!("the payload's source_run_id {r} is not loopx_source.source_run_id {run}"));
            }
            Ok(())
        }
        Some("human_reward_overlay") => {
            let Some(reward) = row.get("human_reward").filter(|g| g.is_object()) else {
                return Err(format!("run {run} carries no human_reward overlay"));
            };
            if let Some(j) = say("judged_run_id").filter(|j| *j != run) {
                return Err(format!("the payload's judged_run_id {j} is not the rewarded run {run}"));
            }
            for (field, recorded) in [("decision_label", "decision"), ("reward", "reward")] {
                let rec = reward.get(recorded).and_then(Value::as_str);
                if let Some(v) = say(field).filter(|v| Some(*v) != rec) {
                    return Err(format!("the payload says {field} {v:?}; LoopX recorded {:?}", rec.unwrap_or("")));
                }
            }
            Ok(())
        }
        Some("quota_scheduler_hint") => {
            if !classification.starts_with("quota") {
                return Err(format!("run {run} is a {classification} run, not a quota decision"));
            }
            if classification == "quota_slot_voided" && say("hint") == Some("eligible") {
                return Err(format!("run {run} voided a quota slot; it cannot back an `eligible` hint"));
            }
            Ok(())
        }
        Some("artifact_run_pointer") => match say("run_id").filter(|r| *r != run) {
            Some(r) => Err(format!("the payload's run_id {r} is not loopx_source.source_run_id {run}")),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

impl Engine {
    /// The adapter serving `wb`'s runtime.
    fn adapter_for(&self, wb: &Writeback) -> Adapter {
        self.adapters.resolve(&self.ws.runtime_root, wb.runtime_id.as_deref().unwrap_or(""))
    }

    /// Prepares a writeback preview: schema, the five entry criteria with their evidence,
    /// idempotency, and the reflection an apply would send (as the "diff": nothing → the
    /// metadata line). Writes nothing.
    pub(super) fn prepare_writeback(&self, item: &Item, wb: &Writeback, snap: &GoalSnapshot) -> Prepared {
        let mut p = Prepared::unchecked(item);
        p.check("schema", true, format!("{} (dry_run), class {}", super::writeback::SCHEMA, wb.write_class), None);
        Self::criterion_ids(&mut p, item, wb, snap);
        self.criterion_source(&mut p, wb, snap);
        let adapter = self.adapter_for(wb);
        let caps = adapter.capabilities(wb.runtime_id.as_deref().unwrap_or(""), wb.session_id.as_deref().unwrap_or(""));
        let class_known = super::writeback::class(&wb.write_class).is_some();
        let supported = class_known && caps.write_classes.contains(&wb.write_class);
        let detail = match (supported, caps.dry_run) {
            (true, true) => format!("{} adapter: dry run for {}", caps.kind, wb.write_class),
            (false, _) if !class_known => format!("write class {:?} is not in the seed's table", wb.write_class),
            (false, _) => format!(
                "the {} adapter for {} does not take {} (it takes {})",
                caps.kind,
                wb.runtime_id.as_deref().unwrap_or("?"),
                wb.write_class,
                caps.write_classes.join(", ")
            ),
            (true, false) => {
                format!("the {} adapter for {} has no dry-run path", caps.kind, wb.runtime_id.as_deref().unwrap_or("?"))
            }
        };
        p.check(CRITERIA[2], supported && caps.dry_run, detail, READ_ONLY);
        Self::criterion_payload(&mut p, wb, snap);
        match &caps.reports {
            Ok(how) => p.check(CRITERIA[4], true, how.clone(), READ_ONLY),
            Err(why) => p.check(CRITERIA[4], false, why.clone(), READ_ONLY),
        }
        Self::writeback_idempotency(&mut p, wb, snap, &adapter);
        let reflection = super::writeback::reflection(wb, "<at apply>");
        let mut text = serde_json::to_string_pretty(&reflection).unwrap_or_default();
        text.push('\n');
        p.current_text = Some(String::new());
        p.proposed_text = Some(text);
        p.invalid_reason = None;
        p
    }

    fn criterion_ids(p: &mut Prepared, item: &Item, wb: &Writeback, snap: &GoalSnapshot) {
        let mut why = Vec::new();
        match (&wb.goal_id, &snap.goal) {
            (Some(g), Ok(_)) if *g == item.goal_id => {}
            (Some(g), Ok(_)) => {
                why.push(format!("goal_id {g} is not the goal whose inbox holds it ({})", item.goal_id));
            }
            (None, _) => why.push("goal_id missing".to_owned()),
            (_, Err(e)) => why.push(format!("goal unknown: {e}")),
        }
        match (&wb.agent_id, &snap.goal) {
            (None, _) => why.push("agent_id missing".into()),
            (Some(a), _) if !is_agent(a) => why.push(format!("agent_id {a:?} is not a LoopX agent id")),
            (Some(a), Ok(g)) if !g.registered_agents.is_empty() && !g.registered_agents.contains(a) => {
                why.push(format!("agent {a} is not registered for the goal"));
            }
            _ => {}
        }
        let registered = match &snap.goal {
            Ok(g) if g.registered_agents.is_empty() => "the goal registers no agents",
            _ => "registered",
        };
        for (name, v) in [("runtime.runtime_id", &wb.runtime_id), ("runtime.session_id", &wb.session_id)] {
            match v {
                None => why.push(format!("{name} missing")),
                Some(s) if !super::adapters::is_segment(s) => why.push(format!("{name} is not a public-safe handle")),
                Some(_) => {}
            }
        }
        if wb.source_run_id.is_none() && wb.source_todo_id.is_none() {
            why.push("no LoopX run id or todo id (loopx_source.source_run_id / source_todo_id)".into());
        } else if wb.source_run_id.is_none()
            && matches!(
                wb.write_class.as_str(),
                "operator_gate_decision" | "human_reward_overlay" | "quota_scheduler_hint"
            )
        {
            why.push(format!("a {} reflects a LoopX run: loopx_source.source_run_id is missing", wb.write_class));
        }
        let ok = why.is_empty();
        let detail = if ok {
            format!(
                "goal {}, agent {} ({registered}), runtime {}, session {}, source {}",
                item.goal_id,
                wb.agent_id.as_deref().unwrap_or("?"),
                wb.runtime_id.as_deref().unwrap_or("?"),
                wb.session_id.as_deref().unwrap_or("?"),
                [
                    wb.source_run_id.as_deref().map(|r| format!("run {r}")),
                    wb.source_todo_id.as_deref().map(|t| format!("todo {t}"))
                ]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" + ")
            )
        } else {
            why.join("; ")
        };
        p.check(CRITERIA[0], ok, detail, READ_ONLY);
    }

    fn criterion_source(&self, p: &mut Prepared, wb: &Writeback, snap: &GoalSnapshot) {
        let class = super::writeback::class(&wb.write_class);
        let mut why = Vec::new();
        let mut found = Vec::new();
        if let (Some(c), Some(declared)) = (class, &wb.source_event_class)
            && declared != c.source
        {
            why.push(format!("source_event_class {declared} is not {}'s LoopX source ({})", c.name, c.source));
        }
        if let Some(run) = &wb.source_run_id {
            let rows = self
                .ws
                .goal_runtime_dir(&p.item.goal_id)
                .map_err(|e| e.to_string())
                .and_then(|d| crate::loopx::runs::read_rows(&d));
            match rows {
                Err(e) => why.push(e),
                Ok(rows) => match crate::loopx::runs::find_run(&rows, run) {
                    None => why.push(format!("run {run} is not in runs/index.jsonl: record the LoopX event first")),
                    Some(row) => {
                        let classification = row.get("classification").and_then(Value::as_str).unwrap_or("");
                        match source_consistency(class.map(|c| c.name), row, run, wb) {
                            Ok(()) => found.push(format!("run {run} ({classification})")),
                            Err(e) => why.push(e),
                        }
                    }
                },
            }
        }
        if let Some(todo) = &wb.source_todo_id {
            match snap.parsed.as_ref().map(|s| s.find_todo(todo).map(|t| t.status.clone())) {
                Some(Some(status)) => found.push(format!("todo {todo} ({status})")),
                Some(None) => why.push(format!("todo {todo} is not in the goal's state")),
                None => why.push("the goal's state cannot be read".into()),
            }
        }
        let ok = why.is_empty() && !found.is_empty();
        let detail = if ok {
            format!("{} recorded", found.join(" and "))
        } else if why.is_empty() {
            "no source named".into()
        } else {
            why.join("; ")
        };
        p.check(CRITERIA[1], ok, detail, READ_ONLY);
    }

    fn criterion_payload(p: &mut Prepared, wb: &Writeback, snap: &GoalSnapshot) {
        let mut why = Vec::new();
        let mut summary = String::new();
        match judge_payload(wb) {
            Ok(s) => summary = s,
            Err(e) => why.push(e),
        }
        if let Err(e) = judge_boundary(&wb.boundary) {
            why.push(format!("boundary: {e}"));
        }
        let mut findings = Vec::new();
        scan::scan_json(&wb.doc, "", Policy::Public, &mut findings);
        crate::gate::allowlist::apply(&mut findings, snap.allowlist.as_deref().unwrap_or_default());
        if !findings.is_empty() {
            why.push(format!(
                "{} scan finding(s) (policy public): {}",
                findings.len(),
                findings.iter().map(|f| format!("{} at {}", f.rule_id, f.location)).collect::<Vec<_>>().join(", ")
            ));
        }
        p.findings = findings;
        let ok = why.is_empty();
        p.check(
            CRITERIA[3],
            ok,
            if ok { format!("{summary}; boundary flags false; scan clean") } else { why.join("; ") },
            READ_ONLY,
        );
    }

    fn writeback_idempotency(p: &mut Prepared, wb: &Writeback, snap: &GoalSnapshot, adapter: &Adapter) {
        let Some(records) = super::preview::readable_results(p, &snap.results) else { return };
        let prior = records.iter().rev().find(|r| {
            r.kind == "writeback"
                && r.idempotency_key == wb.idempotency_key
                && (r.status == Status::Applied
                    || (r.status == Status::Skipped && r.reason_code.as_deref() == Some("already_reflected")))
        });
        // The inbox adapter is a file read; a command adapter is asked only at apply.
        let in_runtime = match adapter {
            Adapter::Inbox { .. } => adapter
                .has_key(&super::writeback::reflection(wb, ""))
                .ok()
                .flatten()
                .map(|d| (d, "the runtime inbox".to_owned())),
            Adapter::Command { .. } | Adapter::Unavailable { .. } => None,
        };
        let seen = prior.map(|r| (r.effect_digest.clone(), format!("item {}", r.item_id))).or(in_runtime);
        match seen {
            None => p.check("idempotency", true, "key not reflected before", None),
            Some((digest, where_)) if digest == wb.payload_digest || digest.is_empty() => p.check(
                "idempotency",
                false,
                format!("key already reflected by {where_}: apply records skipped, nothing is re-sent"),
                Some(Predicted::Status(Status::SkippedDuplicate)),
            ),
            Some((digest, where_)) => {
                p.conflict = Some(json!({"kind": "idempotency_conflict", "idempotency_key": wb.idempotency_key,
                    "prior": where_, "prior_payload_digest": digest, "payload_digest": wb.payload_digest}));
                p.check(
                    "idempotency",
                    false,
                    format!("key already reflected by {where_} with a different payload: refused"),
                    Some(Predicted::Status(Status::IdempotencyConflict)),
                );
            }
        }
    }

    /// Decides a writeback under the gate lock (called by `decide`).
    pub(super) fn decide_writeback(
        &self,
        gate: &GateDir,
        item: &Item,
        wb: &Writeback,
        decision: &Decision,
    ) -> Result<Outcome, EngineError> {
        let p = self.prepare(item);
        let read_only = p.checks.iter().any(|c| !c.ok && CRITERIA.contains(&c.name.as_str()));
        match decision {
            Decision::Skip if read_only => Err(EngineError::Refused(
                "a read-only writeback (an entry criterion failed) is rejected or gets a blocker, not skipped".into(),
            )),
            Decision::Skip => self.close_writeback(gate, &p, wb, "skip", Status::Skipped, "operator_skip", None, None),
            Decision::Reject { reason } => {
                let reason = super::apply::sanitize_reason(reason);
                if reason.is_empty() {
                    return Err(EngineError::Refused("a reject needs a reason".into()));
                }
                self.close_writeback(gate, &p, wb, "reject", Status::Rejected, "operator_reject", Some(reason), None)
            }
            Decision::RejectForBlocker { blocker_item } => self.close_writeback(
                gate,
                &p,
                wb,
                "record_blocker",
                Status::Rejected,
                "blocker_recorded",
                Some(format!("entry criteria failed; blocker todo proposed as item {blocker_item}")),
                None,
            ),
            Decision::Apply { .. } => self.apply_writeback(gate, &p, wb),
            Decision::Rebase { .. } | Decision::ReleaseExpiredLease { .. } | Decision::RecordBlocker => {
                Err(EngineError::Refused("not a decision for a writeback preview".into()))
            }
        }
    }

    fn apply_writeback(&self, gate: &GateDir, p: &Prepared, wb: &Writeback) -> Result<Outcome, EngineError> {
        if let Some(c) = p.checks.iter().find(|c| !c.ok && CRITERIA.contains(&c.name.as_str())) {
            return Err(EngineError::Refused(format!(
                "{} failed ({}): the writeback is read-only; reject it or record a blocker",
                c.name, c.detail
            )));
        }
        match &p.predicted {
            Predicted::Status(Status::SkippedDuplicate) => {
                return self.close_writeback(gate, p, wb, "apply", Status::Skipped, "already_reflected", None, None);
            }
            Predicted::Status(Status::IdempotencyConflict) => {
                let rec = self.record(p, "apply", Status::IdempotencyConflict, Some("idempotency_conflict"), None);
                gate.results().append(&rec)?;
                return Ok(Outcome {
                    status: Status::IdempotencyConflict,
                    record: Some(rec),
                    item_moved: false,
                    message: "the key is already reflected with a different payload: refused; reject this item".into(),
                    lock: None,
                    conflict: p.conflict.clone(),
                });
            }
            Predicted::Ready => {}
            other => {
                return Err(EngineError::Refused(format!("apply is unavailable: {}", other.name())));
            }
        }
        let adapter = self.adapter_for(wb);
        let reflection = super::writeback::reflection(wb, &self.clock.utc_stamp());
        match adapter.has_key(&reflection) {
            Ok(Some(d)) if d.is_empty() || d == wb.payload_digest => {
                return self.close_writeback(gate, p, wb, "apply", Status::Skipped, "already_reflected", None, None);
            }
            Ok(Some(_)) => {
                return Err(EngineError::Refused(
                    "the runtime already holds this idempotency key with a different payload: refused; reject this item".into(),
                ));
            }
            Ok(None) => {}
            Err(e) => {
                return self.close_writeback(
                    gate,
                    p,
                    wb,
                    "apply",
                    Status::Failed,
                    "runtime_has_key_failed",
                    Some(format!("the runtime could not say whether the key is reflected: {e}")),
                    None,
                );
            }
        }
        let dry = adapter.dry_run(&reflection);
        match dry.status.as_str() {
            "previewed" => {}
            "skipped" => {
                return self.close_writeback(
                    gate,
                    p,
                    wb,
                    "apply",
                    Status::Skipped,
                    "already_reflected",
                    dry.reason,
                    None,
                );
            }
            _ => {
                return self.close_writeback(
                    gate,
                    p,
                    wb,
                    "apply",
                    Status::Failed,
                    "runtime_dry_run_refused",
                    Some(format!("dry run {}: {}", dry.status, dry.reason.unwrap_or_default())),
                    None,
                );
            }
        }
        let answer = adapter.apply(&reflection);
        let (status, code) = match answer.status.as_str() {
            "applied" => (Status::Applied, "reflected"),
            "skipped" => (Status::Skipped, "already_reflected"),
            "rejected" => (Status::Rejected, "runtime_rejected"),
            _ => (Status::Failed, "runtime_failed"),
        };
        self.close_writeback(gate, p, wb, "apply", status, code, answer.reason.clone(), Some(&answer))
    }

    /// Records `status` (result record + LoopX result run) and moves the item to `decided/`.
    #[allow(clippy::too_many_arguments)]
    fn close_writeback(
        &self,
        gate: &GateDir,
        p: &Prepared,
        wb: &Writeback,
        decision: &str,
        status: Status,
        code: &str,
        reason: Option<String>,
        answer: Option<&super::adapters::Answer>,
    ) -> Result<Outcome, EngineError> {
        let generated_at = self.unique_generated_at(&p.item.goal_id);
        let adapter = self.adapter_for(wb).capabilities("", "").kind;
        let row = Self::writeback_run_row(p, wb, status, code, answer, &generated_at);
        let run_result = self
            .ws
            .goal_runtime_dir(&p.item.goal_id)
            .map_err(|e| e.to_string())
            .and_then(|d| crate::loopx::runs::append_row(&d, &row).map_err(|e| e.to_string()));
        let mut rec: ResultRecord = self.record(p, decision, status, Some(code), reason);
        if let Some(Value::Object(m)) = rec.writeback.as_mut() {
            m.insert("adapter".into(), json!(adapter));
            if let Some(a) = answer {
                m.insert("runtime_status".into(), json!(a.status));
                m.insert("runtime_event_id".into(), json!(a.runtime_event_id));
                m.insert("runtime_reason".into(), json!(a.reason));
            }
            match &run_result {
                Ok(()) => m.insert("loopx_run_generated_at".into(), json!(generated_at)),
                Err(e) => m.insert("loopx_run_error".into(), json!(e)),
            };
        }
        gate.results().append(&rec)?;
        crate::gate::fsutil::durable_move(&p.item.path, &Self::decided_path(gate, &p.item))
            .map_err(|source| EngineError::Io { what: "move item to decided/".into(), source })?;
        let mut message = match (status, answer.and_then(|a| a.runtime_event_id.clone())) {
            (Status::Applied, Some(id)) => format!("reflected in the runtime as {id}; recorded"),
            _ if code == "blocker_recorded" => format!("{}; recorded", rec.reason.clone().unwrap_or_default()),
            _ => "recorded".to_owned(),
        };
        match run_result {
            Ok(()) => message.push_str(" with a LoopX result run; the item moved to decided/"),
            Err(e) => message
                .push_str(&format!("; the LoopX result run could NOT be appended ({e}); the item moved to decided/")),
        }
        Ok(Outcome { status, record: Some(rec), item_moved: true, message, lock: None, conflict: None })
    }

    /// LoopX's run-row shape (FORMATS.md §2.5) for a writeback decision: ids and codes only,
    /// no absolute path. `progress_scope: agent_lane` keeps it from becoming the goal's
    /// latest status run in `loopx status` (`history.py::latest_status_run`).
    fn writeback_run_row(
        p: &Prepared,
        wb: &Writeback,
        status: Status,
        code: &str,
        answer: Option<&super::adapters::Answer>,
        generated_at: &str,
    ) -> Value {
        let agent = wb.agent_id.clone().filter(|a| is_agent(a));
        let mut row = json!({
            "generated_at": generated_at,
            "goal_id": p.item.goal_id,
            "classification": "controlled_writeback",
            "health_check": format!("controlled_writeback {}; {} {}", wb.write_class, status.as_str(), code),
            "controlled_writeback": {
                "schema_version": super::writeback::SCHEMA,
                "write_class": super::writeback::class(&wb.write_class).map(|c| c.name),
                "status": match status {
                    Status::Applied => "applied",
                    Status::Skipped | Status::SkippedDuplicate => "skipped",
                    Status::Rejected => "rejected",
                    _ => "failed",
                },
                "reason_code": code,
                "idempotency_key": wb.idempotency_key,
                "runtime_id": wb.runtime_id.as_deref().filter(|s| super::adapters::is_segment(s)),
                "session_id": wb.session_id.as_deref().filter(|s| super::adapters::is_segment(s)),
                "runtime_event_id": answer.and_then(|a| a.runtime_event_id.clone()),
                "source_run_id": wb.source_run_id,
                "source_todo_id": wb.source_todo_id,
                "writegate_item_id": p.item.id,
            },
        });
        if let (Some(a), Some(m)) = (agent, row.as_object_mut()) {
            m.insert("progress_scope".into(), json!("agent_lane"));
            m.insert("agent_id".into(), json!(a));
            m.insert("agent_lane".into(), json!(a));
        }
        row
    }

    /// `generated_at` in LoopX's local ISO form, with microseconds so that two rows never
    /// share LoopX's row identity `(generated_at, json_path, markdown_path)` (rows without
    /// artifacts would otherwise be merged by `load_index`).
    fn unique_generated_at(&self, goal_id: &str) -> String {
        let taken: std::collections::BTreeSet<String> = self
            .ws
            .goal_runtime_dir(goal_id)
            .ok()
            .and_then(|d| crate::loopx::runs::read_rows(&d).ok())
            .unwrap_or_default()
            .iter()
            .filter_map(|r| r.get("generated_at").and_then(Value::as_str).map(str::to_owned))
            .collect();
        let mut t = match self.clock {
            super::Clock::System => chrono::Local::now().fixed_offset(),
            super::Clock::Fixed(t) => t,
        };
        loop {
            let s = t.format("%Y-%m-%dT%H:%M:%S%.6f%:z").to_string();
            if !taken.contains(&s) {
                return s;
            }
            t += chrono::Duration::microseconds(1);
        }
    }

    /// "Record a blocker" for a read-only writeback: proposes an agent todo with task class
    /// `blocker` in the same goal (a new pending write intent, applied only on a keypress),
    /// then records the writeback as `rejected` (`blocker_recorded`) with a result run and
    /// moves it to `decided/`. The todo text is built from writegate's own words and checked
    /// ids (the class when known, the failed criteria, the item id), never from payload text.
    ///
    /// # Errors
    /// The item is not a read-only writeback, it changed since `seen_digest`, or LoopX would
    /// refuse the todo (its message).
    pub fn record_blocker(&self, reference: &str, seen_digest: Option<&str>) -> Result<Outcome, EngineError> {
        let item = self.find_item(reference)?;
        if seen_digest.is_some_and(|d| d != item.payload_digest) {
            return Err(EngineError::ItemChanged(item.id));
        }
        let Some(wb) = &item.writeback else {
            return Err(EngineError::Refused("record a blocker is for writeback previews".into()));
        };
        let p = self.prepare(&item);
        let failed: Vec<String> = p
            .checks
            .iter()
            .filter(|c| !c.ok && CRITERIA.contains(&c.name.as_str()))
            .map(|c| c.name.trim_start_matches("entry.").chars().next().unwrap_or('?').to_string())
            .collect();
        if failed.is_empty() {
            return Err(EngineError::Refused("every entry criterion passes: apply, skip or reject it instead".into()));
        }
        let class = super::writeback::class(&wb.write_class).map_or("unknown-class", |c| c.name);
        let runtime = wb.runtime_id.as_deref().filter(|s| super::adapters::is_segment(s)).unwrap_or("unknown-runtime");
        let text = format!(
            "[P1] Writeback blocked: {class} to {runtime} failed entry criteria {} (writegate item {})",
            failed.join(", "),
            item.id
        );
        let op = TodoOp::TodoAdd(TodoArgs {
            role: Some("agent".into()),
            task_class: Some("blocker".into()),
            text: Some(text),
            ..TodoArgs::default()
        });
        let proposed = self.propose(&item.goal_id, &op).map_err(|e| match e {
            super::ProposeError::Engine(e) => e,
            super::ProposeError::Refused(r) => {
                EngineError::Refused(format!("LoopX would refuse the blocker todo: {r}"))
            }
        })?;
        self.decide(
            &format!("{}/{}", item.goal_id, item.id),
            &Decision::RejectForBlocker { blocker_item: proposed.item_id },
            Some(&item.payload_digest),
        )
    }
}
