//! LoopX 2.x goals on workspaces the real LoopX 2.1.1 CLI wrote (`fixtures/loopx2/`, recorded
//! by `fixtures/loopx2/record.sh`): authority detection on every step, `status --json`
//! equal to what `loopx status` / `loopx todo list` printed at that step, projection health,
//! ghosts, and fail-closed writes (issue 11).

mod common;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use writegate::engine::{Approval, Clock, Decision, Engine};
use writegate::loopx::registry::Locator;
use writegate::wire::Status;

const STEPS: &[&str] = &[
    "00-bootstrap",
    "01-adds",
    "02-claim-with-lease",
    "03-update",
    "04-complete-with-fence",
    "05-lease-renew",
    "06-lease-expired",
    "07-lease-takeover",
    "08-projection-pending",
    "09-projection-redelivered",
    "10-hand-edit-broken",
    "11-commit-while-broken",
];

/// The steps recorded on the `file` provider (`PROVIDER=file record.sh`; a subset is kept).
const FILE_STEPS: &[&str] = &[
    "00-bootstrap",
    "02-claim-with-lease",
    "06-lease-expired",
    "07-lease-takeover",
    "08-projection-pending",
    "10-hand-edit-broken",
];

/// `step` of the SQLite recording, or `file-provider/<step>` of the file one.
fn step_dir(step: &str) -> PathBuf {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/loopx2");
    match step.strip_prefix("file-provider/") {
        Some(s) => base.join("file-provider/steps").join(s),
        None => base.join("steps").join(step),
    }
}

/// Every recorded step of both providers.
fn all_steps() -> Vec<String> {
    STEPS.iter().map(|s| (*s).to_owned()).chain(FILE_STEPS.iter().map(|s| format!("file-provider/{s}"))).collect()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir").map(|e| e.expect("entry")) {
        let dest = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).expect("copy");
        }
    }
}

/// A live copy of one recorded step: (guard, registry path, project, runtime root).
fn world(step: &str) -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(dir.path()).expect("canon");
    let (project, runtime) = (root.join("project"), root.join("runtime"));
    copy_tree(&step_dir(step).join("project"), &project);
    copy_tree(&step_dir(step).join("runtime"), &runtime);
    let reg = project.join(".loopx/registry.json");
    let text = std::fs::read_to_string(&reg).expect("registry");
    let text = text
        .replace("<project>", &project.display().to_string())
        .replace("<runtime-root>", &runtime.display().to_string());
    std::fs::write(&reg, text).expect("write registry");
    write_keeping_loopx(&root);
    (dir, reg, project, runtime)
}

fn recorded(step: &str, name: &str) -> Value {
    serde_json::from_slice(&std::fs::read(step_dir(step).join(name)).expect("recorded output")).expect("json")
}

/// The instant `loopx status` observed the step (lease expiry is judged at that time).
fn observed_at(step: &str) -> Clock {
    let status = recorded(step, "status.json");
    let at = status
        .pointer("/goals/0/goal_channel_projection/coordination_observation/observed_at")
        .and_then(Value::as_str)
        .unwrap_or("2026-12-01T08:41:00+00:00")
        .to_owned();
    Clock::Fixed(chrono::DateTime::parse_from_rfc3339(&at).expect("observed_at"))
}

/// A stand-in `loopx` (at `<root>/bin/loopx`) whose `todo project-markdown --dry-run` says
/// the Markdown parses and is kept, as the real one says for a narrative edit (the live
/// tests check the real answer); every other command fails.
fn write_keeping_loopx(root: &Path) {
    let bin = root.join("bin/loopx");
    std::fs::create_dir_all(bin.parent().expect("dir")).expect("mkdir");
    std::fs::write(
        &bin,
        "#!/bin/sh\ncase \"$*\" in *'todo project-markdown'*) echo '{\"ok\": true, \"changed\": false, \"status\": \"planned\"}' ;; *) exit 2 ;; esac\n",
    )
    .expect("write");
    std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
}

/// The stand-in `loopx` of the world holding `reg`.
fn keeping_loopx(reg: &Path) -> PathBuf {
    writegate::loopx::registry::registry_project_root(reg).parent().expect("root").join("bin/loopx")
}

