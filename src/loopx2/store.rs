//! The canonical authority of a LoopX 2.x goal, read-only (LOOPX2.md §1, §5): the SQLite
//! store `<rt>/authority/sqlite-v0/authority-<sha256(goal_id)>.sqlite` (schema
//! `loopx_sqlite_authority_store_v2`: `metadata.store_identity`, `head.cursor`,
//! `head.projection`), opened read-only with a short read transaction so LoopX's writers
//! are never locked out. A store of another schema, or a provider writegate does not read,
//! is read through `loopx todo list` / `loopx status` instead ([`super::cli`]).

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The store schema writegate reads directly.
pub const KNOWN_SCHEMA: &str = "loopx_sqlite_authority_store_v2";

/// One todo as the authority holds it (the fields writegate shows and counts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CanonicalTodo {
    /// `todo_id`.
    pub todo_id: String,
    /// `user` | `agent`.
    pub role: String,
    /// `open` | `done` | `blocked` | `deferred`.
    pub status: String,
    /// `active` | `archive`.
    pub archive_state: String,
    /// The todo text (with its `[Pn]` prefix).
    pub text: String,
    /// `claimed_by` (the soft claim), when set.
    pub claimed_by: Option<String>,
    /// The record as stored (for the projection digest).
    #[serde(skip)]
    pub record: Value,
}

impl CanonicalTodo {
    /// True for an active (not archived) todo that is not done: what `open_todos` counts.
    #[must_use]
    pub fn is_open(&self) -> bool {
        self.archive_state == "active" && self.status != "done"
    }
}

/// One hard lease as the authority holds it (`task_lease_v0` inside `head.projection`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CanonicalLease {
    /// `todo_id`.
    pub todo_id: String,
    /// `owner`.
    pub owner: String,
    /// `version`.
    pub version: i64,
    /// `lease_epoch`.
    pub epoch: i64,
    /// `idempotency_key` (`None` when read through the CLI, which does not print it).
    pub idempotency_key: Option<String>,
    /// `expires_at` (UTC, `Z`).
    pub expires_at: String,
    /// The stored `status` (`active` | `released`); an expired lease still says `active`.
    pub status: String,
}

impl CanonicalLease {
    /// True when the stored status is `active` but `expires_at` has passed (LoopX's
    /// `inspect` then says `active: false`; another agent may acquire it). An unreadable
    /// expiry counts as expired.
    #[must_use]
    pub fn is_expired_at(&self, now: DateTime<Utc>) -> bool {
        DateTime::parse_from_rfc3339(&self.expires_at).map_or(true, |e| e.with_timezone(&Utc) <= now)
    }
}

/// The head of a canonical authority.
#[derive(Debug, Clone, Serialize)]
pub struct CanonicalHead {
    /// `metadata.store_identity` (`sqlite:<hex>`).
    pub store_identity: String,
    /// `head.cursor`.
    pub cursor: u64,
    /// LoopX's provider revision: `<store_identity>:<cursor>`.
    pub provider_revision: String,
    /// Every todo of the head, in store order.
    pub todos: Vec<CanonicalTodo>,
    /// Every lease record of the head (released ones included).
    pub leases: Vec<CanonicalLease>,
    /// How it was read: `sqlite` (the store, read-only), `file_store` (the file provider's
    /// journal) or `loopx_cli` (the fallback).
    pub read_via: &'static str,
}

/// Why the store could not be read directly.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// No store file.
    #[error("no authority store at {0}")]
    Missing(PathBuf),
    /// A schema writegate does not read (the CLI fallback applies).
    #[error("authority store schema {0:?} is not {KNOWN_SCHEMA}")]
    UnknownSchema(String),
    /// SQLite failed, or the head is not what the schema says.
    #[error("read authority store {path}: {reason}")]
    Unreadable {
        /// The store file.
        path: PathBuf,
        /// What failed.
        reason: String,
    },
}

/// `<rt>/authority/sqlite-v0/authority-<sha256(goal_id)>.sqlite`.
#[must_use]
pub fn sqlite_path(runtime_root: &Path, goal_id: &str) -> PathBuf {
    sqlite_path_at(runtime_root, &crate::loopx::hash::sha256_hex(goal_id.as_bytes()))
}

/// [`sqlite_path`] from the goal id's digest (64 hex digits).
pub(crate) fn sqlite_path_at(runtime_root: &Path, digest: &str) -> PathBuf {
    runtime_root.join("authority/sqlite-v0").join(format!("authority-{digest}.sqlite"))
}

