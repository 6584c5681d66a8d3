//! Gated writes on LoopX 2.1.1 goals through LoopX's own CLI (issue 13), against the real
//! LoopX 2.1.1 installed by the test (LOOPX2.md §0; skipped loudly only when PyPI cannot be
//! reached). Agents propose with LoopX's own flags (`writegate propose todo …`), the
//! preview predicts the Markdown on a scratch copy, and the operator's apply runs the real
//! command: LoopX's `todo list` then holds the change, the Markdown equals the prediction
//! but for the commit stamps, replays make no second commit, and conflicts and crashes end
//! recorded once.

mod common;
use common::loopx2_world::{World, json_of, loopx};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use writegate::engine::Decision;

/// Child half: decides `WG_CHILD_ITEM` (`apply` or `skip`, from `WG_CHILD_DECISION`) on
/// `WG_CHILD_REGISTRY` in the scratch world's environment, prints the outcome as JSON.
#[test]
#[ignore = "run as a child process by the tests below"]
fn child_decide() {
    let (Ok(reg), Ok(item)) = (std::env::var("WG_CHILD_REGISTRY"), std::env::var("WG_CHILD_ITEM")) else {
        return;
    };
    let loc = writegate::loopx::registry::Locator {
        registry: Some(reg.into()),
        ..writegate::loopx::registry::Locator::from_env(None, None)
    };
    let e = writegate::engine::Engine::open(&loc, writegate::engine::Clock::System, "operator".into()).expect("engine");
    let d = match std::env::var("WG_CHILD_DECISION").as_deref() {
        Ok("skip") => Decision::Skip,
        Ok("apply-confirmed") => Decision::apply_confirmed(),
        _ => Decision::apply(),
    };
    let out = match e.decide(&item, &d, None) {
        Ok(o) => serde_json::json!({"status": o.status.as_str(), "message": o.message, "record": o.record,
            "moved": o.item_moved}),
        Err(err) => serde_json::json!({"error": err.to_string()}),
    };
    println!("CHILD-OUTCOME {out}");
}

/// Decides `item` in a child process with the world's environment (LoopX on its PATH);
/// `failpoint` aborts it there.
fn decide(w: &World, item: &str, failpoint: Option<&str>) -> Value {
    decide_as(w, item, failpoint, "apply")
}

fn decide_as(w: &World, item: &str, failpoint: Option<&str>, decision: &str) -> Value {
    let mut cmd = Command::new(std::env::current_exe().expect("exe"));
    w.env(&mut cmd);
    cmd.env("WG_CHILD_DECISION", decision);
    cmd.args(["--exact", "child_decide", "--ignored", "--nocapture", "--test-threads=1"])
        .env("WG_CHILD_REGISTRY", w.project().join(".loopx/registry.json"))
        .env("WG_CHILD_ITEM", format!("demo-goal/{item}"));
    if let Some(fp) = failpoint {
        cmd.env(writegate::gate::fsutil::FAILPOINT_ENV, fp);
    }
    let out = cmd.output().expect("child");
    let text = String::from_utf8_lossy(&out.stdout);
    let found = text.lines().find_map(|l| l.split_once("CHILD-OUTCOME ").map(|(_, j)| j));
    found.map_or_else(
        || {
            eprintln!("child printed no outcome:\n{text}\n{}", String::from_utf8_lossy(&out.stderr));
            Value::Null
        },
        |j| serde_json::from_str(j).expect("outcome json"),
    )
}

/// `writegate propose ARGS`: the item id (panics when it was refused).
fn propose(w: &World, args: &[&str]) -> String {
    let mut all = vec!["propose"];
    all.extend_from_slice(args);
    let out = w.writegate(&all);
    let stdout = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(out.status.success(), "propose {args:?}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

fn preview(w: &World, item: &str) -> Value {
    json_of(&w.writegate(&["preview", "--json", item]))
}

fn head(w: &World) -> String {
    w.ok(&["todo", "list", "--goal-id", "demo-goal"])["authority_read"]["provider_revision"]
        .as_str()
        .expect("revision")
        .to_owned()
}

fn todo<'a>(list: &'a Value, id: &str) -> &'a Value {
    list["todos"].as_array().expect("todos").iter().find(|t| t["todo_id"] == id).unwrap_or(&Value::Null)
}

