//! The one place decisions happen: prepare → preview → decide → apply → record, shared by
//! the CLI and the TUI (DESIGN.md §4). Preview is pure; apply runs only on a [`Decision`],
//! under the LoopX-compatible state-file lock, re-running every check on a fresh read.
//!
//! Where things are:
//! - the pipeline every item goes through: `item` (what an inbox file is), `snapshot` (one
//!   read of a goal), `preview` (the checks and the predicted status), `apply` (`decide`:
//!   the dispatch under the gate lock, the records), `status`;
//! - LoopX 0.5.x goals, where writegate writes the Markdown itself: `propose`,
//!   `propose_replace`, `checks`, `patch`, `conflict` (the stale / lease / key-reuse views
//!   and rebase), `recover` (the apply marker), `authority_check` (what may apply on a 2.x
//!   goal);
//! - LoopX 2.x goals, where LoopX writes: [`canonical`] — propose, the prediction on a
//!   scratch copy, the apply through the real CLI and its recovery, in one folder;
//! - writeback previews to host runtimes: [`writeback`] (shape, entry criteria, apply flow)
//!   and [`adapters`];
//! - operator releases of expired 0.5.x hard leases: `lease`.

pub mod adapters;
mod apply;
mod approval;
mod authority_check;
pub mod canonical;
mod checks;
pub mod conflict;
#[cfg(test)]
mod detail_tests;
mod gate_lock;
pub mod item;
mod lease;
pub mod patch;
mod premade;
mod preview;
mod preview_wire;
mod propose;
mod propose_replace;
mod raw_after;
pub mod recompute;
mod recover;
pub mod rejections;
pub mod revert;
mod snapshot;
mod status;
pub mod summary;
pub mod writeback;

pub use apply::{Approval, Decision, Outcome};
pub use item::{Item, Proposal};
pub use preview::{GoalSnapshot, Predicted, Prepared, is_conflict_name};
pub use propose::{ProposeError, Proposed};

/// How many LoopX 2.x predictions one goal's load runs at once (each is a LoopX process;
/// the machine this was sized on has 2 cores).
pub const PREDICTIONS_AT_ONCE: usize = 3;

/// The largest text `propose replace` takes, bytes: an item (at most
/// [`item::MAX_ITEM_BYTES`]) holds it JSON-escaped beside the packet.
pub const MAX_REPLACE_BYTES: u64 = item::MAX_ITEM_BYTES / 2;

use crate::gate::GateDir;
use crate::loopx::registry::{Goal, Locator, RegistryError, Workspace};
use crate::wire::{ListRow, ResultRecord};
use chrono::{DateTime, FixedOffset, Local, Utc};
use std::path::PathBuf;

/// Engine failures (not outcomes: a conflict is an [`Outcome`], not an error).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// Workspace problems.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// No pending item with that id.
    #[error("no pending item {0:?} (see `writegate list`)")]
    NoSuchItem(String),
    /// The id names items in several goals.
    #[error("item id {0:?} exists in several goals; use <goal_id>/<item_id>")]
    Ambiguous(String),
    /// The item file changed after the operator previewed it.
    #[error("item {0} changed on disk after it was previewed; review it again")]
    ItemChanged(String),
    /// Results log problems.
    #[error(transparent)]
    Results(#[from] crate::gate::results::ResultsError),
    /// A decision refused before anything was written (the message says why).
    #[error("{0}")]
    Refused(String),
    /// Other I/O.
    #[error("{what}")]
    Io {
        /// What was being done.
        what: String,
        /// Cause.
        source: std::io::Error,
    },
}

/// A clock: fixed in tests, the system clock otherwise.
#[derive(Debug, Clone, Copy)]
pub enum Clock {
    /// `Local::now()`.
    System,
    /// A fixed instant, with the offset LoopX's `now_local()` would print.
    Fixed(DateTime<FixedOffset>),
}

impl Clock {
    /// Now, in local time with offset.
    #[must_use]
    pub fn now(self) -> DateTime<FixedOffset> {
        match self {
            Self::System => Local::now().fixed_offset(),
            Self::Fixed(t) => t,
        }
    }

    /// LoopX `now_local()` text: seconds precision, ISO-8601 with offset.
    #[must_use]
    pub fn loopx_now(self) -> String {
        self.now().format("%Y-%m-%dT%H:%M:%S%:z").to_string()
    }

    /// UTC RFC 3339 seconds (`…Z`) for records.
    #[must_use]
    pub fn utc_stamp(self) -> String {
        self.now().with_timezone(&Utc).format("%Y-%m-%dT%H:%M:%SZ").to_string()
    }
}

