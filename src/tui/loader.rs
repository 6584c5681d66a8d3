//! The loader thread: turns what the watcher saw into the least work that shows it, off the
//! UI thread. A file renamed into an inbox prepares that item alone (against a fresh read of
//! its goal), so it shows as fast in a goal of 1,000 items as in a goal of one; any other
//! change to a goal reloads that goal; a new registry loads the goals it adds or changes and
//! drops the ones it removes; folders made or removed re-arm the watcher in place before
//! their goals are read, so nothing that lands meanwhile is missed.

use super::app::Msg;
use super::model;
use crate::engine::Engine;
use crate::watch;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex};

/// What to load; jobs queued while one runs are merged into one.
#[derive(Debug, Clone, Default)]
pub(super) struct Job {
    /// Re-open the workspace, recover, re-arm and load every goal.
    pub full: bool,
    /// The registry changed: re-read it; load the goals it adds or changes, drop the rest.
    pub registry: bool,
    /// Folders were made or removed: re-arm the watcher, then load the goals of new folders.
    pub rearm: bool,
    /// Goals to reload whole.
    pub goals: BTreeSet<String>,
    /// Inbox files (created, renamed in or out, changed, removed) per goal.
    pub items: BTreeMap<String, BTreeSet<PathBuf>>,
}

impl Job {
    /// Everything.
    pub(super) fn full() -> Job {
        Job { full: true, ..Job::default() }
    }

    /// These goals, whole.
    pub(super) fn goals(goals: impl IntoIterator<Item = String>) -> Job {
        Job { goals: goals.into_iter().collect(), ..Job::default() }
    }

    /// True when there is nothing to do.
    pub(super) fn is_empty(&self) -> bool {
        !self.full && !self.registry && !self.rearm && self.goals.is_empty() && self.items.is_empty()
    }

    /// Adds `other` to this job.
    pub(super) fn merge(&mut self, other: Job) {
        self.full |= other.full;
        self.registry |= other.registry;
        self.rearm |= other.rearm;
        self.goals.extend(other.goals);
        for (g, paths) in other.items {
            self.items.entry(g).or_default().extend(paths);
        }
    }
}

/// Reloads held back while a batch decides items of some goals: each of its applies changes
/// the goal, and reloading the goal's other items after every one (each re-prepared on the
/// new state) would take the CPU the batch needs. The batch re-checks every item under the
/// lock itself; the goals are reloaded once, when it is done.
#[derive(Debug, Default)]
pub(super) struct Hold {
    goals: BTreeSet<String>,
    held: Job,
}

impl Hold {
    /// A batch starts on these goals.
    pub(super) fn start(&mut self, goals: impl IntoIterator<Item = String>) {
        self.goals.extend(goals);
    }

    /// Moves the work `job` asks for on held goals into the hold.
    pub(super) fn filter(&mut self, job: &mut Job) {
        if self.goals.is_empty() {
            return;
        }
        let (held, kept): (BTreeSet<String>, BTreeSet<String>) =
            std::mem::take(&mut job.goals).into_iter().partition(|g| self.goals.contains(g));
        job.goals = kept;
        self.held.goals.extend(held);
        let items = std::mem::take(&mut job.items);
        for (g, paths) in items {
            let to = if self.goals.contains(&g) { &mut self.held.items } else { &mut job.items };
            to.entry(g).or_default().extend(paths);
        }
    }

    /// The batch is done: what was held.
    pub(super) fn release(&mut self) -> Job {
        self.goals.clear();
        std::mem::take(&mut self.held)
    }
}