fn engine(reg: &Path, clock: Clock) -> Engine {
    let loc = Locator { registry: Some(reg.to_owned()), ..Locator::from_env(None, None) };
    let runner = writegate::loopx2::cli::Runner { program: keeping_loopx(reg).into(), env: None };
    Engine::open(&loc, clock, "tester".into()).expect("engine").with_loopx(runner)
}

#[test]
fn every_recorded_step_is_canonical_and_status_equals_what_loopx_reported() {
    for step in &all_steps() {
        let (_g, reg, _, _) = world(step);
        let e = engine(&reg, observed_at(step));
        let row = e.status().into_iter().next().expect("one goal");
        assert_eq!(row.authority, "canonical", "{step}");
        let list = recorded(step, "todo-list.json");
        assert_eq!(
            row.provider_revision.as_deref(),
            list.pointer("/authority_read/provider_revision").and_then(Value::as_str),
            "{step}: provider revision"
        );
        let open = list["todos"]
            .as_array()
            .expect("todos")
            .iter()
            .filter(|t| t["archive_state"] == "active" && t["status"] != "done")
            .count();
        assert_eq!(row.open_todos, open, "{step}: open todos");
        // LoopX's status lists the unexpired hard leases; writegate lists every stored-active
        // one and marks the expired.
        let status = recorded(step, "status.json");
        if status["ok"] == true {
            let loopx: Vec<(String, String, i64, i64, String)> = status
                .pointer("/goals/0/goal_channel_projection/active_leases")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|l| l["status"] == "hard_lease")
                .map(|l| {
                    let s = |k: &str| l[k].as_str().unwrap_or_default().to_owned();
                    (
                        s("todo_id"),
                        s("owner_agent"),
                        l["lease_version"].as_i64().unwrap_or(-1),
                        l["lease_epoch"].as_i64().unwrap_or(-1),
                        s("expires_at"),
                    )
                })
                .collect();
            let ours: Vec<_> = row
                .leases
                .iter()
                .filter(|l| !l.expired)
                .map(|l| (l.todo_id.clone(), l.owner.clone(), l.version, l.epoch, l.expires_at.clone()))
                .collect();
            assert_eq!(ours, loopx, "{step}: leases");
        }
    }
}

#[test]
fn an_expired_lease_is_listed_expired_and_a_takeover_bumps_version_and_epoch() {
    let (_g, reg, _, _) = world("06-lease-expired");
    let row = engine(&reg, observed_at("06-lease-expired")).status().remove(0);
    let expired: Vec<_> = row.leases.iter().filter(|l| l.expired).collect();
    assert_eq!(expired.len(), 1);
    assert_eq!((expired[0].owner.as_str(), expired[0].version, expired[0].epoch), ("agent-a", 1, 1));
    assert_eq!(expired[0].idempotency_key.as_deref(), Some("lease-a-bench"));
    let (_g, reg, _, _) = world("07-lease-takeover");
    let row = engine(&reg, observed_at("07-lease-takeover")).status().remove(0);
    let bench = row.leases.iter().find(|l| l.idempotency_key.as_deref() == Some("lease-b-bench")).expect("takeover");
    assert_eq!((bench.owner.as_str(), bench.version, bench.epoch, bench.expired), ("agent-b", 2, 2, false));
}

#[test]
fn projection_health_follows_what_loopx_did() {
    let want = |step: &str| match step.trim_start_matches("file-provider/") {
        "08-projection-pending" => "pending",
        "10-hand-edit-broken" | "11-commit-while-broken" => "broken",
        _ => "current",
    };
    for step in &all_steps() {
        let (_g, reg, _, _) = world(step);
        let row = engine(&reg, observed_at(step)).status().remove(0);
        assert_eq!(row.projection.as_deref(), Some(want(step)), "{step}");
    }
    // LoopX itself: the broken steps are the ones where `loopx status` failed.
    assert_eq!(
        recorded("10-hand-edit-broken", "status.json")["error"],
        "non-generated content inside marked Todo region"
    );
    assert_eq!(recorded("09-projection-redelivered", "status.json")["ok"], true);
}

