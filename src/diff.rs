//! A terminal-free diff model over `similar`: unified text for CLI output and the line
//! model (hunks of tagged lines with old/new numbers) the TUI draws.

use serde::Serialize;
use similar::{ChangeTag, TextDiff};
use std::time::{Duration, Instant};

/// Time budget for one line diff; past it `similar` falls back to a coarser (still exact)
/// line diff, so a hostile or huge state cannot stall a preview.
pub const LINE_DIFF_DEADLINE: Duration = Duration::from_millis(300);

fn line_diff<'a>(old: &'a str, new: &'a str) -> TextDiff<'a, 'a, 'a, str> {
    TextDiff::configure().deadline(Instant::now() + LINE_DIFF_DEADLINE).diff_lines(old, new)
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

/// What a reader must be told beside the lines: a change of line endings (counted, so each
/// CR written is accounted for) or of the UTF-8 BOM. The one rule for the TUI's Diff tab and
/// the CLI's `preview`.
#[must_use]
pub fn ending_notes(old: &str, new: &str) -> Vec<String> {
    let mut notes = Vec::new();
    let crlf = |t: &str| t.matches("\r\n").count();
    let (oc, nc) = (crlf(old), crlf(new));
    if oc != nc {
        notes.push(format!("line endings change: {oc} CRLF line(s) before, {nc} after (shown without the CR)"));
    }
    if old.starts_with('\u{feff}') != new.starts_with('\u{feff}') {
        notes.push(if new.starts_with('\u{feff}') {
            "a UTF-8 BOM is added".into()
        } else {
            "the UTF-8 BOM is removed".into()
        });
    }
    notes
}

/// A text as the diff views compare it: the BOM and the CR of each CRLF left out (said by
/// [`ending_notes`] instead).
fn for_display(text: &str) -> String {
    text.strip_prefix('\u{feff}').unwrap_or(text).replace("\r\n", "\n")
}

/// The reader's unified diff: [`ending_notes`] and the unified diff of the texts as
/// [`model`] compares them, so the CLI's `preview` shows what the TUI's Diff tab shows (a
/// CRLF → LF rewrite is one note, not every line changed). When only endings or the BOM
/// change, the diff is empty and the notes say it all.
#[must_use]
pub fn unified_for_reader(old: &str, new: &str, label: &str) -> (Vec<String>, String) {
    (ending_notes(old, new), unified(&for_display(old), &for_display(new), label))
}

/// Unified diff text (`--- a/<label>` / `+++ b/<label>` headers), empty when equal.
#[must_use]
pub fn unified(old: &str, new: &str, label: &str) -> String {
    unified_and_ranges(old, new, label).0
}

/// [`unified`] and, from the same line diff, the old line ranges `[start, end)` (0-based)
/// each change replaces (a pure insertion is the empty range at its position).
#[must_use]
pub fn unified_and_ranges(old: &str, new: &str, label: &str) -> (String, Vec<(usize, usize)>) {
    if old == new {
        return (String::new(), Vec::new());
    }
    let diff = line_diff(old, new);
    let ranges = diff
        .ops()
        .iter()
        .filter_map(|op| match *op {
            similar::DiffOp::Equal { .. } => None,
            similar::DiffOp::Delete { old_index, old_len, .. }
            | similar::DiffOp::Replace { old_index, old_len, .. } => Some((old_index, old_index + old_len)),
            similar::DiffOp::Insert { old_index, .. } => Some((old_index, old_index)),
        })
        .collect();
    let text = diff.unified_diff().context_radius(3).header(&format!("a/{label}"), &format!("b/{label}")).to_string();
    (text, ranges)
}

/// The lines a change adds, with their 1-based line numbers in the new text.
#[must_use]
pub fn added_lines(old: &str, new: &str) -> Vec<(usize, String)> {
    added_and_removed(old, new).0
}

/// [`added_lines`], and how many lines the change removes (one line diff for both).
#[must_use]
pub fn added_and_removed(old: &str, new: &str) -> (Vec<(usize, String)>, usize) {
    let mut removed = 0;
    let mut added = Vec::new();
    for c in line_diff(old, new).iter_all_changes() {
        match c.tag() {
            ChangeTag::Insert => {
                added.push((c.new_index().map_or(0, |i| i + 1), c.value().trim_end_matches(['\n', '\r']).to_owned()));
            }
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    (added, removed)
}

/// One row of a display diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    /// `count` unchanged lines folded away.
    Fold(usize),
    /// A line.
    Line(ModelLine),
}

/// A line with word-level spans: `(emphasised, text)`; emphasised spans are the words that
/// changed inside a changed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelLine {
    /// `' '`, `'-'` or `'+'`.
    pub tag: char,
    /// 1-based old line number.
    pub old: Option<usize>,
    /// 1-based new line number.
    pub new: Option<usize>,
    /// Spans.
    pub spans: Vec<(bool, String)>,
    /// No newline at end of file after this line.
    pub missing_newline: bool,
}

/// A display diff: rows with folded context, plus notes the reader must see.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Model {
    /// Rows.
    pub rows: Vec<Row>,
    /// Lines added / removed.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// Notes: line-ending or BOM changes, simplified diff past the deadline.
    pub notes: Vec<String>,
}

