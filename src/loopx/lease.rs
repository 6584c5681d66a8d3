//! Hard task leases (`task_lease_v0`, FORMATS.md §4.2): read
//! `<runtime_root>/goals/<goal_id>/task-leases/<todo_id>.json` and judge expiry.
//! Soft claims (`claimed_by`) live in todo metadata and are read by `state`.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One hard lease file, as far as writegate needs it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct TaskLease {
    /// `todo_id`.
    pub todo_id: String,
    /// `owner` agent id.
    pub owner: String,
    /// `version` (CAS counter).
    pub version: i64,
    /// `lease_epoch`.
    pub lease_epoch: i64,
    /// `expires_at` (UTC, `Z`).
    pub expires_at: String,
    /// `status` (`active` | `released`).
    pub status: String,
    /// The execution-instance `idempotency_key`.
    pub idempotency_key: Option<String>,
}

/// What reading a lease found.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum LeaseRead {
    /// No lease file.
    Absent,
    /// A readable lease.
    Present(TaskLease),
    /// A file that is not a valid `task_lease_v0` (LoopX: `hard_lease_unreadable`).
    Unreadable {
        /// Why.
        reason: String,
    },
}

impl TaskLease {
    /// LoopX "active": status `active` and `expires_at > now` (an expired lease still says
    /// `active` in its file, FORMATS.md §0 item 9). Unparseable expiry counts as expired.
    #[must_use]
    pub fn is_active_at(&self, now: DateTime<Utc>) -> bool {
        self.status == "active" && self.expiry().is_some_and(|e| e > now)
    }

    /// True when status is `active` but the expiry has passed.
    #[must_use]
    pub fn is_expired_at(&self, now: DateTime<Utc>) -> bool {
        self.status == "active" && !self.is_active_at(now)
    }

    /// Parsed `expires_at`.
    #[must_use]
    pub fn expiry(&self) -> Option<DateTime<Utc>> {
        DateTime::parse_from_rfc3339(&self.expires_at).ok().map(|d| d.with_timezone(&Utc))
    }
}

/// `<goal_runtime_dir>/task-leases/<todo_id>.json`.
#[must_use]
pub fn lease_path(goal_runtime_dir: &Path, todo_id: &str) -> PathBuf {
    goal_runtime_dir.join("task-leases").join(format!("{todo_id}.json"))
}

/// Reads the hard lease of `todo_id`, if any. Never fails: a bad file is `Unreadable`.
#[must_use]
pub fn read_lease(goal_runtime_dir: &Path, todo_id: &str) -> LeaseRead {
    let path = lease_path(goal_runtime_dir, todo_id);
    let bytes = match crate::gate::fsutil::read_regular(&path, crate::gate::fsutil::limits::RECORD, false) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return LeaseRead::Absent,
        Err(e) => {
            return LeaseRead::Unreadable { reason: e.to_string() };
        }
    };
    match crate::json::parse_strict(&bytes) {
        Ok(v) => parse_lease(&v).map_or_else(|reason| LeaseRead::Unreadable { reason }, LeaseRead::Present),
        Err(e) => LeaseRead::Unreadable { reason: e.to_string() },
    }
}

fn parse_lease(v: &Value) -> Result<TaskLease, String> {
    if v.get("schema_version").and_then(Value::as_str) != Some("task_lease_v0") {
        return Err("schema_version is not task_lease_v0".into());
    }
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned).ok_or(format!("missing {k}"));
    let n = |k: &str| v.get(k).and_then(Value::as_i64).ok_or(format!("missing {k}"));
    Ok(TaskLease {
        todo_id: s("todo_id")?,
        owner: s("owner")?,
        version: n("version")?,
        lease_epoch: n("lease_epoch")?,
        expires_at: s("expires_at")?,
        status: s("status")?,
        idempotency_key: v.get("idempotency_key").and_then(Value::as_str).map(str::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_rules() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join("task-leases"))?;
        let body = r#"{"schema_version":"task_lease_v0","goal_id":"g","todo_id":"todo_abc","owner":"codex-a","idempotency_key":"k","write_scopes":[],"acquire_ttl_seconds":120,"version":1,"lease_epoch":1,"acquired_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","expires_at":"2026-01-01T00:02:00Z","status":"active"}"#;
        std::fs::write(lease_path(dir.path(), "todo_abc"), body)?;
        let LeaseRead::Present(lease) = read_lease(dir.path(), "todo_abc") else {
            return Err("not present".into());
        };
        let before: DateTime<Utc> = "2026-01-01T00:01:59Z".parse()?;
        let at: DateTime<Utc> = "2026-01-01T00:02:00Z".parse()?;
        assert!(lease.is_active_at(before));
        assert!(!lease.is_active_at(at), "expiry is expires_at <= now");
        assert!(lease.is_expired_at(at));
        std::fs::write(lease_path(dir.path(), "todo_bad"), "{")?;
        assert!(matches!(read_lease(dir.path(), "todo_bad"), LeaseRead::Unreadable { .. }));
        assert!(matches!(read_lease(dir.path(), "todo_none"), LeaseRead::Absent));
        Ok(())
    }
}
