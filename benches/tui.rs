//! TUI performance targets (issue 3), measured in release mode:
//! `cargo bench --bench tui` — 10,000 pending items over 1,000 goals: first frame, first
//! frame with the queue filled, a frame; the view (diff + packet) of an item whose state is
//! 1 MB; and the latency from an inbox rename to the queue model holding the new item.
//! Prints one line per figure; nothing is asserted (figures are written down in the README).

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use writegate::engine::{Clock, Engine};
use writegate::loopx::edit::{TodoArgs, TodoOp};
use writegate::loopx::registry::Locator;
use writegate::tui::app::{self, App, Msg};
use writegate::tui::{keymap, model, view};

const GOALS: usize = 1000;
const PER_GOAL: usize = 10;

fn build(root: &Path) -> std::path::PathBuf {
    let reg = writegate::demo::build(&root.join("seed"), "bench").expect("demo");
    let seed_state = std::fs::read_to_string(
        reg.parent().and_then(Path::parent).expect("project").join(".codex/goals/docs-goal/ACTIVE_GOAL_STATE.md"),
    )
    .expect("state");
    let project = root.join("project");
    let runtime = root.join("runtime");
    let mut goals = Vec::new();
    for g in 0..GOALS {
        let id = format!("goal-{g:04}");
        let state = project.join(format!(".codex/goals/{id}/ACTIVE_GOAL_STATE.md"));
        std::fs::create_dir_all(state.parent().expect("dir")).expect("mkdir");
        let text = if g == 0 { big_state(&seed_state) } else { seed_state.clone() };
        std::fs::write(&state, text).expect("state");
        goals.push(serde_json::json!({"id": id, "repo": project, "state_file": format!(".codex/goals/{id}/ACTIVE_GOAL_STATE.md"),
            "coordination": {"registered_agents": ["codex-main-control"]}}));
    }
    let registry = project.join(".loopx/registry.json");
    std::fs::create_dir_all(registry.parent().expect("dir")).expect("mkdir");
    std::fs::write(
        &registry,
        serde_json::json!({"schema_version": 1, "common_runtime_root": runtime, "goals": goals}).to_string(),
    )
    .expect("registry");
    let e = engine(&registry);
    for g in 0..GOALS {
        let id = format!("goal-{g:04}");
        let op = TodoOp::TodoUpdate(TodoArgs {
            todo_id: Some("todo_fa501099a20c".into()),
            note: Some(format!("bench note {g}")),
            ..TodoArgs::default()
        });
        let first = e.propose(&id, &op).expect("propose").item_id;
        let inbox = e.gate(&id).expect("gate").inbox();
        let body = std::fs::read(inbox.join(format!("{first}.json"))).expect("item");
        for k in 1..PER_GOAL {
            std::fs::write(inbox.join(format!("{first}-copy{k}.json")), &body).expect("copy");
        }
    }
    registry
}

fn engine(reg: &Path) -> Engine {
    let loc = Locator { registry: Some(reg.to_owned()), ..Locator::from_env(None, None) };
    Engine::open(&loc, Clock::System, "bench".into()).expect("engine")
}

fn draw(t: &mut Terminal<TestBackend>, app: &App) -> Duration {
    let s = Instant::now();
    t.draw(|f| view::draw(f, app)).expect("draw");
    s.elapsed()
}

mod common;
use common::{big_state, median};

