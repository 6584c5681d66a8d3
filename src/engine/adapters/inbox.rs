//! The built-in `inbox` adapter's files: `<runtime_root>/runtimes/<runtime_id>/<session_id>/
//! metadata.jsonl`, reached without symlinks, appended under a `flock`, searched by key.

use super::{Answer, MAX_LINE, is_segment, key_of};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// `<root>/<runtime_id>/<session_id>/metadata.jsonl`, both ids single safe segments.
pub(super) fn metadata_path(root: &Path, reflection: &Value) -> Result<PathBuf, String> {
    let seg = |k: &str| {
        reflection
            .get(k)
            .and_then(Value::as_str)
            .filter(|s| is_segment(s))
            .ok_or_else(|| format!("{k} is not a safe path segment"))
    };
    Ok(root.join(seg("runtime_id")?).join(seg("session_id")?).join("metadata.jsonl"))
}

pub(super) fn inbox_reachable(root: &Path) -> Result<(), String> {
    // The folder may not exist yet; its nearest existing ancestor must be a writable folder
    // reached without symlinks.
    let mut p = root.to_owned();
    loop {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => return Err(format!("{} is a symlink", p.display())),
            Ok(m) if m.is_dir() => {
                return if m.permissions().readonly() { Err(format!("{} is read-only", p.display())) } else { Ok(()) };
            }
            Ok(_) => return Err(format!("{} is not a folder", p.display())),
            Err(_) => {
                if !p.pop() {
                    return Err("no existing folder above the runtime inbox".into());
                }
            }
        }
    }
}

/// `<root>/<runtime_id>` and `<root>/<runtime_id>/<session_id>`, where they exist, must be
/// real folders (not symlinks, not files); the ids must be single safe segments.
pub(super) fn session_dirs_ok(root: &Path, runtime_id: &str, session_id: &str) -> Result<(), String> {
    if !is_segment(runtime_id) || !is_segment(session_id) {
        // Entry criterion 1 judges the ids; nothing here can be reached without them.
        return Ok(());
    }
    for dir in [root.join(runtime_id), root.join(runtime_id).join(session_id)] {
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.file_type().is_symlink() => return Err(format!("{} is a symlink", dir.display())),
            Ok(m) if !m.is_dir() => {
                return Err(format!("{} is not a folder: the runtime inbox is unavailable", dir.display()));
            }
            Ok(_) | Err(_) => {}
        }
    }
    Ok(())
}

/// Finds `key` in a metadata file: the `payload_digest` of its line.
pub(super) fn find_key(path: &Path, key: &str) -> Result<Option<String>, String> {
    Ok(key_index(path)?.remove(key))
}

/// Every key in a metadata file with the `payload_digest` of its first line (a missing file
/// is empty).
pub(super) fn key_index(path: &Path) -> Result<std::collections::HashMap<String, String>, String> {
    let bytes = match crate::gate::fsutil::read_regular(path, crate::gate::fsutil::limits::RESULTS, false) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(std::collections::HashMap::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let mut index = std::collections::HashMap::new();
    for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        if let Ok(v) = serde_json::from_slice::<Value>(line)
            && let Some(key) = v.get("idempotency_key").and_then(Value::as_str)
        {
            let digest = v.get("payload_digest").and_then(Value::as_str).unwrap_or_default();
            index.entry(key.to_owned()).or_insert_with(|| digest.to_owned());
        }
    }
    Ok(index)
}

pub(super) fn inbox_apply(root: &Path, reflection: &Value) -> Result<Answer, String> {
    use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
    let path = metadata_path(root, reflection)?;
    let dir = path.parent().ok_or("no folder")?;
    inbox_reachable(root)?;
    let text = |k: &str| reflection.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    let (runtime_id, session_id) = (text("runtime_id"), text("session_id"));
    // Checked before anything is created, level by level: nothing is made outside the root.
    session_dirs_ok(root, &runtime_id, &session_id)?;
    for d in [root.to_owned(), root.join(&runtime_id), dir.to_owned()] {
        match std::fs::DirBuilder::new().mode(0o700).create(&d) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("cannot create {}: {e}", d.display())),
        }
        if std::fs::symlink_metadata(&d).is_ok_and(|m| !m.is_dir() || m.file_type().is_symlink()) {
            return Err(format!("{} is not a real folder", d.display()));
        }
    }
    let lock_path = dir.join("metadata.jsonl.lock");
    if std::fs::symlink_metadata(&lock_path).is_ok_and(|m| !m.file_type().is_file()) {
        return Err(format!("{} is not a regular file", lock_path.display()));
    }
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(crate::gate::fsutil::O_NONBLOCK)
        .open(&lock_path)
        .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
    let started = Instant::now();
    loop {
        match lock.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < Duration::from_secs(5) => {
                std::thread::sleep(Duration::from_millis(25));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Ok(Answer::failed("the runtime inbox lock stayed busy for 5 s"));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(format!("cannot lock {}: {e}", lock_path.display())),
        }
    }
    let key = key_of(reflection);
    let digest = reflection.get("payload_digest").and_then(Value::as_str).unwrap_or_default();
    let answer = match find_key(&path, key)? {
        Some(d) if d == digest => Answer {
            status: "skipped".into(),
            runtime_event_id: None,
            reason: Some("the idempotency key is already reflected with this payload".into()),
        },
        Some(_) => Answer {
            status: "rejected".into(),
            runtime_event_id: None,
            reason: Some("the idempotency key is already reflected with a different payload".into()),
        },
        None => {
            let event_id =
                format!("rte_{}", &crate::loopx::hash::sha256_hex(format!("{key}\n{digest}").as_bytes())[..16]);
            let mut line = reflection.clone();
            if let Some(m) = line.as_object_mut() {
                m.insert("runtime_event_id".into(), json!(event_id));
            }
            let mut text = crate::loopx::hash::canonical_json(&line, false);
            text.push('\n');
            if text.len() > MAX_LINE {
                return Ok(Answer::failed(format!("the reflection is larger than {MAX_LINE} bytes")));
            }
            if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.file_type().is_file()) {
                return Err(format!("{} is not a regular file", path.display()));
            }
            crate::gate::fsutil::durable_append(&path, text.as_bytes())
                .map_err(|e| format!("cannot append to {}: {e}", path.display()))?;
            Answer { status: "applied".into(), runtime_event_id: Some(event_id), reason: None }
        }
    };
    drop(lock);
    Ok(answer)
}