/// A write-intent item for `goal` holding `proposal`, as an agent would drop it.
fn drop_item(runtime: &Path, name: &str, expected: &str, class: &str, proposal: &Value) {
    let inbox = runtime.join("goals/demo-goal/gate/inbox");
    std::fs::create_dir_all(&inbox).expect("inbox");
    let doc = json!({
        "local_state_write_correctness": {
            "schema_version": "local_state_write_correctness_v0",
            "write_intent": {"write_id": format!("write-{name}"), "goal_id": "demo-goal", "writer_id": "agent-a",
                "write_class": class, "target_refs": {"state_file_ref": "registry.goal.state_file"},
                "idempotency_key": format!("demo-goal:{name}"),
                "expected_revision": {"kind": "active_state_revision", "value": expected}, "lease_ref": null},
            "lock_boundary": {"kind": "per_goal", "lock_key": "goal:demo-goal"},
            "preview": {"mode": "dry_run", "patch_summary": name, "non_destructive": true, "expected_write_scopes": ["active_state"]},
            "apply_result": {"status": "preview_only", "applied_revision": null, "duplicate_of": null, "conflict": null},
        },
        "proposal": proposal,
    });
    std::fs::write(inbox.join(format!("{name}.json")), serde_json::to_vec_pretty(&doc).expect("json")).expect("write");
}

fn state_of(project: &Path) -> String {
    std::fs::read_to_string(project.join(".loopx/goals/demo-goal/ACTIVE_GOAL_STATE.md")).expect("state")
}

#[test]
fn every_0_5_style_todo_item_on_a_canonical_goal_is_refused_and_recorded_with_the_reason() {
    let (_g, reg, project, runtime) = world("07-lease-takeover");
    let before = state_of(&project);
    let rev = writegate::loopx::hash::revision_of_text(&before);
    let ops = [
        ("todo_add", json!({"role": "agent", "text": "A ghost in waiting"})),
        ("todo_update", json!({"todo_id": "todo_5286a3d4583e3465cd11f27c", "status": "blocked", "reason": "x"})),
        (
            "todo_claim",
            json!({"todo_id": "todo_b8dd253f41a1ebe0c47be046", "claimed_by": "agent-a", "agent_id": "agent-a"}),
        ),
        (
            "todo_complete",
            json!({"todo_id": "todo_5286a3d4583e3465cd11f27c", "agent_id": "agent-b", "evidence": "done"}),
        ),
        ("todo_supersede", json!({"todo_id": "todo_5286a3d4583e3465cd11f27c", "agent_id": "agent-b", "reason": "dup"})),
        ("todo_archive_completed", json!({})),
        ("refresh_state", json!({"next_action": "Ship it", "agent_id": "agent-a"})),
    ];
    for (op, args) in &ops {
        drop_item(&runtime, op, &rev, op, &json!({"kind": "todo_op", "op": op, "args": args}));
    }
    let e = engine(&reg, observed_at("07-lease-takeover"));
    let rows = e.list(None);
    assert_eq!(rows.len(), ops.len());
    for r in &rows {
        assert_eq!(
            (r.predicted_status.as_str(), r.reason_code.as_deref()),
            ("failed", Some("canonical_authority")),
            "{r:?}"
        );
        assert_eq!(r.authority, "canonical");
    }
    for (op, _) in &ops {
        let out = e
            .decide(
                op,
                &Decision::Apply(Approval {
                    confirm_warnings: true,
                    override_idempotency: true,
                    ..Approval::default()
                }),
                None,
            )
            .expect("decide");
        assert_eq!(out.status, Status::Failed, "{op}");
        let rec = out.record.expect("recorded");
        assert_eq!(rec.reason_code.as_deref(), Some("canonical_authority"), "{op}");
        assert!(out.message.contains("propose the agent's `loopx` command"), "{op}: {}", out.message);
    }
    assert_eq!(state_of(&project), before, "nothing was written");
    assert_eq!(e.list(None).len(), ops.len(), "the items stay pending");
}

