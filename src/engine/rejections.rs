//! Rejections that stick (issue 14 item 4): an item whose idempotency key or effect an
//! operator rejected before carries that rejection — who, when, why — into its checks, its
//! conflict details and the queue, and applying it needs the typed confirmation. Pure over
//! the goal's results log.

use super::preview::Prepared;
use crate::wire::{ResultRecord, Status};

/// The newest operator rejection of the same idempotency key or the same effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedBefore {
    /// The rejected item's id.
    pub item_id: String,
    /// Who rejected it (`operator` of the record).
    pub operator: String,
    /// When (`recorded_at`, UTC RFC 3339).
    pub at: String,
    /// The operator's reason, as recorded (already sanitised and masked).
    pub reason: Option<String>,
    /// What matched: `idempotency key`, `effect`, or `idempotency key and effect`.
    pub same: &'static str,
}

impl RejectedBefore {
    /// One line: `item X was rejected by ana at … (same effect): too broad`.
    #[must_use]
    pub fn line(&self) -> String {
        let reason = self.reason.as_deref().map_or(String::new(), |r| format!(": {r}"));
        format!("item {} was rejected by {} at {} (same {}){reason}", self.item_id, self.operator, self.at, self.same)
    }

    /// As JSON for the conflict details (`rejected_before`).
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({"item_id": self.item_id, "operator": self.operator, "recorded_at": self.at,
            "reason": self.reason, "same": self.same})
    }
}

/// The newest record in `results` where an operator rejected (`reject`, or a blocker
/// recorded instead) an item with `p`'s idempotency key or effect digest. Empty keys and
/// digests match nothing.
#[must_use]
pub fn rejected_before(p: &Prepared, results: &[std::sync::Arc<ResultRecord>]) -> Option<RejectedBefore> {
    let (key, effect) = p.key_and_effect();
    let (key, effect) = (key.filter(|k| !k.is_empty()), effect.filter(|e| !e.is_empty()));
    if key.is_none() && effect.is_none() {
        return None;
    }
    results.iter().rev().find_map(|r| {
        if r.status != Status::Rejected || !matches!(r.decision.as_str(), "reject" | "record_blocker") {
            return None;
        }
        let same_key = key.as_deref() == Some(r.idempotency_key.as_str());
        let same_effect = effect.as_deref() == Some(r.effect_digest.as_str());
        let same = match (same_key, same_effect) {
            (true, true) => "idempotency key and effect",
            (true, false) => "idempotency key",
            (false, true) => "effect",
            (false, false) => return None,
        };
        Some(RejectedBefore {
            item_id: r.item_id.clone(),
            operator: r.operator.clone(),
            at: r.recorded_at.clone(),
            reason: r.reason.clone(),
            same,
        })
    })
}

/// Adds the rejection found for `p` to its checks (a `rejection` row that does not change
/// the predicted status) and its conflict details.
pub(super) fn mark(p: &mut Prepared, results: &Result<crate::gate::results::Records, String>) {
    let Some(r) = results.as_ref().ok().and_then(|rs| rejected_before(p, rs)) else { return };
    p.checks.push(crate::wire::Check {
        name: "rejection".into(),
        ok: false,
        detail: format!("{}; applying it needs a typed confirmation", r.line()),
    });
    if let Some(serde_json::Value::Object(c)) = p.conflict.as_mut() {
        c.insert("rejected_before".into(), r.to_json());
    }
    p.rejected_before = Some(r);
}
