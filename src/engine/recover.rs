//! Crash recovery of applies: the write-ahead marker `gate/applying/<item>.json` written
//! before the state write, and the recovery that finishes or unwinds an apply interrupted
//! at any step (DESIGN.md §4).

use super::gate_lock::gate_lock;
use super::{Engine, EngineError, Item, read_state};
use crate::gate::GateDir;
use crate::gate::fsutil::{atomic_write, durable_move, remove_stale_temps};
use crate::loopx::hash::revision_of_text;
use crate::wire::{ResultRecord, Status};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Write-ahead marker `gate/applying/<item>.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Marker {
    pub(super) item_id: String,
    pub(super) base_revision: String,
    pub(super) applied_revision: String,
    pub(super) record: ResultRecord,
}

impl Engine {
    /// Finishes or unwinds applies interrupted by a crash in `goal_id` (call under the gate
    /// lock). State already at the marker's applied revision → `already_applied` recorded and
    /// the item moved; state still at the base revision → the marker is dropped and the
    /// item stays pending. A marker that cannot be parsed is kept and reported.
    ///
    /// # Errors
    /// [`EngineError`] on I/O failure or an unparseable marker.
    pub fn recover_goal(&self, goal_id: &str) -> Result<Vec<String>, EngineError> {
        self.recover_goal_in(&self.gate(goal_id)?, goal_id)
    }

    /// [`Self::recover_goal`] with the goal's gate folder checked by the caller (under the
    /// gate lock, moments before).
    pub(super) fn recover_goal_in(
        &self,
        gate: &crate::gate::GateDir,
        goal_id: &str,
    ) -> Result<Vec<String>, EngineError> {
        let goal = self.goal(goal_id)?.clone();
        let mut notes = Vec::new();
        let target = std::fs::canonicalize(&goal.state_file).unwrap_or_else(|_| goal.state_file.clone());
        // One listing of applying/ for its temps and every kind of marker.
        let applying = gate.applying_entries();
        let stale = remove_stale_temps(&target)
            + crate::gate::fsutil::remove_dead_temps_among(&applying)
            + crate::gate::fsutil::remove_dead_temps(&gate.inbox())
            + self.sweep_revisions_once(gate);
        if stale > 0 {
            notes.push(format!("removed {stale} temp file(s) left by an interrupted write"));
        }
        // A log that ends in a newline has no torn tail to repair: what was verified before
        // is remembered (an apply costs the same after 10,000 decisions as after ten).
        let log = gate.results();
        let records = if log.ends_whole() {
            log.read_remembered()?
        } else {
            std::sync::Arc::new(log.read_all(true)?.into_iter().map(std::sync::Arc::new).collect())
        };
        for path in crate::gate::GateDir::markers_among(&applying, "json") {
            let marker = read_marker(&path)?;
            notes.push(self.recover_marker(gate, &goal, &records, &path, &marker)?);
        }
        notes.extend(self.recover_releases(gate, goal_id, &records, &applying)?);
        notes.extend(self.recover_loopx_runs(gate, goal_id, &records, &applying)?);
        notes.extend(self.finish_interrupted_closes(gate, goal_id, &records)?);
        for n in &notes {
            tracing::warn!(goal = goal_id, "{n}");
        }
        Ok(notes)
    }

    /// Removes dead writers' temps from `gate`'s `revisions/` the first time this engine
    /// recovers the goal: listing that folder, which grows with every apply, at each
    /// decision made an apply's cost grow with the number of earlier applies. A dead writer's
    /// temp is an unfinished dot-file that no reader takes for a snapshot; one left while
    /// this engine runs waits for the next engine's sweep. The number removed.
    fn sweep_revisions_once(&self, gate: &crate::gate::GateDir) -> usize {
        let dir = gate.revisions().dir().to_owned();
        let first = self.swept.lock().map_or(true, |mut swept| swept.insert(dir.clone()));
        if first { crate::gate::fsutil::remove_dead_temps(&dir) } else { 0 }
    }

    /// Finishes or unwinds the apply `marker` (at `path`) describes; the note says which.
    fn recover_marker(
        &self,
        gate: &crate::gate::GateDir,
        goal: &crate::loopx::registry::Goal,
        records: &[std::sync::Arc<crate::wire::ResultRecord>],
        path: &Path,
        marker: &Marker,
    ) -> Result<String, EngineError> {
        let id = &marker.item_id;
        let inbox_path = gate.inbox().join(format!("{id}.json"));
        let recorded = records
            .iter()
            .any(|r| r.item_id == *id && r.applied_revision.as_deref() == Some(marker.applied_revision.as_str()));
        let current_text = read_state(&goal.state_file).unwrap_or_default();
        let current = revision_of_text(&current_text);
        let moved_on = current != marker.applied_revision && current != marker.base_revision;
        let verdict = if moved_on { change_present(gate, marker, &current_text) } else { None };
        let remove_marker = || {
            std::fs::remove_file(path).map_err(|source| EngineError::Io { what: "remove apply marker".into(), source })
        };
        let note = if recorded {
            format!("{id}: result was recorded; finishing the move")
        } else if verdict == Some(true) {
            // The write reached the state and a later write (LoopX's) built on it.
            self.record_recovered(gate, marker, Status::Applied)?;
            format!("{id}: the write reached the state before a later write moved it on; recorded applied")
        } else if moved_on && verdict.is_none() {
            return Ok(format!(
                "{id}: cannot tell whether the interrupted apply reached the state (a later write changed it); the marker stays in gate/applying and the item is held: inspect by hand"
            ));
        } else if current == marker.applied_revision {
            self.record_recovered(gate, marker, Status::AlreadyApplied)?;
            format!("{id}: the state already holds the write; recorded already_applied")
        } else {
            remove_marker()?;
            return Ok(format!("{id}: the interrupted apply never reached the state; the item stays pending"));
        };
        if inbox_path.exists() {
            let item = Item::read(&inbox_path, &goal.id);
            durable_move(&inbox_path, &Self::decided_path(gate, &item))
                .map_err(|source| EngineError::Io { what: "move item to decided/".into(), source })?;
        }
        remove_marker()?;
        Ok(note)
    }

    /// Appends the marker's record as a recovery found it: `applied` (the write reached the
    /// state, which moved on since) or `already_applied` (the state is the written text).
    fn record_recovered(
        &self,
        gate: &crate::gate::GateDir,
        marker: &Marker,
        status: Status,
    ) -> Result<(), EngineError> {
        let mut rec = marker.record.clone();
        if status == Status::AlreadyApplied {
            rec.status = status;
            rec.decision = "recover".into();
        }
        rec.reason_code = Some("recovered_after_interrupted_apply".into());
        rec.recorded_at = self.clock.utc_stamp();
        gate.results().append(&rec)?;
        Ok(())
    }

    /// Moves to `decided/` every pending item that `records` already decided (a final status
    /// recorded for this item id and these exact bytes): a skip, reject, duplicate or
    /// writeback result whose move was interrupted (issue 12 case 7). Called under the gate
    /// lock.
    fn finish_interrupted_closes(
        &self,
        gate: &crate::gate::GateDir,
        goal_id: &str,
        records: &[std::sync::Arc<crate::wire::ResultRecord>],
    ) -> Result<Vec<String>, EngineError> {
        let mut notes = Vec::new();
        // Only an item some final record names can be one; the others are not read (an
        // apply in a batch of fifty read the other pending items every time).
        for path in self.named_ids.among(gate.results().path(), records, gate.pending_files()) {
            let item = Item::read(&path, goal_id);
            if let Some(rec) = decided_by(records, &item) {
                durable_move(&path, &Self::decided_path(gate, &item))
                    .map_err(|source| EngineError::Io { what: "move item to decided/".into(), source })?;
                notes.push(format!(
                    "{}: already recorded {}; finished its move to decided/",
                    item.id,
                    rec.status.as_str()
                ));
            }
        }
        Ok(notes)
    }

    /// Runs [`Engine::recover_goal`] for every goal, each under its gate lock. A goal whose
    /// gate lock stays held is left for its next decision (a note says so), so one held lock
    /// never keeps the other goals from loading.
    ///
    /// # Errors
    /// The first failure other than a held gate lock.
    pub fn recover_all(&self) -> Result<Vec<String>, EngineError> {
        let mut notes = Vec::new();
        for g in &self.ws.goals {
            let gate = self.gate(&g.id)?;
            if !gate.applying().exists() {
                continue;
            }
            match gate_lock(&gate) {
                Ok(_l) => notes.extend(self.recover_goal(&g.id)?),
                Err(EngineError::Refused(why)) => notes.push(format!("{}: not recovered now: {why}", g.id)),
                Err(e) => return Err(e),
            }
        }
        Ok(notes)
    }
}

/// The marker at `path`, refused when unreadable or naming an unsafe item id.
fn read_marker(path: &Path) -> Result<Marker, EngineError> {
    let marker: Marker = crate::gate::fsutil::read_regular(path, crate::gate::fsutil::limits::RECORD, false)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(|| EngineError::Io {
            what: format!("apply marker {} is unreadable; inspect it by hand", path.display()),
            source: std::io::Error::other("unparseable marker"),
        })?;
    if !crate::gate::is_safe_id(&marker.item_id) {
        return Err(EngineError::Io {
            what: format!("apply marker {} names an unsafe item id; inspect it by hand", path.display()),
            source: std::io::Error::other("unsafe item id in marker"),
        });
    }
    Ok(marker)
}

pub(super) fn marker_path(gate: &GateDir, item_id: &str) -> PathBuf {
    gate.applying().join(format!("{item_id}.json"))
}

pub(super) fn write_marker(path: &Path, marker: &Marker) -> Result<(), EngineError> {
    let io = |source| EngineError::Io { what: format!("write apply marker {}", path.display()), source };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let bytes = serde_json::to_vec(marker).map_err(|e| io(std::io::Error::other(e)))?;
    atomic_write(path, &bytes).map_err(io)
}

/// The final result recorded for exactly this item (its id and payload digest), if any: the
/// item was decided, and only its move to `decided/` may be missing.
#[must_use]
pub fn decided_by<'a>(
    records: &'a [std::sync::Arc<crate::wire::ResultRecord>],
    item: &Item,
) -> Option<&'a crate::wire::ResultRecord> {
    records.iter().map(|r| &**r).rev().find(|r| {
        r.item_id == item.id
            && r.payload_digest == item.payload_digest
            && matches!(
                r.status,
                Status::Applied
                    | Status::AlreadyApplied
                    | Status::SkippedDuplicate
                    | Status::Skipped
                    | Status::Rejected
            )
    })
}

/// Whether the marker's change (base → applied, both kept in `gate/revisions/` before the
/// state write) is in `current`, a state a later write moved on: `Some(true)` when undoing
/// the change applies strictly to `current` and redoing it does not, `Some(false)` the other
/// way round, `None` when the texts are gone or it cannot be told.
fn change_present(gate: &crate::gate::GateDir, marker: &Marker, current: &str) -> Option<bool> {
    let store = gate.revisions();
    let base = store.load(&marker.base_revision).ok()??;
    let applied = store.load(&marker.applied_revision).ok()??;
    let redo = crate::diff::unified(&base, &applied, "state");
    let undo = crate::diff::unified(&applied, &base, "state");
    let present = super::patch::apply(current, &undo).is_ok();
    let absent = super::patch::apply(current, &redo).is_ok();
    match (present, absent) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    }
}

/// The item ids each results log names, kept per log (by its path) and extended by the
/// records appended since: building the set at every decision made each apply cost more
/// with every earlier decision (a sixth of the apply's own CPU at 1,000 recorded ones).
/// A set is reused only while the records it was built from are the prefix of the records
/// given, told by their first record being the very same (`Arc::ptr_eq`): a log read again
/// from its start is new records, and the set is built again.
#[derive(Debug, Default)]
pub(crate) struct NamedIds(std::sync::Mutex<std::collections::HashMap<std::path::PathBuf, Named>>);

/// One log's names: its first record (the set's records are the prefix of any records that
/// start with this very one), how many records the set holds, the ids.
type Named = (std::sync::Arc<crate::wire::ResultRecord>, usize, std::collections::HashSet<String>);

impl NamedIds {
    /// Those of `pending` (item files) whose id a record of `records` (the log at `log`)
    /// names, in the order given.
    pub(crate) fn among(
        &self,
        log: &Path,
        records: &[std::sync::Arc<crate::wire::ResultRecord>],
        pending: Vec<std::path::PathBuf>,
    ) -> Vec<std::path::PathBuf> {
        let Some(first) = records.first() else { return Vec::new() };
        if pending.is_empty() {
            return pending;
        }
        let Ok(mut kept) = self.0.lock() else {
            let named: std::collections::HashSet<&str> = records.iter().map(|r| r.item_id.as_str()).collect();
            return pending.into_iter().filter(|p| named.contains(Item::id_of(p).as_str())).collect();
        };
        let entry = kept.entry(log.to_owned()).or_insert_with(|| (first.clone(), 0, std::collections::HashSet::new()));
        if !std::sync::Arc::ptr_eq(&entry.0, first) || entry.1 > records.len() {
            *entry = (first.clone(), 0, std::collections::HashSet::new());
        }
        for r in &records[entry.1..] {
            if !entry.2.contains(r.item_id.as_str()) {
                entry.2.insert(r.item_id.clone());
            }
        }
        entry.1 = records.len();
        pending.into_iter().filter(|p| entry.2.contains(Item::id_of(p).as_str())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::NamedIds;
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    fn record(item_id: &str) -> Arc<crate::wire::ResultRecord> {
        Arc::new(
            serde_json::from_value(serde_json::json!({
                "schema_version": "writegate_result_v1", "recorded_at": "2026-12-04T00:00:00Z",
                "goal_id": "g", "item_id": item_id, "kind": "write_intent", "write_class": "todo",
                "writer_id": "w", "write_id": "w1", "idempotency_key": "k", "decision": "skip",
                "status": "skipped", "operator": "op", "expected_revision": null,
                "effect_digest": "e", "payload_digest": "p"
            }))
            .expect("record"),
        )
    }

    fn item(id: &str) -> PathBuf {
        PathBuf::from(format!("/inbox/{id}.json"))
    }

    #[test]
    fn named_ids_grow_with_the_log_and_are_built_again_for_a_log_read_anew() {
        let named = NamedIds::default();
        let log = Path::new("/gate/results.jsonl");
        let pending = || vec![item("a"), item("b"), item("c")];
        let mut records = vec![record("a")];
        assert_eq!(named.among(log, &records, pending()), vec![item("a")]);
        // Appended since: the set is extended, not rebuilt.
        records.push(record("c"));
        assert_eq!(named.among(log, &records, pending()), vec![item("a"), item("c")]);
        // The same log read again from its start (new records): only what it names now.
        let again = vec![record("b")];
        assert_eq!(named.among(log, &again, pending()), vec![item("b")]);
        // Another log is kept apart; no records or no pending items name nothing.
        assert_eq!(named.among(Path::new("/other/results.jsonl"), &records, pending()), vec![item("a"), item("c")]);
        assert!(named.among(log, &[], pending()).is_empty());
        assert!(named.among(log, &records, Vec::new()).is_empty());
    }
}
