//! Keys and loads that must not decide or mislead (issue 12): the arming delay of
//! confirmations, offering only what can succeed, one bell per burst and notification per interval, the console's own
//! write not blamed as a moved state.

use super::tests::{goal, item, loaded_app, outcome, press, ready};
use super::*;
use crate::engine::Predicted;
use crate::tui::model::{QueueItem, ScanMark};
use ratatui::crossterm::event::{KeyCode, KeyEventState, KeyModifiers};

/// Presses `c` at `ms` after `start`, as the input thread stamps keys.
fn press_at(app: &mut App, c: char, start: std::time::Instant, ms: u64) -> Vec<Effect> {
    let key = KeyEvent {
        code: KeyCode::Char(c),
        modifiers: KeyModifiers::NONE,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    };
    update(app, Msg::TimedKey(key, start + std::time::Duration::from_millis(ms)))
}

fn decided(effects: &[Effect]) -> bool {
    effects.iter().any(|e| matches!(e, Effect::Decide { .. }))
}

#[test]
fn typed_words_and_pastes_never_decide_only_an_armed_confirmation_does() {
    // Issue 12 case 5: "okay" applied (a opens, y confirms), "say yes" skipped, a pasted "ay"
    // applied.
    let t = std::time::Instant::now();
    let mut app = loaded_app(vec![ready("a1")]);
    let okay: Vec<Effect> = [('o', 0), ('k', 110), ('a', 220), ('y', 330)]
        .iter()
        .flat_map(|&(c, ms)| press_at(&mut app, c, t, ms))
        .collect();
    assert!(!decided(&okay), "typing okay decided: {okay:?}");
    assert!(matches!(app.mode, Mode::ConfirmApply { .. }), "the dialog stays open");
    assert!(app.flash.as_ref().is_some_and(|(m, _)| m.starts_with("ignored")), "a visible hint: {:?}", app.flash);
    assert!(decided(&press_at(&mut app, 'y', t, 900)), "an armed y confirms");

    let mut app = loaded_app(vec![ready("a1")]);
    let paste: Vec<Effect> = [('a', 0), ('y', 2)].iter().flat_map(|&(c, ms)| press_at(&mut app, c, t, ms)).collect();
    assert!(!decided(&paste), "an unbracketed paste of ay decided");

    let mut app = loaded_app(vec![ready("a1")]);
    let say_yes: Vec<Effect> = [('s', 0), ('a', 120), ('y', 240), (' ', 360), ('y', 480), ('e', 600), ('s', 720)]
        .iter()
        .flat_map(|&(c, ms)| press_at(&mut app, c, t, ms))
        .collect();
    assert!(!decided(&say_yes), "typing say yes skipped");

    // A y long after the dialog opened, but inside a burst, does not count either.
    let mut app = loaded_app(vec![ready("a1")]);
    press_at(&mut app, 'a', t, 0);
    press_at(&mut app, 'x', t, 1000);
    assert!(!decided(&press_at(&mut app, 'y', t, 1010)), "a key 10 ms after another is a burst");
}

#[test]
fn only_what_can_succeed_is_offered() {
    // Issue 12 case 6: key reuse plus a stale revision got the override dialog and then
    // revision_conflict; `s` on a read-only writeback opened a dialog the engine refuses.
    let mut both = item("g", "kr0001", Predicted::Status(Status::IdempotencyConflict), ScanMark::Clean);
    let mut d = (*both.detail).clone();
    d.checks = vec![
        crate::wire::Check { name: "idempotency".into(), ok: false, detail: "key applied before".into() },
        crate::wire::Check {
            name: "revision".into(),
            ok: false,
            detail: "expected sha256:aa but the state is at sha256:bb".into(),
        },
        crate::wire::Check { name: "lock".into(), ok: true, detail: "free".into() },
    ]
    .into_iter()
    .map(std::sync::Arc::new)
    .collect();
    both.detail = Arc::new(d);
    let mut app = loaded_app(vec![both]);
    press(&mut app, KeyCode::Char('a'));
    assert_eq!(app.mode, Mode::Normal, "no override dialog for an item that would then be stale");
    assert!(app.flash.as_ref().is_some_and(|(m, _)| m.contains("revision check fails")), "{:?}", app.flash);

    let mut alone = item("g", "kr0002", Predicted::Status(Status::IdempotencyConflict), ScanMark::Clean);
    let mut d = (*alone.detail).clone();
    d.checks = vec![crate::wire::Check { name: "idempotency".into(), ok: false, detail: "key applied before".into() }]
        .into_iter()
        .map(std::sync::Arc::new)
        .collect();
    alone.detail = Arc::new(d);
    let mut app = loaded_app(vec![alone]);
    press(&mut app, KeyCode::Char('a'));
    assert!(
        matches!(app.mode, Mode::TypedConfirm { purpose: Typed::OverrideIdempotency, .. }),
        "the key reuse alone is overridable"
    );

    let mut wb = item("g", "wb0002", Predicted::Status(Status::PreviewOnly), ScanMark::Clean);
    wb.kind = "writeback".into();
    let mut d = (*wb.detail).clone();
    d.checks = vec![crate::wire::Check { name: "entry.3 runtime dry run".into(), ok: false, detail: "no".into() }]
        .into_iter()
        .map(std::sync::Arc::new)
        .collect();
    wb.detail = Arc::new(d);
    let mut app = loaded_app(vec![wb]);
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(app.mode, Mode::Normal, "no skip dialog for a read-only writeback");
    assert!(app.flash.as_ref().is_some_and(|(m, _)| m.contains("cannot be skipped")), "{:?}", app.flash);
}

