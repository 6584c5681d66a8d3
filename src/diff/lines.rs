//! The line diff under every view: lines split as `similar` splits them (after `\n`, `\r\n`
//! or a lone `\r`), the common prefix and suffix taken off, lines that occur only on one side
//! set aside (they can never be part of a longest common subsequence, so the result stays a
//! minimal diff), and Myers (`similar`) run on what is left under a deadline. Past the
//! deadline `similar` answers with a coarser, still exact diff.
//!
//! Setting unmatched lines aside is what `git diff` (xdiff) does too: it makes a rewrite of
//! every line, or two near-disjoint texts, cost a hash per line instead of Myers' O(N·D).

use similar::{Algorithm, DiffOp};
use std::time::Instant;

/// The lines of both texts (each with its terminator) and the ops turning `old` into `new`.
pub(crate) struct LineDiff<'a> {
    pub old: Lines<'a>,
    pub new: Lines<'a>,
    pub ops: Vec<DiffOp>,
    /// True when the deadline passed before Myers finished (the ops are then coarser).
    pub timed_out: bool,
}

/// A text's lines, each with its terminator (`\n`, `\r\n` or a lone `\r`), held as the byte
/// offsets where they start: 4 bytes a line where a slice takes 16 (the two tables of a
/// 60 MiB state's diff were 23 MB of slices).
pub(crate) struct Lines<'a> {
    text: &'a str,
    /// Where each line starts, then `text.len()`: one more entry than there are lines.
    starts: Starts,
}

/// Line starts as `u32` for texts that fit one (every text writegate reads), else `usize`.
enum Starts {
    Short(Vec<u32>),
    Long(Vec<usize>),
}

impl<'a> Lines<'a> {
    /// The number of lines.
    pub fn len(&self) -> usize {
        match &self.starts {
            Starts::Short(v) => v.len().saturating_sub(1),
            Starts::Long(v) => v.len().saturating_sub(1),
        }
    }

    /// The byte offset where line `i` starts; the text's length for `i == len()` and past it.
    pub fn start(&self, i: usize) -> usize {
        let at = match &self.starts {
            Starts::Short(v) => v.get(i).map(|&s| s as usize),
            Starts::Long(v) => v.get(i).copied(),
        };
        at.unwrap_or(self.text.len())
    }

    /// Line `i` with its terminator; empty past the last line.
    pub fn line(&self, i: usize) -> &'a str {
        if i >= self.len() {
            return "";
        }
        self.text.get(self.start(i)..self.start(i + 1)).unwrap_or_default()
    }

    /// The text of the lines in `range`, terminators included.
    pub fn text_of(&self, range: std::ops::Range<usize>) -> &'a str {
        let end = range.end.min(self.len());
        let start = range.start.min(end);
        self.text.get(self.start(start)..self.start(end)).unwrap_or_default()
    }

    /// The lines in `range`, one slice each.
    pub fn slices(&self, range: std::ops::Range<usize>) -> Vec<&'a str> {
        range.map(|i| self.line(i)).collect()
    }
}

/// `text` split into lines, each keeping its terminator (`\n`, `\r\n` or a lone `\r`).
pub(crate) fn split_lines(text: &str) -> Lines<'_> {
    let starts = match u32::try_from(text.len()) {
        // Every offset is at most the length, so fits too.
        Ok(_) => Starts::Short(line_starts(text, |at| u32::try_from(at).unwrap_or(u32::MAX))),
        Err(_) => Starts::Long(line_starts(text, |at| at)),
    };
    Lines { text, starts }
}

/// Where each line of `text` starts, then its length (what `Lines` keeps), each as `of` gives.
fn line_starts<T>(text: &str, of: impl Fn(usize) -> T) -> Vec<T> {
    let bytes = text.as_bytes();
    // At most one line per `\n` or `\r`, and the two ends: a count first keeps the table at
    // its size (a guess from the byte length reserved far more for long lines).
    let mut starts = Vec::with_capacity(memchr::memchr2_iter(b'\n', b'\r', bytes).count() + 2);
    starts.push(of(0));
    let mut last = 0;
    for at in memchr::memchr2_iter(b'\n', b'\r', bytes) {
        if at < last {
            // The `\n` of a `\r\n` whose line is already ended.
            continue;
        }
        last = if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') { at + 2 } else { at + 1 };
        starts.push(of(last));
    }
    // A last line without a terminator ends at the text's end.
    if text.len() > last {
        starts.push(of(text.len()));
    }
    starts
}

