//! Attacks on the recompute rule (`src/engine/recompute.rs`, issue 14) and the apply pin, written by a
//! reviewer trying to make a stale item write something nobody reviewed; each test asserts the safe
//! outcome.
mod common;
use common::{demo, engine};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use writegate::engine::{Approval, Decision, Engine};
use writegate::loopx::edit::{TodoArgs, TodoOp};
use writegate::loopx::hash::revision_of_text;
use writegate::loopx::state::ActiveState;
use writegate::tui::app::{App, Effect, Msg, update};
use writegate::wire::Status;

const G: &str = "docs-goal";
const MAIN: &str = "codex-main-control";

fn path(e: &Engine) -> std::path::PathBuf {
    e.goal(G).expect("goal").state_file.clone()
}
fn state(e: &Engine) -> String {
    std::fs::read_to_string(path(e)).expect("state")
}
fn write(e: &Engine, t: &str) {
    std::fs::write(path(e), t).expect("write");
}
/// `acc` with `line` and a newline appended.
fn with_newline(mut acc: String, line: &str) -> String {
    acc.push_str(line);
    acc.push('\n');
    acc
}
fn add(text: &str) -> TodoOp {
    TodoOp::TodoAdd(TodoArgs { role: Some("agent".into()), text: Some(text.into()), ..TodoArgs::default() })
}
fn note(todo: &str, n: &str) -> TodoOp {
    TodoOp::TodoUpdate(TodoArgs {
        todo_id: Some(todo.into()),
        agent_id: Some(MAIN.into()),
        note: Some(n.into()),
        ..TodoArgs::default()
    })
}
/// The demo's smoke-suite todo with a fixed, open metadata line.
fn fix_smoke(t: &str, extra: &str) -> String {
    t.lines()
        .map(|l| {
            if l.contains("todo_id=todo_61974865c668") {
                format!("  <!-- loopx:todo todo_id=todo_61974865c668 status=open{extra} -->\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}
fn clear(e: &Engine) {
    for item in e.items(Some(G)) {
        let _ = e.decide(&format!("{G}/{}", item.id), &Decision::Skip, None);
    }
}
fn prep(e: &Engine, id: &str) -> writegate::engine::Prepared {
    e.prepare(&e.find_item(id).expect("item"))
}
fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(
        app,
        Msg::Key(KeyEvent {
            code,
            modifiers: KeyModifiers::NONE,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }),
    )
}
fn console(e: &Engine) -> App {
    let mut app = App::new("reg".into(), false, false, false, writegate::tui::keymap::default_table());
    let goals = e.ws.goals.iter().map(|g| writegate::tui::model::load_goal(e, &g.id)).collect();
    update(&mut app, Msg::Loaded { full: true, quiet: true, last: true, goals });
    app
}

/// Finding 1: the TUI pins only items that were *shown* recomputed. An item shown fresh
/// (ready on R0) got `on_revision: None`; if the state moved before the apply, the engine
/// recomputed it on a state nobody reviewed and wrote it. Now every TUI apply is pinned to
/// the revision shown.
#[test]
fn a1_tui_apply_of_an_item_shown_fresh_is_pinned_to_what_was_shown() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    clear(&e);
    let id = e.propose(G, &add("[P4] Shown fresh")).expect("propose").item_id;
    let mut app = console(&e);
    let k = app.items.iter().find(|i| i.item_id == id).expect("queued").key.clone();
    app.selected = Some(k.clone());
    key(&mut app, KeyCode::Char('a'));
    let fx = key(&mut app, KeyCode::Char('y'));
    let [Effect::Decide { decision, .. }] = &fx[..] else { panic!("{fx:?}") };
    let Decision::Apply(a) = decision else { panic!() };
    assert_eq!(a.on_revision.as_deref().map(str::len), Some(71), "pinned to the revision shown");
    // Another writer appends to the ledger after the operator pressed y.
    write(&e, &(state(&e) + "- someone else wrote this\n"));
    let out = e.decide(&k, decision, None);
    assert!(out.is_err(), "applied on an unreviewed state: {:?}", out.map(|o| o.record.and_then(|r| r.reason_code)));
}

/// Finding 2: the pin was only checked when the item is recomputed at apply. Reviewed
/// recomputed on R1, the state goes back to the agent's base R0: it was written fresh on
/// R0, bytes different from what the operator reviewed. Now refused.
#[test]
fn a2_pin_holds_when_the_state_returns_to_the_base() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    clear(&e);
    let base = state(&e);
    let id = e.propose(G, &add("[P4] Pinned")).expect("propose").item_id;
    write(&e, &(base.clone() + "- other writer\n"));
    let p = prep(&e, &id);
    let r1 = p.recomputed.clone().expect("recomputed").onto;
    let shown = p.proposed_text.clone().expect("text");
    write(&e, &base); // someone reverts
    let dec = Decision::Apply(Approval { on_revision: Some(r1), confirm_warnings: true, ..Approval::default() });
    let out = e.decide(&id, &dec, None);
    assert!(out.is_err(), "written {:?}; bytes == preview: {}", out.map(|o| o.status), state(&e) == *shown);
}

/// Legacy (metadata-less) todos have position-derived ids: after a todo above is removed,
/// the stale update's id names the *other* identical duplicate. It is never recomputed.
#[test]
fn a3_generated_id_drift_never_moves_an_update_to_the_other_duplicate() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    clear(&e);
    let s = state(&e).replace("\n## Next Action", "- [ ] [P3] Tidy docs\n- [ ] [P3] Tidy docs\n\n## Next Action");
    write(&e, &s);
    let st = ActiveState::parse(&s);
    let dup: Vec<_> = st.todos.iter().filter(|t| t.text == "[P3] Tidy docs").collect();
    let first = dup[0].todo_id.to_string();
    let id = e.propose(G, &note(&first, "meant for the FIRST one")).expect("propose").item_id;
    // Another writer removes the smoke-suite todo (above both duplicates).
    let lines: Vec<&str> = s.lines().collect();
    let i = lines.iter().position(|l| l.contains("Run the smoke suite")).expect("line");
    let cur: String = lines
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != i && *j != i + 1)
        .map(|(_, l)| *l)
        .fold(String::new(), with_newline);
    write(&e, &cur);
    let p = prep(&e, &id);
    assert!(p.recomputed.is_none(), "recomputed onto a position-derived id");
    assert_eq!(e.decide(&id, &Decision::apply_confirmed(), None).expect("decide").status, Status::RevisionConflict);
    assert_eq!(state(&e), cur, "nothing written");
}

