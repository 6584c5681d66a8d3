//! `writegate propose …` arguments: exactly the LoopX 0.5.4 flags of `loopx todo …` and
//! `loopx refresh-state` that writegate reproduces. A LoopX flag writegate does not
//! implement is an error (never silently dropped). `--dry-run`, `--execute` and `--format`
//! are accepted and ignored.

use crate::loopx::edit::{TodoArgs, TodoOp};
use clap::{Args, Subcommand};

/// `propose` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum ProposeCmd {
    /// `loopx todo …` equivalents.
    #[command(subcommand)]
    Todo(TodoCmd),
    /// `loopx refresh-state --next-action …`.
    RefreshState(RefreshFlags),
    /// A whole new state text (a narrative edit; on a LoopX 2.x goal every todo region must
    /// stay byte-identical): `--file PATH`, `-` for stdin.
    Replace(ReplaceFlags),
}

/// `propose replace` flags.
#[derive(Debug, Clone, Args)]
pub struct ReplaceFlags {
    /// Goal id.
    #[arg(long)]
    pub goal_id: String,
    /// The new state text: a file, or `-` for standard input.
    #[arg(long)]
    pub file: std::path::PathBuf,
    /// Who proposes it (the packet's `writer_id`).
    #[arg(long, default_value = "operator")]
    pub agent_id: String,
    /// The revision (`sha256:…`, as `status` prints it) of the state the text was edited
    /// from; without it, the state as it is now. A state that moved since makes the item a
    /// revision conflict instead of silently undoing the other write.
    #[arg(long)]
    pub expected_revision: Option<String>,
}

/// `propose todo` verbs.
#[derive(Debug, Clone, Subcommand)]
pub enum TodoCmd {
    /// `loopx todo add`.
    Add(TodoFlags),
    /// `loopx todo update`.
    Update(TodoFlags),
    /// `loopx todo claim`.
    Claim(TodoFlags),
    /// `loopx todo complete`.
    Complete(TodoFlags),
    /// `loopx todo supersede`.
    Supersede(TodoFlags),
    /// `loopx todo archive-completed`.
    ArchiveCompleted(TodoFlags),
}

/// Flags shared by the LoopX todo verbs (each verb's own validation refuses the ones it
/// does not take, with LoopX's message).
#[derive(Debug, Clone, Args, Default)]
pub struct TodoFlags {
    /// Goal id (LoopX --goal-id).
    #[arg(long)]
    pub goal_id: String,
    /// Target todo id.
    #[arg(long)]
    pub todo_id: Option<String>,
    /// Todo role: user or agent.
    #[arg(long, value_parser = ["user", "agent"])]
    pub role: Option<String>,
    /// Todo text (a [P0]..[P4] prefix sets the priority).
    #[arg(long)]
    pub text: Option<String>,
    /// New status.
    #[arg(long, value_parser = ["open", "done", "blocked", "deferred"])]
    pub status: Option<String>,
    /// The acting registered agent (required in multi-agent goals).
    #[arg(long)]
    pub agent_id: Option<String>,
    /// Soft-claim owner to set.
    #[arg(long)]
    pub claimed_by: Option<String>,
    /// Remove the soft claim.
    #[arg(long)]
    pub clear_claim: bool,
    /// advancement_task, continuous_monitor, user_gate, user_action or blocker.
    #[arg(long)]
    pub task_class: Option<String>,
    /// Public-safe action kind token.
    #[arg(long)]
    pub action_kind: Option<String>,
    /// Public-safe task domain token.
    #[arg(long)]
    pub task_domain: Option<String>,
    /// kind:granularity:scope_key.
    #[arg(long)]
    pub decision_scope: Option<String>,
    /// Required write scope (repeatable).
    #[arg(long = "required-write-scope")]
    pub required_write_scopes: Vec<String>,
    /// Required capability (repeatable).
    #[arg(long = "required-capability")]
    pub required_capabilities: Vec<String>,
    /// Agent that must not take the todo (repeatable).
    #[arg(long = "excluded-agent")]
    pub excluded_agents: Vec<String>,
    /// User todo: the agent whose response it binds.
    #[arg(long)]
    pub bound_agent: Option<String>,
    /// User todo: bound to the whole goal.
    #[arg(long)]
    pub goal_bound: bool,
    /// User gate: the agent it blocks.
    #[arg(long)]
    pub blocks_agent: Option<String>,
    /// User gate: blocks every agent.
    #[arg(long)]
    pub global_gate: bool,
    /// Todo this one unblocks.
    #[arg(long)]
    pub unblocks_todo_id: Option<String>,
    /// Deferred todo: resume condition (e.g. pr_merged:#532).
    #[arg(long)]
    pub resume_when: Option<String>,
    /// Remove the resume condition.
    #[arg(long)]
    pub clear_resume_when: bool,
    /// Note text.
    #[arg(long)]
    pub note: Option<String>,
    /// Evidence text.
    #[arg(long)]
    pub evidence: Option<String>,
    /// Reason text (blocked, deferred, supersede).
    #[arg(long)]
    pub reason: Option<String>,
    /// Complete: no follow-up todo.
    #[arg(long)]
    pub no_follow_up: bool,
    /// Complete a user gate: approve, reject or cancel.
    #[arg(long, value_parser = ["approve", "reject", "cancel"])]
    pub decision_outcome: Option<String>,
    /// Complete / supersede: successor agent todo text.
    #[arg(long)]
    pub next_agent_todo: Option<String>,
    /// Successor soft-claim owner.
    #[arg(long)]
    pub next_claimed_by: Option<String>,
    /// Successor task class (default advancement_task).
    #[arg(long)]
    pub next_task_class: Option<String>,
    /// Archive: done todos to keep active (default 10).
    #[arg(long, allow_negative_numbers = true)]
    pub max_active_done: Option<i64>,
    #[command(flatten)]
    pub ignored: IgnoredFlags,
}