/// Proposes `args`, checks the preview is ready and shows `shows`, applies, and checks the
/// record: applied, the Markdown equal to the prediction. Returns the record.
fn propose_preview_apply(w: &World, args: &[&str], shows: &str) -> Value {
    let id = propose(w, args);
    let p = preview(w, &id);
    assert_eq!(p["predicted_status"], "ready", "{args:?}: {p:#}");
    assert_eq!(p["kind"], "loopx_command");
    assert!(
        p["diff"].as_str().unwrap_or_default().contains(shows),
        "{args:?}: the diff shows {shows:?}: {}",
        p["diff"]
    );
    let out = decide(w, &id, None);
    assert_eq!(out["status"], "applied", "{args:?}: {out:#}");
    assert_eq!(out["moved"], true);
    let loopx = &out["record"]["loopx"];
    assert_eq!(loopx["markdown_matches_prediction"], true, "{args:?}: {out:#}");
    assert_eq!(loopx["provider_revision_after"].as_str(), Some(head(w).as_str()), "{args:?}");
    out["record"].clone()
}

#[test]
fn every_todo_write_and_refresh_state_applies_exactly_as_previewed() {
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    // add, then the same add again: a replay, recorded as a duplicate, no second commit.
    let add =
        ["todo", "add", "--goal-id", "demo-goal", "--role", "agent", "--text", "Write the parser", "--priority", "P1"];
    let rec = propose_preview_apply(&w, &add, "[P1] Write the parser");
    let op = rec["loopx"]["operation_id"].as_str().expect("operation id").to_owned();
    assert!(op.starts_with("writegate-"), "writegate fixed an operation id: {op}");
    let list = w.ok(&["todo", "list", "--goal-id", "demo-goal"]);
    let parser = list["todos"].as_array().expect("todos").iter().find(|t| t["title"] == "Write the parser");
    let parser = parser.expect("LoopX holds the todo")["todo_id"].as_str().expect("id").to_owned();
    let before_replay = head(&w);
    let again = propose(&w, &add);
    assert_eq!(preview(&w, &again)["predicted_status"], "skipped_duplicate");
    let out = decide(&w, &again, None);
    assert_eq!(out["status"], "skipped_duplicate", "{out:#}");
    assert_eq!(head(&w), before_replay, "no second commit");

    // update a note against the head, block another todo with a reason.
    let docs = w.add_id("Write the docs", "op-docs");
    let rev = head(&w);
    propose_preview_apply(
        &w,
        &[
            "todo",
            "update",
            "--goal-id",
            "demo-goal",
            "--todo-id",
            &parser,
            "--agent-id",
            "agent-a",
            "--note",
            "Grammar drafted",
            "--update-expected-provider-revision",
            &rev,
        ],
        "",
    );
    assert!(todo(&w.ok(&["todo", "list", "--goal-id", "demo-goal"]), &parser).to_string().contains("Grammar drafted"));
    propose_preview_apply(
        &w,
        &[
            "todo",
            "update",
            "--goal-id",
            "demo-goal",
            "--todo-id",
            &docs,
            "--agent-id",
            "agent-b",
            "--status",
            "blocked",
            "--reason",
            "waiting for the parser",
        ],
        "status=blocked",
    );

    // claim with a hard lease, complete with a wrong fence (a lease conflict), then the right one.
    propose_preview_apply(
        &w,
        &[
            "todo",
            "claim",
            "--goal-id",
            "demo-goal",
            "--todo-id",
            &parser,
            "--agent-id",
            "agent-a",
            "--claimed-by",
            "agent-a",
            "--task-lease-idempotency-key",
            "lease-a-parser",
        ],
        "claimed_by=agent-a",
    );
    // A wrong fence is refused at propose (LoopX's dry run), with LoopX's error and exit 2.
    let complete = |version: &'static str| -> Vec<String> {
        [
            "todo",
            "complete",
            "--goal-id",
            "demo-goal",
            "--todo-id",
            &parser,
            "--agent-id",
            "agent-a",
            "--evidence",
            "tests pass",
            "--task-lease-idempotency-key",
            "lease-a-parser",
            "--task-lease-expected-version",
            version,
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
    };
    let wrong = complete("7");
    let out = w.writegate(&std::iter::once("propose").chain(wrong.iter().map(String::as_str)).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["error_code"], "version_mismatch");
    // A complete proposed with the right fence, then the lease renewed: a lease conflict.
    let right = complete("1");
    let stale = propose(&w, &right.iter().map(String::as_str).collect::<Vec<_>>());
    w.ok(&[
        "task-lease",
        "renew",
        "--goal-id",
        "demo-goal",
        "--todo-id",
        &parser,
        "--owner",
        "agent-a",
        "--idempotency-key",
        "lease-a-parser",
        "--expected-version",
        "1",
    ]);
    assert_eq!(preview(&w, &stale)["predicted_status"], "lease_conflict");
    let out = decide(&w, &stale, None);
    assert_eq!((out["status"].as_str(), out["moved"].as_bool()), (Some("lease_conflict"), Some(false)), "{out:#}");
    let c2 = complete("2");
    let c2: Vec<&str> = c2.iter().map(String::as_str).collect();
    propose_preview_apply(&w, &c2, "[x]");
    assert_eq!(todo(&w.ok(&["todo", "list", "--goal-id", "demo-goal"]), &parser)["status"], "done");

    // supersede, archive the completed, refresh the Next Action.
    let bench = w.add_id("Benchmark the scan", "op-bench");
    w.ok(&[
        "todo",
        "claim",
        "--goal-id",
        "demo-goal",
        "--todo-id",
        &bench,
        "--agent-id",
        "agent-b",
        "--claimed-by",
        "agent-b",
        "--task-lease-idempotency-key",
        "lease-b-bench",
    ]);
    propose_preview_apply(
        &w,
        &[
            "todo",
            "supersede",
            "--goal-id",
            "demo-goal",
            "--todo-id",
            &bench,
            "--agent-id",
            "agent-b",
            "--reason",
            "covered by the parser tests",
            "--task-lease-idempotency-key",
            "lease-b-bench",
            "--task-lease-expected-version",
            "1",
        ],
        "",
    );
    propose_preview_apply(&w, &["todo", "archive-completed", "--goal-id", "demo-goal", "--max-active-done", "0"], "");
    // refresh-state: LoopX 2.1.1 appends a run and leaves the Markdown as it is.
    w.add_id("Review the parser PR", "op-review");
    let runs = w.runtime_root().join("goals/demo-goal/runs/index.jsonl");
    let rows_before = std::fs::read_to_string(&runs).unwrap_or_default().lines().count();
    let id = propose(
        &w,
        &["refresh-state", "--goal-id", "demo-goal", "--agent-id", "agent-a", "--next-action", "Review the parser PR"],
    );
    let p = preview(&w, &id);
    let loopx_check =
        p["checks"].as_array().expect("checks").iter().find(|c| c["name"] == "loopx").expect("loopx check");
    assert!(loopx_check["detail"].as_str().is_some_and(|d| d.contains("appends a LoopX run")), "{loopx_check}");
    let out = decide(&w, &id, None);
    assert_eq!(out["status"], "applied", "{out:#}");
    let index = std::fs::read_to_string(&runs).expect("runs index");
    assert_eq!(index.lines().count(), rows_before + 1, "one run appended");
    assert!(index.lines().last().is_some_and(|l| l.contains("Review the parser PR")));
    let log = json_of(&w.writegate(&["log", "--json", "--goal", "demo-goal"]));
    let rows = log["items"].as_array().expect("log rows");
    assert!(rows.iter().all(|r| r["kind"] == "loopx_command"), "{log:#}");
}

