//! The LoopX 2.x backend: how a write to a canonical goal (LOOPX2.md §1) is proposed,
//! previewed and applied. On such a goal the authority is LoopX's SQLite store, so the only
//! writer is LoopX itself: writegate gates the real `loopx` command line.
//!
//! - [`argv`]: the LoopX 2.1.1 command lines accepted, checked flag by flag.
//! - `propose` ([`Engine::propose_loopx`]): the agent's command line, an operation id fixed
//!   for it, the head provider revision it was proposed against and LoopX's own
//!   `--dry-run` answer, kept in a `writegate_loopx_command_v1` inbox item.
//! - [`predict`]: the exact Markdown it would write, from running it on a scratch copy.
//! - `prepare` (here): the checks — LoopX's answer on the copy (revision, lease, replay,
//!   identity), the head against the proposed revision, the lease proof, projection
//!   health, the state lock holder, the boundary scan of its texts and added lines.
//! - [`apply`]: the real command under the gate lock, its answer mapped to writegate's
//!   statuses, the record, and crash recovery through LoopX's receipts.
//!
//! Statuses, records, keys and views are the same as for the 0.5.x Markdown writer.

pub mod apply;
pub mod argv;
pub mod predict;
mod propose;
mod recompute;

use super::preview::{GoalSnapshot, Predicted, Prepared};
use super::{Engine, Item};
use crate::wire::Status;
use argv::LoopxArgv;
use serde_json::Value;
use std::sync::{Arc, Mutex};

pub use propose::LoopxProposed;

/// `schema_version` of a LoopX 2.x command item.
pub const SCHEMA: &str = "writegate_loopx_command_v1";

/// A parsed LoopX 2.x command item.
#[derive(Debug, Clone)]
pub struct LoopxCommand {
    /// The command line (checked again on every read: a hand-written item gets no more
    /// than `propose` would accept).
    pub argv: LoopxArgv,
    /// The acting agent (`--agent-id`, else `--claimed-by`), if any.
    pub agent_id: Option<String>,
    /// The head provider revision the command was proposed against.
    pub proposed_head: String,
    /// LoopX's `--dry-run` answer at propose time.
    pub dry_run: Value,
    /// The change predicted at propose time (stamps blanked), if it was.
    pub proposed_change: Option<String>,
    /// The document (what the scan reads).
    pub payload: Value,
}

impl LoopxCommand {
    /// The idempotency key recorded for it: `loopx-operation:<operation id>`, else
    /// `loopx-command:<sha256 of its words>`.
    #[must_use]
    pub fn idempotency_key(&self) -> String {
        self.argv.operation_id().map_or_else(
            || format!("loopx-command:{}", crate::loopx::hash::sha256_hex(self.argv.words().join("\0").as_bytes())),
            |op| format!("loopx-operation:{op}"),
        )
    }

    /// The effect digest: `sha256:` of its words.
    #[must_use]
    pub fn effect_digest(&self) -> String {
        format!("sha256:{}", crate::loopx::hash::sha256_hex(self.argv.words().join("\0").as_bytes()))
    }
}

/// Parses a [`SCHEMA`] document.
///
/// # Errors
/// A message naming the field that is missing or refused.
pub fn parse(doc: &Value) -> Result<LoopxCommand, String> {
    let words: Vec<String> = doc
        .get("argv")
        .and_then(Value::as_array)
        .ok_or("argv is missing")?
        .iter()
        .map(|w| w.as_str().map(str::to_owned).ok_or("argv holds a non-string"))
        .collect::<Result<_, _>>()?;
    let argv = LoopxArgv::parse(&words)?;
    if argv.verb.operation_flag().is_some() && argv.operation_id().is_none() {
        return Err(format!(
            "{} is missing: propose fixes one for every item",
            argv.verb.operation_flag().unwrap_or("")
        ));
    }
    let proposed_head = doc
        .get("proposed_provider_revision")
        .and_then(Value::as_str)
        .ok_or("proposed_provider_revision is missing")?
        .to_owned();
    let agent_id = argv.value("--agent-id").or_else(|| argv.value("--claimed-by")).map(str::to_owned);
    Ok(LoopxCommand {
        argv,
        agent_id,
        proposed_head,
        dry_run: doc.get("dry_run").cloned().unwrap_or(Value::Null),
        proposed_change: doc.get("proposed_change").and_then(Value::as_str).map(str::to_owned),
        payload: doc.clone(),
    })
}

