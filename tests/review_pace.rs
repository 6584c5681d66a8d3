//! Issue 14, review at fleet pace: stale order-independent todo ops are recomputed instead
//! of going stale, batches decide exactly the marked items with each one re-checked,
//! rejections stick, applies keep a note, and a revert restores the bytes. (Byte-exactness of
//! the recomputed writes against the real LoopX 0.5.4 is in `interop_loopx.rs`.)

mod common;
use common::{demo, engine};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use writegate::engine::{Approval, Decision, Engine};
use writegate::loopx::edit::{TodoArgs, TodoOp};
use writegate::loopx::state::ActiveState;
use writegate::tui::app::{App, Effect, Mode, Msg, update};
use writegate::wire::Status;

fn state(e: &Engine, goal: &str) -> String {
    std::fs::read_to_string(&e.goal(goal).expect("goal").state_file).expect("state")
}

fn add(text: &str) -> TodoOp {
    TodoOp::TodoAdd(TodoArgs { role: Some("agent".into()), text: Some(text.into()), ..TodoArgs::default() })
}

/// Adds (and applies) an open todo with `text` to `goal`; returns its id.
fn target_todo(e: &Engine, goal: &str, text: &str) -> String {
    let id = e.propose(goal, &add(text)).expect("propose").item_id;
    assert_eq!(e.decide(&id, &Decision::apply(), None).expect("apply").status, Status::Applied);
    ActiveState::parse(&state(e, goal)).todos.iter().find(|t| t.text.contains(text)).expect("added").todo_id.to_string()
}

/// Proposes `op` in `goal` and gives its file the modification time `secs` after a fixed
/// instant, so the queue order is the order of the calls.
fn propose_at(e: &Engine, goal: &str, op: &TodoOp, secs: u64) -> String {
    let id = e.propose(goal, op).expect("propose").item_id;
    let path = e.find_item(&format!("{goal}/{id}")).expect("item").path;
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_800_000_000 + secs);
    std::fs::File::options().write(true).open(&path).and_then(|f| f.set_modified(when)).expect("mtime");
    id
}

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    let modifiers = if matches!(code, KeyCode::Char(c) if c.is_ascii_uppercase()) {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    update(app, Msg::Key(KeyEvent { code, modifiers, kind: KeyEventKind::Press, state: KeyEventState::NONE }))
}

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

/// Filters the queue to `goal` (`/`, the name, Enter) and marks its ready items (`*`).
fn mark_ready_of(app: &mut App, goal: &str) {
    key(app, KeyCode::Char('/'));
    typed(app, goal);
    key(app, KeyCode::Enter);
    key(app, KeyCode::Char('*'));
}

/// A console loaded with every goal of `e`, as the TUI's loader fills it.
fn console(e: &Engine) -> App {
    let mut app = App::new("reg".into(), false, false, false, writegate::tui::keymap::default_table());
    let goals = e.ws.goals.iter().map(|g| writegate::tui::model::load_goal(e, &g.id)).collect();
    update(&mut app, Msg::Loaded { full: true, quiet: true, last: true, goals });
    app
}

/// Skips every pending item of `goal` (a clean queue for the test).
fn clear_queue(e: &Engine, goal: &str) {
    for item in e.items(Some(goal)) {
        let out = e.decide(&format!("{goal}/{}", item.id), &Decision::Skip, None);
        assert!(out.is_ok() || item.writeback.is_some(), "{out:?}");
    }
}

#[test]
fn five_concurrent_adds_to_one_goal_all_apply_one_after_another() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    clear_queue(&e, "docs-goal");
    let ids: Vec<String> =
        (1..=5).map(|i| propose_at(&e, "docs-goal", &add(&format!("[P4] Agent {i} adds this")), i)).collect();
    for (i, id) in ids.iter().enumerate() {
        let p = e.prepare(&e.find_item(id).expect("item"));
        assert_eq!(p.predicted.name(), "ready", "add {i}: {:?}", p.stale_reason);
        let out = e.decide(id, &Decision::apply(), None).expect("apply");
        assert_eq!(out.status, Status::Applied, "add {i}: {}", out.message);
        let rec = out.record.expect("record");
        assert_eq!(rec.reason_code.as_deref(), if i == 0 { None } else { Some("rebased") }, "add {i}");
    }
    let text = state(&e, "docs-goal");
    for i in 1..=5 {
        assert_eq!(text.matches(&format!("Agent {i} adds this")).count(), 1, "add {i} written once");
    }
}