/// Which work a set of changed paths asks for. An inbox file (`<rt>/goals/<id>/gate/inbox/
/// <name>.json`) is an item of its goal; a folder made, removed or replaced (a new goal's
/// folder among them) re-arms the watcher; the registry is re-read; anything else under a
/// goal (its gate, results log, leases, state folder, LoopX 2.x authority) reloads that goal.
pub(super) fn job_for(engine: &Engine, paths: &[PathBuf]) -> Job {
    let goals_dir = engine.ws.runtime_root.join("goals");
    // Files writegate reads come and go all the time; they are not folders (no stat).
    let file = |p: &PathBuf| p.extension().is_some_and(|x| x == "json" || x == "jsonl" || x == "md");
    let mut job = Job { rearm: paths.iter().any(|p| !file(p) && (p.is_dir() || !p.exists())), ..Job::default() };
    for p in paths {
        if p == &engine.ws.registry_path {
            job.registry = true;
            continue;
        }
        if *p == goals_dir || p.parent() == Some(goals_dir.as_path()) {
            job.rearm = true;
        }
        if let Ok(rest) = p.strip_prefix(&goals_dir) {
            let parts: Vec<&std::ffi::OsStr> = rest.iter().collect();
            match parts.as_slice() {
                [id, gate, inbox, name]
                    if *gate == "gate"
                        && *inbox == "inbox"
                        && Path::new(name).extension().is_some_and(|x| x == "json") =>
                {
                    let id = id.to_string_lossy().into_owned();
                    job.items.entry(id).or_default().insert(p.clone());
                }
                [id, ..] => {
                    job.goals.insert(id.to_string_lossy().into_owned());
                }
                [] => {}
            }
            continue;
        }
        if std::iter::once(&engine.ws.runtime_root)
            .chain(&engine.ws.other_runtime_roots)
            .any(|root| p.starts_with(root.join("authority")))
        {
            job.goals.extend(authority_goal(engine, p));
            continue;
        }
        for g in &engine.ws.goals {
            if g.state_file.parent() == p.parent() || g.state_file == *p {
                job.goals.insert(g.id.clone());
            }
        }
    }
    job
}

/// The goal whose LoopX 2.x authority file `path` is: `authority-<sha256(goal_id)>.sqlite`
/// (and its `-wal`), `provider-<sha256(goal_id)>.json`, or the file provider's
/// `authority-store-<sha256(goal_id)[:16]>.json`.
fn authority_goal(engine: &Engine, path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let digest = match name.strip_prefix("authority-store-") {
        Some(rest) => rest.get(..16)?,
        None => name.strip_prefix("authority-").or_else(|| name.strip_prefix("provider-"))?.get(..64)?,
    };
    engine
        .ws
        .goals
        .iter()
        .find(|g| crate::loopx::hash::sha256_hex(g.id.as_bytes()).starts_with(digest))
        .map(|g| g.id.clone())
}

/// Threads reading goals in a full load (this machine class has 2 cores; the UI thread
/// mostly waits).
const LOAD_THREADS: usize = 2;

/// Goals per message in a full load after the first batch.
const CHUNK: usize = 50;

/// The engine everyone shares; the loader swaps in a fresh one when the registry changes.
pub(super) type Shared = Arc<Mutex<Arc<Engine>>>;

pub(super) fn current(engine: &Shared) -> Arc<Engine> {
    engine.lock().map_or_else(|p| p.into_inner().clone(), |g| g.clone())
}

/// The loader's own state: the engine, the watcher and the folders it watches now (with
/// their inodes: a folder made anew under the same path is new).
struct Loader {
    engine: Shared,
    watcher: watch::Watcher,
    dirs: Vec<(PathBuf, u64)>,
    tx: Sender<Msg>,
}

/// Starts the loader thread; send it [`Job`]s.
pub(super) fn spawn(engine: Shared, watcher: watch::Watcher, tx: Sender<Msg>) -> Sender<Job> {
    let (jtx, jrx) = channel::<Job>();
    std::thread::spawn(move || {
        let mut l = Loader { engine, watcher, dirs: Vec::new(), tx };
        // The workspace was opened just before: no need to read the registry again.
        if l.load_everything(false).is_err() {
            return;
        }
        while let Ok(mut job) = jrx.recv() {
            for more in jrx.try_iter() {
                job.merge(more);
            }
            if l.run(job).is_err() {
                return;
            }
        }
    });
    jtx
}