/// The engine over one workspace.
#[derive(Debug, Clone)]
pub struct Engine {
    /// The loaded workspace.
    pub ws: Workspace,
    /// The clock.
    pub clock: Clock,
    /// Operator name recorded with decisions.
    pub operator: String,
    /// Which runtime adapter serves which `runtime_id` (writeback previews): the workspace's
    /// map with the user's on top.
    pub adapters: std::sync::Arc<adapters::Adapters>,
    /// The user's map alone (kept so a reload can re-read the workspace file under it).
    pub user_adapters: std::sync::Arc<adapters::Adapters>,
    /// Predictions of LoopX 2.x commands, shared by every clone of this engine.
    pub predictions: std::sync::Arc<canonical::PredictionCache>,
    /// How `loopx` is run for LoopX 2.x goals (default: `$WRITEGATE_LOOPX` or `loopx` on
    /// `PATH`, with the operator's environment).
    pub loopx: std::sync::Arc<crate::loopx2::cli::Runner>,
    /// The `revisions/` folders this engine (and its clones) swept for dead writers' temps:
    /// that folder grows by a snapshot or two per apply, so it is swept once per engine,
    /// not at every decision (see [`Engine::recover_goal`]).
    pub(crate) swept: std::sync::Arc<std::sync::Mutex<std::collections::HashSet<PathBuf>>>,
    /// The item ids each goal's results log names, extended as the log grows (see
    /// [`recover::NamedIds`]); shared by every clone of this engine.
    pub(crate) named_ids: std::sync::Arc<recover::NamedIds>,
}

impl Engine {
    /// Loads the workspace found by `loc`.
    ///
    /// # Errors
    /// [`EngineError::Registry`].
    pub fn open(loc: &Locator, clock: Clock, operator: String) -> Result<Self, EngineError> {
        let ws = Workspace::load(loc)?;
        let adapters = std::sync::Arc::new(adapters::Adapters::load_workspace(&ws.runtime_root));
        Ok(Self {
            ws,
            clock,
            operator,
            adapters,
            user_adapters: std::sync::Arc::default(),
            predictions: std::sync::Arc::default(),
            loopx: std::sync::Arc::default(),
            swept: std::sync::Arc::default(),
            named_ids: std::sync::Arc::default(),
        })
    }

    /// This engine running `loopx` with `runner` (LoopX 2.x goals).
    #[must_use]
    pub fn with_loopx(mut self, runner: crate::loopx2::cli::Runner) -> Self {
        self.loopx = std::sync::Arc::new(runner);
        self
    }

    /// This engine with `adapters` (the user's config) taking precedence over the
    /// workspace's runtime map for writeback previews.
    #[must_use]
    pub fn with_adapters(mut self, adapters: &adapters::Adapters) -> Self {
        self.adapters = std::sync::Arc::new((*self.adapters).clone().overlaid(adapters));
        self.user_adapters = std::sync::Arc::new(adapters.clone());
        self
    }

    /// The gate folder of `goal_id`.
    ///
    /// # Errors
    /// Invalid goal id or a runtime dir escaping the runtime root.
    pub fn gate(&self, goal_id: &str) -> Result<GateDir, EngineError> {
        self.gate_in(goal_id, &mut crate::loopx::registry::PlainDirs::default())
    }

    /// [`Self::gate`] within one pass over the goals (`status`, `list`): the folders above
    /// every goal's runtime folder are looked at once per pass.
    pub(crate) fn gate_in(
        &self,
        goal_id: &str,
        plain: &mut crate::loopx::registry::PlainDirs,
    ) -> Result<GateDir, EngineError> {
        let dir = self.ws.goal_runtime_dir_in(goal_id, plain)?;
        let gate = GateDir::new(&dir);
        let root = &self.ws.runtime_root;
        let mut checked = dir;
        for (what, path) in [
            ("gate folder", gate.root().to_owned()),
            ("gate inbox", gate.inbox()),
            ("gate decided folder", gate.decided()),
            ("gate applying folder", gate.applying()),
            ("gate results log", gate.results().path().to_owned()),
            ("gate revisions folder", gate.revisions().dir().to_owned()),
        ] {
            // A child of a folder just found inside the root is inside too unless it is a
            // symlink (absent, it resolves to that folder joined with its name): only a
            // symlink, or a path not directly under a checked folder, needs the full walk.
            let plain_child = path.parent() == Some(checked.as_path())
                && std::fs::symlink_metadata(&path)
                    .map_or_else(|e| e.kind() == std::io::ErrorKind::NotFound, |m| !m.file_type().is_symlink());
            if !plain_child {
                crate::loopx::registry::ensure_inside(&path, root, what)?;
            }
            if what == "gate folder" {
                checked = path;
            }
        }
        Ok(gate)
    }

