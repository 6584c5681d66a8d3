//! The demo's LoopX 2.x goal, `release-goal`: the Markdown, SQLite store, provider file and
//! legacy-writer fence the real LoopX 2.1.1 CLI wrote (`assets/demo/loopx2/`, recorded by
//! `fixtures/loopx2/record.sh` with `GOAL=release-goal`, step 09), and two pending items: a
//! narrative edit (ready) and an old-style 0.5.x `todo add` (refused: `canonical_authority`).

use super::{DemoError, io, write};
use crate::engine::Engine;
use crate::loopx::edit::{EditContext, TodoArgs, TodoOp, apply_op};
use serde_json::{Value, json};
use std::path::Path;

/// The goal id (the store's `metadata.goal_id`).
pub const GOAL: &str = "release-goal";
const STATE: &str = include_str!("../../assets/demo/loopx2/ACTIVE_GOAL_STATE.md");
const STORE: &[u8] = include_bytes!("../../assets/demo/loopx2/authority.sqlite");
const PROVIDER: &str = include_str!("../../assets/demo/loopx2/provider.json");
const FENCE: &str = include_str!("../../assets/demo/loopx2/legacy-writer-fence.json");
const ENTRY: &str = include_str!("../../assets/demo/loopx2/registry-entry.json");

/// The registry entry LoopX 2.1.1 wrote for the goal (`coordination.storage_target` and
/// all), its `repo` set to `project`.
#[must_use]
pub fn registry_entry(project: &Path) -> Value {
    // The recording's scratch project is `<project>` in the asset (inside JSON strings).
    let escaped = serde_json::to_string(&project.display().to_string()).unwrap_or_default();
    let text = ENTRY.replace("<project>", escaped.trim_matches('"'));
    let mut entry: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    entry["repo"] = json!(project);
    entry
}

/// Writes the goal's files under `project` and `runtime` (the authority files named by the
/// goal id's digest, as LoopX names them).
///
/// # Errors
/// [`DemoError`] on I/O.
pub fn write_files(project: &Path, runtime: &Path) -> Result<(), DemoError> {
    let files = crate::loopx2::AuthorityFiles::new(runtime, GOAL);
    write(&project.join(format!(".loopx/goals/{GOAL}/ACTIVE_GOAL_STATE.md")), STATE)?;
    write(&files.provider, PROVIDER)?;
    write(&files.fence, FENCE)?;
    if let Some(dir) = files.sqlite.parent() {
        io("create folder", std::fs::create_dir_all(dir))?;
    }
    io("write the demo store", std::fs::write(&files.sqlite, STORE))
}

/// Drops the goal's two items: a narrative edit of the Progress Ledger and the 0.5.x `todo
/// add` an agent with an old writegate would propose.
///
/// # Errors
/// [`DemoError`] on I/O.
pub fn drop_items(engine: &Engine, stamp: &str) -> Result<(), DemoError> {
    let gate = engine.gate(GOAL)?;
    let revision = crate::loopx::hash::revision_of_text(STATE);
    let edited = STATE.replace(
        "- Created the initial goal state and registry connection.",
        "- Created the initial goal state and registry connection.\n- Release plan reviewed with the owner.",
    );
    let narrative = json!({
        "local_state_write_correctness": {
            "schema_version": "local_state_write_correctness_v0",
            "write_intent": {"write_id": "write-release-ledger-note", "goal_id": GOAL, "writer_id": "agent-a",
                "write_class": "replace", "target_refs": {"state_file_ref": "registry.goal.state_file"},
                "idempotency_key": format!("{GOAL}:ledger-note"),
                "expected_revision": {"kind": "active_state_revision", "value": revision}, "lease_ref": null},
            "lock_boundary": {"kind": "per_goal", "lock_key": format!("goal:{GOAL}")},
            "preview": {"mode": "dry_run", "patch_summary": "add a Progress Ledger line", "non_destructive": true,
                "expected_write_scopes": ["active_state"]},
            "apply_result": {"status": "preview_only", "applied_revision": null, "duplicate_of": null, "conflict": null},
        },
        "proposal": {"kind": "replace", "text": edited},
    });
    io("drop the narrative edit", crate::gate::drop_item(&gate, &narrative, stamp, "replace"))?;
    let op = TodoOp::TodoAdd(TodoArgs {
        role: Some("agent".into()),
        text: Some("[P2] Write the upgrade guide".into()),
        ..TodoArgs::default()
    });
    let ctx = EditContext { goal_id: GOAL.into(), registered_agents: Vec::new(), now: engine.clock.loopx_now() };
    if let Ok(outcome) = apply_op(STATE, &op, &ctx) {
        let doc = crate::engine::item::make_item_doc(GOAL, &op, STATE, &outcome, &engine.clock.utc_stamp());
        io("drop the old-style todo add", crate::gate::drop_item(&gate, &doc, stamp, "todo_add"))?;
    }
    Ok(())
}
