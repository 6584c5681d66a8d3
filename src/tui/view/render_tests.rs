//! Render snapshots: the UI drawn into ratatui's `TestBackend` at 100×30 and 60×15 and
//! compared with insta, plus style checks where colour carries meaning.

use crate::engine::Predicted;
use crate::tui::app::tests::{item, leased, loaded_app};
use crate::tui::app::{App, DiffMode, Mode, Tab, Typed, ViewCache};
use crate::tui::model::{LeaseView, QueueItem, ScanMark};
use crate::wire::{Check, Finding, Status};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use std::sync::Arc;
use std::time::Duration;

fn fixed_now() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339("2026-11-29T14:00:00Z")
        .map(|d| d.with_timezone(&chrono::Utc))
        .unwrap_or_default()
}

fn with_texts(mut it: QueueItem, current: &str, proposed: &str) -> QueueItem {
    let mut d = (*it.detail).clone();
    d.current = Some(Arc::new(current.to_owned()));
    d.proposed = Some(crate::tui::model::ProposedText::new(Some(current), proposed));
    it.detail = Arc::new(d);
    it
}

fn with_view(mut app: App) -> App {
    app.now = fixed_now();
    if let Some(c) = app.current().cloned() {
        let proposed = c.detail.proposed_text();
        let diff = match (&c.detail.current, &proposed) {
            (Some(a), Some(b)) => crate::diff::model(a, b, 3, Duration::from_secs(5)),
            _ => crate::diff::Model::default(),
        };
        app.view = Some(ViewCache {
            key: c.key.clone(),
            diff: Arc::new(diff),
            packet: Arc::new(vec!["{".into(), "  \"proposal\": {}".into(), "}".into()]),
            plan: Arc::new(match (&c.detail.current, &proposed) {
                (Some(a), Some(b)) => crate::engine::summary::plan(a, b),
                _ => Vec::new(),
            }),
            detail: c.detail.clone(),
        });
    }
    for g in &mut app.goals {
        g.leases = vec![
            LeaseView {
                todo_id: "todo_28ff25cccdd0".into(),
                holder: "codex-peer-b".into(),
                expires_at: Some(fixed_now() + chrono::Duration::minutes(119)),
            },
            LeaseView { todo_id: "todo_cc1c01a7ef81".into(), holder: "codex-main-control".into(), expires_at: None },
        ];
    }
    app
}

fn render(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| super::draw(f, app)).expect("draw");
    t
}

const STATE: &str = "---\nstatus: active\nupdated_at: 2026-11-29T13:00:00+00:00\n---\n\n## Agent Todo\n\n- [ ] [P1] Claim, update and complete me\n  <!-- loopx:todo todo_id=todo_cc1c01a7ef81 status=open updated_at=2026-11-29T12:58:15%2B00:00 -->\n- [ ] [P2] Defer me\n  <!-- loopx:todo todo_id=todo_28ff25cccdd0 status=open -->\n\n## Next Action\n\n- ship it\n";

fn demo_app() -> App {
    let proposed = STATE.replace("updated_at: 2026-11-29T13:00:00", "updated_at: 2026-11-29T14:00:00").replace(
        "status=open updated_at=2026-11-29T12:58:15%2B00:00",
        "status=open note=halfway:%202%2F3%20done updated_at=2026-11-29T14:00:00%2B00:00",
    );
    let ready = with_texts(
        item("demo-goal", "1a2b3c4d-todo_update-20261129T135900Z", Predicted::Ready, ScanMark::Clean),
        STATE,
        &proposed,
    );
    let mut stale = item(
        "demo-goal",
        "5e6f7a8b-todo_update-20261129T135800Z",
        Predicted::Status(Status::RevisionConflict),
        ScanMark::Clean,
    );
    let mut d = (*stale.detail).clone();
    d.checks = vec![
        Check { name: "schema".into(), ok: true, detail: "local_state_write_correctness_v0, proposal todo_op".into() },
        Check {
            name: "revision".into(),
            ok: false,
            detail: "expected sha256:997532cf307c but the state is at sha256:fcb894eff63d".into(),
        },
    ]
    .into_iter()
    .map(std::sync::Arc::new)
    .collect();
    d.conflict = Some(
        serde_json::json!({"kind": "revision_conflict", "expected_revision": "sha256:997532cf307c", "current_revision": "sha256:fcb894eff63d"}),
    );
    stale.detail = Arc::new(d);
    let mut blocked = item(
        "docs-goal",
        "9c0d1e2f-todo_update-20261129T135700Z",
        Predicted::Status(Status::BoundaryRejected),
        ScanMark::Block,
    );
    let mut d = (*blocked.detail).clone();
    d.findings = vec![Finding {
        rule_id: "github_token".into(),
        category: "credentials".into(),
        severity: "block".into(),
        location: "/proposal/args/note".into(),
        sample_masked: "ghp_***2gU8".into(),
        reason: "GitHub token".into(),
        fingerprint: "github_token:0123456789abcdef".into(),
    }];
    blocked.detail = Arc::new(d);
    let mut leased = item(
        "demo-goal",
        "3a4b5c6d-todo_supersede-20261129T135600Z",
        Predicted::Status(Status::LeaseConflict),
        ScanMark::Clean,
    );
    leased.lease = Some("codex-peer-b".into());
    let invalid = item("demo-goal", "half-written", Predicted::Invalid, ScanMark::Clean);
    with_view(loaded_app(vec![ready, stale, blocked, leased, invalid]))
}

