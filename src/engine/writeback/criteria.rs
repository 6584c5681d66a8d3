//! The writeback entry criteria (session-runtime seed, "Entry Criteria"; DESIGN.md §6) as
//! checks with their evidence, the idempotency check, and the source-event consistency
//! rules. Preview only: nothing here writes.

use super::super::Engine;
use super::super::adapters::Adapter;
use super::super::item::Item;
use super::super::preview::{GoalSnapshot, Predicted, Prepared};
use super::{Writeback, judge_boundary, judge_payload};
use crate::scan::{self, Policy};
use crate::wire::Status;
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
    pub(in crate::engine) fn adapter_for(&self, wb: &Writeback) -> Adapter {
        self.adapters.resolve(&self.ws.runtime_root, wb.runtime_id.as_deref().unwrap_or(""))
    }

    /// Prepares a writeback preview: schema, the five entry criteria with their evidence,
    /// idempotency, and the reflection an apply would send (as the "diff": nothing → the
    /// metadata line). Writes nothing.
    pub(in crate::engine) fn prepare_writeback(&self, item: &Item, wb: &Writeback, snap: &GoalSnapshot) -> Prepared {
        let mut p = Prepared::unchecked(item);
        p.check("schema", true, format!("{} (dry_run), class {}", super::SCHEMA, wb.write_class), None);
        Self::criterion_ids(&mut p, item, wb, snap);
        self.criterion_source(&mut p, wb, snap);
        let adapter = self.adapter_for(wb);
        let caps = adapter.capabilities(wb.runtime_id.as_deref().unwrap_or(""), wb.session_id.as_deref().unwrap_or(""));
        let class_known = super::class(&wb.write_class).is_some();
        let supported = class_known && caps.write_classes.contains(&wb.write_class);
        let detail = match (supported, caps.dry_run) {
            _ if caps.kind == "none" => caps.reports.clone().err().unwrap_or_default(),
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
        let reflection = super::reflection(wb, "<at apply>");
        let mut text = serde_json::to_string_pretty(&reflection).unwrap_or_default();
        text.push('\n');
        p.current_text = Some(std::sync::Arc::default());
        p.proposed_text = Some(std::sync::Arc::new(text));
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
            (Some(a), _) if !crate::loopx::lease::is_agent_id(a) => {
                why.push(format!("agent_id {a:?} is not a LoopX agent id"));
            }
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
                Some(s) if !super::super::adapters::is_segment(s) => {
                    why.push(format!("{name} is not a public-safe handle"));
                }
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
        let class = super::class(&wb.write_class);
        let mut why = Vec::new();
        let mut found = Vec::new();
        if let (Some(c), Some(declared)) = (class, &wb.source_event_class)
            && declared != c.source
        {
            why.push(format!("source_event_class {declared} is not {}'s LoopX source ({})", c.name, c.source));
        }
        if let Some(run) = &wb.source_run_id {
            let rows = snap.runs.get_or_init(|| {
                self.ws
                    .goal_runtime_dir(&p.item.goal_id)
                    .map_err(|e| e.to_string())
                    .and_then(|d| crate::loopx::runs::read_rows(&d))
            });
            match rows {
                Err(e) => why.push(e.clone()),
                Ok(rows) => match crate::loopx::runs::find_run(rows, run) {
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
        // On a LoopX 2.x goal the authority holds the todos; its Markdown may lag (a pending
        // projection) or be broken.
        let canonical = snap.authority.as_deref().filter(|a| a.is_canonical());
        if let (Some(todo), Some(auth)) = (&wb.source_todo_id, canonical) {
            match auth.head_read() {
                Some(Ok(h)) => match h.todos.iter().find(|t| &t.todo_id == todo) {
                    Some(t) => found.push(format!("todo {todo} ({}, in LoopX's authority)", t.status)),
                    None => why.push(format!("todo {todo} is not in LoopX's authority for this goal")),
                },
                Some(Err(e)) => why.push(format!("LoopX's authority cannot be read: {e}")),
                None => why.push("LoopX's authority cannot be read".into()),
            }
        } else if let Some(todo) = &wb.source_todo_id {
            match snap.parsed.as_ref().map(|s| s.find_todo(todo).map(|t| t.status)) {
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
        let Some(records) = super::super::preview::readable_results(p, &snap.results) else { return };
        let prior = records.iter().rev().find(|r| {
            r.kind == "writeback"
                && r.idempotency_key == wb.idempotency_key
                && (r.status == Status::Applied
                    || (r.status == Status::Skipped && r.reason_code.as_deref() == Some("already_reflected")))
        });
        // The inbox adapter is a file read; a command adapter is asked only at apply.
        let in_runtime = adapter
            .inbox_metadata(&super::reflection(wb, ""))
            .and_then(|path| {
                let cached = snap.runtime_keys.lock().ok().and_then(|m| m.get(&path).cloned());
                let index = if let Some(index) = cached {
                    index
                } else {
                    let index = std::sync::Arc::new(super::super::adapters::inbox_key_index(&path).ok()?);
                    if let Ok(mut m) = snap.runtime_keys.lock() {
                        m.insert(path, index.clone());
                    }
                    index
                };
                index.get(&wb.idempotency_key).cloned()
            })
            .map(|d| (d, "the runtime inbox".to_owned()));
        let seen = prior.map(|r| (r.effect_digest.clone(), format!("item {}", r.item_id))).or(in_runtime);
        match seen {
            None => p.check("idempotency", true, "key not reflected before", None),
            Some((digest, where_)) if digest == wb.payload_digest => p.check(
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
}
