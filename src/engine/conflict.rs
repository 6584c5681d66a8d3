//! The 3-way picture of a revision conflict (issue 6): the base the agent read (the
//! revision snapshot at its `expected_revision`, `gate/revisions/`), what changed since
//! (base → current) and what the agent wants (base → its proposal applied to the base), with
//! the base line ranges both sides change. Pure over texts; nothing here writes.

use super::checks::raw_text;
use super::item::Proposal;
use crate::loopx::edit::{EditContext, apply_op};
use serde::Serialize;
use similar::{DiffOp, TextDiff};

/// Changes on both sides touching the same base lines: 1-based, inclusive `[first, last]`
/// base line range covering both (an insertion between lines `n` and `n + 1` covers `n + 1`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Overlap {
    /// First base line, 1-based.
    pub first: usize,
    /// Last base line, 1-based, inclusive.
    pub last: usize,
}

/// The texts of a 3-way view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreeWay {
    /// The text the agent read.
    pub base: String,
    /// The state now.
    pub current: String,
    /// The agent's proposal applied to `base` (`Err`: why it cannot be, e.g. LoopX would
    /// refuse the op on the base, or the diff does not apply to it).
    pub proposed: Result<String, String>,
    /// Base ranges changed on both sides (adjacent changes count, as in `git merge`).
    pub overlaps: Vec<Overlap>,
}

/// Base line ranges `[start, end)` (0-based) each change of `base → other` replaces; a pure
/// insertion is the empty range at its position.
fn changed_ranges(base: &str, other: &str) -> Vec<(usize, usize)> {
    let diff = TextDiff::configure()
        .deadline(std::time::Instant::now() + crate::diff::LINE_DIFF_DEADLINE)
        .diff_lines(base, other);
    diff.ops()
        .iter()
        .filter_map(|op| match *op {
            DiffOp::Equal { .. } => None,
            DiffOp::Delete { old_index, old_len, .. } | DiffOp::Replace { old_index, old_len, .. } => {
                Some((old_index, old_index + old_len))
            }
            DiffOp::Insert { old_index, .. } => Some((old_index, old_index)),
        })
        .collect()
}

/// 0-based indexes of the frontmatter's `updated_at:` lines in `text`: every LoopX write
/// restamps it, so both sides changing it is not a conflict of intent.
fn stamp_lines(text: &str) -> Vec<usize> {
    let mut lines = text.lines();
    if lines.next().map(|l| l.trim_start_matches('\u{feff}').trim_end()) != Some("---") {
        return Vec::new();
    }
    lines
        .enumerate()
        .take_while(|(_, l)| l.trim_end() != "---")
        .filter(|(_, l)| l.starts_with("updated_at:"))
        .map(|(i, _)| i + 1)
        .collect()
}

/// Base ranges changed by both `base → a` and `base → b`. Two changes conflict when their
/// closed ranges meet: overlapping, adjacent, or insertions at the same place. Changes to
/// the frontmatter `updated_at:` line alone are left out on both sides (LoopX restamps it
/// on every write).
#[must_use]
pub fn overlaps(base: &str, a: &str, b: &str) -> Vec<Overlap> {
    let stamps = stamp_lines(base);
    let only_stamp = |&(s, e): &(usize, usize)| e == s + 1 && stamps.contains(&s);
    let ranges = |other: &str| changed_ranges(base, other).into_iter().filter(|r| !only_stamp(r)).collect::<Vec<_>>();
    let (ra, rb) = (ranges(a), ranges(b));
    let mut out: Vec<Overlap> = Vec::new();
    for &(a0, a1) in &ra {
        for &(b0, b1) in &rb {
            if a0 <= b1 && b0 <= a1 {
                let (first, last) = (a0.min(b0) + 1, a1.max(b1).max(a0.min(b0) + 1));
                match out.last_mut() {
                    Some(o) if first <= o.last + 1 => o.last = o.last.max(last),
                    _ => out.push(Overlap { first, last }),
                }
            }
        }
    }
    out.sort_by_key(|o| o.first);
    out
}

/// The proposal of an item applied to `base` as it would have been applied there.
pub(super) fn proposed_on(base: &str, proposal: &Proposal, ctx: &EditContext) -> Result<String, String> {
    match proposal {
        Proposal::TodoOp(op) => {
            apply_op(base, op, ctx).map(|o| o.text).map_err(|e| format!("LoopX would refuse it on the base: {e}"))
        }
        raw => raw_text(raw, base),
    }
}

/// Builds the view from its three texts.
#[must_use]
pub fn three_way(base: String, current: String, proposed: Result<String, String>) -> ThreeWay {
    let overlaps = match &proposed {
        Ok(p) => overlaps(&base, &current, p),
        Err(_) => Vec::new(),
    };
    ThreeWay { base, current, proposed, overlaps }
}

/// Adds the view to a `revision_conflict` details object (the `conflict` of `preview
/// --json`): `overlapping_base_lines` (`[{first, last}]`), `since_base_diff` (unified,
/// base → current), and `proposal_on_base_diff` or `proposal_on_base_error`.
pub fn insert_details(view: &ThreeWay, c: &mut serde_json::Map<String, serde_json::Value>) {
    use serde_json::json;
    c.insert("overlapping_base_lines".into(), json!(view.overlaps));
    c.insert("since_base_diff".into(), json!(crate::diff::unified(&view.base, &view.current, "state")));
    match &view.proposed {
        Ok(t) => c.insert("proposal_on_base_diff".into(), json!(crate::diff::unified(&view.base, t, "state"))),
        Err(e) => c.insert("proposal_on_base_error".into(), json!(e)),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "a\nb\nc\nd\ne\nf\ng\n";

    #[test]
    fn disjoint_changes_do_not_overlap() {
        let current = "A\nb\nc\nd\ne\nf\ng\n";
        let proposed = "a\nb\nc\nd\ne\nf\nG\n";
        assert!(overlaps(BASE, current, proposed).is_empty());
    }

    #[test]
    fn same_line_adjacent_lines_and_same_insertion_point_overlap() {
        assert_eq!(
            overlaps(BASE, "a\nB\nc\nd\ne\nf\ng\n", "a\nb2\nc\nd\ne\nf\ng\n"),
            vec![Overlap { first: 2, last: 2 }]
        );
        // Line 3 and line 4: adjacent, so they meet.
        assert_eq!(
            overlaps(BASE, "a\nb\nC\nd\ne\nf\ng\n", "a\nb\nc\nD\ne\nf\ng\n"),
            vec![Overlap { first: 3, last: 4 }]
        );
        // Both insert after line 5.
        assert_eq!(
            overlaps(BASE, "a\nb\nc\nd\ne\nx\nf\ng\n", "a\nb\nc\nd\ne\ny\nf\ng\n"),
            vec![Overlap { first: 6, last: 6 }]
        );
        // Both restamping the frontmatter is no conflict; both changing another key is.
        let fm = "---\nstatus: active\nupdated_at: 1\nowner: x\n---\nbody\n";
        assert!(overlaps(fm, &fm.replace("at: 1", "at: 2"), &fm.replace("at: 1", "at: 3")).is_empty());
        assert_eq!(overlaps(fm, &fm.replace("owner: x", "owner: y"), &fm.replace("owner: x", "owner: z")).len(), 1);
        // Identical change on both sides still overlaps: the operator decides.
        assert_eq!(overlaps(BASE, "a\nb\nc\nd\ne\nf\n", "a\nb\nc\nd\ne\nf\n").len(), 1);
    }
}
