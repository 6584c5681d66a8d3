//! `loopx refresh-state --next-action TEXT --progress-scope goal` (spec §4): replaces the
//! `## Next Action` section; the file is right-stripped and ends with one newline.

use super::doc::{Doc, bumped};
use super::{EditContext, EditOutcome, EditRefused, TodoArgs, refuse};
use crate::loopx::pytext::{compact_whitespace, is_py_space, py_strip};

const ANCHORS: &[&str] =
    &["## Recent User Feedback", "## Progress Ledger", "## Operating Lessons", "## Completed Work Archive"];

/// Checks refresh-state's actor and scope rules (spec §4.1); returns the normalised text.
pub(super) fn validate(a: &TodoArgs, ctx: &EditContext) -> Result<String, EditRefused> {
    let text = compact_whitespace(a.next_action.as_deref().unwrap_or(""));
    if text.is_empty() {
        return refuse("next_action must not be empty");
    }
    let agent = a.agent_id.as_deref().map(str::trim).filter(|x| !x.is_empty());
    if let Some(x) = agent
        && !ctx.registered_agents.is_empty()
        && !ctx.registered_agents.iter().any(|r| r == x)
    {
        return refuse(format!("agent_id '{x}' is not registered for goal '{}'", ctx.goal_id));
    }
    if ctx.registered_agents.len() >= 2 && agent.is_none() {
        return refuse("multi-agent refresh-state requires --agent-id; text inference is disabled");
    }
    let scope = a.progress_scope.as_deref().unwrap_or(if agent.is_some() { "agent_lane" } else { "goal" });
    match scope {
        "goal" => Ok(text),
        "agent_lane" if agent.is_none() => refuse("--progress-scope agent_lane requires --agent-id"),
        "agent_lane" => refuse(
            "agent-lane refresh-state cannot update the durable active-state Next Action; rerun without --next-action or use --progress-scope goal from a registered peer",
        ),
        other => refuse(format!("invalid progress scope {other:?}")),
    }
}

pub(super) fn refresh_state(original: &str, a: &TodoArgs, ctx: &EditContext) -> Result<EditOutcome, EditRefused> {
    let text = validate(a, ctx)?;
    let mut doc = Doc::new(original);
    let section = vec!["## Next Action".to_owned(), String::new(), format!("- {text}"), String::new()];
    if let Some(start) = doc.lines.iter().position(|l| py_strip(l) == "## Next Action") {
        let end = doc.section_end(start);
        doc.lines.splice(start..end, section.into_iter().map(std::borrow::Cow::Owned));
    } else {
        let anchor = doc.lines.iter().position(|l| ANCHORS.contains(&py_strip(l))).unwrap_or(doc.lines.len());
        let mut block = section;
        if anchor > 0 && !py_strip(&doc.lines[anchor - 1]).is_empty() {
            block.insert(0, String::new());
        }
        doc.lines.splice(anchor..anchor, block.into_iter().map(std::borrow::Cow::Owned));
    }
    let mut new_text = doc.lines.join("\n").trim_end_matches(is_py_space).to_owned();
    new_text.push('\n');
    let changed = new_text.trim_end_matches('\n') != doc.original.trim_end_matches('\n');
    Ok(EditOutcome {
        text: if changed { bumped(new_text, &ctx.now) } else { doc.original.clone().into_owned() },
        changed,
        role: None,
        section: "Next Action".into(),
        todo_id: None,
        claimed_by: None,
        touched_todo_ids: Vec::new(),
    })
}
