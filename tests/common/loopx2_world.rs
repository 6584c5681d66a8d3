//! A scratch world for the LoopX 2.1.1 tests: HOME, TMPDIR and a project folder, with
//! `loopx` and `writegate` run in it as a new user runs them.
#![allow(dead_code)]

use super::loopx_venv::{self, Loopx};
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;
use writegate::engine::{Clock, Engine};
use writegate::loopx::registry::Locator;

/// The LoopX 2.1.1 install shared by a test binary (`None`: skipped, loudly).
pub fn loopx() -> Option<&'static Loopx> {
    static L: OnceLock<Result<Loopx, String>> = OnceLock::new();
    let lx = L.get_or_init(|| loopx_venv::install("2.1.1", "24.19.0", "WRITEGATE_LOOPX2_VENV", "loopx-2.1.1-venv"));
    loopx_venv::or_skip(lx, "2.1.1")
}

/// A scratch world as a new user has it: HOME (LoopX 2.x keeps its runtime root at
/// `~/.loopx`), TMPDIR and a project folder that is the working directory.
pub struct World {
    _dir: tempfile::TempDir,
    /// The scratch root (`home/`, `tmp/`, `project/`).
    pub root: PathBuf,
    /// The LoopX install.
    pub lx: &'static Loopx,
}

impl World {
    pub fn new(lx: &'static Loopx) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canon");
        for d in ["home", "tmp", "project"] {
            std::fs::create_dir_all(root.join(d)).expect("mkdir");
        }
        Self { _dir: dir, root, lx }
    }
    pub fn project(&self) -> PathBuf {
        self.root.join("project")
    }
    pub fn state_file(&self) -> PathBuf {
        self.project().join(".loopx/goals/demo-goal/ACTIVE_GOAL_STATE.md")
    }
    pub fn state(&self) -> String {
        std::fs::read_to_string(self.state_file()).expect("state")
    }
    pub fn env(&self, cmd: &mut Command) {
        loopx_venv::scratch_env(cmd, self.lx, &self.root);
        cmd.env("XDG_STATE_HOME", self.root.join("home/state"));
        cmd.current_dir(self.project());
    }
    /// `loopx --format json ARGS` in the project folder, as a user types it.
    pub fn loopx(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(self.lx.venv.join("bin/loopx"));
        self.env(&mut cmd);
        cmd.args(["--format", "json"]).args(args).output().expect("run loopx")
    }
    pub fn ok(&self, args: &[&str]) -> Value {
        let out = self.loopx(args);
        let v = json_of(&out);
        assert!(out.status.success() && v["ok"] != false, "loopx {args:?}: {v}");
        v
    }
    /// `writegate ARGS` in the project folder, with no flags: discovery as a user has it.
    pub fn writegate(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_writegate"));
        self.env(&mut cmd);
        cmd.args(args).output().expect("run writegate")
    }
    pub fn engine(&self) -> Engine {
        let loc = Locator {
            registry: Some(self.project().join(".loopx/registry.json")),
            cwd: self.project(),
            home: Some(self.root.join("home")),
            ..Locator::from_env(None, None)
        };
        let runner = writegate::loopx2::cli::Runner {
            program: self.lx.venv.join("bin/loopx").into(),
            env: Some(loopx_venv::scratch_vars(self.lx, &self.root)),
        };
        Engine::open(&loc, Clock::System, "interop".into()).expect("engine").with_loopx(runner)
    }
    pub fn runtime_root(&self) -> PathBuf {
        self.root.join("home/.loopx")
    }
    pub fn bootstrap(&self) {
        self.ok(&["bootstrap", "--project", ".", "--goal-id", "demo-goal", "--objective", "Ship the demo"]);
        self.ok(&[
            "register-agent",
            "--goal-id",
            "demo-goal",
            "--agent-id",
            "agent-a",
            "--agent-id",
            "agent-b",
            "--execute",
        ]);
    }
    /// `loopx todo add` of an agent todo with operation id `op`: LoopX's answer.
    pub fn add(&self, text: &str, op: &str) -> Value {
        self.ok(&["todo", "add", "--goal-id", "demo-goal", "--role", "agent", "--text", text, "--operation-id", op])
    }
    pub fn add_id(&self, text: &str, op: &str) -> String {
        self.add(text, op)["todo_id"].as_str().expect("todo_id").to_owned()
    }
}

impl Drop for World {
    fn drop(&mut self) {
        loopx_venv::stop_effect_runtimes(&self.root.join("tmp"));
    }
}

/// The JSON a command printed (panics with its output when it is not JSON).
pub fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("not JSON ({e}): {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    })
}
