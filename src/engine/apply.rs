//! Decisions: apply (under the gate lock and the LoopX state-file lock, every check
//! re-run on a fresh read, write-ahead marker, atomic write, result, move), skip, reject,
//! rebase; the dispatch to lease releases and writebacks. Crash recovery is `recover.rs`.

pub use super::approval::Approval;
use super::approval::{check_approval, note_of};
use super::item::Item;
use super::preview::{Predicted, Prepared};
use super::recover::{Marker, marker_path, write_marker};
use super::{Engine, EngineError};
use crate::gate::GateDir;
use crate::gate::fsutil::{durable_move, failpoint};
use crate::loopx::hash::revision_of_text;
use crate::loopx::lock::{self, LockError, LockRequest, MUTATION_TIMEOUT};
use crate::wire::{RESULT_SCHEMA, ResultRecord, Status};
use serde_json::{Value, json};

/// The operator's decision on one item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Apply it. A stale item that [`super::recompute::recompute_check`] accepts under the
    /// lock is applied recomputed on the current state and recorded `applied` with
    /// `reason_code` `rebased` (`idempotency_override` when it also overrides a reused key):
    /// `expected_revision` is the agent's, `base_revision` the one it was recomputed on, the
    /// idempotency key the original.
    Apply(Approval),
    /// Skip it (recorded, item moved to `decided/`).
    Skip,
    /// Reject it with a reason (recorded, item moved to `decided/`).
    Reject {
        /// Why (typed or a quick reason).
        reason: String,
    },
    /// Mark the expired hard lease that holds the item up released, as LoopX writes a
    /// release (issue 6; see [`Engine::release_expired_lease`]). The item stays pending.
    ReleaseExpiredLease {
        /// The todo whose lease it is.
        todo_id: String,
        /// The lease as the operator saw it (compare-and-swap under the lock).
        seen: crate::loopx::lease::TaskLease,
        /// The operator's reason (may be empty).
        reason: String,
    },
    /// For a read-only writeback preview: propose a `blocker` todo in the same goal, then
    /// record the writeback as rejected (see [`Engine::record_blocker`]).
    RecordBlocker,
    /// The second half of [`Decision::RecordBlocker`], once the blocker item is pending.
    RejectForBlocker {
        /// The proposed blocker item's id.
        blocker_item: String,
    },
}

/// What a decision led to.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The status.
    pub status: Status,
    /// The record appended, if any.
    pub record: Option<ResultRecord>,
    /// Whether the item left the inbox.
    pub item_moved: bool,
    /// Human summary with the next step.
    pub message: String,
    /// Lock holder and incident row on `lock_busy`.
    pub lock: Option<Value>,
    /// Conflict details.
    pub conflict: Option<Value>,
}

impl Decision {
    /// A plain apply: no typed confirmation, no override, no note.
    #[must_use]
    pub const fn apply() -> Self {
        Self::Apply(Approval { confirm_warnings: false, override_idempotency: false, note: None, on_revision: None })
    }

    /// An apply with the typed confirmation that `warn` findings require.
    #[must_use]
    pub const fn apply_confirmed() -> Self {
        Self::Apply(Approval { confirm_warnings: true, override_idempotency: false, note: None, on_revision: None })
    }
}

impl Outcome {
    /// The outcome of deciding an invalid item: `failed`, nothing recorded or written.
    pub(super) fn invalid(p: &Prepared) -> Self {
        Self {
            status: Status::Failed,
            record: None,
            item_moved: false,
            message: format!("invalid item: {}", p.invalid_reason.clone().unwrap_or_default()),
            lock: None,
            conflict: None,
        }
    }
}