#[test]
fn a_narrative_replace_applies_and_a_region_writing_or_ghost_adding_replace_is_refused() {
    let (_g, reg, project, runtime) = world("07-lease-takeover");
    let before = state_of(&project);
    let rev = writegate::loopx::hash::revision_of_text(&before);
    let narrative = before
        .replace("- Created the initial goal state", "- Reviewed by the operator.\n- Created the initial goal state");
    assert_ne!(narrative, before);
    let in_region = before.replacen(
        "<!-- loopx:todo-region-v0 role=agent end -->",
        "A note.\n<!-- loopx:todo-region-v0 role=agent end -->",
        1,
    );
    let ghost = before.replace("## Next Action\n", "## Next Action\n\n- [ ] [P1] Sneak a todo past LoopX\n");
    let retitled = before.replacen("Write the docs", "Write the manual", 1);
    drop_item(&runtime, "narrative", &rev, "replace", &json!({"kind": "replace", "text": narrative}));
    drop_item(&runtime, "in-region", &rev, "replace", &json!({"kind": "replace", "text": in_region}));
    drop_item(&runtime, "ghost", &rev, "replace", &json!({"kind": "replace", "text": ghost}));
    drop_item(&runtime, "retitled", &rev, "replace", &json!({"kind": "replace", "text": retitled}));
    let e = engine(&reg, observed_at("07-lease-takeover"));
    let status_of = |id: &str| e.list(None).into_iter().find(|r| r.item_id == id).expect("row");
    for id in ["in-region", "ghost", "retitled"] {
        let r = status_of(id);
        assert_eq!(
            (r.predicted_status.as_str(), r.reason_code.as_deref()),
            ("failed", Some("canonical_authority")),
            "{id}"
        );
        let out = e.decide(id, &Decision::apply_confirmed(), None).expect("decide");
        assert_eq!(out.status, Status::Failed, "{id}");
    }
    assert_eq!(state_of(&project), before);
    assert_eq!(status_of("narrative").predicted_status, "ready");
    let out = e.decide("narrative", &Decision::apply_confirmed(), None).expect("decide");
    assert_eq!(out.status, Status::Applied, "{}", out.message);
    assert_eq!(state_of(&project), narrative);
    let row = e.status().remove(0);
    assert_eq!(row.projection.as_deref(), Some("current"), "a narrative edit keeps the projection current");
}

#[test]
fn a_ghost_todo_outside_the_regions_is_reported_by_check() {
    let (_g, reg, project, _) = world("07-lease-takeover");
    let path = project.join(".loopx/goals/demo-goal/ACTIVE_GOAL_STATE.md");
    let text = state_of(&project).replace(
        "## Next Action\n",
        "## Next Action\n\n- [ ] [P1] Ghost\n  <!-- loopx:todo todo_id=todo_aaaaaaaaaaaaaaaaaaaaaaaa status=open -->\n",
    );
    std::fs::write(&path, text).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_writegate"))
        .args(["--registry", &reg.display().to_string(), "check", "--json"])
        .env("XDG_STATE_HOME", project.join("state"))
        .output()
        .expect("run");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(out.status.code(), Some(1));
    let ghosts: Vec<&Value> =
        doc["problems"].as_array().expect("problems").iter().filter(|p| p["what"] == "ghost_todo").collect();
    assert_eq!(ghosts.len(), 1, "{doc}");
    assert!(ghosts[0]["detail"].as_str().expect("detail").contains("todo_aaaaaaaaaaaaaaaaaaaaaaaa"));
    assert_eq!(doc["goals"][0]["authority"], "canonical");
    assert_eq!(doc["goals"][0]["read_via"], "sqlite");
}

#[test]
fn check_reports_pending_and_broken_projections_and_a_runtime_root_without_the_store() {
    for (step, what) in [("08-projection-pending", "projection_pending"), ("10-hand-edit-broken", "projection_broken")]
    {
        let (_g, reg, project, _) = world(step);
        let out = Command::new(env!("CARGO_BIN_EXE_writegate"))
            .args(["--registry", &reg.display().to_string(), "check", "--json"])
            .env("XDG_STATE_HOME", project.join("state"))
            .output()
            .expect("run");
        let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert!(doc["problems"].as_array().expect("p").iter().any(|p| p["what"] == what), "{step}: {doc}");
    }
    let (_g, reg, project, _) = world("07-lease-takeover");
    let empty = project.join("empty-rt");
    std::fs::create_dir_all(&empty).expect("mkdir");
    let out = Command::new(env!("CARGO_BIN_EXE_writegate"))
        .args([
            "--registry",
            &reg.display().to_string(),
            "--runtime-root",
            &empty.display().to_string(),
            "check",
            "--json",
        ])
        .env("XDG_STATE_HOME", project.join("state"))
        .output()
        .expect("run");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(doc["problems"].as_array().expect("p").iter().any(|p| p["what"] == "runtime_root"), "{doc}");
}

