//! `loopx todo complete` and `loopx todo supersede` (spec §6–7): the terminal edit, the
//! local `completion_turn_key`, successor todos, and Next Action settlement.

use super::doc::{Doc, bumped};
use super::update::{check_authority, find_target, finish_block_edit, lifecycle_actor};
use super::{
    EditContext, EditOutcome, EditRefused, TodoArgs, check_registered, next_action, normalize_agent_arg, refuse,
};
use crate::loopx::hash::sha256_hex;
use crate::loopx::metadata::Metadata;
use crate::loopx::pytext::compact_whitespace;
use crate::loopx::state::{Role, build_todo_id};
use regex::Regex;
use std::sync::LazyLock;

static PREFIX_RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)^\[(P[0-4])\]\s+").expect("static regex"));

/// `local_completion_` + first 32 hex of sha256(`loopx-local-todo-completion-v0\0<goal>\0<todo>`)
/// (`completion_fence.ts::localTodoCompletionIdentity`).
#[must_use]
pub fn local_completion_key(goal_id: &str, todo_id: &str) -> String {
    let digest = sha256_hex(format!("loopx-local-todo-completion-v0\0{goal_id}\0{todo_id}").as_bytes());
    format!("local_completion_{}", &digest[..32])
}

pub(super) fn todo_complete(original: &str, a: &TodoArgs, ctx: &EditContext) -> Result<EditOutcome, EditRefused> {
    let (todo_id, actor) = lifecycle_actor(a, ctx, "complete")?;
    if a.no_follow_up && a.note.is_none() && a.evidence.is_none() {
        return refuse("--no-follow-up requires --note or --evidence");
    }
    if a.no_follow_up && a.next_agent_todo.is_some() {
        return refuse("--no-follow-up cannot be combined with successor todos");
    }
    terminal_edit(original, a, ctx, &todo_id, actor.as_deref(), Terminal::Complete)
}

