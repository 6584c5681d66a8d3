//! Proposing: compute a LoopX op against the current state exactly as `loopx … --dry-run`
//! would, and drop the resulting item into the goal's inbox. Never touches the state.

use super::item::make_item_doc;
use super::{Engine, EngineError, read_state};
use crate::gate::drop_item;
use crate::loopx::edit::{EditContext, EditRefused, TodoOp, apply_op};

/// Why a proposal was not dropped.
#[derive(Debug, thiserror::Error)]
pub enum ProposeError {
    /// LoopX itself would refuse the command (LoopX's message).
    #[error("{0}")]
    Refused(#[from] EditRefused),
    /// Workspace or I/O problems.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

impl Engine {
    /// Computes `op` on `goal_id`'s current state and drops the item; returns its id.
    ///
    /// # Errors
    /// [`ProposeError::Refused`] with LoopX's message, or workspace / I/O errors.
    pub fn propose(&self, goal_id: &str, op: &TodoOp) -> Result<String, ProposeError> {
        let goal = self.goal(goal_id)?;
        let text = read_state(&goal.state_file).map_err(|e| EngineError::Io {
            what: "read state".into(),
            source: std::io::Error::other(e),
        })?;
        let ctx = EditContext {
            goal_id: goal_id.to_owned(),
            registered_agents: goal.registered_agents.clone(),
            now: self.clock.loopx_now(),
        };
        let outcome = apply_op(&text, op, &ctx)?;
        let doc = make_item_doc(goal_id, op, &text, &outcome, &self.clock.utc_stamp());
        let gate = self.gate(goal_id)?;
        let stamp = self
            .clock
            .now()
            .with_timezone(&chrono::Utc)
            .format("%Y%m%dT%H%M%SZ")
            .to_string();
        drop_item(&gate, &doc, &stamp, op.name()).map_err(|source| {
            EngineError::Io {
                what: "drop item into inbox".into(),
                source,
            }
            .into()
        })
    }
}
