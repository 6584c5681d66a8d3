//! Apply latency as users see it (issue 15): the release TUI in a pseudo-terminal applies
//! batches of 10 `todo add`s (all proposed at their goal's base, so every one after the first
//! is recomputed on the state the one before left) in a goal without recorded decisions and
//! in a goal with 1,000 (applied narrative edits: each recorded in `results.jsonl` and each
//! keeping its revision snapshots, so `revisions/` holds about 1,000 files). The time is from
//! the `Enter` that confirms the batch to the batch report on the screen, per item. Fifteen
//! rounds of one batch per goal, the goals' order swapped in each: each goal's state grows by
//! 150 todos over the run.
//!
//! The reference, in the same run: a loop doing the durable writes one apply does (LoopX's
//! lock holder record, written and fsynced on taking the state lock and again on release, as
//! `loopx/file_lock.py` does; and `Engine::write_and_record`: the kept text, the recovery
//! marker, the state file, the result record and the item's move; 11 fsyncs in all, see
//! ARCHITECTURE.md), on the same file system, 10 times just before and 10 times just after
//! each batch: the disk's speed drifts on this shared machine (within seconds, by 2x and
//! more), and each batch is compared with the mean of the two loops around it. Small batches,
//! many of them: a stall of the disk during one batch moves one ratio of 30, not one of 6.
//!
//! `cargo bench --bench apply_pty`.

mod common;

use common::pty::{Pty, tui};
use common::{load, ms};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use writegate::engine::{Clock, Decision, Engine};
use writegate::loopx::edit::{TodoArgs, TodoOp};

const BATCH: usize = 10;
const DECIDED: usize = 1000;
const ROUNDS: usize = 15;

fn engine(reg: &Path) -> Engine {
    let loc = writegate::loopx::registry::Locator {
        registry: Some(reg.to_owned()),
        ..writegate::loopx::registry::Locator::from_env(None, None)
    };
    Engine::open(&loc, Clock::System, "bench".into()).expect("engine")
}

fn add(e: &Engine, goal: &str, text: &str) -> String {
    let op = TodoOp::TodoAdd(TodoArgs { role: Some("agent".into()), text: Some(text.into()), ..TodoArgs::default() });
    e.propose(goal, &op).expect("propose").item_id
}

/// Two goals with the demo's 2 KB state: `fresh`, and `busy` with `DECIDED` skips recorded.
fn build(root: &Path) -> PathBuf {
    let reg = writegate::demo::build(&root.join("seed"), "bench").expect("demo");
    let seed = std::fs::read_to_string(
        reg.parent().and_then(Path::parent).expect("project").join(".codex/goals/docs-goal/ACTIVE_GOAL_STATE.md"),
    )
    .expect("state");
    let project = root.join("project");
    let goals: Vec<serde_json::Value> = ["busy", "fresh"]
        .iter()
        .map(|id| {
            let dir = project.join(format!(".codex/goals/{id}"));
            std::fs::create_dir_all(&dir).expect("mkdir");
            std::fs::write(dir.join("ACTIVE_GOAL_STATE.md"), &seed).expect("state");
            serde_json::json!({"id": id, "repo": project, "state_file": format!(".codex/goals/{id}/ACTIVE_GOAL_STATE.md"),
                "coordination": {"registered_agents": ["codex-main-control"]}})
        })
        .collect();
    let registry = project.join(".loopx/registry.json");
    std::fs::create_dir_all(registry.parent().expect("dir")).expect("mkdir");
    let doc = serde_json::json!({"schema_version": 1, "common_runtime_root": root.join("runtime"), "goals": goals});
    std::fs::write(&registry, doc.to_string()).expect("registry");
    let e = engine(&registry);
    let state_file = e.goal("busy").expect("goal").state_file.clone();
    for k in 0..DECIDED {
        // A narrative edit of one line: the state keeps its size, the log and the revision
        // snapshots grow.
        let now = std::fs::read_to_string(&state_file).expect("state");
        let edited = match now.find("Bench marker") {
            Some(at) => format!("{}Bench marker {k}{}", &now[..at], &now[at + now[at..].find('\n').unwrap_or(0)..]),
            None => format!("{now}\nBench marker {k}\n"),
        };
        let id = e.propose_replace("busy", &edited, "codex-main-control", None).expect("propose").item_id;
        let out = e
            .decide(
                &id,
                // The demo's state holds lines the local policy warns on (a host, an e-mail).
                &Decision::Apply(writegate::engine::Approval { confirm_warnings: true, ..Default::default() }),
                None,
            )
            .expect("apply");
        assert_eq!(out.status, writegate::wire::Status::Applied, "{out:?}");
    }
    // The fresh goal starts from the same text.
    let busy_text = std::fs::read(&state_file).expect("state");
    std::fs::write(&e.goal("fresh").expect("goal").state_file, busy_text).expect("fresh state");
    registry
}

/// Keys that count only after the arming delay (400 ms) since the dialog and the key before.
fn armed(t: &mut Pty, bytes: &[u8]) -> Instant {
    std::thread::sleep(Duration::from_millis(450));
    t.send(bytes)
}

