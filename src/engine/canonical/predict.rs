//! The exact predicted Markdown of a LoopX 2.x command (LOOPX2.md §4): the same argv run
//! for real against a scratch copy of the goal's project and runtime files, never touching
//! the live workspace.
//!
//! The copy (a fresh `0700` folder under the temp dir, removed afterwards) holds: the
//! project registry with only this goal, its `repo` and `common_runtime_root` pointed at
//! the copy; the state Markdown; the global registry rewritten the same way; the provider
//! file, the legacy-writer fence and the `file` provider's journal as they are; and the
//! SQLite authority copied with SQLite's online backup API from a read-only connection (the
//! WAL folded in, LoopX's writers never blocked). LoopX runs with `--registry` and
//! `--runtime-root` pointed at the copy; a `refresh-state` there also gets
//! `--no-global-sync --suppress-external-sinks`, so nothing is delivered outside it.
//!
//! The result is exact except the stamps LoopX sets when it commits: timestamps it writes
//! during the run (`updated_at=…Z`, `completed_at=…Z`, …) and the `records_sha256` of a
//! region they feed. [`stamps`] finds those, so the Diff tab can mark them "stamped at
//! apply" and [`same_but_stamps`] can compare the applied Markdown with the prediction.

use super::argv::{LoopxArgv, Verb};
use crate::loopx::registry::{Goal, Workspace};
use chrono::{DateTime, Utc};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long one LoopX command may take (a cold start plus a held lock is ~7 s).
pub const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// A prediction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prediction {
    /// The Markdown the copy started from (the live state when the copy was made).
    pub before: String,
    /// The Markdown after the command ran on the copy.
    pub after: String,
    /// What LoopX printed (`ok`, `status`, `error_code`, the record …).
    pub answer: Value,
    /// The head provider revision of the copy before the run.
    pub head: String,
    /// The UTC window the run took place in (stamps inside it are LoopX's commit stamps).
    pub window: (DateTime<Utc>, DateTime<Utc>),
    /// False when the command was not run on a copy (it would run a validation command):
    /// `answer` is then LoopX's dry run on the live workspace and `after` is `before`.
    pub exact: bool,
}

/// A scratch copy of one goal; the folder is removed on drop.
struct Scratch {
    dir: PathBuf,
    registry: PathBuf,
    runtime_root: PathBuf,
    state_file: PathBuf,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.dir) {
            tracing::warn!(dir = %self.dir.display(), error = %e, "could not remove a prediction copy");
        }
    }
}

/// Removes the copies (`writegate-predict-<pid>-<uuid>`) of writegate processes that no
/// longer run: one that quit or died mid-prediction could not remove its own. Once per
/// process.
fn remove_dead_copies() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let Ok(rd) = std::fs::read_dir(std::env::temp_dir()) else { return };
        for e in rd.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(pid) = name.strip_prefix("writegate-predict-").and_then(|r| r.split('-').next()) else { continue };
            let dead =
                pid.parse::<u32>().is_ok_and(|p| p != std::process::id() && !Path::new(&format!("/proc/{p}")).exists());
            if dead && e.file_type().is_ok_and(|t| t.is_dir()) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    });
}

fn new_dir() -> Result<PathBuf, String> {
    use std::os::unix::fs::DirBuilderExt as _;
    remove_dead_copies();
    let dir = std::env::temp_dir().join(format!("writegate-predict-{}-{}", std::process::id(), uuid::Uuid::new_v4()));
    std::fs::DirBuilder::new().mode(0o700).create(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    Ok(dir)
}

fn io(what: &str, path: &Path) -> impl FnOnce(std::io::Error) -> String {
    let m = format!("{what} {}", path.display());
    move |e| format!("{m}: {e}")
}

/// `registry` with only `goal`'s entry, its `repo` set to `project` and
/// `common_runtime_root` to `rt`.
fn rewritten_registry(registry: &Path, goal_id: &str, project: &Path, rt: &Path) -> Result<Vec<u8>, String> {
    let bytes = crate::gate::fsutil::read_regular(registry, crate::gate::fsutil::limits::REGISTRY, true)
        .map_err(io("cannot read", registry))?;
    let mut doc: Value = serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", registry.display()))?;
    let map = doc.as_object_mut().ok_or("the registry is not a JSON object")?;
    let goals: Vec<Value> = map
        .get("goals")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|g| g.get("id").and_then(Value::as_str) == Some(goal_id))
        .cloned()
        .map(|mut g| {
            if let Some(m) = g.as_object_mut() {
                m.insert("repo".into(), Value::String(project.display().to_string()));
            }
            g
        })
        .collect();
    map.insert("goals".into(), Value::Array(goals));
    map.insert("common_runtime_root".into(), Value::String(rt.display().to_string()));
    serde_json::to_vec_pretty(&doc).map_err(|e| e.to_string())
}