#[test]
fn a_supersede_after_an_unrelated_add_is_recomputed() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let todo = target_todo(&e, "docs-goal", "[P4] Supersede target");
    let sup = TodoOp::TodoSupersede(TodoArgs {
        todo_id: Some(todo.clone()),
        agent_id: Some("codex-main-control".into()),
        reason: Some("a narrower plan".into()),
        ..TodoArgs::default()
    });
    let sup_id = e.propose("docs-goal", &sup).expect("propose").item_id;
    let add_id = e.propose("docs-goal", &add("[P4] Unrelated meanwhile")).expect("propose").item_id;
    assert_eq!(e.decide(&add_id, &Decision::apply(), None).expect("add").status, Status::Applied);
    let p = e.prepare(&e.find_item(&sup_id).expect("item"));
    assert_eq!(p.predicted.name(), "ready", "{:?}", p.stale_reason);
    let moved = p.recomputed.as_ref().expect("recomputed").moved.clone();
    assert!(moved.iter().any(|m| m.ends_with(" added")), "{moved:?}");
    assert!(
        writegate::engine::summary::summary(&p).starts_with(&format!("supersede {}", &todo[..9])),
        "{}",
        writegate::engine::summary::summary(&p)
    );
    let out = e.decide(&sup_id, &Decision::apply(), None).expect("apply");
    assert_eq!((out.status, out.record.and_then(|r| r.reason_code)), (Status::Applied, Some("rebased".into())));
    let after = ActiveState::parse(&state(&e, "docs-goal"));
    assert!(after.todos.iter().any(|t| t.todo_id == todo && t.status == "done"), "superseded");
    assert!(after.todos.iter().any(|t| t.text.contains("Unrelated meanwhile")), "the add stays");
}

#[test]
fn a_batch_of_twenty_with_a_conflict_in_the_middle_applies_nineteen_and_reports_the_one() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    clear_queue(&e, "docs-goal");
    let target = target_todo(&e, "docs-goal", "[P4] Batch target");
    let mut ids = Vec::new();
    for i in 0..20u64 {
        let op = match i {
            // The completion changes `target`; the update of it after that was proposed at the
            // old base, so it is stale once the completion lands: the batch's one conflict.
            5 => TodoOp::TodoComplete(TodoArgs {
                todo_id: Some(target.clone()),
                agent_id: Some("codex-main-control".into()),
                evidence: Some("done in the batch".into()),
                no_follow_up: true,
                ..TodoArgs::default()
            }),
            11 => TodoOp::TodoUpdate(TodoArgs {
                todo_id: Some(target.clone()),
                agent_id: Some("codex-main-control".into()),
                note: Some("written at the old base".into()),
                ..TodoArgs::default()
            }),
            _ => add(&format!("[P4] Batch add {i:02}")),
        };
        ids.push(propose_at(&e, "docs-goal", &op, i));
    }
    let mut app = console(&e);
    mark_ready_of(&mut app, "docs-goal");
    assert_eq!(app.marked.len(), 20, "every item is ready before the batch");
    key(&mut app, KeyCode::Char('A'));
    let Mode::Batch(b) = &app.mode else { panic!("no batch dialog: {:?} {:?}", app.mode, app.flash) };
    let listed: Vec<String> =
        b.items.iter().map(|(it, _)| it.key.rsplit('/').next().unwrap_or("").to_owned()).collect();
    assert_eq!(listed, ids, "the dialog lists exactly the marked ids, in queue order");
    assert!(b.items.iter().all(|(_, row)| row.text.contains("(+")), "summaries with line counts");
    typed(&mut app, "19");
    assert!(key(&mut app, KeyCode::Enter).is_empty(), "a wrong count decides nothing");
    key(&mut app, KeyCode::Backspace);
    key(&mut app, KeyCode::Backspace);
    typed(&mut app, "20");
    let fx = key(&mut app, KeyCode::Enter);
    let [Effect::DecideBatch { action, items, decision }] = &fx[..] else { panic!("{fx:?}") };
    let outcomes = writegate::tui::batch::run(&e, items.clone(), decision);
    let conflicts: Vec<&(String, _)> =
        outcomes.iter().filter(|(_, r)| r.as_ref().map(|o| o.status) != Ok(Status::Applied)).collect();
    assert_eq!(conflicts.len(), 1, "{outcomes:?}");
    assert!(conflicts[0].0.ends_with(&ids[11]));
    assert_eq!(conflicts[0].1.as_ref().map(|o| o.status), Ok(Status::RevisionConflict));
    update(&mut app, Msg::BatchDone { action: *action, outcomes });
    let Mode::BatchReport(rows) = &app.mode else { panic!("no report") };
    assert_eq!(rows.len(), 20);
    assert!(app.flash.as_ref().is_some_and(|(m, _)| m.contains("19 applied") && m.contains("1 revision_conflict")));
    assert_eq!(app.marked.len(), 1, "the conflict stays marked");
    let text = state(&e, "docs-goal");
    assert_eq!((0..20).filter(|i| text.contains(&format!("Batch add {i:02}"))).count(), 18);
    assert!(!text.contains("written at the old base"));
}