    /// Bounds every goal's revision snapshots (`writegate revisions prune`): see
    /// [`crate::gate::revisions::RevisionStore::prune`]. Each goal's current state revision and
    /// the `expected_revision` of each of its pending items are protected. One result per goal,
    /// in registry order.
    #[must_use]
    pub fn prune_revisions(
        &self,
        max_bytes: u64,
        max_age: std::time::Duration,
    ) -> Vec<(String, Result<crate::gate::revisions::PruneReport, String>)> {
        self.ws
            .goals
            .iter()
            .map(|g| {
                let result = self.gate(&g.id).map_err(|e| crate::error_chain(&e)).and_then(|gate| {
                    // Under the gate lock: a propose keeps its base and drops its item under it too.
                    let _lock = gate_lock::gate_lock(&gate).map_err(|e| crate::error_chain(&e))?;
                    let mut protect: std::collections::BTreeSet<String> = self
                        .items(Some(&g.id))
                        .iter()
                        .filter_map(|i| i.intent.as_ref().ok().map(|it| it.expected_revision.clone()))
                        .collect();
                    if let Ok(text) = read_state(&g.state_file) {
                        protect.insert(crate::loopx::hash::revision_of_text(&text));
                    }
                    gate.revisions()
                        .prune(max_bytes, max_age, &protect, std::time::SystemTime::now())
                        .map_err(|e| format!("{}: {e}", gate.revisions().dir().display()))
                });
                (g.id.clone(), result)
            })
            .collect()
    }

    /// Every pending item of every goal (or of `goal`), by goal then name.
    #[must_use]
    pub fn items(&self, goal: Option<&str>) -> Vec<Item> {
        let mut out = Vec::new();
        for g in self.goals_named(goal) {
            if let Ok(gate) = self.gate(&g.id) {
                out.extend(gate.pending_files().iter().map(|p| Item::read(p, &g.id)));
            }
        }
        out
    }

