//! Versioned JSON shapes shared by CLI output and the results log. Every top-level
//! record carries a `schema_version`; tests parse CLI output back into these types.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `schema_version` of [`ResultRecord`].
pub const RESULT_SCHEMA: &str = "writegate_result_v1";
/// `schema_version` of [`Preview`].
pub const PREVIEW_SCHEMA: &str = "writegate_preview_v1";
/// `schema_version` of [`ListRow`] documents.
pub const LIST_SCHEMA: &str = "writegate_list_v1";
/// `schema_version` of `writegate log --json` documents.
pub const LOG_SCHEMA: &str = "writegate_log_v1";
/// `schema_version` of [`GoalStatus`] documents.
pub const STATUS_SCHEMA: &str = "writegate_status_v1";

/// Result statuses (seed vocabulary plus `skipped` / `rejected` operator decisions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Written.
    Applied,
    /// The state already holds this write's effect.
    AlreadyApplied,
    /// Same idempotency key and effect as a recorded apply.
    SkippedDuplicate,
    /// The operator chose skip.
    Skipped,
    /// The operator chose reject (with a reason).
    Rejected,
    /// The state-file lock stayed busy for the whole wait.
    LockBusy,
    /// `expected_revision` is not the current revision.
    RevisionConflict,
    /// A foreign or expired soft claim / hard lease.
    LeaseConflict,
    /// Same idempotency key, different effect.
    IdempotencyConflict,
    /// A `block` scan finding.
    BoundaryRejected,
    /// The write could not be done (I/O, LoopX would refuse it, …).
    Failed,
    /// The operator marked an expired hard lease released (the item stays pending).
    LeaseReleased,
    /// Preview only (never recorded as a decision).
    PreviewOnly,
}

impl Status {
    /// The snake_case name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Applied => "applied",
            Self::AlreadyApplied => "already_applied",
            Self::SkippedDuplicate => "skipped_duplicate",
            Self::Skipped => "skipped",
            Self::Rejected => "rejected",
            Self::LockBusy => "lock_busy",
            Self::RevisionConflict => "revision_conflict",
            Self::LeaseConflict => "lease_conflict",
            Self::IdempotencyConflict => "idempotency_conflict",
            Self::BoundaryRejected => "boundary_rejected",
            Self::Failed => "failed",
            Self::LeaseReleased => "lease_released",
            Self::PreviewOnly => "preview_only",
        }
    }

    /// Conflicts: the item stays pending and needs an explicit resolution.
    #[must_use]
    pub fn is_conflict(self) -> bool {
        matches!(self, Self::LockBusy | Self::RevisionConflict | Self::LeaseConflict | Self::IdempotencyConflict)
    }
}

/// One line of `gate/results.jsonl`: ids, keys, revisions, status, reason code, operator,
/// timestamps and digests, never the payload body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultRecord {
    /// [`RESULT_SCHEMA`].
    pub schema_version: String,
    /// UTC, RFC 3339.
    pub recorded_at: String,
    /// Goal.
    pub goal_id: String,
    /// Inbox item id (file stem).
    pub item_id: String,
    /// `write_intent` | `writeback`.
    pub kind: String,
    /// The packet's `write_class`.
    pub write_class: String,
    /// The packet's `writer_id`.
    pub writer_id: String,
    /// The packet's `write_id`.
    pub write_id: String,
    /// The packet's `idempotency_key`.
    pub idempotency_key: String,
    /// `apply` | `skip` | `reject` | `recover` | `release_lease`.
    pub decision: String,
    /// Outcome.
    pub status: Status,
    /// Machine reason (e.g. `revision_conflict`, `operator_reject`, `recovered_after_crash`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_code: Option<String>,
    /// Operator-typed reason (reject), sanitised and bounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Who decided (`$USER` or `--operator`).
    pub operator: String,
    /// `expected_revision` of the item.
    pub expected_revision: Option<String>,
    /// The revision found under the lock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_revision: Option<String>,
    /// The revision written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied_revision: Option<String>,
    /// Digest of the proposal (what the write does).
    pub effect_digest: String,
    /// Digest of the whole item file.
    pub payload_digest: String,
    /// With an idempotency override: the effect digest of the earlier apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub override_of_effect_digest: Option<String>,
    /// Write scopes actually written (e.g. `["active_state"]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applied_scopes: Vec<String>,
    /// With `decision: "release_lease"`: the lease released (`todo_id`, `owner`, `version`,
    /// `lease_epoch`, `idempotency_key`, `expires_at`, `released_at`) and the SHA-256 of the
    /// lease file before and after (`before_sha256`, `after_sha256`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_release: Option<serde_json::Value>,
    /// For a writeback: `write_class`, `runtime_id`, `session_id`, `adapter`,
    /// `runtime_event_id` (when the runtime made one), `runtime_status` and `runtime_reason`
    /// (what the runtime answered), `loopx_run_generated_at` (the result run appended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writeback: Option<serde_json::Value>,
    /// For a LoopX 2.x command: `command`, `operation_id`, `request_sha256` (when LoopX
    /// prints its receipt), `provider_revision_before` / `_after`, `loopx_status`,
    /// `error_code`, `projection_delivery`, `markdown_revision_after` and
    /// `markdown_matches_prediction` (the Markdown after equals the prediction but for the
    /// commit stamps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loopx: Option<serde_json::Value>,
    /// The operator's note with an apply (issue 14 item 6), sanitised, secrets masked, at
    /// most 200 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// For the apply of a revert item (issue 14 item 5): the id of the applied item whose
    /// change it undoes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverts: Option<String>,
}