#[test]
fn nothing_in_a_batch_is_applied_without_its_own_recheck_and_warn_items_are_never_batched() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    clear_queue(&e, "docs-goal");
    let ids: Vec<String> = (0..3).map(|i| propose_at(&e, "docs-goal", &add(&format!("[P4] Checked {i}")), i)).collect();
    let mut app = console(&e);
    mark_ready_of(&mut app, "docs-goal");
    key(&mut app, KeyCode::Char('A'));
    typed(&mut app, "3");
    let fx = key(&mut app, KeyCode::Enter);
    let [Effect::DecideBatch { items, decision, .. }] = &fx[..] else { panic!("{fx:?}") };
    // After the dialog: one item's file changes, another goal state takes the same text.
    let item = e.find_item(&ids[0]).expect("item");
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&item.path).expect("read")).expect("json");
    doc["proposal"]["args"]["text"] = "[P4] Swapped after review".into();
    std::fs::write(&item.path, serde_json::to_vec(&doc).expect("json")).expect("write");
    let path = e.goal("docs-goal").expect("goal").state_file.clone();
    let taken =
        writegate::loopx::edit::apply_op(&state(&e, "docs-goal"), &add("[P4] Checked 1"), &ctx(&e)).expect("op").text;
    std::fs::write(&path, taken).expect("state");
    let outcomes = writegate::tui::batch::run(&e, items.clone(), decision);
    assert!(outcomes[0].1.as_ref().is_err_and(|m| m.contains("changed on disk")), "{:?}", outcomes[0]);
    assert_ne!(outcomes[1].1.as_ref().map(|o| o.status), Ok(Status::Applied), "{:?}", outcomes[1]);
    // The third would now be recomputed on a state nobody reviewed: refused, not written.
    assert!(outcomes[2].1.as_ref().is_err_and(|m| m.contains("review it again")), "{:?}", outcomes[2]);
    assert!(e.find_item(&ids[2]).is_ok(), "it stays pending, to be reviewed on the new state");
    let text = state(&e, "docs-goal");
    assert!(!text.contains("Swapped after review") && text.matches("Checked 1").count() == 1);

    // A warn item: left out of the batch with the reason; the engine refuses it unconfirmed.
    let mut app = console(&e);
    let warn = app.items.iter().find(|i| i.scan == writegate::tui::model::ScanMark::Warn).expect("demo warn item");
    let warn_key = warn.key.clone();
    app.marked.insert(warn_key.clone());
    key(&mut app, KeyCode::Char('A'));
    assert!(matches!(app.mode, Mode::Normal), "nothing to batch");
    assert!(app.flash.as_ref().is_some_and(|(m, _)| m.contains("warn findings")), "{:?}", app.flash);
    let refused = e.decide(&warn_key, &Decision::Apply(Approval::default()), None);
    assert!(refused.is_err_and(|e| e.to_string().contains("typed confirmation")));
}

