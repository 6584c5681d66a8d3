//! What every item of one goal is checked against, read once per load: the goal, its state
//! (text, parse, revision), results log and allowlist; and, read on first use by writeback
//! previews, the goal's run index and the runtime inbox files.

use super::{Engine, read_state};
use crate::loopx::hash::revision_of_text;
use crate::loopx::state::ActiveState;
use serde_json::Value;

/// What every item of one goal is checked against, read once.
#[derive(Debug, Clone)]
pub struct GoalSnapshot {
    /// The goal, or why it is unknown.
    pub goal: Result<crate::loopx::registry::Goal, String>,
    /// The state text, or why it cannot be read (shared with `parsed` when it has no `\r`
    /// and was parsed for this snapshot rather than found among this thread's recent parses).
    pub state: Result<std::sync::Arc<String>, String>,
    /// The results log, or why it cannot be read.
    pub results: Result<crate::gate::results::Records, String>,
    /// The state parsed once (when readable).
    pub parsed: Option<std::sync::Arc<ActiveState>>,
    /// The state's revision (when readable).
    pub revision: Option<String>,
    /// The goal's gate folder, checked inside the runtime root when the snapshot was read,
    /// or why it is refused.
    pub gate: Result<crate::gate::GateDir, String>,
    /// The operator's allowlist (`gate/allowlist.json`), or why it cannot be read.
    pub allowlist: Result<Vec<crate::gate::allowlist::AllowEntry>, String>,
    /// The goal's run index (`runs/index.jsonl`), read on first use by a writeback preview.
    pub runs: std::sync::Arc<std::sync::OnceLock<Result<Vec<Value>, String>>>,
    /// Runtime inbox files (`metadata.jsonl`) read by writeback previews: path → idempotency
    /// key → payload digest, each file read once per snapshot.
    pub runtime_keys: RuntimeKeys,
    /// The goal's authority (LOOPX2.md §1) and, for a canonical goal, its head, projection
    /// health and ghosts; `None` when the goal is unknown.
    pub authority: Option<std::sync::Arc<crate::loopx2::GoalAuthority>>,
}

/// See [`GoalSnapshot::runtime_keys`].
pub type RuntimeKeys = std::sync::Arc<
    std::sync::Mutex<
        std::collections::HashMap<std::path::PathBuf, std::sync::Arc<std::collections::HashMap<String, String>>>,
    >,
>;

impl Engine {
    /// Where `g` lives, for the LoopX 2.x readers.
    #[must_use]
    pub fn goal_place<'a>(&'a self, g: &'a crate::loopx::registry::Goal) -> crate::loopx2::GoalPlace<'a> {
        crate::loopx2::GoalPlace {
            goal_id: &g.id,
            entry: &g.raw,
            registry: &self.ws.registry_path,
            runtime_root: &self.ws.runtime_root,
            other_roots: &self.ws.other_runtime_roots,
        }
    }

    /// The authority of `g` judged against its Markdown `state` (LOOPX2.md §1).
    #[must_use]
    pub fn goal_authority(
        &self,
        g: &crate::loopx::registry::Goal,
        state: Option<&str>,
    ) -> crate::loopx2::GoalAuthority {
        crate::loopx2::GoalAuthority::read(self.goal_place(g), state)
    }

    /// Reads what every item of `goal_id` is checked against, once: the goal, its state
    /// text and its results log.
    #[must_use]
    pub fn goal_snapshot(&self, goal_id: &str) -> GoalSnapshot {
        self.goal_snapshot_in(goal_id, self.gate(goal_id).map_err(|e| crate::error_chain(&e)))
    }

    /// [`Self::goal_snapshot`] with the goal's gate folder already checked by the caller
    /// ([`Engine::gate`] moments before).
    pub(super) fn goal_snapshot_in(&self, goal_id: &str, gate: Result<crate::gate::GateDir, String>) -> GoalSnapshot {
        let goal = self.goal(goal_id).cloned().map_err(|e| crate::error_chain(&e));
        let state =
            goal.as_ref().map_err(Clone::clone).and_then(|g| read_state(&g.state_file)).map(std::sync::Arc::new);
        // Remembered across snapshots: an apply re-reads only what was appended.
        let results = gate
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|g| g.results().read_remembered().map_err(|e| crate::error_chain(&e)));
        // Remembered per thread: in a batch the state read here is the text the apply before
        // recomputed, and parsed then.
        let parsed = state.as_ref().ok().map(crate::loopx::state::parse_shared_remembered);
        let revision = state.as_ref().ok().map(|t| revision_of_text(t));
        let allowlist = gate.as_ref().map_err(Clone::clone).and_then(crate::gate::allowlist::load);
        let authority = goal
            .as_ref()
            .ok()
            .map(|g| std::sync::Arc::new(self.goal_authority(g, state.as_ref().ok().map(|t| t.as_str()))));
        GoalSnapshot {
            authority,
            goal,
            state,
            results,
            parsed,
            revision,
            allowlist,
            gate,
            runs: std::sync::Arc::default(),
            runtime_keys: std::sync::Arc::default(),
        }
    }
}