/// Applies the `BATCH` pending items of `goal` in one batch; the time per item.
fn batch(t: &mut Pty, goal: &str) -> Duration {
    // Ctrl-U clears what the filter held (a lone Esc followed by a key reads as Alt+key).
    t.send(b"/");
    t.send(b"\x15");
    for c in goal.chars() {
        t.send(c.to_string().as_bytes());
    }
    t.send(b"\r");
    let want = format!("queue · {BATCH} of");
    let shown = t.wait(Duration::from_secs(30), |s| s.contains(&want));
    assert!(shown.is_some(), "the queue never showed {want:?}:\n{}", t.screen());
    t.send(b"*");
    t.send(b"A");
    t.wait(Duration::from_secs(10), |s| s.contains("apply these")).expect("batch dialog");
    for c in BATCH.to_string().chars() {
        armed(t, c.to_string().as_bytes());
    }
    let sent = armed(t, b"\r");
    let done = t.wait(Duration::from_secs(300), |s| s.contains("batch report")).expect("report");
    let took = done - sent;
    let report = t.screen();
    assert!(report.contains(&format!("batch report — {BATCH} item(s)")), "{report}");
    // Any key closes the report.
    t.send(b"j");
    took / BATCH as u32
}

/// Where the reference loop writes: folders of its own beside the goal's (`raw-ref/` in the
/// state's folder and in the goal's runtime folder), so its files are allocated where the
/// apply's are (the file system places a new file near its folder) without the TUI seeing
/// them (it watches neither folder).
struct RawDirs {
    state: PathBuf,
    gate: PathBuf,
}

impl RawDirs {
    fn beside(e: &Engine, goal: &str) -> Self {
        let state = e.goal(goal).expect("goal").state_file.parent().expect("state folder").join("raw-ref");
        let gate = e.ws.goal_runtime_dir(goal).expect("runtime folder").join("raw-ref");
        for d in
            [state.clone(), gate.join("revisions"), gate.join("applying"), gate.join("inbox"), gate.join("decided")]
        {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        Self { state, gate }
    }
}

/// The durable writes of one apply in a batch (`Engine::write_and_record`), on their own:
/// the text after (the text before was kept by the apply before) in `revisions/`, the
/// write-ahead marker in `applying/` and the state in its folder, each a file written,
/// fsynced, renamed into place and its folder fsynced; the record appended to the results
/// log and fsynced; the item (dropped before the clock starts, as a proposal is) renamed
/// from `inbox/` into `decided/` with both folders fsynced; the marker removed. Around them,
/// the lock holder record rewritten and fsynced when the state lock is taken and when it is
/// released. 11 fsyncs.
fn raw_apply(dirs: &RawDirs, n: usize, state: &[u8]) {
    let sync_dir = |d: &Path| std::fs::File::open(d).and_then(|f| f.sync_all()).expect("dir fsync");
    let put = |dir: &Path, name: &str, body: &[u8]| {
        let tmp = dir.join(format!(".{name}.tmp"));
        let mut f = std::fs::File::create(&tmp).expect("create");
        f.write_all(body).expect("write");
        f.sync_all().expect("fsync");
        std::fs::rename(&tmp, dir.join(name)).expect("rename");
        sync_dir(dir);
    };
    let holder = |f: &mut std::fs::File, body: &[u8]| {
        use std::io::Seek as _;
        f.seek(std::io::SeekFrom::Start(0)).expect("seek");
        f.set_len(0).expect("truncate");
        f.write_all(body).expect("write");
        f.sync_all().expect("fsync");
    };
    let mut lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dirs.state.join("STATE.md.lock"))
        .expect("lock");
    holder(&mut lock, &[b'h'; 260]);
    put(&dirs.gate.join("revisions"), &format!("rev-after-{n}.md"), state);
    let applying = dirs.gate.join("applying");
    put(&applying, "marker.json", &[b'm'; 1500]);
    put(&dirs.state, "STATE.md", state);
    let mut log =
        std::fs::OpenOptions::new().create(true).append(true).open(dirs.gate.join("results.jsonl")).expect("log");
    log.write_all(&[b'r'; 1100]).expect("append");
    log.sync_all().expect("fsync");
    let (inbox, decided) = (dirs.gate.join("inbox"), dirs.gate.join("decided"));
    std::fs::rename(inbox.join(format!("item-{n}.json")), decided.join(format!("item-{n}.json"))).expect("move");
    sync_dir(&decided);
    sync_dir(&inbox);
    std::fs::remove_file(applying.join("marker.json")).expect("rm");
    holder(&mut lock, &[b'h'; 300]);
}

/// `BATCH` reference applies; the time per apply. The items they move are dropped first,
/// outside the timing.
fn raw_loop(dirs: &RawDirs, n: &mut usize, state: &[u8]) -> Duration {
    for k in *n..*n + BATCH {
        std::fs::write(dirs.gate.join(format!("inbox/item-{k}.json")), [b'i'; 3000]).expect("item");
    }
    let s = Instant::now();
    for _ in 0..BATCH {
        raw_apply(dirs, *n, state);
        *n += 1;
    }
    s.elapsed() / BATCH as u32
}

