//! Interop with the real LoopX 0.5.4 CLI (PyPI), installed by the test itself into a
//! virtualenv (FORMATS.md §0); skipped with a loud message only when the package registry
//! cannot be reached. Set `WRITEGATE_LOOPX_VENV` to reuse an existing virtualenv.
//!
//! (a) writegate's parse agrees with `loopx todo list`; (b) for add / update / claim /
//! complete / supersede / archive-completed / refresh-state, `writegate propose` gives the
//! packet LoopX's dry run prints, and writegate's apply writes the bytes the real command
//! writes (timestamps aside); (c) the lock protocol interoperates both ways.

mod common;
use regex::Regex;
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use writegate::engine::{Approval, Clock, Decision, Engine};
use writegate::loopx::registry::Locator;
use writegate::loopx::state::ActiveState;
use writegate::wire::Status;

use common::loopx_venv::{self, Loopx};

fn loopx() -> Option<&'static Loopx> {
    static L: OnceLock<Result<Loopx, String>> = OnceLock::new();
    loopx_venv::or_skip(
        L.get_or_init(|| loopx_venv::install("0.5.4", "22.20.0", "WRITEGATE_LOOPX_VENV", "loopx-0.5.4-venv")),
        "0.5.4",
    )
}

/// One scratch LoopX world: HOME, TMPDIR, project, runtime root.
struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    lx: &'static Loopx,
}

impl World {
    fn new(lx: &'static Loopx) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canon");
        for d in ["home", "tmp", "project", "runtime"] {
            std::fs::create_dir_all(root.join(d)).expect("mkdir");
        }
        Self { _dir: dir, root, lx }
    }
    fn project(&self) -> PathBuf {
        self.root.join("project")
    }
    fn registry(&self) -> PathBuf {
        self.project().join(".loopx/registry.json")
    }
    fn state_file(&self) -> PathBuf {
        self.project().join(".codex/goals/demo-goal/ACTIVE_GOAL_STATE.md")
    }
    fn env(&self, cmd: &mut Command) {
        loopx_venv::scratch_env(cmd, self.lx, &self.root);
        cmd.current_dir(self.project());
    }
    /// Runs `loopx --registry R --runtime-root RT --format json ARGS`.
    fn loopx(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(self.lx.venv.join("bin/loopx"));
        self.env(&mut cmd);
        let rt = self.root.join("runtime");
        let mut full: Vec<String> = Vec::new();
        if self.registry().exists() {
            full.extend(["--registry".into(), self.registry().display().to_string()]);
        }
        full.extend(["--runtime-root".into(), rt.display().to_string(), "--format".into(), "json".into()]);
        full.extend(args.iter().map(|s| (*s).to_owned()));
        cmd.args(&full).output().expect("run loopx")
    }
    /// `loopx task-lease VERB --goal-id demo-goal --todo-id TODO --owner OWNER
    /// --idempotency-key KEY EXTRA…`.
    fn task_lease(&self, verb: &str, todo: &str, owner: &str, key: &str, extra: &[&str]) -> Output {
        let mut args = vec![
            "task-lease",
            verb,
            "--goal-id",
            "demo-goal",
            "--todo-id",
            todo,
            "--owner",
            owner,
            "--idempotency-key",
            key,
        ];
        args.extend_from_slice(extra);
        self.loopx(&args)
    }
    fn writegate(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_writegate"));
        self.env(&mut cmd);
        cmd.env("XDG_STATE_HOME", self.root.join("home/state"));
        cmd.arg("--registry").arg(self.registry()).args(args).output().expect("run writegate")
    }
    fn engine(&self) -> Engine {
        let loc = Locator { registry: Some(self.registry()), ..Locator::from_env(None, None) };
        Engine::open(&loc, Clock::System, "interop".into()).expect("engine")
    }
    fn bootstrap(&self) {
        let out = self.loopx(&[
            "bootstrap",
            "--project",
            ".",
            "--goal-id",
            "demo-goal",
            "--objective",
            "Ship the demo smoke suite",
            "--no-onboarding-scan",
        ]);
        assert!(out.status.success(), "bootstrap: {}", String::from_utf8_lossy(&out.stderr));
        let out = self.loopx(&[
            "register-agent",
            "--goal-id",
            "demo-goal",
            "--agent-id",
            "codex-main-control",
            "--agent-id",
            "codex-peer-b",
            "--execute",
        ]);
        assert!(out.status.success(), "register-agent: {}", String::from_utf8_lossy(&out.stderr));
    }
}

