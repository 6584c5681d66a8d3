//! Keys → actions → state and effects, for every binding in the table and every dialog.

use super::*;
use crate::engine::{Approval, Predicted};
use crate::tui::keymap;
use crate::tui::model::{Detail, GoalRow, QueueItem, ScanMark};
use ratatui::crossterm::event::{KeyCode, KeyEventState, KeyModifiers};

pub(crate) fn item(goal: &str, id: &str, predicted: Predicted, scan: ScanMark) -> QueueItem {
    QueueItem {
        key: format!("{goal}/{id}"),
        item_id: id.into(),
        goal_id: goal.into(),
        kind: "write_intent".into(),
        write_class: "todo_update".into(),
        agent: "codex-main-control".into(),
        arrived: chrono::DateTime::parse_from_rfc3339("2026-11-29T13:59:00Z")
            .map(|d| d.with_timezone(&chrono::Utc))
            .unwrap_or_default(),
        predicted,
        scan,
        summary: format!("update {id}: note"),
        lines: (1, 1),
        lease: None,
        payload_digest: format!("sha256:{id}"),
        detail: Arc::new(Detail {
            checks: Vec::new(),
            findings: Vec::new(),
            path: std::path::PathBuf::from("/nonexistent"),
            current: Some(Arc::new("a\n".into())),
            proposed: Some(crate::tui::model::ProposedText::new(Some("a\n"), "b\n")),
            conflict: None,
            invalid_reason: None,
            notes: Vec::new(),
            command_line: None,
            history: Arc::new(Vec::new()),
            recomputed: None,
            stale_reason: None,
            rejected_before: None,
        }),
        checking: false,
    }
}

pub(crate) fn goal(id: &str) -> GoalRow {
    GoalRow {
        id: id.into(),
        status: "active".into(),
        next_action: "ship".into(),
        open_todos: 2,
        leases: Vec::new(),
        authority: crate::loopx2::AuthorityKind::Markdown,
        projection: None,
        ghosts: 0,
        error: None,
    }
}

#[allow(clippy::needless_pass_by_value)] // tests read better with vec![...]
pub(crate) fn loaded_app(items: Vec<QueueItem>) -> App {
    let mut app = App::new("reg".into(), false, false, true, keymap::default_table());
    let goals: Vec<String> = items.iter().map(|i| i.goal_id.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    let loaded = goals.iter().map(|g| (goal(g), items.iter().filter(|i| &i.goal_id == g).cloned().collect())).collect();
    update(&mut app, Msg::Loaded { full: true, quiet: true, last: true, goals: loaded });
    app
}

pub(crate) fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    let mods = if matches!(code, KeyCode::Char(c) if c.is_ascii_uppercase()) {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    update(app, Msg::Key(KeyEvent { code, modifiers: mods, kind: KeyEventKind::Press, state: KeyEventState::NONE }))
}

/// A decision outcome with no record, lock or conflict details.
pub(crate) fn outcome(status: Status, item_moved: bool, message: &str) -> crate::engine::Outcome {
    crate::engine::Outcome { status, record: None, item_moved, message: message.into(), lock: None, conflict: None }
}

pub(crate) fn ready(id: &str) -> QueueItem {
    item("g", id, Predicted::Ready, ScanMark::Clean)
}

#[test]
fn navigation_tabs_scroll_and_modes() {
    let mut app = loaded_app(vec![ready("a1"), ready("b2"), ready("c3")]);
    assert_eq!(app.selected.as_deref(), Some("g/a1"));
    assert_eq!(press(&mut app, KeyCode::Char('j')), vec![Effect::ComputeView { key: "g/b2".into() }]);
    press(&mut app, KeyCode::Down);
    assert_eq!(app.selected.as_deref(), Some("g/c3"));
    press(&mut app, KeyCode::Down);
    assert_eq!(app.selected.as_deref(), Some("g/c3"), "stays on the last item");
    press(&mut app, KeyCode::Char('k'));
    press(&mut app, KeyCode::Up);
    assert_eq!(app.selected.as_deref(), Some("g/a1"));
    press(&mut app, KeyCode::End);
    assert_eq!(app.selected.as_deref(), Some("g/c3"));
    press(&mut app, KeyCode::Home);
    assert_eq!(app.selected.as_deref(), Some("g/a1"));
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.tab, Tab::Scan);
    press(&mut app, KeyCode::BackTab);
    press(&mut app, KeyCode::BackTab);
    assert_eq!(app.tab, Tab::History);
    press(&mut app, KeyCode::BackTab);
    assert_eq!(app.tab, Tab::Conflict);
    press(&mut app, KeyCode::Char('J'));
    press(&mut app, KeyCode::PageDown);
    press(&mut app, KeyCode::Char('l'));
    press(&mut app, KeyCode::Right);
    press(&mut app, KeyCode::Char('h'));
    assert_eq!(app.scroll, (20, 8));
    press(&mut app, KeyCode::Char('K'));
    press(&mut app, KeyCode::PageUp);
    press(&mut app, KeyCode::Left);
    assert_eq!(app.scroll, (0, 0));
    press(&mut app, KeyCode::Char('d'));
    assert_eq!(app.diff_mode, DiffMode::SideBySide);
    press(&mut app, KeyCode::Char('?'));
    assert_eq!(app.mode, Mode::Help);
    press(&mut app, KeyCode::Char('x'));
    assert_eq!(app.mode, Mode::Normal);
    assert_eq!(press(&mut app, KeyCode::Char('q')), vec![Effect::Quit]);
}

