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

/// The item's invalid reason, else its first failing check (`name: detail`), else a
/// pointer to the Checks tab: the status line never ends on an empty `because`.
fn why_failing(item: &QueueItem) -> String {
    item.detail.invalid_reason.clone().unwrap_or_else(|| {
        item.detail
            .checks
            .iter()
            .find(|c| !c.ok)
            .map_or_else(|| "see the Checks tab".to_owned(), |c| format!("{}: {}", c.name, c.detail))
    })
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
        Predicted::Invalid => Some(format!("apply is unavailable: the item is invalid ({}); reject it", why_failing(item))),
        Predicted::Status(Status::RevisionConflict) => Some(format!("revision conflict: the state moved since the agent read it and the change cannot be recomputed ({}); reject or skip, and the agent proposes again", item.detail.stale_reason.as_deref().unwrap_or("see Conflict"))),
        Predicted::Status(Status::LeaseConflict) if super::input::expired_lease(item).is_some() => Some("lease conflict: the todo's hard lease expired but still stands (see Conflict); L marks it released as LoopX would (typed confirmation), then apply — or skip / reject".into()),
        Predicted::Status(Status::LeaseConflict) => Some("lease conflict: another agent holds this todo (see Conflict); nothing is taken from it — reject, skip, or wait".into()),
        Predicted::Status(Status::Failed) => Some(format!("apply would fail: {}", why_failing(item))),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::tests::item;

    /// Without an invalid reason, the first failing check explains a predicted failure.
    #[test]
    fn a_predicted_failure_names_its_failing_check_when_it_has_no_reason() {
        let mut it = item("g", "a", Predicted::Status(Status::Failed), ScanMark::Clean);
        assert_eq!(apply_unavailable(&it).as_deref(), Some("apply would fail: see the Checks tab"));
        let detail = std::sync::Arc::make_mut(&mut it.detail);
        detail.checks.push(std::sync::Arc::new(crate::wire::Check {
            name: "lock".into(),
            ok: true,
            detail: "free".into(),
        }));
        detail.checks.push(std::sync::Arc::new(crate::wire::Check {
            name: "authority".into(),
            ok: false,
            detail: "loopx is not on PATH".into(),
        }));
        assert_eq!(apply_unavailable(&it).as_deref(), Some("apply would fail: authority: loopx is not on PATH"));
    }
}
