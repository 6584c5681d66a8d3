//! The `## Next Action` section as todo writers see it: bullet entries, the
//! `loopx:next-action` binding comment, and the section rewrite LoopX does when the bound
//! todo is outranked (add) or finished (complete / supersede) — spec §1.6, §6.3.

use super::doc::Doc;
use crate::loopx::pytext::py_strip;
use regex::Regex;
use std::sync::LazyLock;

static ENTRY_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:[-*]|\d+[.)])\s+(.+?)\s*$").expect("static regex"));
static BINDING_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*<!--\s*loopx:next-action\s+.*?\btodo_id=([^\s<>]+).*?-->\s*$").expect("static regex")
});
static PRIORITY_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^\s*\[(P[0-4])[^\]]*\]\s*(.+)$").expect("static regex"));

/// What the Next Action section holds.
#[derive(Debug, Clone, Default)]
pub struct NextAction {
    /// Heading line and end of the section.
    pub bounds: Option<(usize, usize)>,
    /// Visible bullet entries (continuations joined).
    pub entries: Vec<String>,
    /// Todo ids named by binding comments.
    pub bindings: Vec<String>,
}

/// Reads the first `## Next Action` section.
#[must_use]
pub fn read(doc: &Doc) -> NextAction {
    let Some(start) = doc.lines.iter().position(|l| py_strip(l) == "## Next Action") else {
        return NextAction::default();
    };
    let end = doc.section_end(start);
    let mut na = NextAction { bounds: Some((start, end)), ..NextAction::default() };
    for line in &doc.lines[start + 1..end] {
        if let Some(c) = BINDING_RE.captures(line) {
            na.bindings.push(c[1].to_owned());
        } else if let Some(c) = ENTRY_RE.captures(line) {
            na.entries.push(c[1].to_owned());
        } else if line.starts_with([' ', '\t'])
            && !py_strip(line).is_empty()
            && let Some(last) = na.entries.last_mut()
        {
            last.push(' ');
            last.push_str(py_strip(line));
        }
    }
    na
}

/// Rewrites the section to point at `todo` (`Some((text, id))`) or to be empty (`None`).
pub fn rewrite(doc: &mut Doc, bounds: (usize, usize), todo: Option<(&str, &str)>) {
    let mut lines = vec!["## Next Action".to_owned(), String::new()];
    if let Some((text, id)) = todo {
        lines.push(format!("- {text}"));
        lines.push(format!("<!-- loopx:next-action schema=loopx_next_action_binding_v0 todo_id={id} -->"));
        lines.push(String::new());
    }
    doc.lines.splice(bounds.0..bounds.1, lines.into_iter().map(std::borrow::Cow::Owned));
}

/// Priority rank of a todo text: `P0`..`P4` → 0..4, no prefix → 50.
#[must_use]
pub fn priority_rank(text: &str) -> u32 {
    PRIORITY_RE.captures(text).and_then(|c| c[1][1..].parse().ok()).unwrap_or(50)
}
