//! `writegate propose …`: computes the write exactly as `loopx … --dry-run` would (same
//! packet), adds the proposal, drops the item into the goal's inbox and prints its id.
//! It never touches the state file. The item id goes to stdout; a note on stderr says when
//! apply would not be `ready` now, or when an identical item was already pending. A command LoopX would refuse prints LoopX's error as
//! `{"ok": false, "error": …}` and exits 2.

use super::exit;
use super::output::out;
use super::propose_args::ProposeCmd;
use crate::engine::{Clock, Engine, ProposeError};
use crate::loopx::registry::Locator;
use anyhow::Context as _;

pub(super) fn run(loc: &Locator, cmd: ProposeCmd, operator: &str) -> anyhow::Result<i32> {
    let (goal_id, op) = cmd.into_op();
    let engine = Engine::open(loc, Clock::System, operator.to_owned()).context("failed to open the workspace")?;
    match engine.propose(&goal_id, &op) {
        Ok(p) => {
            tracing::info!(
                goal = goal_id,
                item = p.item_id,
                reused = p.reused,
                predicted = p.predicted_status,
                "proposed"
            );
            out(&format!("{}\n", p.item_id))?;
            if p.reused {
                eprintln!("writegate: an identical item is already pending; not adding a duplicate");
            }
            if p.predicted_status != "ready" {
                eprintln!(
                    "writegate: note: apply would return {} now{}",
                    p.predicted_status,
                    p.detail.map(|d| format!(" ({})", super::output::clean(&d))).unwrap_or_default()
                );
            }
            Ok(exit::OK)
        }
        Err(ProposeError::Refused(refused)) => {
            out(&(serde_json::to_string(&serde_json::json!({"ok": false, "goal_id": goal_id, "error": refused.0}))?
                + "\n"))?;
            Ok(exit::ERROR)
        }
        Err(ProposeError::Canonical(why)) => {
            let doc = serde_json::json!({"ok": false, "goal_id": goal_id, "error": why,
                "reason_code": "canonical_authority"});
            out(&(serde_json::to_string(&doc)? + "\n"))?;
            Ok(exit::ERROR)
        }
        Err(ProposeError::Engine(e)) => Err(e).context("failed to propose"),
    }
}
