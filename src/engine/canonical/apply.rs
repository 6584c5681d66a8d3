//! Applying a LoopX 2.x command item: the real `loopx` command, exactly as previewed, under
//! the gate lock (never under LoopX's own state lock, which LoopX takes itself).
//!
//! Order: fresh checks (the prediction at the current head) → write-ahead marker
//! `gate/applying/<item>.loopx` → the command → LoopX's answer mapped to a status
//! (`applied`; `replayed` → `already_applied`; `provider_revision_mismatch` →
//! `revision_conflict`; lease errors → `lease_conflict`;
//! `coordination_operation_identity_mismatch` → `idempotency_conflict`;
//! `lock_acquire_timeout` → `lock_busy`; anything else → `failed` with LoopX's code) → one
//! result record (with the operation id, the receipt's `request_sha256` when LoopX prints
//! it, the provider revision before and after, and whether the Markdown after equals the
//! prediction but for the commit stamps) → the item moves → the marker goes.
//!
//! A command that times out or whose process dies leaves the marker: the next decision on
//! the goal recovers first, asking LoopX's receipt for the operation id (`todo receipt`),
//! re-running a complete / supersede as a dry run (a landed one answers
//! `idempotent_replay`), or comparing the Markdown with the prediction (archive-completed,
//! refresh-state) — never running the command a second time.

use super::super::apply::Outcome;
use super::super::preview::{Predicted, Prepared};
use super::super::{Engine, EngineError, Item};
use super::argv::Verb;
use super::predict::{self, RUN_TIMEOUT};
use super::{LoopxCommand, is_replay, status_for_error};
use crate::gate::GateDir;
use crate::gate::fsutil::{durable_move, failpoint};
use crate::loopx::hash::revision_of_text;
use crate::wire::{ResultRecord, Status};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The write-ahead marker of one LoopX command run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(in crate::engine) struct RunMarker {
    pub(in crate::engine) item_id: String,
    /// The command's words (what ran).
    words: Vec<String>,
    operation_id: Option<String>,
    /// `sha256:` of the Markdown before the run.
    before_revision: String,
    /// The predicted Markdown with its stamps blanked (archive-completed / refresh-state
    /// recovery compares with it).
    predicted_unstamped_sha256: String,
    /// When the run started (UTC, RFC 3339).
    started_at: String,
    /// The record to append when the run is found to have committed.
    record: ResultRecord,
}

/// `gate/applying/<item>.loopx`.
pub(in crate::engine) fn run_marker_path(gate: &GateDir, item_id: &str) -> PathBuf {
    gate.applying().join(format!("{item_id}.loopx"))
}

fn io(what: String) -> impl FnOnce(std::io::Error) -> EngineError {
    move |source| EngineError::Io { what, source }
}

fn unstamped_sha(text: &str, base: &str, window: (DateTime<Utc>, DateTime<Utc>)) -> String {
    crate::loopx::hash::sha256_hex(predict::without_stamps(text, &predict::stamps(text, base, window)).as_bytes())
}

impl Engine {
    /// The record fields of a LoopX command item.
    pub(in crate::engine) fn loopx_record(
        &self,
        p: &Prepared,
        cmd: &LoopxCommand,
        decision: &str,
        status: Status,
        code: Option<&str>,
        reason: Option<String>,
    ) -> ResultRecord {
        ResultRecord {
            schema_version: crate::wire::RESULT_SCHEMA.into(),
            recorded_at: self.clock.utc_stamp(),
            goal_id: p.item.goal_id.clone(),
            item_id: p.item.id.clone(),
            kind: p.item.kind.into(),
            write_class: cmd.argv.verb.write_class().into(),
            writer_id: cmd.agent_id.clone().unwrap_or_default(),
            write_id: p.item.id.clone(),
            idempotency_key: cmd.idempotency_key(),
            decision: decision.into(),
            status,
            reason_code: code.map(str::to_owned),
            reason,
            operator: self.operator.clone(),
            expected_revision: Some(cmd.proposed_head.clone()),
            base_revision: p.current().map(revision_of_text),
            applied_revision: None,
            effect_digest: cmd.effect_digest(),
            payload_digest: p.item.payload_digest.clone(),
            override_of_effect_digest: None,
            applied_scopes: Vec::new(),
            lease_release: None,
            writeback: None,
            loopx: Some(json!({"command": cmd.argv.verb.words().join(" "), "operation_id": cmd.argv.operation_id()})),
            note: None,
            reverts: None,
        }
    }

