//! What the console says of an item's status: the queue's status words, why apply is
//! unavailable (and what to do instead), and how an outcome reads on the status line.

use super::app::FlashKind;
use super::model::{QueueItem, ScanMark};
use crate::engine::Predicted;
use crate::wire::Status;

/// Short status words for the queue column (the full name is in the detail; the filter
/// matches both).
#[must_use]
pub fn status_label(status: &str) -> &str {
    match status {
        "revision_conflict" => "stale",
        "lease_conflict" => "leased",
        "idempotency_conflict" => "key-reuse",
        "skipped_duplicate" => "duplicate",
        "already_applied" => "applied",
        "boundary_rejected" => "blocked",
        "preview_only" => "read-only",
        other => other,
    }
}

/// Why apply is unavailable for an item, or `None` when it may be attempted.
#[must_use]
pub fn apply_unavailable(item: &QueueItem) -> Option<String> {
    if item.checking {
        return Some("still checking this item; apply is available once its checks are done".into());
    }
    if item.scan == ScanMark::Block {
        return Some("apply is unavailable: block findings (see the Scan tab); reject the item".into());
    }
    match &item.predicted {
        Predicted::Invalid => Some(format!("apply is unavailable: the item is invalid ({}); reject it", item.detail.invalid_reason.clone().unwrap_or_default())),
        Predicted::Status(Status::RevisionConflict) => Some(format!("revision conflict: the state moved since the agent read it and the change cannot be recomputed ({}); reject or skip, and the agent proposes again", item.detail.stale_reason.as_deref().unwrap_or("see Conflict"))),
        Predicted::Status(Status::LeaseConflict) if super::input::expired_lease(item).is_some() => Some("lease conflict: the todo's hard lease expired but still stands (see Conflict); L marks it released as LoopX would (typed confirmation), then apply — or skip / reject".into()),
        Predicted::Status(Status::LeaseConflict) => Some("lease conflict: another agent holds this todo (see Conflict); nothing is taken from it — reject, skip, or wait".into()),
        Predicted::Status(Status::Failed) => Some(format!("apply would fail: {}", item.detail.invalid_reason.clone().unwrap_or_default())),
        Predicted::Status(Status::PreviewOnly) => {
            let failed: Vec<&str> = item.detail.checks.iter().filter(|c| !c.ok && c.name.starts_with("entry.")).map(|c| c.name.as_str()).collect();
            Some(format!("read-only writeback: {} failed (see Checks); reject it, or b records a blocker todo", failed.join(", ")))
        }
        Predicted::Status(Status::IdempotencyConflict) if item.kind == "writeback" => Some("the runtime already holds this key with a different payload: refused; reject it".into()),
        // The override answers the key reuse only: another failing check would decide the
        // apply, so the override is not offered (issue 12 case 6).
        Predicted::Status(Status::IdempotencyConflict) => item
            .detail
            .checks
            .iter()
            .find(|c| !c.ok && !matches!(c.name.as_str(), "idempotency" | "lock" | "rejection"))
            .map(|c| format!("apply is unavailable: besides the key reuse, the {} check fails ({}); reject or skip it", c.name, c.detail)),
        _ => None,
    }
}

/// How an outcome reads on the status line.
#[must_use]
pub fn outcome_kind(status: Status) -> FlashKind {
    match status {
        Status::Applied
        | Status::Skipped
        | Status::Rejected
        | Status::SkippedDuplicate
        | Status::AlreadyApplied
        | Status::LeaseReleased => FlashKind::Success,
        s if s.is_conflict() || s == Status::BoundaryRejected => FlashKind::Conflict,
        _ => FlashKind::Error,
    }
}
