//! Preview: every check of DESIGN.md §4 in order — schema, goal, idempotency, revision,
//! lease, edit, boundary, lock — computed from disk without writing anything.

use super::item::{Intent, Item, Proposal};
use super::{Engine, read_state};
use crate::loopx::edit::{EditContext, EditOutcome, TodoOp, apply_op};
use crate::loopx::hash::revision_of_text;
use crate::loopx::lease::{LeaseRead, read_lease};
use crate::loopx::state::ActiveState;
use crate::scan::{self, Policy};
use crate::wire::{Check, Finding, ListRow, PREVIEW_SCHEMA, Preview, ResultRecord, Status};
use serde_json::{Value, json};

/// What apply would return now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Predicted {
    /// Every check passes; apply would write.
    Ready,
    /// A final or conflict status.
    Status(Status),
    /// The item cannot be understood.
    Invalid,
}

impl Predicted {
    /// `ready`, `invalid` or the status name.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::Ready => "ready",
            Self::Invalid => "invalid",
            Self::Status(s) => s.as_str(),
        }
    }
}

/// True for predicted-status names that are conflicts.
#[must_use]
pub fn is_conflict_name(name: &str) -> bool {
    matches!(
        name,
        "lock_busy" | "revision_conflict" | "lease_conflict" | "idempotency_conflict"
    )
}

/// An item with every check evaluated against the current disk state.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The item.
    pub item: Item,
    /// Checks in pipeline order.
    pub checks: Vec<Check>,
    /// Scan findings (packet and added lines).
    pub findings: Vec<Finding>,
    /// What apply would return.
    pub predicted: Predicted,
    /// Why the item is invalid (or why the edit fails).
    pub invalid_reason: Option<String>,
    /// Current state text (universal newlines not applied: the bytes as text).
    pub current_text: Option<String>,
    /// The text apply would write.
    pub proposed_text: Option<String>,
    /// Conflict details.
    pub conflict: Option<Value>,
    /// For an idempotency conflict: the effect digest of the earlier apply.
    pub prior_effect_digest: Option<String>,
    /// The edit's outcome (todo ops).
    pub outcome: Option<EditOutcome>,
}

impl Prepared {
    fn new(item: &Item) -> Self {
        Self {
            item: item.clone(),
            checks: Vec::new(),
            findings: Vec::new(),
            predicted: Predicted::Ready,
            invalid_reason: None,
            current_text: None,
            proposed_text: None,
            conflict: None,
            prior_effect_digest: None,
            outcome: None,
        }
    }

    fn check(&mut self, name: &str, ok: bool, detail: impl Into<String>, fail: Option<Predicted>) {
        self.checks.push(Check {
            name: name.into(),
            ok,
            detail: detail.into(),
        });
        if !ok
            && self.predicted == Predicted::Ready
            && let Some(p) = fail
        {
            self.predicted = p;
        }
    }

    /// True when some finding has severity `warn` (apply then needs a typed confirmation).
    #[must_use]
    pub fn has_warnings(&self) -> bool {
        self.findings.iter().any(|f| f.severity == "warn")
    }

    /// The list row.
    #[must_use]
    pub fn row(&self) -> ListRow {
        let intent = self.item.intent.as_ref().ok();
        let agent = intent.and_then(|i| match &i.proposal {
            Proposal::TodoOp(op) => op
                .args()
                .agent_id
                .clone()
                .or_else(|| op.args().claimed_by.clone()),
            _ => None,
        });
        let writer = intent.map(|i| i.writer_id.clone()).unwrap_or_default();
        ListRow {
            item_id: self.item.id.clone(),
            goal_id: self.item.goal_id.clone(),
            kind: self.item.kind.into(),
            write_class: intent.map(|i| i.write_class.clone()).unwrap_or_default(),
            agent_id: agent.unwrap_or_else(|| writer.clone()),
            writer_id: writer,
            predicted_status: self.predicted.name().into(),
            age_seconds: self.item.age_seconds,
        }
    }