fn ctx(e: &Engine) -> writegate::loopx::edit::EditContext {
    writegate::loopx::edit::EditContext {
        goal_id: "docs-goal".into(),
        registered_agents: e.goal("docs-goal").expect("goal").registered_agents.clone(),
        now: e.clock.loopx_now(),
    }
}

#[test]
fn a_rejected_key_dropped_again_shows_the_rejection_and_needs_the_typed_confirmation() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let id = e.propose("docs-goal", &add("[P4] Rejected once")).expect("propose").item_id;
    let out = e.decide(&id, &Decision::Reject { reason: "not this sprint".into() }, None).expect("reject");
    assert_eq!(out.status, Status::Rejected);
    // The agent drops the very same item again under another name.
    let gate = e.gate("docs-goal").expect("gate");
    std::fs::copy(gate.decided().join(format!("{id}.json")), gate.inbox().join("again.json")).expect("re-drop");
    let p = e.prepare(&e.find_item("docs-goal/again").expect("item"));
    let r = p.rejected_before.clone().expect("the rejection sticks");
    assert_eq!(
        (r.item_id.as_str(), r.operator.as_str(), r.reason.as_deref()),
        (id.as_str(), "tester", Some("not this sprint"))
    );
    assert!(p.checks.iter().any(|c| c.name == "rejection" && !c.ok && c.detail.contains("not this sprint")));
    let mut app = console(&e);
    let q = app.items.iter().find(|i| i.item_id == "again").expect("queued").clone();
    assert!(q.needs_typed_confirmation());
    app.selected = Some(q.key.clone());
    key(&mut app, KeyCode::Char('a'));
    assert!(matches!(app.mode, Mode::TypedConfirm { .. }), "{:?}", app.mode);
    assert!(e.decide("docs-goal/again", &Decision::apply(), None).is_err_and(|e| e.to_string().contains("rejected")));
    let out = e.decide("docs-goal/again", &Decision::apply_confirmed(), None).expect("confirmed");
    assert_eq!(out.status, Status::Applied);
}

#[test]
fn an_apply_keeps_its_note_and_a_revert_round_trips_the_bytes() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let before = state(&e, "docs-goal");
    let id = e.propose("docs-goal", &add("[P4] Revert me")).expect("propose").item_id;
    let note = Decision::Apply(Approval { note: Some("ok'd in standup \u{1b}[31m".into()), ..Approval::default() });
    let rec = e.decide(&id, &note, None).expect("apply").record.expect("record");
    assert_eq!(rec.note.as_deref(), Some("ok'd in standup"), "sanitised and kept");
    let (proposed, basis) = e.propose_revert("docs-goal", &id, "tester").expect("revert");
    assert_eq!(basis, writegate::engine::revert::RevertBasis::Exact);
    let out = e.decide(&proposed.item_id, &Decision::apply_confirmed(), None).expect("apply revert");
    assert_eq!(out.status, Status::Applied, "{}", out.message);
    assert_eq!(out.record.and_then(|r| r.reverts), Some(id.clone()));
    assert_eq!(state(&e, "docs-goal"), before, "the bytes before the apply, exactly");
    // A revert of a revert's target that moved on is built on the current state or refused.
    assert!(e.propose_revert("docs-goal", "no-such-item", "tester").is_err());
}