#[test]
fn a_stale_update_is_recomputed_at_the_head_unless_its_todo_moved_and_refusals_print_loopxs_error() {
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    let t = w.add_id("Write the parser", "op-parser");
    let u = w.add_id("Write the printer", "op-printer");
    let rev = head(&w);
    let update = |todo: &str, note: &str| {
        propose(
            &w,
            &[
                "todo",
                "update",
                "--goal-id",
                "demo-goal",
                "--todo-id",
                todo,
                "--agent-id",
                "agent-a",
                "--note",
                note,
                "--update-expected-provider-revision",
                &rev,
            ],
        )
    };
    let id = update(&t, "Again");
    let recomputable = update(&u, "Printer note");
    let plain = propose(
        &w,
        &["todo", "add", "--goal-id", "demo-goal", "--role", "agent", "--text", "Proposed before the move"],
    );
    // The head moves twice: another todo is added, and `t` itself is updated by LoopX.
    w.add_id("Another todo moves the head", "op-other");
    w.ok(&[
        "todo",
        "update",
        "--goal-id",
        "demo-goal",
        "--todo-id",
        &t,
        "--agent-id",
        "agent-a",
        "--note",
        "Meanwhile",
    ]);
    let stale = preview(&w, &id);
    assert_eq!(stale["predicted_status"], "revision_conflict", "its todo changed since");
    assert!(
        stale["conflict"]["not_recomputed_because"].as_str().is_some_and(|w| w.contains("todo changed since")),
        "{stale:#}"
    );
    // The update of the untouched todo is recomputed at the head: ready, applied with the
    // expected revision set to the head, recorded rebased, the Markdown as predicted.
    let p = preview(&w, &recomputable);
    assert_eq!(p["predicted_status"], "ready", "{p:#}");
    assert!(
        p["diff_notes"]
            .as_array()
            .is_some_and(|n| n.iter().any(|n| n.as_str().is_some_and(|n| n.starts_with("recomputed")))),
        "{p:#}"
    );
    let out = decide(&w, &recomputable, None);
    assert_eq!(out["status"], "applied", "{out:#}");
    assert_eq!(out["record"]["reason_code"], "rebased", "{out:#}");
    assert_eq!(out["record"]["idempotency_key"], p["idempotency_key"], "the original key");
    assert_eq!(out["record"]["loopx"]["markdown_matches_prediction"], true, "{out:#}");
    assert!(todo(&w.ok(&["todo", "list", "--goal-id", "demo-goal"]), &u).to_string().contains("Printer note"));
    // Where LoopX enforces no revision, the item stays ready, predicted at the new head, and
    // the Conflict tab says the head moved and how the change moved with it.
    let p = preview(&w, &plain);
    assert_eq!(p["predicted_status"], "ready", "{p:#}");
    assert_eq!(p["conflict"]["kind"], "moved_since", "{p:#}");
    assert_eq!(p["conflict"]["provider_revision"].as_str(), Some(head(&w).as_str()));
    assert!(p["conflict"]["moved_diff"].is_string(), "{p:#}");
    assert!(
        p["diff"]
            .as_str()
            .is_some_and(|d| d.contains("Proposed before the move") && d.contains("Another todo moves the head"))
    );
    assert_eq!(decide(&w, &plain, None)["record"]["loopx"]["markdown_matches_prediction"], true);
    let out = decide(&w, &id, None);
    assert_eq!(out["status"], "revision_conflict", "{out:#}");
    assert!(!todo(&w.ok(&["todo", "list", "--goal-id", "demo-goal"]), &t).to_string().contains("Again"));

    // LoopX's own refusal of the dry run: exit 2 with its JSON; a path flag: refused by writegate.
    let out = w.writegate(&[
        "propose",
        "todo",
        "update",
        "--goal-id",
        "demo-goal",
        "--todo-id",
        "todo_nope",
        "--agent-id",
        "agent-a",
        "--note",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["ok"], false);
    let out = w.writegate(&[
        "propose",
        "todo",
        "add",
        "--goal-id",
        "demo-goal",
        "--role",
        "agent",
        "--text",
        "x",
        "--result-file",
        "/etc/hostname",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("local path"), "{}", String::from_utf8_lossy(&out.stderr));
    // A workspace flag inside the command never redirects the item (found by a new-user trial).
    let out = w.writegate(&[
        "propose",
        "todo",
        "add",
        "--goal-id",
        "demo-goal",
        "--role",
        "agent",
        "--text",
        "x",
        "--runtime-root=/tmp/elsewhere",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("leave it out"), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!Path::new("/tmp/elsewhere/goals/demo-goal").exists());
}

#[test]
fn a_crash_between_the_command_and_the_record_recovers_through_the_receipt() {
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    let id = propose(&w, &["todo", "add", "--goal-id", "demo-goal", "--role", "agent", "--text", "Survive the crash"]);
    let out = decide(&w, &id, Some("after_loopx_run"));
    assert_eq!(out, Value::Null, "the child aborted before it could print");
    let gate = w.runtime_root().join("goals/demo-goal/gate");
    assert!(gate.join(format!("applying/{id}.loopx")).exists(), "the marker stays");
    let committed = head(&w);
    // The next decision recovers first: LoopX's receipt says it committed; nothing runs again.
    let next = propose(&w, &["todo", "add", "--goal-id", "demo-goal", "--role", "agent", "--text", "After the crash"]);
    let out = decide(&w, &next, None);
    assert_eq!(out["status"], "applied", "{out:#}");
    let log = json_of(&w.writegate(&["log", "--json", "--goal", "demo-goal"]));
    let mine: Vec<&Value> =
        log["items"].as_array().expect("rows").iter().filter(|r| r["item_id"] == id.as_str()).collect();
    assert_eq!(mine.len(), 1, "recorded once: {log:#}");
    assert_eq!(mine[0]["reason_code"], "recovered_after_interrupted_loopx_run");
    let list = w.ok(&["todo", "list", "--goal-id", "demo-goal"]);
    let n = list["todos"].as_array().expect("todos").iter().filter(|t| t["title"] == "Survive the crash").count();
    assert_eq!(n, 1, "one commit");
    assert_ne!(head(&w), committed, "the second item committed after the recovery");
    assert!(!Path::new(&gate.join(format!("applying/{id}.loopx"))).exists());
    assert!(!gate.join(format!("inbox/{id}.json")).exists(), "the recovered item moved to decided/");
}

#[test]
fn a_held_state_lock_is_recorded_as_committed_with_the_display_pending_and_redelivers() {
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    let id = propose(&w, &["todo", "add", "--goal-id", "demo-goal", "--role", "agent", "--text", "While locked"]);
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(format!("{}.lock", w.state_file().display()))
        .expect("lock file");
    lock.lock().expect("flock");
    // LoopX commits, waits its 5 s for the Markdown lock, and leaves the display pending.
    let out = decide(&w, &id, None);
    lock.unlock().expect("unlock");
    assert_eq!(out["status"], "applied", "{out:#}");
    assert_eq!(out["record"]["reason_code"], "committed_display_pending", "{out:#}");
    assert_eq!(out["record"]["loopx"]["projection_delivery"], "pending");
    assert_eq!(out["record"]["loopx"]["markdown_matches_prediction"], false, "the Markdown is not the prediction yet");
    let message = out["message"].as_str().expect("message");
    assert!(message.contains("todo project-markdown") && message.contains("--execute"), "{message}");
    assert!(!w.state().contains("While locked"));
    // The redelivery LoopX names puts the committed todo on the page.
    let head = out["record"]["loopx"]["provider_revision_after"].as_str().expect("head").to_owned();
    w.ok(&["todo", "project-markdown", "--goal-id", "demo-goal", "--provider-revision", &head, "--execute"]);
    assert!(w.state().contains("While locked"));
}

#[test]
fn the_tui_applies_a_loopx_command_on_a_goal_loopx_bootstrapped() {
    let Some(lx) = loopx() else { return };
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!(
            "\n!!!!!!!! SKIPPING the LoopX 2.1.1 tmux test: tmux is not installed (.ci/run installs it) !!!!!!!!\n"
        );
        return;
    }
    let w = World::new(lx);
    w.bootstrap();
    let id = propose(
        &w,
        &["todo", "add", "--goal-id", "demo-goal", "--role", "agent", "--text", "Typed in the TUI", "--priority", "P2"],
    );
    let tmux = common::tmux::Tmux { socket: format!("wg-lx2-{}", std::process::id()) };
    let r = w.root.display();
    let cmd = format!(
        "env -i HOME={r}/home TMPDIR={r}/tmp CODEX_HOME={r}/home/.codex LOOPX_USAGE_PING=0 DO_NOT_TRACK=1 PATH={}:{}:/usr/bin:/bin XDG_STATE_HOME={r}/home/state XDG_CONFIG_HOME={r}/config TERM=xterm-256color sh -c 'cd {} && exec {}'; echo WRITEGATE-EXITED; sleep 30",
        lx.node_dir.display(),
        lx.venv.join("bin").display(),
        w.project().display(),
        env!("CARGO_BIN_EXE_writegate"),
    );
    let out = tmux.run(&["new-session", "-d", "-s", "wg", "-x", "140", "-y", "40", &cmd]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let screen = tmux.wait_for("✓ ready", 40);
    assert!(screen.contains("[2.x]") && screen.contains("todo_add"), "{screen}");
    tmux.wait_for("+ - [ ] [P2] Typed in the TUI", 20);
    tmux.keys(&["a"]);
    let dialog = tmux.wait_for("apply?", 5);
    assert!(dialog.contains("run  loopx todo add"), "the dialog names the command it runs: {dialog}");
    tmux.confirm(&["y"]);
    tmux.wait_for("applied — applied by LoopX", 30);
    tmux.keys(&["q"]);
    tmux.wait_for("WRITEGATE-EXITED", 10);
    let list = w.ok(&["todo", "list", "--goal-id", "demo-goal"]);
    assert!(list["todos"].as_array().expect("todos").iter().any(|t| t["title"] == "Typed in the TUI"), "{list}");
    let log = json_of(&w.writegate(&["log", "--json", "--goal", "demo-goal"]));
    let rec = log["items"].as_array().expect("rows").iter().find(|r| r["item_id"] == id.as_str()).cloned();
    assert_eq!(rec.expect("recorded")["loopx"]["markdown_matches_prediction"], true);
}

#[test]
fn a_todo_with_a_validation_command_is_never_completed_on_a_copy_and_the_validator_runs_only_at_apply() {
    // Found by a new-user trial: the prediction ran the todo's validation command (a real
    // `complete` on the copy runs it), at propose, at every preview and every reload.
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    let ran = w.root.join("validator-ran");
    let validator = format!("touch {}", ran.display());
    let t = w.ok(&[
        "todo",
        "add",
        "--goal-id",
        "demo-goal",
        "--role",
        "agent",
        "--text",
        "Validated",
        "--validation-command",
        &validator,
        "--operation-id",
        "op-v",
    ])["todo_id"]
        .as_str()
        .expect("id")
        .to_owned();
    w.ok(&[
        "todo",
        "claim",
        "--goal-id",
        "demo-goal",
        "--todo-id",
        &t,
        "--agent-id",
        "agent-a",
        "--claimed-by",
        "agent-a",
        "--task-lease-idempotency-key",
        "lease-v",
    ]);
    let id = propose(
        &w,
        &[
            "todo",
            "complete",
            "--goal-id",
            "demo-goal",
            "--todo-id",
            &t,
            "--agent-id",
            "agent-a",
            "--evidence",
            "done",
            "--task-lease-idempotency-key",
            "lease-v",
            "--task-lease-expected-version",
            "1",
        ],
    );
    let p = preview(&w, &id);
    assert!(!ran.exists(), "neither propose nor preview ran the validator");
    assert_eq!(p["predicted_status"], "ready", "{p:#}");
    assert!(
        p["findings"].as_array().expect("findings").iter().any(|f| f["rule_id"] == "runs_validation_command"),
        "{p:#}"
    );
    assert_eq!(p["diff"], "", "no Markdown is predicted for it");
    let out = decide(&w, &id, None);
    assert!(out["error"].as_str().is_some_and(|e| e.contains("typed confirmation")), "{out:#}");
    assert!(!ran.exists());
    let out = decide_as(&w, &id, None, "apply-confirmed");
    assert_eq!(out["status"], "applied", "{out:#}");
    assert_eq!(out["record"]["loopx"]["markdown_matches_prediction"], Value::Null);
    assert!(ran.exists(), "LoopX ran the validator at apply, as it does for the agent");
    assert_eq!(todo(&w.ok(&["todo", "list", "--goal-id", "demo-goal"]), &t)["status"], "done");
}

#[test]
fn writebacks_on_a_loopx_2_goal_check_its_authority_and_their_result_runs_are_read_by_loopx_history() {
    // Issue 13 item 6, on the real 2.1.1: entry criterion 2 finds the run and the todo, and
    // the result runs writegate appends are read by `loopx history` and `loopx status`.
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    let todo = w.add_id("Hand me off", "op-handoff");
    w.ok(&["refresh-state", "--goal-id", "demo-goal", "--agent-id", "agent-a", "--next-action", "Hand off"]);
    let e = w.engine();
    let rows = writegate::loopx::runs::read_rows(&e.ws.goal_runtime_dir("demo-goal").expect("dir")).expect("rows");
    let run = writegate::loopx::runs::run_file_stem(rows[0]["generated_at"].as_str().expect("generated_at"));
    let doc = serde_json::json!({"schema_version": "session_runtime_controlled_writeback_v0", "goal_id": "demo-goal",
        "agent_id": "agent-a", "runtime": {"runtime_id": "codex_cli_tui", "session_id": "s-1"},
        "loopx_source": {"source_run_id": run, "source_todo_id": todo, "source_event_class": "handoff_packet"},
        "writeback": {"write_class": "handoff_packet_pointer", "mode": "dry_run", "idempotency_key": "k",
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
    let item = e.find_item("wb-apply").expect("item");
    let source = e.prepare(&item).checks.into_iter().find(|c| c.name.starts_with("entry.2")).expect("entry.2");
    assert!(source.ok && source.detail.contains("in LoopX's authority"), "{source:?}");
    let apply = Decision::apply();
    assert_eq!(e.decide("wb-apply", &apply, None).expect("apply").status.as_str(), "applied");
    assert_eq!(e.decide("wb-skip", &Decision::Skip, None).expect("skip").status.as_str(), "skipped");
    let history = w.ok(&["history", "--goal-id", "demo-goal", "--limit", "10"]);
    let text = history.to_string();
    let runs: Vec<&Value> = history["runs"]
        .as_array()
        .or_else(|| history["goals"][0]["runs"].as_array())
        .unwrap_or_else(|| panic!("no runs list in loopx history: {text}"))
        .iter()
        .filter(|r| r["classification"] == "controlled_writeback")
        .collect();
    assert_eq!(runs.len(), 2, "both result runs: {text}");
    w.ok(&["status", "--goal-id", "demo-goal"]);
}
