//! Watching the workspace: inotify (the `inotify` crate) on every folder whose files
//! writegate shows — the registry's folder, each state file's folder, each goal's runtime,
//! gate and inbox folders, leases, and `goals/` for new goals — sending [`WatchMsg`]s on a
//! channel, each burst of events within [`DEBOUNCE`] coalesced into one. Knows nothing of the
//! UI. The watches are set up on the watcher's own thread and changed in place
//! ([`Watcher::update`]), never rebuilt. If native watching cannot be set up (inotify limits,
//! network file systems) it falls back to polling and says so.

use crate::engine::Engine;
use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex, atomic::AtomicBool, atomic::Ordering};
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

/// What the watcher thread runs on, behind the [`Watcher`] handle.
enum Backend {
    /// The thread has not set up yet; these are the folders it will watch.
    Starting(Vec<PathBuf>),
    /// inotify: the kernel's watch handle and which folder each descriptor is.
    Native {
        watches: inotify::Watches,
        by_wd: HashMap<WatchDescriptor, PathBuf>,
        by_dir: HashMap<PathBuf, WatchDescriptor>,
    },
    /// Polling these folders; `last` is what the previous round saw.
    Polling { dirs: Vec<PathBuf>, last: Fingerprint },
}

/// A running watcher; dropping it stops watching. Cheap to clone: every clone is the same
/// watcher, so the loader thread can re-arm it.
#[derive(Clone)]
pub struct Watcher {
    backend: Arc<Mutex<Backend>>,
    /// Signalled when the thread has set up (the backend left [`Backend::Starting`]).
    ready: Arc<Condvar>,
    stop: Arc<AtomicBool>,
    _owner: Arc<StopOnDrop>,
}

struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl Watcher {
    /// Watches exactly `dirs` from now on: folders new to the set (and the `fresh` ones, made
    /// anew under a path already watched) are watched before this returns, so a file landing
    /// in one after it is reported; folders no longer in the set stop being watched. When
    /// polling, the fresh folders' listings become the baseline here. Called while the
    /// watcher's thread is still setting up, it waits for that (up to [`SETUP_WAIT`]): the
    /// watches are added here, not later by the thread, after the caller has read the files.
    pub fn update(&self, dirs: &[PathBuf], fresh: &[PathBuf]) {
        let Ok(b) = self.backend.lock() else { return };
        let Ok((mut b, _)) = self.ready.wait_timeout_while(b, SETUP_WAIT, |b| matches!(b, Backend::Starting(_))) else {
            return;
        };
        match &mut *b {
            Backend::Starting(d) => *d = dirs.to_vec(),
            Backend::Polling { dirs: d, last } => {
                let wanted: HashSet<&PathBuf> = dirs.iter().collect();
                last.retain(|p, _| p.parent().is_some_and(|dir| wanted.contains(&dir.to_path_buf())));
                last.extend(fingerprint(fresh));
                *d = dirs.to_vec();
            }
            Backend::Native { watches, by_wd, by_dir } => {
                let wanted: HashSet<&PathBuf> = dirs.iter().collect();
                let gone: Vec<PathBuf> = by_dir.keys().filter(|d| !wanted.contains(d)).cloned().collect();
                for d in gone {
                    if let Some(wd) = by_dir.remove(&d) {
                        by_wd.remove(&wd);
                        let _ = watches.remove(wd);
                    }
                }
                let fresh: HashSet<&PathBuf> = fresh.iter().collect();
                let to_add: Vec<&PathBuf> =
                    dirs.iter().filter(|d| !by_dir.contains_key(*d) || fresh.contains(d)).collect();
                for d in to_add {
                    // A folder made anew under the same path gets a new descriptor.
                    match watches.add(d, mask()) {
                        Ok(wd) => {
                            if let Some(old) = by_dir.insert(d.clone(), wd.clone()).filter(|o| *o != wd) {
                                by_wd.remove(&old);
                            }
                            by_wd.insert(wd, d.clone());
                        }
                        Err(e) => tracing::warn!(dir = %d.display(), "cannot watch: {e}"),
                    }
                }
            }
        }
    }
}

/// How long [`Watcher::update`] waits for the watcher's thread to set up before it leaves
/// the folders for the thread to watch when it does.
pub const SETUP_WAIT: Duration = Duration::from_secs(10);

/// The inotify events that can change what writegate shows: a write is `IN_MODIFY`, a
/// rename into or out of a folder `IN_MOVED_*`. Not `IN_OPEN` / `IN_ACCESS` / `IN_CLOSE_*`:
/// writegate's own reads must never wake the watcher (notify 8 always asks for `IN_OPEN`,
/// which made a third of the CPU while loading go to handling them), and a read-only SQLite
/// reader opens the store's `-wal` for writing, so closing it is no sign of a write.
fn mask() -> WatchMask {
    WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MODIFY
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::ATTRIB
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::ONLYDIR
}

