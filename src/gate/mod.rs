//! The gate folder of a goal, `<runtime_root>/goals/<goal_id>/gate/`: `inbox/` (pending
//! items), `decided/` (items after their result is recorded), `results.jsonl`, and
//! `applying/` (write-ahead markers that make an interrupted apply recoverable).

pub mod allowlist;
pub mod fsutil;
pub mod results;
pub mod revisions;
pub mod safedir;

use std::path::{Path, PathBuf};

/// True for item ids writegate accepts: 1–200 characters from `[A-Za-z0-9._:@+=-]`, not
/// starting with `.` (no separators, whitespace, control or bidi characters).
#[must_use]
pub fn is_safe_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 200
        && !id.starts_with('.')
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '@' | '+' | '=' | '-'))
}

/// A printable form of an arbitrary file stem: unsafe characters become `\u{XXXX}`.
#[must_use]
pub fn visible_id(raw: &str) -> String {
    raw.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '@' | '+' | '=' | '-') {
                c.to_string()
            } else {
                format!("\\u{{{:04x}}}", c as u32)
            }
        })
        .collect()
}

/// Paths of one goal's gate folder.
#[derive(Debug, Clone)]
pub struct GateDir {
    root: PathBuf,
}

impl GateDir {
    /// The gate folder under a goal runtime directory.
    #[must_use]
    pub fn new(goal_runtime_dir: &Path) -> Self {
        Self { root: goal_runtime_dir.join("gate") }
    }

    /// `gate/`.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `gate/inbox/`.
    #[must_use]
    pub fn inbox(&self) -> PathBuf {
        self.root.join("inbox")
    }

    /// `gate/decided/`.
    #[must_use]
    pub fn decided(&self) -> PathBuf {
        self.root.join("decided")
    }

    /// `gate/applying/`.
    #[must_use]
    pub fn applying(&self) -> PathBuf {
        self.root.join("applying")
    }

    /// `gate/revisions/`: the revision snapshots.
    #[must_use]
    pub fn revisions(&self) -> revisions::RevisionStore {
        revisions::RevisionStore::new(self.root.join("revisions"))
    }

    /// `gate/results.jsonl`.
    #[must_use]
    pub fn results(&self) -> results::ResultsLog {
        results::ResultsLog::new(self.root.join("results.jsonl"))
    }

    /// Write-ahead markers in `applying/` with extension `ext` (`json`: applies, `release`:
    /// lease releases, `loopx`: LoopX 2.x commands), sorted; temp dot-files are not markers.
    #[must_use]
    pub fn markers(&self, ext: &str) -> Vec<PathBuf> {
        Self::markers_among(&self.applying_entries(), ext)
    }

    /// Every entry of `applying/` (markers and temps), sorted; empty when it cannot be
    /// listed. One listing serves every kind of marker ([`Self::markers_among`]).
    #[must_use]
    pub fn applying_entries(&self) -> Vec<PathBuf> {
        let Ok(rd) = std::fs::read_dir(self.applying()) else { return Vec::new() };
        let mut out: Vec<PathBuf> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
        out.sort();
        out
    }

    /// The markers with extension `ext` among `entries` (see [`Self::markers`]).
    #[must_use]
    pub fn markers_among(entries: &[PathBuf], ext: &str) -> Vec<PathBuf> {
        entries
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .filter(|p| !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
            .cloned()
            .collect()
    }

    /// Pending item files: `inbox/*.json`, skipping dot-files and temp files (agents write
    /// `.<name>.tmp` then rename). Sorted by name.
    #[must_use]
    pub fn pending_files(&self) -> Vec<PathBuf> {
        let Ok(rd) = std::fs::read_dir(self.inbox()) else {
            return Vec::new();
        };
        let mut out: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                !name.starts_with('.') && !is_dir && Path::new(&name).extension().is_some_and(|x| x == "json")
            })
            .map(|e| e.path())
            .collect();
        out.sort();
        out
    }
}

/// Drops `doc` into `inbox/` atomically (temp dot-file, fsync, rename) under a new id
/// `<8 hex of the document digest>-<write_class>-<UTC yyyymmddThhmmssZ>` (distinct first
/// characters, which the typed confirmation asks for); returns the id.
///
/// # Errors
/// I/O errors.
pub fn drop_item(gate: &GateDir, doc: &serde_json::Value, stamp: &str, write_class: &str) -> std::io::Result<String> {
    let body = serde_json::to_vec_pretty(doc).map_err(std::io::Error::other)?;
    let digest = crate::loopx::hash::sha256_hex(&body);
    let class: String = write_class.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    let id = format!("{}-{class}-{stamp}", &digest[..8]);
    std::fs::create_dir_all(gate.inbox())?;
    let path = gate.inbox().join(format!("{id}.json"));
    if path.exists() {
        return Err(std::io::Error::new(std::io::ErrorKind::AlreadyExists, format!("item {id} already pending")));
    }
    let mut bytes = body;
    bytes.push(b'\n');
    fsutil::atomic_write(&path, &bytes)?;
    Ok(id)
}