#[test]
fn main_view_100x30() {
    let app = demo_app();
    insta::assert_snapshot!(render(&app, 100, 30).backend());
}

#[test]
fn main_view_60x15() {
    let app = demo_app();
    insta::assert_snapshot!(render(&app, 60, 15).backend());
}

#[test]
fn a_loopx_2_goal_row_shows_its_tag_projection_and_ghosts_before_the_counts() {
    let mut app = demo_app();
    if let Some(g) = app.goals.first_mut() {
        g.authority = crate::loopx2::AuthorityKind::Canonical;
        g.projection = Some(crate::loopx2::Projection::Broken);
        g.ghosts = 1;
    }
    let t = render(&app, 100, 30);
    let top: String = (0..42).map(|x| t.backend().buffer()[(x, 2)].symbol().to_owned()).collect();
    assert!(top.contains("demo-goal [2.x] ✗ projection broken"), "{top}");
    let row: String = (0..42).map(|x| t.backend().buffer()[(x, 3)].symbol().to_owned()).collect();
    assert!(row.contains("L codex-peer-b (1h59m)  L codex-main-c"), "several leases drop their ids: {row}");
}

/// A ready item whose state LoopX's lock holds now reads `lock held` in the queue, not
/// `ready` over a failing lock check.
#[test]
fn a_ready_item_under_a_held_lock_says_so_in_the_queue() {
    let mut app = demo_app();
    let ready = app.items.iter_mut().find(|i| i.predicted == crate::engine::Predicted::Ready).expect("a ready item");
    let summary = ready.summary.clone();
    std::sync::Arc::make_mut(&mut ready.detail).checks.push(std::sync::Arc::new(crate::wire::Check {
        name: "lock".into(),
        ok: false,
        detail: "held by pid 7 (codex-peer-b, todo_update)".into(),
    }));
    let t = render(&app, 100, 30);
    let rows: Vec<String> =
        (0..30).map(|y| (0..100).map(|x| t.backend().buffer()[(x, y)].symbol().to_owned()).collect()).collect();
    let first = summary.chars().take(12).collect::<String>();
    let row = rows.iter().find(|r| r.contains(&first)).expect("the item's row");
    assert!(row.contains("lock held"), "{row}");
}

#[test]
fn too_small_degrades() {
    insta::assert_snapshot!(render(&demo_app(), 40, 10).backend());
}

fn select(app: &mut App, id_part: &str) {
    let key = app.items.iter().find(|i| i.key.contains(id_part)).map(|i| i.key.clone());
    app.selected = key;
    let app2 = with_view(app.clone());
    *app = app2;
}

#[test]
fn conflict_checks_tab() {
    let mut app = demo_app();
    select(&mut app, "5e6f7a8b");
    app.tab = Tab::Checks;
    insta::assert_snapshot!(render(&app, 100, 30).backend());
}

#[test]
fn blocked_scan_tab() {
    let mut app = demo_app();
    select(&mut app, "9c0d1e2f");
    app.tab = Tab::Scan;
    insta::assert_snapshot!(render(&app, 100, 30).backend());
}

#[test]
fn side_by_side_diff() {
    let mut app = demo_app();
    app.diff_mode = DiffMode::SideBySide;
    insta::assert_snapshot!(render(&app, 100, 30).backend());
}

#[test]
fn dialogs_and_help() {
    let mut app = demo_app();
    let key = app.current().map(|c| c.key.clone()).unwrap_or_default();
    app.mode = Mode::ConfirmApply { key: key.clone(), note: crate::tui::app::NoteField::default() };
    insta::assert_snapshot!("apply_dialog", render(&app, 100, 30).backend());
    app.mode = Mode::TypedConfirm {
        key: key.clone(),
        typed: "2026".into(),
        purpose: Typed::Warnings,
        note: crate::tui::app::NoteField::default(),
    };
    insta::assert_snapshot!("typed_dialog", render(&app, 100, 30).backend());
    app.mode = Mode::Reject { key: key.clone(), typed: "stale".into() };
    insta::assert_snapshot!("reject_dialog", render(&app, 60, 15).backend());
    app.mode = Mode::Help;
    insta::assert_snapshot!("help", render(&app, 100, 30).backend());
    app.read_only = true;
    app.mode = Mode::Normal;
    insta::assert_snapshot!("read_only", render(&app, 100, 30).backend());
}

