//! LoopX 0.5.4's cross-runtime mutation lock, the one its Node effect runtime takes around
//! every task-lease verb (`control_plane/effect_runtime_io.ts::acquireFileMutationLock` /
//! `releaseFileMutationLock`; Python's side is `file_lock.py::exclusive_cross_runtime_file_lock`).
//!
//! Protocol, for a target `T` (task leases use `T = <goal>/task-leases/.task-leases`):
//! - acquire: create `T.ts-effect.lock` exclusively (`O_CREAT|O_EXCL`, mode 0600) and write
//!   `{"pid":<pid>,"token":"<uuid4>"}`; on `EEXIST` poll every 25 ms for up to 5 s;
//! - release: only while the file still names our token and is the inode we created, create
//!   the claim `T.ts-effect.lock.claim.<sha256(token)>` exclusively, rename the lock to
//!   `T.ts-effect.lock.released.<uuid4>`, delete that, then delete the claim.
//!
//! writegate never reclaims a lock it did not create, even one whose pid is dead (LoopX's
//! own next lease command does that): a busy lock is reported with its holder and nothing is
//! written. Older LoopX writers took a kernel `flock` on `T.lock`; when that file exists it
//! is locked too (without creating it when absent, as 0.5.4 leaves none on disk).

use crate::gate::fsutil::O_NONBLOCK;
use serde_json::{Value, json};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// LoopX's wait for this lock (`MUTATION_LOCK_TIMEOUT_MS`).
pub const TIMEOUT: Duration = Duration::from_secs(5);
/// LoopX's poll interval (`MUTATION_LOCK_POLL_MS`).
const POLL: Duration = Duration::from_millis(25);

/// Failures to take the lock.
#[derive(Debug, thiserror::Error)]
pub enum EffectLockError {
    /// Another process held the lock for the whole wait.
    #[error("{} {} after {waited_ms} ms; nothing was written", lock.display(), match (holder_pid, holder_alive) {
        (Some(p), true) => format!("is held by pid {p} (running)"),
        (Some(p), false) => format!("is held by pid {p} (not running: LoopX's next task-lease command reclaims it)"),
        (None, _) => "exists without a readable LoopX owner record (not a regular file with {pid, token}?): inspect it by hand".to_owned(),
    })]
    Busy {
        /// The lock file.
        lock: PathBuf,
        /// The holder pid written in it, if readable.
        holder_pid: Option<i64>,
        /// Whether that pid is a running process.
        holder_alive: bool,
        /// How long we waited, ms.
        waited_ms: u128,
    },
    /// I/O while taking the lock.
    #[error("lock {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
}

/// A held lock, released by the protocol above on drop.
#[derive(Debug)]
pub struct EffectLock {
    lock: PathBuf,
    token: String,
    identity: (u64, u64),
    /// The old-style kernel lock on `T.lock`, held until drop.
    flock: Option<File>,
}

/// `T.ts-effect.lock` for a target `T`.
#[must_use]
pub fn lock_path(target: &Path) -> PathBuf {
    with_suffix(target, ".ts-effect.lock")
}

fn with_suffix(p: &Path, suffix: &str) -> PathBuf {
    let mut name = p.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    p.with_file_name(name)
}

fn pid_alive(pid: i64) -> bool {
    pid > 0 && Path::new(&format!("/proc/{pid}")).exists()
}

/// `(pid, token)` from a lock or claim file, when it has LoopX's shape.
fn read_owner(path: &Path) -> Option<(i64, String)> {
    let bytes = crate::gate::fsutil::read_regular(path, crate::gate::fsutil::limits::RECORD, false).ok()?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    let token = v.get("token")?.as_str()?.to_owned();
    Some((v.get("pid")?.as_i64()?, token))
}

fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::symlink_metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Creates `path` exclusively with the owner JSON; returns the created inode's identity.
///
/// The record is written and fsynced in a temp sibling first and then hard-linked to
/// `path` (`link` fails with `EEXIST` exactly as `O_CREAT|O_EXCL` does), so the lock file
/// never exists without its owner record: a crash leaves either no lock or a lock whose
/// token recovery can recognise (issue 12 case 9). A dead writer's temp file is removed by
/// [`crate::gate::fsutil::remove_dead_temps`].
fn create_owner_file(path: &Path, token: &str) -> std::io::Result<(u64, u64)> {
    let tmp = path.with_file_name(crate::gate::fsutil::temp_name(path.file_name().unwrap_or_default()));
    let body = serde_json::to_string(&json!({"pid": std::process::id(), "token": token})).unwrap_or_default();
    let written = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).mode(0o600).custom_flags(O_NONBLOCK).open(&tmp)?;
        f.write_all(body.as_bytes())?;
        f.sync_all()?;
        let meta = f.metadata()?;
        std::fs::hard_link(&tmp, path)?;
        Ok((meta.dev(), meta.ino()))
    })();
    let _ = std::fs::remove_file(&tmp);
    written
}

/// Removes what a dead writegate process left of the lock it took with `token` on
/// `target`: the lock file, its claim file and retired files, each only while it names that
/// token. Called by recovery from the release marker that recorded the token before the lock
/// was taken; LoopX's own lock files never carry it. Returns how many files were removed.
///
/// # Errors
/// I/O errors listing the folder or removing a file.
pub fn reclaim_own(target: &Path, token: &str) -> std::io::Result<usize> {
    let lock = lock_path(target);
    let Some(dir) = lock.parent() else { return Ok(0) };
    let prefix = lock.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let mut removed = 0;
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    // The lock itself last, so a crash here leaves it (and its marker) for the next pass.
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&prefix))
        .collect();
    names.sort_by_key(|n| *n == prefix);
    for name in names {
        let path = dir.join(&name);
        if read_owner(&path).is_some_and(|o| o.1 == token) {
            std::fs::remove_file(&path)?;
            removed += 1;
        }
    }
    if removed > 0 {
        crate::gate::fsutil::sync_dir(dir)?;
    }
    Ok(removed)
}

/// Takes the lock for `target`, waiting up to `timeout`.
///
/// # Errors
/// [`EffectLockError::Busy`] when another process holds it (LoopX's lock or an old-style
/// kernel lock on `T.lock`) for the whole wait; [`EffectLockError::Io`] otherwise.
pub fn acquire(target: &Path, timeout: Duration) -> Result<EffectLock, EffectLockError> {
    acquire_with_token(target, timeout, &new_token())
}

/// A new lock token (a UUID v4, as LoopX's runtime uses).
#[must_use]
pub fn new_token() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// [`acquire`] with a token chosen by the caller, who records it first (write-ahead) so
/// that [`reclaim_own`] can remove the lock if the process dies holding it.
///
/// # Errors
/// As [`acquire`].
pub fn acquire_with_token(target: &Path, timeout: Duration, token: &str) -> Result<EffectLock, EffectLockError> {
    let lock = lock_path(target);
    let token = token.to_owned();
    let started = Instant::now();
    let busy = |lock: &Path, started: Instant| {
        let owner = read_owner(lock);
        EffectLockError::Busy {
            lock: lock.to_owned(),
            holder_pid: owner.as_ref().map(|o| o.0),
            holder_alive: owner.as_ref().is_some_and(|o| pid_alive(o.0)),
            waited_ms: started.elapsed().as_millis(),
        }
    };
    let identity = loop {
        match create_owner_file(&lock, &token) {
            Ok(id) => break id,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if started.elapsed() >= timeout {
                    return Err(busy(&lock, started));
                }
                std::thread::sleep(POLL);
            }
            Err(source) => return Err(EffectLockError::Io { path: lock, source }),
        }
    };
    let mut held = EffectLock { lock, token, identity, flock: None };
    let old_style = with_suffix(target, ".lock");
    if std::fs::symlink_metadata(&old_style).is_ok_and(|m| m.file_type().is_file()) {
        let io = |source| EffectLockError::Io { path: old_style.clone(), source };
        let file = OpenOptions::new().read(true).write(true).custom_flags(O_NONBLOCK).open(&old_style).map_err(io)?;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < timeout => std::thread::sleep(POLL),
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(EffectLockError::Busy {
                        lock: old_style.clone(),
                        holder_pid: crate::loopx::lock::read_holder(target).get("pid").and_then(Value::as_i64),
                        holder_alive: true,
                        waited_ms: started.elapsed().as_millis(),
                    });
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
            }
        }
        held.flock = Some(file);
    }
    Ok(held)
}

