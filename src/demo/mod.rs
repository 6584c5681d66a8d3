//! The built-in sample workspace (`writegate demo`): two goals in the real LoopX layout,
//! state files LoopX itself wrote (`assets/demo/`), and pending items of every kind —
//! ready, revision / lease / idempotency conflicts, a duplicate, a boundary block, a
//! warning, invalid files, a writeback preview — produced through the same engine; and a
//! third goal written by LoopX 2.1.1 ([`loopx2`]).

pub mod loopx2;

use crate::engine::{Clock, Decision, Engine, EngineError, ProposeError};
use crate::gate::fsutil::atomic_write;
use crate::loopx::edit::{EditContext, TodoArgs, TodoOp, apply_op};
use crate::loopx::registry::Locator;
use serde_json::json;
use std::path::{Path, PathBuf};

const DEMO_STATE: &str = include_str!("../../assets/demo/demo-goal.ACTIVE_GOAL_STATE.md");
const DOCS_STATE: &str = include_str!("../../assets/demo/docs-goal.ACTIVE_GOAL_STATE.md");
const RAW_DRY_RUN: &str = include_str!("../../assets/demo/raw-loopx-dry-run.json");
/// Run rows LoopX 0.5.4 wrote (refresh, quota spend/void, three operator gates, two reward
/// overlays; `fixtures/samples/08-gate-reward-quota`), `<runtime-root>` filled in at build.
const RUNS_INDEX: &str = include_str!("../../assets/demo/runs-index.jsonl");
const MAIN: &str = "codex-main-control";
const PEER: &str = "codex-peer-b";

/// Failures building the demo.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The target folder is not empty.
    #[error("{0} exists and is not empty; choose another --path")]
    NotEmpty(PathBuf),
    /// I/O.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    /// Engine.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A demo proposal was refused (a bug in the demo script).
    #[error(transparent)]
    Propose(#[from] ProposeError),
}

fn io<T>(what: &str, r: std::io::Result<T>) -> Result<T, DemoError> {
    r.map_err(|e| DemoError::Io(what.to_owned(), e))
}

fn write(path: &Path, text: &str) -> Result<(), DemoError> {
    if let Some(dir) = path.parent() {
        io("create folder", std::fs::create_dir_all(dir))?;
    }
    io(&format!("write {}", path.display()), std::fs::write(path, text))
}

fn update(todo: &str, f: impl FnOnce(&mut TodoArgs)) -> TodoOp {
    let mut a = TodoArgs { todo_id: Some(todo.into()), agent_id: Some(MAIN.into()), ..TodoArgs::default() };
    f(&mut a);
    TodoOp::TodoUpdate(a)
}

/// Creates the demo workspace under `root` (which must be empty or absent) and returns
/// the registry path.
///
/// # Errors
/// [`DemoError`].
pub fn build(root: &Path, operator: &str) -> Result<PathBuf, DemoError> {
    if root.exists() && io(&format!("read folder {}", root.display()), std::fs::read_dir(root))?.next().is_some() {
        return Err(DemoError::NotEmpty(root.to_owned()));
    }
    let create = format!("create folder {}", root.display());
    let root = io(&create, std::fs::create_dir_all(root).and_then(|()| std::fs::canonicalize(root)))?;
    let project = root.clone();
    let runtime = root.join(".loopx-runtime");
    let registry = write_goal_files(&project, &runtime)?;
    let loc = Locator { registry: Some(registry.clone()), ..Locator::from_env(None, None) };
    let engine = Engine::open(&loc, Clock::System, operator.to_owned())?;
    demo_goal_history(&engine)?;
    demo_goal_intents(&engine)?;
    demo_goal_other_files(&engine, &runtime)?;
    docs_goal_items(&engine)?;
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string();
    loopx2::drop_items(&engine, &stamp)?;
    Ok(registry)
}

