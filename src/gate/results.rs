//! `gate/results.jsonl`: the append-only result log, one self-checking line per decision.
//! Each line is the record's canonical JSON with a `line_check` field holding the SHA-256
//! of the record without that field. A whole, verifying last record that only lacks its
//! newline counts (the newline is appended on repair). A torn last line (a crash mid-append) is moved aside
//! to `results.jsonl.torn-<unix-ms>` and cut off on open; damage anywhere else is reported,
//! never skipped.

use super::fsutil::durable_append;
use crate::loopx::hash::{canonical_json, sha256_hex};
use crate::wire::ResultRecord;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};

/// How many bytes before the end of the verified part are compared to trust it again.
const TAIL: usize = 4096;

/// What [`ResultsLog::read_remembered`] verified of a log.
#[derive(Clone)]
struct Verified {
    dev: u64,
    ino: u64,
    /// Bytes of whole verified lines.
    len: usize,
    /// Lines in them.
    lines: usize,
    /// Their last [`TAIL`] bytes.
    end: Vec<u8>,
    records: Records,
}

/// A log's records in order, each shared: a log that grew by one line is the list before it
/// with one more pointer, not a copy of every record (the TUI holds the list it showed while
/// an apply reads the log again).
pub type Records = Arc<Vec<Arc<ResultRecord>>>;

/// The verified part of every log this process read, by path.
static VERIFIED: LazyLock<Mutex<HashMap<PathBuf, Verified>>> = LazyLock::new(|| Mutex::new(HashMap::new()));

fn forget(path: &Path) {
    if let Ok(mut m) = VERIFIED.lock() {
        m.remove(path);
    }
}