#[test]
fn propose_on_a_canonical_goal_takes_loopx_flags_and_drops_nothing_without_loopxs_dry_run() {
    // On a LoopX 2.x goal `propose` takes LoopX 2.1.1's own flags (`--priority`,
    // `--operation-id` are not 0.5.x flags) and needs LoopX's dry run: with no LoopX to run,
    // nothing is dropped (the live tests in loopx2_gate cover the real CLI).
    let (_g, reg, project, _) = world("07-lease-takeover");
    let before = state_of(&project);
    for args in [
        vec![
            "todo",
            "add",
            "--goal-id",
            "demo-goal",
            "--role",
            "agent",
            "--text",
            "Never here",
            "--priority",
            "P1",
            "--operation-id",
            "op-x",
        ],
        vec!["refresh-state", "--goal-id", "demo-goal", "--next-action", "Ship"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_writegate"))
            .args(["--registry", &reg.display().to_string(), "propose"])
            .args(&args)
            .env("XDG_STATE_HOME", project.join("state"))
            .env("WRITEGATE_LOOPX", project.join("no-such-loopx"))
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(doc["ok"], false);
        assert!(doc["error"].as_str().expect("error").contains("cannot run"), "{doc}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_writegate"))
        .args([
            "--registry",
            &reg.display().to_string(),
            "propose",
            "todo",
            "add",
            "--goal-id",
            "demo-goal",
            "--oper",
            "x",
        ])
        .env("XDG_STATE_HOME", project.join("state"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--oper: not a flag of `loopx todo add`"));
    assert_eq!(state_of(&project), before);
    assert!(!project.parent().expect("root").join("runtime/goals/demo-goal/gate/inbox").exists());
}

/// `writegate --registry REG ARGS` (optionally with `$WRITEGATE_LOOPX`): its JSON output.
fn writegate_json(reg: &Path, project: &Path, args: &[&str], loopx: Option<&Path>) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_writegate"));
    cmd.args(["--registry", &reg.display().to_string()]).args(args).env("XDG_STATE_HOME", project.join("state"));
    if let Some(l) = loopx {
        cmd.env("WRITEGATE_LOOPX", l);
    }
    let out = cmd.output().expect("run writegate");
    serde_json::from_slice(&out.stdout).expect("json")
}

#[test]
fn an_unknown_store_schema_falls_back_to_loopxs_cli_and_check_says_so() {
    let (_g, reg, project, runtime) = world("07-lease-takeover");
    let store = writegate::loopx2::store::sqlite_path(&runtime, "demo-goal");
    let conn = rusqlite::Connection::open(&store).expect("open");
    conn.execute("UPDATE metadata SET schema_version = 'loopx_sqlite_authority_store_v9'", []).expect("update");
    drop(conn);
    // A stand-in `loopx` that prints what the real one printed at this step, and notes
    // every call.
    let fake = project.join("fake-loopx");
    let calls = project.join("fake-loopx.calls");
    let list = step_dir("07-lease-takeover").join("todo-list.json");
    let status = step_dir("07-lease-takeover").join("status.json");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\ncase \"$*\" in *'todo list'*) cat '{}' ;; *status*) cat '{}' ;; *) exit 2 ;; esac\n",
            calls.display(),
            list.display(),
            status.display()
        ),
    )
    .expect("write");
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    // Previews need only the Markdown: `list` (and so every apply, which holds LoopX's state
    // lock) never waits on a `loopx` read.
    let rev = writegate::loopx::hash::revision_of_text(&state_of(&project));
    drop_item(
        &runtime,
        "old-add",
        &rev,
        "todo_add",
        &json!({"kind": "todo_op", "op": "todo_add", "args": {"role": "agent", "text": "x"}}),
    );
    let doc = writegate_json(&reg, &project, &["list", "--json"], Some(&fake));
    assert_eq!(doc["items"][0]["reason_code"], "canonical_authority");
    assert!(!calls.exists(), "list ran loopx");
    let doc = writegate_json(&reg, &project, &["check", "--json"], Some(&fake));
    assert_eq!(doc["goals"][0]["read_via"], "loopx_cli", "{doc}");
    assert!(doc["goals"][0]["fallback"].as_str().expect("fallback").contains("loopx_sqlite_authority_store_v9"));
    let doc = writegate_json(&reg, &project, &["status", "--json"], Some(&fake));
    let row = &doc["items"][0];
    assert_eq!(row["provider_revision"], "sqlite:81ab47f63ae0490099ff0192404a9dc6:12");
    assert_eq!(row["open_todos"], 3);
    assert_eq!(row["projection"], Value::Null, "not judged from the CLI's records");
}