    /// Applies a LoopX command item (module docs). Called by `decide` under the gate lock,
    /// after recovery.
    ///
    /// # Errors
    /// [`EngineError`] on I/O failure, a warn finding without confirmation, or a run whose
    /// outcome is unknown (timeout, no answer): then the marker stays for recovery.
    pub(in crate::engine) fn apply_loopx(
        &self,
        gate: &GateDir,
        item: &Item,
        cmd: &LoopxCommand,
        approval: &crate::engine::Approval,
    ) -> Result<Outcome, EngineError> {
        let p = self.prepare(item);
        let status = match &p.predicted {
            Predicted::Ready => Status::Applied,
            Predicted::Invalid => return Ok(Outcome::invalid(&p)),
            Predicted::Status(s) => *s,
        };
        if status != Status::Applied {
            return self.record_without_running(gate, item, &p, cmd, status);
        }
        crate::engine::approval::check_approval(&p, approval)?;
        let (Some(prediction), Some(before)) = (p.canonical.clone(), p.current_text.clone()) else {
            return Err(EngineError::Refused("no prediction to apply against; review the item again".into()));
        };
        let goal = self.goal(&item.goal_id)?.clone();
        let root = self.authority_root(&goal);
        // A command recomputed at the head runs with its expected revision set to the head
        // (LoopX checks it again when it commits).
        let run = LoopxCommand { argv: p.loopx_argv.clone().unwrap_or_else(|| cmd.argv.clone()), ..cmd.clone() };
        let mut words = run.argv.words();
        words.extend(predict::run_extras(run.argv.verb));
        let started_at = Utc::now();
        let marker = RunMarker {
            item_id: item.id.clone(),
            words: words.clone(),
            operation_id: cmd.argv.operation_id().map(str::to_owned),
            before_revision: revision_of_text(&before),
            predicted_unstamped_sha256: unstamped_sha(&prediction.after, &prediction.before, prediction.window),
            started_at: started_at.to_rfc3339(),
            record: crate::wire::ResultRecord {
                note: crate::engine::approval::note_of(approval),
                ..self.loopx_record(&p, cmd, "apply", Status::Applied, None, None)
            },
        };
        let marker_path = run_marker_path(gate, &item.id);
        write_run_marker(&marker_path, &marker)?;
        failpoint("after_loopx_marker");
        let answer = crate::loopx2::cli::run_json(&self.loopx, &self.ws.registry_path, &root, &words, RUN_TIMEOUT).map_err(|e| {
            EngineError::Refused(format!(
                "the outcome of `loopx {}` is unknown ({e}); the next decision on this goal asks LoopX before anything runs again",
                cmd.argv.verb.words().join(" ")
            ))
        })?;
        let finished = Utc::now();
        failpoint("after_loopx_run");
        let after = super::super::read_state(&goal.state_file).unwrap_or_default();
        let (status, code) = answer_status(&answer);
        // `None` where the Markdown was not predicted (the command runs a validator).
        let matches = prediction.exact.then(|| {
            status == Status::Applied && predict::same_but_stamps(&prediction, &after, &before, (started_at, finished))
        });
        let mut rec = marker.record.clone();
        rec.status = status;
        rec.reason_code.clone_from(&code);
        if p.recomputed.is_some() && status == Status::Applied {
            rec.reason_code = Some("rebased".into());
        }
        rec.recorded_at = self.clock.utc_stamp();
        if matches!(status, Status::Applied | Status::AlreadyApplied) {
            rec.applied_revision = Some(revision_of_text(&after));
        }
        rec.loopx = Some(loopx_fields(&run, &prediction.head, &answer, &after, matches));
        gate.results().append(&rec)?;
        failpoint("after_loopx_result");
        let final_ = matches!(status, Status::Applied | Status::AlreadyApplied | Status::SkippedDuplicate);
        if final_ {
            durable_move(&item.path, &Self::decided_path(gate, item)).map_err(io("move item to decided/".into()))?;
        }
        std::fs::remove_file(&marker_path).map_err(io("remove the LoopX run marker".into()))?;
        let message = run_message(&item.goal_id, status, code.as_deref(), &answer, matches);
        Ok(Outcome { status, message, record: Some(rec), item_moved: final_, lock: None, conflict: p.conflict.clone() })
    }

