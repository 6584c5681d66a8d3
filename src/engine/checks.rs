//! The checks behind preview: the idempotency and lease checks of a write intent, and those
//! that are plain functions of their inputs (lease judgement, raw-proposal scope, packet
//! consistency, the boundary scan, the lock holder).

use super::item::{Intent, Proposal};
use super::preview::readable_results;
use super::preview::{Predicted, Prepared};
use super::raw_after::RawAfter;
use crate::loopx::edit::{EditOutcome, TodoOp};
use crate::loopx::lease::{LeaseRead, read_lease};
use crate::loopx::state::ActiveState;
use crate::scan::{self, Policy};
use crate::wire::{Finding, Status};
use serde_json::{Value, json};

/// A raw change must stay within what its packet names: when `target_refs.todo_id` is set,
/// only that todo's block (and frontmatter `updated_at`) may change.
/// `before` and `after` are the parses of the current and the proposed text.
pub(super) fn raw_consistent(intent: &Intent, before: &ActiveState, after: &ActiveState) -> Result<(), String> {
    let Some(target) = &intent.target_todo_id else {
        return Ok(());
    };
    let (touched, outside) = touched_todos(before, after);
    let others: Vec<&String> = touched.iter().filter(|t| *t != target).collect();
    if !others.is_empty() {
        return Err(format!(
            "the packet names {target} but the change also touches {}",
            others.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    if outside {
        return Err(format!("the packet names {target} but the change also edits text outside todo blocks"));
    }
    Ok(())
}

/// Judges one todo's soft claim and hard lease for `actor`: `Ok(detail)` or
/// `Err((reason, detail, hard lease json))` (foreign claim, excluded agent, foreign or
/// expired hard lease, unreadable lease file).
pub(super) fn lease_problem(
    state: &ActiveState,
    todo_id: &str,
    actor: Option<&str>,
    expected: Option<&str>,
    hard: &LeaseRead,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<String, (&'static str, String, Value)> {
    let todo = state.find_todo(todo_id);
    let soft = todo.and_then(crate::loopx::state::Todo::claimed_by);
    let excluded = todo.map(|t| t.metadata.list("excluded_agents")).unwrap_or_default();
    let hard_json = match hard {
        LeaseRead::Present(l) => {
            json!({"todo_id": l.todo_id, "owner": l.owner, "version": l.version, "lease_epoch": l.lease_epoch,
                "idempotency_key": l.idempotency_key, "expires_at": l.expires_at, "status": l.status})
        }
        _ => Value::Null,
    };
    let fail = |reason, detail: String| Err((reason, detail, hard_json.clone()));
    if let Some(a) = actor
        && excluded.iter().any(|x| x == a)
    {
        return fail("excluded_agent", format!("{a} is in {todo_id}'s excluded_agents"));
    }
    if let (Some(e), Some(s)) = (expected, &soft)
        && e != s
    {
        return fail("foreign_claim", format!("the item expects {todo_id} claimed_by={e}, it is claimed_by={s}"));
    }
    if let Some(s) = &soft
        && actor.is_some_and(|a| a != s)
    {
        return fail(
            "foreign_claim",
            format!("{todo_id} is claimed_by={s}, the writer is {}", actor.unwrap_or("unknown")),
        );
    }
    match hard {
        LeaseRead::Unreadable { reason } => {
            return fail("hard_lease_unreadable", format!("task lease file of {todo_id} unreadable: {reason}"));
        }
        LeaseRead::Present(l) if l.is_expired_at(now) => {
            return fail("expired", format!("hard lease of {todo_id} by {} expired at {}", l.owner, l.expires_at));
        }
        LeaseRead::Present(l) if l.is_active_at(now) && actor != Some(l.owner.as_str()) => {
            return fail(
                "foreign_holder",
                format!(
                    "hard lease of {todo_id} held by {} until {}, the writer is {}",
                    l.owner,
                    l.expires_at,
                    actor.unwrap_or("unknown")
                ),
            );
        }
        LeaseRead::Absent | LeaseRead::Present(_) => {}
    }
    Ok(format!(
        "{todo_id}: claimed_by={}, hard lease {}",
        soft.as_deref().unwrap_or("none"),
        hard_json.get("owner").and_then(Value::as_str).unwrap_or("none")
    ))
}

/// The text a `replace` / `unified_diff` proposal would write on `current` (a `replace`'s
/// text shared with the proposal, not copied).
pub(super) fn raw_text(proposal: &Proposal, current: &str) -> Result<std::sync::Arc<String>, String> {
    match proposal {
        Proposal::Replace(t) => Ok(std::sync::Arc::clone(t)),
        Proposal::UnifiedDiff(d) => super::patch::apply(current, d).map(std::sync::Arc::new).map_err(|e| e.to_string()),
        Proposal::TodoOp(_) => Err("not a raw proposal".into()),
    }
}

/// Todo ids whose block differs between two states (added, removed, or changed text,
/// status, marker or metadata), and whether anything outside todo blocks changed besides
/// the frontmatter `updated_at`.
#[must_use]
pub fn touched_todos(before: &ActiveState, after: &ActiveState) -> (std::collections::BTreeSet<String>, bool) {
    let (a, b) = (todo_keys(before), todo_keys(after));
    let mut touched: std::collections::BTreeSet<String> =
        a.iter().filter(|(k, v)| b.get(*k) != Some(*v)).map(|(k, _)| (*k).to_owned()).collect();
    touched.extend(b.keys().filter(|k| !a.contains_key(*k)).map(|k| (*k).to_owned()));
    (touched, !same_when_joined(&skeleton(before), &skeleton(after)))
}

/// Per candidate id of [`changed_active_todos`]: its last block in `before` and in
/// `after` (`None` until a walk from the end meets it), and whether `before` holds an
/// active todo for it.
#[derive(Default)]
struct Seen<'a> {
    last: [Option<TodoKey<'a>>; 2],
    active: bool,
}

/// The ids of `before`'s active todos whose block `after` changes or drops: the ids of
/// [`touched_todos`] that `before` holds an active todo for (the todos whose leases a raw
/// change must respect), without its comparison of the text outside todo blocks.
///
/// Read from the todos that differ instead of through two maps of every todo (those maps
/// were most of a large raw preview's lease check): the places where the lists differ are
/// found (place by place when they are as long, else between their common prefix and
/// suffix), the ids at those places are the only ones whose last block can differ, and one
/// walk from the end finds each of those ids' last block in both states. An id at no such
/// place has all of its todos at places where both lists hold the same id and block, so its
/// last block is the same in both.
#[must_use]
pub fn changed_active_todos(before: &ActiveState, after: &ActiveState) -> std::collections::BTreeSet<String> {
    let (a, b) = (&before.todos, &after.todos);
    let same = |x: &crate::loopx::state::Todo, y: &crate::loopx::state::Todo| {
        x.todo_id == y.todo_id && block_key(x) == block_key(y)
    };
    // The places where the two lists can differ: every place whose id or block differs when
    // they are as long (todos edited in place, the usual raw change), else what is left
    // between their common prefix and suffix.
    let (differ_a, differ_b): (Vec<&crate::loopx::state::Todo>, Vec<&crate::loopx::state::Todo>) = if a.len() == b.len()
    {
        a.iter().zip(b).filter(|(x, y)| !same(x, y)).unzip()
    } else {
        let prefix = a.iter().zip(b).take_while(|(x, y)| same(x, y)).count();
        let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| same(x, y)).count();
        (a[prefix..a.len() - suffix].iter().collect(), b[prefix..b.len() - suffix].iter().collect())
    };
    let mut candidates: std::collections::HashMap<&str, Seen<'_>, foldhash::fast::RandomState> =
        std::collections::HashMap::default();
    for t in differ_a.into_iter().chain(differ_b) {
        candidates.entry(t.todo_id.as_str()).or_default();
    }
    if candidates.is_empty() {
        return std::collections::BTreeSet::new();
    }
    for (side, todos) in [a, b].into_iter().enumerate() {
        for t in todos.iter().rev() {
            if let Some(seen) = candidates.get_mut(t.todo_id.as_str()) {
                if seen.last[side].is_none() {
                    seen.last[side] = Some(block_key(t));
                }
                seen.active |= side == 0 && !t.archived;
            }
        }
    }
    candidates
        .into_iter()
        .filter(|(_, s)| s.active && s.last[0].is_some() && s.last[0] != s.last[1])
        .map(|(id, _)| id.to_owned())
        .collect()
}

/// What a todo's block says, by todo id (a later duplicate id wins).
type TodoKey<'a> = (&'a str, &'a str, char, bool, &'a crate::loopx::metadata::Metadata);

/// foldhash, not SipHash: the keys are ids from the state, and two maps of every todo are
/// most of comparing two large states.
fn todo_keys(s: &ActiveState) -> std::collections::HashMap<&str, TodoKey<'_>, foldhash::fast::RandomState> {
    s.todos.iter().map(|t| (t.todo_id.as_str(), block_key(t))).collect()
}

/// What `t`'s block says: text, status, marker, archived, metadata.
fn block_key(t: &crate::loopx::state::Todo) -> TodoKey<'_> {
    (t.text.as_str(), t.status, t.marker, t.archived, &t.metadata)
}

