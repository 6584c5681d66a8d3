//! Deciding writeback previews (session-runtime seed, "Flow", "Failure Semantics"): the
//! entry criteria again under the gate lock (`criteria`), the idempotency rules,
//! the adapter calls, and the compact LoopX result run appended to `runs/index.jsonl` after
//! every decision.
//!
//! Any failing criterion makes the item read-only (predicted `preview_only`): it can be
//! rejected, or a blocker recorded — an agent todo with task class `blocker`, proposed as a
//! new pending write intent in the same goal (LoopX 0.5.4 refuses a *user* todo with that
//! class: user todos take only `user_gate` / `user_action`).

use super::super::apply::{Decision, Outcome};
use super::super::item::Item;
use super::super::preview::{Predicted, Prepared};
use super::super::{Engine, EngineError};
use super::Writeback;
use crate::gate::GateDir;
use crate::loopx::edit::{TodoArgs, TodoOp};
use crate::wire::{ResultRecord, Status};
use serde_json::{Value, json};

use super::criteria::CRITERIA;

impl Engine {
    /// Decides a writeback under the gate lock (called by `decide`).
    pub(in crate::engine) fn decide_writeback(
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
                let reason = super::super::apply::sanitize_reason(reason);
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
            Decision::Apply(a) => {
                crate::engine::approval::check_approval(&p, a)?;
                self.apply_writeback(gate, &p, wb)
            }
            Decision::ReleaseExpiredLease { .. } | Decision::RecordBlocker => {
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
        let reflection = super::reflection(wb, &self.clock.utc_stamp());
        match adapter.has_key(&reflection) {
            Ok(Some(d)) if d == wb.payload_digest => {
                return self.close_writeback(gate, p, wb, "apply", Status::Skipped, "already_reflected", None, None);
            }
            Ok(Some(held)) => {
                // Recorded like the conflict a preview finds; the item stays for a reject.
                let rec = self.record(
                    p,
                    "apply",
                    Status::IdempotencyConflict,
                    Some("idempotency_conflict"),
                    Some(format!("the runtime holds this key with payload {held}, not {}", wb.payload_digest)),
                );
                gate.results().append(&rec)?;
                return Ok(Outcome {
                    status: Status::IdempotencyConflict,
                    record: Some(rec),
                    item_moved: false,
                    message: "the runtime already holds this idempotency key with a different payload: refused; reject this item".into(),
                    lock: None,
                    conflict: Some(json!({"kind": "idempotency_conflict", "idempotency_key": wb.idempotency_key,
                        "prior": "the runtime", "prior_payload_digest": held, "payload_digest": wb.payload_digest})),
                });
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
            refused => {
                let (status, code) = if refused == "rejected" {
                    (Status::Rejected, "runtime_dry_run_rejected")
                } else {
                    (Status::Failed, "runtime_dry_run_failed")
                };
                let why = dry.reason.unwrap_or_else(|| "(no reason given)".into());
                return self.close_writeback(
                    gate,
                    p,
                    wb,
                    "apply",
                    status,
                    code,
                    Some(format!("the runtime's dry run: {refused}: {why}")),
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
        answer: Option<&super::super::adapters::Answer>,
    ) -> Result<Outcome, EngineError> {
        let adapter = self.adapter_for(wb).kind();
        // A run row this item's exact bytes already got (an attempt killed between the row
        // and the result record) is not appended again: one LoopX run per decision.
        let (generated_at, run_result) = if let Some(at) = self.earlier_run_row(p) {
            (at, Ok(()))
        } else {
            let generated_at = self.unique_generated_at(&p.item.goal_id);
            let row = Self::writeback_run_row(p, wb, status, code, answer, &generated_at);
            let appended = self
                .ws
                .goal_runtime_dir(&p.item.goal_id)
                .map_err(|e| e.to_string())
                .and_then(|d| crate::loopx::runs::append_row(&d, &row).map_err(|e| e.to_string()));
            (generated_at, appended)
        };
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
            (Status::Applied, None) => "applied; recorded".to_owned(),
            _ => match &rec.reason {
                Some(why) => format!("{why}; recorded"),
                None => "recorded".to_owned(),
            },
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
        answer: Option<&super::super::adapters::Answer>,
        generated_at: &str,
    ) -> Value {
        let agent = wb.agent_id.clone().filter(|a| crate::loopx::lease::is_agent_id(a));
        let mut row = json!({
            "generated_at": generated_at,
            "goal_id": p.item.goal_id,
            "classification": "controlled_writeback",
            "health_check": format!("controlled_writeback {}; {} {}", wb.write_class, status.as_str(), code),
            "controlled_writeback": {
                "schema_version": super::SCHEMA,
                "write_class": super::class(&wb.write_class).map(|c| c.name),
                "status": match status {
                    Status::Applied => "applied",
                    Status::Skipped | Status::SkippedDuplicate => "skipped",
                    Status::Rejected => "rejected",
                    _ => "failed",
                },
                "reason_code": code,
                "idempotency_key": wb.idempotency_key,
                "runtime_id": wb.runtime_id.as_deref().filter(|s| super::super::adapters::is_segment(s)),
                "session_id": wb.session_id.as_deref().filter(|s| super::super::adapters::is_segment(s)),
                "runtime_event_id": answer.and_then(|a| a.runtime_event_id.clone()),
                "source_run_id": wb.source_run_id,
                "source_todo_id": wb.source_todo_id,
                "writegate_item_id": p.item.id,
                "writegate_payload_digest": p.item.payload_digest,
            },
        });
        if let (Some(a), Some(m)) = (agent, row.as_object_mut()) {
            m.insert("progress_scope".into(), json!("agent_lane"));
            m.insert("agent_id".into(), json!(a));
            m.insert("agent_lane".into(), json!(a));
        }
        row
    }

    /// The `generated_at` of a LoopX run row already written for this item's exact bytes
    /// (`controlled_writeback.writegate_item_id` and `writegate_payload_digest`), if any.
    fn earlier_run_row(&self, p: &Prepared) -> Option<String> {
        let rows = crate::loopx::runs::read_rows(&self.ws.goal_runtime_dir(&p.item.goal_id).ok()?).ok()?;
        rows.iter().rev().find_map(|r| {
            let cw = r.get("controlled_writeback")?;
            let same = cw.get("writegate_item_id").and_then(Value::as_str) == Some(p.item.id.as_str())
                && cw.get("writegate_payload_digest").and_then(Value::as_str) == Some(p.item.payload_digest.as_str());
            same.then(|| r.get("generated_at").and_then(Value::as_str).map(str::to_owned)).flatten()
        })
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
            super::super::Clock::System => chrono::Local::now().fixed_offset(),
            super::super::Clock::Fixed(t) => t,
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
        let class = super::class(&wb.write_class).map_or("unknown-class", |c| c.name);
        let runtime =
            wb.runtime_id.as_deref().filter(|s| super::super::adapters::is_segment(s)).unwrap_or("unknown-runtime");
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
            super::super::ProposeError::Engine(e) => e,
            super::super::ProposeError::Refused(r) => {
                EngineError::Refused(format!("LoopX would refuse the blocker todo: {r}"))
            }
            super::super::ProposeError::Canonical(why) => {
                EngineError::Refused(format!("cannot record a blocker todo: {why}"))
            }
            e @ super::super::ProposeError::Loopx(_) => {
                EngineError::Refused(format!("LoopX refused the blocker todo: {e}"))
            }
        })?;
        self.decide(
            &format!("{}/{}", item.goal_id, item.id),
            &Decision::RejectForBlocker { blocker_item: proposed.item_id },
            Some(&item.payload_digest),
        )
    }
}