/// Starts watching `dirs`, sending messages on `tx`; returns at once (the watches are set
/// up on the watcher's own thread, so a workspace of thousands of folders never delays the
/// first frame). Native (inotify) first; on any failure (or when `force_poll`), polling
/// compares folder listings and mtimes every `poll`. [`WatchMsg::Mode`] is sent once the
/// watches are in place: nothing written after it can be missed.
#[must_use]
pub fn start(dirs: &[PathBuf], poll: Duration, force_poll: bool, tx: &Sender<WatchMsg>) -> Watcher {
    let stop = Arc::new(AtomicBool::new(false));
    // Polling asked for: the baseline is taken here, before anyone reads what it covers.
    let first = if force_poll {
        Backend::Polling { dirs: dirs.to_vec(), last: fingerprint(dirs) }
    } else {
        Backend::Starting(dirs.to_vec())
    };
    let backend = Arc::new(Mutex::new(first));
    let ready = Arc::new(Condvar::new());
    let w = Watcher { backend, ready, stop: stop.clone(), _owner: Arc::new(StopOnDrop(stop)) };
    let (thread_side, tx) = (w.clone_weak(), tx.clone());
    std::thread::spawn(move || {
        let reason = if force_poll { "polling requested".to_owned() } else { run_native(&thread_side, &tx) };
        if thread_side.stopped() {
            return;
        }
        tracing::warn!(reason, "native watching unavailable; polling");
        run_polling(&thread_side, poll, &tx, reason);
    });
    w
}

/// The thread's view of a watcher: everything but the owner token, so the thread alone
/// never keeps it running.
struct ThreadSide {
    backend: Arc<Mutex<Backend>>,
    ready: Arc<Condvar>,
    stop: Arc<AtomicBool>,
}

impl ThreadSide {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

impl Watcher {
    fn clone_weak(&self) -> ThreadSide {
        ThreadSide { backend: self.backend.clone(), ready: self.ready.clone(), stop: self.stop.clone() }
    }
}

/// Runs inotify until stopped; returns why it cannot (then the caller polls).
fn run_native(side: &ThreadSide, tx: &Sender<WatchMsg>) -> String {
    let mut ino = match Inotify::init() {
        Ok(i) => i,
        Err(e) => return format!("inotify unavailable: {e}"),
    };
    {
        let Ok(mut b) = side.backend.lock() else { return "watcher state poisoned".into() };
        let dirs = match &*b {
            Backend::Starting(d) => d.clone(),
            _ => Vec::new(),
        };
        let mut watches = ino.watches();
        let (mut by_wd, mut by_dir) = (HashMap::new(), HashMap::new());
        for d in &dirs {
            match watches.add(d, mask()) {
                Ok(wd) => {
                    by_wd.insert(wd.clone(), d.clone());
                    by_dir.insert(d.clone(), wd);
                }
                // A folder gone meanwhile is no reason to poll; a limit or a refusal is.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    *b = Backend::Starting(dirs.clone());
                    return format!("cannot watch {}: {e}", d.display());
                }
            }
        }
        *b = Backend::Native { watches, by_wd, by_dir };
        side.ready.notify_all();
    }
    let _ = tx.send(WatchMsg::Mode(WatchMode::Native));
    let mut buf = vec![0u8; 64 * 1024];
    while !side.stopped() {
        // Wait for the first event (waking to notice a stop), then gather the burst.
        if !readable(&ino, Duration::from_millis(100)) {
            continue;
        }
        let mut paths = BTreeSet::new();
        let mut rescan = None;
        // The burst is read once, at the end of its window: the kernel queues its events
        // meanwhile. Waking on each of them (an apply makes dozens) cost the writing thread
        // a tenth of its time in a batch, with the same report at the same moment.
        std::thread::sleep(DEBOUNCE);
        drain(&mut ino, &mut buf, side, &mut paths, &mut rescan);
        if let Some(why) = rescan {
            let _ = tx.send(WatchMsg::Rescan(why));
        } else if !paths.is_empty() && tx.send(WatchMsg::Changed(paths.into_iter().collect())).is_err() {
            return String::new();
        }
    }
    String::new()
}

/// True when the inotify descriptor has events within `timeout`.
fn readable(ino: &Inotify, timeout: Duration) -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let mut fds = [PollFd::new(ino, PollFlags::IN)];
    let ts = Timespec { tv_sec: timeout.as_secs() as i64, tv_nsec: i64::from(timeout.subsec_nanos()) };
    poll(&mut fds, Some(&ts)).is_ok_and(|n| n > 0)
}