/// Two adds with the same text from the same base: the second deduplicates on the current
/// state and must not be recomputed into a second todo nor an update of the first.
#[test]
fn h1_two_adds_same_text() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    clear(&e);
    let a = e.propose(G, &add("[P4] Same text")).expect("a").item_id;
    let b_op = TodoOp::TodoAdd(TodoArgs {
        role: Some("agent".into()),
        text: Some("[P4] Same text".into()),
        note: Some("b's note".into()),
        ..TodoArgs::default()
    });
    let b = e.propose(G, &b_op).expect("b").item_id;
    let c = e.propose(G, &add("[P4]  Same   text")).expect("c").item_id; // same after compaction
    assert_eq!(e.decide(&a, &Decision::apply(), None).expect("a").status, Status::Applied);
    for x in [&b, &c] {
        let p = prep(&e, x);
        assert!(p.recomputed.is_none(), "{x}: {:?}", p.proposed_text);
        eprintln!("{x}: {} {:?}", p.predicted.name(), p.stale_reason);
    }
    assert_eq!(state(&e).matches("Same text").count(), 1);
}

/// An add that outranks the Next Action at the base but not on the current state (a P0 was
/// added and bound meanwhile), and one whose bound todo got claimed since.
#[test]
fn h2_add_next_action_side_effect_differs() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    clear(&e);
    let p0 = TodoOp::TodoAdd(TodoArgs {
        role: Some("agent".into()),
        text: Some("[P0] Outrank".into()),
        task_class: Some("advancement_task".into()),
        ..TodoArgs::default()
    });
    let x = e.propose(G, &p0).expect("x").item_id;
    let y_op = TodoOp::TodoAdd(TodoArgs {
        role: Some("agent".into()),
        text: Some("[P0] Other outrank".into()),
        task_class: Some("advancement_task".into()),
        ..TodoArgs::default()
    });
    let y = e.propose(G, &y_op).expect("y").item_id;
    assert!(prep(&e, &x).proposed_text.expect("t").contains("- [P0] Outrank\n<!-- loopx:next-action"));
    assert_eq!(e.decide(&y, &Decision::apply(), None).expect("y").status, Status::Applied);
    let p = prep(&e, &x);
    assert!(p.recomputed.is_none(), "NA changed since: {:?}", p.stale_reason);
}