    /// The runtime root LoopX keeps `goal`'s authority under (the workspace's, else the
    /// default root where it was found).
    pub(in crate::engine) fn authority_root(&self, goal: &crate::loopx::registry::Goal) -> PathBuf {
        let state = super::super::read_state(&goal.state_file).ok();
        crate::loopx2::GoalAuthority::read(self.goal_place(goal), state.as_deref()).authority_root
    }

    /// A predicted conflict or duplicate: recorded without running anything.
    fn record_without_running(
        &self,
        gate: &GateDir,
        item: &Item,
        p: &Prepared,
        cmd: &LoopxCommand,
        status: Status,
    ) -> Result<Outcome, EngineError> {
        let code = p
            .conflict
            .as_ref()
            .and_then(|c| c.get("loopx_error_code"))
            .and_then(Value::as_str)
            .map_or(status.as_str(), |c| if status == Status::Failed { c } else { status.as_str() })
            .to_owned();
        let rec = self.loopx_record(p, cmd, "apply", status, Some(&code), None);
        gate.results().append(&rec)?;
        let final_ = status == Status::SkippedDuplicate;
        if final_ {
            durable_move(&item.path, &Self::decided_path(gate, item)).map_err(io("move item to decided/".into()))?;
        }
        let detail = p.checks.iter().find(|c| !c.ok).map(|c| c.detail.clone()).unwrap_or_default();
        Ok(Outcome {
            status,
            message: format!("{}: {detail}; nothing ran", status.as_str()),
            record: Some(rec),
            item_moved: final_,
            lock: None,
            conflict: p.conflict.clone(),
        })
    }

    /// Finishes or unwinds every LoopX run marker of `goal_id` (under the gate lock).
    ///
    /// # Errors
    /// [`EngineError`] on I/O failure or an unparseable marker (kept).
    pub(in crate::engine) fn recover_loopx_runs(
        &self,
        gate: &GateDir,
        goal_id: &str,
        records: &[std::sync::Arc<ResultRecord>],
        applying: &[std::path::PathBuf],
    ) -> Result<Vec<String>, EngineError> {
        let mut notes = Vec::new();
        for path in GateDir::markers_among(applying, "loopx") {
            let marker = read_run_marker(&path)?;
            notes.push(self.recover_run(gate, goal_id, records, &path, &marker)?);
        }
        Ok(notes)
    }

