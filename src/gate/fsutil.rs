//! Durable file operations: atomic replace (temp file in the same directory, fsync,
//! rename, fsync the directory, file mode kept), durable append, durable move, and the
//! crash-test failpoints.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Environment variable naming a failpoint at which the process aborts (crash tests).
pub const FAILPOINT_ENV: &str = "WRITEGATE_FAILPOINT";

/// Aborts the process (no unwinding, no cleanup, like a kill) when `WRITEGATE_FAILPOINT`
/// equals `name`. Used only to prove crash safety; a no-op otherwise. The variable is read
/// once per process (the crash tests set it for a child): reading the environment at each
/// of an apply's eight failpoints showed in a profile of a batch apply.
pub fn failpoint(name: &str) {
    static ARMED: std::sync::LazyLock<Option<String>> = std::sync::LazyLock::new(|| std::env::var(FAILPOINT_ENV).ok());
    if ARMED.as_deref() == Some(name) {
        std::process::abort();
    }
}

/// `O_NONBLOCK` on Linux: opening a FIFO must never block the caller.
pub(crate) const O_NONBLOCK: i32 = 0o4000;

/// Size limits for files read from disk (bytes).
pub mod limits {
    /// A state file.
    pub const STATE: u64 = 64 * 1024 * 1024;
    /// A registry: LoopX writes about 1.6 KB per goal and sets no bound, so only a file no
    /// registry could plausibly be (over 1 GiB, some 600,000 goals) is refused (issue 15).
    pub const REGISTRY: u64 = 1024 * 1024 * 1024;
    /// A results log.
    pub const RESULTS: u64 = 256 * 1024 * 1024;
    /// A small JSON record (lease, marker, lock holder).
    pub const RECORD: u64 = 1024 * 1024;
}

/// Reads a **regular file** of at most `max` bytes without ever blocking: the open is
/// non-blocking (a FIFO cannot hang us), and anything that is not a regular file (FIFO,
/// device, directory, socket) or is larger than `max` is refused with `InvalidData`.
/// Symlinks are followed only when `follow` is true.
///
/// # Errors
/// I/O errors, or `InvalidData` naming the problem.
pub fn read_regular(path: &Path, max: u64, follow: bool) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let (f, len) = open_checked(path, max, follow)?;
    let mut buf = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    f.take(max + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > max {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, format!("larger than {max} bytes")));
    }
    Ok(buf)
}

/// Opens a regular file of at most `max` bytes for reading, with [`read_regular`]'s rules
/// (no symlink, non-blocking open, then checked on the open descriptor).
///
/// # Errors
/// I/O errors, or `InvalidData` naming the problem.
pub fn open_regular(path: &Path, max: u64) -> std::io::Result<File> {
    open_checked(path, max, false).map(|(f, _)| f)
}

/// The open of [`read_regular`] and [`open_regular`]: symlinks refused unless `follow`; the
/// file and its length in bytes when opened.
fn open_checked(path: &Path, max: u64, follow: bool) -> std::io::Result<(File, u64)> {
    if !follow && std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "is a symlink"));
    }
    let f = OpenOptions::new().read(true).custom_flags(O_NONBLOCK).open(path)?;
    let meta = f.metadata()?;
    if !meta.file_type().is_file() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "not a regular file"));
    }
    if meta.len() > max {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, format!("larger than {max} bytes")));
    }
    Ok((f, meta.len()))
}

/// Opens a file for appending, refusing symlinks and non-regular files (non-blocking open).
///
/// # Errors
/// I/O errors or `InvalidData`.
pub fn open_append_regular(path: &Path) -> std::io::Result<File> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{} is a symlink", path.display())));
    }
    let f = OpenOptions::new().append(true).create(true).mode(0o644).custom_flags(O_NONBLOCK).open(path)?;
    if !f.metadata()?.file_type().is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(f)
}

/// fsyncs a directory so a rename or create inside it is durable.
///
/// # Errors
/// I/O errors from open or fsync.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Atomically replaces `path` with `bytes`: writes `.<name>.<pid>.<n>.tmp` in the same
/// directory with the existing file's permission bits (0644 for a new file), fsyncs it,
/// renames it over `path`, fsyncs the directory. A crash leaves the old or the new file,
/// never a torn one; a stale temp file may remain and is never read.
///
/// # Errors
/// I/O errors; the temp file is removed on failure.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    atomic_write_at(path, bytes, None)
}

