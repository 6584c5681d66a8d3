//! Apply's decision-only preparation ([`super::preview::Detail::Decision`]) against the full
//! one: the same verdict, checks and bytes, and the full details wherever apply records.

use crate::engine::preview::Prepared;
use crate::engine::{Approval, Decision, Engine};
use crate::loopx::edit::{TodoArgs, TodoOp};
use crate::wire::Status;

fn propose(e: &Engine, op: &TodoOp) -> String {
    e.propose("docs-goal", op).expect("propose").item_id
}

/// The full and the decision-only preparation of item `id` on one snapshot, with the status
/// of the full one checked to be `want` and the two agreeing on status and checks.
fn both(e: &Engine, id: &str, want: &str) -> (Prepared, Prepared) {
    let item = e.find_item(id).expect("item");
    let snap = e.goal_snapshot(&item.goal_id);
    let (full, lean) = (e.prepare_in(&item, &snap), e.prepare_for_apply(&item, &snap));
    assert_eq!(full.predicted.name(), want, "{:?}", full.stale_reason);
    assert_eq!((lean.predicted.name(), &lean.checks), (full.predicted.name(), &full.checks));
    (full, lean)
}

#[test]
fn a_recomputed_add_is_prepared_for_apply_like_in_full_without_the_display_work() {
    let (_d, e) = crate::demo::test_engine();
    let add = |text: &str| {
        TodoOp::TodoAdd(TodoArgs { role: Some("agent".into()), text: Some(text.into()), ..TodoArgs::default() })
    };
    let (first, second) = (propose(&e, &add("[P2] first")), propose(&e, &add("[P2] second")));
    let apply = Decision::Apply(Approval { confirm_warnings: true, ..Approval::default() });
    assert_eq!(e.decide(&first, &apply, None).expect("apply").status, Status::Applied);
    let (full, lean) = both(&e, &second, "ready");
    assert_eq!(lean.proposed_text, full.proposed_text);
    let (l, f) = (lean.recomputed.expect("lean"), full.recomputed.expect("full"));
    assert_eq!((l.onto, l.moved, l.base_revision), (f.onto, f.moved, f.base_revision));
    assert!(lean.three_way.as_ref().is_some_and(|v| v.since_diff.is_empty()), "no display work");
    assert!(full.three_way.as_ref().is_some_and(|v| !v.since_diff.is_empty()));
}

#[test]
fn a_stale_update_is_recorded_with_the_full_details() {
    let (_d, e) = crate::demo::test_engine();
    let path = e.goal("docs-goal").expect("goal").state_file.clone();
    let now = std::fs::read_to_string(&path).expect("state");
    let todo = crate::loopx::state::ActiveState::parse(&now).todos[0].clone();
    let op = TodoOp::TodoUpdate(TodoArgs {
        todo_id: Some(todo.todo_id.to_string()),
        agent_id: Some("codex-main-control".into()),
        note: Some("stale".into()),
        ..TodoArgs::default()
    });
    let id = propose(&e, &op);
    // The todo is reworded after the agent read it: no recompute, on either preparation.
    let reworded: Vec<String> = now
        .lines()
        .enumerate()
        .map(|(i, l)| if i == todo.line { format!("{l} (reworded)") } else { l.to_owned() })
        .collect();
    std::fs::write(&path, reworded.join("\n") + "\n").expect("edit");
    let (full, lean) = both(&e, &id, "revision_conflict");
    assert_eq!(lean.stale_reason, full.stale_reason);
    let apply = Decision::Apply(Approval { confirm_warnings: true, ..Approval::default() });
    let out = e.decide(&id, &apply, None).expect("decide");
    assert_eq!(out.status, Status::RevisionConflict);
    let since = out.conflict.as_ref().and_then(|c| c["since_base_diff"].as_str().map(str::to_owned));
    assert!(since.is_some_and(|d| !d.is_empty()), "{:?}", out.conflict);
}
