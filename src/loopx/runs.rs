//! The goal's run index `<runtime_root>/goals/<goal_id>/runs/index.jsonl` (FORMATS.md §2.4,
//! §2.5, §3.2): finding a LoopX run by its id, and appending writegate's compact writeback
//! result rows in LoopX's row shape.
//!
//! Run identity: LoopX stores no `run_id` in most rows; a run is named by its `generated_at`
//! or by its artifact stem (`run_file_stem(generated_at)` plus a writer suffix, e.g.
//! `2026-01-01T08-00-00-08-00-operator-gate`), which is the stem of its `json_path`. A row
//! that does carry `run_id` is matched on it too.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// `<goal_runtime_dir>/runs/index.jsonl`.
#[must_use]
pub fn index_path(goal_runtime_dir: &Path) -> PathBuf {
    goal_runtime_dir.join("runs").join("index.jsonl")
}

/// LoopX `run_file_stem`: `re.sub(r"[^0-9A-Za-z-]+", "-", generated_at).strip("-")`.
#[must_use]
pub fn run_file_stem(generated_at: &str) -> String {
    let mut out = String::new();
    let mut in_run = false;
    for c in generated_at.chars() {
        if c.is_ascii_alphanumeric() || c == '-' {
            out.push(c);
            in_run = false;
        } else if !in_run {
            out.push('-');
            in_run = true;
        }
    }
    out.trim_matches('-').to_owned()
}

/// Reads the index rows as LoopX's `history.py::load_index` does: JSON-object lines only
/// (others skipped), and a later row with the same identity `(generated_at, json_path,
/// markdown_path)` merged into the earlier one (how reward overlays attach).
///
/// # Errors
/// The file cannot be read (a missing file is no rows).
pub fn read_rows(goal_runtime_dir: &Path) -> Result<Vec<Value>, String> {
    let path = index_path(goal_runtime_dir);
    let bytes = match crate::gate::fsutil::read_regular(&path, crate::gate::fsutil::limits::RESULTS, false) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let mut rows: Vec<Value> = Vec::new();
    let mut at: std::collections::HashMap<(String, String, String), usize> = std::collections::HashMap::new();
    for line in bytes.split(|&b| b == b'\n') {
        let Ok(Value::Object(row)) = serde_json::from_slice::<Value>(line) else { continue };
        let text = |k: &str| match row.get(k) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        let key = (text("generated_at"), text("json_path"), text("markdown_path"));
        if let Some(&i) = at.get(&key) {
            if let Some(Value::Object(earlier)) = rows.get_mut(i) {
                earlier.extend(row);
            }
        } else {
            at.insert(key, rows.len());
            rows.push(Value::Object(row));
        }
    }
    Ok(rows)
}

/// The names a row answers to: `generated_at`, its stem, the stem of `json_path`, `run_id`.
#[must_use]
pub fn run_names(row: &Value) -> Vec<String> {
    let mut names = Vec::new();
    if let Some(g) = row.get("generated_at").and_then(Value::as_str) {
        names.push(g.to_owned());
        names.push(run_file_stem(g));
    }
    if let Some(stem) =
        row.get("json_path").and_then(Value::as_str).and_then(|p| Path::new(p).file_stem()).map(|s| s.to_string_lossy())
    {
        names.push(stem.into_owned());
    }
    if let Some(id) = row.get("run_id").and_then(Value::as_str) {
        names.push(id.to_owned());
    }
    names
}

/// The first row named `run_id` (see [`run_names`]).
#[must_use]
pub fn find_run<'a>(rows: &'a [Value], run_id: &str) -> Option<&'a Value> {
    rows.iter().find(|r| run_names(r).iter().any(|n| n == run_id))
}

/// Appends one row as one line (`O_APPEND`, one write, fsync), as LoopX's writers append
/// without a lock. The row must not contain absolute paths (the caller builds it from ids).
///
/// # Errors
/// I/O; a `runs` folder or index that is a symlink or not a regular file.
pub fn append_row(goal_runtime_dir: &Path, row: &Value) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    let dir = goal_runtime_dir.join("runs");
    if std::fs::symlink_metadata(&dir).is_ok_and(|m| !m.is_dir()) {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "runs is not a folder"));
    }
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir)?;
    let path = index_path(goal_runtime_dir);
    if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.file_type().is_file()) {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "runs/index.jsonl is not a regular file"));
    }
    // LoopX writes rows with `json.dumps(row, ensure_ascii=False)` (default separators).
    let mut line = crate::loopx::hash::python_json_default_separators(row, false);
    line.push('\n');
    crate::gate::fsutil::durable_append(&path, line.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_and_names_match_loopx() {
        assert_eq!(run_file_stem("2026-01-02T00:00:00+00:00"), "2026-01-02T00-00-00-00-00");
        assert_eq!(run_file_stem("2026-11-29T13:04:00+00:00"), "2026-11-29T13-04-00-00-00");
        let row = serde_json::json!({"generated_at": "2026-11-29T13:04:00+00:00",
            "json_path": "/rt/goals/g/runs/2026-11-29T13-04-00-00-00-operator-gate.json"});
        let rows = vec![row];
        for id in ["2026-11-29T13:04:00+00:00", "2026-11-29T13-04-00-00-00", "2026-11-29T13-04-00-00-00-operator-gate"]
        {
            assert!(find_run(&rows, id).is_some(), "{id}");
        }
        assert!(find_run(&rows, "2026-11-29T13-04-01-00-00").is_none());
    }
}