    /// The goal named `goal` (looked up by id), or every goal for `None`.
    fn goals_named<'a>(&'a self, goal: Option<&str>) -> Box<dyn Iterator<Item = &'a Goal> + 'a> {
        match goal {
            Some(id) => Box::new(self.ws.goal(id).ok().into_iter()),
            None => Box::new(self.ws.goals.iter()),
        }
    }

    /// Finds one pending item by `item_id` or `goal_id/item_id`.
    ///
    /// # Errors
    /// [`EngineError::NoSuchItem`] / [`EngineError::Ambiguous`].
    pub fn find_item(&self, reference: &str) -> Result<Item, EngineError> {
        self.locate_item(reference).map(|(path, goal_id, _)| Item::read(&path, &goal_id))
    }

    /// [`Self::find_item`] then [`Self::prepare`], for one item named on the command line
    /// (`writegate preview`), on two threads. The second reads and parses the item file,
    /// scans its payload ([`Intent::payload_findings`], a `OnceLock`: scanned once), then
    /// works out a `replace`'s line diff against the current state, the diff the preview
    /// shows and the proposed text's revision ([`premade::Premade`]). This one reads the
    /// goal's snapshot meanwhile (for a large state, like the item, a full read, SHA-256 and
    /// parse), takes the item once it is read, and runs the checks `prepare` runs; it takes
    /// what the second worked out only when it was worked out on the very texts it holds,
    /// else works it out itself. It spins rather than sleeps for the item and for the second
    /// thread's end ([`premade::ready_or_own`], [`premade::Premade::wait_done`]).
    ///
    /// # Errors
    /// [`EngineError::NoSuchItem`] / [`EngineError::Ambiguous`].
    pub fn prepare_named(&self, reference: &str) -> Result<Prepared, EngineError> {
        let (path, goal_id, _) = self.locate_item(reference)?;
        // The item, read by whichever thread asks first (the second, as a rule); what the
        // second thread works out once the snapshot is read, published by this one.
        let item_cell = std::sync::OnceLock::new();
        let premade_cell: std::sync::OnceLock<Option<premade::Premade>> = std::sync::OnceLock::new();
        let read_item = || Item::read(&path, &goal_id);
        let started = std::sync::atomic::AtomicBool::new(false);
        let mut p = std::thread::scope(|s| {
            s.spawn(|| {
                started.store(true, std::sync::atomic::Ordering::Release);
                let item: &Item = item_cell.get_or_init(read_item);
                if let Ok(intent) = &item.intent {
                    let _ = intent.payload_findings();
                }
                if let Some(pre) = premade_cell.wait() {
                    pre.work_out();
                }
            });
            // Published on every way out, a panic included: the second thread waits for it.
            let publish = premade::Publish(&premade_cell);
            let snap = self.goal_snapshot(&goal_id);
            let item = premade::ready_or_own(&item_cell, &started, read_item);
            publish.set(premade::Premade::of(item, &snap));
            let pre = premade_cell.get().and_then(Option::as_ref);
            let p = self.prepare_with(item, &snap, preview::Detail::Full, pre);
            if let Some(pre) = pre {
                pre.wait_done();
            }
            p
        });
        // The second thread is done: its revision and shown diff, where they are of the
        // texts the preparation holds.
        if let (Some(Some(pre)), Some(text)) = (premade_cell.get(), &p.proposed_text) {
            p.proposed_revision = pre.revision_of(text);
            if let Some(current) = &p.current_text {
                p.shown_diff = pre.shown_of(current, text);
            }
        }
        Ok(p)
    }

    /// Where [`Self::find_item`] finds `reference`: the item file's path, its goal and that
    /// goal's gate folder, without reading the file.
    ///
    /// # Errors
    /// [`EngineError::NoSuchItem`] or [`EngineError::Ambiguous`].
    pub(crate) fn locate_item(&self, reference: &str) -> Result<(PathBuf, String, GateDir), EngineError> {
        let (goal, id) = match reference.split_once('/') {
            Some((g, i)) => (Some(g), i),
            None => (None, reference),
        };
        // The file is `inbox/<id>.json` (the names `GateDir::pending_files` lists): looked up
        // directly, not by reading every pending item.
        let name = format!("{id}.json");
        let listable = !id.is_empty() && !name.starts_with('.') && !id.contains(['/', '\\']);
        let mut found = Vec::new();
        for g in self.goals_named(goal).filter(|_| listable) {
            if let Ok(gate) = self.gate(&g.id) {
                let path = gate.inbox().join(&name);
                if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_dir()) {
                    found.push((path, g.id.clone(), gate));
                }
            }
        }
        match found.len() {
            0 => Err(EngineError::NoSuchItem(crate::textsafe::shortened(reference, 120))),
            1 => Ok(found.remove(0)),
            _ => Err(EngineError::Ambiguous(reference.to_owned())),
        }
    }

    /// Every pending item of every goal (or of `goal`), prepared against one snapshot per goal.
    #[must_use]
    pub fn prepared(&self, goal: Option<&str>) -> Vec<Prepared> {
        self.each_pending(goal, |p| p)
    }

    /// `f` of every pending item of every goal (or of `goal`), each prepared against one
    /// snapshot per goal and dropped before the next is read; the results in goal and file
    /// order.
    fn each_pending<T>(&self, goal: Option<&str>, mut f: impl FnMut(Prepared) -> T) -> Vec<T> {
        let mut out = Vec::new();
        let mut plain = crate::loopx::registry::PlainDirs::default();
        for g in self.ws.goals.iter().filter(|g| goal.is_none_or(|x| x == g.id)) {
            let Ok(gate) = self.gate_in(&g.id, &mut plain) else { continue };
            let files = gate.pending_files();
            if files.is_empty() {
                continue;
            }
            let snap = self.goal_snapshot_in(&g.id, Ok(gate));
            let mut rows = Vec::with_capacity(files.len());
            self.for_each_prepared(&files, &g.id, &snap, |i, p| rows.push((i, f(p))));
            rows.sort_by_key(|(i, _)| *i);
            out.extend(rows.into_iter().map(|(_, r)| r));
        }
        out
    }

    /// Reads and prepares the item files `files` of `goal_id` against `snap` one at a
    /// time, handing each to `f` with its index in `files` and dropping it before the next
    /// is read: memory is bounded by the largest item, not the goal's sum. LoopX 2.x command
    /// items are kept aside and prepared last, [`PREDICTIONS_AT_ONCE`] at a time (each may
    /// run LoopX on a scratch copy); so `f` sees them after the others.
    pub fn for_each_prepared(
        &self,
        files: &[std::path::PathBuf],
        goal_id: &str,
        snap: &GoalSnapshot,
        mut f: impl FnMut(usize, Prepared),
    ) {
        let mut commands = Vec::new();
        for (i, path) in files.iter().enumerate() {
            let item = Item::read(path, goal_id);
            if item.command.is_some() {
                commands.push((i, item));
            } else {
                f(i, self.prepare_in(&item, snap));
            }
        }
        let (at, items): (Vec<usize>, Vec<Item>) = commands.into_iter().unzip();
        for (i, p) in at.into_iter().zip(self.prepare_all(&items, snap)) {
            f(i, p);
        }
    }

    /// [`Engine::prepare_in`] for every item of one goal, in order. LoopX 2.x command items
    /// are prepared [`PREDICTIONS_AT_ONCE`] at a time: each may run one LoopX command on a
    /// scratch copy (about 0.5–1 s), and the copies are independent.
    #[must_use]
    pub fn prepare_all(&self, items: &[Item], snap: &GoalSnapshot) -> Vec<Prepared> {
        let slow: Vec<usize> = (0..items.len()).filter(|&i| items[i].command.is_some()).collect();
        let mut out: Vec<Option<Prepared>> = vec![None; items.len()];
        if slow.len() > 1 {
            let next = std::sync::atomic::AtomicUsize::new(0);
            let done = std::sync::Mutex::new(Vec::new());
            std::thread::scope(|s| {
                for _ in 0..PREDICTIONS_AT_ONCE.min(slow.len()) {
                    s.spawn(|| {
                        while let Some(&i) = slow.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                            let p = self.prepare_in(&items[i], snap);
                            if let Ok(mut d) = done.lock() {
                                d.push((i, p));
                            }
                        }
                    });
                }
            });
            for (i, p) in done.into_inner().unwrap_or_default() {
                out[i] = Some(p);
            }
        }
        items.iter().zip(out).map(|(item, p)| p.unwrap_or_else(|| self.prepare_in(item, snap))).collect()
    }

    /// `writegate list` rows (each goal read once).
    #[must_use]
    pub fn list(&self, goal: Option<&str>) -> Vec<ListRow> {
        self.each_pending(goal, |p| p.row())
    }

    /// Result records, newest first (all goals, or one). A damaged log is an error.
    ///
    /// # Errors
    /// [`EngineError::Results`].
    pub fn log(&self, goal: Option<&str>) -> Result<Vec<ResultRecord>, EngineError> {
        let mut all = Vec::new();
        for g in self.ws.goals.iter().filter(|g| goal.is_none_or(|x| x == g.id)) {
            all.extend(self.gate(&g.id)?.results().read_all(false)?);
        }
        all.sort_by(|a, b| b.recorded_at.cmp(&a.recorded_at));
        Ok(all)
    }

    /// The goal of `id`.
    ///
    /// # Errors
    /// [`EngineError::Registry`].
    pub fn goal(&self, id: &str) -> Result<&Goal, EngineError> {
        Ok(self.ws.goal(id)?)
    }

    /// `<gate>/decided/<item>.json` (a free name if that exists).
    fn decided_path(gate: &GateDir, item: &Item) -> PathBuf {
        let base = gate.decided().join(format!("{}.json", item.id));
        if !base.exists() {
            return base;
        }
        (2..100_000).map(|n| gate.decided().join(format!("{}.{n}.json", item.id))).find(|p| !p.exists()).unwrap_or(base)
    }
}

