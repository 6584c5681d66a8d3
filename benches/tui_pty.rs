//! The TUI as users run it (issue 15): the release binary in a pseudo-terminal
//! (portable-pty), its screen read back by a terminal emulator (vt100), on 10,990 pending
//! items over 1,002 goals (1,000 goals of 10 items but one of 1,000; a goal with a 1 MB
//! state; a goal whose item rewrites a 2 MB state into a near-disjoint 2 MB text).
//!
//! Every figure is the time from the event (spawn, key written to the terminal, file
//! renamed into an inbox) to the first screen that shows its effect:
//! - first frame (the title bar), all items checked (the title's pending count complete and
//!   `loading…` gone), RSS then (`/proc/<pid>/status`);
//! - keys reach the screen: filter characters typed while loading and after, each one shown
//!   in the key bar;
//! - an item renamed into an inbox until the pending count shows it, into a goal of 10 items
//!   and into the goal of 1,000 (paired and alternated);
//! - a new goal (registry rewritten, its state written) and its first item until it shows;
//! - the Diff tab of the 2 MB item, from the key that selects it;
//! - polling (`force_poll`, 500 ms): a rename until it shows.
//!
//! The reference, measured in the same run: `cat` in the same kind of pseudo-terminal, a key
//! until its echo is on the screen (the floor for any key → screen figure).
//!
//! `cargo bench --bench tui_pty`. Prints one line per figure and the machine load.

mod common;

use common::pty::{Pty, tui};
use common::{big_state, load, ms, near_disjoint};
use portable_pty::CommandBuilder;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const GOALS: usize = 1000;
const PER_GOAL: usize = 10;
const BIG_GOAL: usize = 1000;

/// The pending count in the title bar (` writegate N goals · M pending`).
fn pending(screen: &str) -> Option<usize> {
    let title = screen.lines().next()?;
    let before = title.split(" pending").next()?;
    before.rsplit(' ').next()?.parse().ok()
}

fn loaded(screen: &str, n: usize) -> bool {
    pending(screen) == Some(n) && !screen.lines().next().unwrap_or("").contains("loading")
}

/// The workspace; returns the registry and the number of pending items.
fn build(root: &Path) -> (PathBuf, usize) {
    let reg = writegate::demo::build(&root.join("seed"), "bench").expect("demo");
    let seed = std::fs::read_to_string(
        reg.parent().and_then(Path::parent).expect("project").join(".codex/goals/docs-goal/ACTIVE_GOAL_STATE.md"),
    )
    .expect("state");
    let project = root.join("project");
    let mut goals = Vec::new();
    for g in 0..=GOALS {
        let id = goal_id(g);
        let text = match g {
            0 => big_state(&seed),
            GOALS => near_disjoint("alpha", 2_000_000),
            _ => seed.clone(),
        };
        write_state(&project, &id, &text);
        goals.push(goal_entry(&project, &id));
    }
    let registry = project.join(".loopx/registry.json");
    write_registry(&registry, &root.join("runtime"), &goals);
    let e = engine(&registry);
    let mut total = 0;
    for g in 0..GOALS {
        let id = goal_id(g);
        let op = writegate::loopx::edit::TodoOp::TodoUpdate(writegate::loopx::edit::TodoArgs {
            todo_id: Some("todo_fa501099a20c".into()),
            note: Some(format!("bench note {g}")),
            ..Default::default()
        });
        let first = e.propose(&id, &op).expect("propose").item_id;
        let inbox = e.gate(&id).expect("gate").inbox();
        let body = std::fs::read(inbox.join(format!("{first}.json"))).expect("item");
        let n = if g == 1 { BIG_GOAL } else { PER_GOAL };
        for k in 1..n {
            std::fs::write(inbox.join(format!("{first}-copy{k}.json")), &body).expect("copy");
        }
        total += n;
    }
    e.propose_replace(&goal_id(GOALS), &near_disjoint("beta", 2_000_000), "bench", None).expect("replace");
    (registry, total + 1)
}

fn goal_id(g: usize) -> String {
    // Sorted last, so the item selected at start (whose view is built) is an ordinary one.
    if g == GOALS { "zz-bigdiff".into() } else { format!("goal-{g:04}") }
}

fn goal_entry(project: &Path, id: &str) -> serde_json::Value {
    serde_json::json!({"id": id, "repo": project, "state_file": format!(".codex/goals/{id}/ACTIVE_GOAL_STATE.md"),
        "coordination": {"registered_agents": ["codex-main-control"]}})
}

fn write_state(project: &Path, id: &str, text: &str) {
    let state = project.join(format!(".codex/goals/{id}/ACTIVE_GOAL_STATE.md"));
    std::fs::create_dir_all(state.parent().expect("dir")).expect("mkdir");
    std::fs::write(&state, text).expect("state");
}