/// A complete whose Next Action pick changes because a higher-priority todo was added since.
#[test]
fn h3_complete_next_action_pick_changes() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    clear(&e);
    write(&e, &fix_smoke(&state(&e), " task_class=advancement_task"));
    let done = TodoOp::TodoComplete(TodoArgs {
        todo_id: Some("todo_fa501099a20c".into()),
        agent_id: Some(MAIN.into()),
        evidence: Some("checked".into()),
        ..TodoArgs::default()
    });
    let c = e.propose(G, &done).expect("c").item_id;
    let at_base = prep(&e, &c).proposed_text.expect("t");
    assert!(at_base.contains("- [P1] Run the smoke suite\n<!-- loopx:next-action"), "{at_base}");
    // Other writer: a [P0] advancement todo appended by hand.
    let cur = state(&e).replace(
        "\n## Next Action",
        "- [ ] [P0] Hotfix\n  <!-- loopx:todo todo_id=todo_hotfix0000001 status=open task_class=advancement_task -->\n\n## Next Action",
    );
    write(&e, &cur);
    let p = prep(&e, &c);
    assert!(p.recomputed.is_none(), "pick changed: {:?}", p.proposed_text);
    // Lower priority added since: same pick, recomputed, hotfix kept.
    write(&e, &cur.replace("[P0] Hotfix", "[P4] Later"));
    let p = prep(&e, &c);
    assert!(p.recomputed.is_some(), "{:?}", p.stale_reason);
}

/// Refresh-state after the Next Action changed since; update after the todo was archived,
/// moved to the user section, or duplicated.
#[test]
fn h4_refresh_and_update_after_moves() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    clear(&e);
    write(&e, &fix_smoke(&state(&e), ""));
    let base = state(&e);
    let r = e
        .propose(G, &TodoOp::RefreshState(TodoArgs { next_action: Some("Do X".into()), ..TodoArgs::default() }))
        .expect("r")
        .item_id;
    let u = e.propose(G, &note("todo_61974865c668", "n")).expect("u").item_id;
    write(&e, &base.replace("- [P1] Run `loopx check`", "- [P1] Run `loopx  check`"));
    assert!(prep(&e, &r).recomputed.is_none());
    // Archived by hand.
    let block = "- [ ] [P1] Run the smoke suite\n  <!-- loopx:todo todo_id=todo_61974865c668 status=open -->\n";
    assert!(base.contains(block));
    let archived = base.replace(block, "") + "\n## Completed Work Archive\n\n" + block;
    write(&e, &archived);
    assert!(prep(&e, &u).recomputed.is_none());
    // Moved into the user section (one registered agent: user binding recomputed).
    let moved = base.replace(block, "").replace(
        "## User Todo / Owner Review Reading Queue\n",
        &format!("## User Todo / Owner Review Reading Queue\n\n{block}"),
    );
    write(&e, &moved);
    let p = prep(&e, &u);
    eprintln!("moved to user: recomputed={} {:?}", p.recomputed.is_some(), p.stale_reason);
    // Duplicated.
    write(&e, &base.replace(block, &format!("{block}{block}")));
    assert!(prep(&e, &u).recomputed.is_none());
}

/// Hand edits: CRLF, BOM, blank lines, metadata key order, heading repeated.
#[test]
fn h5_hand_edits() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    clear(&e);
    let base = state(&e);
    let u = e.propose(G, &note("todo_fa501099a20c", "n")).expect("u").item_id;
    let cases: Vec<(&str, String)> = vec![
        ("crlf+ledger", (base.clone() + "- x\n").replace('\n', "\r\n")),
        ("bom", format!("\u{feff}{base}")),
        ("blank lines", base.replace("## Progress Ledger\n", "## Progress Ledger\n\n\n\n")),
        (
            "meta reordered",
            base.replace("status=open task_class=advancement_task", "task_class=advancement_task status=open"),
        ),
        (
            "NA heading repeated before",
            base.replace("## Next Action\n", "## Next Action\n\n- copy\n\n## Next Action\n"),
        ),
        ("u2028 in ledger", base.clone() + "- a\u{2028}b\n"),
        ("trailing spaces ledger", base.clone() + "- spaced   \n"),
    ];
    for (name, cur) in cases {
        write(&e, &cur);
        let p = prep(&e, &u);
        let t = p.proposed_text.clone().unwrap_or_default();
        eprintln!(
            "{name}: {} recomputed={} reason={:?} crlf_kept={} bom_kept={} u2028_kept={}",
            p.predicted.name(),
            p.recomputed.is_some(),
            p.stale_reason,
            t.contains("\r\n"),
            t.starts_with('\u{feff}'),
            t.contains('\u{2028}')
        );
    }
}