    fn recover_run(
        &self,
        gate: &GateDir,
        goal_id: &str,
        records: &[std::sync::Arc<ResultRecord>],
        path: &Path,
        marker: &RunMarker,
    ) -> Result<String, EngineError> {
        let id = &marker.item_id;
        let remove = || std::fs::remove_file(path).map_err(io("remove the LoopX run marker".into()));
        if records.iter().any(|r| {
            r.item_id == *id
                && r.decision == "apply"
                && r.payload_digest == marker.record.payload_digest
                && r.status != Status::LockBusy
        }) {
            remove()?;
            return Ok(format!("{id}: the interrupted LoopX command was already recorded"));
        }
        let goal = self.goal(goal_id)?.clone();
        let landed = self.landed(&goal, marker);
        match landed {
            Ok(true) => {
                let mut rec = marker.record.clone();
                rec.reason_code = Some("recovered_after_interrupted_loopx_run".into());
                rec.recorded_at = self.clock.utc_stamp();
                if let Ok(now) = super::super::read_state(&goal.state_file) {
                    rec.applied_revision = Some(revision_of_text(&now));
                }
                gate.results().append(&rec)?;
                let item_path = gate.inbox().join(format!("{id}.json"));
                if item_path.exists() {
                    let item = Item::read(&item_path, goal_id);
                    durable_move(&item_path, &Self::decided_path(gate, &item))
                        .map_err(io("move item to decided/".into()))?;
                }
                remove()?;
                Ok(format!(
                    "{id}: the interrupted `loopx {}` had committed; recorded it",
                    marker.words.iter().take(2).cloned().collect::<Vec<_>>().join(" ")
                ))
            }
            Ok(false) => {
                remove()?;
                Ok(format!("{id}: the interrupted LoopX command never committed; the item stays pending"))
            }
            Err(why) => Ok(format!(
                "{id}: cannot tell whether the interrupted LoopX command committed ({why}); the marker stays in gate/applying and the item is held: inspect by hand"
            )),
        }
    }

    /// Whether the run a marker describes committed: LoopX's receipt for its operation id,
    /// a dry run answering `idempotent_replay` (complete / supersede), or the Markdown
    /// against the prediction (archive-completed, refresh-state).
    fn landed(&self, goal: &crate::loopx::registry::Goal, marker: &RunMarker) -> Result<bool, String> {
        let root = self.authority_root(goal);
        let verb = Verb::from_words(
            marker.words.first().map(String::as_str).unwrap_or_default(),
            marker.words.get(1).map(String::as_str),
        )
        .ok_or("the marker names no LoopX command")?;
        if let Some(op) = &marker.operation_id {
            let args = ["todo", "receipt", "--goal-id", &goal.id, "--operation-id", op].map(str::to_owned);
            let answer = crate::loopx2::cli::run_json(&self.loopx, &self.ws.registry_path, &root, &args, RUN_TIMEOUT)?;
            return match answer.get("status").and_then(Value::as_str) {
                Some("found") => Ok(true),
                Some("missing") => Ok(false),
                other => Err(format!("`loopx todo receipt` answered {other:?}")),
            };
        }
        if matches!(verb, Verb::TodoComplete | Verb::TodoSupersede) {
            let mut args = marker.words.clone();
            args.push("--dry-run".into());
            let answer = crate::loopx2::cli::run_json(&self.loopx, &self.ws.registry_path, &root, &args, RUN_TIMEOUT)?;
            if answer.get("ok").and_then(Value::as_bool) != Some(true) {
                return Err(format!(
                    "its dry run is refused now: {}",
                    answer.get("error").and_then(Value::as_str).unwrap_or("?")
                ));
            }
            return Ok(is_replay(&answer));
        }
        let now = super::super::read_state(&goal.state_file)?;
        if revision_of_text(&now) == marker.before_revision {
            return Ok(false);
        }
        let started =
            DateTime::parse_from_rfc3339(&marker.started_at).map_err(|e| format!("marker start time: {e}"))?;
        let window = (started.with_timezone(&Utc), Utc::now());
        let base = self
            .gate(&goal.id)
            .ok()
            .and_then(|g| g.revisions().load(&marker.before_revision).ok().flatten())
            .unwrap_or_default();
        if unstamped_sha(&now, &base, window) == marker.predicted_unstamped_sha256 {
            return Ok(true);
        }
        Err("the Markdown is neither the state before nor the prediction".into())
    }
}