    /// The `writegate preview` document.
    #[must_use]
    pub fn to_wire(&self) -> Preview {
        let intent = self.item.intent.as_ref().ok();
        let label = "ACTIVE_GOAL_STATE.md";
        Preview {
            schema_version: PREVIEW_SCHEMA.into(),
            row: self.row(),
            invalid_reason: self.invalid_reason.clone(),
            expected_revision: intent.map(|i| i.expected_revision.clone()),
            current_revision: self.current_text.as_deref().map(revision_of_text),
            proposed_revision: self.proposed_text.as_deref().map(revision_of_text),
            idempotency_key: intent.map(|i| i.idempotency_key.clone()),
            effect_digest: intent.map(|i| i.effect_digest.clone()),
            checks: self.checks.clone(),
            findings: self.findings.clone(),
            diff: match (&self.current_text, &self.proposed_text) {
                (Some(a), Some(b)) => {
                    crate::scan::mask_secrets(&crate::diff::unified(a, b, label)).0
                }
                _ => String::new(),
            },
            conflict: self.conflict.clone(),
        }
    }
}

impl Engine {
    /// Evaluates every check for `item` against the current disk state. Writes nothing.
    #[must_use]
    pub fn prepare(&self, item: &Item) -> Prepared {
        let mut p = Prepared::new(item);
        let intent = match &item.intent {
            Ok(i) => i.clone(),
            Err(reason) => {
                p.check("schema", false, reason.clone(), Some(Predicted::Invalid));
                p.invalid_reason = Some(reason.clone());
                return p;
            }
        };
        p.check(
            "schema",
            true,
            format!(
                "local_state_write_correctness_v0, proposal {}",
                intent.proposal.kind()
            ),
            None,
        );
        let goal = match self.goal(&item.goal_id) {
            Ok(g) if intent.goal_id == item.goal_id => g.clone(),
            Ok(_) => {
                let why = format!(
                    "packet goal_id {} is not the goal whose inbox holds it ({})",
                    intent.goal_id, item.goal_id
                );
                p.check("goal", false, why.clone(), Some(Predicted::Invalid));
                p.invalid_reason = Some(why);
                return p;
            }
            Err(e) => {
                p.check(
                    "goal",
                    false,
                    crate::error_chain(&e),
                    Some(Predicted::Invalid),
                );
                p.invalid_reason = Some(crate::error_chain(&e));
                return p;
            }
        };
        let current = match read_state(&goal.state_file) {
            Ok(t) => t,
            Err(e) => {
                p.check(
                    "goal",
                    false,
                    e.clone(),
                    Some(Predicted::Status(Status::Failed)),
                );
                p.invalid_reason = Some(e);
                return p;
            }
        };
        p.check(
            "goal",
            true,
            format!("{} → {}", goal.id, goal.state_file_rel),
            None,
        );
        self.check_idempotency(&mut p, &intent);
        let current_rev = revision_of_text(&current);
        let rev_ok = current_rev == intent.expected_revision;
        p.check(
            "revision",
            rev_ok,
            if rev_ok {
                format!("expected {} is current", short(&current_rev))
            } else {
                format!(
                    "expected {} but the state is at {}",
                    short(&intent.expected_revision),
                    short(&current_rev)
                )
            },
            Some(Predicted::Status(Status::RevisionConflict)),
        );
        if !rev_ok && p.conflict.is_none() {
            p.conflict = Some(
                json!({"kind": "revision_conflict", "expected_revision": intent.expected_revision, "current_revision": current_rev}),
            );
        }
        let state = ActiveState::parse(&current);
        self.check_lease(&mut p, &intent, &state, &goal.id);
        self.check_edit(&mut p, &intent, &current, &goal.registered_agents, rev_ok);
        p.current_text = Some(current);
        check_boundary(&mut p, &intent);
        check_lock(&mut p, &goal.state_file);
        p
    }

    fn check_idempotency(&self, p: &mut Prepared, intent: &Intent) {
        let prior = self
            .gate(&p.item.goal_id)
            .ok()
            .map(|g| g.results().read_all(false));
        let records: Vec<ResultRecord> = match prior {
            Some(Ok(r)) => r,
            Some(Err(e)) => {
                p.check(
                    "idempotency",
                    false,
                    format!("results log unreadable: {}", crate::error_chain(&e)),
                    Some(Predicted::Status(Status::Failed)),
                );
                return;
            }
            None => Vec::new(),
        };
        let applied = records.iter().rev().find(|r| {
            r.idempotency_key == intent.idempotency_key
                && matches!(r.status, Status::Applied | Status::AlreadyApplied)
        });
        match applied {
            None => p.check("idempotency", true, "key not applied before", None),
            Some(r) if r.effect_digest == intent.effect_digest => {
                p.check(
                    "idempotency",
                    false,
                    format!(
                        "same key and effect already {} as item {}",
                        r.status.as_str(),
                        r.item_id
                    ),
                    Some(Predicted::Status(Status::SkippedDuplicate)),
                );
            }
            Some(r) => {
                p.prior_effect_digest = Some(r.effect_digest.clone());
                p.conflict = Some(
                    json!({"kind": "idempotency_conflict", "idempotency_key": intent.idempotency_key, "prior_item_id": r.item_id, "prior_effect_digest": r.effect_digest, "effect_digest": intent.effect_digest}),
                );
                p.check(
                    "idempotency",
                    false,
                    format!(
                        "key already applied by item {} with a different effect",
                        r.item_id
                    ),
                    Some(Predicted::Status(Status::IdempotencyConflict)),
                );
            }
        }
    }

