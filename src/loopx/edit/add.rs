//! `loopx todo add` (spec §1): new block, same-text dedupe, user binding inference,
//! section creation, and the Next Action side effect for outranking advancement tasks.

use super::doc::{Block, Doc, bumped, marker_for_status};
use super::{
    EditContext, EditOutcome, EditRefused, TodoArgs, check_registered, next_action, normalize_agent_arg, refuse,
};
use crate::loopx::metadata::{Metadata, normalize_status};
use crate::loopx::pytext::compact_whitespace;
use crate::loopx::state::{Role, build_todo_id};

struct Binding {
    bound_agent: Option<String>,
    blocks_agent: Option<String>,
    goal_bound: bool,
    global_gate: bool,
}

pub(super) fn todo_add(original: &str, a: &TodoArgs, ctx: &EditContext) -> Result<EditOutcome, EditRefused> {
    let Some(role_raw) = a.role.as_deref() else {
        return refuse("todo add requires --role");
    };
    let Some(role) = Role::parse(role_raw) else {
        return refuse(format!("invalid role {role_raw:?}"));
    };
    let Some(raw_text) = a.text.as_deref() else {
        return refuse("todo add requires --text");
    };
    let text = compact_whitespace(raw_text);
    if text.is_empty() {
        return refuse("todo text must not be empty");
    }
    let status = match a.status.as_deref() {
        None => "open".to_owned(),
        Some(s) => normalize_status(s).ok_or_else(|| EditRefused(format!("invalid status {s:?}")))?,
    };
    if status == "done" {
        return refuse("todo add cannot create completed work; add it open and use `loopx todo complete`");
    }
    if status == "deferred" && a.resume_when.is_none() {
        return refuse("deferred todo add requires --resume-when with a supported condition");
    }
    let task_class = a.task_class.as_deref().map(str::to_lowercase);
    let binding = validate_role_flags(role, a, task_class.as_deref(), ctx)?;
    let claimed_by = match &a.claimed_by {
        Some(c) => {
            let c = normalize_agent_arg("claimed_by", c)?;
            check_registered(ctx, "claimed_by", &c)?;
            Some(c)
        }
        None => None,
    };
    let mut excluded = Vec::new();
    for x in &a.excluded_agents {
        let x = normalize_agent_arg("excluded_agents", x)?;
        check_registered(ctx, "excluded_agents", &x)?;
        excluded.push(x);
    }
    if let Some(c) = &claimed_by
        && excluded.contains(c)
    {
        return refuse(format!("claimed_by='{c}' cannot also appear in excluded_agents"));
    }

    let mut doc = Doc::new(original);
    let bounds = doc.section_bounds(role);
    let existing = bounds.as_ref().and_then(|(s, e, h)| doc.open_block_with_text(*s, *e, Some(role), h, &text));
    let flags = |meta: &mut Metadata, existing: bool| {
        apply_add_flags(
            meta,
            a,
            &status,
            task_class.as_deref(),
            claimed_by.as_deref(),
            &excluded,
            role,
            &binding,
            existing,
        );
    };
    let (todo_id, section, changed, resulting_claim, added_class);
    if let Some(block) = existing {
        let heading = bounds.as_ref().map(|b| b.2.clone()).unwrap_or_default();
        let mut meta = block.metadata.clone();
        flags(&mut meta, true);
        meta.set_text("todo_id", &block.todo_id);
        if meta.get("updated_at").is_none() {
            meta.set_text("updated_at", &ctx.now);
        }
        let line = meta.format_line().unwrap_or_default();
        let marker = marker_for_status(&status);
        let marker_changed = block.marker != marker;
        let meta_changed = block.meta_line.is_none_or(|i| doc.lines[i] != line);
        doc.set_marker(block.start, marker);
        doc.upsert_metadata(&block, line);
        todo_id = block.todo_id.clone();
        section = heading;
        changed = marker_changed || meta_changed;
        resulting_claim = meta.text("claimed_by");
        added_class = meta.text("task_class");
    } else {
        let (index, heading) = match &bounds {
            Some((s, e, h)) => (doc.block_starts(*s, *e).len() + 1, h.clone()),
            None => (1, role.canonical_heading().to_owned()),
        };
        let id = build_todo_id(role.as_str(), &heading, index, &text);
        let mut meta = Metadata::default();
        meta.set_text("todo_id", &id);
        flags(&mut meta, false);
        meta.set_text("updated_at", &ctx.now);
        let item = vec![format!("- [{}] {text}", marker_for_status(&status)), meta.format_line().unwrap_or_default()];
        match bounds {
            Some((s, e, _)) => doc.insert_in_section(s, e, item),
            None => {
                doc.insert_new_section(role, item);
            }
        }
        todo_id = id;
        section = heading;
        changed = true;
        resulting_claim = meta.text("claimed_by");
        added_class = meta.text("task_class");
    }
    if changed && role == Role::Agent && added_class.as_deref() == Some("advancement_task") && status == "open" {
        reconcile_next_action(&mut doc, &todo_id, &text, resulting_claim.as_deref());
    }
    let text_out = if changed { bumped(doc.joined(), &ctx.now) } else { doc.original.clone().into_owned() };
    Ok(EditOutcome {
        text: text_out,
        changed,
        role: Some(role),
        section,
        todo_id: Some(todo_id.clone()),
        claimed_by: resulting_claim,
        touched_todo_ids: vec![todo_id],
    })
}