/// Reads the head of the SQLite store at `path`, read-only.
///
/// # Errors
/// [`StoreError`]: missing file, unknown schema, or a SQLite / shape failure.
pub fn read_sqlite(path: &Path, goal_id: &str) -> Result<CanonicalHead, StoreError> {
    use rusqlite::{OpenFlags, OptionalExtension};
    if !path.is_file() {
        return Err(StoreError::Missing(path.to_owned()));
    }
    let bad = |reason: String| StoreError::Unreadable { path: path.to_owned(), reason };
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
    let conn = rusqlite::Connection::open_with_flags(path, flags).map_err(|e| bad(e.to_string()))?;
    conn.busy_timeout(std::time::Duration::from_millis(500)).map_err(|e| bad(e.to_string()))?;
    // One read transaction: metadata and head from the same snapshot.
    conn.execute_batch("BEGIN DEFERRED").map_err(|e| bad(e.to_string()))?;
    let meta: Option<(String, String, String)> = conn
        .query_row("SELECT schema_version, goal_id, store_identity FROM metadata WHERE singleton = 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .optional()
        .map_err(|e| schema_or(&e, &bad))?;
    let Some((schema, store_goal, store_identity)) = meta else {
        return Err(bad("no metadata row".into()));
    };
    if schema != KNOWN_SCHEMA {
        return Err(StoreError::UnknownSchema(schema));
    }
    if store_goal != goal_id {
        return Err(bad(format!("the store belongs to goal {store_goal:?}")));
    }
    let head: Option<(i64, String)> = conn
        .query_row("SELECT cursor, projection FROM head WHERE singleton = 1", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()
        .map_err(|e| bad(e.to_string()))?;
    let _ = conn.execute_batch("COMMIT");
    let Some((cursor, projection)) = head else {
        return Err(bad("no head row".into()));
    };
    let projection: Value =
        serde_json::from_str(&projection).map_err(|e| bad(format!("head projection is not JSON: {e}")))?;
    let cursor = u64::try_from(cursor).map_err(|_| bad(format!("negative cursor {cursor}")))?;
    let (todos, leases) = from_projection(&projection).map_err(bad)?;
    Ok(CanonicalHead {
        provider_revision: format!("{store_identity}:{cursor}"),
        store_identity,
        cursor,
        todos,
        leases,
        read_via: "sqlite",
    })
}

/// The file provider's store schema writegate reads directly.
pub const KNOWN_FILE_SCHEMA: &str = "loopx_file_authority_store_v1";

/// `<rt>/authority/file-v0/authority-store-<sha256(goal_id)[:16]>.json`: the `file`
/// provider's journal (one JSON document: `store_identity`, `cursor`, `provider_revision`,
/// `head`, `committed[]`), rewritten whole by LoopX on every commit.
#[must_use]
pub fn file_store_path(runtime_root: &Path, goal_id: &str) -> PathBuf {
    file_store_path_at(runtime_root, &crate::loopx::hash::sha256_hex(goal_id.as_bytes()))
}

/// [`file_store_path`] from the goal id's digest (64 hex digits).
pub(crate) fn file_store_path_at(runtime_root: &Path, digest: &str) -> PathBuf {
    runtime_root.join("authority/file-v0").join(format!("authority-store-{}.json", &digest[..16]))
}

/// Reads the head of the `file` provider's journal at `path` (read only; the provider
/// revision is the document's own `provider_revision`, `file:<cursor>:<digest>`).
///
/// # Errors
/// [`StoreError`]: missing file, unknown schema, or a document of another shape.
pub fn read_file_store(path: &Path, goal_id: &str) -> Result<CanonicalHead, StoreError> {
    let bad = |reason: String| StoreError::Unreadable { path: path.to_owned(), reason };
    let bytes = match crate::gate::fsutil::read_regular(path, crate::gate::fsutil::limits::STATE, true) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(StoreError::Missing(path.to_owned())),
        // Larger than writegate reads, or otherwise unreadable here: LoopX's CLI reads it.
        Err(e) => return Err(StoreError::UnknownSchema(format!("a file store writegate cannot read ({e})"))),
    };
    let doc: Value = serde_json::from_slice(&bytes).map_err(|e| bad(format!("not JSON: {e}")))?;
    let text = |k: &str| doc.get(k).and_then(Value::as_str).map(str::to_owned);
    let schema = text("schema_version").unwrap_or_default();
    if schema != KNOWN_FILE_SCHEMA {
        return Err(StoreError::UnknownSchema(schema));
    }
    if text("goal_id").as_deref() != Some(goal_id) {
        return Err(bad(format!("the store belongs to goal {:?}", text("goal_id"))));
    }
    let provider_revision = text("provider_revision").ok_or_else(|| bad("no provider_revision".into()))?;
    let cursor = text("cursor").and_then(|c| c.parse().ok()).ok_or_else(|| bad("no cursor".into()))?;
    let head = doc.get("head").ok_or_else(|| bad("no head".into()))?;
    let (todos, leases) = from_projection(head).map_err(bad)?;
    Ok(CanonicalHead {
        store_identity: text("store_identity").unwrap_or_default(),
        cursor,
        provider_revision,
        todos,
        leases,
        read_via: "file_store",
    })
}

/// A missing table means a schema writegate does not know, not a broken store.
fn schema_or(e: &rusqlite::Error, bad: &dyn Fn(String) -> StoreError) -> StoreError {
    let text = e.to_string();
    if text.contains("no such table") || text.contains("no such column") {
        StoreError::UnknownSchema(format!("unknown ({text})"))
    } else {
        bad(text)
    }
}

/// Todos and leases out of a head projection (`todos[]`, `leases[]`).
///
/// # Errors
/// A message when either array is missing or a record lacks its id.
pub fn from_projection(projection: &Value) -> Result<(Vec<CanonicalTodo>, Vec<CanonicalLease>), String> {
    let todos = projection.get("todos").and_then(Value::as_array).ok_or("head projection has no todos[]")?;
    let leases = projection.get("leases").and_then(Value::as_array).ok_or("head projection has no leases[]")?;
    let todos = todos.iter().map(todo_from).collect::<Result<Vec<_>, _>>()?;
    let leases = leases.iter().map(lease_from).collect::<Result<Vec<_>, _>>()?;
    Ok((todos, leases))
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// One todo record (`todo_domain_record_v0` in the store, `todo_item_v0` from `todo list`).
///
/// # Errors
/// A message when `todo_id` is missing.
pub fn todo_from(v: &Value) -> Result<CanonicalTodo, String> {
    Ok(CanonicalTodo {
        todo_id: text(v, "todo_id").ok_or("a todo record has no todo_id")?,
        role: text(v, "role").unwrap_or_default(),
        status: text(v, "status").unwrap_or_else(|| "open".into()),
        archive_state: text(v, "archive_state").unwrap_or_else(|| "active".into()),
        text: text(v, "text").unwrap_or_default(),
        claimed_by: text(v, "claimed_by").filter(|s| !s.is_empty()),
        record: v.clone(),
    })
}

fn lease_from(v: &Value) -> Result<CanonicalLease, String> {
    Ok(CanonicalLease {
        todo_id: text(v, "todo_id").ok_or("a lease record has no todo_id")?,
        owner: text(v, "owner").unwrap_or_default(),
        version: v.get("version").and_then(Value::as_i64).unwrap_or(0),
        epoch: v.get("lease_epoch").and_then(Value::as_i64).unwrap_or(1),
        idempotency_key: text(v, "idempotency_key"),
        expires_at: text(v, "expires_at").unwrap_or_default(),
        status: text(v, "status").unwrap_or_default(),
    })
}

/// `records_sha256` of one region as LoopX renders it (`_render_section`): the sha256 of the
/// canonical JSON (sorted keys, no spaces, UTF-8) of the role's records with their `null`
/// fields dropped, sorted by todo id. `role` is `user`, `agent` (active records) or `archive`.
#[must_use]
pub fn records_sha256(todos: &[CanonicalTodo], role: &str) -> String {
    let mut records: Vec<&CanonicalTodo> = todos
        .iter()
        .filter(|t| {
            if role == "archive" { t.archive_state == "archive" } else { t.archive_state == "active" && t.role == role }
        })
        .collect();
    records.sort_by(|a, b| a.todo_id.cmp(&b.todo_id));
    let list: Vec<Value> = records
        .iter()
        .map(|t| match &t.record {
            Value::Object(m) => {
                Value::Object(m.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())).collect())
            }
            other => other.clone(),
        })
        .collect();
    crate::loopx::hash::sha256_hex(crate::loopx::hash::canonical_json(&Value::Array(list), false).as_bytes())
}
