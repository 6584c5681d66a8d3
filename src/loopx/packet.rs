//! The `local_state_write_correctness_v0` packet (FORMATS.md §5.2–5.3): built exactly as
//! `loopx … --dry-run` builds it, in LoopX's key order, from an edit's outcome.

use super::edit::{EditOutcome, TodoOp, doc_lease_id};
use super::hash::{revision_of_text, write_identity};
use serde_json::{Value, json};

/// Writer id of todo commands.
pub const TODO_WRITER: &str = "loopx.todo";
/// `narrower_lock_allowed` for single-todo writes.
pub const PER_TODO_NARROWER: &str = "per_todo_when_patch_is_single_todo_and_order_independent";

/// The packet's `write_class` for an op. LoopX attaches packets only to add / update /
/// claim / refresh-state dry runs; for complete, supersede and archive-completed writegate
/// derives one with the same todo formula and the op name as class.
#[must_use]
pub fn write_class(op: &TodoOp) -> &'static str {
    op.name()
}

/// Builds the packet LoopX prints for `op` run against `state_text` with `outcome`.
/// `sync_global` is false with `--no-global-sync` (refresh-state only); writegate assumes
/// LoopX's ordinary `single_runtime` projection route.
#[must_use]
pub fn build_packet(goal_id: &str, op: &TodoOp, state_text: &str, outcome: &EditOutcome) -> Value {
    let class = write_class(op);
    let revision = revision_of_text(state_text);
    if let TodoOp::RefreshState(args) = op {
        return refresh_packet(
            goal_id,
            args.agent_id.as_deref(),
            args.classification.as_deref(),
            !args.no_global_sync,
            outcome.changed,
            &revision,
        );
    }
    let role = outcome.role.map_or("", |r| r.as_str());
    let todo_id = outcome.todo_id.clone().unwrap_or_default();
    let summary = format!(
        "preview {class} for {} todo {}: {}",
        if role.is_empty() { "unknown_role" } else { role },
        if todo_id.is_empty() { "new_todo" } else { &todo_id },
        if outcome.changed { "would change active state" } else { "would leave active state unchanged" }
    );
    let lease_ref = match (&outcome.claimed_by, todo_id.is_empty()) {
        (Some(c), false) => {
            json!({"kind": "todo_claim", "goal_id": goal_id, "todo_id": todo_id, "claimed_by": c, "lease_id": doc_lease_id(&todo_id, c)})
        }
        _ => Value::Null,
    };
    let lease_projection = match &outcome.claimed_by {
        Some(c) if !todo_id.is_empty() => {
            json!({"todo_id": todo_id, "claimed_by": c, "lease_state": "preview_only"})
        }
        _ => Value::Null,
    };
    let target_refs = json!({"state_file_ref": "registry.goal.state_file", "todo_id": todo_id, "role": role, "section": outcome.section});
    assemble(
        goal_id,
        TODO_WRITER,
        class,
        &target_refs,
        &summary,
        &["active_state"],
        &lease_ref,
        &revision,
        PER_TODO_NARROWER,
        &summary,
        &lease_projection,
    )
}

fn refresh_packet(
    goal_id: &str,
    agent: Option<&str>,
    classification: Option<&str>,
    sync: bool,
    changed: bool,
    revision: &str,
) -> Value {
    let writer = agent.map(str::trim).filter(|a| !a.is_empty()).unwrap_or("loopx.refresh-state");
    let classification = classification.unwrap_or("state_refreshed");
    let mut parts = vec![format!("append refresh-state run classification={classification}")];
    parts.push(
        if changed { "preview active-state Next Action update" } else { "preserve active-state Next Action" }
            .to_owned(),
    );
    let mut scopes = vec![];
    if changed {
        scopes.push("active_state");
    }
    scopes.push("runtime_history");
    if sync {
        parts.push("sync public-safe registry projection".to_owned());
        scopes.push("global_registry");
    }
    let target_refs = json!({
        "state_file_ref": "registry.goal.state_file",
        "run_history_ref": "runtime.goal.runs",
        "index_ref": "runtime.goal.runs.index",
        "global_registry_ref": if sync { json!("runtime.registry.global") } else { Value::Null },
        "shared_runtime_projection_ref": Value::Null,
    });
    let summary = parts.join("; ");
    let surface = format!("refresh-state dry-run: {classification}");
    assemble(
        goal_id,
        writer,
        "refresh_state",
        &target_refs,
        &summary,
        &scopes,
        &Value::Null,
        revision,
        "not_for_refresh_state",
        &surface,
        &Value::Null,
    )
}

#[allow(clippy::too_many_arguments)]
fn assemble(
    goal_id: &str,
    writer: &str,
    class: &str,
    target_refs: &Value,
    summary: &str,
    scopes: &[&str],
    lease_ref: &Value,
    revision: &str,
    narrower: &str,
    surface: &str,
    lease_projection: &Value,
) -> Value {
    let seed = json!({
        "goal_id": goal_id, "writer_id": writer, "write_class": class, "target_refs": target_refs,
        "patch_summary": summary, "expected_write_scopes": scopes, "lease_ref": lease_ref,
    });
    let (write_id, key) = write_identity(&seed);
    json!({
        "schema_version": "local_state_write_correctness_v0",
        "write_intent": {
            "write_id": write_id, "goal_id": goal_id, "writer_id": writer, "write_class": class,
            "target_refs": target_refs, "idempotency_key": key,
            "expected_revision": {"kind": "active_state_revision", "value": revision},
            "lease_ref": lease_ref,
        },
        "lock_boundary": {"kind": "per_goal", "lock_key": format!("goal:{goal_id}"), "narrower_lock_allowed": narrower},
        "preview": {"mode": "dry_run", "patch_summary": summary, "non_destructive": true, "expected_write_scopes": scopes},
        "apply_result": {"status": "preview_only", "applied_revision": null, "duplicate_of": null, "conflict": null},
        "projection": {
            "status_surface": surface,
            "lease_projection": lease_projection,
            "public_boundary": {"raw_logs_copied": false, "private_paths_copied": false, "credentials_copied": false, "production_action_authorized": false},
        },
    })
}