/// A prediction or why there is none, shared between the cache and its readers.
pub type SharedPrediction = Arc<Result<predict::Prediction, String>>;

/// Predictions kept per item, its bytes, the head and the Markdown they were made on:
/// one LoopX run per item and head, whoever asks.
#[derive(Debug, Default)]
pub struct PredictionCache {
    entries: Mutex<std::collections::HashMap<String, (String, SharedPrediction)>>,
}

impl PredictionCache {
    fn get_or(
        &self,
        item: &Item,
        rebased: bool,
        key: String,
        make: impl FnOnce() -> Result<predict::Prediction, String>,
    ) -> Arc<Result<predict::Prediction, String>> {
        let slot = format!("{}/{}{}", item.goal_id, item.id, if rebased { "#rebased" } else { "" });
        if let Ok(map) = self.entries.lock()
            && let Some((k, p)) = map.get(&slot)
            && *k == key
        {
            return p.clone();
        }
        let fresh = Arc::new(make());
        if let Ok(mut map) = self.entries.lock() {
            map.insert(slot, (key, fresh.clone()));
        }
        fresh
    }
}

/// writegate's status for a LoopX error code (LOOPX2.md §3), with the check it fails.
#[must_use]
pub fn status_for_error(code: &str) -> (Status, &'static str) {
    match code {
        "provider_revision_mismatch" => (Status::RevisionConflict, "revision"),
        "coordination_operation_identity_mismatch" => (Status::IdempotencyConflict, "idempotency"),
        "lock_acquire_timeout" => (Status::LockBusy, "lock"),
        c if c.contains("lease") || matches!(c, "version_mismatch" | "claim_owner_mismatch") => {
            (Status::LeaseConflict, "lease")
        }
        _ => (Status::Failed, "loopx"),
    }
}

/// True when LoopX answered that the command was already applied (a replay: no commit).
#[must_use]
pub fn is_replay(answer: &Value) -> bool {
    answer.get("status").and_then(Value::as_str) == Some("replayed")
        || answer.get("idempotent_replay").and_then(Value::as_bool) == Some(true)
}

impl Engine {
    /// The checks of a LoopX 2.x command item (module docs); runs at most one LoopX command
    /// (the prediction), cached per item, head and Markdown.
    ///
    /// A command LoopX refuses as stale (`provider_revision_mismatch`: its
    /// `--update-expected-provider-revision` is not the head) is recomputed at the head
    /// (issue 14) when the change LoopX would make there is the change predicted when it was
    /// proposed (the same changed lines, commit stamps aside): then it is predicted and
    /// applied with the flag set to the head — LoopX still checks that revision when it
    /// commits — and recorded `rebased`.
    pub(super) fn prepare_canonical(&self, item: &Item, cmd: &LoopxCommand, snap: &GoalSnapshot) -> Prepared {
        let mut p = self.prepare_command(item, cmd, snap, false);
        if p.predicted == Predicted::Status(Status::RevisionConflict) {
            match self.recompute_command(item, cmd, snap) {
                Ok(rebased) => return rebased,
                Err(why) => p.stale_reason = Some(why),
            }
        }
        p
    }

