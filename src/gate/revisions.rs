//! Revision snapshots, `gate/revisions/<hex>`: each state text writegate decides on or writes,
//! kept once, named by its LoopX revision (`sha256:<hex>` of the universal-newline text,
//! FORMATS.md §5.2) so the base an agent read (`expected_revision`) can be found again for a
//! 3-way conflict view. The bytes are kept as read (CRLF, BOM); two texts that differ only in
//! newlines share a revision and the first one kept stays.
//!
//! Nothing in the store is trusted: [`RevisionStore::load`] re-hashes what it reads and
//! refuses a file whose text is not the revision it is named after. The store is bounded by
//! [`RevisionStore::prune`] (`writegate revisions prune`), which removes the oldest
//! snapshots first and never one a pending item still names as its base.

use super::fsutil::{atomic_write, limits, read_regular};
use crate::loopx::hash::revision_of_text;
use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Default bound on a goal's snapshots, in bytes (256 MiB).
pub const DEFAULT_MAX_BYTES: u64 = 256 * 1024 * 1024;
/// Default bound on a snapshot's age (30 days), by modification time.
pub const DEFAULT_MAX_AGE: Duration = Duration::from_secs(30 * 24 * 3600);

/// How recent a kept snapshot's modification time may be for [`RevisionStore::keep`] to leave
/// it as it is rather than set it to now (10 minutes; [`DEFAULT_MAX_AGE`] is 30 days).
const TOUCH_EVERY: Duration = Duration::from_secs(600);

/// The snapshot folder of one goal's gate.
#[derive(Debug, Clone)]
pub struct RevisionStore {
    dir: PathBuf,
}

/// What [`RevisionStore::prune`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PruneReport {
    /// Snapshots kept, and their total size in bytes.
    pub kept: usize,
    /// Total size of the kept snapshots, bytes.
    pub kept_bytes: u64,
    /// Snapshots removed, and the bytes they held.
    pub removed: usize,
    /// Bytes freed.
    pub removed_bytes: u64,
    /// Files in the folder that are not snapshots (left alone).
    pub foreign: usize,
}

/// `sha256:<64 lowercase hex>` → `<hex>`; `None` for anything else.
fn hex_of(revision: &str) -> Option<&str> {
    let hex = revision.strip_prefix("sha256:")?;
    (hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))).then_some(hex)
}

