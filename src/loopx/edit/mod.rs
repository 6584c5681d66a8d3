//! Todo and refresh-state edits on the active-state Markdown, reproducing what LoopX
//! 0.5.4 writes byte for byte (`loopx/todos.py`, `line_update.py`,
//! `active_state_editing.py`, `state_refresh.py`). Pure: text in, text out; the clock is
//! an input. Rules are summarised in ARCHITECTURE.md and notes in each op file.

mod add;
mod archive;
mod args;
mod complete;
mod doc;
mod next_action;
mod refresh;
mod update;

pub use args::{TodoArgs, TodoOp};
pub use doc::{Block, Doc, bump_updated_at, lease_id as doc_lease_id};

use super::state::Role;

/// Inputs every edit needs besides its arguments.
#[derive(Debug, Clone)]
pub struct EditContext {
    /// The goal id.
    pub goal_id: String,
    /// `coordination.registered_agents` of the goal.
    pub registered_agents: Vec<String>,
    /// LoopX `now_local()`: local time, seconds, ISO-8601 with offset
    /// (e.g. `2026-11-29T12:58:34+00:00`).
    pub now: String,
}

/// What an edit produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditOutcome {
    /// The new text (the original text, untouched, when `changed` is false).
    pub text: String,
    /// Whether the file would change (LoopX's `changed`).
    pub changed: bool,
    /// Role of the section the todo is in (`None` for refresh-state / archive).
    pub role: Option<Role>,
    /// Heading of that section.
    pub section: String,
    /// The todo id written or matched.
    pub todo_id: Option<String>,
    /// `claimed_by` in the resulting metadata (drives the packet's `lease_ref`).
    pub claimed_by: Option<String>,
    /// Todo ids this edit touches (the target and any successor).
    pub touched_todo_ids: Vec<String>,
}

/// An edit LoopX itself would refuse, with LoopX's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EditRefused(pub String);

pub(crate) fn refuse<T>(msg: impl Into<String>) -> Result<T, EditRefused> {
    Err(EditRefused(msg.into()))
}

/// Applies `op` to `original` (any newline style). The result is exactly what the real
/// `loopx` command would write from the same text, arguments and clock.
///
/// # Errors
/// [`EditRefused`] with LoopX's message when LoopX would refuse the command.
pub fn apply_op(original: &str, op: &TodoOp, ctx: &EditContext) -> Result<EditOutcome, EditRefused> {
    match op {
        TodoOp::TodoAdd(a) => add::todo_add(original, a, ctx),
        TodoOp::TodoUpdate(a) => update::todo_update(original, a, ctx, false),
        TodoOp::TodoClaim(a) => update::todo_update(original, a, ctx, true),
        TodoOp::TodoComplete(a) => complete::todo_complete(original, a, ctx),
        TodoOp::TodoSupersede(a) => complete::todo_supersede(original, a, ctx),
        TodoOp::TodoArchiveCompleted(a) => archive::archive_completed(original, a, ctx),
        TodoOp::RefreshState(a) => refresh::refresh_state(original, a, ctx),
    }
}

pub(crate) fn check_registered(ctx: &EditContext, field: &str, agent: &str) -> Result<(), EditRefused> {
    if ctx.registered_agents.is_empty() || ctx.registered_agents.iter().any(|a| a == agent) {
        return Ok(());
    }
    refuse(format!(
        "{field}='{agent}' is not registered for goal '{}'; registered_agents={}",
        ctx.goal_id,
        ctx.registered_agents.join(", ")
    ))
}

pub(crate) fn normalize_agent_arg(field: &str, raw: &str) -> Result<String, EditRefused> {
    super::metadata::normalize_agent_id(raw)
        .map_or_else(|| refuse(format!("{field} must be a public-safe registered agent id")), Ok)
}