/// Reads a state file as text (UTF-8 required; refused otherwise, never guessed).
///
/// # Errors
/// A message naming the problem.
pub fn read_state(path: &std::path::Path) -> Result<String, String> {
    let bytes = crate::gate::fsutil::read_regular(path, crate::gate::fsutil::limits::STATE, true)
        .map_err(|e| format!("cannot read state file {}: {e}", path.display()))?;
    String::from_utf8(bytes)
        .map_err(|e| format!("state file {} is not UTF-8 (byte {})", path.display(), e.utf8_error().valid_up_to()))
}

/// Keeps `texts` in the goal's revision snapshots (`gate/revisions/`) for later conflict
/// views. Best effort: the decision is already durable, so a failure is logged, not raised.
fn keep_snapshots(gate: &crate::gate::GateDir, texts: &[&str]) {
    let known: Vec<(&str, Option<&str>)> = texts.iter().map(|t| (*t, None)).collect();
    keep_snapshots_known(gate, &known);
}

/// [`keep_snapshots`] of `(text, its revision where known)` pairs.
fn keep_snapshots_known(gate: &crate::gate::GateDir, texts: &[(&str, Option<&str>)]) {
    let store = gate.revisions();
    for (text, revision) in texts {
        if let Err(e) = store.keep_known(text, *revision) {
            tracing::warn!(dir = %store.dir().display(), error = %e, "could not keep a revision snapshot");
        }
    }
}
