//! `writegate preview` as users run it (the release binary, a whole process) on narrative
//! edits of large states, beside `git diff --no-index` on the same two texts, paired and
//! alternated in one run (issue 15: the CLI diff of the 1 MB / 1% case within 2x of git).
//!
//! Cases: a 1 MB state with 1% of its lines changed (scattered); a 2 MB state rewritten into
//! a near-disjoint 2 MB text (a blank line in three shared, every other line different).
//! `preview` does more than the diff (the workspace, every check, the boundary scan of the
//! change); the figure is the whole command.
//!
//! `cargo bench --bench diff_cli` (needs `git`; `WG_BENCH_KEEP=1` only builds the two
//! workspaces, keeps them and prints where).

mod common;

use common::{load, ms, near_disjoint};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Pairs per case: the two commands' times on this shared machine drift by tens of percent
/// within seconds, so the ratio is taken pair by pair over enough pairs to read a median.
const PAIRS: usize = 31;

fn lcg(s: &mut u64) -> u64 {
    *s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    *s >> 33
}

/// A state of about `bytes` (the demo's head, generated todos) and the same state with
/// `percent` of the todo lines edited.
fn one_percent(seed: &str, bytes: usize) -> (String, String) {
    let mut s = 7u64;
    let at = seed.find("## Next Action").unwrap_or(seed.len());
    let (mut old, mut new) = (seed[..at].to_owned(), seed[..at].to_owned());
    let mut n = 0;
    while old.len() < bytes {
        let line = format!("- [ ] [P2] Generated todo number {n} with enough words to look like a real one\n");
        old.push_str(&line);
        if lcg(&mut s).is_multiple_of(100) {
            new.push_str(&line.replace("real one", "real one, edited"));
        } else {
            new.push_str(&line);
        }
        n += 1;
    }
    old.push_str(&seed[at..]);
    new.push_str(&seed[at..]);
    (old, new)
}

/// A one-goal workspace whose state is `old` and whose one item proposes `new`; the
/// registry and the item id.
fn workspace(root: &Path, old: &str, new: &str) -> (PathBuf, String) {
    let project = root.join("project");
    let dir = project.join(".codex/goals/g");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("ACTIVE_GOAL_STATE.md"), old).expect("state");
    let registry = project.join(".loopx/registry.json");
    std::fs::create_dir_all(registry.parent().expect("dir")).expect("mkdir");
    let doc = serde_json::json!({"schema_version": 1, "common_runtime_root": root.join("runtime"), "goals": [
        {"id": "g", "repo": project, "state_file": ".codex/goals/g/ACTIVE_GOAL_STATE.md",
         "coordination": {"registered_agents": ["codex-main-control"]}}]});
    std::fs::write(&registry, doc.to_string()).expect("registry");
    let loc = writegate::loopx::registry::Locator {
        registry: Some(registry.clone()),
        ..writegate::loopx::registry::Locator::from_env(None, None)
    };
    let e = writegate::engine::Engine::open(&loc, writegate::engine::Clock::System, "bench".into()).expect("engine");
    let id = e.propose_replace("g", new, "codex-main-control", None).expect("propose").item_id;
    std::fs::write(root.join("old.md"), old).expect("old");
    std::fs::write(root.join("new.md"), new).expect("new");
    (registry, id)
}

fn timed(mut cmd: Command) -> (Duration, usize) {
    let t = Instant::now();
    let out = cmd.output().expect("run");
    let took = t.elapsed();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&out.stderr));
    (took, out.stdout.len())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn case(name: &str, old: &str, new: &str) {
    let dir = tempfile::tempdir().expect("tmp");
    let (registry, id) = workspace(dir.path(), old, new);
    if std::env::var_os("WG_BENCH_KEEP").is_some() {
        let kept = dir.keep();
        println!("{name}: kept {} (item {id})", kept.display());
        return;
    }
    let wg = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_writegate"));
        c.arg("--registry").arg(&registry).args(["preview", &id]).env("XDG_STATE_HOME", dir.path().join("state"));
        c
    };
    let git = || {
        let mut c = Command::new("git");
        c.args(["diff", "--no-index", "--no-color"]).arg(dir.path().join("old.md")).arg(dir.path().join("new.md"));
        c
    };
    let (_, wg_bytes) = timed(wg());
    let (_, git_bytes) = timed(git());
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for k in 0..PAIRS {
        if k % 2 == 0 {
            ours.push(timed(wg()).0);
            theirs.push(timed(git()).0);
        } else {
            theirs.push(timed(git()).0);
            ours.push(timed(wg()).0);
        }
    }
    let mut ratios: Vec<f64> = ours.iter().zip(&theirs).map(|(o, t)| ms(*o) / ms(*t)).collect();
    ratios.sort_by(f64::total_cmp);
    let q = |f: f64| ratios[((ratios.len() - 1) as f64 * f).round() as usize];
    let (o, t) = (ms(median(ours)), ms(median(theirs)));
    println!(
        "{name:<36} writegate preview {o:>7.1} ms ({wg_bytes} bytes out)   git diff --no-index {t:>6.1} ms ({git_bytes} bytes)   ratio of medians {:.2}",
        o / t
    );
    println!(
        "{:<36} ratio pair by pair over {PAIRS} pairs: median {:.2} (quartiles {:.2}-{:.2}, min {:.2}, max {:.2})",
        "",
        q(0.5),
        q(0.25),
        q(0.75),
        q(0.0),
        q(1.0)
    );
}

fn main() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("git is needed for the reference; skipping");
        return;
    }
    println!("load at the start: {}", load());
    let seed = include_str!("../assets/demo/docs-goal.ACTIVE_GOAL_STATE.md");
    let (old, new) = one_percent(seed, 1_000_000);
    case("1 MB state, 1% of lines edited", &old, &new);
    case("2 MB near-disjoint rewrite", &near_disjoint("alpha", 2_000_000), &near_disjoint("beta", 2_000_000));
    println!("load at the end: {}", load());
}
