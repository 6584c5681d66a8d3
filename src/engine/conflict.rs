//! The 3-way picture of a revision conflict (issue 6): the base the agent read (the
//! revision snapshot at its `expected_revision`, `gate/revisions/`), what changed since
//! (base → current) and what the agent wants (base → its proposal applied to the base), with
//! the base line ranges both sides change, and the earlier proposal of a reused key. Pure over
//! texts and the gate's snapshots; nothing here writes.

use super::checks::{consistent, raw_text};
use super::item::{Intent, Proposal};
use super::preview::Prepared;
use crate::loopx::edit::{EditContext, apply_op};
use crate::loopx::hash::revision_of_text;
use serde::Serialize;
use serde_json::{Value, json};

/// Changes on both sides touching the same base lines: 1-based, inclusive `[first, last]`
/// base line range covering both (an insertion between lines `n` and `n + 1` covers `n + 1`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Overlap {
    /// First base line, 1-based.
    pub first: usize,
    /// Last base line, 1-based, inclusive.
    pub last: usize,
}

/// A 3-way view: the base, the proposal on it, and both diffs from it (the current text
/// stays in [`Prepared::current_text`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreeWay {
    /// The text the agent read.
    pub base: String,
    /// The agent's proposal applied to `base` (`Err`: why it cannot be, e.g. LoopX would
    /// refuse the op on the base, or the diff does not apply to it).
    pub proposed: Result<String, String>,
    /// Base ranges changed on both sides (adjacent changes count, as in `git merge`).
    pub overlaps: Vec<Overlap>,
    /// Unified diff base → current.
    pub since_diff: String,
    /// Unified diff base → `proposed` (empty when `proposed` is an error).
    pub proposal_diff: String,
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