#[test]
fn cjk_emoji_long_line_and_escapes() {
    let long = "x".repeat(5000);
    let current = "## Agent Todo\n\n- [ ] 每周摘要 📦 review\nkeep\n".to_owned();
    let proposed = format!(
        "## Agent Todo\n\n- [ ] 每周摘要 📦 reviewed ✅\nkeep\n{long}\n\u{1b}]0;PWNED\u{7}\u{1b}[31mred\u{202e}txt\tTAB\n"
    );
    let mut it = with_texts(item("cjk-goal", "evil\u{1b}[2Jid", Predicted::Ready, ScanMark::Warn), &current, &proposed);
    it.agent = "agent\u{1b}[31m".into();
    let mut app = with_view(loaded_app(vec![it]));
    app.flash = Some(("note \u{1b}]0;title\u{7}done".into(), crate::tui::app::FlashKind::Info));
    let t = render(&app, 100, 30);
    let text = t.backend().to_string();
    assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}') && !text.contains('\u{7}'));
    insta::assert_snapshot!(t.backend());
    app.scroll = (0, 4990);
    insta::assert_snapshot!("long_line_scrolled", render(&app, 100, 30).backend());
}

#[test]
fn colour_marks_diff_lines_and_no_color_drops_it() {
    let mut app = demo_app();
    app.color = true;
    let t = render(&app, 100, 30);
    let buf = t.backend().buffer();
    let plus = (0..buf.area.height)
        .flat_map(|y| (0..buf.area.width).map(move |x| (x, y)))
        .find(|&(x, y)| buf[(x, y)].symbol() == "+" && buf[(x.saturating_sub(1), y)].symbol() == " " && x > 50)
        .expect("a + marker");
    assert_eq!(buf[plus].fg, Color::Green);
    app.color = false;
    let t = render(&app, 100, 30);
    let buf = t.backend().buffer();
    assert!(buf.content().iter().all(|c| c.fg == Color::Reset), "NO_COLOR: no colours at all");
}

#[test]
fn conflict_tab_three_way_and_unknown_base() {
    let base = "---\nupdated_at: 1\n---\n# Goal\n\n## Agent Todos\n- [ ] [P1] Run the smoke suite\n  <!-- loopx:todo todo_id=todo_a status=open -->\n- [ ] [P2] Write the notes\n  <!-- loopx:todo todo_id=todo_b status=open -->\n";
    let current = base.replace("updated_at: 1", "updated_at: 2").replace("Run the smoke suite", "Run the full suite");
    let proposed = base
        .replace("updated_at: 1", "updated_at: 3")
        .replace("todo_a status=open", "todo_a status=open note=flaky%20on%20CI");
    let view = crate::engine::conflict::three_way(base.to_owned(), &current, Ok(proposed));
    assert_eq!(view.overlaps.len(), 1, "the todo's checkbox and its metadata line are adjacent");
    let mut c = serde_json::json!({"kind": "revision_conflict", "expected_revision": "sha256:997532cf307c11", "current_revision": "sha256:fcb894eff63d22", "base_known": true});
    crate::engine::conflict::insert_details(&view, c.as_object_mut().expect("object"));
    let mut app = demo_app();
    let key = app.items.iter().find(|i| i.item_id.starts_with("5e6f7a8b")).expect("stale").key.clone();
    for it in &mut app.items {
        if it.key == key {
            let mut d = (*it.detail).clone();
            d.conflict = Some(c.clone());
            it.detail = Arc::new(d);
        }
    }
    select(&mut app, "5e6f7a8b");
    app.tab = Tab::Conflict;
    insta::assert_snapshot!("conflict_tab_three_way", render(&app, 100, 30).backend());
    // The stale item of the demo app has no kept base: the tab says so.
    let mut app = demo_app();
    select(&mut app, "5e6f7a8b");
    app.tab = Tab::Conflict;
    let screen = format!("{:?}", render(&app, 100, 30).backend());
    assert!(screen.contains("the base is not kept"), "{screen}");
}

