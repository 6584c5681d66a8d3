//! `loopx todo update` and `loopx todo claim` (spec §2–3): marker, text, metadata updates,
//! `completed_at` rules, user binding recompute, `updated_at` only on a real change.

use super::doc::{Block, Doc, bumped, marker_for_status};
use super::{EditContext, EditOutcome, EditRefused, TodoArgs, check_registered, normalize_agent_arg, refuse};
use crate::loopx::metadata::{Metadata, normalize_status, normalize_todo_id};
use crate::loopx::pytext::compact_whitespace;
use crate::loopx::state::Role;

/// Checks shared by every lifecycle command: todo id present, actor attribution in
/// multi-agent goals, actor registered. Returns `(todo_id, actor)`.
pub(super) fn lifecycle_actor(
    a: &TodoArgs,
    ctx: &EditContext,
    verb: &str,
) -> Result<(String, Option<String>), EditRefused> {
    let Some(todo_id) = a.todo_id.as_deref() else {
        return refuse(format!("todo {verb} requires --todo-id"));
    };
    let actor = a.agent_id.as_deref().map(|x| normalize_agent_arg("agent_id", x)).transpose()?;
    if ctx.registered_agents.len() >= 2 && actor.is_none() {
        return refuse(format!(
            "multi-agent todo {verb} requires --agent-id to attribute the lifecycle actor; only completion of an exactly linked user_gate decision_scope may use the typed owner/controller override"
        ));
    }
    if let Some(x) = &actor {
        check_registered(ctx, "agent_id", x)?;
    }
    Ok((todo_id.to_owned(), actor))
}

/// Finds the target block or refuses with LoopX's not-found message.
pub(super) fn find_target(doc: &Doc, todo_id: &str, role: Option<&str>) -> Result<(Role, String, Block), EditRefused> {
    let role = role.and_then(Role::parse);
    doc.find_todo(todo_id, role).ok_or_else(|| {
        let shown = normalize_todo_id(todo_id).unwrap_or_else(|| todo_id.to_owned());
        EditRefused(format!("todo_id '{shown}' was not found in active user or agent todos"))
    })
}

/// Refuses an actor that is excluded from the todo or that is not its soft-claim holder.
pub(super) fn check_authority(
    block: &Block,
    actor: Option<&str>,
    ctx: &EditContext,
    verb: &str,
) -> Result<(), EditRefused> {
    let Some(actor) = actor else { return Ok(()) };
    if block.metadata.list("excluded_agents").iter().any(|x| x == actor) {
        return refuse(format!("agent_id='{actor}' is excluded from mutating todo_id='{}'", block.todo_id));
    }
    if ctx.registered_agents.len() >= 2
        && let Some(holder) = block.metadata.text("claimed_by")
        && holder != actor
    {
        return refuse(format!(
            "agent_id='{actor}' cannot {verb} todo_id='{}'; it is claimed_by='{holder}'",
            block.todo_id
        ));
    }
    Ok(())
}