/// Failures of the results log.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// I/O.
    #[error("results log {path}")]
    Io {
        /// The log.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// A complete line in the middle of the log fails its check or does not parse.
    #[error(
        "results log {path} is damaged at line {line}: {reason}; fix or move the file aside (writegate will not skip it)"
    )]
    Damaged {
        /// The log.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

/// The result log of one goal.
#[derive(Debug, Clone)]
pub struct ResultsLog {
    path: PathBuf,
}

/// Serialises a record to its self-checking line (with trailing `\n`).
#[must_use]
pub fn encode_line(record: &ResultRecord) -> String {
    let mut v = serde_json::to_value(record).unwrap_or(Value::Null);
    let check = format!("sha256:{}", sha256_hex(canonical_json(&v, false).as_bytes()));
    if let Some(map) = v.as_object_mut() {
        map.insert("line_check".into(), Value::String(check));
    }
    let mut line = canonical_json(&v, false);
    line.push('\n');
    line
}

fn decode_line(line: &str) -> Result<ResultRecord, String> {
    let mut v = crate::json::parse_strict(line.as_bytes()).map_err(|e| e.to_string())?;
    let check = v
        .as_object_mut()
        .and_then(|m| m.remove("line_check"))
        .and_then(|c| c.as_str().map(str::to_owned))
        .ok_or("missing line_check")?;
    let actual = format!("sha256:{}", sha256_hex(canonical_json(&v, false).as_bytes()));
    if actual != check {
        return Err("line_check mismatch".into());
    }
    serde_json::from_value(v).map_err(|e| e.to_string())
}

impl ResultsLog {
    /// The log at `path` (created on first append).
    #[must_use]
    pub fn new(path: PathBuf) -> Self {
        Self { path }
    }

    /// The goal this log belongs to (`<goal>/gate/results.jsonl`).
    fn goal_id(&self) -> Option<String> {
        self.path.parent()?.parent()?.file_name().map(|n| n.to_string_lossy().into_owned())
    }

    /// True when the last line is incomplete and does not verify (a torn append not yet
    /// repaired). A whole record that only lacks its newline is not torn.
    #[must_use]
    pub fn has_torn_tail(&self) -> bool {
        let Ok(b) = crate::gate::fsutil::read_regular(&self.path, crate::gate::fsutil::limits::RESULTS, false) else {
            return false;
        };
        if b.is_empty() || b.last() == Some(&b'\n') {
            return false;
        }
        let start = b.iter().rposition(|&c| c == b'\n').map_or(0, |n| n + 1);
        std::str::from_utf8(&b[start..]).map_err(|e| e.to_string()).and_then(decode_line).is_err()
    }

    /// True when the log is missing, empty or ends in `\n` (one byte read): nothing to
    /// repair.
    #[must_use]
    pub fn ends_whole(&self) -> bool {
        use std::os::unix::fs::FileExt as _;
        match crate::gate::fsutil::open_regular(&self.path, crate::gate::fsutil::limits::RESULTS) {
            Err(e) => e.kind() == std::io::ErrorKind::NotFound,
            Ok(f) => {
                let len = f.metadata().map_or(0, |m| m.len());
                let mut last = [0u8; 1];
                len == 0 || (f.read_exact_at(&mut last, len - 1).is_ok() && last[0] == b'\n')
            }
        }
    }

    /// The file path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads every record, oldest first. A final line without its `\n` that verifies is a
    /// record (repair appends the `\n`); one that does not is torn: repaired when `repair`
    /// is true (moved aside, then cut off), and ignored otherwise.
    ///
    /// # Errors
    /// [`ResultsError::Damaged`] for a bad complete line that is not the last;
    /// [`ResultsError::Io`].
    pub fn read_all(&self, repair: bool) -> Result<Vec<ResultRecord>, ResultsError> {
        let io = |source| ResultsError::Io { path: self.path.clone(), source };
        let bytes = match crate::gate::fsutil::read_regular(&self.path, crate::gate::fsutil::limits::RESULTS, false) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io(e)),
        };
        Ok(self.parse(&bytes, 0, 0, repair)?.0)
    }

    /// The records of `bytes`, which start at byte `base` and line `first_line` of the log
    /// (both 0 for the whole file), and how many bytes of it are whole verified lines
    /// (ending in `\n`). See [`ResultsLog::read_all`] for the last line and `repair`.
    fn parse(
        &self,
        bytes: &[u8],
        base: usize,
        first_line: usize,
        repair: bool,
    ) -> Result<(Vec<ResultRecord>, usize), ResultsError> {
        let io = |source| ResultsError::Io { path: self.path.clone(), source };
        let goal = self.goal_id();
        let mut records = Vec::new();
        let mut offset = 0usize;
        let mut whole = 0usize;
        let mut line_no = first_line;
        while offset < bytes.len() {
            line_no += 1;
            let rest = &bytes[offset..];
            let (line, complete) = match rest.iter().position(|&b| b == b'\n') {
                Some(n) => (&rest[..n], true),
                None => (rest, false),
            };
            let next = offset + line.len() + usize::from(complete);
            let parsed = std::str::from_utf8(line).map_err(|e| e.to_string()).and_then(decode_line);
            let parsed = parsed.and_then(|r| match &goal {
                Some(g) if *g != r.goal_id => {
                    Err(format!("the record is for goal {:?}, this is the log of {g:?}", r.goal_id))
                }
                _ => Ok(r),
            });
            match (parsed, complete) {
                (Ok(r), true) => {
                    records.push(r);
                    whole = next;
                }
                (Ok(r), false) => {
                    // A whole, self-checking record whose newline did not land: it was
                    // appended, so it counts; repair only completes the line.
                    records.push(r);
                    if repair {
                        durable_append(&self.path, b"\n").map_err(io)?;
                    }
                    break;
                }
                (Err(_), false) => {
                    // An incomplete last line: a crash mid-append.
                    if repair {
                        self.repair_tail(base + offset, &bytes[offset..]).map_err(io)?;
                    }
                    break;
                }
                (Err(reason), true) => {
                    return Err(ResultsError::Damaged { path: self.path.clone(), line: line_no, reason });
                }
            }
            offset = next;
        }
        Ok((records, whole))
    }

    /// [`ResultsLog::read_all`] without repair, remembering what it verified: when the log
    /// is the same file (device, inode) and still holds the bytes that ended the verified
    /// part (its last 4 KiB, compared), only what was appended since is read and verified.
    /// So an apply costs the same after 10,000 decisions as after ten (issue 15). A file
    /// replaced, cut or rewritten at its verified end is read whole again; a rewrite of
    /// earlier lines that keeps that end is seen by `writegate check` and the next process
    /// (which read every line).
    ///
    /// # Errors
    /// As [`ResultsLog::read_all`].
    pub fn read_remembered(&self) -> Result<Records, ResultsError> {
        use std::os::unix::fs::{FileExt as _, MetadataExt as _};
        let io = |source| ResultsError::Io { path: self.path.clone(), source };
        let f = match crate::gate::fsutil::open_regular(&self.path, crate::gate::fsutil::limits::RESULTS) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                forget(&self.path);
                return Ok(Arc::new(Vec::new()));
            }
            Err(e) => return Err(io(e)),
        };
        let meta = f.metadata().map_err(io)?;
        let len = usize::try_from(meta.len()).unwrap_or(usize::MAX);
        let known = VERIFIED.lock().ok().and_then(|m| m.get(&self.path).cloned()).filter(|v| {
            let mut end = vec![0u8; v.end.len()];
            v.dev == meta.dev()
                && v.ino == meta.ino()
                && len >= v.len
                && f.read_exact_at(&mut end, (v.len - v.end.len()) as u64).is_ok()
                && end == v.end
        });
        let (base, lines, mut records) = match known {
            Some(v) if v.len == len => return Ok(v.records),
            Some(v) => (v.len, v.lines, v.records),
            None => (0, 0, Arc::new(Vec::new())),
        };
        let mut fresh = vec![0u8; len - base];
        f.read_exact_at(&mut fresh, base as u64).map_err(io)?;
        let (more, whole) = self.parse(&fresh, base, lines, false)?;
        let whole_records = if whole == fresh.len() { more.len() } else { more.len().saturating_sub(1) };
        let (kept, beyond) = more.split_at(whole_records);
        Arc::make_mut(&mut records).extend(kept.iter().cloned().map(Arc::new));
        let verified_len = base + whole;
        if let Ok(mut m) = VERIFIED.lock() {
            let from = verified_len.saturating_sub(TAIL);
            let mut end = vec![0u8; verified_len - from];
            if f.read_exact_at(&mut end, from as u64).is_ok() {
                // Every verified line is one record.
                let lines = records.len();
                m.insert(
                    self.path.clone(),
                    Verified {
                        dev: meta.dev(),
                        ino: meta.ino(),
                        len: verified_len,
                        lines,
                        end,
                        records: records.clone(),
                    },
                );
            }
        }
        if beyond.is_empty() {
            return Ok(records);
        }
        let mut all = (*records).clone();
        all.extend(beyond.iter().cloned().map(Arc::new));
        Ok(Arc::new(all))
    }

    fn repair_tail(&self, keep: usize, torn: &[u8]) -> std::io::Result<()> {
        let ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis());
        let aside = self.path.with_file_name(format!("results.jsonl.torn-{ms}"));
        std::fs::write(&aside, torn)?;
        let f = std::fs::OpenOptions::new().write(true).open(&self.path)?;
        f.set_len(keep as u64)?;
        f.sync_all()?;
        tracing::warn!(path = %self.path.display(), aside = %aside.display(), "repaired torn last line of results log");
        Ok(())
    }

    /// Appends one record durably (one `write`, then fsync).
    ///
    /// # Errors
    /// [`ResultsError::Io`].
    pub fn append(&self, record: &ResultRecord) -> Result<(), ResultsError> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| ResultsError::Io { path: self.path.clone(), source })?;
        }
        durable_append(&self.path, encode_line(record).as_bytes())
            .map_err(|source| ResultsError::Io { path: self.path.clone(), source })
    }
}