    /// The checks of `cmd` as it stands (`rebased`: its expected revision set to the head).
    fn prepare_command(&self, item: &Item, cmd: &LoopxCommand, snap: &GoalSnapshot, rebased: bool) -> Prepared {
        let mut p = Prepared::new(item);
        p.authority = snap.authority.as_deref().map(|a| a.kind.as_str());
        p.check("schema", true, format!("{SCHEMA}: loopx {}", cmd.argv.verb.words().join(" ")), None);
        let Some((goal, current, auth)) = goal_of(&mut p, item, cmd, snap) else { return p };
        p.check("goal", true, format!("{} → {} (LoopX 2.x)", goal.id, goal.state_file_rel), None);
        p.target_text = cmd
            .argv
            .value("--todo-id")
            .and_then(|id| auth.head().and_then(|h| h.todos.iter().find(|t| t.todo_id == id).map(|t| t.text.clone())));
        p.current_text = Some(std::sync::Arc::clone(&current));
        let head = auth.head().map(|h| h.provider_revision.clone()).unwrap_or_default();
        let prediction = self.prediction_for(item, cmd, &goal, auth, (&head, snap.revision.as_deref()), rebased);
        let prediction = match prediction.as_ref() {
            Ok(pr) if pr.before == *current => pr.clone(),
            Ok(_) => {
                // LoopX (or someone) was writing the goal while it was read and copied: a
                // passing state, like a held lock, not a failure of the item.
                p.check(
                    "loopx",
                    false,
                    "the goal changed while it was predicted (LoopX is writing it); it is predicted again when the write ends",
                    Some(Predicted::Status(Status::LockBusy)),
                );
                return p;
            }
            Err(e) => {
                p.check("loopx", false, format!("no prediction: {e}"), Some(Predicted::Status(Status::Failed)));
                return p;
            }
        };
        Self::judge_answer(&mut p, cmd, &prediction, &head);
        check_lease_proof(&mut p, cmd, auth, self.clock.now().with_timezone(&chrono::Utc));
        match auth.projection.as_ref().map(|(h, _)| *h) {
            Some(crate::loopx2::Projection::Broken) => p.check(
                "projection",
                false,
                "LoopX cannot render this goal's Markdown (see `writegate check`); fix the file first",
                Some(Predicted::Status(Status::Failed)),
            ),
            Some(crate::loopx2::Projection::Pending) => {
                p.check("projection", true, "pending: this commit redelivers it", None);
            }
            _ => p.check("projection", true, "current", None),
        }
        super::checks::check_lock(&mut p, &goal.state_file);
        if prediction.exact {
            let after = std::sync::Arc::new(prediction.after.clone());
            p.diff_lines(&current, &after);
            p.proposed_text = Some(after);
        }
        let extra: Vec<crate::wire::Finding> =
            (!prediction.exact).then(|| validator_finding(cmd)).into_iter().collect();
        check_scan(&mut p, cmd, snap.allowlist.as_deref().unwrap_or_default(), extra);
        if p.conflict.is_none() && !cmd.proposed_head.is_empty() && head != cmd.proposed_head {
            p.conflict = Some(moved_since(cmd, &head, &prediction));
        }
        p.canonical = Some(Arc::new(prediction));
        p
    }

    /// The cached prediction of `cmd` at `head` and the Markdown revision `md` (made now if
    /// there is none): a real run on a scratch copy, or LoopX's live dry run for a command
    /// that would run a validation command.
    /// A rebased command's prediction has a slot of its own, so the refused one and the
    /// rebased one do not push each other out.
    fn prediction_for(
        &self,
        item: &Item,
        cmd: &LoopxCommand,
        goal: &crate::loopx::registry::Goal,
        auth: &crate::loopx2::GoalAuthority,
        (head, md): (&str, Option<&str>),
        rebased: bool,
    ) -> SharedPrediction {
        let key = format!("{}|{head}|{}|{}", item.payload_digest, md.unwrap_or_default(), cmd.effect_digest());
        let root = auth.authority_root.clone();
        let runs_validation = runs_validation(&cmd.argv, auth);
        self.predictions.get_or(item, rebased, key, || {
            if runs_validation {
                predict::dry_run_only(&self.loopx, &self.ws, &root, goal, &cmd.argv, head)
            } else {
                predict::predict(&self.loopx, &self.ws, &root, goal, &cmd.argv)
            }
        })
    }

