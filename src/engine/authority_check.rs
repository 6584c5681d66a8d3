//! The authority check of the pipeline (issue 11, LOOPX2.md §2): on a LoopX 2.x goal no
//! 0.5.x-computed edit is applied, and a raw edit only under the narrative-edit rule.

use super::checks::raw_text;
use super::item::{Intent, Proposal};
use super::preview::{Predicted, Prepared};
use crate::wire::Status;

/// The authority check (issue 11, LOOPX2.md §2): on a canonical goal writegate never applies
/// a 0.5.x todo edit (`todo_op`: failed, `canonical_authority`), and a `replace` /
/// `unified_diff` only when every todo region is byte-identical and no todo line appears
/// outside them. Returns false when the remaining checks are moot (a todo op: nothing of it
/// would be written, so no 0.5.x diff is shown).
pub(super) fn check_authority(
    p: &mut Prepared,
    intent: &Intent,
    auth: &crate::loopx2::GoalAuthority,
    current: &str,
) -> bool {
    use crate::loopx2::CANONICAL_REFUSAL;
    if !auth.is_canonical() {
        p.check("authority", true, "markdown (LoopX 0.5.x): writegate writes the state file itself", None);
        return true;
    }
    let fail = |p: &mut Prepared, why: String| {
        p.check("authority", false, why.clone(), Some(Predicted::Status(Status::Failed)));
        p.invalid_reason = Some(why);
        p.reason_code = Some("canonical_authority");
    };
    match &intent.proposal {
        Proposal::TodoOp(op) => {
            fail(p, crate::loopx2::refusal_for(op.name()));
            false
        }
        _ if crate::loopx::hash::revision_of_text(current) != intent.expected_revision => {
            // A stale raw edit is judged on the state it was made against, which writegate
            // may not hold: the revision check decides (it is never rebased), and the rule
            // is applied once the item is current.
            p.check(
                "authority",
                true,
                "canonical (LoopX 2.x): a stale narrative edit; the revision check decides",
                None,
            );
            true
        }
        raw => {
            if let Ok(after) = raw_text(raw, current)
                && let Some(why) = crate::loopx2::narrative::narrative_edit_problem(current, &after)
            {
                fail(p, format!("canonical authority: {why}; {CANONICAL_REFUSAL}"));
            } else {
                p.check(
                    "authority",
                    true,
                    "canonical (LoopX 2.x): a narrative edit that leaves every todo region byte-identical",
                    None,
                );
            }
            true
        }
    }
}
