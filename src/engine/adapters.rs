//! Runtime adapters for writeback previews (session-runtime seed, "Entry Criteria" 3 and 5;
//! DESIGN.md §6): one small interface — capabilities (write classes, dry run, result
//! reporting) and operations (`dry_run`, `apply`, `has_key`) — and two adapters:
//!
//! - `inbox` (built in, the default for every `runtime_id`): appends the compact reflection
//!   as one line to `<runtime_root>/runtimes/<runtime_id>/<session_id>/metadata.jsonl`
//!   under an exclusive `flock` on `metadata.jsonl.lock`, and answers with a
//!   `runtime_event_id`; a key already there is `skipped`.
//! - `command`: a program from the config, given the reflection as JSON on stdin: first with
//!   `--dry-run`, then for real; `--has-key KEY` asks whether the key is already reflected.
//!   It answers one JSON object `{status, runtime_event_id, reason}` on stdout (for
//!   `--has-key`: `{present, payload_digest}`). A timeout, a non-zero exit or an answer that
//!   is not that JSON is `failed`, never approval.
//!
//! Which adapter serves which `runtime_id` comes from the `[runtimes.<runtime_id>]` tables of
//! the operator's config file, over the workspace's `writegate-runtimes.toml`, which may only
//! name `inbox` adapters: agents can write under the runtime root, and which program runs on
//! the operator's apply is the operator's choice alone (README, "Writeback previews").

mod command;
mod inbox;

use command::{find_program, only_keys};
use inbox::{find_key, inbox_apply, inbox_reachable, metadata_path, session_dirs_ok};

/// Every idempotency key in an inbox metadata file with its `payload_digest` (the first
/// line of a key wins, as at apply); a missing file is empty.
///
/// # Errors
/// The file cannot be read.
pub fn inbox_key_index(path: &Path) -> Result<std::collections::HashMap<String, String>, String> {
    inbox::key_index(path)
}
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The five write classes of the seed's table, by name.
pub const ALL_CLASSES: [&str; 5] = [
    "operator_gate_decision",
    "human_reward_overlay",
    "quota_scheduler_hint",
    "handoff_packet_pointer",
    "artifact_run_pointer",
];

/// Metadata lines larger than this are refused by the inbox adapter (bytes).
const MAX_LINE: usize = 8 * 1024;
/// Bytes read from a command adapter's stdout.
const MAX_ANSWER: u64 = 64 * 1024;

/// One `[runtimes.<runtime_id>]` table of the config file.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AdapterConfig {
    /// `inbox` or `command`.
    pub adapter: String,
    /// For `command`: the program (absolute path, or a name looked up on `PATH`).
    #[serde(default)]
    pub program: Option<String>,
    /// For `command`: arguments put before `--dry-run` / `--has-key`.
    #[serde(default)]
    pub args: Vec<String>,
    /// For `command`: how long one call may take, ms (default 5000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Write classes this runtime accepts (default: all five).
    #[serde(default)]
    pub write_classes: Option<Vec<String>>,
    /// Whether the runtime has a dry-run path (default true).
    #[serde(default)]
    pub dry_run: Option<bool>,
}

impl AdapterConfig {
    /// Checks the table: a known adapter kind, a program for `command`, known write classes.
    ///
    /// # Errors
    /// What is wrong, naming the field.
    pub fn validate(&self) -> Result<(), String> {
        match self.adapter.as_str() {
            "inbox" => {
                if self.program.is_some() || !self.args.is_empty() || self.timeout_ms.is_some() {
                    return Err("program / args / timeout_ms are for adapter = \"command\"".into());
                }
            }
            "command" => {
                if self.program.as_deref().is_none_or(str::is_empty) {
                    return Err("adapter = \"command\" needs program".into());
                }
            }
            other => return Err(format!("adapter must be \"inbox\" or \"command\", not {other:?}")),
        }
        for c in self.write_classes.iter().flatten() {
            if !ALL_CLASSES.contains(&c.as_str()) {
                return Err(format!("unknown write class {c:?} (known: {})", ALL_CLASSES.join(", ")));
            }
        }
        Ok(())
    }
}

/// What an adapter can do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capabilities {
    /// `inbox` | `command`.
    pub kind: &'static str,
    /// Write classes it accepts.
    pub write_classes: Vec<String>,
    /// It has a dry-run path.
    pub dry_run: bool,
    /// It can report a result (`Err(why not)` otherwise, e.g. the program is missing).
    pub reports: Result<String, String>,
}

/// An adapter's answer to `dry_run` or `apply`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// `previewed` (dry run), `applied`, `skipped`, `rejected` or `failed`.
    pub status: String,
    /// The runtime's id for the event, when it made one.
    pub runtime_event_id: Option<String>,
    /// Why (for `skipped` / `rejected` / `failed`).
    pub reason: Option<String>,
}

impl Answer {
    fn failed(reason: impl Into<String>) -> Self {
        Self { status: "failed".into(), runtime_event_id: None, reason: Some(reason.into()) }
    }
}

