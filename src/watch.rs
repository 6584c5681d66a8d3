//! Watching the workspace: notify (debounced with notify-debouncer-full) on every folder
//! whose files writegate shows — the registry's folder, each state file's folder, each
//! goal's runtime, gate and inbox folders, leases, and `goals/` for new goals — sending
//! [`WatchMsg`]s on a channel. Knows nothing of the UI. If native watching cannot be set up
//! (inotify limits, network file systems) it falls back to polling and says so.

use crate::engine::Engine;
use notify_debouncer_full::notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, new_debouncer};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::{Arc, atomic::AtomicBool, atomic::Ordering};
use std::time::{Duration, SystemTime};

/// Debounce window: bursts of events (editor saves, rename dances) within it coalesce.
pub const DEBOUNCE: Duration = Duration::from_millis(4);

/// What the watcher reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchMsg {
    /// These files or folders changed (already filtered: no lock files, no temp files).
    Changed(Vec<PathBuf>),
    /// Events may have been lost (queue overflow, watcher error): reload everything.
    Rescan(String),
    /// How the workspace is being watched now.
    Mode(WatchMode),
}

/// Native notifications or polling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchMode {
    /// inotify (or the platform's equivalent).
    Native,
    /// Polling every `interval`, because `reason`.
    Polling {
        /// Poll period.
        interval: Duration,
        /// Why native watching is not used.
        reason: String,
    },
}

/// The folders to watch (each non-recursively).
#[must_use]
pub fn watch_dirs(engine: &Engine) -> Vec<PathBuf> {
    let mut dirs = BTreeSet::new();
    if let Some(d) = engine.ws.registry_path.parent() {
        dirs.insert(d.to_owned());
    }
    // The runtime root itself, so a `goals/` folder made after start is seen.
    dirs.insert(engine.ws.runtime_root.clone());
    dirs.insert(engine.ws.runtime_root.join("goals"));
    // LoopX 2.x authorities: lease-only commits change nothing but the store (LOOPX2.md §5),
    // under the runtime root or a default root where LoopX keeps them.
    for root in std::iter::once(&engine.ws.runtime_root).chain(&engine.ws.other_runtime_roots) {
        for sub in ["authority", "authority/sqlite-v0", "authority/file-v0"] {
            dirs.insert(root.join(sub));
        }
    }
    for g in &engine.ws.goals {
        if let Some(d) = g.state_file.parent() {
            dirs.insert(d.to_owned());
        }
        if let Ok(rt) = engine.ws.goal_runtime_dir(&g.id) {
            dirs.insert(rt.join("gate").join("inbox"));
            dirs.insert(rt.join("gate"));
            dirs.insert(rt.join("task-leases"));
            dirs.insert(rt);
        }
    }
    dirs.into_iter().filter(|d| d.is_dir()).collect()
}

/// The folders to watch with their inode numbers: a folder removed and made again (a gate
/// folder replaced) is a new folder to watch, though its path is the same.
#[must_use]
pub fn watch_set(engine: &Engine) -> Vec<(PathBuf, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    watch_dirs(engine).into_iter().filter_map(|d| std::fs::metadata(&d).ok().map(|m| (d, m.ino()))).collect()
}

/// True for paths whose changes matter: not lock files, incident rows, temp files or
/// writegate's own markers. A state file's lock (`<name>.md.lock`) does matter: its holder
/// record changes when a writer takes or releases it, which the lock check shows.
#[must_use]
#[allow(clippy::case_sensitive_file_extension_comparisons)] // exact LoopX / writegate names
pub fn is_relevant(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if name.ends_with(".md.lock") {
        return true;
    }
    !(name.ends_with(".lock")
        || name.ends_with(".tmp")
        || name.ends_with(".incidents.jsonl")
        // SQLite's shared-memory index changes on every read, writegate's own included.
        || name.ends_with(".sqlite-shm")
        || name == ".gate.lock"
        || name.starts_with(".#"))
}

/// True for a metadata-only event (ATTRIB: owner, mode, ctime) on a SQLite store file: a
/// reader opening the store touches its `-wal` that way (SQLite re-owns the file when it
/// runs as root), writegate's own read-only reads included. A commit writes data.
fn is_store_metadata_only(e: &notify_debouncer_full::DebouncedEvent) -> bool {
    matches!(e.kind, EventKind::Modify(notify_debouncer_full::notify::event::ModifyKind::Metadata(_)))
        && e.paths.iter().all(|p| p.to_str().is_some_and(|s| s.ends_with(".sqlite") || s.ends_with(".sqlite-wal")))
}