impl Engine {
    /// Decides one pending item. `seen_digest` is the item's `payload_digest` as the operator
    /// reviewed it; if the file changed since, nothing happens ([`EngineError::ItemChanged`]).
    ///
    /// # Errors
    /// [`EngineError`] for missing / changed items and I/O failures. Conflicts are
    /// [`Outcome`]s, not errors.
    pub fn decide(
        &self,
        reference: &str,
        decision: &Decision,
        seen_digest: Option<&str>,
    ) -> Result<Outcome, EngineError> {
        if *decision == Decision::RecordBlocker {
            // Proposing takes the gate lock itself, so this runs before it is taken here.
            return self.record_blocker(reference, seen_digest);
        }
        // The item is read (and its digest compared) only under the lock.
        let (path, goal_id, gate) = self.locate_item(reference)?;
        let _gate_lock = super::gate_lock::gate_lock(&gate)?;
        failpoint("after_gate_lock");
        // Under the lock, the gate folder must still resolve inside the runtime root (issue
        // 12 case 2): a swap since it was first resolved is refused before anything is written.
        let gate = self.gate(&goal_id)?;
        self.recover_goal_in(&gate, &goal_id)?;
        let item = Item::read(&path, &goal_id);
        if !path.exists() {
            return Err(EngineError::NoSuchItem(crate::textsafe::shortened(reference, 120)));
        }
        if marker_path(&gate, &item.id).exists()
            || super::lease::release_marker_path(&gate, &item.id).exists()
            || super::canonical::apply::run_marker_path(&gate, &item.id).exists()
        {
            return Err(EngineError::Refused(format!(
                "an interrupted apply or lease release of {} awaits inspection in {} (recovery could not tell whether it reached the state or the lease file); nothing was done",
                item.id,
                gate.applying().display()
            )));
        }
        if seen_digest.is_some_and(|d| d != item.payload_digest) {
            return Err(EngineError::ItemChanged(item.id));
        }
        if let Some(wb) = item.writeback.clone() {
            return self.decide_writeback(&gate, &item, &wb, decision);
        }
        match decision {
            Decision::RecordBlocker | Decision::RejectForBlocker { .. } => {
                Err(EngineError::Refused("recording a blocker is for writeback previews".into()))
            }
            Decision::Skip => self.close(&gate, &item, "skip", Status::Skipped, Some("operator_skip"), None),
            Decision::Reject { reason } => {
                let reason = sanitize_reason(reason);
                if reason.is_empty() {
                    return Err(EngineError::Io {
                        what: "reject".into(),
                        source: std::io::Error::other("a reject needs a reason"),
                    });
                }
                self.close(&gate, &item, "reject", Status::Rejected, Some("operator_reject"), Some(reason))
            }
            Decision::Apply(a) if item.command.is_some() => {
                let cmd = item.command.clone().unwrap_or_else(|| unreachable!("checked by the guard"));
                self.apply_loopx(&gate, &item, &cmd, a)
            }
            Decision::ReleaseExpiredLease { .. } if item.command.is_some() => Err(EngineError::Refused(
                "a LoopX 2.x command's leases are LoopX's: apply, skip or reject the command".into(),
            )),
            Decision::Apply(a) => self.apply(&gate, &item, a),
            Decision::ReleaseExpiredLease { todo_id, seen, reason } => {
                self.release_lease_locked(&gate, &item, todo_id, seen, reason)
            }
        }
    }

    fn apply(&self, gate: &GateDir, item: &Item, approval: &Approval) -> Result<Outcome, EngineError> {
        let goal = self.goal(&item.goal_id)?.clone();
        let class = item.intent.as_ref().map_or("unknown", |i| i.write_class.as_str());
        let req = LockRequest {
            target: &goal.state_file,
            agent_id: Some("writegate"),
            operation: class,
            timeout: MUTATION_TIMEOUT,
        };
        let state_lock = match lock::acquire(&req) {
            Ok(g) => g,
            Err(LockError::Busy { holder, incident, incident_recorded, waited_ms, .. }) => {
                return self.record_lock_busy(gate, item, &holder, &incident, incident_recorded, waited_ms);
            }
            Err(e @ LockError::Io { .. }) => {
                return Err(EngineError::Io {
                    what: "state lock".into(),
                    source: std::io::Error::other(crate::error_chain(&e)),
                });
            }
        };
        failpoint("after_state_lock");
        // The gate folder was checked under the gate lock moments before.
        let snap = self.goal_snapshot_in(&item.goal_id, Ok(gate.clone()));
        let mut p = self.prepare_for_apply(item, &snap);
        if p.predicted != Predicted::Ready {
            // A conflict, a duplicate or a failure is recorded and shown with its details.
            p = self.prepare_in(item, &snap);
        }
        let mut status = match &p.predicted {
            Predicted::Ready => Status::Applied,
            Predicted::Invalid => return Ok(Outcome::invalid(&p)),
            Predicted::Status(s) => *s,
        };
        if status == Status::IdempotencyConflict && approval.override_idempotency {
            // The override answers the key reuse only; whatever else fails decides.
            status = if only_idempotency_failed(&p) { Status::Applied } else { next_failure(&p) };
        }
        if status == Status::Applied {
            check_approval(&p, approval)?;
        }
        let base = p.current_rev();
        if status != Status::Applied {
            let out = self.record_not_applied(gate, item, &p, status, base);
            drop(state_lock);
            return out;
        }
        let new_text = p.proposed_text.clone().unwrap_or_default();
        let mut rec = self.applied_record(&p, base.clone(), &new_text);
        rec.note = note_of(approval);
        let marker = Marker {
            item_id: item.id.clone(),
            base_revision: base.unwrap_or_default(),
            applied_revision: rec.applied_revision.clone().unwrap_or_default(),
            record: rec.clone(),
        };
        // Both texts were kept before the state write (`write_and_record`).
        Self::write_and_record(gate, item, &goal, &p, &new_text, &marker)?;
        drop(state_lock);
        Ok(Outcome {
            status: Status::Applied,
            message: format!(
                "{}written; the state is now at {}",
                if p.recomputed.is_some() { "recomputed on the current state and " } else { "" },
                rec.applied_revision.as_deref().unwrap_or("")
            ),
            record: Some(rec),
            item_moved: true,
            lock: None,
            conflict: None,
        })
    }

