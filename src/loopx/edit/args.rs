//! The arguments of a `todo_op` proposal: LoopX 0.5.4 CLI flags, named by their argparse
//! destinations (`--claimed-by` → `claimed_by`; repeatable flags are arrays).

use serde::{Deserialize, Serialize};

/// One LoopX todo / refresh-state command, as carried in an inbox item's
/// `proposal: {"kind": "todo_op", "op": "...", "args": {...}}` (DESIGN.md §3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", content = "args", rename_all = "snake_case", deny_unknown_fields)]
pub enum TodoOp {
    /// `loopx todo add`.
    TodoAdd(TodoArgs),
    /// `loopx todo update` (also `--status blocked|deferred`: LoopX has no block/defer verbs).
    TodoUpdate(TodoArgs),
    /// `loopx todo claim`.
    TodoClaim(TodoArgs),
    /// `loopx todo complete`.
    TodoComplete(TodoArgs),
    /// `loopx todo supersede`.
    TodoSupersede(TodoArgs),
    /// `loopx todo archive-completed --execute`.
    TodoArchiveCompleted(TodoArgs),
    /// `loopx refresh-state --next-action`.
    RefreshState(TodoArgs),
}

impl TodoOp {
    /// The op name (`todo_add`, …, `refresh_state`).
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::TodoAdd(_) => "todo_add",
            Self::TodoUpdate(_) => "todo_update",
            Self::TodoClaim(_) => "todo_claim",
            Self::TodoComplete(_) => "todo_complete",
            Self::TodoSupersede(_) => "todo_supersede",
            Self::TodoArchiveCompleted(_) => "todo_archive_completed",
            Self::RefreshState(_) => "refresh_state",
        }
    }

    /// The arguments.
    #[must_use]
    pub fn args(&self) -> &TodoArgs {
        match self {
            Self::TodoAdd(a)
            | Self::TodoUpdate(a)
            | Self::TodoClaim(a)
            | Self::TodoComplete(a)
            | Self::TodoSupersede(a)
            | Self::TodoArchiveCompleted(a)
            | Self::RefreshState(a) => a,
        }
    }

    /// The todo this op targets, when it names one.
    #[must_use]
    pub fn todo_id(&self) -> Option<&str> {
        self.args().todo_id.as_deref()
    }
}

/// LoopX flags writegate supports. Unknown fields are refused when a proposal is read,
/// so a flag writegate does not implement can never be silently ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct TodoArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub todo_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_by: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clear_claim: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_class: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_domain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_scope: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_write_scopes: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_capabilities: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded_agents: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound_agent: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub goal_bound: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks_agent: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub global_gate: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unblocks_todo_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_when: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clear_resume_when: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_follow_up: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_outcome: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_agent_todo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_claimed_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_task_class: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_active_done: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classification: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress_scope: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_global_sync: bool,
}