#[test]
fn a_key_reuse_made_stale_by_an_unrelated_apply_is_recomputed_and_the_override_applies_it() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let reuse = common::item_with(&e, "docs-goal", "idempotency_conflict");
    let ready = common::item_with(&e, "docs-goal", "ready");
    assert_eq!(e.decide(&ready, &Decision::apply(), None).expect("apply").status, Status::Applied);
    let p = e.prepare(&e.find_item(&reuse).expect("item"));
    assert_eq!(p.predicted.name(), "idempotency_conflict", "still the key reuse, not stale: {:?}", p.stale_reason);
    assert!(p.recomputed.is_some());
    let over = Decision::Apply(Approval { confirm_warnings: true, override_idempotency: true, ..Approval::default() });
    let rec = e.decide(&reuse, &over, None).expect("override").record.expect("record");
    assert_eq!((rec.status, rec.reason_code.as_deref()), (Status::Applied, Some("idempotency_override")));
    assert_ne!(rec.base_revision, rec.expected_revision, "recomputed on the state the other apply left");
}

#[test]
fn a_revert_after_later_writes_undoes_only_its_todo_block_even_next_to_a_changed_one() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let above = target_todo(&e, "docs-goal", "[P4] The todo above");
    let mine = target_todo(&e, "docs-goal", "[P4] The todo to revert on");
    let todos = ActiveState::parse(&state(&e, "docs-goal"));
    let before_block = todos.todos.iter().find(|t| t.todo_id == mine).map(|t| todos.todo_block(t).join("\n"));
    let note = |todo: &str, text: &str| {
        TodoOp::TodoUpdate(TodoArgs {
            todo_id: Some(todo.into()),
            agent_id: Some("codex-main-control".into()),
            note: Some(text.into()),
            ..TodoArgs::default()
        })
    };
    let id = e.propose("docs-goal", &note(&mine, "to be reverted")).expect("propose").item_id;
    assert_eq!(e.decide(&id, &Decision::apply_confirmed(), None).expect("apply").status, Status::Applied);
    // The todo right above it changes afterwards (inside a diff's context lines).
    let later = e.propose("docs-goal", &note(&above, "a later write")).expect("propose").item_id;
    assert_eq!(e.decide(&later, &Decision::apply_confirmed(), None).expect("apply").status, Status::Applied);
    let (proposed, basis) = e.propose_revert("docs-goal", &id, "tester").expect("revert");
    assert_eq!(basis, writegate::engine::revert::RevertBasis::OnCurrent);
    let p = e.prepare(&e.find_item(&proposed.item_id).expect("item"));
    assert!(writegate::engine::summary::summary(&p).starts_with(&format!("revert {id}")));
    assert_eq!(e.decide(&proposed.item_id, &Decision::apply_confirmed(), None).expect("apply").status, Status::Applied);
    let now = ActiveState::parse(&state(&e, "docs-goal"));
    let block = now.todos.iter().find(|t| t.todo_id == mine).map(|t| now.todo_block(t).join("\n"));
    assert_eq!(block, before_block, "its block is back as it was");
    assert!(state(&e, "docs-goal").contains("note=a%20later%20write"), "the later write stays");
}

/// Issue 14 "done when": the demo can be worked through in any order. Every item that can be
/// applied at the start (ready, a key reuse with the override, a duplicate, a warning with
/// the typed confirmation) is still applied, whatever order the operator takes them in: no
/// apply is turned into a forced reject by the ones before it. 24 orders, seeded.
#[test]
fn the_demo_can_be_worked_through_in_any_order() {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..24 {
        let (_d, reg) = demo();
        let e = engine(&reg);
        let mut todo: Vec<(String, String)> = e
            .list(None)
            .into_iter()
            .filter(|r| r.goal_id != "release-goal")
            .filter(|r| matches!(r.predicted_status.as_str(), "ready" | "idempotency_conflict" | "skipped_duplicate"))
            .map(|r| (format!("{}/{}", r.goal_id, r.item_id), r.predicted_status))
            .collect();
        assert!(todo.len() >= 8, "{todo:?}");
        for i in (1..todo.len()).rev() {
            let j = usize::try_from(next() % (i as u64 + 1)).unwrap_or(0);
            todo.swap(i, j);
        }
        for (key, was) in &todo {
            let over = was == "idempotency_conflict";
            let d =
                Decision::Apply(Approval { confirm_warnings: true, override_idempotency: over, ..Approval::default() });
            let out = e.decide(key, &d, None).unwrap_or_else(|err| panic!("round {round}: {key}: {err}"));
            assert!(
                matches!(out.status, Status::Applied | Status::SkippedDuplicate | Status::AlreadyApplied),
                "round {round}: {key} ({was}) became {:?}: {}; order {todo:?}",
                out.status,
                out.message
            );
        }
    }
}