#[test]
fn a_burst_of_arrivals_rings_once_and_a_half_written_file_rings_when_whole() {
    // Issue 12 case 16: 20 arrivals at once rang 20 times, a half-written file rang too.
    let mut app = loaded_app(vec![ready("a1")]);
    let load = |app: &mut App, items: Vec<QueueItem>| {
        update(app, Msg::Loaded { full: false, quiet: false, last: true, goals: vec![(goal("g"), items)] })
    };
    let burst: Vec<QueueItem> =
        std::iter::once(ready("a1")).chain((0..20).map(|n| ready(&format!("n{n:02}")))).collect();
    let rings = |fx: &[Effect]| fx.iter().filter(|e| **e == Effect::Bell).count();
    assert_eq!(rings(&load(&mut app, burst.clone())), 1, "one bell for the burst");
    assert_eq!(rings(&load(&mut app, burst.clone())), 0, "nothing new");
    let mut half = burst.clone();
    half.push(item("g", "half", Predicted::Invalid, ScanMark::Clean));
    app.now += chrono::Duration::seconds(5);
    assert_eq!(rings(&load(&mut app, half)), 0, "a half-written file does not ring");
    let mut whole = burst;
    whole.push(ready("half"));
    assert_eq!(rings(&load(&mut app, whole.clone())), 1, "it rings once it is whole");
    whole.push(ready("later"));
    assert_eq!(rings(&load(&mut app, whole)), 0, "not twice within the gap");
}

#[test]
fn the_notify_command_is_told_once_per_interval_with_counts_goals_and_age_only() {
    // Issue 12 case 16: an optional notify_command run when items start waiting.
    let mut app = loaded_app(vec![ready("a1")]);
    app.notify_gap = Some(chrono::Duration::seconds(60));
    let load = |app: &mut App, items: Vec<QueueItem>| {
        update(app, Msg::Loaded { full: false, quiet: false, last: true, goals: vec![(goal("g"), items)] })
    };
    let told = |fx: &[Effect]| {
        fx.iter().filter_map(|e| if let Effect::Notify(w) = e { Some(w.clone()) } else { None }).collect::<Vec<_>>()
    };
    let mut items: Vec<QueueItem> =
        std::iter::once(ready("a1")).chain((0..3).map(|n| ready(&format!("n{n}")))).collect();
    for it in &mut items {
        it.arrived = app.now - chrono::Duration::seconds(150);
    }
    let first = told(&load(&mut app, items.clone()));
    assert_eq!(first.len(), 1, "one notification for the burst");
    assert_eq!((first[0].count, first[0].goals.clone(), first[0].oldest_age_secs), (4, vec!["g".to_owned()], 150));
    assert_eq!(first[0].line(), "writegate: 4 items waiting (g); oldest 3 min");
    // Inside the interval a new arrival is held, and told when the interval ends.
    items.push(ready("n9"));
    app.now += chrono::Duration::seconds(10);
    assert!(told(&load(&mut app, items.clone())).is_empty(), "not within the interval");
    app.now += chrono::Duration::seconds(30);
    assert!(crate::tui::attention::due_notification(&mut app).is_none());
    app.now += chrono::Duration::seconds(30);
    let later = crate::tui::attention::due_notification(&mut app);
    assert!(matches!(&later, Some(Effect::Notify(w)) if w.count == 5), "told when the interval ends: {later:?}");
    assert!(crate::tui::attention::due_notification(&mut app).is_none(), "once");
    // Nothing new: nothing to tell; the first (quiet) load never tells.
    app.now += chrono::Duration::seconds(120);
    assert!(told(&load(&mut app, items)).is_empty());
    let mut quiet = loaded_app(vec![ready("a1")]);
    quiet.notify_gap = Some(chrono::Duration::seconds(60));
    let fx = update(
        &mut quiet,
        Msg::Loaded { full: true, quiet: true, last: true, goals: vec![(goal("g"), vec![ready("z")])] },
    );
    assert!(told(&fx).is_empty());
}