/// The receiver hung up (the UI quit).
struct Gone;

impl Loader {
    fn send(&self, msg: Msg) -> Result<(), Gone> {
        self.tx.send(msg).map_err(|_| Gone)
    }

    fn run(&mut self, mut job: Job) -> Result<(), Gone> {
        if job.full {
            return self.load_everything(true);
        }
        if job.registry {
            let (changed, gone) = self.reopen();
            job.goals.extend(changed);
            if !gone.is_empty() {
                self.send(Msg::GoalsGone(gone))?;
            }
            job.rearm = true;
        }
        if job.rearm {
            job.goals.extend(self.rearm());
        }
        let eng = current(&self.engine);
        let goals: Vec<_> =
            job.goals.iter().filter(|id| eng.goal(id).is_ok()).map(|id| model::load_goal(&eng, id)).collect();
        if !goals.is_empty() {
            self.send(Msg::Loaded { full: false, quiet: false, last: false, goals })?;
        }
        for (goal, paths) in job.items.into_iter().filter(|(g, _)| !job.goals.contains(g)) {
            if eng.goal(&goal).is_ok() {
                let (row, items, gone) = model::load_items(&eng, &goal, &paths);
                self.send(Msg::ItemsLoaded { row, items, gone })?;
            }
        }
        Ok(())
    }

    /// Re-reads the registry into a fresh engine; the goals it adds or whose entry changed,
    /// and the goals it no longer has.
    fn reopen(&mut self) -> (Vec<String>, Vec<String>) {
        let old = current(&self.engine);
        let loc = crate::loopx::registry::Locator {
            registry: Some(old.ws.registry_path.clone()),
            runtime_root: Some(old.ws.runtime_root.clone()),
            ..crate::loopx::registry::Locator::from_env(None, None)
        };
        let fresh = match Engine::open(&loc, old.clock, old.operator.clone()) {
            Ok(f) => f.with_adapters(&old.user_adapters),
            Err(e) => {
                // A registry being rewritten or broken: keep showing what we have; the next
                // write reports again.
                tracing::warn!("registry re-read failed: {}", crate::error_chain(&e));
                return (Vec::new(), Vec::new());
            }
        };
        let before: BTreeMap<&str, (&serde_json::Value, &Path)> =
            old.ws.goals.iter().map(|g| (g.id.as_str(), (&*g.raw, g.state_file.as_path()))).collect();
        let changed: Vec<String> = fresh
            .ws
            .goals
            .iter()
            .filter(|g| before.get(g.id.as_str()) != Some(&(&*g.raw, g.state_file.as_path())))
            .map(|g| g.id.clone())
            .collect();
        let now: BTreeSet<&str> = fresh.ws.goals.iter().map(|g| g.id.as_str()).collect();
        let gone = before.keys().filter(|id| !now.contains(*id)).map(|id| (*id).to_owned()).collect();
        if let Ok(mut g) = self.engine.lock() {
            *g = Arc::new(fresh);
        }
        (changed, gone)
    }

    /// Points the watcher at the folders to watch now; the goals of folders new since.
    fn rearm(&mut self) -> Vec<String> {
        let eng = current(&self.engine);
        let fresh = settle(&self.watcher, &mut self.dirs, || watch::watch_set(&eng));
        let job = job_for(&eng, &fresh);
        job.goals.into_iter().chain(job.items.into_keys()).collect()
    }