/// True when the line has no terminator (the last line of a text without a final newline).
pub(crate) fn missing_newline(line: &str) -> bool {
    !line.ends_with(['\n', '\r'])
}

/// The line diff of `old` → `new`, Myers stopping at `deadline`.
pub(crate) fn diff<'a>(old: &'a str, new: &'a str, deadline: Instant) -> LineDiff<'a> {
    let (o, n) = (split_lines(old), split_lines(new));
    let prefix = (0..o.len().min(n.len())).take_while(|&i| o.line(i) == n.line(i)).count();
    let suffix = (0..(o.len() - prefix).min(n.len() - prefix))
        .take_while(|&k| o.line(o.len() - 1 - k) == n.line(n.len() - 1 - k))
        .count();
    let (o_mid, n_mid) = (prefix..o.len() - suffix, prefix..n.len() - suffix);
    let mut ops = Vec::new();
    push_equal(&mut ops, 0, 0, prefix);
    let mut timed_out = false;
    if o_mid.is_empty() || n_mid.is_empty() {
        push_change(&mut ops, o_mid.clone(), n_mid.clone());
    } else {
        let (runs, late) = matched_runs((&o, o_mid.clone()), (&n, n_mid.clone()), deadline);
        timed_out = late;
        let (mut oi, mut ni) = (o_mid.start, n_mid.start);
        for Run { old, new, len } in runs {
            let (po, pn) = (old as usize + o_mid.start, new as usize + n_mid.start);
            push_change(&mut ops, oi..po, ni..pn);
            push_equal(&mut ops, po, pn, len as usize);
            (oi, ni) = (po + len as usize, pn + len as usize);
        }
        push_change(&mut ops, oi..o_mid.end, ni..n_mid.end);
    }
    push_equal(&mut ops, o_mid.end, n_mid.end, suffix);
    LineDiff { old: o, new: n, ops, timed_out }
}

/// A run of kept lines: `len` lines from `old` on the old side equal to as many from `new`
/// on the new side (indexes into the slices [`matched_runs`] was given).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    old: u32,
    new: u32,
    len: u32,
}

/// Appends the kept pair `(old, new)`, extending the last run when it goes on from it.
fn push_pair(runs: &mut Vec<Run>, old: u32, new: u32) {
    if let Some(last) = runs.last_mut()
        && last.old + last.len == old
        && last.new + last.len == new
    {
        last.len += 1;
        return;
    }
    runs.push(Run { old, new, len: 1 });
}