/// Which adapter serves which runtime.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Adapters {
    /// `runtime_id` → config; absent ids use the built-in `inbox`.
    pub by_runtime: BTreeMap<String, AdapterConfig>,
    /// Why the workspace's runtime file could not be used (then no runtime is served).
    pub error: Option<String>,
}

/// The workspace's runtime map: `<runtime_root>/writegate-runtimes.toml`.
pub const WORKSPACE_FILE: &str = "writegate-runtimes.toml";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkspaceFile {
    #[serde(default)]
    runtimes: BTreeMap<String, AdapterConfig>,
}

impl Adapters {
    /// The workspace's map from `<runtime_root>/writegate-runtimes.toml` (`[runtimes.<id>]`
    /// tables, as in the config file); none when the file does not exist. A file that cannot
    /// be read or validated serves no runtime at all (fail closed) and says why.
    #[must_use]
    pub fn load_workspace(runtime_root: &Path) -> Self {
        let path = runtime_root.join(WORKSPACE_FILE);
        let bytes = match crate::gate::fsutil::read_regular(&path, crate::gate::fsutil::limits::RECORD, false) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Self::default(),
            Err(e) => return Self { by_runtime: BTreeMap::new(), error: Some(format!("{}: {e}", path.display())) },
        };
        let parsed = std::str::from_utf8(&bytes)
            .map_err(|e| e.to_string())
            .and_then(|t| toml::from_str::<WorkspaceFile>(t).map_err(|e| e.to_string().trim().to_owned()))
            .and_then(|f| {
                for (id, c) in &f.runtimes {
                    if !is_segment(id) {
                        return Err(format!("[runtimes.{id}]: not a runtime id"));
                    }
                                        c.validate().map_err(|e| format!("[runtimes.{id}]: {e}"))?;
                    if c.adapter == "command" {
                        // Agents can write under the runtime root; which program runs on the
                        // operator's apply is the operator's choice alone.
                        return Err(format!(
                            "[runtimes.{id}]: command adapters come only from the operator's config file, not the workspace"
                        ));
                    }
                }
                Ok(f.runtimes)
            });
        match parsed {
            Ok(by_runtime) => Self { by_runtime, error: None },
            Err(e) => Self { by_runtime: BTreeMap::new(), error: Some(format!("{}: {e}", path.display())) },
        }
    }

    /// What `writegate check` reports: command adapters whose program is not an executable
    /// file (or not on `PATH`), one line per runtime.
    #[must_use]
    pub fn problems(&self) -> Vec<String> {
        self.by_runtime
            .iter()
            .filter(|(_, c)| c.adapter == "command")
            .filter(|(_, c)| find_program(c.program.as_deref().unwrap_or("")).is_none())
            .map(|(id, c)| {
                format!(
                    "[runtimes.{id}]: program {:?} is not an executable file (or not on PATH)",
                    c.program.as_deref().unwrap_or("")
                )
            })
            .collect()
    }

    /// This map with `over`'s entries taking precedence (the user's config over the
    /// workspace file).
    #[must_use]
    pub fn overlaid(mut self, over: &Self) -> Self {
        self.by_runtime.extend(over.by_runtime.iter().map(|(k, v)| (k.clone(), v.clone())));
        if over.error.is_some() {
            self.error.clone_from(&over.error);
        }
        self
    }
}

/// One resolved adapter.
#[derive(Debug, Clone)]
pub enum Adapter {
    /// No adapter can be used (the runtime map is broken): serves nothing.
    Unavailable {
        /// Why.
        reason: String,
    },
    /// The built-in metadata inbox.
    Inbox {
        /// `<runtime_root>/runtimes`.
        root: PathBuf,
        /// Accepted write classes.
        classes: Vec<String>,
        /// Dry-run path present.
        dry_run: bool,
    },
    /// A configured program.
    Command {
        /// Program.
        program: String,
        /// Leading arguments.
        args: Vec<String>,
        /// Per-call timeout.
        timeout: Duration,
        /// Accepted write classes.
        classes: Vec<String>,
        /// Dry-run path present.
        dry_run: bool,
    },
}

impl Adapters {
    /// The adapter for `runtime_id` under `runtime_root`.
    #[must_use]
    pub fn resolve(&self, runtime_root: &Path, runtime_id: &str) -> Adapter {
        let all = || ALL_CLASSES.iter().map(|c| (*c).to_owned()).collect::<Vec<_>>();
        // A broken workspace file serves nothing, but the operator's own entries stand.
        if let (None, Some(reason)) = (self.by_runtime.get(runtime_id), &self.error) {
            return Adapter::Unavailable { reason: reason.clone() };
        }
        match self.by_runtime.get(runtime_id) {
            Some(c) if c.adapter == "command" => Adapter::Command {
                program: c.program.clone().unwrap_or_default(),
                args: c.args.clone(),
                timeout: Duration::from_millis(c.timeout_ms.unwrap_or(5000)),
                classes: c.write_classes.clone().unwrap_or_else(all),
                dry_run: c.dry_run.unwrap_or(true),
            },
            c => Adapter::Inbox {
                root: runtime_root.join("runtimes"),
                classes: c.and_then(|c| c.write_classes.clone()).unwrap_or_else(all),
                dry_run: c.and_then(|c| c.dry_run).unwrap_or(true),
            },
        }
    }
}