    /// A full load: the registry re-read (when `reopen`), the watcher armed, recovery, then
    /// every goal, a first batch at once so the queue shows quickly and the rest in chunks.
    fn load_everything(&mut self, reopen: bool) -> Result<(), Gone> {
        if reopen {
            let _ = self.reopen();
        }
        let _ = self.rearm();
        let eng = current(&self.engine);
        let _ = eng.recover_all();
        let ids: Vec<String> = eng.ws.goals.iter().map(|g| g.id.clone()).collect();
        let first = ids.iter().take(model::FIRST_BATCH).map(|id| model::load_goal(&eng, id)).collect();
        let done = ids.len() <= model::FIRST_BATCH;
        self.send(Msg::Loaded { full: true, quiet: true, last: done, goals: first })?;
        // The rest on `LOAD_THREADS` threads, in chunks; the last message ends the loading.
        let rest: Vec<&[String]> = ids[ids.len().min(model::FIRST_BATCH)..].chunks(CHUNK).collect();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let hung_up = std::sync::atomic::AtomicBool::new(false);
        let work = || {
            while let Some(chunk) = rest.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                let goals = chunk.iter().map(|id| model::load_goal(&eng, id)).collect();
                if self.tx.send(Msg::Loaded { full: false, quiet: true, last: false, goals }).is_err() {
                    hung_up.store(true, std::sync::atomic::Ordering::Relaxed);
                    return;
                }
            }
        };
        // This thread is one of them.
        std::thread::scope(|s| {
            for _ in 1..LOAD_THREADS {
                s.spawn(work);
            }
            work();
        });
        if hung_up.into_inner() {
            return Err(Gone);
        }
        if !done {
            self.send(Msg::Loaded { full: false, quiet: true, last: true, goals: Vec::new() })?;
        }
        Ok(())
    }
}

/// Most listings [`settle`] takes before it leaves the rest to the events of the folders it
/// watches by then (a folder removed and made again without end never settles).
const SETTLE_ROUNDS: usize = 16;

/// Points `watcher` at the folders `list` gives, listing again after every change of the
/// watches until a listing finds the set unchanged. A folder made after a listing but before
/// its parent's watch was in place (`goals/<id>/gate/inbox` made just after `goals/`, as a
/// first proposal does) sends no event; the listing after the watch is set finds it. `dirs`
/// is the set watched before (paths with inodes) and becomes the set watched now; returns
/// the folders new to it, in listing order.
fn settle(
    watcher: &watch::Watcher,
    dirs: &mut Vec<(PathBuf, u64)>,
    mut list: impl FnMut() -> Vec<(PathBuf, u64)>,
) -> Vec<PathBuf> {
    let mut new_since = Vec::new();
    for _ in 0..SETTLE_ROUNDS {
        let set = list();
        if set == *dirs {
            break;
        }
        let known: std::collections::HashSet<&(PathBuf, u64)> = dirs.iter().collect();
        let fresh: Vec<PathBuf> = set.iter().filter(|d| !known.contains(d)).map(|(p, _)| p.clone()).collect();
        watcher.update(&set.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>(), &fresh);
        new_since.extend(fresh);
        *dirs = set;
    }
    new_since
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> (tempfile::TempDir, Engine) {
        crate::demo::test_engine()
    }

    #[test]
    fn an_inbox_file_is_an_item_anything_else_of_a_goal_reloads_it() {
        let (_d, e) = demo();
        let gate = e.ws.runtime_root.join("goals/demo-goal/gate");
        let job = job_for(&e, &[gate.join("inbox/new-item.json")]);
        assert!(!job.registry && !job.rearm && job.goals.is_empty());
        assert_eq!(job.items.get("demo-goal").map(BTreeSet::len), Some(1));
        // Not an item name, the results log, a lease: the goal, whole.
        for p in [gate.join("inbox/notes.txt"), gate.join("results.jsonl"), gate.join("inbox/sub/x.json")] {
            let job = job_for(&e, std::slice::from_ref(&p));
            assert!(job.items.is_empty() && job.goals.contains("demo-goal"), "{}", p.display());
        }
        let state = e.ws.goals.iter().find(|g| g.id == "docs-goal").expect("goal").state_file.clone();
        assert!(job_for(&e, &[state]).goals.contains("docs-goal"));
        let reg = job_for(&e, std::slice::from_ref(&e.ws.registry_path));
        assert!(reg.registry && reg.goals.is_empty());
        let fresh = job_for(&e, &[e.ws.runtime_root.join("goals/brand-new")]);
        assert!(fresh.rearm && fresh.goals.contains("brand-new"));
    }

    #[test]
    fn jobs_merge_into_one() {
        let mut a = Job::goals(["g1".to_owned()]);
        let mut b = Job::default();
        b.items.entry("g2".into()).or_default().insert("/x.json".into());
        b.rearm = true;
        a.merge(b);
        a.merge(Job::default());
        assert!(a.rearm && !a.full && a.goals.contains("g1") && a.items.contains_key("g2") && !a.is_empty());
        assert!(Job::default().is_empty());
    }
}