/// Reads every queued event into `paths` (relevant files and the folders they are in for
/// folder events); an overflow sets `rescan`.
fn drain(
    ino: &mut Inotify,
    buf: &mut [u8],
    side: &ThreadSide,
    paths: &mut BTreeSet<PathBuf>,
    rescan: &mut Option<String>,
) {
    loop {
        let events = match ino.read_events(buf) {
            Ok(ev) => ev,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
            Err(e) => {
                *rescan = Some(format!("watch error: {e}"));
                return;
            }
        };
        let Ok(mut b) = side.backend.lock() else { return };
        let Backend::Native { by_wd, by_dir, .. } = &mut *b else { return };
        let mut any = false;
        for ev in events {
            any = true;
            if ev.mask.contains(EventMask::Q_OVERFLOW) {
                *rescan = Some("the watcher asked for a rescan (events lost)".into());
                continue;
            }
            let Some(dir) = by_wd.get(&ev.wd).cloned() else { continue };
            if ev.mask.contains(EventMask::IGNORED) {
                // The folder is gone (or replaced): its watch ended; report the folder.
                by_wd.remove(&ev.wd);
                if by_dir.get(&dir) == Some(&ev.wd) {
                    by_dir.remove(&dir);
                }
                paths.insert(dir);
                continue;
            }
            let path = ev.name.map_or_else(|| dir.clone(), |n| dir.join(n));
            if ev.mask == EventMask::ATTRIB && is_store_file(&path) {
                // A read-only SQLite reader re-owns the -wal (LOOPX2.md §5): not a commit.
                continue;
            }
            if is_relevant(&path) {
                paths.insert(path);
            }
        }
        if !any {
            return;
        }
    }
}

/// A LoopX 2.x SQLite store file or its write-ahead log.
fn is_store_file(p: &Path) -> bool {
    p.to_str().is_some_and(|s| s.ends_with(".sqlite") || s.ends_with(".sqlite-wal"))
}

/// What polling compares: per file, its modification time and length.
type Fingerprint = HashMap<PathBuf, (Option<SystemTime>, u64)>;

fn fingerprint(dirs: &[PathBuf]) -> Fingerprint {
    let mut out = HashMap::new();
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
            out.insert(p, (meta.as_ref().and_then(|m| m.modified().ok()), meta.map_or(0, |m| m.len())));
        }
    }
    out
}

/// The files that differ between two fingerprints (new, gone, or changed), in one pass
/// over each.
fn changed_between(last: &Fingerprint, now: &Fingerprint) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = now.iter().filter(|(p, v)| last.get(*p) != Some(v)).map(|(p, _)| p.clone()).collect();
    out.extend(last.keys().filter(|p| !now.contains_key(*p)).cloned());
    out.sort();
    out
}

/// What a polling round leaves for the reload and the frame after a change is listed.
const POLL_MARGIN: Duration = Duration::from_millis(50);

/// Polls until stopped. A change is seen by the first listing that starts after it, and
/// reported when that listing ends; so rounds start `poll` less the last listing's length
/// and a 50 ms margin (for the reload and the frame) after the previous one started, and a
/// change reaches the screen within one `poll`. A round never starts less than `poll / 4`
/// after the previous listing ended, so a workspace whose listing is slow is not polled
/// without a pause.
fn run_polling(side: &ThreadSide, poll: Duration, tx: &Sender<WatchMsg>, reason: String) {
    // The baseline is taken before the mode is announced, so nothing written after the
    // announcement can be missed.
    if let Ok(mut b) = side.backend.lock() {
        let dirs = match &*b {
            Backend::Polling { .. } => None,
            Backend::Starting(d) => Some(d.clone()),
            Backend::Native { by_dir, .. } => Some(by_dir.keys().cloned().collect()),
        };
        if let Some(dirs) = dirs {
            let last = fingerprint(&dirs);
            *b = Backend::Polling { dirs, last };
        }
        side.ready.notify_all();
    }
    let _ = tx.send(WatchMsg::Mode(WatchMode::Polling { interval: poll, reason }));
    let mut next = std::time::Instant::now() + poll;
    while !side.stopped() {
        std::thread::sleep(next.saturating_duration_since(std::time::Instant::now()));
        let started = std::time::Instant::now();
        let changed = {
            let Ok(mut b) = side.backend.lock() else { return };
            let Backend::Polling { dirs, last } = &mut *b else { return };
            let now = fingerprint(dirs);
            let changed = changed_between(last, &now);
            *last = now;
            changed
        };
        next =
            (started + poll.saturating_sub(started.elapsed() + POLL_MARGIN)).max(std::time::Instant::now() + poll / 4);
        if !changed.is_empty() && tx.send(WatchMsg::Changed(changed)).is_err() {
            return;
        }
    }
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

#[cfg(test)]
#[path = "watch_rearm_tests.rs"]
mod rearm_tests;