/// The registry (two LoopX 0.5.x goals and the LoopX 2.x one), their state files, the 2.x
/// goal's files and demo-goal's two task leases (one held by the peer, one expired), under
/// `project` and `runtime`; returns the registry path.
fn write_goal_files(project: &Path, runtime: &Path) -> Result<PathBuf, DemoError> {
    let registry = project.join(".loopx/registry.json");
    let goal = |id: &str, agents: &[&str]| {
        json!({
            "id": id, "domain": "demo", "status": "active", "repo": project,
            "state_file": format!(".codex/goals/{id}/ACTIVE_GOAL_STATE.md"),
            "adapter": {"kind": "generic_project_goal_v0", "status": "connected"},
            "authority_sources": [],
            "coordination": {"registered_agents": agents, "agent_model": "peer_v1"},
        })
    };
    let reg = json!({"schema_version": "0.1", "updated_at": "2026-11-29", "common_runtime_root": runtime,
        "goals": [goal("demo-goal", &[MAIN, PEER]), goal("docs-goal", &[MAIN]), loopx2::registry_entry(project)]});
    write(&registry, &(serde_json::to_string_pretty(&reg).unwrap_or_default() + "\n"))?;
    write(&project.join(".codex/goals/demo-goal/ACTIVE_GOAL_STATE.md"), DEMO_STATE)?;
    write(&project.join(".codex/goals/docs-goal/ACTIVE_GOAL_STATE.md"), DOCS_STATE)?;
    loopx2::write_files(project, runtime)?;
    let lease = |todo: &str, owner: &str, expires: chrono::DateTime<chrono::Utc>| {
        json!({
        "schema_version": "task_lease_v0", "goal_id": "demo-goal", "todo_id": todo, "owner": owner,
        "idempotency_key": format!("demo-{todo}"), "write_scopes": ["docs/**"], "acquire_ttl_seconds": 7200,
        "version": 1, "lease_epoch": 1, "acquired_at": "2026-11-29T12:00:00Z", "updated_at": "2026-11-29T12:00:00Z",
        "expires_at": expires.format("%Y-%m-%dT%H:%M:%SZ").to_string(), "status": "active"})
    };
    let now = chrono::Utc::now();
    let leases = runtime.join("goals/demo-goal/task-leases");
    write(
        &leases.join("todo_28ff25cccdd0.json"),
        &(crate::loopx::hash::python_json_indent2(&lease("todo_28ff25cccdd0", PEER, now + chrono::Duration::hours(2)))
            + "\n"),
    )?;
    write(
        &leases.join("todo_c670645b588b.json"),
        &(crate::loopx::hash::python_json_indent2(&lease("todo_c670645b588b", MAIN, now - chrono::Duration::hours(1)))
            + "\n"),
    )?;
    Ok(registry)
}

/// demo-goal's history: a claim applied, the same item dropped in again (a duplicate), and
/// an update proposed before another LoopX writer changed the state (a stale intent).
fn demo_goal_history(engine: &Engine) -> Result<(), DemoError> {
    let apply = Decision::apply();
    let claim = engine.propose(
        "demo-goal",
        &TodoOp::TodoClaim(TodoArgs {
            todo_id: Some("todo_cc1c01a7ef81".into()),
            agent_id: Some(MAIN.into()),
            claimed_by: Some(MAIN.into()),
            ..TodoArgs::default()
        }),
    )?;
    let claim = claim.item_id;
    engine.decide(&claim, &apply, None)?;
    let gate = engine.gate("demo-goal")?;
    let decided = io("read decided item", std::fs::read(gate.decided().join(format!("{claim}.json"))))?;
    io("write duplicate", atomic_write(&gate.inbox().join(format!("{claim}-retry.json")), &decided))?;
    // A stale intent: proposed, then another LoopX writer changed the state.
    engine.propose(
        "demo-goal",
        &update("todo_0384f4bcd660", |a| {
            a.status = Some("blocked".into());
            a.reason = Some("waiting on CI capacity".into());
        }),
    )?;
    let state_path = engine.goal("demo-goal")?.state_file.clone();
    let text = io("read state", std::fs::read_to_string(&state_path))?;
    let ctx = EditContext {
        goal_id: "demo-goal".into(),
        registered_agents: vec![MAIN.into(), PEER.into()],
        now: Clock::System.loopx_now(),
    };
    let other = TodoOp::TodoAdd(TodoArgs {
        role: Some("agent".into()),
        text: Some("[P2] Added meanwhile by another agent".into()),
        ..TodoArgs::default()
    });
    if let Ok(o) = apply_op(&text, &other, &ctx) {
        io("write state", atomic_write(&state_path, o.text.as_bytes()))?;
    }
    Ok(())
}

