//! The LoopX file-lock protocol (FORMATS.md §5.5, `loopx/file_lock.py`): a kernel `flock`
//! on `<target>.lock`, a `file_lock_holder_v0` record written into the lock file, a bounded
//! wait, and one `file_lock_incident_v0` row on timeout. The lock file is never deleted.

use super::hash::{canonical_json, sha256_hex};
use serde_json::{Value, json};
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Holder-record keys LoopX reads back (`_read_holder_record`).
const HOLDER_KEYS: &[&str] =
    &["schema_version", "lock_id", "policy", "pid", "agent_id", "operation", "acquired_at", "released_at"];

/// LoopX's `mutation` policy: wait up to 5 s, polling every 50 ms.
pub const MUTATION_TIMEOUT: Duration = Duration::from_secs(5);
const POLL: Duration = Duration::from_millis(50);

/// Lock failures.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process held the lock for the whole wait: the real-world `lock_busy`.
    #[error("lock {lock} busy after {waited_ms} ms (holder pid {holder_pid})", holder_pid = holder.get("pid").map_or_else(|| "unknown".to_owned(), ToString::to_string))]
    Busy {
        /// The `.lock` path.
        lock: PathBuf,
        /// The holder record read from the lock file (allowed keys only; may be `{}`).
        holder: Value,
        /// The incident row appended.
        incident: Value,
        /// Whether the incident row was written.
        incident_recorded: bool,
        /// How long we waited, ms.
        waited_ms: u128,
    },
    /// The lock file could not be opened or written.
    #[error("lock {path}")]
    Io {
        /// The `.lock` path.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
}

/// A held lock; released (holder record marked `released_at`, kernel lock dropped) on drop.
#[derive(Debug)]
pub struct LockGuard {
    file: File,
    record: Value,
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        let mut released = self.record.clone();
        if let Some(map) = released.as_object_mut() {
            map.insert("released_at".into(), Value::String(utc_now_iso()));
        }
        // Refreshing the advisory record is best effort, as in LoopX; the kernel lock
        // release below is what matters.
        let _ = write_record(&mut self.file, &released);
        let _ = self.file.unlock();
    }
}

impl LockGuard {
    /// The holder record this process wrote.
    #[must_use]
    pub fn record(&self) -> &Value {
        &self.record
    }
}

/// `<target>.lock`.
#[must_use]
pub fn lock_path(target: &Path) -> PathBuf {
    sibling(target, ".lock")
}

/// `<target>.lock.incidents.jsonl`.
#[must_use]
pub fn incident_path(target: &Path) -> PathBuf {
    sibling(target, ".lock.incidents.jsonl")
}

fn sibling(target: &Path, suffix: &str) -> PathBuf {
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    target.with_file_name(name)
}

/// `lock_id`: first 16 hex of sha256 of the resolved **target** path (FORMATS.md §0 item 8).
#[must_use]
pub fn lock_id(target: &Path) -> String {
    let resolved = resolve_non_strict(target);
    sha256_hex(resolved.to_string_lossy().as_bytes())[..16].to_owned()
}

fn resolve_non_strict(p: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(p) {
        return real;
    }
    match (p.parent(), p.file_name()) {
        (Some(parent), Some(name)) => resolve_non_strict(parent).join(name),
        _ => p.to_owned(),
    }
}

/// LoopX `_safe_label`: characters outside `[A-Za-z0-9._:@-]` become `_`, runs collapse,
/// `._-` trimmed, 128 chars max, fallback when empty.
#[must_use]
pub fn safe_label(value: &str, fallback: &str) -> String {
    let mut out = String::new();
    let mut in_bad = false;
    for c in value.trim().chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '@' | '-') {
            out.push(c);
            in_bad = false;
        } else if !in_bad {
            out.push('_');
            in_bad = true;
        }
    }
    let trimmed: String = out.trim_matches(['.', '_', '-']).chars().take(128).collect();
    if trimmed.is_empty() { fallback.to_owned() } else { trimmed }
}

/// Python `datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")`.
#[must_use]
pub fn utc_now_iso() -> String {
    let now = chrono::Utc::now();
    if now.timestamp_subsec_micros() == 0 {
        now.format("%Y-%m-%dT%H:%M:%SZ").to_string()
    } else {
        now.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
    }
}

/// Who is taking the lock.
#[derive(Debug, Clone)]
pub struct LockRequest<'a> {
    /// The file being protected (the lock is `<target>.lock`).
    pub target: &'a Path,
    /// Agent id (else `$LOOPX_AGENT_ID`, else `unknown`).
    pub agent_id: Option<&'a str>,
    /// Operation label (e.g. `todo_update`).
    pub operation: &'a str,
    /// Maximum wait.
    pub timeout: Duration,
}

/// Takes the exclusive lock with LoopX's protocol. On timeout appends one incident row to
/// `<target>.lock.incidents.jsonl` and returns [`LockError::Busy`].
///
/// # Errors
/// [`LockError`].
pub fn acquire(req: &LockRequest<'_>) -> Result<LockGuard, LockError> {
    let path = lock_path(req.target);
    let io = |source| LockError::Io { path: path.clone(), source };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(0o4000) // O_NONBLOCK: a FIFO planted as the lock file cannot hang us
        .open(&path)
        .map_err(io)?;
    if !file.metadata().map_err(io)?.file_type().is_file() {
        return Err(io(std::io::Error::new(std::io::ErrorKind::InvalidData, "lock file is not a regular file")));
    }
    let started = Instant::now();
    let started_at = utc_now_iso();
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        let waited = started.elapsed();
        if waited >= req.timeout {
            return Err(timeout_error(req, &path, &started_at, waited));
        }
        std::thread::sleep(POLL.min(req.timeout.saturating_sub(waited)));
    }
    let record = json!({
        "schema_version": "file_lock_holder_v0",
        "lock_id": lock_id(req.target),
        "policy": "mutation",
        "pid": std::process::id(),
        "agent_id": agent_label(req.agent_id),
        "operation": safe_label(req.operation, "mutation"),
        "acquired_at": utc_now_iso(),
    });
    write_record(&mut file, &record).map_err(io)?;
    Ok(LockGuard { file, record })
}

