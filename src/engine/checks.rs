//! The checks behind preview that are plain functions of their inputs: lease judgement,
//! raw-proposal scope, packet consistency, the boundary scan and the lock holder.

use super::item::{Intent, Proposal};
use super::preview::{Predicted, Prepared};
use crate::loopx::edit::{EditOutcome, TodoOp};
use crate::loopx::lease::LeaseRead;
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

/// The text a `replace` / `unified_diff` proposal would write on `current`.
pub(super) fn raw_text(proposal: &Proposal, current: &str) -> Result<String, String> {
    match proposal {
        Proposal::Replace(t) => Ok(t.clone()),
        Proposal::UnifiedDiff(d) => super::patch::apply(current, d).map_err(|e| e.to_string()),
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

/// The ids of `before`'s active todos whose block `after` changes or drops: the ids of
/// [`touched_todos`] that `before` holds an active todo for (the todos whose leases a raw
/// change must respect), without its comparison of the text outside todo blocks.
#[must_use]
pub fn changed_active_todos(before: &ActiveState, after: &ActiveState) -> std::collections::BTreeSet<String> {
    if let Some(changed) = changed_in_place(before, after) {
        return changed;
    }
    let (a, b) = (todo_keys(before), todo_keys(after));
    a.iter()
        .filter(|(k, v)| b.get(*k) != Some(*v) && before.find_todo(k).is_some())
        .map(|(k, _)| (*k).to_owned())
        .collect()
}

/// [`changed_active_todos`] when both states list the same todo ids in the same order (an
/// edit that changes todos in place, the usual raw change), read todo by todo instead of
/// through two maps of every todo (most of a large raw preview's lease check). The maps
/// compare each id's last todo; here a position that differs names a candidate id, and a
/// walk from the end compares each candidate at its last position and notes whether
/// `before` holds an active todo for it. `None` when the ids do not line up.
fn changed_in_place(before: &ActiveState, after: &ActiveState) -> Option<std::collections::BTreeSet<String>> {
    if before.todos.len() != after.todos.len() {
        return None;
    }
    let key = block_key;
    let mut candidates: std::collections::HashMap<&str, Option<(bool, bool)>, foldhash::fast::RandomState> =
        std::collections::HashMap::default();
    for (a, b) in before.todos.iter().zip(&after.todos) {
        if a.todo_id != b.todo_id {
            return None;
        }
        if key(a) != key(b) {
            candidates.insert(a.todo_id.as_str(), None);
        }
    }
    if !candidates.is_empty() {
        // (differs at its last position, an active todo holds it) for each candidate.
        for (a, b) in before.todos.iter().zip(&after.todos).rev() {
            if let Some(seen) = candidates.get_mut(a.todo_id.as_str()) {
                let seen = seen.get_or_insert((key(a) != key(b), false));
                seen.1 |= !a.archived;
            }
        }
    }
    Some(
        candidates
            .into_iter()
            .filter(|(_, seen)| matches!(seen, Some((true, true))))
            .map(|(id, _)| id.to_owned())
            .collect(),
    )
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
    let mut findings = Vec::new();
    scan::scan_json(&intent.payload, "", Policy::Local, &mut findings);
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
        /// changed, duplicate ids among them): the path that compares todo by todo.
        #[test]
        fn changed_in_place_are_the_touched_ones_before_holds(
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
            prop_assert!(changed_in_place(&before, &after).is_some());
            let oracle: std::collections::BTreeSet<String> =
                touched_todos(&before, &after).0.into_iter().filter(|id| before.find_todo(id).is_some()).collect();
            prop_assert_eq!(changed_active_todos(&before, &after), oracle);
        }
    }
}
