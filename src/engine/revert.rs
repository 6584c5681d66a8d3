//! Revert (issue 14 item 5): the inverse of an applied write intent, proposed as a new
//! pending item (`write_class` `revert`, top-level `reverts` naming the applied item) and
//! decided like every other. Built from the two texts the apply kept in `gate/revisions/`:
//! - while the state is still at the applied revision, the text before the apply, byte for
//!   byte;
//! - after later writes, the applied change undone on the current state, frontmatter
//!   `updated_at` stamped now as a LoopX write stamps it. A change of todo blocks alone is
//!   undone block by block: each block it changed must be unchanged since (then it gets its
//!   old text back; one it added is taken out). Any other change is undone by the inverse
//!   diff (applied → before), which must apply with every context and removed line
//!   unchanged. Otherwise nothing is proposed.
//!
//! Never writes the state; a LoopX 2.x command or a writeback is not reverted here.

use super::{Engine, EngineError, ProposeError, Proposed, read_state};
use crate::loopx::hash::revision_of_text;
use crate::wire::{ResultRecord, Status};

/// How a revert is built, for the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RevertBasis {
    /// The state is still at the applied revision: the text before, restored exactly.
    Exact,
    /// Later writes moved the state: the change undone on the current state.
    OnCurrent,
}

fn refuse(why: impl Into<String>) -> ProposeError {
    ProposeError::Refused(crate::loopx::edit::EditRefused(why.into()))
}

/// The frontmatter `updated_at:` line of `text`, if any (every LoopX write restamps it).
fn stamp_line(text: &str) -> Option<&str> {
    let mut lines = text.lines();
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    lines.take_while(|l| l.trim_end() != "---").find(|l| l.starts_with("updated_at:"))
}

/// The text a revert of the change `before` → `after` writes over `current`, and how it was
/// built.
///
/// # Errors
/// Why the change cannot be undone on `current` (a line it changed, or one next to it,
/// moved since).
pub fn revert_text(before: &str, after: &str, current: &str, now: &str) -> Result<(String, RevertBasis), String> {
    if revision_of_text(current) == revision_of_text(after) {
        return Ok((before.to_owned(), RevertBasis::Exact));
    }
    let text = if let Some(text) = super::recompute::undo_blocks(before, after, current)? {
        text
    } else {
        let before = match (stamp_line(before), stamp_line(after)) {
            (Some(old), Some(new)) => before.replacen(old, new, 1),
            _ => before.to_owned(),
        };
        let inverse = crate::diff::unified(after, &before, "state");
        super::patch::apply(current, &inverse).map_err(|e| {
            // Where, not the line's whole text (the status line has one row).
            let at = e.0.split(" is ").next().unwrap_or("a line").trim_start_matches("unified diff does not apply: ");
            format!("the lines the change touched moved since it was applied ({at} differs)")
        })?
    };
    if text == current {
        return Err("the current state already has the change undone".into());
    }
    Ok((crate::loopx::edit::bump_updated_at(&text, now), RevertBasis::OnCurrent))
}

impl Engine {
    /// Proposes the revert of applied item `item_id` of `goal_id` as a new pending item by
    /// `writer_id` (module docs). Returns the proposal and how it was built.
    ///
    /// # Errors
    /// [`ProposeError::Refused`] when the item was not applied here as a write intent, its
    /// texts are no longer kept, or the change cannot be undone on the current state; the
    /// errors of [`Engine::propose_replace`] (a LoopX 2.x goal's narrative rule among them).
    pub fn propose_revert(
        &self,
        goal_id: &str,
        item_id: &str,
        writer_id: &str,
    ) -> Result<(Proposed, RevertBasis), ProposeError> {
        let gate = self.gate(goal_id)?;
        let records = gate.results().read_all(false).map_err(EngineError::from)?;
        let rec = applied_record(&records, item_id)?;
        let (Some(before_rev), Some(after_rev)) = (&rec.base_revision, &rec.applied_revision) else {
            return Err(refuse(format!("the record of {item_id} names no revisions to revert between")));
        };
        let load = |rev: &str| {
            gate.revisions().load(rev).map_err(|e| refuse(format!("reading gate/revisions/: {e}"))).and_then(|t| {
                t.ok_or_else(|| {
                    refuse(format!("the text at {rev} is no longer kept in gate/revisions/; nothing to revert from"))
                })
            })
        };
        let (before, after) = (load(before_rev)?, load(after_rev)?);
        let goal = self.goal(goal_id)?;
        let current = read_state(&goal.state_file)
            .map_err(|e| EngineError::Io { what: format!("read state: {e}"), source: std::io::Error::other(e) })?;
        let (text, basis) = revert_text(&before, &after, &current, &self.clock.loopx_now()).map_err(refuse)?;
        // Made under the lease the reverted write was applied under (its packet's lease_ref).
        let lease = crate::gate::is_safe_id(item_id)
            .then(|| super::Item::read(&gate.decided().join(format!("{item_id}.json")), goal_id))
            .and_then(|item| item.intent.ok())
            .and_then(|i| i.lease_ref);
        let proposed = self.propose_text(goal_id, &text, writer_id, None, Some((item_id, lease)))?;
        Ok((proposed, basis))
    }
}

/// The newest `applied` record of `item_id` that wrote the state as a write intent.
fn applied_record<'a>(records: &'a [ResultRecord], item_id: &str) -> Result<&'a ResultRecord, ProposeError> {
    let rec = records
        .iter()
        .rev()
        .find(|r| r.item_id == item_id && r.status == Status::Applied)
        .ok_or_else(|| refuse(format!("{item_id} has no applied record in this goal")))?;
    match rec.kind.as_str() {
        "write_intent" if rec.applied_scopes.iter().any(|s| s == "active_state") => Ok(rec),
        "loopx_command" => Err(refuse(
            "a LoopX 2.x command is undone by another LoopX command (LoopX keeps its own history); propose that instead",
        )),
        "writeback" => Err(refuse("a writeback lives in the host runtime; writegate cannot take it back")),
        _ => Err(refuse(format!("{item_id} did not write the state"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "---\nupdated_at: 1\n---\n# G\n\na\nb\nc\nd\ne\nf\ng\nh\n";

    #[test]
    fn at_the_applied_revision_the_text_before_comes_back_byte_for_byte() {
        let after = BEFORE.replace("updated_at: 1", "updated_at: 2").replace("\nd\n", "\nD\n");
        assert_eq!(revert_text(BEFORE, &after, &after, "9"), Ok((BEFORE.to_owned(), RevertBasis::Exact)));
    }

    #[test]
    fn after_an_unrelated_write_the_change_is_undone_on_the_current_state() {
        let after = BEFORE.replace("updated_at: 1", "updated_at: 2").replace("\nd\n", "\nD\n");
        let later = after.replace("updated_at: 2", "updated_at: 3").replace("\nh\n", "\nh\nlater\n");
        let (text, basis) = revert_text(BEFORE, &after, &later, "9").expect("revert");
        assert_eq!(basis, RevertBasis::OnCurrent);
        assert_eq!(
            text,
            later.replace("\nD\n", "\nd\n").replace("updated_at: 3", "updated_at: 9"),
            "only the change is undone, stamped now"
        );
    }

    #[test]
    fn a_change_whose_lines_moved_since_is_not_reverted() {
        let after = BEFORE.replace("\nd\n", "\nD\n");
        let moved = after.replace("\nD\n", "\nD2\n");
        assert!(revert_text(BEFORE, &after, &moved, "9").is_err_and(|e| e.contains("moved since")));
    }
}