/// [`atomic_write`] with a failpoint fired after the temp file is durable and before the
/// rename (crash tests name it `before_state_rename` for the state file).
///
/// # Errors
/// I/O errors; the temp file is removed on failure.
pub fn atomic_write_at(path: &Path, bytes: &[u8], point: Option<&str>) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mode = std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777);
    let tmp = temp_sibling(path);
    let result = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).mode(mode).open(&tmp)?;
        f.set_permissions(std::fs::Permissions::from_mode(mode))?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        if let Some(p) = point {
            failpoint(p);
        }
        std::fs::rename(&tmp, path)?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// True for a temp file of [`atomic_write_at`] (`.<name>.<pid>.<n>.tmp`) whose writer no
/// longer runs (and is not this process).
fn is_dead_temp(file: &str) -> bool {
    let Some(rest) = file.strip_prefix('.').and_then(|r| r.strip_suffix(".tmp")) else { return false };
    let mut parts = rest.rsplitn(3, '.');
    let (Some(n), Some(pid), Some(name)) = (parts.next(), parts.next(), parts.next()) else { return false };
    let (Ok(pid), true) =
        (pid.parse::<u32>(), !name.is_empty() && n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty())
    else {
        return false;
    };
    pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists()
}

/// Removes this module's temp siblings of `path` (`.<name>.<pid>.<n>.tmp`) left by
/// processes that no longer run. Returns how many were removed.
#[must_use]
pub fn remove_stale_temps(path: &Path) -> usize {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return 0;
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    remove_dead_temps_where(dir, |f| f.starts_with(&prefix))
}

/// Removes every temp file of a dead writer in `dir` (gate folders: `applying/`,
/// `revisions/`, `inbox/`). Returns how many were removed.
#[must_use]
pub fn remove_dead_temps(dir: &Path) -> usize {
    remove_dead_temps_where(dir, |_| true)
}

/// [`remove_dead_temps`] over entries already listed (full paths).
#[must_use]
pub fn remove_dead_temps_among(entries: &[PathBuf]) -> usize {
    entries
        .iter()
        .filter(|p| {
            p.file_name().is_some_and(|f| is_dead_temp(&f.to_string_lossy())) && std::fs::remove_file(p).is_ok()
        })
        .count()
}

fn remove_dead_temps_where(dir: &Path, keep: impl Fn(&str) -> bool) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.filter_map(Result::ok)
        .filter(|e| {
            let file = e.file_name().to_string_lossy().into_owned();
            keep(&file) && is_dead_temp(&file) && std::fs::remove_file(e.path()).is_ok()
        })
        .count()
}

fn temp_sibling(path: &Path) -> PathBuf {
    path.with_file_name(temp_name(path.file_name().unwrap_or_default()))
}

/// The name of a new temp sibling of the file `name`: `.<name>.<pid>.<n>.tmp`, unique in
/// this process; [`remove_stale_temps`] knows the pattern.
pub(crate) fn temp_name(name: &std::ffi::OsStr) -> std::ffi::OsString {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    format!(".{}.{}.{n}.tmp", name.to_string_lossy(), std::process::id()).into()
}

/// Appends `line` (which must end with `\n`) with `O_APPEND` in one write, then fsyncs.
///
/// # Errors
/// I/O errors.
pub fn durable_append(path: &Path, line: &[u8]) -> std::io::Result<()> {
    let mut f = open_append_regular(path)?;
    f.write_all(line)?;
    f.sync_all()
}

/// Renames `from` to `to` (same file system) and fsyncs both directories.
///
/// # Errors
/// I/O errors.
pub fn durable_move(from: &Path, to: &Path) -> std::io::Result<()> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::rename(from, to)?;
    if let Some(dir) = to.parent() {
        sync_dir(dir)?;
    }
    if let Some(dir) = from.parent() {
        sync_dir(dir)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_keeps_mode_and_leaves_no_temp() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("STATE.md");
        std::fs::write(&p, "old")?;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600))?;
        atomic_write(&p, b"new")?;
        assert_eq!(std::fs::read_to_string(&p)?, "new");
        assert_eq!(std::fs::metadata(&p)?.permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read_dir(dir.path())?.count(), 1);
        Ok(())
    }
}