/// An agent-crafted base_text (fake history): it hashes to expected_revision, so the agent
/// controls what "moved since" says. Does it buy anything beyond the cosmetic?
#[test]
fn h6_crafted_base_text() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    clear(&e);
    let real = state(&e);
    // Fake base: the real state plus a todo "someone removed".
    let fake = real.replace(
        "\n## Next Action",
        "- [ ] [P0] Rotate the prod keys\n  <!-- loopx:todo todo_id=todo_fakefakefake status=open task_class=advancement_task -->\n\n## Next Action",
    );
    write(&e, &fake);
    let id = e.propose(G, &add("[P4] From the fake base")).expect("p").item_id;
    // The fake base is not kept in revisions: move the item to use base_text only.
    let item = e.find_item(&id).expect("item");
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&item.path).expect("r")).expect("j");
    doc["base_text"] = fake.clone().into();
    std::fs::write(&item.path, serde_json::to_vec(&doc).expect("j")).expect("w");
    let gate = e.gate(G).expect("gate");
    let _ = std::fs::remove_dir_all(gate.revisions().dir());
    write(&e, &real);
    let p = prep(&e, &id);
    eprintln!(
        "crafted: {} moved={:?} src={:?}",
        p.predicted.name(),
        p.recomputed.as_ref().map(|r| r.moved.clone()),
        p.conflict.as_ref().map(|c| c["base_source"].clone())
    );
    if p.recomputed.is_some() {
        // What is written is LoopX's op on the real state, same as a fresh proposal.
        let fresh = writegate::loopx::edit::apply_op(
            &real,
            &add("[P4] From the fake base"),
            &writegate::loopx::edit::EditContext {
                goal_id: G.into(),
                registered_agents: e.goal(G).expect("g").registered_agents.clone(),
                now: e.clock.loopx_now(),
            },
        )
        .expect("op")
        .text;
        assert_eq!(p.proposed_text.as_deref().map(String::as_str), Some(fresh.as_str()));
    }
}

/// Panic hunt: LoopX ops and prepare on crafted base_text / hand-edited states.
#[test]
fn h7_no_panic_on_hostile_texts() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let base = state(&e);
    let pool = [
        "## Next Action",
        "## Next Action  ",
        " ## Next Action",
        "## Agent Todo",
        "## Agent Todo",
        "## Completed Work Archive",
        "- [ ] [P0] foo",
        "- [x] foo",
        "  <!-- loopx:todo todo_id=todo_fa501099a20c status=open -->",
        "  <!-- loopx:todo todo_id=todo_61974865c668 -->",
        "  <!-- loopx:todo status=done -->",
        "<!-- loopx:next-action schema=loopx_next_action_binding_v0 todo_id=todo_61974865c668 -->",
        "",
        "   ",
        "---",
        "updated_at:",
        "updated_at: x",
        "\u{2028}",
        "\u{feff}",
        "\r",
        "plain",
        "  indented",
        "- [ ] foo\u{0085}## Agent Todo",
        "\t- [ ] tab",
        "## ",
        "##",
        "# Top",
    ];
    let ops = [
        add("[P0] new"),
        note("todo_fa501099a20c", "n"),
        TodoOp::TodoClaim(TodoArgs {
            todo_id: Some("todo_61974865c668".into()),
            agent_id: Some(MAIN.into()),
            claimed_by: Some(MAIN.into()),
            ..TodoArgs::default()
        }),
        TodoOp::TodoComplete(TodoArgs {
            todo_id: Some("todo_fa501099a20c".into()),
            agent_id: Some(MAIN.into()),
            next_agent_todo: Some("succ".into()),
            ..TodoArgs::default()
        }),
        TodoOp::TodoSupersede(TodoArgs {
            todo_id: Some("todo_61974865c668".into()),
            agent_id: Some(MAIN.into()),
            next_agent_todo: Some("succ2".into()),
            ..TodoArgs::default()
        }),
        TodoOp::RefreshState(TodoArgs { next_action: Some("x".into()), ..TodoArgs::default() }),
    ];
    let ctx = writegate::loopx::edit::EditContext {
        goal_id: G.into(),
        registered_agents: vec![MAIN.into()],
        now: e.clock.loopx_now(),
    };
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for _ in 0..600 {
        let mut lines: Vec<String> = base.lines().map(str::to_owned).collect();
        for _ in 0..=rnd(6) {
            let at = rnd(lines.len() + 1);
            match rnd(3) {
                0 => lines.insert(at, pool[rnd(pool.len())].to_owned()),
                1 if at < lines.len() => {
                    lines.remove(at);
                }
                _ => {
                    let j = rnd(lines.len());
                    let l = lines[j].clone();
                    lines.insert(at, l);
                }
            }
        }
        let text = lines.join(if rnd(5) == 0 { "\r\n" } else { "\n" }) + "\n";
        for op in &ops {
            let r = std::panic::catch_unwind(|| {
                if let Ok(o) = writegate::loopx::edit::apply_op(&text, op, &ctx) {
                    let _ = writegate::engine::recompute::undo_blocks(&text, &o.text, &base);
                    let _ = writegate::engine::recompute::undo_blocks(&base, &o.text, &text);
                }
            });
            assert!(r.is_ok(), "panic on op {op:?} with text {text:?}");
        }
    }
}

