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

impl TaskLease {
    /// The lease as the engine's conflict details carry it (`hard_lease`: `todo_id`, `owner`,
    /// `version`, `lease_epoch`, `idempotency_key`, `expires_at`, `status`); `None` when a
    /// field is missing.
    #[must_use]
    pub fn from_conflict_json(v: &Value) -> Option<Self> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        Some(Self {
            todo_id: s("todo_id")?,
            owner: s("owner")?,
            version: v.get("version")?.as_i64()?,
            lease_epoch: v.get("lease_epoch")?.as_i64()?,
            expires_at: s("expires_at")?,
            status: s("status")?,
            idempotency_key: s("idempotency_key"),
        })
    }
}

/// `<goal_runtime_dir>/task-leases/<todo_id>.json`.
#[must_use]
pub fn lease_path(goal_runtime_dir: &Path, todo_id: &str) -> PathBuf {
    goal_runtime_dir.join("task-leases").join(format!("{todo_id}.json"))
}

/// LoopX's task-lease todo id rule (FORMATS.md §2.3, `normalize_lease_todo_id`): one path
/// segment, no `/`, `\`, and not `.` or `..` (and no NUL).
#[must_use]
pub fn is_lease_todo_id(todo_id: &str) -> bool {
    !todo_id.is_empty() && todo_id != "." && todo_id != ".." && !todo_id.contains(['/', '\\', '\0'])
}

/// Reads the hard lease of `todo_id`, if any. Never fails: a bad file is `Unreadable` — as
/// is an id that is not one path segment (nothing outside `task-leases/` is read), a file
/// with a UTF-8 BOM (LoopX's `JSON.parse` rejects it: `corrupt_lease`), a file naming
/// another todo, and an `expires_at` that is not RFC 3339 (LoopX reads more forms; writegate
/// does not guess whether such a lease is live).
#[must_use]
pub fn read_lease(goal_runtime_dir: &Path, todo_id: &str) -> LeaseRead {
    if !is_lease_todo_id(todo_id) {
        return LeaseRead::Unreadable { reason: format!("{todo_id:?} is not a task-lease todo id (one path segment)") };
    }
    let path = lease_path(goal_runtime_dir, todo_id);
    let bytes = match crate::gate::fsutil::read_regular(&path, crate::gate::fsutil::limits::RECORD, false) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return LeaseRead::Absent,
        Err(e) => {
            return LeaseRead::Unreadable { reason: e.to_string() };
        }
    };
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return LeaseRead::Unreadable { reason: "starts with a UTF-8 BOM, which LoopX rejects (corrupt_lease)".into() };
    }
    let lease = crate::json::parse_strict(&bytes).map_err(|e| e.to_string()).and_then(|v| parse_lease(&v));
    match lease {
        Ok(l) if l.todo_id != todo_id => {
            LeaseRead::Unreadable { reason: format!("the file names todo {:?}, not {todo_id}", l.todo_id) }
        }
        Ok(l) if l.expiry().is_none() => LeaseRead::Unreadable {
            reason: format!(
                "expires_at {:?} is not an RFC 3339 timestamp; writegate does not guess its expiry",
                l.expires_at
            ),
        },
        Ok(l) => LeaseRead::Present(l),
        Err(reason) => LeaseRead::Unreadable { reason },
    }
}

fn parse_lease(v: &Value) -> Result<TaskLease, String> {
    if v.get("schema_version").and_then(Value::as_str) != Some("task_lease_v0") {
        return Err("schema_version is not task_lease_v0".into());
    }
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned).ok_or(format!("missing {k}"));
    // LoopX `leaseInteger`: absent or null → the legacy default (version 0, epoch 1); a
    // number or a string of digits; never a bool or a fraction.
    let n = |k: &str, default: i64| match v.get(k) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Number(x)) => x.as_i64().ok_or(format!("{k} is not an integer")),
        Some(Value::String(t)) if !t.is_empty() && t.trim_start_matches('-').bytes().all(|b| b.is_ascii_digit()) => {
            t.parse::<i64>().map_err(|_| format!("{k} is not an integer"))
        }
        Some(_) => Err(format!("{k} is not an integer")),
    };
    Ok(TaskLease {
        todo_id: s("todo_id")?,
        owner: s("owner")?,
        version: n("version", 0)?,
        lease_epoch: n("lease_epoch", 1)?,
        expires_at: s("expires_at")?,
        status: s("status")?,
        idempotency_key: v.get("idempotency_key").and_then(Value::as_str).map(str::to_owned),
    })
}