#[test]
fn the_global_registry_under_dot_loopx_is_found_outside_the_project() {
    let (_g, reg, project, runtime) = world("07-lease-takeover");
    let home = project.parent().expect("root").join("home");
    std::fs::create_dir_all(home.join(".loopx")).expect("mkdir");
    let global = std::fs::read_to_string(&reg).expect("reg");
    std::fs::write(home.join(".loopx/registry.global.json"), global).expect("write");
    let elsewhere = project.parent().expect("root").join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    let out = Command::new(env!("CARGO_BIN_EXE_writegate"))
        .args(["status", "--json"])
        .current_dir(&elsewhere)
        .env("HOME", &home)
        .env_remove("LOOPX_REGISTRY")
        .env("XDG_STATE_HOME", project.join("state"))
        .output()
        .expect("run");
    assert!(out.status.success() || out.status.code() == Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["items"][0]["authority"], "canonical");
    assert_eq!(doc["items"][0]["provider_revision"], "sqlite:81ab47f63ae0490099ff0192404a9dc6:12");
    let _ = runtime;
}

#[test]
fn a_goal_whose_authority_lives_under_another_root_is_still_canonical() {
    // writegate pointed at an empty runtime root while LoopX 2.x keeps the goal under
    // ~/.loopx: detection looks there too, refuses 0.5.x edits and check names the root.
    let (_g, reg, project, runtime) = world("00-bootstrap");
    let root = project.parent().expect("root").to_owned();
    let home = root.join("home");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::rename(&runtime, home.join(".loopx")).expect("move runtime");
    // Without the registry's storage_target and with only unmarked headings (a fresh
    // bootstrap), the authority files are the only evidence.
    let mut entry: Value = serde_json::from_str(&std::fs::read_to_string(&reg).expect("reg")).expect("json");
    entry["goals"][0]["coordination"].as_object_mut().expect("coordination").remove("storage_target");
    std::fs::write(&reg, serde_json::to_vec_pretty(&entry).expect("json")).expect("write");
    let elsewhere = root.join("rt-elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    let rev = writegate::loopx::hash::revision_of_text(&state_of(&project));
    drop_item(
        &elsewhere,
        "old-add",
        &rev,
        "todo_add",
        &json!({"kind": "todo_op", "op": "todo_add", "args": {"role": "agent", "text": "x"}}),
    );
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_writegate"))
            .args(["--registry", &reg.display().to_string(), "--runtime-root", &elsewhere.display().to_string()])
            .args(args)
            .env("HOME", &home)
            .env("XDG_STATE_HOME", root.join("state"))
            .output()
            .expect("run");
        serde_json::from_slice::<Value>(&out.stdout).expect("json")
    };
    let list = run(&["list", "--json"]);
    assert_eq!(list["items"][0]["authority"], "canonical", "{list}");
    assert_eq!(list["items"][0]["reason_code"], "canonical_authority");
    let check = run(&["check", "--json"]);
    let detail = check["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .find(|p| p["what"] == "runtime_root")
        .and_then(|p| p["detail"].as_str())
        .expect("runtime_root problem")
        .to_owned();
    assert!(detail.contains(&home.join(".loopx").display().to_string()), "{detail}");
}

#[test]
fn a_home_relative_common_runtime_root_and_loopx_2s_default_root_are_followed() {
    let (_g, reg, project, runtime) = world("07-lease-takeover");
    let root = project.parent().expect("root").to_owned();
    let home = root.join("home");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::rename(&runtime, home.join(".loopx")).expect("move runtime");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&reg).expect("reg")).expect("json");
    for value in [json!("~/.loopx"), Value::Null] {
        doc["common_runtime_root"] = value.clone();
        std::fs::write(&reg, serde_json::to_vec_pretty(&doc).expect("json")).expect("write");
        let out = Command::new(env!("CARGO_BIN_EXE_writegate"))
            .args(["--registry", &reg.display().to_string(), "status", "--json"])
            .env("HOME", &home)
            .env("XDG_STATE_HOME", root.join("state"))
            .output()
            .expect("run");
        let row = serde_json::from_slice::<Value>(&out.stdout).expect("json")["items"][0].clone();
        assert_eq!(row["provider_revision"], "sqlite:81ab47f63ae0490099ff0192404a9dc6:12", "{value}: {row}");
    }
}

