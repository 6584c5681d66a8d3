//! Word highlights inside a replaced block of lines: the block's words (runs of whitespace or
//! of anything else, line terminators left out) diffed with `similar`'s Myers under the
//! view's one deadline. Like `similar`'s inline pass, a block whose words are less than half
//! alike is shown without highlights; so is a block past [`MAX_BLOCK_BYTES`] a side.

use similar::{Algorithm, DiffOp};
use std::time::Instant;

/// The largest side (bytes) of a replaced block that gets word highlights: bounds the work
/// one block can add past the deadline check before it.
pub(crate) const MAX_BLOCK_BYTES: usize = 256 * 1024;

/// Spans of one line: `(emphasised, text)`, adjacent spans of the same kind merged.
pub(crate) type Spans = Vec<(bool, String)>;

/// The words of a line without its terminator, each tagged with the line it is in.
fn words<'a>(lines: &[&'a str]) -> (Vec<&'a str>, Vec<usize>) {
    let mut toks = Vec::new();
    let mut at = Vec::new();
    for (li, line) in lines.iter().enumerate() {
        let body = line.trim_end_matches(['\n', '\r']);
        let mut start = 0;
        let mut space = None;
        for (i, c) in body.char_indices() {
            let s = c.is_whitespace();
            if space.is_some_and(|p| p != s) {
                toks.push(&body[start..i]);
                at.push(li);
                start = i;
            }
            space = Some(s);
        }
        if start < body.len() {
            toks.push(&body[start..]);
            at.push(li);
        }
    }
    (toks, at)
}

fn push_span(spans: &mut Spans, emph: bool, text: &str) {
    match spans.last_mut() {
        Some((e, s)) if *e == emph => s.push_str(text),
        _ => spans.push((emph, text.to_owned())),
    }
}

/// The spans of every old and every new line of a replaced block, or `None` when the block
/// gets no highlights (too large, too unlike, or the deadline passed).
pub(crate) fn highlight(old: &[&str], new: &[&str], deadline: Instant) -> Option<(Vec<Spans>, Vec<Spans>)> {
    let size = |ls: &[&str]| ls.iter().map(|l| l.len()).sum::<usize>();
    if size(old) > MAX_BLOCK_BYTES || size(new) > MAX_BLOCK_BYTES || Instant::now() >= deadline {
        return None;
    }
    let ((ot, oat), (nt, nat)) = (words(old), words(new));
    let total = ot.len() + nt.len();
    if total == 0 || 2 * ot.len().min(nt.len()) < total / 2 {
        return None;
    }
    let ops = similar::capture_diff_slices_deadline(Algorithm::Myers, &ot, &nt, Some(deadline));
    let same: usize = ops.iter().map(|op| if let DiffOp::Equal { len, .. } = op { *len } else { 0 }).sum();
    if Instant::now() >= deadline || 4 * same < total {
        return None;
    }
    let mut old_spans: Vec<Spans> = vec![Vec::new(); old.len()];
    let mut new_spans: Vec<Spans> = vec![Vec::new(); new.len()];
    for op in &ops {
        let equal = matches!(op, DiffOp::Equal { .. });
        for i in op.old_range() {
            push_span(&mut old_spans[oat[i]], !equal, ot[i]);
        }
        for j in op.new_range() {
            push_span(&mut new_spans[nat[j]], !equal, nt[j]);
        }
    }
    Some((old_spans, new_spans))
}
