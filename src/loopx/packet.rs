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
    assemble(goal_id, &parts(goal_id, op, outcome), &revision_of_text(state_text))
}

/// `(write_id, idempotency_key)` of the packet [`build_packet`] builds, without building it
/// (the identity does not depend on the state's revision).
#[must_use]
pub fn packet_identity(goal_id: &str, op: &TodoOp, outcome: &EditOutcome) -> (String, String) {
    write_identity(&seed(goal_id, &parts(goal_id, op, outcome)))
}

/// What a packet says besides its goal and the state's revision.
struct Parts {
    writer: String,
    class: &'static str,
    target_refs: Value,
    summary: String,
    scopes: Vec<&'static str>,
    lease_ref: Value,
    narrower: &'static str,
    surface: String,
    lease_projection: Value,
}

fn parts(goal_id: &str, op: &TodoOp, outcome: &EditOutcome) -> Parts {
    let class = write_class(op);
    if let TodoOp::RefreshState(args) = op {
        return refresh_parts(
            args.agent_id.as_deref(),
            args.classification.as_deref(),
            !args.no_global_sync,
            outcome.changed,
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
    Parts {
        writer: TODO_WRITER.to_owned(),
        class,
        target_refs,
        surface: summary.clone(),
        summary,
        scopes: vec!["active_state"],
        lease_ref,
        narrower: PER_TODO_NARROWER,
        lease_projection,
    }
}

fn refresh_parts(agent: Option<&str>, classification: Option<&str>, sync: bool, changed: bool) -> Parts {
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
    Parts {
        writer: writer.to_owned(),
        class: "refresh_state",
        target_refs,
        summary: parts.join("; "),
        scopes,
        lease_ref: Value::Null,
        narrower: "not_for_refresh_state",
        surface: format!("refresh-state dry-run: {classification}"),
        lease_projection: Value::Null,
    }
}

/// The write identity's seed (FORMATS.md §5.3).
fn seed(goal_id: &str, p: &Parts) -> Value {
    json!({
        "goal_id": goal_id, "writer_id": p.writer, "write_class": p.class, "target_refs": p.target_refs,
        "patch_summary": p.summary, "expected_write_scopes": p.scopes, "lease_ref": p.lease_ref,
    })
}

fn assemble(goal_id: &str, p: &Parts, revision: &str) -> Value {
    let (write_id, key) = write_identity(&seed(goal_id, p));
    let (writer, class, target_refs, summary, scopes) = (&p.writer, p.class, &p.target_refs, &p.summary, &p.scopes);
    json!({
        "schema_version": "local_state_write_correctness_v0",
        "write_intent": {
            "write_id": write_id, "goal_id": goal_id, "writer_id": writer, "write_class": class,
            "target_refs": target_refs, "idempotency_key": key,
            "expected_revision": {"kind": "active_state_revision", "value": revision},
            "lease_ref": p.lease_ref,
        },
        "lock_boundary": {"kind": "per_goal", "lock_key": format!("goal:{goal_id}"), "narrower_lock_allowed": p.narrower},
        "preview": {"mode": "dry_run", "patch_summary": summary, "non_destructive": true, "expected_write_scopes": scopes},
        "apply_result": {"status": "preview_only", "applied_revision": null, "duplicate_of": null, "conflict": null},
        "projection": {
            "status_surface": p.surface,
            "lease_projection": p.lease_projection,
            "public_boundary": {"raw_logs_copied": false, "private_paths_copied": false, "credentials_copied": false, "production_action_authorized": false},
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loopx::edit::{EditContext, TodoArgs, apply_op};

    /// The identity alone is the identity of the whole packet, for every kind of op.
    #[test]
    fn the_identity_is_the_packets() {
        let state = include_str!("../../assets/demo/docs-goal.ACTIVE_GOAL_STATE.md");
        let ctx = EditContext {
            goal_id: "docs-goal".into(),
            registered_agents: vec!["codex-main-control".into()],
            now: "2026-12-01T00:00:00+00:00".into(),
        };
        let args = |f: &dyn Fn(&mut TodoArgs)| {
            let mut a = TodoArgs::default();
            f(&mut a);
            a
        };
        let ops = [
            TodoOp::TodoAdd(args(&|a| {
                a.role = Some("agent".into());
                a.text = Some("[P2] Write the parser".into());
            })),
            TodoOp::TodoClaim(args(&|a| {
                a.todo_id = Some("todo_61974865c668".into());
                a.claimed_by = Some("codex-main-control".into());
            })),
            TodoOp::TodoUpdate(args(&|a| {
                a.todo_id = Some("todo_fa501099a20c".into());
                a.status = Some("blocked".into());
            })),
            TodoOp::RefreshState(args(&|a| {
                a.agent_id = Some("codex-main-control".into());
                a.progress_scope = Some("goal".into());
                a.next_action = Some("Ship the parser".into());
            })),
            TodoOp::RefreshState(args(&|a| {
                a.no_global_sync = true;
                a.progress_scope = Some("goal".into());
                a.next_action = Some("Ship the parser".into());
            })),
        ];
        for op in &ops {
            let outcome = apply_op(state, op, &ctx).expect("the demo state takes the op");
            let packet = build_packet("docs-goal", op, state, &outcome);
            let at = |p: &str| packet.pointer(p).and_then(Value::as_str).unwrap_or_default().to_owned();
            assert_eq!(
                packet_identity("docs-goal", op, &outcome),
                (at("/write_intent/write_id"), at("/write_intent/idempotency_key")),
                "{}",
                op.name()
            );
        }
    }
}