impl Drop for World {
    fn drop(&mut self) {
        loopx_venv::stop_effect_runtimes(&self.root.join("tmp"));
    }
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("not JSON ({e}): {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    })
}

fn normalize_times(text: &str) -> String {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\+|%2B|-)\d{2}:\d{2}").expect("re"))
        .replace_all(text, "<ts>")
        .into_owned()
}

/// Runs one LoopX command both ways from the same state and compares packet and bytes.
fn compare(w: &World, args: &[&str]) {
    let label = args.join(" ");
    let before = std::fs::read(w.state_file()).expect("state");
    let has_packet = matches!(args, ["todo", "add" | "update" | "claim", ..] | ["refresh-state", ..]);
    let loopx_packet = has_packet.then(|| {
        let mut dry: Vec<&str> = args.to_vec();
        dry.push("--dry-run");
        let lx = json_of(&w.loopx(&dry));
        assert_eq!(std::fs::read(w.state_file()).expect("state"), before, "{label}: LoopX dry run wrote");
        lx["local_state_write_correctness"].clone()
    });
    let mut prop = vec!["propose"];
    prop.extend_from_slice(args);
    let out = w.writegate(&prop);
    assert!(
        out.status.success(),
        "{label}: propose failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let e = w.engine();
    if let Some(expected) = loopx_packet {
        let item = e.find_item(&id).expect("item");
        let doc: Value = serde_json::from_slice(&std::fs::read(&item.path).expect("item")).expect("json");
        assert_eq!(doc["local_state_write_correctness"], expected, "{label}: packet differs from LoopX's dry run");
    }
    apply_and_compare(w, &e, &id, args, &before, &label);
}

fn apply_and_compare(w: &World, e: &Engine, id: &str, args: &[&str], before: &[u8], label: &str) {
    let mut out = e.decide(id, &Decision::apply_confirmed(), None).expect("decide");
    if out.status == Status::IdempotencyConflict {
        // LoopX 0.5.4 gives different updates of one todo the same key (FORMATS.md §0.3).
        out = e
            .decide(
                id,
                &Decision::Apply(Approval {
                    confirm_warnings: true,
                    override_idempotency: true,
                    ..Approval::default()
                }),
                None,
            )
            .expect("override");
    }
    let ours = match out.status {
        Status::Applied => std::fs::read_to_string(w.state_file()).expect("state"),
        Status::AlreadyApplied => String::from_utf8(before.to_vec()).expect("utf8"),
        other => panic!("{label}: writegate apply gave {other:?}: {}", out.message),
    };
    std::fs::write(w.state_file(), before).expect("restore");
    let real = w.loopx(args);
    assert!(
        real.status.success(),
        "{label}: loopx failed: {}{}",
        String::from_utf8_lossy(&real.stdout),
        String::from_utf8_lossy(&real.stderr)
    );
    let theirs = std::fs::read_to_string(w.state_file()).expect("state");
    assert_eq!(normalize_times(&ours), normalize_times(&theirs), "{label}: bytes differ from the real loopx write");
    eprintln!("interop ok: {label}");
}

#[test]
fn propose_and_apply_match_real_loopx() {
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    let g = ["--goal-id", "demo-goal"];
    let steps: Vec<Vec<&str>> = vec![
        vec!["todo", "add", "--role", "agent", "--text", "[P1] Claim, update and complete me"],
        vec![
            "todo",
            "add",
            "--role",
            "agent",
            "--text",
            "[P2] Block me, then reopen me",
            "--required-capability",
            "shell",
            "--excluded-agent",
            "codex-peer-b",
        ],
        vec![
            "todo",
            "add",
            "--role",
            "agent",
            "--text",
            "[P2] Supersede me with a successor",
            "--claimed-by",
            "codex-main-control",
        ],
        vec![
            "todo",
            "add",
            "--role",
            "user",
            "--task-class",
            "user_gate",
            "--text",
            "[P0] Approve the release plan 每周",
            "--agent-id",
            "codex-main-control",
        ],
        vec!["todo", "add", "--role", "agent", "--text", "[P2] Block me, then reopen me"],
    ];
    for s in &steps {
        let mut args = s.clone();
        args.splice(2..2, g);
        compare(&w, &args);
    }
    let st = ActiveState::parse(&std::fs::read_to_string(w.state_file()).expect("state"));
    let id_of =
        |text: &str| st.todos.iter().find(|t| t.text.contains(text)).map(|t| t.todo_id.to_string()).expect("todo");
    let (t1, t2, t3, gate) =
        (id_of("Claim, update"), id_of("Block me"), id_of("Supersede me"), id_of("Approve the release"));
    let a = ["--agent-id", "codex-main-control"];
    let lifecycle: Vec<Vec<&str>> = vec![
        vec!["todo", "claim", "--todo-id", &t1, "--claimed-by", "codex-main-control"],
        vec![
            "todo",
            "update",
            "--todo-id",
            &t1,
            "--note",
            "halfway: 2/3 done, see #12 @ci + retry",
            "--evidence",
            "smoke passed: 2/3 ok",
        ],
        vec!["todo", "update", "--todo-id", &t2, "--status", "blocked", "--reason", "waiting on CI capacity"],
        vec!["todo", "update", "--todo-id", &t2, "--status", "open"],
        vec!["todo", "update", "--todo-id", &t2, "--status", "deferred", "--resume-when", "pr_merged:#532"],
        vec!["todo", "complete", "--todo-id", &t1, "--evidence", "smoke passed: 3/3 ok", "--no-follow-up"],
        vec![
            "todo",
            "supersede",
            "--todo-id",
            &t3,
            "--reason",
            "replaced by a narrower plan",
            "--next-agent-todo",
            "Narrower successor task",
        ],
        vec![
            "todo",
            "complete",
            "--todo-id",
            &gate,
            "--decision-outcome",
            "approve",
            "--evidence",
            "owner approved",
            "--no-follow-up",
        ],
        vec!["todo", "archive-completed", "--max-active-done", "0", "--execute"],
    ];
    for s in &lifecycle {
        let mut args = s.clone();
        args.splice(2..2, g);
        if args[1] != "archive-completed" {
            args.extend_from_slice(&a);
        }
        compare(&w, &args);
    }
    compare(
        &w,
        &[
            "refresh-state",
            "--goal-id",
            "demo-goal",
            "--agent-id",
            "codex-main-control",
            "--progress-scope",
            "goal",
            "--next-action",
            "Run the smoke suite, then record the result.",
        ],
    );

    // A CRLF state with a UTF-8 BOM: LoopX rewrites CRLF to LF, keeps the BOM and (no
    // frontmatter is seen behind a BOM) bumps no updated_at; writegate must do the same.
    let lf = std::fs::read_to_string(w.state_file()).expect("state");
    std::fs::write(w.state_file(), format!("\u{feff}{}", lf.replace('\n', "\r\n"))).expect("crlf");
    compare(
        &w,
        &[
            "todo",
            "update",
            "--goal-id",
            "demo-goal",
            "--todo-id",
            &t2,
            "--note",
            "after a CRLF round trip",
            "--agent-id",
            "codex-main-control",
        ],
    );
    let after = std::fs::read_to_string(w.state_file()).expect("state");
    assert!(after.starts_with('\u{feff}') && !after.contains('\r'), "BOM kept, CRLF gone");

    // (a) writegate's parse agrees with `loopx todo list`.
    let list = json_of(&w.loopx(&["todo", "list", "--goal-id", "demo-goal"]));
    let st = ActiveState::parse(&std::fs::read_to_string(w.state_file()).expect("state"));
    let mut theirs: Vec<(String, String, String)> = list["todos"]
        .as_array()
        .expect("todos")
        .iter()
        .map(|t| {
            (
                t["todo_id"].as_str().unwrap_or("").to_owned(),
                t["role"].as_str().unwrap_or("").to_owned(),
                t["status"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let mut ours: Vec<(String, String, String)> = st
        .todos
        .iter()
        .filter(|t| !t.archived)
        .map(|t| (t.todo_id.to_string(), t.role.map_or("", |r| r.as_str()).to_owned(), t.status.to_owned()))
        .collect();
    theirs.sort();
    ours.sort();
    assert_eq!(ours, theirs, "todo ids, roles and statuses");
    for (role, key) in [("agent", "agent_todos"), ("user", "user_todos")] {
        let mine =
            st.todos.iter().filter(|t| !t.archived && t.role.map(writegate::loopx::state::Role::as_str) == Some(role));
        let open = mine.clone().filter(|t| !t.done).count();
        assert_eq!(list[key]["open_count"].as_u64(), Some(open as u64), "{role} open_count");
        assert_eq!(list[key]["total_count"].as_u64(), Some(mine.count() as u64), "{role} total_count");
    }
}

#[test]
fn loopx_waits_on_writegates_lock_and_records_an_incident() {
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    let state = w.state_file();
    let req = writegate::loopx::lock::LockRequest {
        target: &state,
        agent_id: Some("writegate"),
        operation: "todo_update",
        timeout: std::time::Duration::from_secs(1),
    };
    let held = writegate::loopx::lock::acquire(&req).expect("hold");
    let before = std::fs::read(&state).expect("state");
    let started = std::time::Instant::now();
    let out =
        w.loopx(&["todo", "add", "--goal-id", "demo-goal", "--role", "agent", "--text", "[P3] Blocked by the lock"]);
    let waited = started.elapsed();
    drop(held);
    assert!(!out.status.success(), "loopx should time out while writegate holds the lock");
    assert!(waited.as_secs_f64() >= 4.5, "LoopX waits its 5 s mutation timeout (waited {waited:?})");
    assert_eq!(std::fs::read(&state).expect("state"), before);
    let rows = std::fs::read_to_string(writegate::loopx::lock::incident_path(&state)).expect("incidents");
    let last: Value = serde_json::from_str(rows.lines().last().expect("row")).expect("json");
    assert_eq!(last["schema_version"], "file_lock_incident_v0");
    assert_eq!(last["holder"]["agent_id"], "writegate");
    assert_eq!(last["holder"]["pid"], std::process::id());
    assert_eq!(last["lock_id"], writegate::loopx::lock::lock_id(&state));
}

#[test]
fn writegate_reports_lock_busy_while_a_loopx_process_holds_the_lock() {
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    let out = w.writegate(&[
        "propose",
        "todo",
        "add",
        "--goal-id",
        "demo-goal",
        "--role",
        "agent",
        "--text",
        "[P3] Wait for the lock",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let script = "import sys, time, pathlib\nfrom loopx.file_lock import exclusive_file_lock\nwith exclusive_file_lock(pathlib.Path(sys.argv[1]), agent_id='codex-peer-b', operation='todo_update'):\n    print('held', flush=True)\n    time.sleep(9)\n";
    let mut cmd = Command::new(lx.venv.join("bin/python"));
    w.env(&mut cmd);
    let mut holder =
        cmd.arg("-c").arg(script).arg(w.state_file()).stdout(Stdio::piped()).spawn().expect("spawn holder");
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(holder.stdout.take().expect("stdout")), &mut line)
        .expect("read");
    assert_eq!(line.trim(), "held");
    let before = std::fs::read(w.state_file()).expect("state");
    let outcome = w.engine().decide(&id, &Decision::apply(), None).expect("decide");
    assert_eq!(outcome.status, Status::LockBusy, "{}", outcome.message);
    let lock = outcome.lock.expect("lock details");
    assert_eq!(lock["holder"]["pid"], holder.id());
    assert_eq!(lock["holder"]["agent_id"], "codex-peer-b");
    assert_eq!(lock["holder"]["operation"], "todo_update");
    assert_eq!(std::fs::read(w.state_file()).expect("state"), before, "nothing written");
    let _ = holder.kill();
    let _ = holder.wait();
    assert!(writegate::loopx::lock::lock_path(&w.state_file()).exists(), "lock file never deleted");
    let out = w.engine().decide(&id, &Decision::apply(), None).expect("retry");
    assert_eq!(out.status, Status::Applied);
}

/// Two twin todos with 1-second hard leases of `codex-main-control` (keys `{tag}-a` /
/// `{tag}-b`, scopes `{tag}/a/**` / `{tag}/b/**`), and a pending item of `codex-peer-b` on
/// the second, held up once the leases expire (this waits 2.2 s for that).
struct ExpiredTwins {
    tag: &'static str,
    by_loopx: String,
    by_operator: String,
    item_id: String,
}

impl ExpiredTwins {
    fn new(w: &World, tag: &'static str) -> Self {
        for who in ["LoopX", "the operator"] {
            let text = format!("[P1] {tag} lease released by {who}");
            let out = w.loopx(&["todo", "add", "--goal-id", "demo-goal", "--role", "agent", "--text", &text]);
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        }
        let st = ActiveState::parse(&std::fs::read_to_string(w.state_file()).expect("state"));
        let id_of =
            |who: &str| st.todos.iter().find(|t| t.text.contains(who)).map(|t| t.todo_id.to_string()).expect("todo");
        let (by_loopx, by_operator) = (id_of("by LoopX"), id_of("by the operator"));
        for (todo, side) in [(&by_loopx, "a"), (&by_operator, "b")] {
            let (key, scope) = (format!("{tag}-{side}"), format!("{tag}/{side}/**"));
            let out = w.task_lease(
                "acquire",
                todo,
                "codex-main-control",
                &key,
                &["--write-scope", &scope, "--ttl-seconds", "1"],
            );
            assert!(out.status.success(), "acquire: {}", String::from_utf8_lossy(&out.stdout));
        }
        let out = w.writegate(&[
            "propose",
            "todo",
            "update",
            "--goal-id",
            "demo-goal",
            "--todo-id",
            &by_operator,
            "--note",
            "taking over the abandoned work",
            "--agent-id",
            "codex-peer-b",
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let item_id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        std::thread::sleep(std::time::Duration::from_millis(2200));
        Self { tag, by_loopx, by_operator, item_id }
    }

    /// The idempotency key of a side (`a`: LoopX's twin, `b`: the operator's).
    fn key(&self, side: &str) -> String {
        format!("{}-{side}", self.tag)
    }

    /// A lease file with the twins' ids, keys, scopes and timestamps made equal.
    fn normalized(&self, text: &str) -> String {
        let t = self.tag;
        Regex::new(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
            .expect("re")
            .replace_all(text, "<ts>")
            .replace(&self.by_loopx, "<todo>")
            .replace(&self.by_operator, "<todo>")
            .replace(&format!("{t}-a"), "<key>")
            .replace(&format!("{t}-b"), "<key>")
            .replace(&format!("{t}/a/"), "<scope>/")
            .replace(&format!("{t}/b/"), "<scope>/")
    }
}

#[test]
fn an_operator_release_of_an_expired_lease_is_what_loopx_writes_and_reads() {
    use writegate::loopx::lease::{LeaseRead, lease_path, read_lease};
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    let twins = ExpiredTwins::new(&w, "run");
    let (by_loopx, by_operator, item_id) = (&twins.by_loopx, &twins.by_operator, &twins.item_id);
    let e = w.engine();
    let dir = e.ws.goal_runtime_dir("demo-goal").expect("dir");

    // While writegate holds LoopX's task-lease lock, LoopX's own lease verbs wait and fail.
    let before_operator = std::fs::read(lease_path(&dir, by_operator)).expect("lease");
    {
        let _held = writegate::loopx::effect_lock::acquire(
            &dir.join("task-leases/.task-leases"),
            writegate::loopx::effect_lock::TIMEOUT,
        )
        .expect("hold");
        let out =
            w.task_lease("release", by_operator, "codex-main-control", &twins.key("b"), &["--expected-version", "1"]);
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(!out.status.success(), "loopx must not release under writegate's lock: {said}");
        let error = serde_json::from_slice::<Value>(&out.stdout).map(|v| v["error_code"].clone()).unwrap_or_default();
        assert_eq!(error, "lock_acquire_timeout", "{said}");
        eprintln!("interop ok: loopx task-lease release under writegate's task-lease lock: lock_acquire_timeout");
        assert_eq!(std::fs::read(lease_path(&dir, by_operator)).expect("lease"), before_operator);
    }

    // The reference: LoopX's own release of the twin lease.
    let out = w.task_lease("release", by_loopx, "codex-main-control", &twins.key("a"), &["--expected-version", "1"]);
    assert!(out.status.success(), "loopx release: {}", String::from_utf8_lossy(&out.stdout));
    let theirs = std::fs::read_to_string(lease_path(&dir, by_loopx)).expect("lease");

    let item = e.find_item(item_id).expect("item");
    let conflict = e.prepare(&item).conflict.expect("conflict");
    assert_eq!((conflict["kind"].as_str(), conflict["reason"].as_str()), (Some("lease_conflict"), Some("expired")));
    let LeaseRead::Present(seen) = read_lease(&dir, by_operator) else { panic!("lease") };
    let out = e.release_expired_lease(&item, by_operator, &seen, "owner run abandoned").expect("release");
    assert_eq!(out.status, Status::LeaseReleased);
    let ours = std::fs::read_to_string(lease_path(&dir, by_operator)).expect("lease");
    assert_eq!(twins.normalized(&ours), twins.normalized(&theirs), "writegate's release bytes differ from loopx's");
    eprintln!("interop ok: operator release bytes == loopx task-lease release bytes (timestamps, ids aside)");

    // `loopx task-lease inspect` reads it as released; the owner's own release is a replay;
    // the other agent can take the todo over with a new lease.
    let inspect = json_of(&w.loopx(&["task-lease", "inspect", "--goal-id", "demo-goal", "--todo-id", by_operator]));
    assert_eq!(inspect["ok"], true, "{inspect}");
    assert_eq!(inspect["active"], false);
    assert_eq!(inspect["lease"]["status"], "released");
    assert_eq!(inspect["lease"]["version"], 1);
    let replay = json_of(&w.task_lease(
        "release",
        by_operator,
        "codex-main-control",
        &twins.key("b"),
        &["--expected-version", "1"],
    ));
    assert_eq!((replay["ok"].as_bool(), replay["idempotent"].as_bool()), (Some(true), Some(true)), "{replay}");
    assert_eq!(std::fs::read_to_string(lease_path(&dir, by_operator)).expect("lease"), ours, "a replay writes nothing");
    let takeover = json_of(&w.task_lease("acquire", by_operator, "codex-peer-b", "peer-b-1", &[]));
    assert_eq!(takeover["acquired"], true, "{takeover}");
    assert_eq!((takeover["lease"]["version"].as_i64(), takeover["lease"]["lease_epoch"].as_i64()), (Some(2), Some(2)));
    let out = e.decide(item_id, &Decision::apply_confirmed(), None);
    assert_eq!(out.expect("decide").status, Status::Applied, "the peer now holds the lease and writes");
    eprintln!("interop ok: inspect says released, owner's release replays, takeover v2 e2, item applied");
}

#[test]
fn writeback_result_runs_are_read_by_loopx_history() {
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    let out = w.loopx(&["todo", "add", "--goal-id", "demo-goal", "--role", "agent", "--text", "[P1] Hand me off"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let st = ActiveState::parse(&std::fs::read_to_string(w.state_file()).expect("state"));
    let todo = st.todos.iter().find(|t| t.text.contains("Hand me off")).map(|t| t.todo_id.to_string()).expect("todo");
    let out = w.loopx(&["refresh-state", "--goal-id", "demo-goal", "--agent-id", "codex-main-control"]);
    assert!(out.status.success(), "refresh-state: {}", String::from_utf8_lossy(&out.stderr));
    let e = w.engine();
    let rows = writegate::loopx::runs::read_rows(&e.ws.goal_runtime_dir("demo-goal").expect("dir")).expect("rows");
    let run = writegate::loopx::runs::run_file_stem(rows[0]["generated_at"].as_str().expect("generated_at"));
    let doc = serde_json::json!({"schema_version": "session_runtime_controlled_writeback_v0", "goal_id": "demo-goal",
        "agent_id": "codex-main-control", "runtime": {"runtime_id": "codex_cli_tui", "session_id": "s-1"},
        "loopx_source": {"source_run_id": run, "source_todo_id": todo, "source_event_class": "handoff_packet"},
        "writeback": {"write_class": "handoff_packet_pointer", "mode": "dry_run", "idempotency_key": format!("demo-goal:{run}:handoff"),
            "payload": {"decision_label": "approved_next_action", "summary": "continue the validated next action", "evidence_pointer_count": 1}},
        "boundary": {"raw_transcripts_copied": false, "raw_tool_outputs_copied": false, "credentials_copied": false,
            "private_paths_copied": false, "launch_authority_granted": false}});
    let gate = e.gate("demo-goal").expect("gate");
    std::fs::create_dir_all(gate.inbox()).expect("inbox");
    for (name, key) in [("wb-apply", "a"), ("wb-skip", "b")] {
        let mut d = doc.clone();
        d["writeback"]["idempotency_key"] = Value::String(format!("demo-goal:{run}:{key}"));
        std::fs::write(gate.inbox().join(format!("{name}.json")), d.to_string()).expect("drop");
    }
    let apply = Decision::apply();
    assert_eq!(e.decide("wb-apply", &apply, None).expect("apply").status, Status::Applied);
    assert_eq!(e.decide("wb-skip", &Decision::Skip, None).expect("skip").status, Status::Skipped);

    let history = json_of(&w.loopx(&["history", "--goal-id", "demo-goal", "--limit", "10"]));
    let text = history.to_string();
    let runs: Vec<&Value> = history["runs"]
        .as_array()
        .or_else(|| history["goals"][0]["runs"].as_array())
        .unwrap_or_else(|| panic!("no runs list in loopx history: {text}"))
        .iter()
        .filter(|r| r["classification"] == "controlled_writeback")
        .collect();
    assert_eq!(runs.len(), 2, "both result runs, not merged: {text}");
    let statuses: Vec<&str> = runs.iter().filter_map(|r| r["controlled_writeback"]["status"].as_str()).collect();
    assert!(statuses.contains(&"applied") && statuses.contains(&"skipped"), "{statuses:?}");
    let status = w.loopx(&["status", "--goal-id", "demo-goal"]);
    assert!(status.status.success(), "loopx status still works: {}", String::from_utf8_lossy(&status.stderr));
    let st = json_of(&status);
    let recent = st["run_history"]["recent_runs"].as_array().cloned().unwrap_or_default();
    assert!(
        recent.iter().any(|r| r["health_check"] == "controlled_writeback handoff_packet_pointer; applied reflected"),
        "loopx status shows the result run: {recent:?}"
    );
    eprintln!(
        "interop ok: loopx history lists writegate's 2 controlled_writeback result runs; loopx status reads the goal"
    );
}

#[test]
fn a_legacy_lease_without_version_or_epoch_is_released_as_loopx_releases_it() {
    use writegate::loopx::lease::{LeaseRead, lease_path, read_lease};
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    let twins = ExpiredTwins::new(&w, "legacy");
    let (by_loopx, by_operator, item_id) = (&twins.by_loopx, &twins.by_operator, &twins.item_id);
    let e = w.engine();
    let dir = e.ws.goal_runtime_dir("demo-goal").expect("dir");
    // Make both leases legacy: no version, no lease_epoch (LoopX reads them as 0 and 1).
    for todo in [by_loopx, by_operator] {
        let path = lease_path(&dir, todo);
        let text = std::fs::read_to_string(&path).expect("lease");
        let legacy: String = text
            .lines()
            .filter(|l| !l.contains("\"version\"") && !l.contains("\"lease_epoch\""))
            .collect::<Vec<_>>()
            .join("\n")
            + "\n";
        std::fs::write(&path, legacy).expect("legacy");
    }
    let out = w.task_lease("release", by_loopx, "codex-main-control", &twins.key("a"), &["--expected-version", "0"]);
    assert!(out.status.success(), "loopx release of a legacy lease: {}", String::from_utf8_lossy(&out.stdout));
    let theirs = std::fs::read_to_string(lease_path(&dir, by_loopx)).expect("lease");
    let LeaseRead::Present(seen) = read_lease(&dir, by_operator) else { panic!("legacy lease unreadable") };
    assert_eq!((seen.version, seen.lease_epoch), (0, 1));
    let item = e.find_item(item_id).expect("item");
    let out = e.release_expired_lease(&item, by_operator, &seen, "").expect("release");
    assert_eq!(out.status, Status::LeaseReleased);
    let ours = std::fs::read_to_string(lease_path(&dir, by_operator)).expect("lease");
    assert_eq!(twins.normalized(&ours), twins.normalized(&theirs), "legacy release bytes differ from loopx's");
    eprintln!("interop ok: a legacy lease (no version / epoch) released byte-identically to loopx");
}

/// Issue 14: agents proposing at one base — five `todo add`s, an update, a claim, a
/// supersede, a completion and a refresh-state — are all applied one after another, each
/// recomputed on the state the one before left (recorded `rebased`), and every write is byte
/// for byte what the real `loopx` command writes on that state.
#[test]
fn stale_proposals_recomputed_on_the_current_state_write_what_loopx_writes() {
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    for text in ["[P1] Update me", "[P1] Claim me", "[P2] Supersede me", "[P2] Complete me"] {
        let out = w.loopx(&["todo", "add", "--goal-id", "demo-goal", "--role", "agent", "--text", text]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let st = ActiveState::parse(&std::fs::read_to_string(w.state_file()).expect("state"));
    let id_of =
        |text: &str| st.todos.iter().find(|t| t.text.contains(text)).map(|t| t.todo_id.to_string()).expect("todo");
    let (upd, claim, sup, done) = (id_of("Update me"), id_of("Claim me"), id_of("Supersede me"), id_of("Complete me"));
    let (g, a) = (["--goal-id", "demo-goal"], ["--agent-id", "codex-main-control"]);
    let mut steps: Vec<Vec<&str>> = (1..=5)
        .map(|i| {
            let text: &'static str = Box::leak(format!("[P2] Concurrent add number {i}").into_boxed_str());
            vec!["todo", "add", "--role", "agent", "--text", text]
        })
        .collect();
    steps.extend([
        vec!["todo", "update", "--todo-id", &upd, "--note", "noted while others wrote"],
        vec!["todo", "claim", "--todo-id", &claim, "--claimed-by", "codex-main-control"],
        vec!["todo", "supersede", "--todo-id", &sup, "--reason", "narrower plan", "--next-agent-todo", "Successor"],
        vec!["todo", "complete", "--todo-id", &done, "--evidence", "checked", "--no-follow-up"],
        vec!["refresh-state", "--progress-scope", "goal", "--next-action", "Review the concurrent adds."],
    ]);
    let steps: Vec<Vec<&str>> = steps
        .into_iter()
        .map(|mut s| {
            let at = if s[0] == "refresh-state" { 1 } else { 2 };
            s.splice(at..at, g);
            if s[1] != "add" {
                s.extend_from_slice(&a);
            }
            s
        })
        .collect();
    // Every proposal is made at the same base, before any of them is applied.
    let ids: Vec<String> = steps
        .iter()
        .map(|s| {
            let mut prop = vec!["propose"];
            prop.extend_from_slice(s);
            let out = w.writegate(&prop);
            assert!(out.status.success(), "{s:?}: {}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).trim().to_owned()
        })
        .collect();
    let e = w.engine();
    for (i, (id, s)) in ids.iter().zip(&steps).enumerate() {
        let p = e.prepare(&e.find_item(id).expect("item"));
        assert_eq!(p.predicted.name(), "ready", "{s:?}: {:?}", p.stale_reason);
        assert_eq!(p.recomputed.is_some(), i > 0, "{s:?}: recomputed after the first apply");
        let before = std::fs::read(w.state_file()).expect("state");
        apply_and_compare(&w, &e, id, s, &before, &s.join(" "));
    }
    let log = e.gate("demo-goal").expect("gate").results().read_all(false).expect("log");
    let rebased = log.iter().filter(|r| r.reason_code.as_deref() == Some("rebased")).count();
    assert_eq!(rebased, ids.len() - 1, "every apply after the first is recorded rebased");
}
