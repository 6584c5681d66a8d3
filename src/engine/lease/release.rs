//! Marking an expired hard lease released: the one lease write writegate makes, and only on
//! an explicit, confirmed operator action (issue "Resolving conflicts", lease view; the
//! session-runtime seed's rule that nothing is stolen or cleared silently).
//!
//! What it writes is what `loopx task-lease release` writes for that lease
//! ([`crate::loopx::lease::released_bytes`]), under LoopX's task-lease mutation lock
//! ([`crate::loopx::effect_lock`]), so `loopx task-lease inspect` reads it as released and
//! the owner's own later `release` is an idempotent replay. writegate writes no LoopX
//! lifecycle receipt (`.lifecycle-operations/`): those are the owner's request cache, keyed
//! by its request, and an operator release is not the owner's request. What was done is
//! recorded in the goal's results log (`decision: "release_lease"`, status
//! `lease_released`, with the lease identity and the file's SHA-256 before and after).

use super::super::apply::Outcome;
use super::super::{Engine, EngineError, Item};
use super::recover::{ReleaseMarker, release_marker_path, remove_release_marker};
use crate::gate::fsutil::failpoint;
use crate::loopx::effect_lock;
use crate::loopx::hash::sha256_hex;
use crate::loopx::lease::{TaskLease, lease_path, released_bytes};
use crate::wire::Status;
use serde_json::json;

/// Why a release was refused; nothing was written.
fn refused(msg: impl Into<String>) -> EngineError {
    EngineError::Refused(msg.into())
}

/// Refuses a release the item's current checks do not call for: a LoopX 2.x goal (its
/// hard leases live in LoopX's authority, LOOPX2.md §3), an item not held up by an expired
/// hard lease on `todo_id`, or a `todo_id` that is not a task-lease todo id.
fn release_allowed(p: &super::super::Prepared, item: &Item, todo_id: &str) -> Result<(), EngineError> {
    if p.authority == Some(crate::loopx2::AuthorityKind::Canonical.as_str()) {
        // LoopX 2.x keeps hard leases in its authority and has no operator release
        // (LOOPX2.md §3): a 0.5.x lease file there is not the lease.
        return Err(refused(format!(
            "goal {} is a LoopX 2.x goal: its hard leases live in LoopX's authority, which writegate does not write; an expired lease there can be acquired by another agent directly (loopx task-lease acquire)",
            item.goal_id
        )));
    }
    let held_by = p.conflict.as_ref().and_then(super::super::conflict::expired_lease);
    if held_by.as_ref().is_none_or(|(todo, _)| todo != todo_id) {
        let now = p
            .checks
            .iter()
            .find(|c| c.name == "lease")
            .map_or_else(String::new, |c| format!(" (lease check now: {})", c.detail));
        return Err(refused(format!(
            "item {} is not held up by an expired hard lease on {todo_id}{now}; nothing released",
            item.id
        )));
    }
    if !crate::loopx::lease::is_lease_todo_id(todo_id) {
        return Err(refused(format!("{todo_id:?} is not a task-lease todo id")));
    }
    Ok(())
}

/// The task-lease lock held, the lease file's bytes before and after the release, and the
/// release time.
type Locked = (effect_lock::EffectLock, Vec<u8>, Vec<u8>, chrono::DateTime<chrono::Utc>);

impl Engine {
    /// The result record of a release of `todo_id`'s lease from `before` to `after` bytes.
    #[allow(clippy::too_many_arguments)]
    fn release_record(
        &self,
        p: &super::super::Prepared,
        todo_id: &str,
        seen: &TaskLease,
        reason: &str,
        now: chrono::DateTime<chrono::Utc>,
        before: &[u8],
        after: &[u8],
    ) -> crate::wire::ResultRecord {
        let mut rec = self.record(p, "release_lease", Status::LeaseReleased, Some("expired_lease_released"), {
            let r = super::super::apply::sanitize_reason(reason);
            (!r.is_empty()).then_some(r)
        });
        rec.lease_release = Some(json!({
            "todo_id": todo_id,
            "owner": seen.owner,
            "version": seen.version,
            "lease_epoch": seen.lease_epoch,
            "idempotency_key": seen.idempotency_key,
            "expires_at": seen.expires_at,
            "released_at": now.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            "before_sha256": sha256_hex(before),
            "after_sha256": sha256_hex(after),
        }));
        rec
    }

    /// Marks the expired hard lease of `todo_id` released, for `item`, whose lease check
    /// failed because of it: [`Engine::decide`] with [`super::super::Decision::ReleaseExpiredLease`]
    /// (so the item must be unchanged since it was read). `seen` is the lease as the operator
    /// saw it; under the lock the file must still be exactly that lease (owner, version,
    /// epoch, key, expiry), still `active`, and expired by the engine clock. `reason` is the
    /// operator's (sanitised, 200 chars). The item stays pending; its next preview sees the
    /// lease released.
    ///
    /// # Errors
    /// As [`Engine::decide`]; [`EngineError::Refused`] when the item's conflict is not an
    /// expired hard lease on `todo_id`, the lease changed or is not expired, the lease file
    /// is not one LoopX would accept, or LoopX's task-lease lock stays busy (with its
    /// holder). A failure to append the record after the write is an error that says the
    /// lease was released.
    pub fn release_expired_lease(
        &self,
        item: &Item,
        todo_id: &str,
        seen: &TaskLease,
        reason: &str,
    ) -> Result<Outcome, EngineError> {
        let decision = super::super::Decision::ReleaseExpiredLease {
            todo_id: todo_id.to_owned(),
            seen: seen.clone(),
            reason: reason.to_owned(),
        };
        self.decide(&format!("{}/{}", item.goal_id, item.id), &decision, Some(&item.payload_digest))
    }