    /// The record of an apply that writes `new_text` over the state at `base`: the override
    /// of an idempotency conflict and a rebase say so in `reason_code`.
    fn applied_record(&self, p: &Prepared, base: Option<String>, new_text: &str) -> ResultRecord {
        let mut rec = self.record(p, "apply", Status::Applied, None, None);
        rec.base_revision = base;
        rec.applied_revision = Some(revision_of_text(new_text));
        rec.applied_scopes = vec!["active_state".into()];
        if p.predicted == Predicted::Status(Status::IdempotencyConflict) {
            rec.reason_code = Some("idempotency_override".into());
            rec.override_of_effect_digest.clone_from(&p.prior_effect_digest);
        }
        // An override of a reused key is the fact to find in the log; a recompute beside it
        // shows in `base_revision` differing from `expected_revision`.
        if p.recomputed.is_some() && rec.reason_code.is_none() {
            rec.reason_code = Some("rebased".into());
        }
        rec
    }

    /// The durable steps of an apply, under the state lock the caller holds (DESIGN.md §4):
    /// both texts kept, the write-ahead marker, the state written (no symlink followed),
    /// the record, the item moved, the marker removed. A crash between any two leaves what
    /// recovery finishes or unwinds.
    fn write_and_record(
        gate: &GateDir,
        item: &Item,
        goal: &crate::loopx::registry::Goal,
        p: &Prepared,
        new_text: &str,
        marker: &Marker,
    ) -> Result<(), EngineError> {
        let (state_dir, state_name) = Self::state_target(goal, p.current())?;
        let marker_path = marker_path(gate, &item.id);
        // Both texts are kept before the state is written: recovery judges an interrupted
        // apply by them when a later write moved the state on (issue 12 case 8).
        let kept: Vec<(&str, Option<&str>)> = p
            .current()
            .map(|t| (t, marker.record.base_revision.as_deref()))
            .into_iter()
            .chain([(new_text, Some(marker.applied_revision.as_str()))])
            .collect();
        super::keep_snapshots_known(gate, &kept);
        write_marker(&marker_path, marker)?;
        failpoint("after_marker");
        state_dir
            .replace(&state_name, new_text.as_bytes(), Some("before_state_rename"))
            .map_err(|source| EngineError::Io { what: format!("write {}", goal.state_file.display()), source })?;
        failpoint("after_state_write");
        gate.results().append(&marker.record)?;
        failpoint("after_result");
        durable_move(&item.path, &Self::decided_path(gate, item))
            .map_err(|source| EngineError::Io { what: "move item to decided/".into(), source })?;
        failpoint("after_move");
        std::fs::remove_file(&marker_path)
            .map_err(|source| EngineError::Io { what: "remove apply marker".into(), source })
    }

    /// A `lock_busy` outcome: LoopX's state lock stayed held for the whole bounded wait.
    /// Recorded, with the holder and the incident LoopX's protocol wrote; nothing written.
    fn record_lock_busy(
        &self,
        gate: &GateDir,
        item: &Item,
        holder: &serde_json::Value,
        incident: &serde_json::Value,
        incident_recorded: bool,
        waited_ms: u128,
    ) -> Result<Outcome, EngineError> {
        let p = self.prepare(item);
        let mut rec = self.record(&p, "apply", Status::LockBusy, Some("lock_acquire_timeout"), None);
        rec.base_revision = p.current().map(revision_of_text);
        gate.results().append(&rec)?;
        Ok(Outcome {
            status: Status::LockBusy,
            message: format!(
                "the state file lock stayed busy for {waited_ms} ms ({}); inspect the holder, then retry — never delete the lock file",
                match (holder.get("pid"), holder.get("released_at")) {
                    (Some(pid), Some(_)) =>
                        format!("the current holder wrote no record; the last one, pid {pid}, says it released"),
                    (Some(pid), None) => format!("holder pid {pid}"),
                    (None, _) => "no holder record".to_owned(),
                }
            ),
            record: Some(rec),
            item_moved: false,
            lock: Some(json!({"holder": holder, "incident": incident, "incident_recorded": incident_recorded})),
            conflict: None,
        })
    }