#[test]
fn no_legacy_lease_file_is_released_on_a_canonical_goal() {
    let (_g, reg, project, runtime) = world("07-lease-takeover");
    let todo = "todo_5286a3d4583e3465cd11f27c";
    let lease = json!({"schema_version": "task_lease_v0", "goal_id": "demo-goal", "todo_id": todo, "owner": "agent-b",
        "idempotency_key": "old-key", "write_scopes": [], "acquire_ttl_seconds": 60, "version": 1, "lease_epoch": 1,
        "acquired_at": "2026-11-01T00:00:00Z", "updated_at": "2026-11-01T00:00:00Z",
        "expires_at": "2026-11-01T00:01:00Z", "status": "active"});
    let dir = runtime.join("goals/demo-goal/task-leases");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let path = dir.join(format!("{todo}.json"));
    std::fs::write(&path, serde_json::to_vec_pretty(&lease).expect("json")).expect("write");
    let before = state_of(&project);
    let edited = before.replacen("Write the docs", "Write the manual", 1);
    drop_item(
        &runtime,
        "touches-todo",
        &writegate::loopx::hash::revision_of_text(&before),
        "replace",
        &json!({"kind": "replace", "text": edited}),
    );
    let e = engine(&reg, observed_at("07-lease-takeover"));
    let seen = writegate::loopx::lease::TaskLease {
        todo_id: todo.into(),
        owner: "agent-b".into(),
        version: 1,
        lease_epoch: 1,
        expires_at: "2026-11-01T00:01:00Z".into(),
        status: "active".into(),
        idempotency_key: Some("old-key".into()),
    };
    let decision = Decision::ReleaseExpiredLease { todo_id: todo.into(), seen, reason: String::new() };
    let err = e.decide("touches-todo", &decision, None).expect_err("refused");
    assert!(err.to_string().contains("LoopX 2.x goal"), "{err}");
    let after: Value = serde_json::from_slice(&std::fs::read(&path).expect("lease")).expect("json");
    assert_eq!(after["status"], "active", "the file is untouched");
}

#[test]
fn a_file_provider_goal_is_read_from_its_journal_not_through_the_cli() {
    let (_g, reg, project, _) = world("file-provider/07-lease-takeover");
    // A `loopx` that fails: the journal must be read directly.
    let doc = writegate_json(&reg, &project, &["check", "--json"], Some(Path::new("/nonexistent/loopx")));
    assert_eq!(doc["goals"][0]["read_via"], "file_store", "{doc}");
    assert!(doc["goals"][0]["provider_revision"].as_str().is_some_and(|r| r.starts_with("file:")), "{doc}");
    assert_eq!(
        doc["goals"][0]["evidence"],
        json!(["legacy_writer_fence", "authority_store", "registry_storage_target", "todo_region_markers"])
    );
}

#[test]
fn propose_replace_drops_a_narrative_edit_once_and_refuses_a_region_edit() {
    let (_g, reg, project, _) = world("07-lease-takeover");
    let before = state_of(&project);
    let run = |text: &str| {
        let file = project.join("proposed.md");
        std::fs::write(&file, text).expect("write");
        let out = Command::new(env!("CARGO_BIN_EXE_writegate"))
            .args(["--registry", &reg.display().to_string(), "propose", "replace", "--goal-id", "demo-goal"])
            .args(["--file", &file.display().to_string(), "--agent-id", "agent-a"])
            .env("XDG_STATE_HOME", project.join("state"))
            .env("WRITEGATE_LOOPX", keeping_loopx(&reg))
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).trim().to_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let narrative = before.replace("## Progress Ledger\n", "## Progress Ledger\n\n- Reviewed.\n");
    let (code, id, _) = run(&narrative);
    assert_eq!(code, Some(0));
    let (_, again, note) = run(&narrative);
    assert_eq!(again, id, "the same edit reuses the pending item");
    assert!(note.contains("already pending"), "{note}");
    let (code, out, _) = run(&before.replacen("Write the docs", "Write the manual", 1));
    assert_eq!(code, Some(2), "a region edit can never apply on a 2.x goal: refused like a todo edit");
    assert!(out.contains("canonical_authority") && out.contains("writes inside a generated todo region"), "{out}");
    let rows = writegate_json(&reg, &project, &["list", "--json"], Some(&keeping_loopx(&reg)));
    assert_eq!(rows["items"].as_array().expect("items").len(), 1, "nothing dropped for the refused edit");
    assert_eq!(rows["items"][0]["item_id"], id.as_str());
    assert_eq!(rows["items"][0]["predicted_status"], "ready");
    let (code, _, note) = run(&before);
    assert_eq!(code, Some(2), "the current text is nothing to propose: {note}");
    assert_eq!(state_of(&project), before, "propose never writes the state");
}