impl RevisionStore {
    /// The store at `dir` (normally `gate/revisions/`); nothing is created until a snapshot
    /// is kept.
    #[must_use]
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// The snapshot folder.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Refuses a snapshot folder that is a symlink: it could be another goal's store (whose
    /// bases a prune would then remove) or anywhere else.
    fn check_dir(&self) -> io::Result<()> {
        match std::fs::symlink_metadata(&self.dir) {
            Ok(m) if m.file_type().is_symlink() => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} is a symlink; snapshots are kept only in the goal's own folder", self.dir.display()),
            )),
            _ => Ok(()),
        }
    }

    /// Keeps `text` once and returns its revision. A snapshot already present is left as it
    /// is (its modification time is refreshed so pruning by age keeps what is still in use).
    ///
    /// # Errors
    /// `InvalidData` when the folder is a symlink; I/O errors creating the folder or writing
    /// the snapshot (written atomically: a crash
    /// leaves either no snapshot or a whole one).
    pub fn keep(&self, text: &str) -> io::Result<String> {
        self.keep_known(text, None)
    }

    /// [`Self::keep`] given the text's revision where the caller worked it out
    /// ([`revision_of_text`] of `text`), so the text is not hashed again: a snapshot already
    /// present is compared with `text` byte for byte first, and hashed only when its bytes
    /// differ (the same revision with other newlines keeps the text kept first).
    ///
    /// # Errors
    /// As [`Self::keep`]; `InvalidInput` for a malformed revision.
    pub fn keep_known(&self, text: &str, revision: Option<&str>) -> io::Result<String> {
        use std::os::unix::fs::DirBuilderExt as _;
        self.check_dir()?;
        let revision = revision.map_or_else(|| revision_of_text(text), str::to_owned);
        debug_assert_eq!(revision, revision_of_text(text), "keep_known was given another text's revision");
        let hex = hex_of(&revision)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("not a revision: {revision:?}")))?;
        let path = self.dir.join(hex);
        // Equal bytes are that revision's text (no hash needed); other bytes may be too (a
        // revision reads newlines as LoopX does, so a CRLF text kept first stays, as read);
        // anything else (missing, damaged, planted) is written again.
        let present = match read_regular(&path, limits::STATE, false) {
            Ok(kept) if kept == text.as_bytes() => true,
            Ok(kept) => String::from_utf8(kept).is_ok_and(|t| revision_of_text(&t) == revision),
            Err(_) => false,
        };
        if present {
            // Best effort: a failed time update only makes the snapshot look older. A time set
            // in the last `TOUCH_EVERY` is left as it is: pruning counts age in days, and in a
            // batch every apply kept the text before, which the apply before had just written.
            let now = SystemTime::now();
            let recent = std::fs::symlink_metadata(&path)
                .and_then(|m| m.modified())
                .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age < TOUCH_EVERY));
            if !recent {
                use std::os::unix::fs::OpenOptionsExt as _;
                if let Ok(f) = std::fs::File::options().read(true).custom_flags(super::fsutil::O_NONBLOCK).open(&path) {
                    let _ = f.set_modified(now);
                }
            }
            return Ok(revision);
        }
        // Missing, damaged or planted: (re)written whole; a rename replaces a planted
        // symlink itself, never its target.
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&self.dir)?;
        atomic_write(&path, text.as_bytes())?;
        Ok(revision)
    }

    /// The text kept for `revision` (`sha256:<hex>`): `Ok(None)` when there is none.
    ///
    /// # Errors
    /// `InvalidInput` for a malformed revision; `InvalidData` when the folder is a symlink or
    /// the file is not a regular
    /// UTF-8 file of at most the state size limit or its text is not that revision (a
    /// damaged or planted snapshot is never used as a base); other I/O errors.
    pub fn load(&self, revision: &str) -> io::Result<Option<String>> {
        let hex = hex_of(revision)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("not a revision: {revision:?}")))?;
        self.check_dir()?;
        let bytes = match read_regular(&self.dir.join(hex), limits::STATE, false) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let text = String::from_utf8(bytes)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "snapshot is not UTF-8"))?;
        if revision_of_text(&text) != revision {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "snapshot text does not match its revision"));
        }
        Ok(Some(text))
    }

    /// Bounds the store: removes snapshots older than `max_age`, then the oldest ones until
    /// the rest fit in `max_bytes`. Revisions in `protect` (the bases pending items name, the
    /// current state) are never removed, even when that leaves the store over its bound.
    /// Files whose names are not 64 lowercase hex digits are counted and left alone.
    ///
    /// # Errors
    /// `InvalidData` when the folder is a symlink; I/O errors listing the folder or removing
    /// a snapshot (a missing folder is an empty store).
    pub fn prune(
        &self,
        max_bytes: u64,
        max_age: Duration,
        protect: &BTreeSet<String>,
        now: SystemTime,
    ) -> io::Result<PruneReport> {
        self.check_dir()?;
        let mut report = PruneReport::default();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(report),
            Err(e) => return Err(e),
        };
        // (modified, name, size) of each snapshot that may go.
        let mut candidates = Vec::new();
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let meta = entry.metadata()?;
            if !meta.is_file() || hex_of(&format!("sha256:{name}")).is_none() {
                report.foreign += 1;
                continue;
            }
            if protect.contains(&format!("sha256:{name}")) {
                report.kept += 1;
                report.kept_bytes += meta.len();
                continue;
            }
            candidates.push((meta.modified().unwrap_or(SystemTime::UNIX_EPOCH), name, meta.len()));
        }
        candidates.sort();
        let mut total: u64 = report.kept_bytes + candidates.iter().map(|c| c.2).sum::<u64>();
        for (modified, name, size) in candidates {
            let too_old = now.duration_since(modified).is_ok_and(|age| age > max_age);
            if too_old || total > max_bytes {
                std::fs::remove_file(self.dir.join(&name))?;
                total -= size;
                report.removed += 1;
                report.removed_bytes += size;
            } else {
                report.kept += 1;
                report.kept_bytes += size;
            }
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, RevisionStore) {
        let dir = tempfile::tempdir().expect("tmp");
        let s = RevisionStore::new(dir.path().join("revisions"));
        (dir, s)
    }

    #[test]
    fn keeps_once_and_loads_back_exact_bytes() {
        let (_d, s) = store();
        let crlf = "\u{feff}# Goal\r\n\r\n- [ ] one\r\n";
        let rev = s.keep(crlf).expect("keep");
        assert_eq!(rev, revision_of_text(crlf));
        assert_eq!(s.load(&rev).expect("load").as_deref(), Some(crlf));
        // Same revision with LF newlines: the first text kept stays.
        let lf = "\u{feff}# Goal\n\n- [ ] one\n";
        assert_eq!(s.keep(lf).expect("keep"), rev);
        assert_eq!(s.load(&rev).expect("load").as_deref(), Some(crlf));
        assert_eq!(std::fs::read_dir(s.dir()).expect("dir").count(), 1, "deduplicated, no temp files left");
        assert_eq!(s.load(&revision_of_text("other")).expect("load"), None);
    }

    #[test]
    fn keeping_a_kept_text_again_renews_its_time_only_once_it_is_a_while_old() {
        let (_d, s) = store();
        let rev = s.keep("# Goal\n").expect("keep");
        let path = s.dir().join(&rev[7..]);
        let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).expect("mtime");
        let set = |t: SystemTime| std::fs::File::options().write(true).open(&path).and_then(|f| f.set_modified(t));
        let recent = SystemTime::now() - TOUCH_EVERY / 2;
        set(recent).expect("set");
        s.keep("# Goal\n").expect("keep");
        assert_eq!(mtime(&path), recent, "a recent time is left as it is");
        let old = SystemTime::now() - TOUCH_EVERY * 2;
        set(old).expect("set");
        s.keep("# Goal\n").expect("keep");
        assert!(mtime(&path) > SystemTime::now() - TOUCH_EVERY / 2, "an old time is renewed");
    }

    #[test]
    fn refuses_malformed_revisions_and_planted_or_damaged_snapshots() {
        let (_d, s) = store();
        for bad in ["", "sha256:../../etc/passwd", "sha256:ABC", "md5:00", &format!("sha256:{}", "A".repeat(64))] {
            assert_eq!(s.load(bad).expect_err(bad).kind(), io::ErrorKind::InvalidInput, "{bad}");
        }
        let rev = s.keep("the real text\n").expect("keep");
        std::fs::write(s.dir().join(&rev[7..]), "planted text\n").expect("plant");
        assert_eq!(s.load(&rev).expect_err("planted").kind(), io::ErrorKind::InvalidData);
        std::fs::write(s.dir().join(&rev[7..]), [0xff, 0xfe]).expect("damage");
        assert_eq!(s.load(&rev).expect_err("not utf-8").kind(), io::ErrorKind::InvalidData);
        // Keeping the real text again repairs the snapshot.
        assert_eq!(s.keep("the real text\n").expect("keep"), rev);
        assert_eq!(s.load(&rev).expect("load").as_deref(), Some("the real text\n"));
        // A symlink is never followed.
        let other = s.keep("elsewhere\n").expect("keep");
        let link_rev = revision_of_text("linked\n");
        std::os::unix::fs::symlink(s.dir().join(&other[7..]), s.dir().join(&link_rev[7..])).expect("symlink");
        assert!(s.load(&link_rev).is_err());
    }

    #[test]
    fn prune_bounds_by_age_then_size_oldest_first_and_spares_protected() {
        let (_d, s) = store();
        let now = SystemTime::now();
        let day = Duration::from_secs(86_400);
        let mut revs = Vec::new();
        for (i, age_days) in [40u64, 10, 5, 2, 1].iter().enumerate() {
            let text = format!("{i}{}\n", "x".repeat(99));
            let rev = s.keep(&text).expect("keep");
            let f = std::fs::File::options().write(true).open(s.dir().join(&rev[7..])).expect("open");
            f.set_modified(now - day * u32::try_from(*age_days).expect("small")).expect("mtime");
            revs.push(rev);
        }
        std::fs::write(s.dir().join("notes.txt"), "operator's").expect("foreign");
        let protect: BTreeSet<String> = [revs[1].clone()].into();
        // 40 days: too old. Then 4 × 101 bytes > 310: the oldest unprotected (5 days) goes,
        // the protected 10-day one stays.
        let r = s.prune(310, DEFAULT_MAX_AGE, &protect, now).expect("prune");
        assert_eq!(r, PruneReport { kept: 3, kept_bytes: 303, removed: 2, removed_bytes: 202, foreign: 1 });
        assert_eq!(s.load(&revs[0]).expect("load"), None);
        assert!(s.load(&revs[1]).expect("load").is_some());
        assert_eq!(s.load(&revs[2]).expect("load"), None);
        assert!(s.load(&revs[3]).expect("load").is_some() && s.load(&revs[4]).expect("load").is_some());
        assert!(s.dir().join("notes.txt").exists());
        // A symlinked folder (say, to another goal's store) is refused for every operation.
        let elsewhere = tempfile::tempdir().expect("tmp");
        let other = RevisionStore::new(elsewhere.path().join("revisions"));
        let rev = other.keep("another goal's base\n").expect("keep");
        let linked = RevisionStore::new(s.dir().with_file_name("linked"));
        std::os::unix::fs::symlink(other.dir(), linked.dir()).expect("symlink");
        assert_eq!(
            linked.prune(0, Duration::ZERO, &BTreeSet::new(), now).expect_err("prune").kind(),
            io::ErrorKind::InvalidData
        );
        assert!(linked.keep("x\n").is_err() && linked.load(&rev).is_err());
        assert!(other.load(&rev).expect("load").is_some(), "the other store is untouched");
        // A missing folder is an empty store.
        let empty = RevisionStore::new(s.dir().join("nope"));
        assert_eq!(empty.prune(0, Duration::ZERO, &BTreeSet::new(), now).expect("prune"), PruneReport::default());
    }
}