/// A running watcher; dropping it stops watching.
pub struct Watcher {
    _native: Option<
        notify_debouncer_full::Debouncer<
            notify_debouncer_full::notify::RecommendedWatcher,
            notify_debouncer_full::RecommendedCache,
        >,
    >,
    stop: Arc<AtomicBool>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Starts watching `dirs`, sending messages on `tx`. Native first; on any failure (or when
/// `force_poll`), a polling thread compares folder listings and mtimes every `poll`.
#[must_use]
pub fn start(dirs: &[PathBuf], poll: Duration, force_poll: bool, tx: &Sender<WatchMsg>) -> Watcher {
    let stop = Arc::new(AtomicBool::new(false));
    let reason = if force_poll {
        "polling requested".to_owned()
    } else {
        match start_native(dirs, tx.clone()) {
            Ok(d) => {
                let _ = tx.send(WatchMsg::Mode(WatchMode::Native));
                return Watcher { _native: Some(d), stop };
            }
            Err(reason) => {
                tracing::warn!(reason, "native watching unavailable; polling");
                reason
            }
        }
    };
    // The baseline is taken before the mode is announced, so nothing written after the
    // announcement can be missed.
    start_polling(dirs.to_vec(), poll, tx.clone(), stop.clone());
    let _ = tx.send(WatchMsg::Mode(WatchMode::Polling { interval: poll, reason }));
    Watcher { _native: None, stop }
}

fn start_native(
    dirs: &[PathBuf],
    tx: Sender<WatchMsg>,
) -> Result<
    notify_debouncer_full::Debouncer<
        notify_debouncer_full::notify::RecommendedWatcher,
        notify_debouncer_full::RecommendedCache,
    >,
    String,
> {
    let mut debouncer =
        new_debouncer(DEBOUNCE, Some(Duration::from_millis(2)), move |res: DebounceEventResult| match res {
            Ok(events) => {
                if events.iter().any(|e| e.need_rescan()) {
                    let _ = tx.send(WatchMsg::Rescan("the watcher asked for a rescan (events lost)".into()));
                    return;
                }
                // Access events (open/close for reading) are ignored: writegate's own reads
                // must never trigger a reload, or it would reload forever.
                let paths: BTreeSet<PathBuf> = events
                    .iter()
                    .filter(|e| !matches!(e.kind, EventKind::Access(_)))
                    .filter(|e| !is_store_metadata_only(e))
                    .flat_map(|e| e.paths.iter().cloned())
                    .filter(|p| is_relevant(p))
                    .collect();
                if !paths.is_empty() {
                    let _ = tx.send(WatchMsg::Changed(paths.into_iter().collect()));
                }
            }
            Err(errors) => {
                let _ = tx.send(WatchMsg::Rescan(format!(
                    "watch error: {}",
                    errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
                )));
            }
        })
        .map_err(|e| e.to_string())?;
    for d in dirs {
        debouncer.watch(d, RecursiveMode::NonRecursive).map_err(|e| format!("cannot watch {}: {e}", d.display()))?;
    }
    Ok(debouncer)
}

type Fingerprint = Vec<(PathBuf, Option<SystemTime>, u64)>;

fn fingerprint(dirs: &[PathBuf]) -> Fingerprint {
    let mut out = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else {
            continue;
        };
        for e in rd.filter_map(Result::ok) {
            let p = e.path();
            if !is_relevant(&p) {
                continue;
            }
            let meta = e.metadata().ok();
            out.push((p, meta.as_ref().and_then(|m| m.modified().ok()), meta.map_or(0, |m| m.len())));
        }
    }
    out.sort();
    out
}

fn start_polling(dirs: Vec<PathBuf>, poll: Duration, tx: Sender<WatchMsg>, stop: Arc<AtomicBool>) {
    let mut last = fingerprint(&dirs);
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(poll);
            let now = fingerprint(&dirs);
            if now != last {
                let changed: Vec<PathBuf> = now
                    .iter()
                    .filter(|e| !last.contains(e))
                    .chain(last.iter().filter(|e| !now.contains(e)))
                    .map(|e| e.0.clone())
                    .collect();
                last = now;
                if tx.send(WatchMsg::Changed(changed)).is_err() {
                    return;
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_watch_sees_a_renamed_file() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let (tx, rx) = std::sync::mpsc::channel();
        let _w = start(&[dir.path().to_owned()], Duration::from_millis(50), false, &tx);
        assert_eq!(rx.recv_timeout(Duration::from_secs(2))?, WatchMsg::Mode(WatchMode::Native));
        std::fs::write(dir.path().join(".x.tmp"), "{}")?;
        std::fs::rename(dir.path().join(".x.tmp"), dir.path().join("x.json"))?;
        let msg = rx.recv_timeout(Duration::from_secs(2))?;
        assert!(matches!(msg, WatchMsg::Changed(p) if p.iter().any(|p| p.ends_with("x.json"))));
        Ok(())
    }

    #[test]
    fn reading_files_is_not_a_change() -> Result<(), Box<dyn std::error::Error>> {
        // Regression: notify reports open/close for reading; treating those as changes made
        // the TUI reload itself forever.
        let dir = tempfile::tempdir()?;
        std::fs::write(dir.path().join("a.json"), "{}")?;
        let (tx, rx) = std::sync::mpsc::channel();
        let _w = start(&[dir.path().to_owned()], Duration::from_millis(50), false, &tx);
        assert_eq!(rx.recv_timeout(Duration::from_secs(2))?, WatchMsg::Mode(WatchMode::Native));
        for _ in 0..5 {
            let _ = std::fs::read(dir.path().join("a.json"))?;
        }
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err(), "a read produced a change event");
        Ok(())
    }

    #[test]
    fn polling_sees_a_new_file() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let (tx, rx) = std::sync::mpsc::channel();
        let _w = start(&[dir.path().to_owned()], Duration::from_millis(20), true, &tx);
        assert!(matches!(rx.recv_timeout(Duration::from_secs(2))?, WatchMsg::Mode(WatchMode::Polling { .. })));
        std::fs::write(dir.path().join("y.json"), "{}")?;
        assert!(matches!(rx.recv_timeout(Duration::from_secs(2))?, WatchMsg::Changed(_)));
        Ok(())
    }