fn agent_label(agent: Option<&str>) -> String {
    let env = std::env::var("LOOPX_AGENT_ID").ok();
    safe_label(agent.or(env.as_deref()).unwrap_or(""), "unknown")
}

fn write_record(file: &mut File, record: &Value) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(0))?;
    file.set_len(0)?;
    // One write: a reader never sees the record without its newline, and it is one call.
    let mut line = canonical_json(record, true);
    line.push('\n');
    file.write_all(line.as_bytes())?;
    file.sync_all()
}

/// True when `holder` (see [`read_holder`]) names a live process that has not released the
/// lock and is not this process's own writegate apply in flight.
#[must_use]
pub fn held_by_another(holder: &Value) -> bool {
    let ours = holder.get("pid").and_then(Value::as_u64) == Some(u64::from(std::process::id()))
        && holder.get("agent_id").and_then(Value::as_str) == Some("writegate");
    !ours
        && holder.get("released_at").is_none()
        && holder
            .get("pid")
            .and_then(Value::as_u64)
            .is_some_and(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists())
}

/// The holder record currently in `<target>.lock` (allowed keys only; `{}` when unreadable).
#[must_use]
pub fn read_holder(target: &Path) -> Value {
    let parsed = crate::gate::fsutil::read_regular(&lock_path(target), crate::gate::fsutil::limits::RECORD, false)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    let mut out = serde_json::Map::new();
    if let Some(Value::Object(map)) = parsed {
        for key in HOLDER_KEYS {
            if let Some(v) = map.get(*key) {
                out.insert((*key).to_owned(), v.clone());
            }
        }
    }
    Value::Object(out)
}

fn timeout_error(req: &LockRequest<'_>, path: &Path, started_at: &str, waited: Duration) -> LockError {
    let holder = read_holder(req.target);
    let round3 = |d: Duration| (d.as_secs_f64() * 1000.0).round() / 1000.0;
    let incident = json!({
        "schema_version": "file_lock_incident_v0",
        "error_code": "lock_acquire_timeout",
        "recorded_at": utc_now_iso(),
        "lock_id": lock_id(req.target),
        "policy": "mutation",
        "holder": holder,
        "waiter": {
            "pid": std::process::id(),
            "agent_id": agent_label(req.agent_id),
            "operation": safe_label(req.operation, "mutation"),
            "started_at": started_at,
            "timeout_seconds": round3(req.timeout),
            "waited_seconds": round3(waited),
        },
        "operator_action": {
            "required": true,
            "action": "inspect_lock_holder",
            "holder_pid": holder.get("pid").cloned().unwrap_or(Value::Null),
            "retry_mode": "manual_after_holder_inspection",
            "steps": [
                "Inspect the recorded holder PID and operation.",
                "Confirm the process is stalled before terminating it.",
                "Retry according to retry_mode after the holder exits.",
                "Do not delete the lock file; the kernel lock is authoritative."
            ]
        }
    });
    let incident_recorded = append_incident(req.target, &incident).is_ok();
    LockError::Busy { lock: path.to_owned(), holder, incident, incident_recorded, waited_ms: waited.as_millis() }
}

fn append_incident(target: &Path, incident: &Value) -> std::io::Result<()> {
    let mut line = canonical_json(incident, true);
    line.push('\n');
    let mut f =
        OpenOptions::new().custom_flags(0o4000).append(true).create(true).mode(0o600).open(incident_path(target))?;
    f.write_all(line.as_bytes())?;
    f.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(safe_label("codex main/control", "x"), "codex_main_control");
        assert_eq!(safe_label("", "unknown"), "unknown");
        assert_eq!(safe_label("--a--", "x"), "a");
    }

    #[test]
    fn busy_writes_incident_and_keeps_lock_file() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let target = dir.path().join("STATE.md");
        let req = LockRequest {
            target: &target,
            agent_id: Some("a1"),
            operation: "todo_add",
            timeout: Duration::from_millis(120),
        };
        let held = acquire(&req)?;
        let holder = read_holder(&target);
        assert_eq!(holder["operation"], "todo_add");
        assert_eq!(holder["pid"], std::process::id());
        // flock locks belong to the open file description, so a second open in the same
        // process conflicts just like another process would.
        let err = acquire(&req).err().ok_or("expected busy")?;
        assert!(matches!(err, LockError::Busy { incident_recorded: true, .. }));
        let rows = std::fs::read_to_string(incident_path(&target))?;
        assert_eq!(rows.lines().count(), 1);
        assert!(rows.contains("\"error_code\":\"lock_acquire_timeout\""));
        drop(held);
        assert!(lock_path(&target).exists());
        assert!(read_holder(&target).get("released_at").is_some());
        let _again = acquire(&req)?;
        Ok(())
    }
}
