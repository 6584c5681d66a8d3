//! A terminal-free diff model over `similar`: unified text for CLI output and the line
//! model (hunks of tagged lines with old/new numbers) the TUI draws.

mod lines;
mod words;

use serde::Serialize;
use similar::DiffOp;
use std::time::{Duration, Instant};

/// Time budget for one line diff in the CLI's views (`preview`, conflict details); past it
/// the diff is coarser (still exact), so a hostile or huge state cannot stall a preview.
pub const LINE_DIFF_DEADLINE: Duration = Duration::from_millis(300);

fn line_diff<'a>(old: &'a str, new: &'a str) -> lines::LineDiff<'a> {
    lines::diff(old, new, Instant::now() + LINE_DIFF_DEADLINE)
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
    let d = line_diff(old, new);
    similar::group_diff_ops(d.ops.clone(), context)
        .iter()
        .map(|group| Hunk {
            header: lines::hunk_header(group),
            lines: group
                .iter()
                .flat_map(|op| lines::op_lines(&d, op))
                .map(|(tag, o, n, raw)| {
                    let text = raw.strip_suffix('\n').unwrap_or(raw);
                    DiffLine {
                        tag,
                        old: o.map(|i| i + 1),
                        new: n.map(|i| i + 1),
                        text: text.strip_suffix('\r').unwrap_or(text).to_owned(),
                        missing_newline: lines::missing_newline(raw),
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
    let crlf = |t: &str| memchr::memmem::find_iter(t.as_bytes(), b"\r\n").count();
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
/// [`ending_notes`] instead); the text itself when it has neither.
fn for_display(text: &str) -> std::borrow::Cow<'_, str> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if body.len() == text.len() && memchr::memmem::find(text.as_bytes(), b"\r\n").is_none() {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(body.replace("\r\n", "\n"))
    }
}

/// The ops of one line diff, kept with the two texts they were computed on (shared, not
/// copied), so a later view of the same pair reuses them instead of diffing again; a pair
/// that differs in any byte gets its own diff, and so does a pair whose kept diff ran past
/// its deadline (a fresh one may finish and be finer).
#[derive(Debug, Clone)]
pub struct KeptOps {
    texts: (std::sync::Arc<String>, std::sync::Arc<String>),
    ops: Vec<DiffOp>,
    timed_out: bool,
}

impl KeptOps {
    /// The kept line diff, when it was computed on exactly `old` → `new`.
    fn line_diff<'a>(&self, old: &'a str, new: &'a str) -> Option<lines::LineDiff<'a>> {
        // Compared byte for byte (a hash of each side cost more than the comparison).
        if self.timed_out || self.texts.0.as_str() != old || self.texts.1.as_str() != new {
            return None;
        }
        let d = lines::LineDiff {
            old: lines::split_lines(old),
            new: lines::split_lines(new),
            ops: self.ops.clone(),
            timed_out: false,
        };
        let ends = d.ops.last().map_or((0, 0), |op| (op.old_range().end, op.new_range().end));
        (ends == (d.old.len(), d.new.len())).then_some(d)
    }
}

/// The reader's unified diff: [`ending_notes`] and the unified diff of the texts as
/// [`model`] compares them, so the CLI's `preview` shows what the TUI's Diff tab shows (a
/// CRLF → LF rewrite is one note, not every line changed). When only endings or the BOM
/// change, the diff is empty and the notes say it all.
#[must_use]
pub fn unified_for_reader(old: &str, new: &str, label: &str) -> (Vec<String>, String) {
    unified_for_reader_reusing(old, new, label, None)
}

/// [`unified_for_reader`], reusing `kept` (from [`added_and_removed_keeping`]) when it is
/// the line diff of exactly these texts as the reader compares them.
#[must_use]
pub fn unified_for_reader_reusing(old: &str, new: &str, label: &str, kept: Option<&KeptOps>) -> (Vec<String>, String) {
    let (a, b) = (for_display(old), for_display(new));
    let diff = if a == b {
        String::new()
    } else if let Some(d) = kept.and_then(|k| k.line_diff(&a, &b)) {
        lines::unified_text(&d, 3, label)
    } else {
        unified(&a, &b, label)
    };
    (ending_notes(old, new), diff)
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
    let d = line_diff(old, new);
    let ranges = d
        .ops
        .iter()
        .filter_map(|op| match *op {
            DiffOp::Equal { .. } => None,
            DiffOp::Delete { old_index, old_len, .. } | DiffOp::Replace { old_index, old_len, .. } => {
                Some((old_index, old_index + old_len))
            }
            DiffOp::Insert { old_index, .. } => Some((old_index, old_index)),
        })
        .collect();
    (lines::unified_text(&d, 3, label), ranges)
}

/// `old` → `new` as splices of `old`: each changed run of lines as its byte range in `old`
/// and the text that replaces it, in order, from the line diff (Myers stopping at
/// `deadline`; past it the runs are larger, never wrong). Applying every splice to `old`
/// gives `new` byte for byte.
#[must_use]
pub fn splices(old: &str, new: &str, deadline: Duration) -> Vec<(std::ops::Range<usize>, String)> {
    let d = lines::diff(old, new, Instant::now() + deadline);
    d.ops
        .iter()
        .filter(|op| !matches!(op, DiffOp::Equal { .. }))
        .map(|op| {
            let (o, n) = (op.old_range(), op.new_range());
            (d.old.start(o.start)..d.old.start(o.end), d.new.text_of(n).to_owned())
        })
        .collect()
}

/// The lines a change adds (with their 1-based line numbers in the new text), and how many
/// lines it removes (one line diff for both).
#[must_use]
pub fn added_and_removed(old: &str, new: &str) -> (Vec<(usize, String)>, usize) {
    added_and_removed_keeping(&std::sync::Arc::new(old.to_owned()), &std::sync::Arc::new(new.to_owned())).0
}

/// [`added_and_removed`], and its line diff kept (with the two texts, shared) for
/// [`unified_for_reader_reusing`].
#[must_use]
pub fn added_and_removed_keeping(
    old: &std::sync::Arc<String>,
    new: &std::sync::Arc<String>,
) -> ((Vec<(usize, String)>, usize), KeptOps) {
    let mut removed = 0;
    let mut added = Vec::new();
    let d = line_diff(old, new);
    for op in d.ops.iter().filter(|op| !matches!(op, DiffOp::Equal { .. })) {
        for (tag, _, n, line) in lines::op_lines(&d, op) {
            match tag {
                '+' => added.push((n.map_or(0, |i| i + 1), line.trim_end_matches(['\n', '\r']).to_owned())),
                '-' => removed += 1,
                _ => {}
            }
        }
    }
    let kept =
        KeptOps { texts: (std::sync::Arc::clone(old), std::sync::Arc::clone(new)), ops: d.ops, timed_out: d.timed_out };
    ((added, removed), kept)
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
/// changed). The line diff and the word highlights share one `deadline`: past it the line
/// diff is coarser (still exact), highlights stop, and a note says so. Whatever the texts,
/// the work after the deadline is building the rows (linear in the lines shown) plus at most
/// one block's highlights ([`words::MAX_BLOCK_BYTES`]).
#[must_use]
pub fn model(old: &str, new: &str, context: usize, deadline: Duration) -> Model {
    let started = Instant::now();
    let until = started + deadline;
    let notes = ending_notes(old, new);
    let (o, n) = (for_display(old), for_display(new));
    let d = lines::diff(&o, &n, until);
    let mut m = Model { notes, ..Model::default() };
    let groups = similar::group_diff_ops(d.ops.clone(), context);
    let mut prev_end = 0;
    for group in &groups {
        let first_old = group.first().map_or(0, |op| op.old_range().start);
        if first_old > prev_end {
            m.rows.push(Row::Fold(first_old - prev_end));
        }
        for op in group {
            push_op(&mut m, &d, op, until);
        }
        prev_end = group.last().map_or(0, |op| op.old_range().end);
    }
    if !m.rows.is_empty() && d.old.len() > prev_end {
        m.rows.push(Row::Fold(d.old.len() - prev_end));
    }
    if d.timed_out || Instant::now() >= until {
        m.notes.push(format!("diff simplified: it took longer than {} ms", deadline.as_millis()));
    }
    m
}

/// The rows of one op: a replaced block with word highlights while inside the deadline,
/// every other line as one plain span.
fn push_op(m: &mut Model, d: &lines::LineDiff<'_>, op: &DiffOp, until: Instant) {
    if let DiffOp::Replace { old_index, old_len, new_index, new_len } = *op
        && let Some((olds, news)) = words::highlight(
            &d.old.slices(old_index..old_index + old_len),
            &d.new.slices(new_index..new_index + new_len),
            until,
        )
    {
        for (k, spans) in olds.into_iter().enumerate() {
            push_line(m, '-', (Some(old_index + k), None), spans, lines::missing_newline(d.old.line(old_index + k)));
        }
        for (k, spans) in news.into_iter().enumerate() {
            push_line(m, '+', (None, Some(new_index + k)), spans, lines::missing_newline(d.new.line(new_index + k)));
        }
        return;
    }
    for (tag, o, n, line) in lines::op_lines(d, op) {
        let body = line.trim_end_matches(['\n', '\r']);
        push_line(m, tag, (o, n), vec![(false, body.to_owned())], lines::missing_newline(line));
    }
}

/// One row of the model: `tag`, 0-based `(old, new)` indexes, its spans (without the line's
/// terminator), counted as added or removed.
fn push_line(
    m: &mut Model,
    tag: char,
    (old, new): (Option<usize>, Option<usize>),
    spans: Vec<(bool, String)>,
    missing_newline: bool,
) {
    match tag {
        '+' => m.added += 1,
        '-' => m.removed += 1,
        _ => {}
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

#[cfg(test)]
mod kept_ops_tests {
    use super::*;
    use proptest::prelude::*;
    use std::sync::Arc;

    fn text() -> impl Strategy<Value = String> {
        let line = prop::sample::select(vec!["a\n", "b\n", "c\r\n", "\u{feff}d\n", "e", "\n", "ff\r"]);
        prop::collection::vec(line, 0..16).prop_map(|l| l.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// The reader's diff is the same whether it reuses a kept line diff of the same
        /// texts, is handed one of another pair, or diffs afresh.
        #[test]
        fn a_kept_diff_gives_the_fresh_diff(old in text(), new in text(), other in text()) {
            let fresh = unified_for_reader(&old, &new, "s");
            let (old, new, other) = (Arc::new(old), Arc::new(new), Arc::new(other));
            let (_, same) = added_and_removed_keeping(&old, &new);
            prop_assert_eq!(&unified_for_reader_reusing(&old, &new, "s", Some(&same)), &fresh);
            // Equal texts in other buffers: the kept diff is theirs too.
            let (old_copy, new_copy) = (old.as_str().to_owned(), new.as_str().to_owned());
            prop_assert_eq!(&unified_for_reader_reusing(&old_copy, &new_copy, "s", Some(&same)), &fresh);
            let (_, stale) = added_and_removed_keeping(&old, &other);
            prop_assert_eq!(&unified_for_reader_reusing(&old, &new, "s", Some(&stale)), &fresh);
        }
    }

    /// A kept diff that ran past its deadline (its ops may be coarser than a fresh diff's)
    /// is never reused; the same diff finished in time is. (Deterministic: whether a fresh
    /// diff of large texts finishes depends on the machine, so the rule is tested here.)
    #[test]
    fn a_diff_past_its_deadline_is_not_reused() {
        let (old, new) = ("a\nb\nc\n", "a\nB\nc\nd\n");
        let ((_, _), mut kept) = added_and_removed_keeping(&Arc::new(old.into()), &Arc::new(new.into()));
        assert!(kept.line_diff(old, new).is_some());
        assert!(kept.line_diff(old, "a\nB\nc\ne\n").is_none(), "another text of the same length");
        kept.timed_out = true;
        assert!(kept.line_diff(old, new).is_none());
        assert_eq!(unified_for_reader_reusing(old, new, "s", Some(&kept)), unified_for_reader(old, new, "s"));
    }
}