/// `loopx refresh-state` flags writegate reproduces.
#[derive(Debug, Clone, Args, Default)]
pub struct RefreshFlags {
    /// Goal id (LoopX --goal-id).
    #[arg(long)]
    pub goal_id: String,
    /// The acting registered agent (required in multi-agent goals).
    #[arg(long)]
    pub agent_id: Option<String>,
    /// refresh-state: the new Next Action text.
    #[arg(long)]
    pub next_action: Option<String>,
    /// refresh-state: run classification (default state_refreshed).
    #[arg(long)]
    pub classification: Option<String>,
    /// refresh-state: goal or agent_lane.
    #[arg(long, value_parser = ["goal", "agent_lane"])]
    pub progress_scope: Option<String>,
    /// refresh-state: no global registry sync.
    #[arg(long)]
    pub no_global_sync: bool,
    /// Goes into LoopX's run row, which writegate does not write; accepted so an agent's
    /// `refresh-state` command line can be proposed unchanged.
    #[arg(long)]
    pub recommended_action: Option<String>,
    #[command(flatten)]
    pub ignored: IgnoredFlags,
}

/// Accepted for LoopX compatibility and ignored: `propose` never writes the state.
#[derive(Debug, Clone, Args, Default)]
#[allow(missing_docs)]
pub struct IgnoredFlags {
    #[arg(long, hide = true)]
    pub dry_run: bool,
    #[arg(long, hide = true)]
    pub execute: bool,
    #[arg(long, hide = true)]
    pub format: Option<String>,
}

impl ProposeCmd {
    /// The goal id and the op; `None` for `propose replace`, which is not a LoopX op.
    #[must_use]
    pub fn into_op(self) -> Option<(String, TodoOp)> {
        Some(match self {
            Self::Replace(_) => return None,
            Self::RefreshState(f) => (
                f.goal_id,
                TodoOp::RefreshState(TodoArgs {
                    agent_id: f.agent_id,
                    next_action: f.next_action,
                    classification: f.classification,
                    progress_scope: f.progress_scope,
                    no_global_sync: f.no_global_sync,
                    ..TodoArgs::default()
                }),
            ),
            Self::Todo(cmd) => {
                let (ctor, f): (fn(TodoArgs) -> TodoOp, TodoFlags) = match cmd {
                    TodoCmd::Add(f) => (TodoOp::TodoAdd, f),
                    TodoCmd::Update(f) => (TodoOp::TodoUpdate, f),
                    TodoCmd::Claim(f) => (TodoOp::TodoClaim, f),
                    TodoCmd::Complete(f) => (TodoOp::TodoComplete, f),
                    TodoCmd::Supersede(f) => (TodoOp::TodoSupersede, f),
                    TodoCmd::ArchiveCompleted(f) => (TodoOp::TodoArchiveCompleted, f),
                };
                let goal = f.goal_id.clone();
                (goal, ctor(f.into_args()))
            }
        })
    }
}

impl TodoFlags {
    fn into_args(self) -> TodoArgs {
        TodoArgs {
            todo_id: self.todo_id,
            role: self.role,
            text: self.text,
            status: self.status,
            agent_id: self.agent_id,
            claimed_by: self.claimed_by,
            clear_claim: self.clear_claim,
            task_class: self.task_class,
            action_kind: self.action_kind,
            task_domain: self.task_domain,
            decision_scope: self.decision_scope,
            required_write_scopes: self.required_write_scopes,
            required_capabilities: self.required_capabilities,
            excluded_agents: self.excluded_agents,
            bound_agent: self.bound_agent,
            goal_bound: self.goal_bound,
            blocks_agent: self.blocks_agent,
            global_gate: self.global_gate,
            unblocks_todo_id: self.unblocks_todo_id,
            resume_when: self.resume_when,
            clear_resume_when: self.clear_resume_when,
            note: self.note,
            evidence: self.evidence,
            reason: self.reason,
            no_follow_up: self.no_follow_up,
            decision_outcome: self.decision_outcome,
            next_agent_todo: self.next_agent_todo,
            next_claimed_by: self.next_claimed_by,
            next_task_class: self.next_task_class,
            max_active_done: self.max_active_done,
            ..TodoArgs::default()
        }
    }
}

/// A standalone parser for `propose` words (used by tests replaying LoopX command lines).
#[derive(Debug, clap::Parser)]
#[command(name = "propose", no_binary_name = true)]
pub struct ProposeOnly {
    /// The subcommand.
    #[command(subcommand)]
    pub cmd: ProposeCmd,
}
