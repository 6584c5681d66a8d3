//! End to end through the binary: `demo --no-tui`, then `status`, `list`, `preview`,
//! `log`, `check`, `scan` and `propose`, with JSON parsed back into the `wire` types and
//! the documented exit codes.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};
use writegate::wire::{Doc, GoalStatus, ListRow, Preview, ResultRecord};

fn wg(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_writegate"))
        .args(args)
        .current_dir(cwd)
        .env("XDG_STATE_HOME", cwd.join("state"))
        .env_remove("LOOPX_REGISTRY")
        .output()
        .expect("run writegate")
}

fn demo(dir: &Path) -> String {
    let out = wg(&["demo", "--path", dir.join("ws").to_str().expect("utf8"), "--no-tui"], dir);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8(out.stdout).expect("utf8").trim().to_owned();
    assert_eq!(
        std::path::Path::new(&printed),
        std::fs::canonicalize(dir.join("ws")).expect("ws").join(".loopx/registry.json"),
        "the registry is DIR/.loopx/registry.json"
    );
    printed
}

#[test]
fn read_only_commands_round_trip_through_wire_types() {
    let dir = tempfile::tempdir().expect("tmp");
    let reg = demo(dir.path());
    let out = wg(&["--registry", &reg, "status", "--json"], dir.path());
    assert_eq!(out.status.code(), Some(1), "pending items → exit 1");
    let status: Doc<GoalStatus> = serde_json::from_slice(&out.stdout).expect("status json");
    assert_eq!(status.schema_version, "writegate_status_v1");
    let demo_goal = status.items.iter().find(|g| g.goal_id == "demo-goal").expect("goal");
    assert_eq!(demo_goal.state_file, ".codex/goals/demo-goal/ACTIVE_GOAL_STATE.md");
    assert!(demo_goal.pending >= 5 && demo_goal.conflicts >= 2);
    assert!(demo_goal.revision.as_deref().is_some_and(|r| r.starts_with("sha256:")));

    let out = wg(&["--registry", &reg, "list", "--json"], dir.path());
    let list: Doc<ListRow> = serde_json::from_slice(&out.stdout).expect("list json");
    for expected in
        ["ready", "lease_conflict", "skipped_duplicate", "idempotency_conflict", "boundary_rejected", "invalid"]
    {
        assert!(list.items.iter().any(|r| r.predicted_status == expected), "demo lacks a {expected} item");
    }
    let ready = list.items.iter().find(|r| r.predicted_status == "ready").expect("ready");
    let out = wg(&["--registry", &reg, "preview", &ready.item_id, "--json"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    let p: Preview = serde_json::from_slice(&out.stdout).expect("preview json");
    assert!(p.diff.starts_with("--- a/ACTIVE_GOAL_STATE.md"));
    assert_eq!(
        p.checks.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        ["schema", "goal", "authority", "idempotency", "revision", "lease", "edit", "boundary", "lock"]
    );
    assert_eq!(p.row.authority, "markdown");
    // The demo's LoopX 2.x goal: an old-style todo add is refused with the reason code.
    let canonical =
        list.items.iter().find(|r| r.goal_id == "release-goal" && r.write_class == "todo_add").expect("2.x item");
    assert_eq!(
        (canonical.predicted_status.as_str(), canonical.reason_code.as_deref()),
        ("failed", Some("canonical_authority"))
    );
    assert_eq!(canonical.authority, "canonical");
    let release = status.items.iter().find(|g| g.goal_id == "release-goal").expect("2.x goal");
    assert_eq!((release.authority.as_str(), release.projection.as_deref()), ("canonical", Some("current")));
    assert!(release.provider_revision.as_deref().is_some_and(|r| r.starts_with("sqlite:")));
    // The demo's stale showcase is recomputed on the current state: ready, and it says so.
    let stale = list.items.iter().find(|r| r.summary.starts_with("block todo_0384")).expect("the stale showcase");
    let out =
        wg(&["--registry", &reg, "preview", &format!("{}/{}", stale.goal_id, stale.item_id), "--json"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    let p: Preview = serde_json::from_slice(&out.stdout).expect("preview json");
    assert_eq!(p.row.predicted_status, "ready");
    let conflict = p.conflict.expect("conflict details");
    assert_eq!(conflict["kind"], "recomputed");
    assert_ne!(conflict["expected_revision"], conflict["current_revision"]);
    assert!(p.diff_notes.iter().any(|n| n.contains("moved since the agent's base: todo_")), "{:?}", p.diff_notes);
    // Every row says what it does.
    assert!(list.items.iter().all(|r| !r.summary.is_empty()), "a row without a summary");

    let out = wg(&["--registry", &reg, "log", "--json"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    let log: Doc<ResultRecord> = serde_json::from_slice(&out.stdout).expect("log json");
    assert!(log.items.iter().any(|r| r.status == writegate::wire::Status::Applied));

    let out = wg(&["--registry", &reg, "check", "--json"], dir.path());
    assert_eq!(out.status.code(), Some(1), "the demo has invalid items");
    let check: Value = serde_json::from_slice(&out.stdout).expect("check json");
    assert!(
        check["problems"]
            .as_array()
            .is_some_and(|p| p.iter().any(|x| x["detail"].as_str().is_some_and(|d| d.starts_with("half-written"))))
    );
    assert!(!check.to_string().contains("writeback-handoff"), "a writeback preview is not a problem item: {check}");

    let out = wg(&["--registry", &reg, "preview", "no-such-item"], dir.path());
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn propose_drops_an_item_and_refuses_what_loopx_refuses() {
    let dir = tempfile::tempdir().expect("tmp");
    let reg = demo(dir.path());
    let before = wg(&["--registry", &reg, "status", "--json"], dir.path()).stdout;
    let out = wg(
        &[
            "--registry",
            &reg,
            "propose",
            "todo",
            "update",
            "--goal-id",
            "docs-goal",
            "--todo-id",
            "todo_fa501099a20c",
            "--note",
            "a note",
            "--dry-run",
            "--format",
            "json",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let id = String::from_utf8(out.stdout).expect("utf8").trim().to_owned();
    let out = wg(&["--registry", &reg, "preview", &id, "--json"], dir.path());
    let p: Preview = serde_json::from_slice(&out.stdout).expect("preview");
    assert_eq!(p.row.predicted_status, "ready");
    let after: Doc<GoalStatus> =
        serde_json::from_slice(&wg(&["--registry", &reg, "status", "--json"], dir.path()).stdout).expect("status");
    let before: Doc<GoalStatus> = serde_json::from_slice(&before).expect("status");
    let rev = |d: &Doc<GoalStatus>| d.items.iter().find(|g| g.goal_id == "docs-goal").and_then(|g| g.revision.clone());
    assert_eq!(rev(&before), rev(&after), "propose never touches the state");

    let out = wg(
        &[
            "--registry",
            &reg,
            "propose",
            "todo",
            "claim",
            "--goal-id",
            "demo-goal",
            "--todo-id",
            "todo_doesnotexist",
            "--claimed-by",
            "codex-main-control",
            "--agent-id",
            "codex-main-control",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    let err: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(err["error"], "todo_id 'todo_doesnotexist' was not found in active user or agent todos");
    let out = wg(
        &[
            "--registry",
            &reg,
            "propose",
            "todo",
            "update",
            "--goal-id",
            "demo-goal",
            "--todo-id",
            "x",
            "--validation-command",
            "true",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2), "an unsupported LoopX flag is refused, never ignored");
}

#[test]
fn scan_exit_codes() {
    let dir = tempfile::tempdir().expect("tmp");
    let secret = dir.path().join("s.json");
    std::fs::write(&secret, r#"{"note": "use AKIAABCDEFGHIJKLMNOP"}"#).expect("write");
    let out = wg(&["scan", secret.to_str().expect("utf8"), "--json"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["findings"][0]["location"], "/note");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("AKIAABCDEFGHIJKLMNOP"), "never prints the full secret");
    let clean = dir.path().join("c.md");
    std::fs::write(&clean, "password=${DB_PASSWORD}\n").expect("write");
    assert_eq!(wg(&["scan", clean.to_str().expect("utf8")], dir.path()).status.code(), Some(0));
}

/// A document whose key is given twice hides its first value from a scan of the parsed
/// document (the last one wins): `writegate scan` blocks it as an inbox item would be
/// refused; NDJSON (several documents) is read as text, as before.
#[test]
fn scan_blocks_a_document_with_a_repeated_key() {
    let dir = tempfile::tempdir().expect("tmp");
    let twice = dir.path().join("d.json");
    std::fs::write(&twice, r#"{"payroll": [{"name": "Ana Ruiz", "salary": 98000}], "payroll": []}"#).expect("write");
    let out = wg(&["scan", twice.to_str().expect("utf8"), "--json"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["findings"][0]["rule_id"], "unreadable_json", "{v}");
    let lines = dir.path().join("n.jsonl");
    std::fs::write(&lines, "{\"a\": 1}\n{\"a\": 2}\n").expect("write");
    assert_eq!(wg(&["scan", lines.to_str().expect("utf8")], dir.path()).status.code(), Some(0));
}

/// A replace that empties the state is refused, not ready; a shorter one says how many
/// lines it removes (an empty replace read "would add or change 0 line(s)" and was ready).
#[test]
fn an_empty_replace_is_refused_and_removals_are_counted() {
    let dir = tempfile::tempdir().expect("tmp");
    let reg = demo(dir.path());
    let preview_of = |text: &str| -> Preview {
        let file = dir.path().join("proposed.md");
        std::fs::write(&file, text).expect("write");
        let args = ["--registry", &reg, "propose", "replace", "--goal-id", "docs-goal", "--file"];
        let out = wg(&[&args[..], &[file.to_str().expect("utf8")]].concat(), dir.path());
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let id = String::from_utf8(out.stdout).expect("utf8").trim().to_owned();
        serde_json::from_slice(&wg(&["--registry", &reg, "preview", &id, "--json"], dir.path()).stdout)
            .expect("preview")
    };
    let empty = preview_of("\n");
    assert_eq!(empty.row.predicted_status, "invalid");
    let edit = empty.checks.iter().find(|c| c.name == "edit").expect("edit check");
    assert!(!edit.ok && edit.detail.contains("would empty the state file"), "{}", edit.detail);
    let status: Doc<GoalStatus> =
        serde_json::from_slice(&wg(&["--registry", &reg, "status", "--json"], dir.path()).stdout).expect("status");
    let goal = status.items.iter().find(|g| g.goal_id == "docs-goal").expect("goal");
    let repo = Path::new(&reg).parent().and_then(Path::parent).expect("the registry's project");
    let current = std::fs::read_to_string(repo.join(&goal.state_file)).expect("state");
    let kept: String = current.lines().take(3).flat_map(|l| [l, "\n"]).collect();
    let shorter = preview_of(&kept);
    let edit = shorter.checks.iter().find(|c| c.name == "edit").expect("edit check");
    let removed = current.lines().count() - 3;
    assert!(edit.detail.contains(&format!("0 line(s) added, {removed} removed")), "{}", edit.detail);
}

/// An error quoting a huge argument is cut short, and a closed stderr is no crash (the
/// process wrote its error with `eprintln!`, which panics on a closed pipe: exit code 101).
#[test]
fn an_error_is_short_and_a_closed_stderr_does_not_crash() {
    let dir = tempfile::tempdir().expect("tmp");
    let registry = demo(dir.path());
    let id = "x".repeat(100_000);
    let out = wg(&["--registry", &registry, "preview", &id], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stderr.len() < 1_000, "the argument is not echoed whole: {} bytes", out.stderr.len());
    let mut child = Command::new(env!("CARGO_BIN_EXE_writegate"))
        .args(["--registry", &registry, "preview", &id])
        .current_dir(dir.path())
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    drop(child.stderr.take());
    assert_eq!(child.wait().expect("wait").code(), Some(2), "a closed stderr is not a panic");
}

/// `demo --path` on a file, or on a folder that is not empty: the error names the path and
/// nothing is written there.
#[test]
fn a_demo_path_that_cannot_hold_the_workspace_is_named_in_the_error() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "keep me").expect("file");
    let out = wg(&["demo", "--path", file.to_str().expect("utf8"), "--no-tui"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&file.display().to_string()), "{err}");
    assert_eq!(std::fs::read_to_string(&file).expect("file"), "keep me");
    let full = dir.path().join("full");
    std::fs::create_dir(&full).expect("dir");
    std::fs::write(full.join("x"), "x").expect("x");
    let out = wg(&["demo", "--path", full.to_str().expect("utf8"), "--no-tui"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&full.display().to_string()), "{err}");
    assert_eq!(std::fs::read_dir(&full).expect("dir").count(), 1);
}

#[test]
fn missing_registry_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = Command::new(env!("CARGO_BIN_EXE_writegate"))
        .args(["status"])
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env_remove("LOOPX_REGISTRY")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no LoopX registry found"));
}

#[test]
fn proposing_twice_reuses_the_pending_item_and_previews_never_show_a_secret() {
    let dir = tempfile::tempdir().expect("tmp");
    let reg = demo(dir.path());
    let args = [
        "--registry",
        &reg,
        "propose",
        "todo",
        "add",
        "--goal-id",
        "docs-goal",
        "--role",
        "agent",
        "--text",
        "[P3] Retry-safe proposal",
    ];
    let first = wg(&args, dir.path());
    let second = wg(&args, dir.path());
    assert_eq!(first.stdout, second.stdout, "a retried proposal returns the pending item");
    assert!(String::from_utf8_lossy(&second.stderr).contains("already pending"));
    let list: Doc<ListRow> =
        serde_json::from_slice(&wg(&["--registry", &reg, "list", "--json"], dir.path()).stdout).expect("list");
    let blocked = list.items.iter().find(|r| r.predicted_status == "boundary_rejected").expect("blocked item");
    let out = wg(&["--registry", &reg, "preview", &blocked.item_id, "--json"], dir.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("ghp_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2gU8"), "secret shown in full");
    assert!(text.contains("ghp_***"), "masked secret shown");
    let out = wg(&["--registry", &reg, "list", "--goal", "no-such-goal"], dir.path());
    assert_eq!(out.status.code(), Some(2), "an unknown goal is an error, not an empty list");
}

#[test]
fn revisions_prune_bounds_snapshots_and_is_refused_read_only() {
    let dir = tempfile::tempdir().expect("tmp");
    let reg = demo(dir.path());
    let store = dir.path().join("ws/.loopx-runtime/goals/docs-goal/gate/revisions");
    assert!(store.is_dir(), "the demo's proposals kept their bases");
    let out = wg(&["--registry", &reg, "--read-only", "revisions", "prune"], dir.path());
    assert_eq!(out.status.code(), Some(2), "read-only refuses to remove files");
    let stale = store.join("0".repeat(64));
    std::fs::create_dir_all(&store).expect("dir");
    std::fs::write(&stale, "an old state\n").expect("stale");
    let out =
        wg(&["--registry", &reg, "revisions", "prune", "--max-mb", "0", "--max-age-days", "1", "--json"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["schema_version"], "writegate_revisions_prune_v1");
    let docs = v["goals"].as_array().expect("goals").iter().find(|g| g["goal_id"] == "docs-goal").expect("docs-goal");
    assert_eq!(docs["ok"], true);
    assert!(docs["removed"].as_u64().expect("removed") >= 1, "{docs}");
    assert!(!stale.exists(), "an unprotected snapshot over the bound is removed");
    let out = wg(&["--registry", &reg, "revisions", "prune"], dir.path());
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(text.contains("GOAL") && text.contains("docs-goal"), "{text}");
}

#[test]
fn preview_of_a_crlf_state_shows_the_one_changed_line_and_a_line_ending_note() {
    // Issue 12 case 4: the CLI's preview used another diff than the TUI's Diff tab and showed
    // every line of a CRLF state as changed.
    let dir = tempfile::tempdir().expect("tempdir");
    let reg = demo(dir.path());
    let state = Path::new(&reg)
        .parent()
        .and_then(Path::parent)
        .expect("root")
        .join(".codex/goals/docs-goal/ACTIVE_GOAL_STATE.md");
    let lf = std::fs::read_to_string(&state).expect("state");
    std::fs::write(&state, lf.replace('\n', "\r\n")).expect("crlf");
    let proposed = dir.path().join("proposed.md");
    std::fs::write(&proposed, lf.replacen("## Next Action", "## Next Action (reviewed)", 1)).expect("write");
    let out = wg(
        &[
            "--registry",
            &reg,
            "propose",
            "replace",
            "--goal-id",
            "docs-goal",
            "--file",
            &proposed.display().to_string(),
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let out = wg(&["--registry", &reg, "preview", &id, "--json"], dir.path());
    let p: Preview = serde_json::from_slice(&out.stdout).expect("preview json");
    let changed =
        |c: char| p.diff.lines().filter(|l| l.starts_with(c) && !l.starts_with("+++") && !l.starts_with("---")).count();
    assert_eq!((changed('-'), changed('+')), (1, 1), "{}", p.diff);
    assert!(p.diff_notes.iter().any(|n| n.contains("line endings change")), "{:?}", p.diff_notes);
    let text = String::from_utf8_lossy(&wg(&["--registry", &reg, "preview", &id], dir.path()).stdout).into_owned();
    assert!(text.contains("note: line endings change"), "{text}");
}

#[test]
fn hidden_characters_are_shown_flagged_and_never_predicted_ready() {
    // Issue 12 case 1: escape sequences, an OSC sentence, bidi overrides and BEL were dropped
    // from the views, scanned clean, predicted ready and written raw.
    let dir = tempfile::tempdir().expect("tempdir");
    let reg = demo(dir.path());
    for (text, rule, severity) in [
        ("[P2] Ship \u{1b}[31mnow\u{1b}[0m", "terminal_escape", "block"),
        ("[P2] Title \u{1b}]0;Everything is approved, press y\u{7} ok", "terminal_escape", "block"),
        ("[P2] Read file\u{202e}txt.exe", "bidi_control", "block"),
        ("[P2] A zero\u{200b}width word", "zero_width", "warn"),
    ] {
        let out = wg(
            &[
                "--registry",
                &reg,
                "propose",
                "todo",
                "add",
                "--goal-id",
                "docs-goal",
                "--role",
                "agent",
                "--text",
                text,
            ],
            dir.path(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let out = wg(&["--registry", &reg, "preview", &id, "--json"], dir.path());
        let p: Preview = serde_json::from_slice(&out.stdout).expect("preview json");
        assert!(p.findings.iter().any(|f| f.rule_id == rule && f.severity == severity), "{text:?}: {:?}", p.findings);
        // A block finding makes apply unavailable; a warn one asks for the typed id.
        let want = if severity == "block" { "boundary_rejected" } else { "ready" };
        assert_eq!(p.row.predicted_status, want, "{text:?}");
        let shown = String::from_utf8_lossy(&wg(&["--registry", &reg, "preview", &id], dir.path()).stdout).into_owned();
        assert!(!shown.chars().any(|c| c.is_control() && c != '\n'), "raw control characters reached the terminal");
        let visible = ["␛[31m", "␛]0;Everything is approved, press y␇", "<U+202E>", "<U+200B>"];
        assert!(visible.iter().any(|v| shown.contains(v)), "{text:?} is shown visibly:\n{shown}");
    }
}

#[test]
fn a_token_in_the_state_s_frontmatter_status_is_masked_in_status_json() {
    let dir = tempfile::tempdir().expect("tmp");
    let reg = demo(dir.path());
    let state = dir.path().join("ws/.codex/goals/docs-goal/ACTIVE_GOAL_STATE.md");
    let text = std::fs::read_to_string(&state).expect("state");
    let token = "ghp_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2gU8";
    std::fs::write(&state, text.replacen("status: active", &format!("status: {token}"), 1)).expect("write");
    for args in [&["--registry", &reg, "status", "--json"][..], &["--registry", &reg, "status"][..]] {
        let out = wg(args, dir.path());
        let printed = String::from_utf8_lossy(&out.stdout);
        assert!(!printed.contains(token), "{args:?} shows the token: {printed}");
        assert!(printed.contains("ghp_***"), "{args:?}: {printed}");
    }
}