#[test]
fn filter_goal_scope_and_paste() {
    let mut app =
        loaded_app(vec![ready("a1"), item("h", "zz9", Predicted::Status(Status::RevisionConflict), ScanMark::Clean)]);
    assert!(update(&mut app, Msg::Paste("q".into())).is_empty());
    assert_eq!(app.mode, Mode::Normal, "pasted text never acts as a key");
    press(&mut app, KeyCode::Char('/'));
    update(&mut app, Msg::Paste("zz\u{1b}[31m".into()));
    assert_eq!(app.filter, "zz");
    assert_eq!(app.visible.len(), 1);
    assert_eq!(app.selected.as_deref(), Some("h/zz9"));
    press(&mut app, KeyCode::Esc);
    assert!(app.filter.is_empty());
    assert_eq!(app.visible.len(), 2);
    press(&mut app, KeyCode::Char('/'));
    for c in "stale".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    press(&mut app, KeyCode::Enter);
    assert_eq!((app.mode.clone(), app.visible.len()), (Mode::Normal, 1), "filters on the status too");
    press(&mut app, KeyCode::Char('/'));
    for _ in 0..5 {
        press(&mut app, KeyCode::Backspace);
    }
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('g'));
    assert_eq!(app.goal_scope.as_deref(), Some("h"));
    assert_eq!(app.visible.len(), 1);
    press(&mut app, KeyCode::Char('g'));
    assert_eq!(app.visible.len(), 2);
}

#[test]
fn apply_confirm_and_cancel() {
    let mut app = loaded_app(vec![ready("a1")]);
    assert!(press(&mut app, KeyCode::Char('a')).is_empty());
    assert_eq!(app.mode, Mode::ConfirmApply { key: "g/a1".into(), note: NoteField::default() });
    assert!(press(&mut app, KeyCode::Char('a')).is_empty(), "the trigger key does not confirm");
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(app.mode, Mode::Normal);
    press(&mut app, KeyCode::Char('a'));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.mode, Mode::Normal);
    press(&mut app, KeyCode::Char('a'));
    let fx = press(&mut app, KeyCode::Char('y'));
    // Pinned to the state it was shown on ("a\n" in these fixtures).
    let decision = Decision::Apply(Approval {
        on_revision: Some(crate::loopx::hash::revision_of_text("a\n")),
        ..Approval::default()
    });
    assert_eq!(fx, vec![Effect::Decide { key: "g/a1".into(), digest: "sha256:a1".into(), decision }]);
    assert_eq!(app.busy.as_deref(), Some("g/a1"));
}

#[test]
fn key_releases_do_nothing() {
    let mut app = loaded_app(vec![ready("a1"), ready("b2")]);
    let release = KeyEvent {
        code: KeyCode::Char('j'),
        modifiers: KeyModifiers::NONE,
        kind: KeyEventKind::Release,
        state: KeyEventState::NONE,
    };
    assert!(update(&mut app, Msg::Key(release)).is_empty());
    assert_eq!(app.selected.as_deref(), Some("g/a1"));
}