/// The lease file text LoopX's `task-lease release` writes for `original` at `released_at`
/// (`task_lease_lifecycle.ts::releasedLease` + `atomicWriteJson`): the same object with
/// `status` set to `"released"` and `updated_at` set to `released_at`, in place, and
/// `released_at` added at the end; `JSON.stringify(lease, null, 2)` plus `\n`. `version` and
/// `lease_epoch` do not change.
///
/// Refuses (with the reason) unless the file is a `task_lease_v0` of `goal_id`/`todo_id`
/// that LoopX itself would accept (`validatePersistedLease`: owner, idempotency key,
/// integer version/epoch, string write scopes), still exactly the lease the operator saw
/// (`seen`: owner, version, epoch, key, expiry), still `active`, and expired at `now`
/// (`expires_at <= now`). Numbers other than safe integers are refused because JavaScript
/// would print them differently.
///
/// # Errors
/// A one-line reason; nothing is to be written then.
pub fn released_bytes(
    original: &[u8],
    goal_id: &str,
    todo_id: &str,
    seen: &TaskLease,
    now: DateTime<Utc>,
) -> Result<Vec<u8>, String> {
    if original.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err("lease file starts with a UTF-8 BOM, which LoopX rejects (corrupt_lease)".into());
    }
    let v = crate::json::parse_strict(original).map_err(|e| format!("lease file is not valid JSON: {e}"))?;
    let Value::Object(mut map) = v else {
        return Err("lease file is not a JSON object".into());
    };
    let whole = Value::Object(map.clone());
    if !numbers_are_safe_integers(&whole) {
        return Err("lease file holds a number that is not a safe integer".into());
    }
    if has_integer_like_key(&whole) {
        return Err(
            "lease file holds an integer-like key, which JavaScript would move to the front: writegate cannot write LoopX's bytes".into(),
        );
    }
    let lease = parse_lease(&whole)?;
    if whole.get("goal_id").and_then(Value::as_str) != Some(goal_id) || lease.todo_id != todo_id {
        return Err(format!("lease file does not name goal {goal_id} / todo {todo_id}"));
    }
    if !is_agent_id(&lease.owner) {
        return Err("lease owner is not a valid agent id".into());
    }
    if !lease.idempotency_key.as_deref().is_some_and(valid_idempotency_key) {
        return Err("lease idempotency_key is missing or invalid".into());
    }
    if lease.version < 0 || lease.lease_epoch < 1 {
        return Err("lease version or epoch out of range".into());
    }
    if let Some(scopes) = whole.get("write_scopes")
        && !scopes.as_array().is_some_and(|a| a.iter().all(Value::is_string))
    {
        return Err("lease write_scopes is not a list of strings".into());
    }
    if lease.status == "released" {
        return Err(format!("the lease of {todo_id} is already released"));
    }
    if lease.status != "active" {
        return Err(format!("lease status {:?} is neither active nor released", lease.status));
    }
    let same = lease.owner == seen.owner
        && lease.version == seen.version
        && lease.lease_epoch == seen.lease_epoch
        && lease.idempotency_key == seen.idempotency_key
        && lease.expires_at == seen.expires_at;
    if !same {
        return Err(format!(
            "the lease changed since it was shown (now owner {} version {} epoch {} expires {}); review it again",
            lease.owner, lease.version, lease.lease_epoch, lease.expires_at
        ));
    }
    if lease.is_active_at(now) {
        return Err(format!(
            "the lease of {todo_id} is not expired (expires {}); nothing is released",
            lease.expires_at
        ));
    }
    if lease.expiry().is_none() {
        return Err(format!("lease expires_at {:?} is not a timestamp", lease.expires_at));
    }
    map.insert("lease_epoch".into(), Value::from(lease.lease_epoch));
    Ok(render_released(map, &now.format("%Y-%m-%dT%H:%M:%SZ").to_string()))
}