/// demo-goal's current intents: ready, hard-lease conflicts, a boundary block and a warning.
fn demo_goal_intents(engine: &Engine) -> Result<(), DemoError> {
    engine.propose(
        "demo-goal",
        &update("todo_cc1c01a7ef81", |a| {
            a.note = Some("halfway: 2/3 done, see #12".into());
            a.evidence = Some("smoke passed: 2/3 ok".into());
        }),
    )?;
    engine.propose(
        "demo-goal",
        &update("todo_28ff25cccdd0", |a| {
            a.note = Some("started the upstream PR".into());
        }),
    )?;
    engine.propose(
        "demo-goal",
        &TodoOp::TodoSupersede(TodoArgs {
            todo_id: Some("todo_c670645b588b".into()),
            agent_id: Some(MAIN.into()),
            reason: Some("replaced by a narrower plan".into()),
            ..TodoArgs::default()
        }),
    )?;
    engine.propose(
        "demo-goal",
        &update("todo_db6353bdcb9c", |a| {
            a.note = Some("deploy with token=ghp_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2gU8".into());
        }),
    )?;
    engine.propose(
        "demo-goal",
        &update("todo_db6353bdcb9c", |a| {
            a.evidence = Some("ci log kept at /home/alice/ci/run-418.log".into());
        }),
    )?;
    Ok(())
}

/// An intent cut off just after `"write_intent": {` (the brace written as `\u{7b}`, so the
/// source's braces stay balanced for readers and tools that count them).
const HALF_WRITTEN: &str = "{\"schema_version\": \"local_state_write_correctness_v0\", \"write_intent\": \u{7b}";