#[test]
fn warnings_and_idempotency_need_the_typed_id() {
    let mut app = loaded_app(vec![item("g", "abcdef123", Predicted::Ready, ScanMark::Warn)]);
    press(&mut app, KeyCode::Char('a'));
    assert!(matches!(app.mode, Mode::TypedConfirm { purpose: Typed::Warnings, .. }));
    for c in "abcdeX".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    assert!(press(&mut app, KeyCode::Enter).is_empty(), "wrong text does not apply");
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Char('f'));
    let fx = press(&mut app, KeyCode::Enter);
    assert!(matches!(
        &fx[..],
        [Effect::Decide {
            decision: Decision::Apply(Approval { confirm_warnings: true, override_idempotency: false, .. }),
            ..
        }]
    ));

    let mut app =
        loaded_app(vec![item("g", "keyreuse1", Predicted::Status(Status::IdempotencyConflict), ScanMark::Clean)]);
    press(&mut app, KeyCode::Char('a'));
    // Typed with Caps Lock on: the same id.
    for c in "KEYREU".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    let fx = press(&mut app, KeyCode::Enter);
    assert!(matches!(
        &fx[..],
        [Effect::Decide { decision: Decision::Apply(Approval { override_idempotency: true, .. }), .. }]
    ));
}

#[test]
fn unavailable_applies_explain_why() {
    for (p, scan, word) in [
        (Predicted::Ready, ScanMark::Block, "block findings"),
        (Predicted::Status(Status::RevisionConflict), ScanMark::Clean, "revision conflict"),
        (Predicted::Status(Status::LeaseConflict), ScanMark::Clean, "lease conflict"),
        (Predicted::Invalid, ScanMark::Clean, "invalid"),
        (Predicted::Status(Status::Failed), ScanMark::Clean, "fail"),
    ] {
        let mut app = loaded_app(vec![item("g", "x1", p, scan)]);
        assert!(press(&mut app, KeyCode::Char('a')).is_empty());
        assert_eq!(app.mode, Mode::Normal);
        assert!(app.flash.as_ref().is_some_and(|(t, _)| t.contains(word)), "{:?}", app.flash);
    }
}

#[test]
fn skip_and_reject() {
    let mut app = loaded_app(vec![ready("a1")]);
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(app.mode, Mode::ConfirmSkip("g/a1".into()));
    let fx = press(&mut app, KeyCode::Char('y'));
    assert!(matches!(&fx[..], [Effect::Decide { decision: Decision::Skip, .. }]));

    let mut app = loaded_app(vec![ready("a1")]);
    press(&mut app, KeyCode::Char('r'));
    assert!(press(&mut app, KeyCode::Enter).is_empty(), "a reason is required");
    press(&mut app, KeyCode::Char('3'));
    assert_eq!(app.mode, Mode::Reject { key: "g/a1".into(), typed: "3".into() });
    let fx = press(&mut app, KeyCode::Enter);
    assert_eq!(
        fx,
        vec![Effect::Decide {
            key: "g/a1".into(),
            digest: "sha256:a1".into(),
            decision: Decision::Reject { reason: QUICK_REASONS[2].into() }
        }]
    );

    let mut app = loaded_app(vec![ready("a1")]);
    press(&mut app, KeyCode::Char('r'));
    for c in "no 1".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    let fx = press(&mut app, KeyCode::Enter);
    assert!(
        matches!(&fx[..], [Effect::Decide { decision: Decision::Reject { reason }, .. }] if reason == "no 1"),
        "digits are text once typing started"
    );
}

#[test]
fn read_only_refuses_decisions() {
    let mut app = loaded_app(vec![ready("a1")]);
    app.read_only = true;
    for k in ['a', 's', 'r'] {
        assert!(press(&mut app, KeyCode::Char(k)).is_empty());
        assert_eq!(app.mode, Mode::Normal);
    }
}

#[test]
fn ctrl_c_waits_for_a_decision_in_flight() {
    let mut app = loaded_app(vec![ready("a1"), ready("b2")]);
    press(&mut app, KeyCode::Char('a'));
    press(&mut app, KeyCode::Char('y'));
    let ctrl_c = KeyEvent {
        code: KeyCode::Char('c'),
        modifiers: KeyModifiers::CONTROL,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    };
    assert!(update(&mut app, Msg::Key(ctrl_c)).is_empty(), "no quit while an apply is in flight");
    assert!(app.quitting);
    let out = outcome(Status::Applied, true, "written");
    let fx = update(&mut app, Msg::Decided { key: "g/a1".into(), result: Ok(out) });
    assert!(fx.contains(&Effect::Quit));
    assert_eq!(app.selected.as_deref(), Some("g/b2"), "the next item is selected");
    assert!(fx.contains(&Effect::Reload(Some(vec!["g".into()]))));
}