/// writegate's status and reason code for LoopX's answer to a real run.
fn answer_status(answer: &Value) -> (Status, Option<String>) {
    let ok = answer.get("ok").and_then(Value::as_bool) == Some(true);
    if ok && is_replay(answer) {
        return (Status::AlreadyApplied, Some("loopx_replayed".into()));
    }
    if ok {
        let pending = answer.get("projection_delivery").and_then(Value::as_str) == Some("pending");
        return (Status::Applied, pending.then(|| "committed_display_pending".to_owned()));
    }
    let code =
        answer.get("error_code").or_else(|| answer.get("reason_code")).and_then(Value::as_str).unwrap_or("failed");
    (status_for_error(code).0, Some(code.to_owned()))
}

/// The record's `loopx` object.
fn loopx_fields(cmd: &LoopxCommand, head_before: &str, answer: &Value, after: &str, matches: Option<bool>) -> Value {
    let request = answer.pointer("/original_receipt/request_sha256").cloned().unwrap_or(Value::Null);
    json!({
        "command": cmd.argv.verb.words().join(" "),
        "operation_id": cmd.argv.operation_id().map(str::to_owned).or_else(|| answer.get("operation_id").and_then(Value::as_str).map(str::to_owned)),
        "request_sha256": request,
        "provider_revision_before": head_before,
        "provider_revision_after": answer.get("provider_revision"),
        "loopx_status": answer.get("status"),
        "error_code": answer.get("error_code"),
        "projection_delivery": answer.get("projection_delivery"),
        "markdown_revision_after": revision_of_text(after),
        "markdown_matches_prediction": matches,
    })
}

fn run_message(goal_id: &str, status: Status, code: Option<&str>, answer: &Value, matches: Option<bool>) -> String {
    match (status, code) {
        (Status::Applied, Some("committed_display_pending")) => format!(
            "committed by LoopX; the Markdown display is pending (its state lock was busy): `loopx todo project-markdown --goal-id {goal_id} --provider-revision {} --execute` redelivers it (so does LoopX's next todo commit)",
            answer.get("provider_revision").and_then(Value::as_str).unwrap_or("<head>")
        ),
        (Status::Applied, _) if matches == Some(true) => {
            "applied by LoopX; the Markdown is the prediction (commit stamps aside)".into()
        }
        (Status::Applied, _) if matches.is_none() => {
            "applied by LoopX (its validation command ran; the Markdown was not predicted)".into()
        }
        (Status::Applied, _) => "applied by LoopX, but the Markdown differs from the prediction: the state moved during the run (see the Log tab)".into(),
        (Status::AlreadyApplied, _) => "LoopX replayed it: already applied, no second commit".into(),
        (s, c) => format!(
            "{}: LoopX said {}: {}",
            s.as_str(),
            c.unwrap_or("failed"),
            answer.get("error").and_then(Value::as_str).unwrap_or("(no message)")
        ),
    }
}

fn write_run_marker(path: &Path, marker: &RunMarker) -> Result<(), EngineError> {
    let what = || format!("write LoopX run marker {}", path.display());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io(what()))?;
    }
    let bytes = serde_json::to_vec(marker).map_err(|e| io(what())(std::io::Error::other(e)))?;
    crate::gate::fsutil::atomic_write(path, &bytes).map_err(io(what()))
}

fn read_run_marker(path: &Path) -> Result<RunMarker, EngineError> {
    let unreadable = || EngineError::Io {
        what: format!("LoopX run marker {} is unreadable; inspect it by hand", path.display()),
        source: std::io::Error::other("unparseable marker"),
    };
    let marker: RunMarker = crate::gate::fsutil::read_regular(path, crate::gate::fsutil::limits::RECORD, false)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(unreadable)?;
    let named = path.file_stem().is_some_and(|s| *s == *marker.item_id);
    // The words are checked as an item's are: recovery may run them as a dry run.
    let words_ok = super::argv::LoopxArgv::parse(&marker.words).is_ok();
    if !crate::gate::is_safe_id(&marker.item_id) || !named || !words_ok || marker.record.item_id != marker.item_id {
        return Err(unreadable());
    }
    Ok(marker)
}