/// The release transform and LoopX's serialisation, without the checks.
fn render_released(mut map: serde_json::Map<String, Value>, at: &str) -> Vec<u8> {
    // Insertion order as in `{...lease, lease_epoch, status, released_at, updated_at}`
    // (`lease_epoch` was set by the caller).
    map.insert("status".into(), Value::String("released".into()));
    map.insert("released_at".into(), Value::String(at.to_owned()));
    map.insert("updated_at".into(), Value::String(at.to_owned()));
    let mut out = serde_json::to_vec_pretty(&Value::Object(map)).unwrap_or_default();
    out.push(b'\n');
    out
}

/// JavaScript orders keys that are array indices (`"0"`, `"7"`, …) first in any object.
fn has_integer_like_key(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.iter().any(|(k, child)| {
            (!k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) && (k == "0" || !k.starts_with('0')))
                || has_integer_like_key(child)
        }),
        Value::Array(a) => a.iter().any(has_integer_like_key),
        _ => false,
    }
}

fn numbers_are_safe_integers(v: &Value) -> bool {
    const MAX_SAFE: i64 = (1 << 53) - 1;
    match v {
        Value::Number(n) => n.as_i64().is_some_and(|i| (-MAX_SAFE..=MAX_SAFE).contains(&i)),
        Value::Array(a) => a.iter().all(numbers_are_safe_integers),
        Value::Object(m) => m.values().all(numbers_are_safe_integers),
        _ => true,
    }
}

/// LoopX `normalize_idempotency_key`: `^[A-Za-z0-9_.:@/-]{1,160}$` (FORMATS.md §4.2).
#[must_use]
pub fn valid_idempotency_key(key: &str) -> bool {
    (1..=160).contains(&key.len())
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'@' | b'/' | b'-'))
}

