//! Writes that no symlink can redirect (issue 12 case 2).
//!
//! A path checked at load time can be swapped before the write: the state file for a
//! symlink, the goal folder for a symlinked one. [`SafeDir`] holds an open directory that
//! was reached from a trusted root one component at a time with `O_NOFOLLOW`, so later
//! swaps of any path component cannot move it; the file inside is then read with
//! `O_NOFOLLOW` and replaced by a temp file created and renamed **within that directory**
//! (`openat` / `renameat`), never through a name resolved again.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read as _, Write as _};
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

/// An open directory known to lie inside a root, for reads and atomic replaces of the
/// files in it.
#[derive(Debug)]
pub struct SafeDir {
    fd: OwnedFd,
    path: PathBuf,
}

fn invalid(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why)
}

impl SafeDir {
    /// Opens `dir`, which must resolve (through symlinks, now) inside `root`: the real path
    /// of `root` is opened, then each component of the real path of `dir` below it with
    /// `O_DIRECTORY | O_NOFOLLOW`. A component swapped for a symlink between the resolve and
    /// the walk fails the walk (`ELOOP` / `ENOTDIR`) instead of being followed.
    ///
    /// # Errors
    /// `InvalidData` when `dir` resolves outside `root`; I/O errors of the resolve or walk.
    pub fn open_beneath(root: &Path, dir: &Path) -> io::Result<Self> {
        let real_root = std::fs::canonicalize(root)?;
        let real_dir = std::fs::canonicalize(dir)?;
        let rest = real_dir.strip_prefix(&real_root).map_err(|_| {
            invalid(format!("{} resolves to {}, outside {}", dir.display(), real_dir.display(), real_root.display()))
        })?;
        let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let mut fd = rustix::fs::open(&real_root, dir_flags, Mode::empty())?;
        for part in rest.components() {
            let Component::Normal(name) = part else {
                return Err(invalid(format!(
                    "{} is not a plain path below {}",
                    real_dir.display(),
                    real_root.display()
                )));
            };
            fd = rustix::fs::openat(&fd, name, dir_flags | OFlags::NOFOLLOW, Mode::empty()).map_err(|e| {
                let e = io::Error::from(e);
                invalid(format!("{} changed while it was opened ({e}); nothing was written", real_dir.display()))
            })?;
        }
        Ok(Self { fd, path: real_dir })
    }