    /// Reads LoopX's answer on the copy into the revision / idempotency / lease checks.
    fn judge_answer(p: &mut Prepared, cmd: &LoopxCommand, pr: &predict::Prediction, head: &str) {
        let moved = if head == cmd.proposed_head || cmd.proposed_head.is_empty() {
            format!("proposed at {head}, the head")
        } else {
            format!("moved since: proposed at {}, head now {head}; predicted at the head", cmd.proposed_head)
        };
        let ok = pr.answer.get("ok").and_then(Value::as_bool) == Some(true);
        if ok && is_replay(&pr.answer) {
            p.check("revision", true, moved, None);
            let op = cmd.argv.operation_id().unwrap_or("its derived operation id");
            p.check(
                "idempotency",
                false,
                format!("LoopX already holds this command ({op}): applying replays it, no second commit"),
                Some(Predicted::Status(Status::SkippedDuplicate)),
            );
            return;
        }
        if ok {
            p.check("revision", true, moved, None);
            p.check(
                "idempotency",
                true,
                cmd.argv.operation_id().map_or("no operation id (LoopX derives or keeps none)".into(), |o| {
                    format!("operation id {o} not committed yet")
                }),
                None,
            );
            p.check("loopx", true, format!("LoopX on a copy: {}", answer_summary(&pr.answer)), None);
            return;
        }
        let code = pr
            .answer
            .get("error_code")
            .or_else(|| pr.answer.get("reason_code"))
            .and_then(Value::as_str)
            .unwrap_or("failed");
        let error = pr.answer.get("error").and_then(Value::as_str).unwrap_or("LoopX refused the command");
        let (status, check) = status_for_error(code);
        if check != "revision" {
            p.check("revision", true, moved, None);
        }
        p.check(check, false, format!("LoopX: {code}: {error}"), Some(Predicted::Status(status)));
        p.conflict = Some(serde_json::json!({"kind": status.as_str(), "loopx_error_code": code, "loopx_error": error}));
    }
}

impl Engine {
    /// For a narrative edit of a canonical goal that passed the region rule: LoopX must still
    /// parse the result and keep it (`todo project-markdown --dry-run` on a scratch copy
    /// holding it: no error, `changed: false`), else `failed`. Cached like a prediction.
    pub(super) fn check_loopx_keeps(
        &self,
        p: &mut Prepared,
        goal: &crate::loopx::registry::Goal,
        auth: &crate::loopx2::GoalAuthority,
        after: &str,
    ) {
        let head = auth.head().map(|h| h.provider_revision.clone()).unwrap_or_default();
        let key = format!("narrative|{}|{head}|{}", p.item.payload_digest, crate::loopx::hash::revision_of_text(after));
        let root = auth.authority_root.clone();
        let verdict = self.predictions.get_or(&p.item, false, key, || {
            let answer = predict::project_dry_run(&self.loopx, &self.ws, &root, goal, after)?;
            Ok(predict::Prediction {
                before: String::new(),
                after: String::new(),
                answer,
                head: head.clone(),
                window: (chrono::Utc::now(), chrono::Utc::now()),
                exact: true,
            })
        });
        let (ok, detail) = match verdict.as_ref() {
            Ok(v) if v.answer.get("ok").and_then(Value::as_bool) == Some(true) && v.answer.get("changed").and_then(Value::as_bool) == Some(false) => {
                (true, "LoopX parses the edited Markdown and its next commit keeps it (todo project-markdown --dry-run on a copy)".to_owned())
            }
            Ok(v) if v.answer.get("ok").and_then(Value::as_bool) == Some(true) => {
                (false, "LoopX would re-render the todo regions of the edited Markdown (todo project-markdown --dry-run on a copy: changed)".to_owned())
            }
            Ok(v) => (false, format!("LoopX cannot project into the edited Markdown: {}", v.answer.get("error").and_then(Value::as_str).unwrap_or("refused"))),
            Err(e) => (false, format!("LoopX's check of the edited Markdown could not run: {e}")),
        };
        p.check("loopx", ok, detail, Some(Predicted::Status(Status::Failed)));
    }
}