/// Same byte string as the preview (fixed clock): the reviewed recomputed text is written.
#[test]
fn h8_written_bytes_equal_preview_and_pin_refuses_moved_state() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    clear(&e);
    let id = e.propose(G, &add("[P4] Bytes")).expect("p").item_id;
    write(&e, &(state(&e) + "- other\n"));
    let p = prep(&e, &id);
    let r = p.recomputed.clone().expect("rec");
    let shown = p.proposed_text.clone().expect("t");
    let before = state(&e);
    write(&e, &(before.clone() + "- third\n"));
    let pinned = Decision::Apply(Approval { on_revision: Some(r.onto.clone()), ..Approval::default() });
    assert!(e.decide(&id, &pinned, None).is_err());
    write(&e, &before);
    assert_eq!(revision_of_text(&before), r.onto);
    let out = e.decide(&id, &pinned, None).expect("apply");
    assert_eq!(out.status, Status::Applied);
    assert_eq!(state(&e), *shown);
}

/// Finding 3 (sharper): duplicates whose blocks are identical but whose *place* differs
/// (sub-headings inside the agent section). A todo above is removed by another writer; the
/// stale complete of the README todo was recomputed onto the Site todo. Now a todo without
/// an id of its own is never recomputed.
#[test]
fn a3b_generated_id_drift_never_completes_the_wrong_todo() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    clear(&e);
    let s = fix_smoke(&state(&e), "").replace(
        "\n## Next Action",
        "### README\n- [ ] [P3] Tidy docs\n  <!-- loopx:todo status=open -->\n### Site\n- [ ] [P3] Tidy docs\n  <!-- loopx:todo status=open -->\n\n## Next Action",
    );
    write(&e, &s);
    let readme =
        ActiveState::parse(&s).todos.iter().find(|t| t.text == "[P3] Tidy docs").expect("t").todo_id.to_string();
    let done = TodoOp::TodoComplete(TodoArgs {
        todo_id: Some(readme.clone()),
        agent_id: Some(MAIN.into()),
        evidence: Some("README tidied".into()),
        ..TodoArgs::default()
    });
    let id = e.propose(G, &done).expect("propose").item_id;
    // Another writer deletes the smoke-suite todo (two lines above both).
    let cur: String = s
        .lines()
        .filter(|l| !l.contains("Run the smoke suite") && !l.contains("todo_61974865c668"))
        .fold(String::new(), with_newline);
    write(&e, &cur);
    let p = prep(&e, &id);
    assert_eq!(p.predicted.name(), "revision_conflict");
    assert!(p.stale_reason.as_deref().is_some_and(|w| w.contains("no todo_id of its own")), "{:?}", p.stale_reason);
    assert_eq!(e.decide(&id, &Decision::apply_confirmed(), None).expect("decide").status, Status::RevisionConflict);
    assert_eq!(state(&e), cur, "nothing written");
}
