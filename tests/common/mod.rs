//! Shared test helpers: demo workspaces in temp dirs and engines with a fixed clock.
#![allow(dead_code)]

pub mod loopx_venv;

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
