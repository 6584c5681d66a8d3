//! Proposing: compute a LoopX op against the current state exactly as `loopx … --dry-run`
//! would, and drop the resulting item into the goal's inbox. Never touches the state.

use super::item::{Item, make_item_doc};
use super::{Engine, EngineError, read_state};
use crate::gate::drop_item;
use crate::loopx::edit::{EditContext, EditRefused, TodoOp, apply_op};

/// Why a proposal was not dropped.
#[derive(Debug, thiserror::Error)]
pub enum ProposeError {
    /// LoopX itself would refuse the command (LoopX's message).
    #[error("{0}")]
    Refused(#[from] EditRefused),
    /// The goal is canonical (LoopX 2.x): writegate does not compute 0.5.x todo edits for
    /// it (reason code `canonical_authority`; the message says what to do instead).
    #[error("{0}")]
    Canonical(String),
    /// LoopX 2.x refused the command's dry run: its JSON answer (`error`, `error_code`).
    #[error("{}", .0.get("error").and_then(serde_json::Value::as_str).unwrap_or("LoopX refused the command"))]
    Loopx(serde_json::Value),
    /// Workspace or I/O problems.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// A dropped (or already pending) item.
#[derive(Debug, Clone)]
pub struct Proposed {
    /// The item id.
    pub item_id: String,
    /// True when an identical item (same key, effect and expected revision) was already
    /// pending and no new file was written.
    pub reused: bool,
    /// What apply would return now (`ready`, a conflict, …).
    pub predicted_status: String,
    /// The first failing check's detail, if any.
    pub detail: Option<String>,
}

impl Engine {
    /// Computes `op` on `goal_id`'s current state and drops the item. Proposing the same
    /// write again while an identical item is pending returns that item instead of a
    /// duplicate (agents retry).
    ///
    /// # Errors
    /// [`ProposeError::Refused`] with LoopX's message, or workspace / I/O errors.
    pub fn propose(&self, goal_id: &str, op: &TodoOp) -> Result<Proposed, ProposeError> {
        let goal = self.goal(goal_id)?;
        let text = read_state(&goal.state_file)
            .map_err(|e| EngineError::Io { what: format!("read state: {e}"), source: std::io::Error::other(e) })?;
        if crate::loopx2::is_canonical_goal(self.goal_place(goal), Some(&text)) {
            return Err(ProposeError::Canonical(crate::loopx2::refusal_for(op.name())));
        }
        let ctx = EditContext {
            goal_id: goal_id.to_owned(),
            registered_agents: goal.registered_agents.clone(),
            now: self.clock.loopx_now(),
        };
        let outcome = apply_op(&text, op, &ctx)?;
        let doc = make_item_doc(goal_id, op, &text, &outcome, &self.clock.utc_stamp());
        let key = doc.pointer("/local_state_write_correctness/write_intent/idempotency_key").cloned();
        let rev = doc.pointer("/local_state_write_correctness/write_intent/expected_revision/value").cloned();
        let effect = crate::loopx::hash::value_digest(&doc["proposal"]);
        let existing = self.items(Some(goal_id)).into_iter().find(|i| {
            i.intent.as_ref().is_ok_and(|it| {
                Some(serde_json::Value::String(it.idempotency_key.clone())) == key
                    && Some(serde_json::Value::String(it.expected_revision.clone())) == rev
                    && it.effect_digest == effect
            })
        });
        self.drop_or_reuse(goal_id, existing, &doc, &text, op.name())
    }

    /// The pending `existing` item, or `doc` dropped into the goal's inbox with `base` (the
    /// state it was proposed against) kept beside it; then what apply would return now.
    pub(super) fn drop_or_reuse(
        &self,
        goal_id: &str,
        existing: Option<Item>,
        doc: &serde_json::Value,
        base: &str,
        class: &str,
    ) -> Result<Proposed, ProposeError> {
        let (item, reused) = if let Some(item) = existing {
            (item, true)
        } else {
            let gate = self.gate(goal_id)?;
            // The base and the item land together under the gate lock, so a prune cannot
            // remove the base of an item it has not seen yet.
            let _lock = super::gate_lock::gate_lock(&gate)?;
            super::keep_snapshots(&gate, &[base]);
            let stamp = self.clock.now().with_timezone(&chrono::Utc).format("%Y%m%dT%H%M%SZ").to_string();
            let id = drop_item(&gate, doc, &stamp, class)
                .map_err(|source| EngineError::Io { what: "drop item into inbox".into(), source })?;
            (Item::read(&gate.inbox().join(format!("{id}.json")), goal_id), false)
        };
        let p = self.prepare(&item);
        let detail = p.checks.iter().find(|c| !c.ok && c.name != "lock").map(|c| format!("{}: {}", c.name, c.detail));
        Ok(Proposed { item_id: item.id, reused, predicted_status: p.predicted.name().into(), detail })
    }
}