/// Builds the display diff of `old` → `new` with `context` lines around changes. Line
/// endings are compared separately (a CRLF → LF rewrite is one note, not every line
/// changed). Past `deadline` the line diff is coarser and word highlights are skipped; a
/// note says so.
#[must_use]
pub fn model(old: &str, new: &str, context: usize, deadline: Duration) -> Model {
    let started = Instant::now();
    let notes = ending_notes(old, new);
    let (o, n) = (for_display(old), for_display(new));
    let diff = TextDiff::configure().deadline(started + deadline).diff_lines(&o, &n);
    let mut m = Model { notes, ..Model::default() };
    let groups = diff.grouped_ops(context);
    for (gi, group) in groups.iter().enumerate() {
        let first_old = group.first().map_or(0, |op| op.old_range().start);
        let prev_end = if gi == 0 { 0 } else { groups[gi - 1].last().map_or(0, |op| op.old_range().end) };
        if first_old > prev_end {
            m.rows.push(Row::Fold(first_old - prev_end));
        }
        for op in group {
            // Word highlights only while inside the deadline: past it, the inline pass (a
            // diff per changed line) is not run at all, so the whole view keeps to one
            // deadline.
            if started.elapsed() < deadline {
                for change in diff.iter_inline_changes(op) {
                    let spans = change.iter_strings_lossy().map(|(emph, s)| (emph, s.into_owned())).collect();
                    let at = (change.old_index(), change.new_index());
                    push_line(&mut m, change.tag(), at, spans, change.missing_newline());
                }
            } else {
                for change in diff.iter_changes(op) {
                    let spans = vec![(false, change.to_string_lossy().into_owned())];
                    let at = (change.old_index(), change.new_index());
                    push_line(&mut m, change.tag(), at, spans, change.missing_newline());
                }
            }
        }
    }
    let last_end = groups.last().and_then(|g| g.last()).map_or(0, |op| op.old_range().end);
    let total_old = o.lines().count();
    if !m.rows.is_empty() && total_old > last_end {
        m.rows.push(Row::Fold(total_old - last_end));
    }
    if started.elapsed() >= deadline {
        m.notes.push(format!("diff simplified: it took longer than {} ms", deadline.as_millis()));
    }
    m
}

/// One row of the model: `tag`, 0-based `(old, new)` indexes, its spans (the line's own
/// newline dropped), counted as added or removed.
fn push_line(
    m: &mut Model,
    tag: ChangeTag,
    (old, new): (Option<usize>, Option<usize>),
    mut spans: Vec<(bool, String)>,
    missing_newline: bool,
) {
    let tag = match tag {
        ChangeTag::Equal => ' ',
        ChangeTag::Delete => '-',
        ChangeTag::Insert => '+',
    };
    match tag {
        '+' => m.added += 1,
        '-' => m.removed += 1,
        _ => {}
    }
    if let Some(last) = spans.last_mut()
        && last.1.ends_with('\n')
    {
        last.1.pop();
    }
    m.rows.push(Row::Line(ModelLine { tag, old: old.map(|i| i + 1), new: new.map(|i| i + 1), spans, missing_newline }));
}

#[cfg(test)]
mod model_tests {
    use super::*;

    #[test]
    fn the_readers_unified_diff_notes_a_crlf_rewrite_instead_of_every_line() {
        let (notes, text) = unified_for_reader("a\r\nb\r\nc\r\n", "a\nB\nc\n", "s");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(text.lines().filter(|l| l.starts_with('+') && !l.starts_with("+++")).count(), 1, "{text}");
    }

    #[test]
    fn past_the_deadline_the_view_keeps_every_line_without_word_highlights() {
        let mut old = String::new();
        let mut new = String::new();
        for i in 0..200 {
            old.push_str(&format!("line {i} alpha beta\n"));
            new.push_str(&format!("line {i} alpha {}\n", if i % 3 == 0 { "gamma" } else { "beta" }));
        }
        let full = model(&old, &new, 3, Duration::from_secs(10));
        let late = model(&old, &new, 3, Duration::ZERO);
        assert!(full.rows.iter().any(|r| matches!(r, Row::Line(l) if l.spans.iter().any(|(e, _)| *e))));
        assert!(late.rows.iter().all(|r| !matches!(r, Row::Line(l) if l.spans.iter().any(|(e, _)| *e))));
        assert!(late.notes.iter().any(|n| n.starts_with("diff simplified")), "{:?}", late.notes);
        let text = |m: &Model| -> String {
            m.rows
                .iter()
                .filter_map(|r| match r {
                    Row::Line(l) if l.tag != ' ' => {
                        Some(format!("{}{}\n", l.tag, l.spans.iter().map(|(_, s)| s.as_str()).collect::<String>()))
                    }
                    _ => None,
                })
                .collect()
        };
        assert!(late.added > 0 && late.removed > 0);
        // Coarser maybe, but every changed line is there with its whole text.
        for l in text(&full).lines() {
            assert!(text(&late).contains(l), "{l} missing past the deadline");
        }
    }

    #[test]
    fn crlf_rewrite_is_a_note_not_every_line() {
        let m = model("a\r\nb\r\nc\r\n", "a\nb\nc\n", 3, Duration::from_secs(1));
        assert_eq!((m.added, m.removed), (0, 0));
        assert!(m.notes[0].contains("line endings"));
    }

    #[test]
    fn words_folds_and_missing_newline() {
        let old = (1..=20).fold(String::new(), |acc, i| acc + "line " + &i.to_string() + "\n");
        let new = old.replace("line 10\n", "line ten\n") + "tail";
        let m = model(&old, &new, 2, Duration::from_secs(1));
        assert!(matches!(m.rows[0], Row::Fold(7)));
        let changed: Vec<_> = m
            .rows
            .iter()
            .filter_map(|r| if let Row::Line(l) = r { (l.tag == '+').then_some(l) } else { None })
            .collect();
        assert!(changed[0].spans.iter().any(|(e, s)| *e && s.contains("ten")));
        assert!(changed.last().is_some_and(|l| l.missing_newline));
    }
}