fn copy_if_present(from: &Path, to: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(from) {
        Ok(m) if m.file_type().is_file() => {
            if let Some(dir) = to.parent() {
                std::fs::create_dir_all(dir).map_err(io("cannot make", dir))?;
            }
            std::fs::copy(from, to).map(|_| ()).map_err(io("cannot copy", from))
        }
        Ok(_) => Err(format!("{} is not a regular file", from.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("{}: {e}", from.display())),
    }
}

/// Copies the SQLite authority with the online backup API (read-only source).
fn backup_sqlite(from: &Path, to: &Path) -> Result<(), String> {
    if !from.exists() {
        return Ok(());
    }
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(io("cannot make", dir))?;
    }
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let src = rusqlite::Connection::open_with_flags(from, flags).map_err(|e| format!("{}: {e}", from.display()))?;
    src.busy_timeout(Duration::from_secs(5)).map_err(|e| e.to_string())?;
    src.backup(rusqlite::MAIN_DB, to, None::<fn(rusqlite::backup::Progress)>)
        .map_err(|e| format!("cannot copy the authority {}: {e}", from.display()))
}

fn make_scratch(ws: &Workspace, runtime_root: &Path, goal: &Goal) -> Result<Scratch, String> {
    let dir = new_dir()?;
    let project = dir.join("project");
    let rt = dir.join("rt");
    let registry = project.join(".loopx/registry.json");
    let state_file = crate::loopx::registry::absolute(&project, Path::new(&goal.state_file_rel));
    let scratch = Scratch { dir, registry: registry.clone(), runtime_root: rt.clone(), state_file: state_file.clone() };
    for d in [registry.parent(), state_file.parent(), Some(&rt.join("goals").join(&goal.id).join("task-leases"))]
        .into_iter()
        .flatten()
    {
        std::fs::create_dir_all(d).map_err(io("cannot make", d))?;
    }
    let reg = rewritten_registry(&ws.registry_path, &goal.id, &project, &rt)?;
    std::fs::write(&registry, reg).map_err(io("cannot write", &registry))?;
    let live_global = runtime_root.join("registry.global.json");
    if live_global.is_file() {
        let global = rewritten_registry(&live_global, &goal.id, &project, &rt)?;
        std::fs::write(rt.join("registry.global.json"), global).map_err(io("cannot write", &rt))?;
    }
    let text = crate::gate::fsutil::read_regular(&goal.state_file, crate::gate::fsutil::limits::STATE, true)
        .map_err(io("cannot read", &goal.state_file))?;
    std::fs::write(&state_file, text).map_err(io("cannot write", &state_file))?;
    let live = crate::loopx2::AuthorityFiles::new(runtime_root, &goal.id);
    let copy = crate::loopx2::AuthorityFiles::new(&rt, &goal.id);
    copy_if_present(&live.provider, &copy.provider)?;
    copy_if_present(&live.fence, &copy.fence)?;
    copy_if_present(&live.file_store, &copy.file_store)?;
    backup_sqlite(&live.sqlite, &copy.sqlite)?;
    Ok(scratch)
}

/// The words of the scratch run: the argv, `--execute` for archive-completed, and for
/// refresh-state the switches that keep it from delivering outside the copy.
fn scratch_words(argv: &LoopxArgv) -> Vec<String> {
    let mut words = argv.words();
    words.extend(run_extras(argv.verb));
    if argv.verb == Verb::RefreshState {
        for s in ["--no-global-sync", "--suppress-external-sinks"] {
            if !argv.flags.iter().any(|(n, _)| n == s) {
                words.push(s.to_owned());
            }
        }
    }
    words
}