/// Writes the registry as LoopX does: a temp file renamed over it.
fn write_registry(registry: &Path, runtime: &Path, goals: &[serde_json::Value]) {
    std::fs::create_dir_all(registry.parent().expect("dir")).expect("mkdir");
    let tmp = registry.with_extension("json.tmp");
    let doc = serde_json::json!({"schema_version": 1, "common_runtime_root": runtime, "goals": goals});
    std::fs::write(&tmp, doc.to_string()).expect("registry");
    std::fs::rename(&tmp, registry).expect("rename");
}

fn engine(reg: &Path) -> writegate::engine::Engine {
    let loc = writegate::loopx::registry::Locator {
        registry: Some(reg.to_owned()),
        ..writegate::loopx::registry::Locator::from_env(None, None)
    };
    writegate::engine::Engine::open(&loc, writegate::engine::Clock::System, "bench".into()).expect("engine")
}

/// Drops a copy of an item of `goal` into its inbox (temp file, then rename); the time of
/// the rename.
fn drop_item(registry: &Path, goal: &str, n: usize) -> Instant {
    let e = engine(registry);
    let inbox = e.gate(goal).expect("gate").inbox();
    let model = std::fs::read_dir(&inbox)
        .expect("inbox")
        .filter_map(Result::ok)
        .map(|d| d.path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("an item");
    let tmp = inbox.join(format!(".probe-{n}.tmp"));
    std::fs::write(&tmp, std::fs::read(&model).expect("item")).expect("tmp");
    std::fs::File::open(&tmp).and_then(|f| f.sync_all()).expect("sync");
    let at = Instant::now();
    std::fs::rename(&tmp, inbox.join(format!("probe-{n}.json"))).expect("rename");
    at
}

fn median_ms(mut v: Vec<Duration>) -> (f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    v.sort();
    (ms(v[v.len() / 2]), ms(*v.last().unwrap_or(&Duration::ZERO)))
}

/// Types `text` into the open filter one character at a time; each key → screen time.
fn type_filter(t: &mut Pty, text: &str) -> Vec<Duration> {
    let mut out = Vec::new();
    for (i, c) in text.char_indices() {
        let shown = format!("filter: {}▏", &text[..i + c.len_utf8()]);
        let sent = t.send(c.to_string().as_bytes());
        let Some(at) = t.wait(Duration::from_secs(10), |s| s.contains(&shown)) else {
            println!("  key {c:?} never reached the screen:\n{}", t.screen());
            return out;
        };
        out.push(at.saturating_duration_since(sent));
    }
    out
}

fn echo_floor() -> Vec<Duration> {
    let mut t = Pty::spawn(CommandBuilder::new("cat"));
    std::thread::sleep(Duration::from_millis(200));
    let mut out = Vec::new();
    for k in 0..30 {
        let c = (b'a' + (k % 26) as u8) as char;
        let want = format!("{c}{k}");
        let sent = t.send(want.as_bytes());
        if let Some(at) = t.wait(Duration::from_secs(2), |s| s.contains(&want)) {
            out.push(at.saturating_duration_since(sent));
        }
        t.send(b"\r");
    }
    out
}

fn main() {
    let dir = tempfile::tempdir().expect("tmp");
    if let Some(keep) = std::env::var_os("WG_BENCH_BUILD_ONLY") {
        // Only build the workspace (at $WG_BENCH_BUILD_ONLY), for profiling by hand.
        let (registry, total) = build(Path::new(&keep));
        println!("{total} items; registry {}", registry.display());
        return;
    }
    let home = dir.path().join("home");
    let t0 = Instant::now();
    let (registry, total) = build(dir.path());
    println!("setup: {total} items over {} goals in {:.1} s; load {}", GOALS + 1, t0.elapsed().as_secs_f64(), load());

    let floor = median_ms(echo_floor());
    println!("reference: key → screen through `cat` in a pty, median of 30: {:.2} ms (max {:.2})", floor.0, floor.1);

    let mut t = tui(&registry, &home);
    let first = t.wait(Duration::from_secs(30), |s| s.contains(" writegate ")).expect("first frame");
    println!("first frame (title bar on screen):             {:>8.1} ms", ms(first - t.started));
    // Keys while loading: open the filter and type into it at once.
    t.send(b"/");
    let during = type_filter(&mut t, "goal-00");
    let still_loading = t.screen().lines().next().unwrap_or("").contains("loading");
    t.send(b"\x1b");
    let checked = t.wait(Duration::from_secs(120), |s| loaded(s, total));
    match checked {
        Some(at) => println!("all {total} items checked (title complete):  {:>8.1} ms", ms(at - t.started)),
        None => println!("all items checked: not within 120 s; title: {:?}", t.screen().lines().next()),
    }
    let (rss, hwm) = t.memory();
    println!("memory once checked (an item of a 2 KB state selected): RSS {rss:.1} MiB, peak {hwm:.1} MiB");
    if std::env::var_os("WG_BENCH_QUICK").is_some() {
        return;
    }
    let d = median_ms(during.clone());
    println!(
        "keys while loading ({} keys, loading {} at the last): median {:.1} ms, max {:.1} ms",
        during.len(),
        if still_loading { "still" } else { "done" },
        d.0,
        d.1
    );
    t.send(b"/");
    let after = median_ms(type_filter(&mut t, "goal-0002"));
    println!(
        "keys once loaded (9 keys, 10,990 items refiltered per key): median {:.1} ms, max {:.1} ms",
        after.0, after.1
    );
    t.send(b"\x1b");
    std::thread::sleep(Duration::from_millis(300));

    // Rename → visible, into a goal of 10 items and into the goal of 1,000, alternated.
    let (mut small, mut big) = (Vec::new(), Vec::new());
    let mut shown = total;
    for k in 0..40 {
        let goal = if k % 2 == 0 { goal_id(2) } else { goal_id(1) };
        let at = drop_item(&registry, &goal, k);
        shown += 1;
        match t.wait(Duration::from_secs(20), |s| pending(s) == Some(shown)) {
            Some(seen) => {
                if k % 2 == 0 { &mut small } else { &mut big }.push(seen.saturating_duration_since(at));
            }
            None => println!("  rename {k} never shown"),
        }
    }
    let (in_small, in_big) = (median_ms(small), median_ms(big));
    println!("rename → visible, goal of 10 items, median of 20:    {:>6.1} ms (max {:.1})", in_small.0, in_small.1);
    println!("rename → visible, goal of 1,000 items, median of 20: {:>6.1} ms (max {:.1})", in_big.0, in_big.1);

    // A new goal: registered, its state written, then its first item.
    let project = dir.path().join("project");
    let runtime = dir.path().join("runtime");
    let mut entries: Vec<serde_json::Value> = (0..=GOALS).map(|g| goal_entry(&project, &goal_id(g))).collect();
    let state_text =
        std::fs::read_to_string(project.join(".codex/goals/goal-0002/ACTIVE_GOAL_STATE.md")).expect("seed");
    let mut new_goal = Vec::new();
    for k in 0..5 {
        let id = format!("new-goal-{k}");
        write_state(&project, &id, &state_text);
        entries.push(goal_entry(&project, &id));
        write_registry(&registry, &runtime, &entries);
        std::thread::sleep(Duration::from_millis(300));
        let e = engine(&registry);
        let op = writegate::loopx::edit::TodoOp::TodoAdd(writegate::loopx::edit::TodoArgs {
            role: Some("agent".into()),
            text: Some(format!("[P3] First item of {id}")),
            ..Default::default()
        });
        let at = Instant::now();
        e.propose(&id, &op).expect("propose");
        shown += 1;
        match t.wait(Duration::from_secs(30), |s| pending(s) == Some(shown)) {
            Some(seen) => new_goal.push(seen.saturating_duration_since(at)),
            None => println!("  new goal {id}: item never shown"),
        }
    }
    let f = median_ms(new_goal);
    println!("new goal's first item → visible, median of 5:  {:>6.1} ms (max {:.1})", f.0, f.1);

    // The Diff tab of the 2 MB item: filter down to it; the last key selects it.
    t.send(b"/");
    let _ = type_filter(&mut t, "bigdi");
    let sent = t.send(b"f");
    let diff = t.wait(Duration::from_secs(30), |s| s.contains("beta line 1 of the generated text"));
    match diff {
        Some(at) => {
            println!("Diff tab of a 2 MB near-disjoint rewrite, key → shown: {:>6.1} ms", ms(at - sent));
            let (rss, hwm) = t.memory();
            println!("memory with that view open: RSS {rss:.1} MiB, peak {hwm:.1} MiB");
        }
        None => println!("Diff tab of the 2 MB item: not shown within 30 s"),
    }
    drop(t);

    // Polling, 500 ms.
    std::fs::create_dir_all(home.join("config/writegate")).expect("config");
    std::fs::write(home.join("config/writegate/config.toml"), "force_poll = true\npoll_interval_ms = 500\n")
        .expect("config");
    let mut t = tui(&registry, &home);
    let total = shown;
    t.wait(Duration::from_secs(120), |s| loaded(s, total)).expect("loaded (polling)");
    let mut polled = Vec::new();
    for k in 0..6 {
        std::thread::sleep(Duration::from_millis(137 * k as u64 % 500));
        let at = drop_item(&registry, &goal_id(3), 100 + k);
        shown += 1;
        if let Some(seen) = t.wait(Duration::from_secs(60), |s| pending(s) == Some(shown)) {
            polled.push(seen.saturating_duration_since(at));
        }
    }
    let p = median_ms(polled);
    println!("polling every 500 ms, rename → visible, median of 6: {:>6.1} ms (max {:.1})", p.0, p.1);
    println!("load at the end: {}", load());
}