/// True when running `argv` for real would run a validation command (see
/// [`predict::runs_validation`]), judged on the authority's record of its todo.
fn runs_validation(argv: &LoopxArgv, auth: &crate::loopx2::GoalAuthority) -> bool {
    let validated = argv.value("--todo-id").is_some_and(|t| {
        auth.head().is_some_and(|h| {
            h.todos.iter().any(|todo| {
                todo.todo_id == t
                    && todo.record.get("completion_validation_required").and_then(Value::as_bool) == Some(true)
            })
        })
    });
    predict::runs_validation(argv, validated)
}

/// The `warn` finding of a command whose Markdown is not predicted because it would run a
/// validation command.
fn validator_finding(cmd: &LoopxCommand) -> crate::wire::Finding {
    crate::wire::Finding {
        rule_id: "runs_validation_command".into(),
        category: "structure".into(),
        severity: "warn".into(),
        location: "/argv".into(),
        sample_masked: cmd.argv.value("--todo-id").unwrap_or_default().to_owned(),
        reason: "LoopX runs the todo's validation command when this command completes it, on the live project: the Markdown is not predicted (the command would run outside a copy); LoopX's dry run admits it, and apply runs the real command, validator included".into(),
        fingerprint: "runs_validation_command".into(),
    }
}

/// What moved since a command was proposed: the head, and how its change moved with it
/// (`moved_diff`: the change predicted at propose time → the change predicted now, both
/// with their commit stamps blanked; empty when it is the same change).
fn moved_since(cmd: &LoopxCommand, head: &str, now: &predict::Prediction) -> Value {
    let current = predict::change_text(now);
    let moved = cmd.proposed_change.as_deref().map(|then| crate::diff::unified(then, &current, "change"));
    serde_json::json!({
        "kind": "moved_since",
        "proposed_provider_revision": cmd.proposed_head,
        "provider_revision": head,
        "same_change": moved.as_deref().map(str::is_empty),
        "moved_diff": moved,
    })
}

/// One line of what LoopX's answer on the copy says it did: its status, the todo, a lease it
/// holds or releases, a terminal transition, a run it appends.
#[must_use]
pub fn answer_summary(answer: &Value) -> String {
    let s = |p: &str| answer.pointer(p).and_then(Value::as_str);
    let mut parts = vec![s("/status").unwrap_or("ok").to_owned()];
    if let Some(t) = s("/todo_id") {
        parts.push(format!("todo {t}"));
    }
    if let (Some(owner), Some(v)) = (s("/lease/owner"), answer.pointer("/lease/version").and_then(Value::as_i64)) {
        parts.push(format!("hard lease {owner} v{v} until {}", s("/lease/expires_at").unwrap_or("?")));
    }
    if let Some(next) = s("/terminal_decision/next_todo_status") {
        let lease = s("/terminal_decision/next_lease/status").map_or(String::new(), |l| format!(", lease {l}"));
        parts.push(format!("todo → {next}{lease}"));
    }
    if answer.get("appended").and_then(Value::as_bool) == Some(true) {
        parts.push(format!(
            "appends a LoopX run ({}, recommended action {:?}); LoopX 2.1.1 leaves the Markdown as it is",
            s("/classification").unwrap_or("run"),
            s("/recommended_action").unwrap_or("")
        ));
    }
    parts.join("; ")
}