/// What every real run of `verb` adds to the argv: `--execute` where LoopX previews
/// without it (archive-completed).
#[must_use]
pub fn run_extras(verb: Verb) -> Vec<String> {
    if verb == Verb::TodoArchiveCompleted { vec!["--execute".to_owned()] } else { Vec::new() }
}

/// Runs `argv` with `runner` on a scratch copy of `goal`, whose authority files are under
/// `runtime_root`, and returns the prediction.
///
/// # Errors
/// A message when the copy cannot be made, LoopX cannot run, or prints no JSON. A refusal
/// by LoopX is not an error: it is the prediction's `answer`.
pub fn predict(
    runner: &crate::loopx2::cli::Runner,
    ws: &Workspace,
    runtime_root: &Path,
    goal: &Goal,
    argv: &LoopxArgv,
) -> Result<Prediction, String> {
    let scratch = make_scratch(ws, runtime_root, goal)?;
    let before = std::fs::read_to_string(&scratch.state_file).map_err(io("cannot read", &scratch.state_file))?;
    let head = crate::loopx2::store::read_sqlite(
        &crate::loopx2::AuthorityFiles::new(&scratch.runtime_root, &goal.id).sqlite,
        &goal.id,
    )
    .map(|h| h.provider_revision)
    .unwrap_or_default();
    let start = Utc::now();
    let answer = crate::loopx2::cli::run_json(
        runner,
        &scratch.registry,
        &scratch.runtime_root,
        &scratch_words(argv),
        RUN_TIMEOUT,
    )?;
    let end = Utc::now();
    let after = std::fs::read_to_string(&scratch.state_file).map_err(io("cannot read", &scratch.state_file))?;
    Ok(Prediction { before, after, answer, head, window: (start, end), exact: true })
}

/// LoopX's dry run of `argv` on the live workspace (an admission check that writes nothing
/// and runs no validation command), as a [`Prediction`] that is not exact: used where a real
/// run on a copy would run a todo's validation command, which acts outside the copy.
///
/// # Errors
/// A message when the state cannot be read or LoopX cannot run.
pub fn dry_run_only(
    runner: &crate::loopx2::cli::Runner,
    ws: &Workspace,
    runtime_root: &Path,
    goal: &Goal,
    argv: &LoopxArgv,
    head: &str,
) -> Result<Prediction, String> {
    let before = crate::engine::read_state(&goal.state_file)?;
    let mut words = argv.words();
    words.push("--dry-run".into());
    let start = Utc::now();
    let answer = crate::loopx2::cli::run_json(runner, &ws.registry_path, runtime_root, &words, RUN_TIMEOUT)?;
    let window = (start, Utc::now());
    Ok(Prediction { after: before.clone(), before, answer, head: head.to_owned(), window, exact: false })
}

/// True when running `argv` for real runs a validation command (LoopX runs a todo's
/// `--validation-command` when the todo is completed, and one given to the terminal verb
/// itself): `validated` says whether the target todo's record has
/// `completion_validation_required`.
#[must_use]
pub fn runs_validation(argv: &LoopxArgv, validated: bool) -> bool {
    let terminal = matches!(argv.verb, Verb::TodoComplete | Verb::TodoSupersede)
        || (argv.verb == Verb::TodoUpdate && argv.value("--status") == Some("done"));
    let own = argv.verb != Verb::TodoAdd
        && argv.flags.iter().any(|(n, _)| n == "--validation-command" || n == "--validation-command-json");
    own || (terminal && validated)
}