#[test]
fn conflict_outcomes_keep_the_item_and_say_so() {
    let mut app = loaded_app(vec![ready("a1")]);
    press(&mut app, KeyCode::Char('a'));
    press(&mut app, KeyCode::Char('y'));
    let out = crate::engine::Outcome {
        lock: Some(serde_json::json!({"holder": {"pid": 7}})),
        ..outcome(Status::LockBusy, false, "lock busy; retry")
    };
    update(&mut app, Msg::Decided { key: "g/a1".into(), result: Ok(out.clone()) });
    assert_eq!(app.selected.as_deref(), Some("g/a1"));
    assert!(matches!(&app.flash, Some((t, FlashKind::Conflict)) if t.starts_with("lock_busy")));
    // The holder is kept for the Conflict tab, which comes up; a later outcome clears it.
    assert_eq!(app.tab, Tab::Conflict);
    assert!(app.lock_busy.as_ref().is_some_and(|(k, v)| k == "g/a1" && v["holder"]["pid"] == 7));
    let again = crate::engine::Outcome { status: Status::RevisionConflict, lock: None, ..out };
    update(&mut app, Msg::Decided { key: "g/a1".into(), result: Ok(again) });
    assert!(app.lock_busy.is_none());
}

#[test]
fn arrivals_ring_and_changes_pin_the_snapshot() {
    let mut app = loaded_app(vec![ready("a1")]);
    let mut changed = ready("a1");
    changed.payload_digest = "sha256:other".into();
    let fx = update(
        &mut app,
        Msg::Loaded { full: false, quiet: false, last: true, goals: vec![(goal("g"), vec![changed, ready("n2")])] },
    );
    assert!(fx.contains(&Effect::Bell));
    assert!(app.banner.as_ref().is_some_and(|b| b.contains("changed on disk")));
    assert_eq!(
        app.current().map(|c| c.payload_digest.clone()).as_deref(),
        Some("sha256:a1"),
        "the reviewed snapshot stays"
    );
    press(&mut app, KeyCode::Char('a'));
    assert_eq!(app.mode, Mode::Normal, "no apply on a snapshot that moved");
    press(&mut app, KeyCode::Char('u'));
    assert!(app.banner.is_none());
    assert_eq!(app.current().map(|c| c.payload_digest.clone()).as_deref(), Some("sha256:other"));
}

#[test]
fn a_recomputed_item_applies_with_the_normal_key_pinned_to_the_state_it_was_shown_on() {
    let mut it = item("g", "recomp001", Predicted::Ready, ScanMark::Clean);
    let mut d = (*it.detail).clone();
    d.recomputed = Some(crate::engine::recompute::Recomputed {
        base_revision: "sha256:base".into(),
        onto: crate::loopx::hash::revision_of_text("a\n"),
        moved: vec!["todo_x added".into()],
        diff_of_diffs: String::new(),
        base_from_item: false,
    });
    it.detail = Arc::new(d);
    let mut app = loaded_app(vec![it]);
    press(&mut app, KeyCode::Char('a'));
    assert!(matches!(app.mode, Mode::ConfirmApply { .. }), "{:?}", app.mode);
    let fx = press(&mut app, KeyCode::Char('y'));
    let want = crate::loopx::hash::revision_of_text("a\n");
    assert!(
        matches!(&fx[..], [Effect::Decide { decision: Decision::Apply(Approval { on_revision: Some(r), .. }), .. }] if *r == want),
        "{fx:?}"
    );
}

#[test]
fn the_outcome_stays_on_screen_when_the_reload_selects_a_new_item() {
    // The only visible item is decided; the reload then brings other matching items.
    let mut app = loaded_app(vec![ready("a1")]);
    press(&mut app, KeyCode::Char('a'));
    press(&mut app, KeyCode::Char('y'));
    let out = outcome(Status::Applied, true, "written");
    update(&mut app, Msg::Decided { key: "g/a1".into(), result: Ok(out) });
    assert_eq!(app.selected, None);
    update(&mut app, Msg::Loaded { full: true, quiet: true, last: true, goals: vec![(goal("g"), vec![ready("b2")])] });
    assert_eq!(app.selected.as_deref(), Some("g/b2"));
    assert!(matches!(&app.flash, Some((t, FlashKind::Success)) if t.starts_with("applied")), "{:?}", app.flash);
}