impl EffectLock {
    /// The lock file held.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.lock
    }

    /// Releases by LoopX's protocol; `false` when the lock no longer was ours to release.
    fn release(&mut self) -> bool {
        // The old-style kernel lock goes first (LoopX's Python takes it inside the effect lock).
        drop(self.flock.take());
        if read_owner(&self.lock).is_none_or(|o| o.1 != self.token) || identity(&self.lock) != Some(self.identity) {
            return false;
        }
        let digest = crate::loopx::hash::sha256_hex(self.token.as_bytes());
        let claim = with_suffix(&self.lock, &format!(".claim.{digest}"));
        let Ok(claim_id) = create_owner_file(&claim, &self.token) else {
            return false;
        };
        let retired = with_suffix(&self.lock, &format!(".released.{}", uuid::Uuid::new_v4()));
        let mut done = false;
        if read_owner(&self.lock).is_some_and(|o| o.1 == self.token)
            && identity(&self.lock) == Some(self.identity)
            && std::fs::rename(&self.lock, &retired).is_ok()
        {
            let _ = std::fs::remove_file(&retired);
            done = true;
        }
        if identity(&claim) == Some(claim_id) {
            let _ = std::fs::remove_file(&claim);
        }
        done
    }
}

impl Drop for EffectLock {
    fn drop(&mut self) {
        if !self.release() {
            tracing::warn!(lock = %self.lock.display(), "task-lease mutation lock was no longer ours to release");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclusive_then_released_without_leftovers() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let target = dir.path().join(".task-leases");
        let held = acquire(&target, TIMEOUT)?;
        let (pid, token) = read_owner(held.path()).ok_or("owner")?;
        assert_eq!(pid, i64::from(std::process::id()));
        assert_eq!(token.len(), 36);
        let busy = acquire(&target, Duration::from_millis(60)).err().ok_or("expected busy")?;
        assert!(matches!(busy, EffectLockError::Busy { holder_alive: true, .. }), "{busy}");
        drop(held);
        let left: Vec<_> = std::fs::read_dir(dir.path())?.filter_map(Result::ok).map(|e| e.file_name()).collect();
        assert!(left.is_empty(), "{left:?}");
        let _again = acquire(&target, TIMEOUT)?;
        Ok(())
    }

    #[test]
    fn a_foreign_lock_is_never_removed_even_with_a_dead_pid() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let target = dir.path().join(".task-leases");
        std::fs::write(lock_path(&target), r#"{"pid":999999999,"token":"t"}"#)?;
        let busy = acquire(&target, Duration::from_millis(60)).err().ok_or("expected busy")?;
        assert!(matches!(busy, EffectLockError::Busy { holder_pid: Some(999_999_999), holder_alive: false, .. }));
        assert!(busy.to_string().contains("reclaims it"), "{busy}");
        assert!(lock_path(&target).exists());
        Ok(())
    }

    #[test]
    fn an_old_style_kernel_lock_is_honoured_when_present() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let target = dir.path().join(".task-leases");
        let old = File::create(with_suffix(&target, ".lock"))?;
        old.lock()?;
        let busy = acquire(&target, Duration::from_millis(60)).err().ok_or("expected busy")?;
        assert!(matches!(busy, EffectLockError::Busy { .. }));
        assert!(!lock_path(&target).exists(), "the effect lock is released when the old lock is busy");
        old.unlock()?;
        let held = acquire(&target, TIMEOUT)?;
        drop(held);
        Ok(())
    }
}