/// LoopX's own verdict on `text` as `goal`'s Markdown: `todo project-markdown --dry-run` at
/// the head, on a scratch copy whose state file is `text` (LOOPX2.md §2). `ok: true` with
/// `changed: false` means LoopX parses it and its next commit keeps it as it is.
///
/// # Errors
/// A message when the copy cannot be made or LoopX cannot run.
pub fn project_dry_run(
    runner: &crate::loopx2::cli::Runner,
    ws: &Workspace,
    runtime_root: &Path,
    goal: &Goal,
    text: &str,
) -> Result<Value, String> {
    let scratch = make_scratch(ws, runtime_root, goal)?;
    std::fs::write(&scratch.state_file, text).map_err(io("cannot write", &scratch.state_file))?;
    let head = crate::loopx2::store::read_sqlite(
        &crate::loopx2::AuthorityFiles::new(&scratch.runtime_root, &goal.id).sqlite,
        &goal.id,
    )
    .map(|h| h.provider_revision)
    .map_err(|e| format!("cannot read the copied authority: {e}"))?;
    let words: Vec<String> =
        ["todo", "project-markdown", "--goal-id", &goal.id, "--provider-revision", &head, "--dry-run"]
            .map(str::to_owned)
            .into();
    crate::loopx2::cli::run_json(runner, &scratch.registry, &scratch.runtime_root, &words, RUN_TIMEOUT)
}

/// Byte ranges of `text` that LoopX stamps at commit time: ISO-8601 UTC timestamps
/// (`2026-12-01T11:32:00Z`) inside `window` (one second of slack on each side, LoopX
/// stamps whole seconds), and `records_sha256=<hex>` values that `base` does not hold.
#[must_use]
pub fn stamps(text: &str, base: &str, window: (DateTime<Utc>, DateTime<Utc>)) -> Vec<std::ops::Range<usize>> {
    static TIME: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)").expect("regex")
    });
    static RECORDS: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"records_sha256=([0-9a-f]{64})").expect("regex"));
    let (lo, hi) = (window.0 - chrono::Duration::seconds(1), window.1 + chrono::Duration::seconds(1));
    let mut out: Vec<std::ops::Range<usize>> = TIME
        .find_iter(text)
        .filter(|m| DateTime::parse_from_rfc3339(m.as_str()).is_ok_and(|t| (lo..=hi).contains(&t.with_timezone(&Utc))))
        .map(|m| m.range())
        .collect();
    out.extend(
        RECORDS.captures_iter(text).filter_map(|c| c.get(1)).filter(|m| !base.contains(m.as_str())).map(|m| m.range()),
    );
    out.sort_by_key(|r| r.start);
    out
}

/// The predicted change as a unified diff of the Markdown, its commit stamps blanked
/// (`‹stamp›`): what stays the same when only the head it is predicted at moves.
#[must_use]
pub fn change_text(p: &Prediction) -> String {
    let after = without_stamps(&p.after, &stamps(&p.after, &p.before, p.window));
    crate::diff::unified(&p.before, &after, "ACTIVE_GOAL_STATE.md")
}

/// `text` with each stamp range replaced by `‹stamp›`.
#[must_use]
pub fn without_stamps(text: &str, ranges: &[std::ops::Range<usize>]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in ranges {
        if r.start < at {
            continue;
        }
        out.push_str(&text[at..r.start]);
        out.push_str("‹stamp›");
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

/// True when `applied` (written by a run in `applied_window` on a state that was `base`) is
/// the prediction but for the stamps of each run.
#[must_use]
pub fn same_but_stamps(
    p: &Prediction,
    applied: &str,
    base: &str,
    applied_window: (DateTime<Utc>, DateTime<Utc>),
) -> bool {
    let a = without_stamps(applied, &stamps(applied, base, applied_window));
    let b = without_stamps(&p.after, &stamps(&p.after, &p.before, p.window));
    a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_the_run_times_and_new_record_digests_only() {
        let t = |s: &str| DateTime::parse_from_rfc3339(s).expect("time").with_timezone(&Utc);
        let window = (t("2026-12-01T11:32:00Z"), t("2026-12-01T11:32:01Z"));
        let base = "records_sha256=".to_owned() + &"a".repeat(64);
        let text = format!(
            "old updated_at=2026-11-01T00:00:00Z new updated_at=2026-12-01T11:32:01Z {} records_sha256={}\n",
            base,
            "b".repeat(64)
        );
        let r = stamps(&text, &base, window);
        assert_eq!(r.len(), 2, "{r:?}");
        let clean = without_stamps(&text, &r);
        assert!(clean.contains("2026-11-01T00:00:00Z") && clean.contains(&base), "{clean}");
        assert_eq!(clean.matches("‹stamp›").count(), 2);
    }
}