pub(super) fn todo_update(
    original: &str,
    a: &TodoArgs,
    ctx: &EditContext,
    claim_only: bool,
) -> Result<EditOutcome, EditRefused> {
    let verb = if claim_only { "claim" } else { "update" };
    let (todo_id, actor) = lifecycle_actor(a, ctx, verb)?;
    let requested_claim = a.claimed_by.as_deref().map(|c| normalize_agent_arg("claimed_by", c)).transpose()?;
    if claim_only {
        let Some(claim) = &requested_claim else {
            return refuse("todo claim requires --claimed-by");
        };
        if ctx.registered_agents.len() >= 2 && actor.as_deref() != Some(claim.as_str()) {
            return refuse(
                "todo claim requires --claimed-by to match the lifecycle --agent-id; use todo update for an owner-attributed transfer",
            );
        }
    }
    if let Some(c) = &requested_claim {
        check_registered(ctx, "claimed_by", c)?;
    }
    let status = a
        .status
        .as_deref()
        .map(|s| normalize_status(s).ok_or_else(|| EditRefused(format!("invalid status {s:?}"))))
        .transpose()?;
    if !claim_only && !has_mutable_field(a) {
        return refuse("todo update requires at least one mutable todo field");
    }
    let mut doc = Doc::new(original);
    let (role, section, block) = find_target(&doc, &todo_id, a.role.as_deref())?;
    check_authority(&block, actor.as_deref(), ctx, verb)?;
    if claim_only {
        if block.status != "open" {
            return refuse(format!(
                "todo claim requires status=open; todo_id '{}' is status='{}'",
                block.todo_id, block.status
            ));
        }
        if let (Some(holder), Some(claim)) = (block.metadata.text("claimed_by"), &requested_claim)
            && &holder != claim
        {
            return refuse(format!(
                "todo_id '{}' is already claimed_by='{holder}'; clear or transfer the claim explicitly before claiming it",
                block.todo_id
            ));
        }
    }
    if status.as_deref() == Some("done") && role == Role::Agent {
        return refuse(
            "agent todo completion must use complete_goal_todo (CLI: `loopx todo complete`) so completion policy, successor, and no-follow-up contracts are enforced",
        );
    }
    if status.as_deref() == Some("deferred") && a.resume_when.is_none() && block.metadata.get("resume_when").is_none() {
        return refuse("transition to deferred requires --resume-when with a supported condition");
    }
    let new_status = status.clone().unwrap_or_else(|| block.status.clone());
    let mut meta = block.metadata.clone();
    meta.set_text("todo_id", &block.todo_id);
    meta.set_text("status", &new_status);
    if let Some(s) = &status {
        if s == "done" {
            if meta.get("completed_at").is_none() {
                meta.set_text("completed_at", &ctx.now);
            }
            if meta.get("completion_continuation").is_none() {
                let cont = if a.no_follow_up || meta.get("no_followup").is_some() {
                    "no_followup"
                } else if !meta.list("successor_todo_ids").is_empty() {
                    "successor"
                } else {
                    "active_goal"
                };
                meta.set_text("completion_continuation", cont);
            }
        } else {
            meta.remove("completed_at");
        }
    }
    apply_update_flags(&mut meta, a, requested_claim.as_deref());
    if role == Role::User {
        recompute_user_binding(&mut meta, a, ctx);
    } else {
        meta.remove("bound_agent");
        meta.remove("goal_bound");
    }
    let (changed, claim) = finish_block_edit(&mut doc, &block, meta, status.as_deref(), a.text.as_deref(), ctx);
    let text = if changed { bumped(doc.joined(), &ctx.now) } else { doc.original.clone().into_owned() };
    Ok(EditOutcome {
        text,
        changed,
        role: Some(role),
        section,
        todo_id: Some(block.todo_id.clone()),
        claimed_by: claim,
        touched_todo_ids: vec![block.todo_id.clone()],
    })
}

/// Writes marker, text and metadata of an edited block (spec §2.1, §2.3): the metadata
/// line gets `updated_at=now` only when marker, text or metadata really changed.
/// Returns `(changed, resulting claimed_by)`.
pub(super) fn finish_block_edit(
    doc: &mut Doc,
    block: &Block,
    mut meta: Metadata,
    status: Option<&str>,
    new_text: Option<&str>,
    ctx: &EditContext,
) -> (bool, Option<String>) {
    let target_marker = status.map_or(block.marker, marker_for_status);
    let marker_changed = status.is_some() && block.marker != target_marker;
    let text_change = new_text.map(compact_whitespace).filter(|t| !t.is_empty() && *t != block.text);
    let first = block.meta_line.map(|i| doc.lines[i].clone());
    let line0 = meta.format_line().unwrap_or_default();
    let changed = marker_changed || text_change.is_some() || first.as_deref() != Some(line0.as_str());
    if !changed {
        return (false, meta.text("claimed_by"));
    }
    meta.set_text("updated_at", &ctx.now);
    let line = meta.format_line().unwrap_or_default();
    let mut block = block.clone();
    if let Some(t) = &text_change {
        doc.lines[block.start] = format!("- [{target_marker}] {t}").into();
        let keep: Vec<usize> = (block.start + 1..block.end)
            .filter(|&i| {
                let l = &doc.lines[i];
                !l.starts_with([' ', '\t']) || crate::loopx::metadata::is_metadata_comment(l) || l.trim().is_empty()
            })
            .collect();
        let removed = (block.start + 1..block.end).filter(|i| !keep.contains(i)).count();
        let mut kept_lines: Vec<std::borrow::Cow<'_, str>> = keep.iter().map(|&i| doc.lines[i].clone()).collect();
        let old_meta_pos = block.meta_line.and_then(|m| keep.iter().position(|&i| i == m));
        doc.lines.splice(block.start + 1..block.end, kept_lines.drain(..));
        block.end -= removed;
        block.meta_line = old_meta_pos.map(|p| block.start + 1 + p);
    } else if status.is_some() {
        doc.set_marker(block.start, target_marker);
    }
    doc.upsert_metadata(&block, line);
    (true, meta.text("claimed_by"))
}

