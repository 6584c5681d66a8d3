//! `writegate status --json` and `list --json` as users run them (the release binary, a
//! whole process) over 1,000 and 10,000 goals, each beside a Python reference that reads and
//! parses the same files (the registry, every state file, every results log and pending
//! item) in the same run, paired and alternated (A B, then B A, …). Issue 15: linear in goals
//! (≤ 11x the time for 10x the goals). Prints the medians, writegate's time per goal, the
//! ratio to the reference and the growth from 1,000 to 10,000, with the machine load.
//!
//! Each goal has the demo's docs-goal state (2 KB) and one pending `todo add`.
//!
//! Then one goal whose state is 60 MiB (350,000 generated todos with metadata): `status
//! --json` beside the same reference, paired, and the peak RSS of each (the largest child
//! resident set, read by a Python wrapper with `getrusage(RUSAGE_CHILDREN)`). Issue 15:
//! `status` ≤ 2 s, memory ≤ 4x the file.
//!
//! `cargo bench --bench scale` (needs `python3`; `WG_BENCH_KEEP=1` keeps the workspaces).

mod common;

use common::{load, state_of_size};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const PAIRS: usize = 5;

/// What the reference reads: the same files writegate reads for `status`, parsed.
const REFERENCE: &str = r#"
import json, os, sys
reg = sys.argv[1]
doc = json.load(open(reg))
root = os.path.dirname(os.path.dirname(reg))
runtime = doc["common_runtime_root"]
rows = []
for g in doc["goals"]:
    text = open(os.path.join(g["repo"], g["state_file"]), encoding="utf-8").read()
    lines = text.splitlines()
    gate = os.path.join(runtime, "goals", g["id"], "gate")
    results = []
    try:
        results = [json.loads(l) for l in open(os.path.join(gate, "results.jsonl")) if l.strip()]
    except FileNotFoundError:
        pass
    inbox = os.path.join(gate, "inbox")
    items = [json.load(open(os.path.join(inbox, n))) for n in sorted(os.listdir(inbox)) if n.endswith(".json")]
    rows.append({"goal_id": g["id"], "lines": len(lines), "open": sum(1 for l in lines if l.startswith("- [ ]")),
                 "results": len(results), "pending": len(items)})
json.dump({"items": rows}, sys.stdout)
"#;

fn timed(mut cmd: Command) -> Duration {
    let t = Instant::now();
    let out = cmd.output().expect("run");
    let took = t.elapsed();
    assert!(out.status.success() || out.status.code() == Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    took
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs a command and prints the largest resident set of its children in KiB (Linux
/// `ru_maxrss`).
const PEAK_RSS: &str = r"
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
";

/// The peak RSS of `cmd`'s process, in MiB.
fn peak_rss_mib(cmd: &Command) -> f64 {
    let mut c = Command::new("python3");
    c.args(["-c", PEAK_RSS]).arg(cmd.get_program()).args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            c.env(k, v);
        }
    }
    let out = c.output().expect("python3");
    String::from_utf8_lossy(&out.stdout).trim().parse::<f64>().unwrap_or(f64::NAN) / 1024.0
}

/// A workspace of `n` goals under `root`, built with the engine's own `propose`.
fn workspace(root: &Path, n: usize) -> PathBuf {
    let state = include_str!("../assets/demo/docs-goal.ACTIVE_GOAL_STATE.md");
    workspace_with(root, n, state)
}

/// [`workspace`] with `state` as every goal's state.
fn workspace_with(root: &Path, n: usize, state: &str) -> PathBuf {
    let project = root.join("project");
    let runtime = root.join("runtime");
    let goals: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let id = format!("goal-{i:05}");
            let dir = project.join(format!(".codex/goals/{id}"));
            std::fs::create_dir_all(&dir).expect("mkdir");
            std::fs::write(dir.join("ACTIVE_GOAL_STATE.md"), state).expect("state");
            serde_json::json!({"id": id, "domain": "bench", "status": "active", "repo": project,
                "state_file": format!(".codex/goals/{id}/ACTIVE_GOAL_STATE.md"),
                "adapter": {"kind": "generic_project_goal_v0", "status": "connected"}, "authority_sources": [],
                "coordination": {"registered_agents": ["codex-main-control"], "agent_model": "peer_v1"}})
        })
        .collect();
    let registry = project.join(".loopx/registry.json");
    std::fs::create_dir_all(registry.parent().expect("parent")).expect("mkdir");
    let doc = serde_json::json!({"schema_version": "0.1", "updated_at": "2026-12-01", "common_runtime_root": runtime,
        "goals": goals});
    std::fs::write(&registry, serde_json::to_vec_pretty(&doc).expect("json")).expect("registry");
    let loc = writegate::loopx::registry::Locator {
        registry: Some(registry.clone()),
        ..writegate::loopx::registry::Locator::from_env(None, None)
    };
    let engine =
        writegate::engine::Engine::open(&loc, writegate::engine::Clock::System, "bench".into()).expect("engine");
    for i in 0..n {
        let op = writegate::loopx::edit::TodoOp::TodoAdd(writegate::loopx::edit::TodoArgs {
            role: Some("agent".into()),
            text: Some(format!("[P3] Bench item for goal {i}")),
            ..Default::default()
        });
        engine.propose(&format!("goal-{i:05}"), &op).expect("propose");
    }
    registry
}