/// One check of the pipeline, in order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Check {
    /// `schema`, `goal`, `idempotency`, `revision`, `lease`, `edit`, `boundary`, `lock`.
    pub name: String,
    /// Passed.
    pub ok: bool,
    /// What was compared / found.
    pub detail: String,
}

/// A boundary-scan finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Rule id.
    pub rule_id: String,
    /// Category.
    pub category: String,
    /// `block` | `warn` | `info`.
    pub severity: String,
    /// JSON pointer or `line:column` in the proposed text.
    pub location: String,
    /// First 4 + `***` + last 4 characters (or `***`).
    pub sample_masked: String,
    /// One line.
    pub reason: String,
    /// `<rule>:<16 hex>` — sha256 of the rule id and the matched text, for the operator's
    /// allowlist (never the text itself).
    #[serde(default)]
    pub fingerprint: String,
}

/// `writegate list` row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListRow {
    /// Item id.
    pub item_id: String,
    /// Goal.
    pub goal_id: String,
    /// `write_intent` | `writeback` | `unknown`.
    pub kind: String,
    /// Write class (empty if unparseable).
    pub write_class: String,
    /// Writer id (empty if unparseable).
    pub writer_id: String,
    /// The acting agent: the proposal's `agent_id` (else `claimed_by`), else the writer id.
    pub agent_id: String,
    /// What apply would return now (`ready`, a conflict status, `invalid`, …).
    pub predicted_status: String,
    /// The goal's authority: `markdown` | `canonical` (LOOPX2.md §1); empty when unknown.
    #[serde(default)]
    pub authority: String,
    /// The recorded reason code a non-ready item would get, when a check names one
    /// (`canonical_authority`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_code: Option<String>,
    /// Seconds since the file was written.
    pub age_seconds: u64,
    /// What the item does, one line (`add agent todo [P1] …`, `update todo_cc1c…: note`;
    /// [`crate::engine::summary::summary`]).
    pub summary: String,
}

/// `writegate preview` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Preview {
    /// [`PREVIEW_SCHEMA`].
    pub schema_version: String,
    /// The list row.
    #[serde(flatten)]
    pub row: ListRow,
    /// Why the item is invalid, if it is.
    pub invalid_reason: Option<String>,
    /// `expected_revision.value`.
    pub expected_revision: Option<String>,
    /// Revision of the state now.
    pub current_revision: Option<String>,
    /// Revision the apply would write.
    pub proposed_revision: Option<String>,
    /// The packet's idempotency key.
    pub idempotency_key: Option<String>,
    /// Digest of the proposal.
    pub effect_digest: Option<String>,
    /// Every check in pipeline order.
    pub checks: Vec<Check>,
    /// Scan findings.
    pub findings: Vec<Finding>,
    /// Unified diff current → proposed, as the TUI's Diff tab compares them (BOM and the CR
    /// of each CRLF left out; `diff_notes` says when they change).
    pub diff: String,
    /// Line-ending and BOM changes the diff does not show line by line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diff_notes: Vec<String>,
    /// For a LoopX 2.x command item: the command line apply runs (display form; apply runs
    /// its words without a shell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loopx_command: Option<String>,
    /// Conflict details (`kind`, revisions, lease fields, holder), if any.
    pub conflict: Option<Value>,
}

/// `writegate status` row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoalStatus {
    /// Goal.
    pub goal_id: String,
    /// State file as written in the registry (relative).
    pub state_file: String,
    /// Current revision (`null` if unreadable).
    pub revision: Option<String>,
    /// Frontmatter `status`.
    pub frontmatter_status: Option<String>,
    /// Open todos: for a markdown goal the open and blocked active todos of the Markdown;
    /// for a canonical goal the active todos that are not done, as the authority holds them.
    pub open_todos: usize,
    /// Pending inbox items.
    pub pending: usize,
    /// Pending items whose predicted status is a conflict.
    pub conflicts: usize,
    /// `markdown` (LoopX 0.5.x) or `canonical` (LoopX 2.x authority), LOOPX2.md §1.
    #[serde(default)]
    pub authority: String,
    /// Canonical goals: LoopX's `sqlite:<store_identity>:<cursor>`; `null` otherwise or when
    /// the authority cannot be read.
    #[serde(default)]
    pub provider_revision: Option<String>,
    /// Hard leases whose stored status is `active` (expired ones too, marked `expired`).
    #[serde(default)]
    pub leases: Vec<LeaseRow>,
    /// Canonical goals: `current` | `pending` | `broken`; `null` for markdown goals or when
    /// it cannot be judged (the authority read through the CLI, or unreadable).
    #[serde(default)]
    pub projection: Option<String>,
    /// Why the goal could not be read, if so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One hard lease in `writegate status --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseRow {
    /// The leased todo.
    pub todo_id: String,
    /// `owner`.
    pub owner: String,
    /// `version` (CAS counter).
    pub version: i64,
    /// `lease_epoch`.
    pub epoch: i64,
    /// The execution-instance key (`null` when LoopX's CLI was the only reader).
    pub idempotency_key: Option<String>,
    /// `expires_at` (UTC).
    pub expires_at: String,
    /// True when `expires_at` has passed (the stored status still says `active`).
    pub expired: bool,
}

/// A versioned document wrapper for list outputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Doc<T> {
    /// Schema of the document.
    pub schema_version: String,
    /// Rows.
    pub items: Vec<T>,
}