pub(crate) fn leased(id: &str, reason: &str) -> QueueItem {
    let mut it = item("g", id, Predicted::Status(Status::LeaseConflict), ScanMark::Clean);
    let mut d = (*it.detail).clone();
    d.conflict = Some(serde_json::json!({"kind": "lease_conflict", "reason": reason, "todo_id": "todo_a",
        "hard_lease": {"todo_id": "todo_a", "owner": "codex-peer-b", "version": 3, "lease_epoch": 2,
            "idempotency_key": "run-7", "expires_at": "2026-11-29T13:00:00Z", "status": "active"}}));
    it.detail = Arc::new(d);
    it
}

#[test]
fn an_expired_lease_is_released_only_by_l_and_the_typed_id() {
    // A live foreign lease: L explains and opens nothing; apply says nothing is taken.
    let mut app = loaded_app(vec![leased("live0001", "foreign_holder")]);
    assert!(press(&mut app, KeyCode::Char('L')).is_empty());
    assert_eq!(app.mode, Mode::Normal);
    assert!(app.flash.as_ref().is_some_and(|(m, _)| m.contains("never released or transferred")), "{:?}", app.flash);
    press(&mut app, KeyCode::Char('a'));
    assert!(app.flash.as_ref().is_some_and(|(m, _)| m.contains("nothing is taken")), "{:?}", app.flash);
    // Expired: apply points at L; L asks for the typed id; a wrong id writes nothing.
    let mut app = loaded_app(vec![leased("gone0001", "expired")]);
    press(&mut app, KeyCode::Char('a'));
    assert!(app.flash.as_ref().is_some_and(|(m, _)| m.contains("L marks it released")), "{:?}", app.flash);
    press(&mut app, KeyCode::Char('L'));
    let Mode::TypedConfirm { purpose: Typed::ReleaseLease { todo_id, seen }, .. } = &app.mode else {
        panic!("{:?}", app.mode)
    };
    assert_eq!((todo_id.as_str(), seen.owner.as_str(), seen.version), ("todo_a", "codex-peer-b", 3));
    for c in "gone01".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    assert!(press(&mut app, KeyCode::Enter).is_empty(), "a wrong id decides nothing");
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.mode, Mode::Normal);
    press(&mut app, KeyCode::Char('L'));
    for c in "gone00".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    let fx = press(&mut app, KeyCode::Enter);
    let [Effect::Decide { decision: Decision::ReleaseExpiredLease { todo_id, seen, .. }, key, .. }] = &fx[..] else {
        panic!("{fx:?}")
    };
    assert_eq!((key.as_str(), todo_id.as_str(), seen.lease_epoch), ("g/gone0001", "todo_a", 2));
    assert_eq!(seen.idempotency_key.as_deref(), Some("run-7"));
    // The outcome is a success that keeps the item; read-only never offers it.
    update(
        &mut app,
        Msg::Decided { key: "g/gone0001".into(), result: Ok(outcome(Status::LeaseReleased, false, "released")) },
    );
    assert!(matches!(&app.flash, Some((t, FlashKind::Success)) if t.starts_with("lease_released")), "{:?}", app.flash);
    let mut app = loaded_app(vec![leased("gone0001", "expired")]);
    app.read_only = true;
    press(&mut app, KeyCode::Char('L'));
    assert_eq!(app.mode, Mode::Normal);
    assert!(app.flash.as_ref().is_some_and(|(m, _)| m.contains("read-only")));
}