fn writegate(registry: &Path, args: &[&str], state: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_writegate"));
    c.arg("--registry").arg(registry).args(args).env("XDG_STATE_HOME", state);
    c
}

fn reference(registry: &Path) -> Command {
    let mut c = Command::new("python3");
    c.args(["-c", REFERENCE]).arg(registry);
    c
}

/// (writegate median, reference median) for `args` over the workspace at `registry`.
fn measure(registry: &Path, args: &[&str], state: &Path) -> (Duration, Duration) {
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let wg = || writegate(registry, args, state);
    let py = || reference(registry);
    timed(wg());
    timed(py());
    for k in 0..PAIRS {
        if k % 2 == 0 {
            ours.push(timed(wg()));
            theirs.push(timed(py()));
        } else {
            theirs.push(timed(py()));
            ours.push(timed(wg()));
        }
    }
    (median(&mut ours), median(&mut theirs))
}

fn main() {
    if Command::new("python3").arg("-V").output().is_err() {
        eprintln!("python3 is needed for the reference; skipping");
        return;
    }
    let dir = std::env::temp_dir().join(format!("writegate-bench-scale-{}", std::process::id()));
    let sizes = [1_000usize, 10_000];
    let mut rows: Vec<(usize, &str, Duration, Duration)> = Vec::new();
    for &n in &sizes {
        let t = Instant::now();
        let registry = workspace(&dir.join(n.to_string()), n);
        println!("setup: {n} goals, one pending item each, in {:.1} s", t.elapsed().as_secs_f64());
        for (name, args) in [("status --json", &["status", "--json"][..]), ("list --json", &["list", "--json"][..])] {
            let (ours, theirs) = measure(&registry, args, &dir.join("state"));
            println!(
                "{n:>6} goals  writegate {name:<14} {:>8.1} ms ({:.3} ms/goal)   python reads the same {:>8.1} ms   ratio {:.2}   load {}",
                ours.as_secs_f64() * 1000.0,
                ours.as_secs_f64() * 1000.0 / n as f64,
                theirs.as_secs_f64() * 1000.0,
                ours.as_secs_f64() / theirs.as_secs_f64(),
                load()
            );
            rows.push((n, name, ours, theirs));
        }
    }
    for name in ["status --json", "list --json"] {
        let at = |n: usize| rows.iter().find(|r| r.0 == n && r.1 == name).map(|r| (r.2, r.3));
        if let (Some((a, ra)), Some((b, rb))) = (at(sizes[0]), at(sizes[1])) {
            println!(
                "growth 1,000 → 10,000 goals, {name}: writegate {:.1}x, python {:.1}x (target ≤ 11x)",
                b.as_secs_f64() / a.as_secs_f64(),
                rb.as_secs_f64() / ra.as_secs_f64()
            );
        }
    }
    big_state_case(&dir.join("big"), &dir.join("state"));
    if std::env::var_os("WG_BENCH_KEEP").is_some() {
        println!("kept {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// One goal with a 60 MiB state: `status --json` time and peak RSS beside the reference's.
fn big_state_case(root: &Path, state_home: &Path) {
    let seed = include_str!("../assets/demo/docs-goal.ACTIVE_GOAL_STATE.md");
    let registry = workspace_with(root, 1, &state_of_size(seed, 60 << 20));
    let file = std::fs::metadata(root.join("project/.codex/goals/goal-00000/ACTIVE_GOAL_STATE.md")).expect("state");
    let mib = file.len() as f64 / f64::from(1u32 << 20);
    let (ours, theirs) = measure(&registry, &["status", "--json"], state_home);
    let rss = peak_rss_mib(&writegate(&registry, &["status", "--json"], state_home));
    let rss_ref = peak_rss_mib(&reference(&registry));
    println!(
        "{mib:.1} MiB state  writegate status --json {:>7.1} ms, peak RSS {rss:.1} MiB ({:.2}x the file)   python reads the same {:>7.1} ms, {rss_ref:.1} MiB   ratio {:.2}   load {}",
        ours.as_secs_f64() * 1000.0,
        rss / mib,
        theirs.as_secs_f64() * 1000.0,
        ours.as_secs_f64() / theirs.as_secs_f64(),
        load()
    );
}