/// Base ranges changed by both sides, from the base ranges `[start, end)` each side
/// replaces. Two changes conflict when their closed ranges meet: overlapping, adjacent, or
/// insertions at the same place. Changes to the frontmatter `updated_at:` line alone are
/// left out on both sides (LoopX restamps it on every write).
fn overlaps_of(base: &str, ra: &[(usize, usize)], rb: &[(usize, usize)]) -> Vec<Overlap> {
    let stamps = stamp_lines(base);
    let only_stamp = |&&(s, e): &&(usize, usize)| e == s + 1 && stamps.contains(&s);
    let mut out: Vec<Overlap> = Vec::new();
    for &(a0, a1) in ra.iter().filter(|r| !only_stamp(r)) {
        for &(b0, b1) in rb.iter().filter(|r| !only_stamp(r)) {
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

/// The proposal of an item applied to `base` as it would have been applied there. A todo
/// op's packet must be the one LoopX prints for it at the base (same `write_id` and
/// `idempotency_key`), as at apply.
pub(super) fn proposed_on(base: &str, intent: &Intent, ctx: &EditContext) -> Result<String, String> {
    match &intent.proposal {
        Proposal::TodoOp(op) => {
            let outcome = apply_op(base, op, ctx).map_err(|e| format!("LoopX would refuse it on the base: {e}"))?;
            consistent(intent, op, &outcome)
                .map_err(|why| format!("the packet does not match its proposal at the base: {why}"))?;
            Ok(outcome.text)
        }
        raw => raw_text(raw, base).map(|t| std::sync::Arc::try_unwrap(t).unwrap_or_else(|t| (*t).clone())),
    }
}

/// Changed (`+`/`-`) lines of a unified diff, hunk headers and context left out: what a
/// change does, wherever it lands.
fn changed_lines(diff: &str) -> String {
    let mut out = String::new();
    for l in diff
        .lines()
        .filter(|l| (l.starts_with('+') && !l.starts_with("+++")) || (l.starts_with('-') && !l.starts_with("---")))
    {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// The expired hard lease holding an item up, from its conflict details — the top-level
/// `lease_conflict`, or the one kept beside another conflict (`lease_conflict` inside a
/// revision conflict): `(todo_id, the lease as shown)`. `None` for any other conflict.
#[must_use]
pub fn expired_lease(conflict: &serde_json::Value) -> Option<(String, crate::loopx::lease::TaskLease)> {
    let c = if conflict["kind"] == "lease_conflict" { conflict } else { &conflict["lease_conflict"] };
    if c["kind"] != "lease_conflict" || c["reason"] != "expired" {
        return None;
    }
    let lease = crate::loopx::lease::TaskLease::from_conflict_json(&c["hard_lease"])?;
    Some((c["todo_id"].as_str()?.to_owned(), lease))
}

/// The "diff of the diff": the changed lines of the preview the agent saw (base → its
/// proposal) against those of the rebased preview (current → proposal on current), as a
/// unified diff with secrets masked; empty when the rebased change is the same change.
#[must_use]
pub fn diff_of_diffs(agent_saw: &str, rebased: &str) -> String {
    crate::scan::mask_secrets(&crate::diff::unified(&changed_lines(agent_saw), &changed_lines(rebased), "change")).0
}

/// Builds the view from its three texts (one line diff per side).
#[must_use]
pub fn three_way(base: String, current: &str, proposed: Result<String, String>) -> ThreeWay {
    let (since_diff, since_ranges) = crate::diff::unified_and_ranges(&base, current, "state");
    let (proposal_diff, overlaps) = match &proposed {
        Ok(p) => {
            let (text, ranges) = crate::diff::unified_and_ranges(&base, p, "state");
            let o = overlaps_of(&base, &since_ranges, &ranges);
            (text, o)
        }
        Err(_) => (String::new(), Vec::new()),
    };
    ThreeWay { base, proposed, overlaps, since_diff, proposal_diff }
}

/// Adds the view to a `revision_conflict` details object (the `conflict` of `preview
/// --json`): `overlapping_base_lines` (`[{first, last}]`), `since_base_diff` (unified,
/// base → current), and `proposal_on_base_diff` or `proposal_on_base_error`. Secrets in the
/// diffs are masked ([`crate::scan::mask_secrets`]).
pub fn insert_details(view: &ThreeWay, c: &mut serde_json::Map<String, serde_json::Value>) {
    use serde_json::json;
    c.insert("overlapping_base_lines".into(), json!(view.overlaps));
    // Shown on screen and printed: masked like every other diff.
    let masked = |d: &str| crate::scan::mask_secrets(d).0;
    c.insert("since_base_diff".into(), json!(masked(&view.since_diff)));
    match &view.proposed {
        Ok(_) => c.insert("proposal_on_base_diff".into(), json!(masked(&view.proposal_diff))),
        Err(e) => c.insert("proposal_on_base_error".into(), json!(e)),
    };
}

/// The conflict details a preview gathers beyond the checks: the earlier proposal of a reused
/// key, and the 3-way view of a stale item.
impl super::Engine {
    /// For an idempotency conflict: the earlier applied item (from `gate/decided/`) and a
    /// unified diff of its proposal against this one (`prior_proposal_found`,
    /// `proposal_diff`), so the operator sees where the two effects differ.
    pub(super) fn add_prior_proposal(&self, p: &mut Prepared, intent: &Intent) {
        let Some(Value::Object(c)) = p.conflict.as_mut() else { return };
        if c.get("kind").and_then(Value::as_str) != Some("idempotency_conflict") {
            return;
        }
        let prior_id = c.get("prior_item_id").and_then(Value::as_str).unwrap_or("").to_owned();
        let prior = self
            .gate(&intent.goal_id)
            .ok()
            .filter(|_| crate::gate::is_safe_id(&prior_id))
            .map(|g| super::Item::read(&g.decided().join(format!("{prior_id}.json")), &intent.goal_id))
            .and_then(|item| item.intent.ok());
        c.insert("prior_proposal_found".into(), json!(prior.is_some()));
        if let Some(prior) = prior {
            let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default() + "\n";
            let (old, new) = (pretty(&prior.payload["proposal"]), pretty(&intent.payload["proposal"]));
            c.insert(
                "proposal_diff".into(),
                json!(crate::scan::mask_secrets(&crate::diff::unified(&old, &new, "proposal")).0),
            );
        }
    }

    /// Looks up the base at `expected_revision` among the goal's revision snapshots (in
    /// `gate`, the snapshot's gate folder: checked when the snapshot was read) and, when it is
    /// kept, builds the 3-way view; the revision conflict's details say which.
    pub(super) fn add_three_way(
        p: &mut Prepared,
        intent: &Intent,
        (current, gate): (&str, &Result<crate::gate::GateDir, String>),
        ctx: &EditContext,
        detail: super::preview::Detail,
    ) {
        let mut source = "revisions";
        let mut base =
            gate.clone().and_then(|g| g.revisions().load(&intent.expected_revision).map_err(|e| e.to_string()));
        if matches!(base, Ok(None))
            && let Some(t) = &intent.base_text
        {
            source = "item";
            base = if revision_of_text(t) == intent.expected_revision {
                Ok(Some(t.clone()))
            } else {
                Err("the item's base_text is not the text at its expected_revision".into())
            };
        }
        let (known, base_error) = match &base {
            Ok(Some(_)) => (true, None),
            Ok(None) => (false, None),
            Err(e) => (false, Some(e.clone())),
        };
        if let Some(Value::Object(c)) = p.conflict.as_mut()
            && c.get("kind").and_then(Value::as_str) == Some("revision_conflict")
        {
            c.insert("base_known".into(), json!(known));
            if known {
                c.insert("base_source".into(), json!(source));
            }
            if let Some(e) = base_error {
                c.insert("base_error".into(), json!(e));
            }
        }
        let Ok(Some(base)) = base else { return };
        let proposed = super::conflict::proposed_on(&base, intent, ctx);
        if detail == super::preview::Detail::Decision {
            p.three_way = Some(ThreeWay {
                base,
                proposed,
                overlaps: Vec::new(),
                since_diff: String::new(),
                proposal_diff: String::new(),
            });
            return;
        }
        let view = super::conflict::three_way(base, current, proposed);
        if let Some(Value::Object(c)) = p.conflict.as_mut()
            && c.get("kind").and_then(Value::as_str) == Some("revision_conflict")
        {
            super::conflict::insert_details(&view, c);
        }
        p.three_way = Some(view);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "a\nb\nc\nd\ne\nf\ng\n";

    fn overlaps(base: &str, current: &str, proposed: &str) -> Vec<Overlap> {
        three_way(base.to_owned(), current, Ok(proposed.to_owned())).overlaps
    }

    #[test]
    fn the_diff_of_diffs_ignores_position_and_shows_a_different_change() {
        let saw = "--- a/s\n+++ b/s\n@@ -3,2 +3,2 @@\n c\n-d\n+D\n";
        let moved = "--- a/s\n+++ b/s\n@@ -9,2 +9,2 @@\n x\n-d\n+D\n";
        assert_eq!(diff_of_diffs(saw, moved), "", "same change, new place");
        let other = "--- a/s\n+++ b/s\n@@ -9,2 +9,2 @@\n x\n-d\n+D2\n";
        let dd = diff_of_diffs(saw, other);
        assert!(dd.contains("-+D\n") && dd.contains("++D2\n"), "{dd}");
    }

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