    #[test]
    fn reading_a_sqlite_store_is_not_a_change_but_a_commit_is() -> Result<(), Box<dyn std::error::Error>> {
        // A read-only SQLite reader (writegate's own) touches the store's -wal metadata and
        // its -shm; a commit writes the -wal or the store. Only the commit may reload.
        let dir = tempfile::tempdir()?;
        let store = dir.path().join("authority-x.sqlite");
        let conn = rusqlite::Connection::open(&store)?;
        conn.execute_batch(
            "PRAGMA journal_mode=WAL; CREATE TABLE head (cursor INTEGER); INSERT INTO head VALUES (1);",
        )?;
        let (tx, rx) = std::sync::mpsc::channel();
        let _w = start(&[dir.path().to_owned()], Duration::from_millis(50), false, &tx);
        assert_eq!(rx.recv_timeout(Duration::from_secs(2))?, WatchMsg::Mode(WatchMode::Native));
        for _ in 0..5 {
            let ro = rusqlite::Connection::open_with_flags(&store, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
            let _: i64 = ro.query_row("SELECT cursor FROM head", [], |r| r.get(0))?;
        }
        assert!(rx.recv_timeout(Duration::from_millis(600)).is_err(), "reads reloaded");
        conn.execute("UPDATE head SET cursor = 2", [])?;
        let msg = rx.recv_timeout(Duration::from_secs(2))?;
        assert!(
            matches!(msg, WatchMsg::Changed(p) if p.iter().any(|p| p.to_string_lossy().contains("authority-x.sqlite")))
        );
        Ok(())
    }

    #[test]
    fn lock_and_temp_files_are_ignored_but_a_state_lock_is_not() {
        for name in
            [".gate.lock", ".task-leases.lock", "index.jsonl.lock", ".x.json.1.tmp", "a.md.lock.incidents.jsonl"]
        {
            assert!(!is_relevant(Path::new(name)), "{name}");
        }
        for name in ["ACTIVE_GOAL_STATE.md", "ACTIVE_GOAL_STATE.md.lock", "item.json", "todo_a.json"] {
            assert!(is_relevant(Path::new(name)), "{name}");
        }
    }
}