/// The runs of lines the diff keeps, in order, and whether the deadline passed. Lines
/// without any equal line on the other side are left out before Myers runs; so are the
/// common prefix and suffix of what is left, which Myers would keep whole anyway (a bumped
/// `updated_at` at the top of a state and a todo added far below leave almost every line
/// there, and Myers' tables for them were the largest allocation of a 60 MiB state's diff).
fn matched_runs(
    (old, old_range): (&Lines<'_>, std::ops::Range<usize>),
    (new, new_range): (&Lines<'_>, std::ops::Range<usize>),
    deadline: Instant,
) -> (Vec<Run>, bool) {
    if old_range.len() + new_range.len() >= u32::MAX as usize {
        // Past what a line number holds (texts of 4 GiB and more): one exact replace.
        return (Vec::new(), false);
    }
    let mut interner = Interner::with_capacity(old_range.len().max(new_range.len()));
    let old_ids: Vec<u32> = old_range.map(|i| interner.id(old.line(i))).collect();
    let new_ids: Vec<u32> = new_range.map(|i| interner.id(new.line(i))).collect();
    let distinct = interner.distinct.len();
    drop(interner);
    let seen = |ids: &[u32]| {
        let mut seen = vec![false; distinct];
        for &id in ids {
            seen[id as usize] = true;
        }
        seen
    };
    let (in_new, in_old) = (seen(&new_ids), seen(&old_ids));
    // (position, id) of each line whose id the other side has too; positions fit a `u32`
    // (checked above).
    let keep = |ids: &[u32], other: &[bool]| -> (Vec<u32>, Vec<u32>) {
        let count = ids.iter().filter(|id| other[**id as usize]).count();
        let (mut at, mut kept) = (Vec::with_capacity(count), Vec::with_capacity(count));
        for (i, &id) in ids.iter().enumerate().filter(|(_, id)| other[**id as usize]) {
            at.push(i as u32);
            kept.push(id);
        }
        (at, kept)
    };
    let (old_at, old_kept) = keep(&old_ids, &in_new);
    let (new_at, new_kept) = keep(&new_ids, &in_old);
    drop((old_ids, new_ids, in_new, in_old));
    let head = old_kept.iter().zip(&new_kept).take_while(|(a, b)| a == b).count();
    let tail = old_kept[head..].iter().rev().zip(new_kept[head..].iter().rev()).take_while(|(a, b)| a == b).count();
    let (old_mid, new_mid) = (head..old_kept.len() - tail, head..new_kept.len() - tail);
    let mut runs = Vec::new();
    for k in 0..head {
        push_pair(&mut runs, old_at[k], new_at[k]);
    }
    let mut late = false;
    if !old_mid.is_empty() && !new_mid.is_empty() {
        let ops = similar::capture_diff_slices_deadline(
            Algorithm::Myers,
            &old_kept[old_mid.clone()],
            &new_kept[new_mid.clone()],
            Some(deadline),
        );
        late = Instant::now() >= deadline;
        for op in ops {
            if let DiffOp::Equal { old_index, new_index, len } = op {
                for k in 0..len {
                    push_pair(&mut runs, old_at[head + old_index + k], new_at[head + new_index + k]);
                }
            }
        }
    }
    for k in 0..tail {
        push_pair(&mut runs, old_at[old_mid.end + k], new_at[new_mid.end + k]);
    }
    (runs, late)
}

/// Numbers distinct lines in the order first seen (equal lines, equal numbers). The table
/// holds only the numbers (4 bytes a slot) and hashes the line again when it grows: a map
/// from line to number held a 16-byte key per slot, one of the largest allocations of a
/// diff of a 60 MiB state. foldhash (seeded per
/// process) instead of SipHash: interning is most of a diff of two large texts that differ
/// at both ends (a bumped `updated_at` at the top, a todo added far below).
struct Interner<'a> {
    table: hashbrown::HashTable<u32>,
    /// The first line seen of each number.
    distinct: Vec<&'a str>,
    hasher: foldhash::fast::RandomState,
}

impl<'a> Interner<'a> {
    fn with_capacity(lines: usize) -> Self {
        Self {
            table: hashbrown::HashTable::with_capacity(lines),
            distinct: Vec::with_capacity(lines),
            hasher: foldhash::fast::RandomState::default(),
        }
    }

    /// The number of `line`. The caller interns fewer than `u32::MAX` lines in all.
    fn id(&mut self, line: &'a str) -> u32 {
        use std::hash::BuildHasher as _;
        let Self { table, distinct, hasher } = self;
        let hash = hasher.hash_one(line);
        let entry = table.entry(
            hash,
            |&id| distinct.get(id as usize).is_some_and(|l| *l == line),
            |&id| hasher.hash_one(distinct.get(id as usize).copied().unwrap_or_default()),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(e) => *e.get(),
            hashbrown::hash_table::Entry::Vacant(e) => {
                let next = u32::try_from(distinct.len()).unwrap_or(u32::MAX);
                distinct.push(line);
                e.insert(next);
                next
            }
        }
    }
}

/// Appends an equal run, merged with an equal run just before it.
fn push_equal(ops: &mut Vec<DiffOp>, old_index: usize, new_index: usize, len: usize) {
    if len == 0 {
        return;
    }
    if let Some(DiffOp::Equal { len: l, old_index: o, .. }) = ops.last_mut()
        && *o + *l == old_index
    {
        *l += len;
        return;
    }
    ops.push(DiffOp::Equal { old_index, new_index, len });
}

/// Appends what replaces `old` with `new` (a delete, an insert or a replace; nothing when both
/// are empty).
fn push_change(ops: &mut Vec<DiffOp>, old: std::ops::Range<usize>, new: std::ops::Range<usize>) {
    let op = match (old.is_empty(), new.is_empty()) {
        (true, true) => return,
        (false, true) => DiffOp::Delete { old_index: old.start, old_len: old.len(), new_index: new.start },
        (true, false) => DiffOp::Insert { old_index: old.start, new_index: new.start, new_len: new.len() },
        (false, false) => {
            DiffOp::Replace { old_index: old.start, old_len: old.len(), new_index: new.start, new_len: new.len() }
        }
    };
    ops.push(op);
}

/// One range of a hunk header as GNU diff writes it: `start` alone for one line, else
/// `start,len`; an empty range starts at the line before it.
fn header_range(start: usize, end: usize) -> String {
    let len = end.saturating_sub(start);
    match len {
        1 => format!("{}", start + 1),
        0 => format!("{start},0"),
        _ => format!("{},{len}", start + 1),
    }
}

/// The `@@ -a,b +c,d @@` header of a group of ops (non-empty).
pub(crate) fn hunk_header(group: &[DiffOp]) -> String {
    let (first, last) = (group[0], group[group.len() - 1]);
    format!(
        "@@ -{} +{} @@",
        header_range(first.old_range().start, last.old_range().end),
        header_range(first.new_range().start, last.new_range().end)
    )
}

/// Each line an op covers, in order: `('-' | '+' | ' ', old index, new index, line)`.
pub(crate) fn op_lines<'d, 'a>(
    d: &'d LineDiff<'a>,
    op: &DiffOp,
) -> impl Iterator<Item = (char, Option<usize>, Option<usize>, &'a str)> + 'd {
    let (o, n) = (op.old_range(), op.new_range());
    let equal = matches!(op, DiffOp::Equal { .. });
    let (eo, en) = (o.clone(), n.clone());
    let same = equal.then(|| eo.zip(en).map(|(i, j)| (' ', Some(i), Some(j), d.old.line(i))));
    let removed = (!equal).then(|| o.map(|i| ('-', Some(i), None, d.old.line(i))));
    let added = (!equal).then(|| n.map(|j| ('+', None, Some(j), d.new.line(j))));
    same.into_iter().flatten().chain(removed.into_iter().flatten()).chain(added.into_iter().flatten())
}

/// The unified diff of a line diff with `context` lines, `--- a/<label>` / `+++ b/<label>`
/// headers before the first hunk; empty when nothing changed. The format is GNU diff's (and
/// `similar`'s): `\ No newline at end of file` after a last line without its newline.
pub(crate) fn unified_text(d: &LineDiff<'_>, context: usize, label: &str) -> String {
    let groups = similar::group_diff_ops(d.ops.clone(), context);
    let mut out = String::new();
    for (gi, group) in groups.iter().enumerate() {
        if gi == 0 {
            out.push_str(&format!("--- a/{label}\n+++ b/{label}\n"));
        }
        out.push_str(&hunk_header(group));
        out.push('\n');
        for op in group {
            for (tag, _, _, line) in op_lines(d, op) {
                out.push(tag);
                out.push_str(line);
                if missing_newline(line) {
                    out.push_str("\n\\ No newline at end of file\n");
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::time::Duration;

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    /// The texts rebuilt from the ops: old from equal + removed lines, new from equal + added.
    fn rebuilt(d: &LineDiff<'_>) -> (String, String) {
        let (mut o, mut n) = (String::new(), String::new());
        for op in &d.ops {
            for (tag, _, _, line) in op_lines(d, op) {
                if tag != '+' {
                    o.push_str(line);
                }
                if tag != '-' {
                    n.push_str(line);
                }
            }
        }
        (o, n)
    }

    fn kept(ops: &[DiffOp]) -> usize {
        ops.iter().map(|op| if let DiffOp::Equal { len, .. } = op { *len } else { 0 }).sum()
    }

    /// Texts over a small alphabet of lines (so lines repeat, match and differ), with
    /// CRLF, lone CR and a missing final newline in the mix.
    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![Just("a\n"), Just("b\n"), Just("c\n"), Just("a\r\n"), Just("\n"), Just("x\r"), Just("d")],
            0..40,
        )
        .prop_map(|v| v.concat())
    }

    proptest::proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]
        /// The ops cover both texts exactly, and keep as many lines as `similar`'s own Myers
        /// on the whole texts: setting unmatched lines aside keeps the diff minimal.
        #[test]
        fn the_diff_is_exact_and_minimal(old in text(), new in text()) {
            let d = diff(&old, &new, far());
            prop_assert_eq!(rebuilt(&d), (old.clone(), new.clone()));
            let reference = similar::TextDiff::configure().diff_lines(&old, &new);
            prop_assert_eq!(kept(&d.ops), kept(reference.ops()));
            prop_assert!(!d.timed_out);
        }

        /// The unified text applies back: writegate's own patcher turns old into new with it
        /// (texts without a CR),
        /// and it is `similar`'s unified text whenever both keep the same lines.
        #[test]
        fn the_unified_text_applies_back(old in text(), new in text()) {
            let d = diff(&old, &new, far());
            let text = unified_text(&d, 3, "s");
            if old == new {
                prop_assert!(text.is_empty());
            } else if !(old.clone() + &new).contains('\r')
                && let Ok(patched) = crate::engine::patch::apply(&old, &text)
            {
                // (The patcher has its own rules for CRs; those are its own tests.)
                prop_assert_eq!(patched, new.clone());
            }
            let reference = similar::TextDiff::configure().diff_lines(&old, &new);
            if reference.ops() == d.ops.as_slice() {
                let theirs = reference.unified_diff().context_radius(3).header("a/s", "b/s").to_string();
                prop_assert_eq!(text, theirs);
            }
        }
    }

    #[test]
    fn a_rewrite_of_every_line_is_one_replace_without_myers() {
        let (mut old, mut new) = (String::new(), String::new());
        for i in 0..5000 {
            old.push_str(&format!("line {i}\n"));
            new.push_str(&format!("line {i} edited\n"));
        }
        let d = diff(&old, &new, Instant::now());
        // Even with the deadline already passed, nothing is coarser: no line matches.
        assert_eq!(d.ops.len(), 1);
        assert!(!d.timed_out);
        assert_eq!(rebuilt(&d), (old, new));
    }

    #[test]
    fn a_change_at_both_ends_keeps_the_middle_without_myers() {
        // A bumped first line and a line added at the end: past the common prefix and
        // suffix, every other line is kept whole, even with the deadline already passed.
        let body: String = (0..20_000).map(|i| format!("- [ ] todo {i}\n")).collect::<Vec<_>>().concat();
        let old = format!("updated_at: 1\n{body}");
        let new = format!("updated_at: 2\n{body}- [ ] added\n");
        let d = diff(&old, &new, Instant::now());
        assert!(!d.timed_out);
        assert_eq!(kept(&d.ops), 20_000);
        assert_eq!(d.ops.len(), 3, "{:?}", d.ops);
        assert_eq!(rebuilt(&d), (old, new));
    }

    #[test]
    fn lines_split_like_similar() {
        let all = |t| {
            let l = split_lines(t);
            l.slices(0..l.len())
        };
        assert_eq!(all("a\r\nb\rc\nd"), vec!["a\r\n", "b\r", "c\n", "d"]);
        assert_eq!(all("a\n\n"), vec!["a\n", "\n"]);
        assert!(all("").is_empty());
        assert_eq!(split_lines("x\ny").text_of(1..5), "y");
        assert!(missing_newline("d") && !missing_newline("x\r"));
        assert_eq!(hunk_header(&[DiffOp::Insert { old_index: 0, new_index: 0, new_len: 2 }]), "@@ -0,0 +1,2 @@");
    }
}
