//! The operator's approval of an apply (issue 14): the typed confirmation, the idempotency
//! override, the note, and the revision the item was reviewed on — and what an apply needs
//! of it beyond the checks.

use super::EngineError;
use super::preview::Prepared;

/// How the operator approved an apply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Approval {
    /// The operator typed the confirmation that `warn` findings (and an earlier rejection of
    /// the same key or effect) require.
    pub confirm_warnings: bool,
    /// Explicitly apply despite an idempotency conflict (recorded with both digests).
    pub override_idempotency: bool,
    /// The operator's note, kept in the result record (`note`), sanitised and bounded like a
    /// reject reason; `None` or empty for none.
    pub note: Option<String>,
    /// The revision the operator reviewed the item on (`sha256:<hex>` of the state; for a
    /// LoopX 2.x command recomputed at the head, that head): when the apply would be
    /// computed on another one — the state moved, recomputed or not, or went back — nothing
    /// is written and the operator reviews it again. A batch pins each item to the state the
    /// one before it left. `None` (tests, scripts) accepts the change as prepared under the
    /// lock, which the recompute rule holds to the same effect.
    pub on_revision: Option<String>,
}

/// What an apply needs from the operator beyond the checks, judged on the preview made under
/// the lock: the typed confirmation for `warn` findings and for an earlier rejection of the
/// same key or effect; for a recomputed item, the state the operator reviewed it on.
///
/// # Errors
/// [`EngineError::Refused`] saying what is missing; nothing was written.
pub(super) fn check_approval(p: &Prepared, approval: &Approval) -> Result<(), EngineError> {
    // The revision this apply is computed on: a recomputed item's, else a write intent's
    // current state (a LoopX 2.x command's revision is LoopX's to check when it commits).
    let now = match &p.recomputed {
        Some(r) => Some(r.onto.clone()),
        None if p.item.intent.is_ok() => p.current_rev(),
        None => None,
    };
    if let (Some(seen), Some(now)) = (&approval.on_revision, now)
        && now != *seen
    {
        return Err(EngineError::Refused(format!(
            "the state moved since you reviewed {} (it is at {now} now); review it again (nothing was written)",
            p.item.id
        )));
    }
    if approval.confirm_warnings {
        return Ok(());
    }
    if p.has_warnings() {
        return Err(EngineError::Refused("warn findings need a typed confirmation".into()));
    }
    if let Some(r) = &p.rejected_before {
        return Err(EngineError::Refused(format!("{}; applying it needs a typed confirmation", r.line())));
    }
    Ok(())
}

/// The operator's note of an apply, sanitised like a reject reason; `None` when empty.
pub(super) fn note_of(approval: &Approval) -> Option<String> {
    approval.note.as_deref().map(super::apply::sanitize_reason).filter(|n| !n.is_empty())
}