#[test]
fn batch_reject_takes_one_reason_for_all_and_batch_skip_leaves_read_only_writebacks_marked() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    clear_queue(&e, "docs-goal");
    let ids: Vec<String> =
        (0..2).map(|i| propose_at(&e, "docs-goal", &add(&format!("[P4] Reject me {i}")), i)).collect();
    let mut app = console(&e);
    mark_ready_of(&mut app, "docs-goal");
    key(&mut app, KeyCode::Char('X'));
    typed(&mut app, "1");
    key(&mut app, KeyCode::Enter);
    let Mode::Batch(b) = &app.mode else { panic!("{:?}", app.mode) };
    assert_eq!(b.reason.as_deref(), Some("stale or superseded"), "a lone 1 is the first quick reason");
    typed(&mut app, "2");
    let fx = key(&mut app, KeyCode::Enter);
    let [Effect::DecideBatch { items, decision, .. }] = &fx[..] else { panic!("{fx:?}") };
    let outcomes = writegate::tui::batch::run(&e, items.clone(), decision);
    for (id, (_, out)) in ids.iter().zip(&outcomes) {
        let rec = out.as_ref().expect("decided").record.clone().expect("record");
        assert_eq!(
            (rec.item_id.as_str(), rec.status, rec.reason.as_deref()),
            (id.as_str(), Status::Rejected, Some("stale or superseded"))
        );
    }
    // A read-only writeback cannot be skipped: marked, it is left out with the reason.
    let mut app = console(&e);
    let ro = app.items.iter().find(|i| i.is_read_only_writeback()).expect("demo read-only writeback").key.clone();
    let ok =
        app.items.iter().find(|i| i.kind == "writeback" && !i.is_read_only_writeback()).expect("writeback").key.clone();
    app.marked.extend([ro.clone(), ok.clone()]);
    key(&mut app, KeyCode::Char('S'));
    let Mode::Batch(b) = &app.mode else { panic!("{:?} {:?}", app.mode, app.flash) };
    assert_eq!(b.items.iter().map(|(i, _)| i.key.clone()).collect::<Vec<_>>(), vec![ok]);
    assert!(b.excluded.iter().any(|r| r.key == ro && r.text.contains("not skipped")), "{:?}", b.excluded);
}

#[test]
fn a_revert_of_a_change_to_a_claimed_todo_is_made_under_the_same_lease() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let before = state(&e, "demo-goal");
    // The demo's ready update of todo_cc1c01a7ef81, which codex-main-control has claimed.
    let id = e
        .list(Some("demo-goal"))
        .into_iter()
        .find(|r| r.predicted_status == "ready" && r.summary.starts_with("update todo_cc1c"))
        .expect("the demo's ready update")
        .item_id;
    assert_eq!(e.decide(&id, &Decision::apply(), None).expect("apply").status, Status::Applied);
    let (proposed, _) = e.propose_revert("demo-goal", &id, "tester").expect("revert");
    let p = e.prepare(&e.find_item(&proposed.item_id).expect("item"));
    assert_eq!(p.predicted.name(), "ready", "{:?}", p.checks.iter().find(|c| !c.ok));
    assert_eq!(e.decide(&proposed.item_id, &Decision::apply_confirmed(), None).expect("apply").status, Status::Applied);
    assert_eq!(state(&e, "demo-goal"), before);
}