fn has_mutable_field(a: &TodoArgs) -> bool {
    a.status.is_some()
        || a.text.is_some()
        || a.note.is_some()
        || a.evidence.is_some()
        || a.reason.is_some()
        || a.claimed_by.is_some()
        || a.clear_claim
        || a.task_class.is_some()
        || a.action_kind.is_some()
        || a.task_domain.is_some()
        || a.resume_when.is_some()
        || a.clear_resume_when
        || !a.excluded_agents.is_empty()
        || a.no_follow_up
        || a.bound_agent.is_some()
        || a.goal_bound
        || a.blocks_agent.is_some()
        || a.global_gate
        || a.unblocks_todo_id.is_some()
        || a.decision_scope.is_some()
        || !a.required_write_scopes.is_empty()
        || !a.required_capabilities.is_empty()
}

fn apply_update_flags(meta: &mut Metadata, a: &TodoArgs, claim: Option<&str>) {
    for (key, v) in [
        ("note", &a.note),
        ("evidence", &a.evidence),
        ("reason", &a.reason),
        ("task_class", &a.task_class),
        ("action_kind", &a.action_kind),
        ("task_domain", &a.task_domain),
        ("unblocks_todo_id", &a.unblocks_todo_id),
        ("blocks_agent", &a.blocks_agent),
        ("decision_scope", &a.decision_scope),
    ] {
        if let Some(v) = v.as_deref().filter(|v| !v.trim().is_empty()) {
            meta.set_text(key, v);
        }
    }
    if a.clear_claim {
        meta.remove("claimed_by");
    }
    if let Some(c) = claim {
        meta.set_text("claimed_by", c);
    }
    if !a.excluded_agents.is_empty() {
        meta.set_list("excluded_agents", &a.excluded_agents);
    }
    if !a.required_write_scopes.is_empty() {
        meta.set_list("required_write_scopes", &a.required_write_scopes);
    }
    if !a.required_capabilities.is_empty() {
        let caps: Vec<String> =
            a.required_capabilities.iter().map(|c| c.to_lowercase().replace(['-', ' '], "_")).collect();
        meta.set_list("required_capabilities", &caps);
    }
    if a.clear_resume_when {
        meta.remove("resume_when");
        meta.remove("resume_monitor_generation");
    }
    if let Some(r) = &a.resume_when {
        meta.set_text("resume_when", r);
    }
    if a.no_follow_up {
        meta.set_bool("no_followup", true);
    }
    if a.global_gate {
        meta.set_bool("global_gate", true);
    }
}

fn recompute_user_binding(meta: &mut Metadata, a: &TodoArgs, ctx: &EditContext) {
    let mut bound = match (&a.bound_agent, a.goal_bound) {
        (Some(b), _) => Some(b.clone()),
        (None, true) => None,
        (None, false) => meta.text("bound_agent"),
    };
    let mut goal_bound = if a.goal_bound {
        true
    } else if a.bound_agent.is_some() {
        false
    } else {
        meta.get("goal_bound").is_some_and(|v| v.as_text() == "true")
    };
    let gate = meta.text("task_class").as_deref() == Some("user_gate");
    if gate && meta.get("global_gate").is_some_and(|v| v.as_text() == "true") {
        bound = None;
        goal_bound = true;
    } else if let (true, Some(b)) = (gate, meta.text("blocks_agent")) {
        bound = Some(b);
    } else if bound.is_none() && !goal_bound && ctx.registered_agents.len() == 1 {
        bound = Some(ctx.registered_agents[0].clone());
    }
    if let Some(b) = bound {
        meta.set_text("bound_agent", &b);
        meta.remove("goal_bound");
    } else if goal_bound {
        meta.set_bool("goal_bound", true);
        meta.remove("bound_agent");
    }
}