/// The lines outside todo blocks but for the frontmatter `updated_at`.
fn skeleton(s: &ActiveState) -> Vec<&str> {
    let mut lines = s.lines_outside_todo_blocks();
    lines.retain(|l| !l.starts_with("updated_at:"));
    lines
}

/// True when the two line lists join with `\n` into the same text. Lines hold no `\n`, so
/// that is list equality but for one case: no line and one empty line both join to "".
fn same_when_joined(a: &[&str], b: &[&str]) -> bool {
    a == b || (a.is_empty() && b == [""]) || (b.is_empty() && a == [""])
}

/// At the expected revision, the packet must be the one LoopX would print for this
/// proposal: same `write_id` and `idempotency_key`. Otherwise the packet describes a
/// different write than the proposal makes (an agent cannot show one thing and do another).
pub(super) fn consistent(intent: &Intent, op: &TodoOp, outcome: &EditOutcome) -> Result<(), String> {
    let (id, key) = crate::loopx::packet::packet_identity(&intent.goal_id, op, outcome);
    if id != intent.write_id || key != intent.idempotency_key {
        return Err(format!(
            "the packet does not describe this proposal: recomputed write_id {id}, the packet says {}",
            intent.write_id
        ));
    }
    Ok(())
}

pub(super) fn check_boundary(p: &mut Prepared, intent: &Intent, allow: &[crate::gate::allowlist::AllowEntry]) {
    let mut findings = intent.payload_findings().to_vec();
    scan::scan_lines(&p.added, Policy::Local, &mut findings);
    if !matches!(intent.proposal, Proposal::TodoOp(_)) {
        findings.push(Finding {
            rule_id: "unverified_raw_change".into(),
            category: "structure".into(),
            severity: "warn".into(),
            location: "/proposal".into(),
            sample_masked: intent.proposal.kind().into(),
            reason: "a replace / unified_diff is not recomputed from LoopX arguments; its packet cannot vouch for it"
                .into(),
            fingerprint: "unverified_raw_change".into(),
        });
    }
    crate::gate::allowlist::apply(&mut findings, allow);
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

pub(super) fn check_lock(p: &mut Prepared, state_file: &std::path::Path) {
    let holder = crate::loopx::lock::read_holder(state_file);
    let held = crate::loopx::lock::held_by_another(&holder);
    let detail = if held {
        format!(
            "held by pid {} ({}, {}) since {}; apply waits up to 5 s",
            holder["pid"],
            holder.get("agent_id").and_then(Value::as_str).unwrap_or("?"),
            holder.get("operation").and_then(Value::as_str).unwrap_or("?"),
            holder.get("acquired_at").and_then(Value::as_str).unwrap_or("?")
        )
    } else {
        "free".to_owned()
    };
    p.checks.push(crate::wire::Check { name: "lock".into(), ok: !held, detail });
    if held {
        // Conflict details carry the holder for scripts and the Conflict tab; a held lock
        // does not change the predicted status (the holder may finish within apply's wait).
        match p.conflict.as_mut() {
            Some(Value::Object(c)) => {
                c.insert("lock_holder".into(), holder);
            }
            Some(_) => {}
            None => {
                p.conflict = Some(serde_json::json!({"kind": "lock_held", "lock_holder": holder,
                    "note": "LoopX's state-file lock is held now: apply waits up to 5 s, then records lock_busy"}));
            }
        }
    }
}

/// The idempotency and lease checks of a write intent (DESIGN.md §4), run by
/// [`Engine::prepare_intent`](super::Engine) in their order.
impl super::Engine {
    pub(super) fn check_idempotency(
        p: &mut Prepared,
        intent: &Intent,
        results: &Result<crate::gate::results::Records, String>,
    ) {
        let Some(records) = readable_results(p, results) else { return };
        let applied = records.iter().rev().find(|r| {
            r.idempotency_key == intent.idempotency_key && matches!(r.status, Status::Applied | Status::AlreadyApplied)
        });
        match applied {
            None => p.check("idempotency", true, "key not applied before", None),
            Some(r) if r.effect_digest == intent.effect_digest => {
                p.check(
                    "idempotency",
                    false,
                    format!("same key and effect already {} as item {}", r.status.as_str(), r.item_id),
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
                    format!("key already applied by item {} with a different effect", r.item_id),
                    Some(Predicted::Status(Status::IdempotencyConflict)),
                );
            }
        }
    }

    pub(super) fn check_lease(
        &self,
        p: &mut Prepared,
        intent: &Intent,
        state: &ActiveState,
        raw: Option<&RawAfter>,
        goal_id: &str,
    ) {
        let expected =
            intent.lease_ref.as_ref().and_then(|l| l.get("claimed_by")).and_then(Value::as_str).map(str::to_owned);
        let targets: Vec<(String, Option<String>)> = if let Proposal::TodoOp(op) = &intent.proposal {
            let Some(todo_id) = op.todo_id() else {
                p.check("lease", true, "no existing todo targeted", None);
                return;
            };
            let args = op.args();
            let actor = args
                .agent_id
                .clone()
                .or_else(|| matches!(op, TodoOp::TodoClaim(_)).then(|| args.claimed_by.clone()).flatten());
            vec![(todo_id.to_owned(), actor)]
        } else {
            // A raw change is checked on every existing todo it touches; the writer is the
            // packet's lease holder, else its writer_id.
            let Some(after) = raw.and_then(|r| r.parsed(state)) else {
                p.check("lease", true, "the change does not apply; see edit", None);
                return;
            };
            let actor = expected.clone().or_else(|| Some(intent.writer_id.clone()));
            changed_active_todos(state, after).into_iter().map(|id| (id, actor.clone())).collect()
        };
        if targets.is_empty() {
            p.check("lease", true, "touches no existing todo", None);
            return;
        }
        let now = self.clock.now().with_timezone(&chrono::Utc);
        let runtime_dir = self.ws.goal_runtime_dir(goal_id).ok();
        let mut details = Vec::new();
        for (todo_id, actor) in &targets {
            let hard = runtime_dir.as_ref().map_or(LeaseRead::Absent, |d| read_lease(d, todo_id));
            match lease_problem(state, todo_id, actor.as_deref(), expected.as_deref(), &hard, now) {
                Ok(detail) => details.push(detail),
                Err((reason, detail, hard_json)) => {
                    let claimed = state.find_todo(todo_id).and_then(crate::loopx::state::Todo::claimed_by);
                    p.lease_holder =
                        hard_json.get("owner").and_then(Value::as_str).map(str::to_owned).or_else(|| claimed.clone());
                    let lease = json!({"kind": "lease_conflict", "reason": reason, "todo_id": todo_id,
                        "claimed_by": claimed,
                        "expected_claimed_by": expected, "lease_ref": intent.lease_ref.clone(), "writer": actor,
                        "hard_lease": hard_json});
                    match p.conflict.as_mut() {
                        None => p.conflict = Some(lease),
                        // Another conflict came first (e.g. the item is also stale): the lease
                        // stays visible, and resolvable, beside it.
                        Some(Value::Object(c)) => {
                            c.insert("lease_conflict".into(), lease);
                        }
                        Some(_) => {}
                    }
                    p.check("lease", false, detail, Some(Predicted::Status(Status::LeaseConflict)));
                    return;
                }
            }
        }
        p.check("lease", true, details.join("; "), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Lines of small states: todo sections, an archive, a section without a role, todos with
    /// explicit (sometimes duplicate) ids, claims, continuations and blank lines.
    fn line() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "## Agent Todo",
            "## Human Todo",
            "## Completed Work Archive",
            "## Notes",
            "- [ ] one",
            "- [ ] two",
            "- [x] one",
            "- [-] three",
            "  more words",
            "  <!-- loopx:todo todo_id=todo_dup001 status=open -->",
            "  <!-- loopx:todo todo_id=todo_dup002 status=open claimed_by=codex-a -->",
            "  <!-- loopx:todo status=done -->",
            "",
        ])
    }

    fn state() -> impl Strategy<Value = String> {
        prop::collection::vec(line(), 0..24).prop_map(|l| l.join("\n") + "\n")
    }

    /// A todo in the shared prefix whose id an added todo further down takes too: its last
    /// block is now the added one, so it is changed though its own lines are not.
    #[test]
    fn an_id_taken_again_below_the_shared_prefix_is_changed() {
        let a = "## Agent Todo\n- [ ] one\n  <!-- loopx:todo todo_id=todo_dup001 status=open -->\n- [ ] two\n";
        let b = format!("{a}  <!-- loopx:todo todo_id=todo_dup001 status=open -->\n");
        let (before, after) = (ActiveState::parse(a), ActiveState::parse(&b));
        let ids: Vec<String> = changed_active_todos(&before, &after).into_iter().collect();
        assert_eq!(ids, ["todo_b8c0d9001c55", "todo_dup001"]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// The lease targets of a raw change: the ids `touched_todos` reports that `before`
        /// holds an active todo for (the definition `changed_active_todos` shortcuts).
        #[test]
        fn changed_active_todos_are_the_touched_ones_before_holds(a in state(), b in state()) {
            let (before, after) = (ActiveState::parse(&a), ActiveState::parse(&b));
            let oracle: std::collections::BTreeSet<String> =
                touched_todos(&before, &after).0.into_iter().filter(|id| before.find_todo(id).is_some()).collect();
            prop_assert_eq!(changed_active_todos(&before, &after), oracle);
        }

        /// The same on edits that keep every todo id in place (markers and statuses
        /// changed, duplicate ids among them): most todos in the shared prefix and suffix.
        #[test]
        fn edits_in_place_are_the_touched_ones_before_holds(
            lines in prop::collection::vec((line(), any::<bool>()), 0..24),
        ) {
            let twin = |l: &'static str| match l {
                "- [ ] one" => "- [x] one",
                "- [x] one" => "- [ ] one",
                "- [-] three" => "- [ ] three",
                "  <!-- loopx:todo todo_id=todo_dup001 status=open -->" => "  <!-- loopx:todo todo_id=todo_dup001 status=blocked -->",
                "  <!-- loopx:todo status=done -->" => "  <!-- loopx:todo status=open -->",
                other => other,
            };
            let a: Vec<&str> = lines.iter().map(|(l, _)| *l).collect();
            let b: Vec<&str> = lines.iter().map(|(l, edit)| if *edit { twin(l) } else { l }).collect();
            let (before, after) = (ActiveState::parse(&(a.join("\n") + "\n")), ActiveState::parse(&(b.join("\n") + "\n")));
            let oracle: std::collections::BTreeSet<String> =
                touched_todos(&before, &after).0.into_iter().filter(|id| before.find_todo(id).is_some()).collect();
            prop_assert_eq!(changed_active_todos(&before, &after), oracle);
        }

        /// The same on a state and a copy with lines dropped and lines put in at a few
        /// places (lists of different lengths around a shared prefix and suffix).
        #[test]
        fn insertions_and_removals_are_the_touched_ones_before_holds(
            lines in prop::collection::vec(line(), 0..32),
            edits in prop::collection::vec((any::<prop::sample::Index>(), prop::option::of(line())), 0..4),
        ) {
            let mut b = lines.clone();
            for (at, put) in &edits {
                match put {
                    Some(l) => { let i = at.index(b.len() + 1); b.insert(i, l); }
                    None if !b.is_empty() => { let i = at.index(b.len()); b.remove(i); }
                    None => {}
                }
            }
            let (before, after) = (ActiveState::parse(&(lines.join("\n") + "\n")), ActiveState::parse(&(b.join("\n") + "\n")));
            let oracle: std::collections::BTreeSet<String> =
                touched_todos(&before, &after).0.into_iter().filter(|id| before.find_todo(id).is_some()).collect();
            prop_assert_eq!(changed_active_todos(&before, &after), oracle);
        }
    }
}