fn validate_role_flags(
    role: Role,
    a: &TodoArgs,
    task_class: Option<&str>,
    ctx: &EditContext,
) -> Result<Binding, EditRefused> {
    let multi = ctx.registered_agents.len() >= 2;
    match role {
        Role::Agent => {
            if a.agent_id.is_some() {
                return refuse(
                    "todo add does not support --agent-id for agent todos; omit --agent-id and use --claimed-by <registered-agent> only when assigning execution, or omit both options to leave the todo unclaimed.",
                );
            }
            if matches!(task_class, Some("user_action" | "user_gate")) {
                return refuse("user_action and user_gate task_class are only valid for --role user");
            }
            Ok(Binding { bound_agent: None, blocks_agent: None, goal_bound: false, global_gate: false })
        }
        Role::User => {
            if !matches!(task_class, Some("user_action" | "user_gate")) {
                return refuse(
                    "user todo requires explicit --task-class user_gate or user_action; use user_gate for blocking owner/controller decisions and user_action for non-blocking user-visible todos",
                );
            }
            if a.claimed_by.is_some() {
                return refuse(
                    "claimed_by is execution ownership for agent todos, not a user-todo binding; use --bound-agent or --goal-bound",
                );
            }
            let gate = task_class == Some("user_gate");
            let agent_id = a.agent_id.as_deref().map(|x| normalize_agent_arg("agent_id", x)).transpose()?;
            if let Some(x) = &agent_id {
                check_registered(ctx, "agent_id", x)?;
            }
            let blocks_agent = match &a.blocks_agent {
                Some(b) => Some(normalize_agent_arg("blocks_agent", b)?),
                None if gate => agent_id.clone(),
                None => None,
            };
            let goal_bound = a.goal_bound || a.global_gate;
            let bound_agent = match &a.bound_agent {
                Some(b) => Some(normalize_agent_arg("bound_agent", b)?),
                None if !goal_bound => agent_id
                    .clone()
                    .or_else(|| if gate { blocks_agent.clone() } else { None })
                    .or_else(|| (ctx.registered_agents.len() == 1).then(|| ctx.registered_agents[0].clone())),
                None => None,
            };
            for (field, v) in [("bound_agent", &bound_agent), ("blocks_agent", &blocks_agent)] {
                if let Some(v) = v {
                    check_registered(ctx, field, v)?;
                }
            }
            if multi && bound_agent.is_none() && !goal_bound {
                return refuse(
                    "multi-agent user todo requires an explicit binding: pass --bound-agent <registered-agent> (or --agent-id <registered-agent> for authoring), or pass --goal-bound for an intentionally goal-wide user todo",
                );
            }
            if multi && gate && blocks_agent.is_none() && !a.global_gate {
                return refuse(
                    "multi-agent user_gate requires an explicit scope: pass --blocks-agent <registered-agent> (or --agent-id <registered-agent> for authoring) when the gate blocks one lane, or pass --global-gate when it genuinely blocks every registered agent",
                );
            }
            Ok(Binding {
                bound_agent,
                blocks_agent: if gate { blocks_agent } else { None },
                goal_bound,
                global_gate: a.global_gate && gate,
            })
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn apply_add_flags(
    meta: &mut Metadata,
    a: &TodoArgs,
    status: &str,
    task_class: Option<&str>,
    claimed_by: Option<&str>,
    excluded: &[String],
    role: Role,
    binding: &Binding,
    existing: bool,
) {
    meta.set_text("status", status);
    for (key, value) in [
        ("task_class", task_class.map(str::to_owned)),
        ("action_kind", a.action_kind.as_deref().map(str::to_lowercase)),
        ("task_domain", a.task_domain.as_deref().map(str::to_lowercase)),
        ("claimed_by", claimed_by.map(str::to_owned)),
        ("blocks_agent", binding.blocks_agent.clone()),
        ("unblocks_todo_id", a.unblocks_todo_id.clone()),
        ("resume_when", a.resume_when.clone()),
        ("note", a.note.clone()),
        ("decision_scope", a.decision_scope.as_deref().map(str::to_lowercase)),
    ] {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            meta.set_text(key, &v);
        }
    }
    for (key, items) in
        [("required_write_scopes", &a.required_write_scopes), ("required_capabilities", &a.required_capabilities)]
    {
        if !items.is_empty() || !existing {
            let items: Vec<String> =
                items
                    .iter()
                    .map(|c| {
                        if key == "required_capabilities" {
                            c.to_lowercase().replace(['-', ' '], "_")
                        } else {
                            c.clone()
                        }
                    })
                    .collect();
            if items.is_empty() {
                continue;
            }
            meta.set_list(key, &items);
        }
    }
    if existing || !excluded.is_empty() {
        meta.set_list("excluded_agents", excluded);
    }
    if role == Role::User {
        if let Some(b) = &binding.bound_agent {
            meta.set_text("bound_agent", b);
            meta.remove("goal_bound");
        } else if binding.goal_bound {
            meta.set_bool("goal_bound", true);
            meta.remove("bound_agent");
        }
        if binding.global_gate {
            meta.set_bool("global_gate", true);
        }
    }
}

fn reconcile_next_action(doc: &mut Doc, added_id: &str, added_text: &str, added_claim: Option<&str>) {
    let na = next_action::read(doc);
    let (Some(bounds), [bound_id], [_entry]) = (na.bounds, na.bindings.as_slice(), na.entries.as_slice()) else {
        return;
    };
    if bound_id == added_id {
        return;
    }
    let Some((s, e, h)) = doc.section_bounds(Role::Agent) else {
        return;
    };
    let blocks: Vec<Block> = doc.blocks(s, e, Some(Role::Agent), &h);
    let Some(bound) = blocks.iter().find(|b| &b.todo_id == bound_id) else {
        return;
    };
    let bound_ok = bound.status == "open" && bound.metadata.text("task_class").as_deref() == Some("advancement_task");
    let claim_ok = bound.metadata.text("claimed_by").is_none_or(|c| Some(c.as_str()) == added_claim);
    if bound_ok && claim_ok && next_action::priority_rank(added_text) < next_action::priority_rank(&bound.text) {
        next_action::rewrite(doc, bounds, Some((added_text, added_id)));
    }
}