    /// An apply whose checks gave another status (a conflict, a duplicate, a failure):
    /// recorded under the state lock the caller holds; a duplicate or an already applied
    /// item moves to `decided/`. Nothing is written to the state.
    fn record_not_applied(
        &self,
        gate: &GateDir,
        item: &Item,
        p: &Prepared,
        status: Status,
        base: Option<String>,
    ) -> Result<Outcome, EngineError> {
        let final_ = matches!(status, Status::SkippedDuplicate | Status::AlreadyApplied);
        let code = p.reason_code.unwrap_or(status.as_str());
        let mut rec = self.record(p, "apply", status, Some(code), None);
        rec.base_revision = base;
        gate.results().append(&rec)?;
        failpoint("after_result");
        if final_ {
            durable_move(&item.path, &Self::decided_path(gate, item))
                .map_err(|source| EngineError::Io { what: "move item to decided/".into(), source })?;
        }
        Ok(Outcome {
            status,
            message: next_step(status, p),
            record: Some(rec),
            item_moved: final_,
            lock: None,
            conflict: p.conflict.clone(),
        })
    }

    /// The state file's folder, opened beneath the goal's repo with no symlink followed
    /// (issue 12 case 2), and the file's real name there. A state file that is a symlink
    /// inside the repo is written through, as LoopX's `write_text` does; one that now
    /// resolves outside the repo, or whose bytes are no longer `checked` (the text every
    /// check just ran on), is refused before anything is written.
    fn state_target(
        goal: &crate::loopx::registry::Goal,
        checked: Option<&str>,
    ) -> Result<(crate::gate::safedir::SafeDir, std::ffi::OsString), EngineError> {
        let refuse = |why: String| EngineError::Refused(format!("{why}; nothing was written"));
        let (dir, name) = crate::gate::safedir::SafeDir::for_file(&goal.repo, &goal.state_file, true).map_err(|e| {
            refuse(format!("the state file {} cannot be opened safely: {e}", goal.state_file.display()))
        })?;
        let now = dir.read(&name, crate::gate::fsutil::limits::STATE).map_err(|e| {
            refuse(format!(
                "the state file {} cannot be read without following a symlink: {e}",
                goal.state_file.display()
            ))
        })?;
        if Some(now.as_slice()) != checked.map(str::as_bytes) {
            return Err(refuse(format!(
                "the state file {} changed or was replaced while the checks ran",
                goal.state_file.display()
            )));
        }
        Ok((dir, name))
    }

    pub(super) fn close(
        &self,
        gate: &GateDir,
        item: &Item,
        decision: &str,
        status: Status,
        code: Option<&str>,
        reason: Option<String>,
    ) -> Result<Outcome, EngineError> {
        let p = self.prepare(item);
        let rec = self.record(&p, decision, status, code, reason);
        gate.results().append(&rec)?;
        if let Some(text) = &p.current_text {
            super::keep_snapshots(gate, &[text]);
        }
        failpoint("after_result");
        durable_move(&item.path, &Self::decided_path(gate, item))
            .map_err(|source| EngineError::Io { what: "move item to decided/".into(), source })?;
        Ok(Outcome {
            status,
            message: "recorded; the item moved to decided/".to_owned(),
            record: Some(rec),
            item_moved: true,
            lock: None,
            conflict: None,
        })
    }