fn main() {
    let dir = tempfile::tempdir().expect("tmp");
    let home = dir.path().join("home");
    let t0 = Instant::now();
    let registry = build(dir.path());
    println!(
        "setup: {DECIDED} applied edits recorded in goal busy in {:.1} s; load {}",
        t0.elapsed().as_secs_f64(),
        load()
    );
    let e = engine(&registry);
    let raw_dirs = [RawDirs::beside(&e, "fresh"), RawDirs::beside(&e, "busy")];
    let mut raw_n = 0;
    // (round, ours, raw) per batch, in ms per apply.
    let mut rows: Vec<(usize, f64, f64)> = Vec::new();
    for round in 0..ROUNDS {
        for goal in ["fresh", "busy"] {
            for k in 0..BATCH {
                add(&e, goal, &format!("[P2] Round {round} proposal {k} for {goal}"));
            }
        }
        let mut t = tui(&registry, &home);
        t.wait(Duration::from_secs(60), |s| {
            s.lines().next().is_some_and(|l| l.contains(&format!("{} pending", 2 * BATCH)) && !l.contains("loading"))
        })
        .expect("loaded");
        let order = if round % 2 == 0 { ["fresh", "busy"] } else { ["busy", "fresh"] };
        for goal in order {
            let raw_dir = &raw_dirs[usize::from(goal == "busy")];
            // The loop writes texts of the goal's own size: before the batch, its state then;
            // after, its state grown by the batch's todos.
            let state_file = e.goal(goal).expect("goal").state_file.clone();
            let before = raw_loop(raw_dir, &mut raw_n, &std::fs::read(&state_file).expect("state"));
            let per = batch(&mut t, goal);
            let after = raw_loop(raw_dir, &mut raw_n, &std::fs::read(&state_file).expect("state"));
            let decided = e.log(Some(goal)).map_or(0, |l| l.len());
            let raw = f64::midpoint(ms(before), ms(after));
            rows.push((round, ms(per), raw));
            println!(
                "round {round}: goal {goal:<5} ({decided:>4} decisions recorded after): {:>6.2} ms per apply; raw durable writes {:>5.2} ms before, {:>5.2} ms after; ratio {:.2}",
                ms(per),
                ms(before),
                ms(after),
                ms(per) / raw
            );
        }
        drop(t);
    }
    report(&rows);
    println!("load at the end: {}", load());
}

/// The summary of the batches, `(round, ms per apply, raw loop ms)` each: the ratio's median
/// and spread, the ratio where the raw loop was quickest, and the growth over the run.
fn report(rows: &[(usize, f64, f64)]) {
    let mut ratios: Vec<f64> = rows.iter().map(|r| r.1 / r.2).collect();
    ratios.sort_by(f64::total_cmp);
    let q = |f: f64| ratios[((ratios.len() - 1) as f64 * f).round() as usize];
    println!(
        "ratio to the raw loop: median {:.2} (quartiles {:.2}-{:.2}, min {:.2}, max {:.2}) over {} batches",
        q(0.5),
        q(0.25),
        q(0.75),
        ratios[0],
        ratios[ratios.len() - 1],
        ratios.len()
    );
    // The apply's own work weighs most where the disk is fast: the ratio over the third of the
    // batches whose raw loop was quickest, beside the whole run's.
    let mut by_raw = rows.to_vec();
    by_raw.sort_by(|a, b| a.2.total_cmp(&b.2));
    let mut fast: Vec<f64> = by_raw[..by_raw.len() / 3].iter().map(|r| r.1 / r.2).collect();
    fast.sort_by(f64::total_cmp);
    println!(
        "the {} batches with the quickest raw loop ({:.2}-{:.2} ms): median ratio {:.2} (min {:.2}, max {:.2})",
        fast.len(),
        by_raw[0].2,
        by_raw[fast.len() - 1].2,
        fast[fast.len() / 2],
        fast[0],
        fast[fast.len() - 1]
    );
    // Growth with the state: the first three rounds against the last three (30 todos added
    // per goal in each span; 120 between their middles).
    let mean = |rounds: std::ops::Range<usize>, pick: fn(&(usize, f64, f64)) -> f64| {
        let v: Vec<f64> = rows.iter().filter(|r| rounds.contains(&r.0)).map(pick).collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let (early, late) = (0..3, ROUNDS - 3..ROUNDS);
    println!(
        "growth over {} todos per goal: apply {:.2} -> {:.2} ms, raw loop {:.2} -> {:.2} ms (means of the first and last 3 rounds)",
        (ROUNDS - 3) * BATCH,
        mean(early.clone(), |r| r.1),
        mean(late.clone(), |r| r.1),
        mean(early, |r| r.2),
        mean(late, |r| r.2)
    );
}
