//! Crash recovery of operator lease releases (issue 12 case 9): the write-ahead marker
//! `gate/applying/<item>.release`, written before LoopX's task-lease lock is taken, and the
//! recovery that records a release whose lease write landed, drops one that never wrote,
//! and removes the lock files a dead writegate left behind.
//!
//! Marker phases: first `{item_id, todo_id, lock_token}` (before the lock: the token lets
//! recovery recognise writegate's own leftover `.task-leases.ts-effect.lock`), then the same
//! with `before_sha256`, `after_sha256` and the full result `record` (before the lease file
//! is written). The marker is removed last, after the record and the lock release.

use super::super::{Engine, EngineError};
use crate::gate::GateDir;
use crate::loopx::hash::sha256_hex;
use crate::wire::ResultRecord;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The write-ahead marker of one lease release.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(in crate::engine) struct ReleaseMarker {
    pub(in crate::engine) item_id: String,
    pub(in crate::engine) todo_id: String,
    /// The token the task-lease lock is (or was about to be) taken with.
    pub(in crate::engine) lock_token: String,
    /// SHA-256 of the lease file before the release (second phase only).
    pub(in crate::engine) before_sha256: Option<String>,
    /// SHA-256 of the released lease file (second phase only).
    pub(in crate::engine) after_sha256: Option<String>,
    /// The record to append once the lease file holds `after_sha256`.
    pub(in crate::engine) record: Option<ResultRecord>,
}

impl ReleaseMarker {
    /// A first-phase marker with a new lock token.
    pub(in crate::engine) fn new(item_id: &str, todo_id: &str) -> Self {
        Self {
            item_id: item_id.to_owned(),
            todo_id: todo_id.to_owned(),
            lock_token: crate::loopx::effect_lock::new_token(),
            before_sha256: None,
            after_sha256: None,
            record: None,
        }
    }

    /// Writes the marker atomically (temp file, fsync, rename, fsync the folder).
    pub(in crate::engine) fn write(&self, path: &Path) -> Result<(), EngineError> {
        let io = |source| EngineError::Io { what: format!("write lease release marker {}", path.display()), source };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let bytes = serde_json::to_vec(self).map_err(|e| io(std::io::Error::other(e)))?;
        crate::gate::fsutil::atomic_write(path, &bytes).map_err(io)
    }
}

/// `gate/applying/<item>.release`.
pub(in crate::engine) fn release_marker_path(gate: &GateDir, item_id: &str) -> PathBuf {
    gate.applying().join(format!("{item_id}.release"))
}

/// Removes a release marker and makes the removal durable.
pub(in crate::engine) fn remove_release_marker(path: &Path) -> Result<(), EngineError> {
    let io = |source| EngineError::Io { what: format!("remove lease release marker {}", path.display()), source };
    std::fs::remove_file(path).map_err(io)?;
    path.parent().map_or(Ok(()), crate::gate::fsutil::sync_dir).map_err(io)
}

fn read_release_marker(path: &Path) -> Result<ReleaseMarker, EngineError> {
    let unreadable = || EngineError::Io {
        what: format!("lease release marker {} is unreadable; inspect it by hand", path.display()),
        source: std::io::Error::other("unparseable marker"),
    };
    let marker: ReleaseMarker = crate::gate::fsutil::read_regular(path, crate::gate::fsutil::limits::RECORD, false)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(unreadable)?;
    let named_file = path.file_stem().is_some_and(|s| *s == *marker.item_id);
    if !crate::gate::is_safe_id(&marker.item_id)
        || !named_file
        || !crate::loopx::lease::is_lease_todo_id(&marker.todo_id)
        || marker.record.as_ref().is_some_and(|r| r.item_id != marker.item_id)
    {
        return Err(unreadable());
    }
    Ok(marker)
}

impl Engine {
    /// Recovers every lease release marker of `goal_id` (call under the gate lock); one note
    /// per marker says what was done.
    ///
    /// # Errors
    /// [`EngineError`] on I/O failure or an unparseable marker (which is kept).
    pub(in crate::engine) fn recover_releases(
        &self,
        gate: &GateDir,
        goal_id: &str,
        records: &[std::sync::Arc<ResultRecord>],
        applying: &[std::path::PathBuf],
    ) -> Result<Vec<String>, EngineError> {
        let mut notes = Vec::new();
        for path in GateDir::markers_among(applying, "release") {
            let marker = read_release_marker(&path)?;
            notes.push(self.recover_release(gate, goal_id, records, &path, &marker)?);
        }
        Ok(notes)
    }

    fn recover_release(
        &self,
        gate: &GateDir,
        goal_id: &str,
        records: &[std::sync::Arc<ResultRecord>],
        path: &Path,
        marker: &ReleaseMarker,
    ) -> Result<String, EngineError> {
        let io = |what: &str| {
            let what = what.to_owned();
            move |source| EngineError::Io { what, source }
        };
        let dir = self.ws.goal_runtime_dir(goal_id)?;
        let leases = dir.join("task-leases");
        let reclaimed = crate::loopx::effect_lock::reclaim_own(&leases.join(".task-leases"), &marker.lock_token)
            .map_err(io("remove writegate's leftover task-lease lock"))?;
        let temps = crate::gate::fsutil::remove_dead_temps(&leases);
        let id = &marker.item_id;
        let mut lock_note = String::new();
        if reclaimed > 0 {
            lock_note.push_str(&format!("; removed writegate's leftover task-lease lock ({reclaimed} file(s))"));
        }
        if temps > 0 {
            lock_note.push_str(&format!("; removed {temps} temp file(s) of the interrupted write"));
        }
        let (Some(before), Some(after), Some(record)) = (&marker.before_sha256, &marker.after_sha256, &marker.record)
        else {
            remove_release_marker(path)?;
            return Ok(format!("{id}: an interrupted lease release stopped before writing the lease file{lock_note}"));
        };
        let recorded = records.iter().any(|r| {
            r.item_id == *id
                && r.decision == "release_lease"
                && r.lease_release.as_ref().and_then(|l| l.get("after_sha256")).and_then(|v| v.as_str())
                    == Some(after.as_str())
        });
        let lease_path = crate::loopx::lease::lease_path(&dir, &marker.todo_id);
        let now = crate::gate::fsutil::read_regular(&lease_path, crate::gate::fsutil::limits::RECORD, false)
            .map(|b| sha256_hex(&b))
            .ok();
        let note = if recorded {
            format!("{id}: the interrupted lease release of {} was already recorded", marker.todo_id)
        } else if now.as_deref() == Some(after.as_str()) {
            let mut rec = record.clone();
            rec.reason_code = Some("recovered_after_interrupted_release".into());
            rec.recorded_at = self.clock.utc_stamp();
            gate.results().append(&rec)?;
            format!("{id}: the interrupted lease release of {} reached the lease file; recorded it", marker.todo_id)
        } else if now.as_deref() == Some(before.as_str()) {
            format!("{id}: the interrupted lease release of {} never reached the lease file", marker.todo_id)
        } else {
            return Ok(format!(
                "{id}: cannot tell whether the interrupted lease release of {} reached the lease file (it changed since); the marker stays in gate/applying and the item is held: inspect by hand{lock_note}",
                marker.todo_id
            ));
        };
        remove_release_marker(path)?;
        Ok(format!("{note}{lock_note}"))
    }
}