    /// A result record for `p` (no payload body: ids, keys, digests only).
    pub(super) fn record(
        &self,
        p: &Prepared,
        decision: &str,
        status: Status,
        code: Option<&str>,
        reason: Option<String>,
    ) -> ResultRecord {
        let intent = p.item.intent.as_ref().ok();
        let s = |f: fn(&super::item::Intent) -> &String| intent.map(|i| f(i).clone()).unwrap_or_default();
        if let Some(cmd) = &p.item.command {
            return self.loopx_record(p, cmd, decision, status, code, reason);
        }
        if let Some(wb) = &p.item.writeback {
            return ResultRecord {
                schema_version: RESULT_SCHEMA.into(),
                recorded_at: self.clock.utc_stamp(),
                goal_id: p.item.goal_id.clone(),
                item_id: p.item.id.clone(),
                kind: p.item.kind.into(),
                write_class: wb.write_class.clone(),
                writer_id: wb.agent_id.clone().unwrap_or_default(),
                write_id: String::new(),
                idempotency_key: wb.idempotency_key.clone(),
                decision: decision.into(),
                status,
                reason_code: code.map(str::to_owned),
                reason,
                operator: self.operator.clone(),
                expected_revision: None,
                base_revision: None,
                applied_revision: None,
                effect_digest: wb.payload_digest.clone(),
                payload_digest: p.item.payload_digest.clone(),
                override_of_effect_digest: None,
                applied_scopes: Vec::new(),
                lease_release: None,
                writeback: Some(serde_json::json!({"write_class": wb.write_class, "runtime_id": wb.runtime_id,
                    "session_id": wb.session_id})),
                loopx: None,
                note: None,
                reverts: None,
            };
        }
        ResultRecord {
            schema_version: RESULT_SCHEMA.into(),
            recorded_at: self.clock.utc_stamp(),
            goal_id: p.item.goal_id.clone(),
            item_id: p.item.id.clone(),
            kind: p.item.kind.into(),
            write_class: s(|i| &i.write_class),
            writer_id: s(|i| &i.writer_id),
            write_id: s(|i| &i.write_id),
            idempotency_key: s(|i| &i.idempotency_key),
            decision: decision.into(),
            status,
            reason_code: code.map(str::to_owned),
            reason,
            operator: self.operator.clone(),
            expected_revision: intent.map(|i| i.expected_revision.clone()),
            base_revision: None,
            applied_revision: None,
            effect_digest: s(|i| &i.effect_digest),
            payload_digest: p.item.payload_digest.clone(),
            override_of_effect_digest: None,
            applied_scopes: Vec::new(),
            lease_release: None,
            writeback: None,
            loopx: None,
            note: None,
            reverts: intent.and_then(|i| i.reverts.clone()),
        }
    }
}

/// The status of the first failing check after idempotency (for an override).
fn next_failure(p: &Prepared) -> Status {
    p.failures
        .iter()
        .filter(|(name, _)| name != "idempotency")
        .find_map(|(_, pred)| match pred {
            Predicted::Status(s) => Some(*s),
            Predicted::Invalid => Some(Status::Failed),
            Predicted::Ready => None,
        })
        .unwrap_or(Status::IdempotencyConflict)
}

fn only_idempotency_failed(p: &Prepared) -> bool {
    // A held lock is waited out; an earlier rejection asks for the typed confirmation only.
    p.checks
        .iter()
        .filter(|c| !c.ok && !matches!(c.name.as_str(), "lock" | "rejection"))
        .all(|c| c.name == "idempotency")
}

fn next_step(status: Status, p: &Prepared) -> String {
    match status {
        Status::RevisionConflict => "revision conflict: the state changed after the agent read it; reject or skip the item, or ask the agent to propose again".into(),
        Status::LeaseConflict => format!("lease conflict: {}; nothing is taken from another agent — reject, skip, or wait for the holder", p.checks.iter().find(|c| c.name == "lease").map_or("", |c| c.detail.as_str())),
        Status::IdempotencyConflict => "idempotency conflict: this key was applied with a different effect; reject, skip, or apply with an explicit override".into(),
        Status::BoundaryRejected => "boundary rejected: a block finding makes apply unavailable; reject the item".into(),
        Status::SkippedDuplicate => "duplicate of an applied item; recorded and moved to decided/".into(),
        Status::AlreadyApplied => "the state already holds this change; recorded and moved to decided/".into(),
        Status::Failed => format!("failed: {}", p.invalid_reason.clone().unwrap_or_default()),
        other => other.as_str().into(),
    }
}

/// Operator reasons: escape sequences and control characters dropped, secrets masked (a
/// reason is kept in `results.jsonl` and shown by `log`), whitespace compacted, 200 chars max.
pub(super) fn sanitize_reason(reason: &str) -> String {
    let clean = crate::scan::mask_secrets(&crate::textsafe::strip_input(reason, false)).0;
    crate::loopx::pytext::compact_whitespace(&clean).chars().take(200).collect()
}