/// `runtime_id` / `session_id` as a single safe path segment: `[A-Za-z0-9._:@-]`, 1–128
/// bytes, not `.` or `..`.
#[must_use]
pub fn is_segment(s: &str) -> bool {
    (1..=128).contains(&s.len())
        && s != "."
        && s != ".."
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'@' | b'-'))
}

impl Adapter {
    /// For the inbox adapter: the metadata file `reflection` goes to (`None` for other
    /// adapters or unsafe ids).
    #[must_use]
    pub fn inbox_metadata(&self, reflection: &Value) -> Option<PathBuf> {
        match self {
            Self::Inbox { root, .. } => metadata_path(root, reflection).ok(),
            Self::Command { .. } | Self::Unavailable { .. } => None,
        }
    }

    /// `inbox`, `command`, or `none` (the runtime map is unusable).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Inbox { .. } => "inbox",
            Self::Command { .. } => "command",
            Self::Unavailable { .. } => "none",
        }
    }

    /// Its capabilities for one runtime session, probing what it needs to report a result
    /// (for the inbox: the runtime and session folders, where they exist, are real folders
    /// reached without symlinks).
    #[must_use]
    pub fn capabilities(&self, runtime_id: &str, session_id: &str) -> Capabilities {
        match self {
            Self::Inbox { root, classes, dry_run } => Capabilities {
                kind: self.kind(),
                write_classes: classes.clone(),
                dry_run: *dry_run,
                reports: inbox_reachable(root)
                    .and_then(|()| session_dirs_ok(root, runtime_id, session_id))
                    .map(|()| format!("appends to <runtime_root>/runtimes/{runtime_id}/{session_id}/metadata.jsonl")),
            },
            Self::Unavailable { reason } => Capabilities {
                kind: self.kind(),
                write_classes: Vec::new(),
                dry_run: false,
                reports: Err(format!("the runtime map is unusable: {reason}")),
            },
            Self::Command { program, classes, dry_run, .. } => Capabilities {
                kind: self.kind(),
                write_classes: classes.clone(),
                dry_run: *dry_run,
                reports: find_program(program)
                    .map(|p| format!("program {} answers JSON on stdout", p.display()))
                    .ok_or_else(|| format!("program {program:?} is not an executable file (or not on PATH)")),
            },
        }
    }

    /// Asks the runtime for a dry run of `reflection` (nothing is written).
    #[must_use]
    pub fn dry_run(&self, reflection: &Value) -> Answer {
        match self {
            Self::Inbox { root, .. } => match metadata_path(root, reflection) {
                Ok(path) => match find_key(&path, key_of(reflection)) {
                    Ok(Some(_)) => Answer {
                        status: "skipped".into(),
                        runtime_event_id: None,
                        reason: Some("the idempotency key is already reflected".into()),
                    },
                    Ok(None) => Answer { status: "previewed".into(), runtime_event_id: None, reason: None },
                    Err(e) => Answer::failed(e),
                },
                Err(e) => Answer::failed(e),
            },
            Self::Command { .. } => self.call(&["--dry-run"], reflection),
            Self::Unavailable { reason } => Answer::failed(reason.clone()),
        }
    }

    /// Applies `reflection` for real.
    #[must_use]
    pub fn apply(&self, reflection: &Value) -> Answer {
        match self {
            Self::Inbox { root, .. } => inbox_apply(root, reflection).unwrap_or_else(Answer::failed),
            Self::Command { .. } => self.call(&[], reflection),
            Self::Unavailable { reason } => Answer::failed(reason.clone()),
        }
    }

    /// Whether `key` is already reflected in the runtime: `Ok(Some(payload_digest))`
    /// (digest may be empty when the runtime does not say), `Ok(None)`, or `Err(why unknown)`.
    ///
    /// # Errors
    /// The runtime could not be asked.
    pub fn has_key(&self, reflection: &Value) -> Result<Option<String>, String> {
        match self {
            Self::Inbox { root, .. } => find_key(&metadata_path(root, reflection)?, key_of(reflection)),
            Self::Command { .. } => {
                let key = key_of(reflection).to_owned();
                let v = self.call_raw(&["--has-key", &key], reflection)?;
                only_keys(&v, &["present", "payload_digest"], "--has-key")?;
                match (v.get("present").and_then(Value::as_bool), v.get("payload_digest")) {
                    (Some(true), Some(Value::String(d))) if d.starts_with("sha256:") => Ok(Some(d.clone())),
                    (Some(true), _) => {
                        Err("the --has-key answer says present without the reflected payload_digest (sha256:…)".into())
                    }
                    (Some(false), None | Some(Value::Null)) => Ok(None),
                    (Some(false), _) => Err("the --has-key answer says absent but names a payload_digest".into()),
                    (None, _) => Err("the --has-key answer has no boolean `present`".into()),
                }
            }
            Self::Unavailable { reason } => Err(reason.clone()),
        }
    }
}

fn key_of(reflection: &Value) -> &str {
    reflection.get("idempotency_key").and_then(Value::as_str).unwrap_or("")
}