pub(super) fn todo_supersede(original: &str, a: &TodoArgs, ctx: &EditContext) -> Result<EditOutcome, EditRefused> {
    let (todo_id, actor) = lifecycle_actor(a, ctx, "supersede")?;
    if a.claimed_by.is_some() || a.clear_claim || a.no_follow_up || a.decision_outcome.is_some() {
        return refuse(
            "todo supersede does not accept --claimed-by, --clear-claim, --no-follow-up or --decision-outcome",
        );
    }
    terminal_edit(original, a, ctx, &todo_id, actor.as_deref(), Terminal::Supersede)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Terminal {
    Complete,
    Supersede,
}

fn terminal_edit(
    original: &str,
    a: &TodoArgs,
    ctx: &EditContext,
    todo_id: &str,
    actor: Option<&str>,
    kind: Terminal,
) -> Result<EditOutcome, EditRefused> {
    if a.next_claimed_by.is_some() && a.next_agent_todo.is_none() {
        return refuse("--next-claimed-by requires --next-agent-todo");
    }
    let verb = if kind == Terminal::Complete { "complete" } else { "supersede" };
    let mut doc = Doc::new(original);
    let (role, section, block) = find_target(&doc, todo_id, a.role.as_deref())?;
    check_authority(&block, actor, ctx, verb)?;
    let unchanged = |doc: &Doc| EditOutcome {
        text: doc.original.clone().into_owned(),
        changed: false,
        role: Some(role),
        section: section.clone(),
        todo_id: Some(block.todo_id.clone()),
        claimed_by: block.metadata.text("claimed_by"),
        touched_todo_ids: vec![block.todo_id.clone()],
    };
    if block.is_terminal() {
        // LoopX answers a repeated completion with a terminal replay and writes nothing.
        return Ok(unchanged(&doc));
    }
    let gate = block.metadata.text("task_class").as_deref() == Some("user_gate");
    let mut meta = block.metadata.clone();
    meta.set_text("todo_id", &block.todo_id);
    meta.set_text("status", "done");
    if meta.get("completed_at").is_none() {
        meta.set_text("completed_at", &ctx.now);
    }
    match kind {
        Terminal::Complete => {
            match (&a.decision_outcome, gate) {
                (Some(o), true) => meta.set_text("decision_outcome", o),
                (None, true) => {
                    return refuse("user_gate completion requires decision_outcome=approve, reject, or cancel");
                }
                (Some(_), false) => {
                    return refuse("decision_outcome is only valid when completing a user_gate");
                }
                (None, false) => {}
            }
            for (key, v) in [("evidence", &a.evidence), ("note", &a.note)] {
                if let Some(v) = v.as_deref().filter(|v| !v.trim().is_empty()) {
                    meta.set_text(key, v);
                }
            }
            if a.clear_claim {
                meta.remove("claimed_by");
            }
            if let Some(c) = &a.claimed_by {
                let c = normalize_agent_arg("claimed_by", c)?;
                check_registered(ctx, "claimed_by", &c)?;
                meta.set_text("claimed_by", &c);
            }
            if a.no_follow_up {
                meta.set_bool("no_followup", true);
            }
            let no_followup = meta.get("no_followup").is_some_and(|v| v.as_text() == "true");
            let cont = if no_followup {
                "no_followup"
            } else if a.next_agent_todo.is_some() || !meta.list("successor_todo_ids").is_empty() {
                "successor"
            } else {
                "active_goal"
            };
            meta.set_text("completion_continuation", cont);
            meta.set_text("completion_turn_key", &local_completion_key(&ctx.goal_id, todo_id));
        }
        Terminal::Supersede => {
            meta.set_text("note", "superseded");
            if let Some(r) = a.reason.as_deref().filter(|r| !r.trim().is_empty()) {
                meta.set_text("reason", r);
            }
            meta.set_text("completion_continuation", "active_goal");
        }
    }
    let (_, claim) = finish_block_edit(&mut doc, &block, meta, Some("done"), None, ctx);
    let mut touched = vec![block.todo_id.clone()];
    if let Some(next) = &a.next_agent_todo {
        let parent_text = block.text.clone();
        let unblocks = match kind {
            Terminal::Complete => Some(block.todo_id.clone()),
            Terminal::Supersede => block.metadata.text("unblocks_todo_id"),
        };
        let succ = add_successor(&mut doc, next, &parent_text, a, unblocks, ctx)?;
        link_successor(&mut doc, &block.todo_id, &succ, kind == Terminal::Supersede)?;
        touched.push(succ);
    }
    if role == Role::Agent {
        settle_next_action(&mut doc, &block.todo_id, &block.text)?;
    }
    Ok(EditOutcome {
        text: bumped(doc.joined(), &ctx.now),
        changed: true,
        role: Some(role),
        section,
        todo_id: Some(block.todo_id.clone()),
        claimed_by: claim,
        touched_todo_ids: touched,
    })
}

fn add_successor(
    doc: &mut Doc,
    next: &str,
    parent_text: &str,
    a: &TodoArgs,
    unblocks: Option<String>,
    ctx: &EditContext,
) -> Result<String, EditRefused> {
    let mut text = compact_whitespace(next);
    if text.is_empty() {
        return refuse("todo text must not be empty");
    }
    if !PREFIX_RE.is_match(&text)
        && let Some(c) = PREFIX_RE.captures(parent_text)
    {
        text = format!("[{}] {text}", c[1].to_uppercase());
    }
    let Some((s, e, heading)) = doc.section_bounds(Role::Agent) else {
        return refuse("writegate does not create the agent section for a successor todo; complete it with loopx");
    };
    if doc.open_block_with_text(s, e, Some(Role::Agent), &heading, &text).is_some() {
        return refuse(
            "the successor text matches an existing open todo; writegate does not reproduce LoopX's dedupe for successors",
        );
    }
    let id = build_todo_id("agent", &heading, doc.block_starts(s, e).len() + 1, &text);
    let mut meta = Metadata::default();
    meta.set_text("todo_id", &id);
    meta.set_text("status", "open");
    meta.set_text("task_class", a.next_task_class.as_deref().unwrap_or("advancement_task"));
    if let Some(c) = &a.next_claimed_by {
        let c = normalize_agent_arg("next_claimed_by", c)?;
        check_registered(ctx, "next_claimed_by", &c)?;
        meta.set_text("claimed_by", &c);
    }
    if let Some(u) = unblocks {
        meta.set_text("unblocks_todo_id", &u);
    }
    meta.set_text("updated_at", &ctx.now);
    doc.insert_in_section(s, e, vec![format!("- [ ] {text}"), meta.format_line().unwrap_or_default()]);
    Ok(id)
}

fn link_successor(doc: &mut Doc, parent_id: &str, succ: &str, supersede: bool) -> Result<(), EditRefused> {
    let Some((_, _, block)) = doc.find_todo(parent_id, None) else {
        return refuse("completed todo vanished while linking its successor");
    };
    let mut meta = block.metadata.clone();
    let mut ids = meta.list("successor_todo_ids");
    if !ids.iter().any(|i| i == succ) {
        ids.push(succ.to_owned());
    }
    meta.set_list("successor_todo_ids", &ids);
    if supersede {
        meta.set_text("superseded_by", &ids[0]);
    } else {
        meta.set_text("completion_continuation", "successor");
    }
    if let Some(line) = meta.format_line() {
        doc.upsert_metadata(&block, line);
    }
    Ok(())
}

fn settle_next_action(doc: &mut Doc, done_id: &str, done_text: &str) -> Result<(), EditRefused> {
    let na = next_action::read(doc);
    let Some(bounds) = na.bounds else {
        return Ok(());
    };
    let matched = match na.bindings.as_slice() {
        [only] => only == done_id,
        [] => matches!(na.entries.as_slice(), [e] if compact_whitespace(e) == done_text),
        _ => false,
    };
    if !matched {
        return Ok(());
    }
    let Some((s, e, heading)) = doc.section_bounds(Role::Agent) else {
        next_action::rewrite(doc, bounds, None);
        return Ok(());
    };
    let open: Vec<_> =
        doc.blocks(s, e, Some(Role::Agent), &heading).into_iter().filter(|b| b.status == "open").collect();
    if open.iter().any(|b| b.metadata.get("task_class").is_none()) {
        return refuse(
            "choosing the next Next Action needs LoopX's text-based task-class inference for a todo without task_class; run this completion with loopx",
        );
    }
    let next = open
        .iter()
        .filter(|b| {
            !matches!(b.metadata.text("task_class").as_deref(), Some("continuous_monitor" | "user_gate" | "blocker"))
        })
        .min_by_key(|b| {
            (
                b.metadata.text("task_class").as_deref() != Some("advancement_task"),
                next_action::priority_rank(&b.text),
                b.index,
            )
        })
        .map(|b| (b.text.clone(), b.todo_id.clone()));
    let bounds = next_action::read(doc).bounds.unwrap_or(bounds);
    next_action::rewrite(doc, bounds, next.as_ref().map(|(t, i)| (t.as_str(), i.as_str())));
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn completion_key_matches_sample() {
        // samples/03-todo-lifecycle state/04-after-complete.md
        assert_eq!(
            super::local_completion_key("demo-goal", "todo_cc1c01a7ef81"),
            "local_completion_ef11bf3c1a074940901c3f169e7ac2dc"
        );
    }
}