    /// Takes LoopX's task-lease lock with the marker's token, reads the lease file and
    /// computes the released bytes at the engine clock's now. On any failure the lock is
    /// let go and the marker removed: nothing was written.
    #[allow(clippy::too_many_arguments)]
    fn lock_and_release_bytes(
        &self,
        marker: &ReleaseMarker,
        marker_path: &std::path::Path,
        dir: &std::path::Path,
        lease_dir: &crate::gate::safedir::SafeDir,
        lease_name: &std::ffi::OsStr,
        item: &Item,
        todo_id: &str,
        seen: &TaskLease,
    ) -> Result<Locked, EngineError> {
        let lock = match effect_lock::acquire_with_token(
            &dir.join("task-leases/.task-leases"),
            effect_lock::TIMEOUT,
            &marker.lock_token,
        ) {
            Ok(lock) => lock,
            Err(e) => {
                remove_release_marker(marker_path)?;
                return Err(refused(format!("task-lease lock: {e}")));
            }
        };
        failpoint("after_lease_lock");
        let computed = lease_dir
            .read(lease_name, crate::gate::fsutil::limits::RECORD)
            .map_err(|source| EngineError::Io {
                what: format!("cannot read task lease {}", lease_path(dir, todo_id).display()),
                source,
            })
            .and_then(|before| {
                let now = self.clock.now().with_timezone(&chrono::Utc);
                let after = released_bytes(&before, &item.goal_id, todo_id, seen, now)
                    .map_err(|why| refused(format!("{why}; nothing released")))?;
                Ok((before, after, now))
            });
        match computed {
            Ok((before, after, now)) => Ok((lock, before, after, now)),
            Err(e) => {
                drop(lock);
                remove_release_marker(marker_path)?;
                Err(e)
            }
        }
    }

    /// The release, called by `decide` under the gate lock. Order: LoopX task-lease lock
    /// (5 s wait) → read, check, atomic write → result record. The lease file's bytes before
    /// and after are kept in `gate/revisions/`.
    pub(in crate::engine) fn release_lease_locked(
        &self,
        gate: &crate::gate::GateDir,
        item: &Item,
        todo_id: &str,
        seen: &TaskLease,
        reason: &str,
    ) -> Result<Outcome, EngineError> {
        let p = self.prepare(item);
        release_allowed(&p, item, todo_id)?;
        let dir = self.ws.goal_runtime_dir(&item.goal_id)?;
        let path = lease_path(&dir, todo_id);
        crate::loopx::registry::ensure_inside(&path, &self.ws.runtime_root, "task lease file")?;
        let io = |what: &str| {
            let what = format!("{what} {}", path.display());
            move |source| EngineError::Io { what, source }
        };
        let (lease_dir, lease_name) = crate::gate::safedir::SafeDir::for_file(&self.ws.runtime_root, &path, false)
            .map_err(io("cannot open the folder of task lease"))?;
        // Write-ahead (issue 12 case 9): the lock token is on disk before the lock exists,
        // and the record before the lease file is written, so recovery can finish the
        // release or remove writegate's own leftover lock after a crash at any step.
        let mut marker = ReleaseMarker::new(&item.id, todo_id);
        let marker_path = release_marker_path(gate, &item.id);
        marker.write(&marker_path)?;
        failpoint("after_release_marker");
        let (lock, before, after, now) =
            self.lock_and_release_bytes(&marker, &marker_path, &dir, &lease_dir, &lease_name, item, todo_id, seen)?;
        let texts: Vec<&str> = [&before, &after].iter().filter_map(|b| std::str::from_utf8(b).ok()).collect();
        super::super::keep_snapshots(gate, &texts);
        let rec = self.release_record(&p, todo_id, seen, reason, now, &before, &after);
        marker.before_sha256 = Some(sha256_hex(&before));
        marker.after_sha256 = Some(sha256_hex(&after));
        marker.record = Some(rec.clone());
        marker.write(&marker_path)?;
        failpoint("after_release_record_marker");
        lease_dir.replace(&lease_name, &after, Some("before_lease_rename")).map_err(io("cannot write task lease"))?;
        failpoint("after_lease_write");
        tracing::info!(goal = %item.goal_id, todo = todo_id, owner = %seen.owner, version = seen.version, "expired hard lease marked released");
        gate.results().append(&rec).map_err(|e| EngineError::Io {
            what: format!(
                "the lease of {todo_id} WAS released, but the result record could not be appended to {} (the next decision records it from gate/applying)",
                gate.results().path().display()
            ),
            source: std::io::Error::other(crate::error_chain(&e)),
        })?;
        failpoint("after_release_result");
        drop(lock);
        failpoint("after_lease_unlock");
        remove_release_marker(&marker_path)?;
        Ok(Outcome {
            status: Status::LeaseReleased,
            record: Some(rec),
            item_moved: false,
            message: format!(
                "expired hard lease of {todo_id} (owner {}, version {}) marked released, as `loopx task-lease release` writes it; recorded. The item stays pending: review it again",
                seen.owner, seen.version
            ),
            lock: None,
            conflict: None,
        })
    }
}
