//! A terminal-free diff model over `similar`: unified text for CLI output and the line
//! model (hunks of tagged lines with old/new numbers) the TUI draws.

use serde::Serialize;
use similar::{ChangeTag, TextDiff};
use std::time::{Duration, Instant};

/// Time budget for one line diff; past it `similar` falls back to a coarser (still exact)
/// line diff, so a hostile or huge state cannot stall a preview.
pub const LINE_DIFF_DEADLINE: Duration = Duration::from_millis(300);

fn line_diff<'a>(old: &'a str, new: &'a str) -> TextDiff<'a, 'a, 'a, str> {
    TextDiff::configure()
        .deadline(Instant::now() + LINE_DIFF_DEADLINE)
        .diff_lines(old, new)
}

/// One diff line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffLine {
    /// `' '`, `'-'` or `'+'`.
    pub tag: char,
    /// 1-based line number in the old text.
    pub old: Option<usize>,
    /// 1-based line number in the new text.
    pub new: Option<usize>,
    /// The line without its terminator.
    pub text: String,
    /// True when this line has no newline at end of file.
    pub missing_newline: bool,
}

/// A hunk of the diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hunk {
    /// `@@ -a,b +c,d @@`.
    pub header: String,
    /// Lines.
    pub lines: Vec<DiffLine>,
}

/// Hunks of `old` → `new` with `context` lines around each change.
#[must_use]
pub fn hunks(old: &str, new: &str, context: usize) -> Vec<Hunk> {
    let diff = line_diff(old, new);
    diff.unified_diff()
        .context_radius(context)
        .iter_hunks()
        .map(|h| Hunk {
            header: h.header().to_string().trim_end().to_owned(),
            lines: h
                .iter_changes()
                .map(|c| {
                    let raw = c.value();
                    let text = raw.strip_suffix('\n').unwrap_or(raw);
                    DiffLine {
                        tag: match c.tag() {
                            ChangeTag::Equal => ' ',
                            ChangeTag::Delete => '-',
                            ChangeTag::Insert => '+',
                        },
                        old: c.old_index().map(|i| i + 1),
                        new: c.new_index().map(|i| i + 1),
                        text: text.strip_suffix('\r').unwrap_or(text).to_owned(),
                        missing_newline: c.missing_newline(),
                    }
                })
                .collect(),
        })
        .collect()
}

/// Unified diff text (`--- a/<label>` / `+++ b/<label>` headers), empty when equal.
#[must_use]
pub fn unified(old: &str, new: &str, label: &str) -> String {
    if old == new {
        return String::new();
    }
    line_diff(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{label}"), &format!("b/{label}"))
        .to_string()
}

/// The lines a change adds, with their 1-based line numbers in the new text.
#[must_use]
pub fn added_lines(old: &str, new: &str) -> Vec<(usize, String)> {
    line_diff(old, new)
        .iter_all_changes()
        .filter(|c| c.tag() == ChangeTag::Insert)
        .map(|c| {
            (
                c.new_index().map_or(0, |i| i + 1),
                c.value().trim_end_matches(['\n', '\r']).to_owned(),
            )
        })
        .collect()
}