fn main() {
    let dir = tempfile::tempdir().expect("tmp");
    let t0 = Instant::now();
    let reg = build(dir.path());
    eprintln!("setup: {GOALS} goals × {PER_GOAL} items in {:.1} s", t0.elapsed().as_secs_f64());

    let mut term = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
    // First frame: the engine opened and the UI drawn (queue still loading).
    let start = Instant::now();
    let e = Arc::new(engine(&reg));
    let mut app = App::new(reg.display().to_string(), false, true, false, keymap::default_table());
    draw(&mut term, &app);
    println!("first frame (workspace opened, loading):  {:>8.1} ms", start.elapsed().as_secs_f64() * 1000.0);
    // First filled frame: the loader's first batch (pass 1, as the TUI sends it), then a draw.
    let batch: Vec<_> = e.ws.goals.iter().take(model::FIRST_BATCH).map(|g| model::quick_goal(&e, &g.id)).collect();
    app::update(&mut app, Msg::Loaded { full: true, quiet: true, last: false, goals: batch });
    draw(&mut term, &app);
    let ms = |s: Instant| s.elapsed().as_secs_f64() * 1000.0;
    println!("first frame with the queue filled:         {:>8.1} ms ({} items listed)", ms(start), app.items.len());
    let rest: Vec<_> = e.ws.goals.iter().skip(model::FIRST_BATCH).map(|g| model::quick_goal(&e, &g.id)).collect();
    app::update(&mut app, Msg::Loaded { full: false, quiet: true, last: false, goals: rest });
    draw(&mut term, &app);
    println!("all {} items listed:                   {:>8.1} ms", app.items.len(), ms(start));
    let checked: Vec<_> = e.ws.goals.iter().map(|g| model::load_goal(&e, &g.id)).collect();
    app::update(&mut app, Msg::Loaded { full: false, quiet: true, last: true, goals: checked });
    println!("all {} items checked:                  {:>8.1} ms", app.items.len(), ms(start));

    // Frame time with 10,000 items, selection in the middle.
    for _ in 0..(app.items.len() / 2) {
        app::update(&mut app, Msg::Key(key('j')));
    }
    let frames: Vec<Duration> = (0..200).map(|_| draw(&mut term, &app)).collect();
    println!(
        "frame (10,000 items), median of 200:       {:>8.2} ms (max {:.2} ms)",
        median(frames.clone()).as_secs_f64() * 1000.0,
        frames.iter().max().copied().unwrap_or_default().as_secs_f64() * 1000.0
    );

    // Selecting an item whose state is 1 MB: the view cache (diff + packet), then a frame.
    let big = app.items.iter().find(|i| i.goal_id == "goal-0000").cloned().expect("big item");
    let size = big.detail.current.as_ref().map_or(0, |t| t.len());
    let runs: Vec<Duration> = (0..20)
        .map(|_| {
            let s = Instant::now();
            let cache = writegate::tui::build_view(big.key.clone(), big.detail.clone());
            app::update(&mut app, Msg::ViewReady(cache));
            s.elapsed()
        })
        .collect();
    println!(
        "diff view of a {:.2} MB state, median of 20: {:>6.1} ms",
        size as f64 / 1e6,
        median(runs).as_secs_f64() * 1000.0
    );

    // Inbox latency: rename into an inbox → watcher message → goal reloaded into the model.
    let goal = "goal-0500";
    let inbox = e.gate(goal).expect("gate").inbox();
    let sample = std::fs::read_dir(&inbox).expect("inbox").find_map(Result::ok).expect("item").path();
    let body = std::fs::read(&sample).expect("item");
    let (tx, rx) = std::sync::mpsc::channel();
    let _w = writegate::watch::start(&writegate::watch::watch_dirs(&e), Duration::from_millis(500), false, &tx);
    let _ = rx.recv_timeout(Duration::from_secs(2));
    let mut lat = Vec::new();
    for k in 0..30 {
        let tmp = inbox.join(format!(".drop{k}.tmp"));
        std::fs::write(&tmp, &body).expect("tmp");
        let name = format!("zz-drop-{k}");
        let s = Instant::now();
        std::fs::rename(&tmp, inbox.join(format!("{name}.json"))).expect("rename");
        loop {
            match rx.recv_timeout(Duration::from_secs(2)) {
                Ok(writegate::watch::WatchMsg::Changed(p)) if p.iter().any(|p| p.to_string_lossy().contains(&name)) => {
                    break;
                }
                Ok(_) => {}
                Err(e) => panic!("no watch event: {e}"),
            }
        }
        let loaded = model::load_goal(&e, goal);
        app::update(&mut app, Msg::Loaded { full: false, quiet: false, last: true, goals: vec![loaded] });
        assert!(app.items.iter().any(|i| i.item_id == name));
        lat.push(s.elapsed());
    }
    println!(
        "inbox rename → model update, median of 30: {:>7.1} ms (max {:.1} ms)",
        median(lat.clone()).as_secs_f64() * 1000.0,
        lat.iter().max().copied().unwrap_or_default().as_secs_f64() * 1000.0
    );
}

fn key(c: char) -> ratatui::crossterm::event::KeyEvent {
    ratatui::crossterm::event::KeyEvent::new(
        ratatui::crossterm::event::KeyCode::Char(c),
        ratatui::crossterm::event::KeyModifiers::NONE,
    )
}