#[test]
fn a_read_only_writeback_offers_only_reject_and_record_blocker() {
    let mut wb = item("g", "wb0001", Predicted::Status(Status::PreviewOnly), ScanMark::Clean);
    wb.kind = "writeback".into();
    let mut d = (*wb.detail).clone();
    d.checks = vec![
        crate::wire::Check { name: "entry.1 projection ids".into(), ok: true, detail: String::new() },
        crate::wire::Check { name: "entry.3 runtime dry run".into(), ok: false, detail: "no dry-run path".into() },
    ]
    .into_iter()
    .map(std::sync::Arc::new)
    .collect();
    wb.detail = Arc::new(d);
    let mut app = loaded_app(vec![wb]);
    press(&mut app, KeyCode::Char('a'));
    assert_eq!(app.mode, Mode::Normal);
    assert!(
        app.flash
            .as_ref()
            .is_some_and(|(m, _)| m.contains("entry.3 runtime dry run failed") && m.contains("b records")),
        "{:?}",
        app.flash
    );
    press(&mut app, KeyCode::Char('b'));
    assert_eq!(app.mode, Mode::ConfirmBlocker("g/wb0001".into()));
    assert!(press(&mut app, KeyCode::Char('n')).is_empty());
    assert_eq!(app.mode, Mode::Normal);
    press(&mut app, KeyCode::Char('b'));
    let fx = press(&mut app, KeyCode::Char('y'));
    assert!(
        matches!(&fx[..], [Effect::Decide { decision: Decision::RecordBlocker, key, .. }] if key == "g/wb0001"),
        "{fx:?}"
    );
    // Not for a write intent.
    let mut app = loaded_app(vec![ready("a1")]);
    press(&mut app, KeyCode::Char('b'));
    assert_eq!(app.mode, Mode::Normal);
    assert!(app.flash.as_ref().is_some_and(|(m, _)| m.contains("b is for a read-only writeback")));
}

#[test]
fn an_arrival_right_after_a_decision_keeps_its_outcome_readable() {
    let mut app = loaded_app(vec![ready("a1"), ready("c3")]);
    update(&mut app, Msg::Decided { key: "g/a1".into(), result: Ok(outcome(Status::Applied, true, "written")) });
    let loaded = vec![(goal("g"), vec![ready("c3"), ready("b2")])];
    update(&mut app, Msg::Loaded { full: true, quiet: false, last: true, goals: loaded });
    assert!(
        matches!(&app.flash, Some((t, FlashKind::Success)) if t.starts_with("applied") && t.ends_with("1 new item(s) arrived")),
        "{:?}",
        app.flash
    );
}

fn at_path(mut it: QueueItem, path: &str) -> QueueItem {
    let mut d = (*it.detail).clone();
    d.path = std::path::PathBuf::from(path);
    it.detail = Arc::new(d);
    it
}

#[test]
fn items_loaded_changes_only_the_items_it_names() {
    let a = at_path(ready("a"), "/in/a.json");
    let b = at_path(ready("b"), "/in/b.json");
    let mut other = ready("x");
    other.goal_id = "goal-2".into();
    other.key = "goal-2/x".into();
    let mut app = loaded_app(vec![a.clone(), b, other]);
    assert_eq!(app.items.len(), 3);
    // A new item arrives, `b` left the inbox, `a` is untouched.
    let c = at_path(ready("c"), "/in/c.json");
    let g = app.items[0].goal_id.clone();
    update(&mut app, Msg::ItemsLoaded { row: goal(&g), items: vec![c], gone: vec!["/in/b.json".into()] });
    let keys: Vec<&str> = app.items.iter().map(|i| i.key.as_str()).collect();
    assert_eq!(keys.len(), 3, "{keys:?}");
    assert!(keys.contains(&a.key.as_str()) && keys.contains(&"goal-2/x"));
    assert!(keys.iter().any(|k| k.ends_with("/c")) && !keys.iter().any(|k| k.ends_with("/b")));
    assert!(app.flash.as_ref().is_some_and(|(t, _)| t.contains("1 new item")), "{:?}", app.flash);
    // The same file read again replaces its item, never doubles it.
    let again = at_path(ready("c"), "/in/c.json");
    update(&mut app, Msg::ItemsLoaded { row: goal(&g), items: vec![again], gone: Vec::new() });
    assert_eq!(app.items.len(), 3);
    update(&mut app, Msg::GoalsGone(vec!["goal-2".into()]));
    assert!(app.items.iter().all(|i| i.goal_id != "goal-2") && app.goals.iter().all(|r| r.id != "goal-2"));
}

/// Closing the batch report keeps the summary on the status line but drops its hint about
/// the report.
#[test]
fn closing_the_batch_report_drops_its_hint_from_the_status_line() {
    let mut app = loaded_app(vec![item("g", "a", Predicted::Ready, ScanMark::Clean)]);
    app.flash = Some((
        "batch apply: 2 applied (see the report; any key closes it)".into(),
        crate::tui::app::FlashKind::Success,
    ));
    app.mode = crate::tui::app::Mode::BatchReport(Vec::new());
    press(&mut app, KeyCode::Char('x'));
    assert_eq!(app.mode, crate::tui::app::Mode::Normal);
    assert_eq!(app.flash.as_ref().map(|f| f.0.as_str()), Some("batch apply: 2 applied"));
}
