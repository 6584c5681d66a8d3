//! Shared test helpers: demo workspaces in temp dirs and engines with a fixed clock.
#![allow(dead_code)]

pub mod loopx2_world;
pub mod loopx_venv;
pub mod tmux;

use std::path::{Path, PathBuf};
use writegate::engine::{Clock, Engine};
use writegate::loopx::registry::Locator;

/// A fixed clock at 2026-11-29T14:00:00+00:00.
pub fn fixed_clock() -> Clock {
    Clock::Fixed(chrono::DateTime::parse_from_rfc3339("2026-11-29T14:00:00+00:00").expect("time"))
}

/// Builds the demo workspace in a new temp dir; returns (dir guard, registry path).
pub fn demo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let reg = writegate::demo::build(&dir.path().join("ws"), "tester").expect("demo");
    (dir, reg)
}

/// An engine on `registry` with the fixed clock.
pub fn engine(registry: &Path) -> Engine {
    let loc = Locator { registry: Some(registry.to_owned()), ..Locator::from_env(None, None) };
    Engine::open(&loc, fixed_clock(), "tester".into()).expect("engine")
}

/// The id of the first pending item of `goal` whose predicted status is `status`.
pub fn item_with(engine: &Engine, goal: &str, status: &str) -> String {
    engine
        .list(Some(goal))
        .into_iter()
        .find(|r| r.predicted_status == status)
        .unwrap_or_else(|| panic!("no {status} item in {goal}"))
        .item_id
}

/// A genuinely stale item of demo-goal: an update of an open todo proposed, then that todo's
/// checkbox line reworded in place by another writer. Returns its id.
pub fn stale_item(e: &Engine) -> String {
    use writegate::loopx::edit::{TodoArgs, TodoOp};
    use writegate::loopx::state::ActiveState;
    let path = e.goal("demo-goal").expect("goal").state_file.clone();
    let base = std::fs::read_to_string(&path).expect("state");
    let todo = ActiveState::parse(&base)
        .todos
        .into_iter()
        .find(|t| t.status == "open" && t.claimed_by().is_none())
        .expect("an open unclaimed todo");
    let op = TodoOp::TodoUpdate(TodoArgs {
        todo_id: Some(todo.todo_id.to_string()),
        agent_id: Some("codex-main-control".into()),
        note: Some("made stale on purpose".into()),
        ..TodoArgs::default()
    });
    let id = e.propose("demo-goal", &op).expect("propose").item_id;
    let edited: String = base
        .lines()
        .enumerate()
        .map(|(i, l)| if i == todo.line { format!("{l} (reworded)\n") } else { format!("{l}\n") })
        .collect();
    std::fs::write(&path, edited).expect("edit");
    id
}

/// The demo's expired lease, pinned to an hour before the fixed clock.
pub const EXPIRED_LEASE: &str = r#"{
  "schema_version": "task_lease_v0",
  "goal_id": "demo-goal",
  "todo_id": "todo_c670645b588b",
  "owner": "codex-main-control",
  "idempotency_key": "demo-todo_c670645b588b",
  "write_scopes": [
    "docs/**"
  ],
  "acquire_ttl_seconds": 3600,
  "version": 2,
  "lease_epoch": 1,
  "acquired_at": "2026-11-29T12:00:00Z",
  "updated_at": "2026-11-29T12:00:00Z",
  "expires_at": "2026-11-29T13:00:00Z",
  "status": "active"
}
"#;

/// Pins the demo lease of `todo_c670645b588b` to [`EXPIRED_LEASE`]; returns the id of the
/// demo-goal item it holds up and the lease as read back.
pub fn pin_expired_lease(e: &Engine) -> (String, writegate::loopx::lease::TaskLease) {
    use writegate::loopx::lease::{LeaseRead, lease_path, read_lease};
    let dir = e.ws.goal_runtime_dir("demo-goal").expect("dir");
    std::fs::write(lease_path(&dir, "todo_c670645b588b"), EXPIRED_LEASE).expect("pin lease");
    let LeaseRead::Present(seen) = read_lease(&dir, "todo_c670645b588b") else { panic!("lease") };
    (held_up_by_expired_lease(e).expect("an item held up by the expired lease"), seen)
}

/// The id of the demo-goal item held up by the expired lease of `todo_c670645b588b`.
pub fn held_up_by_expired_lease(e: &Engine) -> Option<String> {
    e.items(Some("demo-goal"))
        .into_iter()
        .find(|i| {
            let c = e.prepare(i).conflict.unwrap_or_default();
            c["reason"] == "expired" && c["todo_id"] == "todo_c670645b588b"
        })
        .map(|i| i.id)
}