/// demo-goal's other files: invalid inputs (half-written, LoopX dry-run output without a
/// proposal), the run rows LoopX wrote, the workspace's runtimes and the writeback previews.
fn demo_goal_other_files(engine: &Engine, runtime: &Path) -> Result<(), DemoError> {
    let gate = engine.gate("demo-goal")?;
    write(&gate.inbox().join("half-written.json"), HALF_WRITTEN)?;
    write(&gate.inbox().join("raw-loopx-dry-run.json"), RAW_DRY_RUN)?;
    write(
        &runtime.join("goals/demo-goal/runs/index.jsonl"),
        &RUNS_INDEX.replace("<runtime-root>", &runtime.to_string_lossy()),
    )?;
    write(&runtime.join(crate::engine::adapters::WORKSPACE_FILE), RUNTIMES_TOML)?;
    write(
        &runtime.join("runtimes").join(OFFLINE_RUNTIME),
        "not a folder: this runtime's inbox is unavailable (writegate demo)\n",
    )?;
    for (name, doc) in writebacks() {
        write(
            &gate.inbox().join(format!("{name}.json")),
            &(serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"),
        )?;
    }
    Ok(())
}

/// docs-goal (one agent): an idempotency conflict (LoopX reuses a todo's key), then ready
/// items.
fn docs_goal_items(engine: &Engine) -> Result<(), DemoError> {
    let apply = Decision::apply();
    let block = engine.propose(
        "docs-goal",
        &update("todo_61974865c668", |a| {
            a.status = Some("blocked".into());
            a.reason = Some("waiting for review".into());
        }),
    )?;
    engine.decide(&block.item_id, &apply, None)?;
    engine.propose("docs-goal", &update("todo_61974865c668", |a| a.status = Some("open".into())))?;
    engine.propose(
        "docs-goal",
        &TodoOp::RefreshState(TodoArgs {
            next_action: Some("Run the smoke suite, then record the 3/3 result.".into()),
            ..TodoArgs::default()
        }),
    )?;
    engine.propose(
        "docs-goal",
        &TodoOp::TodoAdd(TodoArgs {
            role: Some("agent".into()),
            text: Some("[P2] Write the release notes".into()),
            ..TodoArgs::default()
        }),
    )?;
    Ok(())
}

/// One writeback preview of the demo (seed "Minimal Shape"), with `f` applied.
fn writeback(
    class: &str,
    key: &str,
    payload: &serde_json::Value,
    f: impl FnOnce(&mut serde_json::Value),
) -> serde_json::Value {
    let mut doc = json!({"schema_version": "session_runtime_controlled_writeback_v0", "goal_id": "demo-goal", "agent_id": MAIN,
        "runtime": {"runtime_id": "codex_cli_tui", "session_id": "public-safe-session-handle"},
        "loopx_source": {"source_run_id": "2026-11-29T13-03-29-00-00", "source_todo_id": "todo_cc1c01a7ef81",
            "source_event_class": crate::engine::writeback::class(class).map_or("handoff_packet", |c| c.source)},
        "writeback": {"write_class": class, "mode": "dry_run", "idempotency_key": key, "payload": payload.clone()},
        "boundary": {"raw_transcripts_copied": false, "raw_tool_outputs_copied": false, "credentials_copied": false,
            "private_paths_copied": false, "launch_authority_granted": false},
        "result": {"status": "previewed", "runtime_event_id": null, "loopx_writeback_run_id": null}});
    f(&mut doc);
    doc
}

/// The demo's writeback previews: two that pass every entry criterion, and one failing each
/// criterion in turn (file stem, document). Criteria 3 and 5 fail through the workspace's
/// runtime map.
#[must_use]
pub fn writebacks() -> Vec<(&'static str, serde_json::Value)> {
    let handoff = json!({"decision_label": "approved_next_action", "summary": "continue the validated next action", "evidence_pointer_count": 2});
    vec![
        (
            "writeback-handoff",
            writeback("handoff_packet_pointer", "demo-goal:2026-11-29T13-03-29-00-00:handoff", &handoff, |_| {}),
        ),
        (
            "writeback-gate-approved",
            writeback(
                "operator_gate_decision",
                "demo-goal:read_only_map_opt_in:approve",
                &json!({"decision_id": "read_only_map_opt_in", "decision_label": "approve", "actor_class": "operator",
                    "reason_summary": "Read-only map looks safe", "source_run_id": "2026-11-29T13-04-00-00-00-operator-gate"}),
                |d| d["loopx_source"] = json!({"source_run_id": "2026-11-29T13-04-00-00-00-operator-gate", "source_event_class": "operator_gate"}),
            ),
        ),
        (
            "writeback-no-session",
            writeback("handoff_packet_pointer", "demo-goal:no-session:handoff", &handoff, |d| {
                d["runtime"].as_object_mut().map(|m| m.remove("session_id"));
            }),
        ),
        (
            "writeback-unrecorded-run",
            writeback(
                "quota_scheduler_hint",
                "demo-goal:w-2026-11-29T15:hint",
                &json!({"hint": "throttled", "window_id": "w-2026-11-29T15", "reason_code": "daily_cap"}),
                |d| d["loopx_source"] = json!({"source_run_id": "2026-11-29T15-00-00-00-00-quota-should-run", "source_event_class": "quota_decision"}),
            ),
        ),
        (
            "writeback-no-dry-run",
            writeback("handoff_packet_pointer", "demo-goal:legacy:handoff", &handoff, |d| {
                d["runtime"]["runtime_id"] = json!(LEGACY_RUNTIME);
            }),
        ),
        (
            "writeback-reward-score",
            writeback(
                "human_reward_overlay",
                "demo-goal:reward-1:overlay",
                &json!({"reward_id": "reward-1", "judged_run_id": "2026-11-29T13-04-04-00-00-operator-gate",
                    "decision_label": "continue_route", "reward": "positive", "score": 0.92}),
                |d| d["loopx_source"] = json!({"source_run_id": "2026-11-29T13-04-04-00-00-operator-gate", "source_event_class": "human_reward"}),
            ),
        ),
        (
            "writeback-offline-runtime",
            writeback("handoff_packet_pointer", "demo-goal:offline:handoff", &handoff, |d| {
                d["runtime"]["runtime_id"] = json!(OFFLINE_RUNTIME);
            }),
        ),
    ]
}

/// A runtime the demo maps to an adapter without a dry-run path (criterion 3 fails).
pub const LEGACY_RUNTIME: &str = "legacy_runtime";
/// A runtime whose inbox folder is a plain file in the demo (criterion 5 fails).
pub const OFFLINE_RUNTIME: &str = "offline_runtime";

/// The demo workspace's runtime map (`<runtime_root>/writegate-runtimes.toml`):
/// [`LEGACY_RUNTIME`] without dry run; every other runtime uses the built-in inbox.
/// ([`OFFLINE_RUNTIME`]'s inbox folder is a plain file, so it cannot report a result.)
const RUNTIMES_TOML: &str = "# Which adapter serves which runtime (writegate demo). Runtimes not listed use the built-in inbox.\n\
# Command adapters come only from the operator's own config file.\n\
[runtimes.legacy_runtime]\nadapter = \"inbox\"\ndry_run = false\n";

/// For the demo only: holds `goal`'s LoopX state-file lock for `hold` in a background
/// thread, as a LoopX writer would (holder record `codex-peer-b` / `todo_update`), so the
/// lock view can be tried: an apply in that goal waits 5 s and records `lock_busy` with
/// the holder; after `hold` the lock is released (`released_at` written) and a retry
/// applies. `flock` locks belong to the open file description, so the TUI in this same
/// process is locked out exactly as by another process.
///
/// # Errors
/// The goal is unknown or the lock cannot be taken.
pub fn hold_state_lock(registry: &Path, goal: &str, hold: std::time::Duration) -> Result<(), DemoError> {
    let loc = Locator { registry: Some(registry.to_owned()), ..Locator::from_env(None, None) };
    let engine = Engine::open(&loc, Clock::System, "demo".to_owned())?;
    let state = engine.goal(goal)?.state_file.clone();
    let req = crate::loopx::lock::LockRequest {
        target: &state,
        agent_id: Some(PEER),
        operation: "todo_update",
        timeout: crate::loopx::lock::MUTATION_TIMEOUT,
    };
    let guard = crate::loopx::lock::acquire(&req)
        .map_err(|e| DemoError::Io("hold the demo lock".into(), std::io::Error::other(e.to_string())))?;
    std::thread::spawn(move || {
        std::thread::sleep(hold);
        drop(guard);
    });
    Ok(())
}

/// For tests inside the crate: an engine (operator `t`, system clock) on a fresh demo
/// workspace in a temporary folder, which the returned guard removes.
#[cfg(test)]
pub(crate) fn test_engine() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().expect("tmp");
    let reg = build(dir.path(), "t").expect("demo");
    let loc = Locator { registry: Some(reg), ..Locator::from_env(None, None) };
    let e = Engine::open(&loc, Clock::System, "t".into()).expect("engine");
    (dir, e)
}