    fn check_lease(&self, p: &mut Prepared, intent: &Intent, state: &ActiveState, goal_id: &str) {
        let Proposal::TodoOp(op) = &intent.proposal else {
            p.check("lease", true, "not a todo operation", None);
            return;
        };
        let Some(todo_id) = op.todo_id() else {
            p.check("lease", true, "no existing todo targeted", None);
            return;
        };
        let args = op.args();
        let actor = args.agent_id.clone().or_else(|| {
            matches!(op, TodoOp::TodoClaim(_))
                .then(|| args.claimed_by.clone())
                .flatten()
        });
        let soft = state
            .find_todo(todo_id)
            .and_then(super::super::loopx::state::Todo::claimed_by);
        let expected = intent
            .lease_ref
            .as_ref()
            .and_then(|l| l.get("claimed_by"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let excluded = state
            .find_todo(todo_id)
            .map(|t| t.metadata.list("excluded_agents"))
            .unwrap_or_default();
        let hard = self
            .ws
            .goal_runtime_dir(goal_id)
            .map_or(LeaseRead::Absent, |d| read_lease(&d, todo_id));
        let now = self.clock.now().with_timezone(&chrono::Utc);
        let mut problem: Option<(&str, String)> = None;
        if let (Some(a), true) = (&actor, true)
            && excluded.contains(a)
        {
            problem = Some((
                "excluded_agent",
                format!("{a} is in the todo's excluded_agents"),
            ));
        }
        if problem.is_none()
            && let (Some(e), Some(s)) = (&expected, &soft)
            && e != s
        {
            problem = Some((
                "foreign_claim",
                format!("the item expects claimed_by={e}, the todo is claimed_by={s}"),
            ));
        }
        if problem.is_none()
            && let Some(s) = &soft
            && actor.as_deref().is_some_and(|a| a != s)
        {
            problem = Some((
                "foreign_claim",
                format!(
                    "claimed_by={s}, the writer is {}",
                    actor.as_deref().unwrap_or("unknown")
                ),
            ));
        }
        let mut hard_json = Value::Null;
        if problem.is_none() {
            match &hard {
                LeaseRead::Absent => {}
                LeaseRead::Unreadable { reason } => {
                    problem = Some((
                        "hard_lease_unreadable",
                        format!("task lease file unreadable: {reason}"),
                    ));
                }
                LeaseRead::Present(l) => {
                    hard_json = json!({"owner": l.owner, "version": l.version, "lease_epoch": l.lease_epoch, "expires_at": l.expires_at, "status": l.status});
                    if l.is_expired_at(now) {
                        problem = Some((
                            "expired",
                            format!("hard lease of {} expired at {}", l.owner, l.expires_at),
                        ));
                    } else if l.is_active_at(now) && actor.as_deref() != Some(l.owner.as_str()) {
                        problem = Some((
                            "foreign_holder",
                            format!(
                                "hard lease held by {} until {}, the writer is {}",
                                l.owner,
                                l.expires_at,
                                actor.as_deref().unwrap_or("unknown")
                            ),
                        ));
                    }
                }
            }
        }
        match problem {
            None => p.check(
                "lease",
                true,
                format!(
                    "claimed_by={}, hard lease {}",
                    soft.as_deref().unwrap_or("none"),
                    if hard_json.is_null() {
                        "none".into()
                    } else {
                        hard_json["owner"].to_string()
                    }
                ),
                None,
            ),
            Some((reason, detail)) => {
                if p.conflict.is_none() {
                    p.conflict = Some(
                        json!({"kind": "lease_conflict", "reason": reason, "todo_id": todo_id, "claimed_by": soft, "expected_claimed_by": expected, "writer": actor, "hard_lease": hard_json}),
                    );
                }
                p.check(
                    "lease",
                    false,
                    detail,
                    Some(Predicted::Status(Status::LeaseConflict)),
                );
            }
        }
    }

    fn check_edit(
        &self,
        p: &mut Prepared,
        intent: &Intent,
        current: &str,
        agents: &[String],
        rev_ok: bool,
    ) {
        let proposed = match &intent.proposal {
            Proposal::Replace(t) => Ok(t.clone()),
            Proposal::UnifiedDiff(d) => super::patch::apply(current, d).map_err(|e| e.to_string()),
            Proposal::TodoOp(op) => {
                let ctx = EditContext {
                    goal_id: intent.goal_id.clone(),
                    registered_agents: agents.to_vec(),
                    now: self.clock.loopx_now(),
                };
                match apply_op(current, op, &ctx) {
                    Ok(outcome) => {
                        if rev_ok && let Err(why) = consistent(intent, op, current, &outcome) {
                            p.check("edit", false, why.clone(), Some(Predicted::Invalid));
                            p.invalid_reason = Some(why);
                            return;
                        }
                        let text = outcome.text.clone();
                        p.outcome = Some(outcome);
                        Ok(text)
                    }
                    Err(e) => Err(format!("LoopX would refuse: {e}")),
                }
            }
        };
        match proposed {
            Err(e) => {
                p.check(
                    "edit",
                    false,
                    e.clone(),
                    Some(Predicted::Status(Status::Failed)),
                );
                p.invalid_reason = Some(e);
            }
            Ok(text) if text == current => {
                p.check(
                    "edit",
                    false,
                    "the state already holds this change",
                    Some(Predicted::Status(Status::AlreadyApplied)),
                );
                p.proposed_text = Some(text);
            }
            Ok(text) => {
                let added = crate::diff::added_lines(current, &text).len();
                p.check(
                    "edit",
                    true,
                    format!(
                        "{} would add or change {added} line(s)",
                        intent.proposal.kind()
                    ),
                    None,
                );
                p.proposed_text = Some(text);
            }
        }
    }
}

/// At the expected revision, the packet must be the one LoopX would print for this
/// proposal: same `write_id` and `idempotency_key`. Otherwise the packet describes a
/// different write than the proposal makes (an agent cannot show one thing and do another).
fn consistent(
    intent: &Intent,
    op: &TodoOp,
    current: &str,
    outcome: &EditOutcome,
) -> Result<(), String> {
    let ours = crate::loopx::packet::build_packet(&intent.goal_id, op, current, outcome);
    let id = ours
        .pointer("/write_intent/write_id")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let key = ours
        .pointer("/write_intent/idempotency_key")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if id != intent.write_id || key != intent.idempotency_key {
        return Err(format!(
            "the packet does not describe this proposal: recomputed write_id {id}, the packet says {}",
            intent.write_id
        ));
    }
    Ok(())
}

fn check_boundary(p: &mut Prepared, intent: &Intent) {
    let mut findings = Vec::new();
    scan::scan_json(&intent.payload, "", Policy::Local, &mut findings);
    if let (Some(cur), Some(new)) = (&p.current_text, &p.proposed_text) {
        scan::scan_lines(
            &crate::diff::added_lines(cur, new),
            Policy::Local,
            &mut findings,
        );
    }
    let blocks = findings.iter().filter(|f| f.severity == "block").count();
    let warns = findings.iter().filter(|f| f.severity == "warn").count();
    p.findings = findings;
    p.check(
        "boundary",
        blocks == 0,
        format!("{blocks} block, {warns} warn finding(s) (policy local)"),
        Some(Predicted::Status(Status::BoundaryRejected)),
    );
}

fn check_lock(p: &mut Prepared, state_file: &std::path::Path) {
    let holder = crate::loopx::lock::read_holder(state_file);
    let held = holder.get("released_at").is_none()
        && holder
            .get("pid")
            .and_then(Value::as_u64)
            .is_some_and(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists());
    let detail = if held {
        format!(
            "held by pid {} ({}, {}) since {}; apply waits up to 5 s",
            holder["pid"],
            holder
                .get("agent_id")
                .and_then(Value::as_str)
                .unwrap_or("?"),
            holder
                .get("operation")
                .and_then(Value::as_str)
                .unwrap_or("?"),
            holder
                .get("acquired_at")
                .and_then(Value::as_str)
                .unwrap_or("?")
        )
    } else {
        "free".to_owned()
    };
    p.checks.push(crate::wire::Check {
        name: "lock".into(),
        ok: !held,
        detail,
    });
}

fn short(rev: &str) -> String {
    rev.chars().take(19).collect()
}