#[cfg(test)]
mod settle_tests {
    use super::*;
    use std::os::unix::fs::MetadataExt as _;
    use std::time::Duration;

    fn with_ino(dirs: &[&Path]) -> Vec<(PathBuf, u64)> {
        dirs.iter().filter_map(|d| std::fs::metadata(d).ok().map(|m| (d.to_path_buf(), m.ino()))).collect()
    }

    #[test]
    fn a_folder_made_between_a_listing_and_its_watch_is_watched() -> Result<(), Box<dyn std::error::Error>> {
        // CI saw it: a goal's first proposal made `goals/`, then `goals/<id>/gate/inbox`
        // before the watch on `goals/` was in place; the proposal never showed.
        let root = tempfile::tempdir()?;
        let (goals, inbox) = (root.path().join("goals"), root.path().join("goals/g/gate/inbox"));
        let (tx, rx) = std::sync::mpsc::channel();
        let w = watch::start(&[root.path().to_owned()], Duration::from_millis(30), false, &tx);
        assert!(matches!(rx.recv_timeout(Duration::from_secs(2))?, watch::WatchMsg::Mode(_)));
        std::fs::create_dir(&goals)?;
        let mut dirs = with_ino(&[root.path()]);
        let mut listings = 0;
        let fresh = settle(&w, &mut dirs, || {
            listings += 1;
            let set = with_ino(&[root.path(), &goals, &inbox]);
            // The proposer's next folders land after this listing, before the watches.
            if listings == 1 {
                std::fs::create_dir_all(&inbox).expect("mkdir");
            }
            set
        });
        assert!(fresh.contains(&inbox), "{fresh:?}");
        assert_eq!(dirs.len(), 3);
        assert_eq!(listings, 3, "listed until nothing changed");
        while rx.try_recv().is_ok() {}
        std::fs::write(inbox.join("item.json"), "{}")?;
        // A late event of the folders made above may come first (seen under load): wait for
        // the item's own.
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        let mut before = Vec::new();
        let item_seen = loop {
            let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) else { break false };
            match rx.recv_timeout(left) {
                Ok(watch::WatchMsg::Changed(p)) if p.iter().any(|p| p.ends_with("item.json")) => break true,
                Ok(other) => before.push(format!("{other:?}")),
                Err(_) => break false,
            }
        };
        assert!(item_seen, "no event for the new folder's item; got {before:?}");
        Ok(())
    }
}

#[cfg(test)]
mod hold_tests {
    use super::*;

    #[test]
    fn a_batch_holds_its_goals_reloads_until_it_is_done() {
        let mut hold = Hold::default();
        let mut job = Job::goals(["a".to_owned(), "b".to_owned()]);
        job.items.entry("a".into()).or_default().insert("/a/x.json".into());
        hold.filter(&mut job);
        assert_eq!(job.goals.len(), 2, "nothing held without a batch");
        hold.start(["a".to_owned()]);
        hold.filter(&mut job);
        assert!(job.goals.contains("b") && !job.goals.contains("a") && job.items.is_empty());
        let released = hold.release();
        assert!(released.goals.contains("a") && released.items.contains_key("a"));
        let mut later = Job::goals(["a".to_owned()]);
        hold.filter(&mut later);
        assert!(later.goals.contains("a"), "released: not held any more");
    }
}