    /// Opens the directory holding `file` and returns it with the file's name there. With
    /// `follow`, a symlinked `file` is resolved first (as LoopX's `write_text` resolves a
    /// symlinked state file) and the resolved file must lie inside `root`; without it, the
    /// name is kept and [`SafeDir::read`] / [`SafeDir::replace`] refuse a symlink there.
    ///
    /// # Errors
    /// As [`SafeDir::open_beneath`]; `InvalidData` for a path without a file name.
    pub fn for_file(root: &Path, file: &Path, follow: bool) -> io::Result<(Self, OsString)> {
        let real = match std::fs::canonicalize(file) {
            Ok(real) if follow => real,
            // Without `follow`, or for a file that does not exist yet: its folder must.
            Ok(_) => file.to_owned(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => file.to_owned(),
            Err(e) => return Err(e),
        };
        let (Some(parent), Some(name)) = (real.parent(), real.file_name()) else {
            return Err(invalid(format!("{} has no file name", file.display())));
        };
        Ok((Self::open_beneath(root, parent)?, name.to_owned()))
    }

    /// The real path the directory had when it was opened (for messages).
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the regular file `name` of at most `max` bytes, never following a symlink and
    /// never blocking on a FIFO.
    ///
    /// # Errors
    /// I/O errors (`ELOOP` for a symlink); `InvalidData` for a non-regular or larger file.
    pub fn read(&self, name: &OsStr, max: u64) -> io::Result<Vec<u8>> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty()).map_err(|e| self.named(name, e))?;
        let f = File::from(fd);
        let meta = f.metadata()?;
        if !meta.file_type().is_file() {
            return Err(invalid(format!("{} is not a regular file", self.path.join(name).display())));
        }
        let mut buf = Vec::with_capacity(usize::try_from(meta.len().min(max)).unwrap_or(0));
        f.take(max + 1).read_to_end(&mut buf)?;
        if buf.len() as u64 > max {
            return Err(invalid(format!("{} is larger than {max} bytes", self.path.join(name).display())));
        }
        Ok(buf)
    }

    /// Atomically replaces the file `name` with `bytes`: a temp file
    /// `.<name>.<pid>.<n>.tmp` is created in this directory with `O_EXCL | O_NOFOLLOW` and
    /// the old file's permission bits (0644 for a new file), written, fsynced, renamed over
    /// `name` within this directory, and the directory is fsynced. `point` names a crash-test
    /// failpoint fired before the rename. A `name` that is now a symlink or not a regular
    /// file is refused, so a swap made after the checks is never written through.
    ///
    /// # Errors
    /// `InvalidData` for a swapped name; I/O errors (the temp file is removed).
    pub fn replace(&self, name: &OsStr, bytes: &[u8], point: Option<&str>) -> io::Result<()> {
        let mode = match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::RegularFile => st.st_mode & 0o7777,
            Ok(_) => {
                return Err(invalid(format!(
                    "{} was replaced by a symlink or a non-regular file; nothing was written",
                    self.path.join(name).display()
                )));
            }
            Err(rustix::io::Errno::NOENT) => 0o644,
            Err(e) => return Err(self.named(name, e)),
        };
        let tmp = super::fsutil::temp_name(name);
        let result = self.write_temp_and_rename(&tmp, name, bytes, mode, point);
        if result.is_err() {
            let _ = rustix::fs::unlinkat(&self.fd, &tmp, AtFlags::empty());
        }
        result
    }

    fn write_temp_and_rename(
        &self,
        tmp: &OsStr,
        name: &OsStr,
        bytes: &[u8],
        mode: u32,
        point: Option<&str>,
    ) -> io::Result<()> {
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, tmp, flags, Mode::from_raw_mode(mode))?;
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode))?;
        let mut f = File::from(fd);
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        if let Some(p) = point {
            super::fsutil::failpoint(p);
        }
        rustix::fs::renameat(&self.fd, tmp, &self.fd, name)?;
        rustix::fs::fsync(&self.fd)?;
        Ok(())
    }

    fn named(&self, name: &OsStr, e: rustix::io::Errno) -> io::Error {
        let e = io::Error::from(e);
        io::Error::new(e.kind(), format!("{}: {e}", self.path.join(name).display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt as _, symlink};

    #[test]
    fn replace_keeps_mode_and_leaves_no_temp() -> io::Result<()> {
        let root = tempfile::tempdir()?;
        let dir = root.path().join("goal");
        std::fs::create_dir(&dir)?;
        let file = dir.join("STATE.md");
        std::fs::write(&file, "old")?;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))?;
        let (d, name) = SafeDir::for_file(root.path(), &file, true)?;
        assert_eq!(d.read(&name, 100)?, b"old");
        d.replace(&name, b"new", None)?;
        assert_eq!(std::fs::read_to_string(&file)?, "new");
        assert_eq!(std::fs::metadata(&file)?.permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read_dir(&dir)?.count(), 1);
        Ok(())
    }

    #[test]
    fn a_folder_outside_the_root_is_refused() -> io::Result<()> {
        let root = tempfile::tempdir()?;
        let outside = tempfile::tempdir()?;
        std::fs::create_dir(root.path().join("repo"))?;
        symlink(outside.path(), root.path().join("repo/goal"))?;
        let err = SafeDir::open_beneath(&root.path().join("repo"), &root.path().join("repo/goal"))
            .expect_err("a symlink out of the root");
        assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{err}");
        Ok(())
    }

    #[test]
    fn swaps_after_the_open_are_never_followed() -> io::Result<()> {
        let root = tempfile::tempdir()?;
        let outside = tempfile::tempdir()?;
        let dir = root.path().join("goal");
        std::fs::create_dir(&dir)?;
        std::fs::write(dir.join("STATE.md"), "old")?;
        let (d, name) = SafeDir::for_file(root.path(), &dir.join("STATE.md"), true)?;
        // The file is swapped for a symlink: reading and replacing refuse it.
        std::fs::write(outside.path().join("victim"), "victim")?;
        std::fs::rename(dir.join("STATE.md"), dir.join("moved.md"))?;
        symlink(outside.path().join("victim"), dir.join("STATE.md"))?;
        assert!(d.read(&name, 100).is_err());
        assert!(d.replace(&name, b"new", None).is_err());
        assert_eq!(std::fs::read_to_string(outside.path().join("victim"))?, "victim");
        // The folder itself is swapped for a symlink out of the root: the write still lands
        // in the folder that was opened, never in the symlink's target.
        std::fs::remove_file(dir.join("STATE.md"))?;
        std::fs::rename(dir.join("moved.md"), dir.join("STATE.md"))?;
        std::fs::rename(&dir, root.path().join("goal.real"))?;
        symlink(outside.path(), &dir)?;
        d.replace(&name, b"new", None)?;
        assert_eq!(std::fs::read_to_string(root.path().join("goal.real/STATE.md"))?, "new");
        assert!(!outside.path().join("STATE.md").exists());
        Ok(())
    }
}