/// The goal, its Markdown and its (canonical) authority for a command item, or `None`
/// after the failing `goal` check: another goal's command, an unknown goal, an unreadable
/// state, or a goal that is not a LoopX 2.x goal.
fn goal_of<'s>(
    p: &mut Prepared,
    item: &Item,
    cmd: &LoopxCommand,
    snap: &'s GoalSnapshot,
) -> Option<(crate::loopx::registry::Goal, std::sync::Arc<String>, &'s crate::loopx2::GoalAuthority)> {
    let fail = |p: &mut Prepared, why: String, status: Predicted| {
        p.check("goal", false, why.clone(), Some(status));
        p.invalid_reason = Some(why);
    };
    let goal = match &snap.goal {
        Ok(g) if cmd.argv.goal_id() == item.goal_id => g.clone(),
        Ok(_) => {
            let why =
                format!("--goal-id {} is not the goal whose inbox holds it ({})", cmd.argv.goal_id(), item.goal_id);
            fail(p, why, Predicted::Invalid);
            return None;
        }
        Err(e) => {
            fail(p, e.clone(), Predicted::Invalid);
            return None;
        }
    };
    let current = match &snap.state {
        Ok(t) => t.clone(),
        Err(e) => {
            fail(p, e.clone(), Predicted::Status(Status::Failed));
            return None;
        }
    };
    let Some(auth) = snap.authority.as_deref().filter(|a| a.is_canonical()) else {
        let why = format!("goal {} is not a LoopX 2.x goal: a LoopX 2.x command item cannot apply to it", goal.id);
        fail(p, why, Predicted::Status(Status::Failed));
        return None;
    };
    Some((goal, current, auth))
}

/// The lease proof (`--task-lease-idempotency-key` + `--task-lease-expected-version`)
/// against the authority's lease of the todo: owner, version and expiry.
fn check_lease_proof(
    p: &mut Prepared,
    cmd: &LoopxCommand,
    auth: &crate::loopx2::GoalAuthority,
    now: chrono::DateTime<chrono::Utc>,
) {
    let (Some(todo), Some(version)) = (cmd.argv.value("--todo-id"), cmd.argv.value("--task-lease-expected-version"))
    else {
        return;
    };
    let lease = auth.active_leases(now).into_iter().find(|(l, _)| l.todo_id == todo);
    let Some((lease, expired)) = lease else {
        p.check(
            "lease",
            false,
            format!("no hard lease on {todo} for version {version}"),
            Some(Predicted::Status(Status::LeaseConflict)),
        );
        return;
    };
    let left = chrono::DateTime::parse_from_rfc3339(&lease.expires_at).map(|t| t.with_timezone(&chrono::Utc) - now);
    let countdown = match left {
        Ok(d) if d.num_seconds() > 0 => format!("expires in {} min", (d.num_seconds() + 59) / 60),
        _ => "expired".to_owned(),
    };
    let ok = lease.version.to_string() == version && !expired;
    let detail = format!("{} v{} (proof v{version}), {countdown}", lease.owner, lease.version);
    p.check("lease", ok, detail, Some(Predicted::Status(Status::LeaseConflict)));
}

/// The boundary scan of the command's texts and the predicted added lines.
fn check_scan(
    p: &mut Prepared,
    cmd: &LoopxCommand,
    allow: &[crate::gate::allowlist::AllowEntry],
    mut findings: Vec<crate::wire::Finding>,
) {
    let texts: serde_json::Map<String, Value> =
        cmd.argv.texts().into_iter().map(|(n, v)| (n.to_owned(), Value::String(v.to_owned()))).collect();
    crate::scan::scan_json(&Value::Object(texts), "/argv", crate::scan::Policy::Local, &mut findings);
    crate::scan::scan_lines(&p.added, crate::scan::Policy::Local, &mut findings);
    crate::gate::allowlist::apply(&mut findings, allow);
    let blocks = findings.iter().filter(|f| f.severity == "block").count();
    let warns = findings.iter().filter(|f| f.severity == "warn").count();
    p.findings = findings;
    p.check(
        "boundary",
        blocks == 0,
        format!("{blocks} block, {warns} warn finding(s) (policy local)"),
        Some(Predicted::Status(Status::BoundaryRejected)),
    );
}
