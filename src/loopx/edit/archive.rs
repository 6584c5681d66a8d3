//! `loopx todo archive-completed --execute` (spec §8): moves the oldest done blocks of the
//! agent section under `## Completed Work Archive`, verbatim.

use super::doc::{Doc, bumped};
use super::{EditContext, EditOutcome, EditRefused, TodoArgs, refuse};
use crate::loopx::pytext::py_strip;
use crate::loopx::state::Role;

/// LoopX's default `--max-active-done` (12 − 2).
pub const DEFAULT_MAX_ACTIVE_DONE: i64 = 10;

pub(super) fn archive_completed(original: &str, a: &TodoArgs, ctx: &EditContext) -> Result<EditOutcome, EditRefused> {
    if a.role.as_deref().is_some_and(|r| r != "agent") {
        return refuse(
            "writegate archives the agent role only (user archives keep standing decision receipts, which writegate does not reproduce)",
        );
    }
    let max = a.max_active_done.unwrap_or(DEFAULT_MAX_ACTIVE_DONE);
    if max < 0 {
        return refuse("max_active_done must be non-negative");
    }
    let mut doc = Doc::new(original);
    let unchanged = |doc: &Doc, section: String| EditOutcome {
        text: doc.original.clone().into_owned(),
        changed: false,
        role: Some(Role::Agent),
        section,
        todo_id: None,
        claimed_by: None,
        touched_todo_ids: Vec::new(),
    };
    let Some((s, e, heading)) = doc.section_bounds(Role::Agent) else {
        return Ok(unchanged(&doc, String::new()));
    };
    let done: Vec<_> =
        doc.blocks(s, e, Some(Role::Agent), &heading).into_iter().filter(|b| b.status == "done").collect();
    let excess = usize::try_from((done.len() as i64 - max).max(0)).unwrap_or(0);
    let moving: Vec<_> = done.into_iter().take(excess).collect();
    if moving.is_empty() {
        return Ok(unchanged(&doc, heading));
    }
    let mut moved_lines = Vec::new();
    let mut kept: Vec<std::borrow::Cow<'_, str>> = Vec::with_capacity(doc.lines.len());
    let mut i = 0;
    while i < doc.lines.len() {
        if let Some(b) = moving.iter().find(|b| b.start == i) {
            moved_lines.extend(doc.lines[b.start..b.end].iter().cloned());
            i = b.end;
            while i < doc.lines.len()
                && kept.last().is_some_and(|l| py_strip(l).is_empty())
                && py_strip(&doc.lines[i]).is_empty()
            {
                i += 1;
            }
            continue;
        }
        kept.push(doc.lines[i].clone());
        i += 1;
    }
    doc.lines = kept;
    let (as_, ae) = if let Some(bounds) = doc.archive_bounds() {
        bounds
    } else {
        if doc.lines.last().is_some_and(|l| !py_strip(l).is_empty()) {
            doc.lines.push("".into());
        }
        doc.lines.push("## Completed Work Archive".into());
        doc.lines.push("".into());
        (doc.lines.len() - 2, doc.lines.len())
    };
    doc.insert_in_section(as_, ae, moved_lines);
    let touched = moving.iter().map(|b| b.todo_id.clone()).collect();
    Ok(EditOutcome {
        text: bumped(doc.joined(), &ctx.now),
        changed: true,
        role: Some(Role::Agent),
        section: heading,
        todo_id: None,
        claimed_by: None,
        touched_todo_ids: touched,
    })
}