#[test]
fn expired_lease_conflict_tab_and_release_dialog() {
    let mut app = with_view(loaded_app(vec![leased("gone0001", "expired")]));
    app.tab = Tab::Conflict;
    let t = render(&app, 100, 30);
    let screen = format!("{:?}", t.backend());
    assert!(screen.contains("expired 1h00m ago") && screen.contains("L marks the expired lease released"), "{screen}");
    insta::assert_snapshot!("expired_lease_conflict_tab", t.backend());
    let Some((todo_id, seen)) = crate::tui::input::expired_lease(&app.items[0]) else { panic!("expired lease") };
    app.mode = Mode::TypedConfirm {
        key: "g/gone0001".into(),
        typed: "gon".into(),
        purpose: Typed::ReleaseLease { todo_id, seen },
        note: crate::tui::app::NoteField::default(),
    };
    insta::assert_snapshot!("release_lease_dialog", render(&app, 100, 30).backend());
}

#[test]
fn idempotency_and_lock_busy_conflict_tabs() {
    let mut it = item("g", "reuse0001", Predicted::Status(Status::IdempotencyConflict), ScanMark::Clean);
    let mut d = (*it.detail).clone();
    d.conflict = Some(serde_json::json!({"kind": "idempotency_conflict", "idempotency_key": "demo-goal:todo_a:update",
        "prior_item_id": "a1b2c3", "prior_effect_digest": "sha256:1111aaaa", "effect_digest": "sha256:2222bbbb",
        "prior_proposal_found": true,
        "proposal_diff": "--- a/proposal\n+++ b/proposal\n@@ -1,4 +1,4 @@\n {\n   \"op\": \"todo_update\",\n-  \"status\": \"blocked\"\n+  \"status\": \"open\"\n }\n"}));
    it.detail = Arc::new(d);
    let mut app = with_view(loaded_app(vec![it]));
    app.tab = Tab::Conflict;
    insta::assert_snapshot!("idempotency_conflict_tab", render(&app, 100, 30).backend());

    let it = item("g", "busy0001", Predicted::Ready, ScanMark::Clean);
    let mut app = with_view(loaded_app(vec![it.clone()]));
    app.lock_busy = Some((
        it.key,
        serde_json::json!({
        "holder": {"schema_version": "file_lock_holder_v0", "pid": 4242, "agent_id": "codex-peer-b", "operation": "todo_update", "acquired_at": "2026-11-29T13:59:50+00:00"},
        "incident": {"schema_version": "file_lock_incident_v0", "error_code": "lock_acquire_timeout", "waiter": {"waited_seconds": 5.003}},
        "incident_recorded": true}),
    ));
    app.tab = Tab::Conflict;
    insta::assert_snapshot!("lock_busy_conflict_tab", render(&app, 100, 30).backend());
}

#[test]
fn writeback_checks_tab_and_blocker_dialog() {
    let mut wb = item("demo-goal", "writeback-no-dry-run", Predicted::Status(Status::PreviewOnly), ScanMark::Clean);
    wb.kind = "writeback".into();
    wb.write_class = "handoff_packet_pointer".into();
    let mut d = (*wb.detail).clone();
    let check = |name: &str, ok: bool, detail: &str| Check { name: name.into(), ok, detail: detail.into() };
    d.checks = vec![
        check("schema", true, "session_runtime_controlled_writeback_v0 (dry_run), class handoff_packet_pointer"),
        check(
            "entry.1 projection ids",
            true,
            "goal demo-goal, agent codex-main-control (registered), runtime legacy_runtime, session public-safe-session-handle, source run 2026-11-29T13-03-29-00-00 + todo todo_cc1c01a7ef81",
        ),
        check(
            "entry.2 LoopX source event",
            true,
            "run 2026-11-29T13-03-29-00-00 (state_refreshed) and todo todo_cc1c01a7ef81 (open) recorded",
        ),
        check("entry.3 runtime dry run", false, "the inbox adapter for legacy_runtime has no dry-run path"),
        check(
            "entry.4 compact payload",
            true,
            "3 field(s) of handoff_packet_pointer, 115 bytes; boundary flags false; scan clean",
        ),
        check(
            "entry.5 result reporting",
            true,
            "appends to <runtime_root>/runtimes/legacy_runtime/public-safe-session-handle/metadata.jsonl",
        ),
        check("idempotency", true, "key not reflected before"),
    ].into_iter().map(std::sync::Arc::new).collect();
    wb.detail = Arc::new(d);
    let mut app = with_view(loaded_app(vec![wb]));
    app.tab = Tab::Checks;
    let t = render(&app, 100, 30);
    let screen = format!("{:?}", t.backend());
    assert!(
        screen.contains("! read-only") && screen.contains("b records a blocker") && screen.contains(" b blocker"),
        "{screen}"
    );
    insta::assert_snapshot!("writeback_checks_tab", t.backend());
    app.mode = Mode::ConfirmBlocker("demo-goal/writeback-no-dry-run".into());
    insta::assert_snapshot!("blocker_dialog", render(&app, 100, 30).backend());
}