#[test]
fn propose_replace_against_an_older_revision_is_a_revision_conflict_not_a_silent_revert() {
    let (_g, reg, project, _) = world("07-lease-takeover");
    let read = state_of(&project);
    let rev = writegate::loopx::hash::revision_of_text(&read);
    // Someone else writes the narrative after the agent read it.
    let path = project.join(".loopx/goals/demo-goal/ACTIVE_GOAL_STATE.md");
    // (LoopX re-rendered a region meanwhile too: the stale edit is judged stale, not as a
    // region edit.)
    let meanwhile = read.replace("## Next Action\n", "## Next Action\n\n- Written meanwhile.\n");
    std::fs::write(&path, meanwhile.replacen("Write the docs", "Write the docs now", 1)).expect("write");
    let file = project.join("proposed.md");
    std::fs::write(&file, read.replace("## Progress Ledger\n", "## Progress Ledger\n\n- Mine.\n")).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_writegate"))
        .args(["--registry", &reg.display().to_string(), "propose", "replace", "--goal-id", "demo-goal"])
        .args(["--file", &file.display().to_string(), "--expected-revision", &rev])
        .env("XDG_STATE_HOME", project.join("state"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = writegate_json(&reg, &project, &["list", "--json"], None);
    assert_eq!(rows["items"][0]["predicted_status"], "revision_conflict", "{rows}");
}

#[test]
fn a_writeback_names_a_todo_loopx_holds_even_while_the_markdown_does_not_show_it_yet() {
    // Issue 13 item 6: on a LoopX 2.x goal entry criterion 2 reads the authority, not the
    // Markdown (here a pending projection: the todo committed while the lock was held).
    let (_g, reg, _project, runtime) = world("08-projection-pending");
    let added: Value = serde_json::from_slice(
        &std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/loopx2/outputs/add-while-locked.json"))
            .expect("output"),
    )
    .expect("json");
    let todo = added["todo_id"].as_str().expect("todo id");
    let inbox = runtime.join("goals/demo-goal/gate/inbox");
    std::fs::create_dir_all(&inbox).expect("inbox");
    for (name, id) in [("named", todo), ("unknown", "todo_000000000000000000000000")] {
        let doc = json!({"schema_version": "session_runtime_controlled_writeback_v0", "goal_id": "demo-goal", "agent_id": "agent-a",
            "runtime": {"runtime_id": "codex_cli_tui", "session_id": "public-safe-session-handle"},
            "loopx_source": {"source_todo_id": id, "source_event_class": "handoff_packet"},
            "writeback": {"write_class": "handoff_packet_pointer", "mode": "dry_run", "idempotency_key": format!("demo-goal:{name}"),
                "payload": {"decision_label": "approved_next_action", "summary": "continue", "evidence_pointer_count": 1}},
            "boundary": {"raw_transcripts_copied": false, "raw_tool_outputs_copied": false, "credentials_copied": false,
                "private_paths_copied": false, "launch_authority_granted": false},
            "result": {"status": "previewed", "runtime_event_id": null, "loopx_writeback_run_id": null}});
        std::fs::write(inbox.join(format!("{name}.json")), serde_json::to_vec(&doc).expect("json")).expect("write");
    }
    let state = std::fs::read_to_string(reg.parent().expect("dir").join("goals/demo-goal/ACTIVE_GOAL_STATE.md"))
        .expect("state");
    assert!(!state.contains(todo), "the Markdown does not show the todo yet");
    let e = engine(&reg, observed_at("08-projection-pending"));
    let source = |id: &str| {
        let item = e.find_item(id).expect("item");
        e.prepare(&item).checks.into_iter().find(|c| c.name.starts_with("entry.2")).expect("entry.2")
    };
    let named = source("named");
    assert!(named.ok && named.detail.contains("in LoopX's authority"), "{named:?}");
    let unknown = source("unknown");
    assert!(!unknown.ok && unknown.detail.contains("not in LoopX's authority"), "{unknown:?}");
}