/// LoopX `TODO_AGENT_CLAIM_PATTERN` (`todos/contract.py`), which `normalize_owner` applies
/// to lease owners and writebacks' `agent_id`: `^[a-z][a-z0-9_.:@-]{0,79}$`.
#[must_use]
pub fn is_agent_id(owner: &str) -> bool {
    let b = owner.as_bytes();
    (1..=80).contains(&b.len())
        && b[0].is_ascii_lowercase()
        && b[1..]
            .iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'_' | b'.' | b':' | b'@' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/samples/06-task-lease/outputs");

    fn seen_of(bytes: &[u8]) -> Result<TaskLease, Box<dyn std::error::Error>> {
        Ok(parse_lease(&crate::json::parse_strict(bytes)?)?)
    }

    #[test]
    fn release_bytes_equal_loopx() -> Result<(), Box<dyn std::error::Error>> {
        // LoopX 0.5.4 released this (active) lease at 13:01:33Z: byte-exact transform.
        let before = std::fs::read(format!("{SAMPLE}/lease-files/04-after-transfer/todo_991935164051.json"))?;
        let after = std::fs::read(format!("{SAMPLE}/lease-files/05-after-release/todo_991935164051.json"))?;
        let Value::Object(map) = crate::json::parse_strict(&before)? else { return Err("object".into()) };
        assert_eq!(String::from_utf8(render_released(map, "2026-11-29T13:01:33Z"))?, String::from_utf8(after)?);
        // And this expired one at 13:01:50Z, through every check: same keys, order and values.
        let before = std::fs::read(format!("{SAMPLE}/lease-files/06-after-short-acquire/todo_6650ebf618c7.json"))?;
        let now: DateTime<Utc> = "2026-11-29T13:01:50Z".parse()?;
        let ours = released_bytes(&before, "demo-goal", "todo_6650ebf618c7", &seen_of(&before)?, now)?;
        let response = crate::json::parse_strict(&std::fs::read(format!("{SAMPLE}/06d-release-expired.json"))?)?;
        let mut theirs = serde_json::to_vec_pretty(&response["lease"])?;
        theirs.push(b'\n');
        assert_eq!(String::from_utf8(ours)?, String::from_utf8(theirs)?);
        Ok(())
    }

    #[test]
    fn a_legacy_lease_without_version_or_epoch_releases_as_loopx_would() -> Result<(), Box<dyn std::error::Error>> {
        // LoopX's defaults (version 0, epoch 1); `{...lease, lease_epoch, status, released_at,
        // updated_at}` puts the new lease_epoch after the old keys, then released_at.
        let before =
            std::fs::read_to_string(format!("{SAMPLE}/lease-files/06-after-short-acquire/todo_6650ebf618c7.json"))?;
        let legacy = before.replace("  \"version\": 1,\n", "").replace("  \"lease_epoch\": 1,\n", "");
        assert_ne!(legacy, before);
        let seen = seen_of(legacy.as_bytes())?;
        assert_eq!((seen.version, seen.lease_epoch), (0, 1));
        let now: DateTime<Utc> = "2026-11-29T13:01:50Z".parse()?;
        let out = String::from_utf8(released_bytes(legacy.as_bytes(), "demo-goal", "todo_6650ebf618c7", &seen, now)?)?;
        assert!(
            out.ends_with(
                "  \"status\": \"released\",\n  \"lease_epoch\": 1,\n  \"released_at\": \"2026-11-29T13:01:50Z\"\n}\n"
            ),
            "{out}"
        );
        assert!(!out.contains("\"version\""), "release does not add a version");
        Ok(())
    }

    #[test]
    fn release_refusals() -> Result<(), Box<dyn std::error::Error>> {
        let before = std::fs::read(format!("{SAMPLE}/lease-files/06-after-short-acquire/todo_6650ebf618c7.json"))?;
        let seen = seen_of(&before)?;
        let expired: DateTime<Utc> = "2026-11-29T13:01:50Z".parse()?;
        let live: DateTime<Utc> = "2026-11-29T13:01:42Z".parse()?;
        let at_expiry: DateTime<Utc> = "2026-11-29T13:01:43Z".parse()?;
        let run =
            |bytes: &[u8], seen: &TaskLease, now| released_bytes(bytes, "demo-goal", "todo_6650ebf618c7", seen, now);
        assert!(run(&before, &seen, at_expiry).is_ok(), "expiry is expires_at <= now");
        assert!(run(&before, &seen, live).err().is_some_and(|e| e.contains("not expired")));
        let mut renewed = seen.clone();
        renewed.version = 2;
        assert!(run(&before, &renewed, expired).err().is_some_and(|e| e.contains("changed since")));
        assert!(released_bytes(&before, "other-goal", "todo_6650ebf618c7", &seen, expired).is_err());
        let text = String::from_utf8(before.clone())?;
        for (from, to, why) in [
            ("\"status\": \"active\"", "\"status\": \"released\"", "already released"),
            ("\"status\": \"active\"", "\"status\": \"paused\"", "neither active"),
            ("\"acquire_ttl_seconds\": 2", "\"acquire_ttl_seconds\": 2.5", "safe integer"),
            ("\"write_scopes\": []", "\"write_scopes\": [1]", "write_scopes"),
            ("\"idempotency_key\": \"short-ttl-1\"", "\"idempotency_key\": \"bad key\"", "idempotency_key"),
            ("\"write_scopes\": []", "\"write_scopes\": [], \"7\": \"x\"", "integer-like key"),
            ("{", "\u{feff}{", "BOM"),
        ] {
            let bad = text.replacen(from, to, 1);
            assert_ne!(bad, text);
            let err = run(bad.as_bytes(), &seen, expired).err().unwrap_or_default();
            assert!(err.contains(why), "{why}: {err}");
        }
        assert!(run(b"[1]", &seen, expired).is_err());
        assert!(run(b"{", &seen, expired).is_err());
        Ok(())
    }

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
        // Never read outside task-leases/, never trust a BOM, another todo's file, or an
        // expiry writegate cannot read exactly (LoopX reads "…T15:00:00" as UTC: live).
        std::fs::write(dir.path().join("evil.json"), body)?;
        assert!(matches!(read_lease(dir.path(), "../evil"), LeaseRead::Unreadable { .. }));
        std::fs::write(lease_path(dir.path(), "todo_bom"), format!("\u{feff}{body}"))?;
        assert!(
            matches!(read_lease(dir.path(), "todo_bom"), LeaseRead::Unreadable { reason } if reason.contains("BOM"))
        );
        std::fs::write(lease_path(dir.path(), "todo_other"), body)?;
        assert!(
            matches!(read_lease(dir.path(), "todo_other"), LeaseRead::Unreadable { reason } if reason.contains("names todo"))
        );
        std::fs::write(lease_path(dir.path(), "todo_abc"), body.replace("00:02:00Z", "00:02:00"))?;
        assert!(
            matches!(read_lease(dir.path(), "todo_abc"), LeaseRead::Unreadable { reason } if reason.contains("RFC 3339"))
        );
        Ok(())
    }
}