#[test]
fn a_notify_command_gets_the_summary_and_never_hangs_the_console() {
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().join("told");
    let script = format!(
        "printf '%s|%s|%s|%s' \"$1\" \"$WRITEGATE_WAITING_COUNT\" \"$WRITEGATE_WAITING_GOALS\" \"$WRITEGATE_OLDEST_AGE_SECONDS\" > {}",
        out.display()
    );
    let w = crate::tui::attention::Waiting { count: 2, goals: vec!["a".into(), "b".into()], oldest_age_secs: 42 };
    let argv = vec!["sh".to_owned(), "-c".to_owned(), script, "notify".to_owned()];
    crate::tui::attention::run_notify(&argv, &w).expect("ran");
    assert_eq!(std::fs::read_to_string(&out).expect("told"), "writegate: 2 items waiting (a, b); oldest 42 s|2|a,b|42");
    let failing = vec!["sh".to_owned(), "-c".to_owned(), "echo 'no \u{1b}[31mroute' >&2; exit 3".to_owned()];
    let err = crate::tui::attention::run_notify(&failing, &w).expect_err("non-zero");
    assert!(err.contains("exited") && !err.contains('\u{1b}'), "{err}");
    assert!(crate::tui::attention::run_notify(&["/no/such/program".to_owned()], &w).is_err());
}

#[test]
fn the_consoles_own_apply_is_not_blamed_as_a_state_that_moved() {
    // Issue 12 case 14: right after an apply, the next item came up with a banner saying the
    // state moved — writegate's own write.
    let with_state = |id: &str, text: &str| {
        let mut it = ready(id);
        let mut d = (*it.detail).clone();
        d.current = Some(Arc::new(text.to_owned()));
        it.detail = Arc::new(d);
        it
    };
    let mut app = loaded_app(vec![with_state("a1", "old\n"), with_state("a2", "old\n")]);
    press(&mut app, KeyCode::Char('j'));
    let applied = crate::loopx::hash::revision_of_text("new\n");
    let record: crate::wire::ResultRecord = serde_json::from_value(serde_json::json!({
        "schema_version": "writegate_result_v1", "recorded_at": "2026-11-29T14:00:00Z", "goal_id": "g",
        "item_id": "a1", "kind": "write_intent", "write_class": "todo_update", "writer_id": "w", "write_id": "x",
        "idempotency_key": "k", "decision": "apply", "status": "applied", "reason_code": null, "reason": null,
        "operator": "o", "expected_revision": null, "base_revision": null, "applied_revision": applied,
        "effect_digest": "e", "payload_digest": "p", "override_of_effect_digest": null, "applied_scopes": [],
        "lease_release": null, "writeback": null}))
    .expect("record");
    let out = crate::engine::Outcome { record: Some(record), ..outcome(Status::Applied, true, "written") };
    update(&mut app, Msg::Decided { key: "g/a1".into(), result: Ok(out) });
    // The watcher reloads more than once after one apply, another goal's load first.
    update(&mut app, Msg::Loaded { full: false, quiet: false, last: true, goals: vec![(goal("h"), vec![])] });
    for _ in 0..2 {
        update(
            &mut app,
            Msg::Loaded {
                full: false,
                quiet: false,
                last: true,
                goals: vec![(goal("g"), vec![with_state("a2", "new\n")])],
            },
        );
    }
    assert!(app.banner.is_none(), "{:?}", app.banner);
    update(
        &mut app,
        Msg::Loaded {
            full: false,
            quiet: false,
            last: true,
            goals: vec![(goal("g"), vec![with_state("a2", "other\n")])],
        },
    );
    assert!(app.banner.as_ref().is_some_and(|b| b.contains("state moved")), "another writer's change still warns");
}

#[test]
fn a_load_read_while_the_decision_ran_never_brings_the_decided_item_back() {
    // Tried on LoopX 2.1.1: a LoopX command takes a second; a reload read meanwhile listed
    // the item, selected it again, and the next reload blamed its departure on someone else.
    let mut app = loaded_app(vec![ready("a1")]);
    app.busy = Some("g/a1".into());
    update(&mut app, Msg::Decided { key: "g/a1".into(), result: Ok(outcome(Status::Applied, true, "applied")) });
    let load = |app: &mut App, items: Vec<QueueItem>| {
        update(app, Msg::Loaded { full: false, quiet: false, last: true, goals: vec![(goal("g"), items)] })
    };
    load(&mut app, vec![ready("a1")]);
    assert!(app.items.is_empty() && app.current().is_none(), "the stale listing is not shown again");
    load(&mut app, vec![]);
    assert_eq!(app.banner, None, "no banner for the console's own decision");
    assert!(app.just_decided.is_empty());
    load(&mut app, vec![ready("a1")]);
    assert_eq!(app.items.len(), 1, "a file of that name dropped again later is shown");
}
