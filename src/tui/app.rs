//! UI state and the pure `update`: messages in (keys, paste, loads, watch, outcomes),
//! state changed, effects out (decide, reload, compute a view, bell, quit). No I/O here.

use super::keymap::Binding;
use super::model::{GoalRow, QueueItem};
use crate::engine::{Decision, Outcome};
use crate::watch::{WatchMode, WatchMsg};
use crate::wire::Status;
use ratatui::crossterm::event::{KeyEvent, KeyEventKind};
use std::collections::BTreeSet;
use std::sync::Arc;

pub use super::batch::{Batch, BatchAction, BatchRow};
pub use super::verdict::{apply_unavailable, outcome_kind, status_label};

/// Quick reasons offered by the reject dialog (keys 1–4 when nothing is typed).
pub const QUICK_REASONS: [&str; 4] = ["stale or superseded", "unsafe content", "wrong goal or todo", "not needed"];

/// A typed reject reason, trimmed; a lone 1–4 is that quick reason ("3rd copy" stays as typed).
#[must_use]
pub fn quick_reason(typed: &str) -> String {
    let reason = typed.trim();
    match reason.parse::<usize>().ok().filter(|n| (1..=QUICK_REASONS.len()).contains(n)) {
        Some(q) => QUICK_REASONS[q - 1].to_owned(),
        None => reason.to_owned(),
    }
}

/// Detail tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// The dry-run diff.
    Diff,
    /// Scan findings.
    Scan,
    /// The item document.
    Packet,
    /// Checks and conflict details.
    Checks,
    /// The conflict, readable: for a revision conflict the 3-way view from the kept base.
    Conflict,
    /// Results of the goal.
    History,
}

/// Tab order.
pub const TABS: [Tab; 6] = [Tab::Diff, Tab::Scan, Tab::Packet, Tab::Checks, Tab::Conflict, Tab::History];

/// Diff layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffMode {
    /// One column.
    Unified,
    /// Old | new.
    SideBySide,
}

/// What the keyboard is doing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// Browsing.
    Normal,
    /// Typing the filter.
    Filter,
    /// Help overlay.
    Help,
    /// `y` applies the item; Tab moves typing to the optional note.
    ConfirmApply { key: String, note: NoteField },
    /// Type the first 6 characters of the item id, Enter: do what `purpose` says (Tab moves
    /// typing to the note of an apply).
    TypedConfirm { key: String, typed: String, purpose: Typed, note: NoteField },
    /// `y` skips the item.
    ConfirmSkip(String),
    /// Type a reason (or 1–4), Enter rejects.
    Reject { key: String, typed: String },
    /// `y` records a blocker todo for a read-only writeback (and closes it as rejected).
    ConfirmBlocker(String),
    /// A decision over the marked items: (a reason, for a reject, then) their count, Enter.
    Batch(Batch),
    /// The outcomes of the last batch, one row each; any key closes it.
    BatchReport(Vec<BatchRow>),
}

/// The optional note of an apply dialog (issue 14 item 6), kept in the result record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NoteField {
    /// What was typed (sanitised by the engine when recorded).
    pub text: String,
    /// Typing goes to the note (Tab toggles).
    pub focused: bool,
}

impl NoteField {
    /// The note for the decision (`None` when empty).
    #[must_use]
    pub fn value(&self) -> Option<String> {
        let t = self.text.trim();
        (!t.is_empty()).then(|| t.to_owned())
    }
}

/// What a typed confirmation confirms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typed {
    /// Apply despite `warn` findings.
    Warnings,
    /// Apply with the idempotency override (recorded with both effect digests).
    OverrideIdempotency,
    /// Mark this expired hard lease released, as LoopX writes a release (the item stays).
    ReleaseLease {
        /// The todo whose lease it is.
        todo_id: String,
        /// The lease as shown.
        seen: crate::loopx::lease::TaskLease,
    },
}

/// Severity of the flash line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlashKind {
    /// Neutral.
    Info,
    /// A decision went through.
    Success,
    /// A conflict or refusal.
    Conflict,
    /// An error.
    Error,
}

/// Precomputed display data for the selected item (off the UI thread).
#[derive(Debug, Clone)]
pub struct ViewCache {
    /// `goal/item`.
    pub key: String,
    /// The diff model.
    pub diff: Arc<crate::diff::Model>,
    /// Sanitised packet lines.
    pub packet: Arc<Vec<String>>,
    /// The plan view of a todo change (one line per changed todo field; empty when no todo
    /// or Next Action changes), built with the diff for the selected item only.
    pub plan: Arc<Vec<String>>,
    /// The detail the cache was built from (a reload makes a new one).
    pub detail: Arc<super::model::Detail>,
}

/// Messages `update` handles.
#[derive(Debug, Clone)]
pub enum Msg {
    /// A key event (only presses act).
    Key(KeyEvent),
    /// A key event with the instant the input thread read it: confirmations count only
    /// once their dialog is armed and not inside a burst of keys.
    TimedKey(KeyEvent, std::time::Instant),
    /// Pasted text (never a command).
    Paste(String),
    /// The terminal was resized.
    Resize,
    /// A second passed (ages, countdowns).
    Tick,
    /// Goals reloaded: rows and items of these goals (a full load lists every goal).
    Loaded { full: bool, quiet: bool, last: bool, goals: Vec<(GoalRow, Vec<QueueItem>)> },
    /// Some inbox files of one goal: the goal's fresh row, the items among them pending now
    /// (new or changed), and the item files no longer pending. The goal's other items stay.
    ItemsLoaded { row: GoalRow, items: Vec<QueueItem>, gone: Vec<std::path::PathBuf> },
    /// The registry no longer lists these goals.
    GoalsGone(Vec<String>),
    /// The view cache of an item is ready.
    ViewReady(ViewCache),
    /// A decision finished.
    Decided { key: String, result: Result<Outcome, String> },
    /// A revert was proposed (`Ok`: what to tell the operator) or refused.
    Reverted { goal: String, result: Result<String, String> },
    /// A batch finished: each item's outcome, in the order decided.
    BatchDone { action: BatchAction, outcomes: Vec<(String, Result<Outcome, String>)> },
    /// The watcher spoke.
    Watch(WatchMsg),
    /// SIGTERM, SIGINT or SIGHUP arrived: quit as `q` does (a decision in flight completes
    /// first, then the terminal is restored).
    Signal(i32),
}

/// Effects the loop runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Decide an item (through the engine, off the UI thread).
    Decide { key: String, digest: String, decision: Decision },
    /// Propose the revert of applied item `item_id` of `goal` (a new pending item).
    Revert { goal: String, item_id: String },
    /// Decide these items one after another, each through the engine with its own checks
    /// under the lock (`(key, payload digest as shown, decision)`), then report.
    DecideBatch { action: BatchAction, items: Vec<super::batch::BatchItem>, decision: Decision },
    /// Reload these goals (`None`: everything).
    Reload(Option<Vec<String>>),
    /// Build the view cache for an item.
    ComputeView { key: String },
    /// Ring the bell.
    Bell,
    /// Run the config's `notify_command`: items started waiting.
    Notify(super::attention::Waiting),
    /// Leave.
    Quit,
}

/// The whole UI state.
#[derive(Debug, Clone)]
pub struct App {
    /// Goal rows.
    pub goals: Vec<GoalRow>,
    /// Every pending item.
    pub items: Vec<QueueItem>,
    /// Indexes of items shown (filter and goal scope applied).
    pub visible: Vec<usize>,
    /// Selected item key.
    pub selected: Option<String>,
    /// The snapshot the operator is reading, kept when its file or goal changed on disk.
    pub pinned: Option<QueueItem>,
    /// Why the pinned snapshot differs from disk.
    pub banner: Option<String>,
    /// Queue filter (substring over id, goal, class, agent, summary, status; `recomputed`
    /// matches recomputed items).
    pub filter: String,
    /// Only this goal's items.
    pub goal_scope: Option<String>,
    /// Detail tab.
    pub tab: Tab,
    /// Diff layout.
    pub diff_mode: DiffMode,
    /// Detail scroll (rows, columns).
    pub scroll: (u16, u16),
    /// Keyboard mode.
    pub mode: Mode,
    /// Monitoring only.
    pub read_only: bool,
    /// Last outcome or note.
    pub flash: Option<(String, FlashKind)>,
    /// How the workspace is watched.
    pub watch_note: String,
    /// Initial load still running.
    pub loading: bool,
    /// A decision is in flight (its item key).
    pub busy: Option<String>,
    /// Quit once the decision in flight finishes.
    pub quitting: bool,
    /// Display cache of the selected item.
    pub view: Option<ViewCache>,
    /// Registry path, shown at the top of the help overlay.
    pub workspace: String,
    /// Colours on (`NO_COLOR` and theme `mono` turn them off).
    pub color: bool,
    /// Ring the bell for new items.
    pub bell: bool,
    /// The key table.
    pub keys: Arc<Vec<Binding>>,
    /// A goal writegate itself just wrote: its next reload is not "moved under you".
    pub own_write: Option<String>,
    /// The last `lock_busy` outcome: item key and the engine's `{holder, incident,
    /// incident_recorded}` (shown on the Conflict tab until that item is decided otherwise).
    pub lock_busy: Option<(String, serde_json::Value)>,
    /// The clock the view uses for ages and countdowns (advanced by `Tick`).
    pub now: chrono::DateTime<chrono::Utc>,
    /// Help overlay scroll.
    pub help_scroll: u16,
    /// Per goal: (pending, conflicts), kept in step with `items`.
    pub goal_counts: std::collections::HashMap<String, (usize, usize)>,
    /// When the key being handled was read (timed keys only).
    pub key_at: Option<std::time::Instant>,
    /// When the key before it was read.
    pub prev_key_at: Option<std::time::Instant>,
    /// When the open confirmation dialog appeared.
    pub dialog_at: Option<std::time::Instant>,
    /// The arming delay of confirmation dialogs (config `confirm_arming_ms`).
    pub arming: std::time::Duration,
    /// Items the bell already rang for (or that were there when the console opened).
    pub rung: std::collections::HashSet<String>,
    /// When the bell last rang.
    pub last_bell: Option<chrono::DateTime<chrono::Utc>>,
    /// The minimum time between two notify commands (`None`: no `notify_command`).
    pub notify_gap: Option<chrono::Duration>,
    /// When the notify command last ran.
    pub last_notify: Option<chrono::DateTime<chrono::Utc>>,
    /// Items arrived since the last notification.
    pub notify_due: bool,
    /// Per goal, the revision this console's own last apply wrote.
    pub own_revisions: std::collections::HashMap<String, String>,
    /// Items this console decided and moved, until a load no longer lists them: a load
    /// read while the decision ran (a LoopX 2.x command takes a second) must not bring one
    /// back, nor blame its departure on someone else.
    pub just_decided: std::collections::HashSet<String>,
    /// Items marked for a batch decision (keys).
    pub marked: BTreeSet<String>,
    /// The record under the Log tab's cursor (index into the goal's history, newest first).
    pub log_cursor: usize,
}

impl App {
    /// A fresh state.
    #[must_use]
    pub fn new(workspace: String, read_only: bool, color: bool, bell: bool, keys: Vec<Binding>) -> Self {
        Self {
            goals: Vec::new(),
            items: Vec::new(),
            visible: Vec::new(),
            selected: None,
            pinned: None,
            banner: None,
            filter: String::new(),
            goal_scope: None,
            tab: Tab::Diff,
            diff_mode: DiffMode::Unified,
            scroll: (0, 0),
            mode: Mode::Normal,
            read_only,
            flash: None,
            watch_note: "starting".into(),
            loading: true,
            busy: None,
            quitting: false,
            view: None,
            workspace,
            color,
            bell,
            keys: Arc::new(keys),
            own_write: None,
            lock_busy: None,
            goal_counts: std::collections::HashMap::new(),
            now: chrono::Utc::now(),
            help_scroll: 0,
            key_at: None,
            prev_key_at: None,
            dialog_at: None,
            arming: std::time::Duration::from_millis(400),
            rung: std::collections::HashSet::new(),
            last_bell: None,
            notify_gap: None,
            last_notify: None,
            notify_due: false,
            own_revisions: std::collections::HashMap::new(),
            just_decided: std::collections::HashSet::new(),
            marked: BTreeSet::new(),
            log_cursor: 0,
        }
    }

    /// The item shown in the detail: the pinned snapshot, else the selected one.
    #[must_use]
    pub fn current(&self) -> Option<&QueueItem> {
        if let Some(p) = &self.pinned {
            return Some(p);
        }
        let key = self.selected.as_ref()?;
        self.items.iter().find(|i| &i.key == key)
    }

    /// Position of the selection in `visible`.
    #[must_use]
    pub fn selected_pos(&self) -> Option<usize> {
        let key = self.selected.as_ref()?;
        self.visible.iter().position(|&i| &self.items[i].key == key)
    }

    pub(crate) fn recount(&mut self) {
        self.goal_counts.clear();
        for it in &self.items {
            let conflict = usize::from(crate::engine::is_conflict_name(it.predicted.name()));
            // A goal's id is copied once, not once per item.
            if let Some(e) = self.goal_counts.get_mut(&it.goal_id) {
                e.0 += 1;
                e.1 += conflict;
            } else {
                self.goal_counts.insert(it.goal_id.clone(), (1, conflict));
            }
        }
    }

    pub(crate) fn refilter(&mut self) {
        let f = self.filter.to_lowercase();
        self.visible = (0..self.items.len())
            .filter(|&i| {
                let it = &self.items[i];
                self.goal_scope.as_ref().is_none_or(|g| &it.goal_id == g)
                    && (f.is_empty()
                        || [
                            it.item_id.as_str(),
                            &it.goal_id,
                            &it.write_class,
                            &it.agent,
                            &it.summary,
                            it.predicted.name(),
                            status_label(it.predicted.name()),
                            if it.detail.recomputed.is_some() { "recomputed" } else { "" },
                        ]
                        .iter()
                        .any(|s| s.to_lowercase().contains(&f)))
            })
            .collect();
    }

    pub(crate) fn select_index(&mut self, pos: usize) -> Vec<Effect> {
        let Some(&i) = self.visible.get(pos) else {
            self.selected = None;
            return Vec::new();
        };
        let key = self.items[i].key.clone();
        if self.selected.as_ref() == Some(&key) {
            return Vec::new();
        }
        self.selected = Some(key.clone());
        self.pinned = None;
        self.banner = None;
        self.flash = None;
        self.scroll = (0, 0);
        self.log_cursor = 0;
        vec![Effect::ComputeView { key }]
    }

    /// Selects the first visible item when the selection is gone. Automatic, so the status
    /// line keeps what it said (e.g. the outcome of the decision that emptied the selection).
    pub(crate) fn ensure_selection(&mut self) -> Vec<Effect> {
        if self.selected_pos().is_some() {
            return Vec::new();
        }
        self.selected = None;
        let flash = self.flash.take();
        let fx = self.select_index(0);
        self.flash = flash;
        fx
    }
}

/// Applies one message; returns the effects to run.
pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Key(key) if key.kind == KeyEventKind::Press => super::input::on_key(app, key),
        Msg::TimedKey(key, at) if key.kind == KeyEventKind::Press => {
            app.key_at = Some(at);
            let effects = super::input::on_key(app, key);
            app.prev_key_at = Some(at);
            effects
        }
        Msg::Tick => {
            app.now = chrono::Utc::now();
            super::attention::due_notification(app).into_iter().collect()
        }
        Msg::Key(_) | Msg::TimedKey(..) | Msg::Resize => Vec::new(),
        Msg::Paste(text) => super::input::on_paste(app, &text),
        Msg::Loaded { full, quiet, last, goals } => {
            super::loaded::on_loaded(app, full, quiet || app.loading, last, goals)
        }
        Msg::ItemsLoaded { row, items, gone } => super::loaded::on_items_loaded(app, row, items, &gone),
        Msg::GoalsGone(ids) => {
            let gone: BTreeSet<String> = ids.into_iter().collect();
            app.goals.retain(|g| !gone.contains(&g.id));
            app.items.retain(|i| !gone.contains(&i.goal_id));
            app.recount();
            app.refilter();
            app.ensure_selection()
        }
        Msg::ViewReady(cache) => {
            if app.current().is_some_and(|c| c.key == cache.key && Arc::ptr_eq(&c.detail, &cache.detail)) {
                app.view = Some(cache);
            }
            Vec::new()
        }
        Msg::Decided { key, result } => on_decided(app, &key, result),
        Msg::BatchDone { action, outcomes } => super::batch::on_done(app, action, outcomes),
        Msg::Reverted { goal, result } => super::revert::on_done(app, goal, result),
        Msg::Watch(w) => on_watch(app, w),
        Msg::Signal(sig) => {
            tracing::info!(signal = sig, "signal: quitting");
            vec![Effect::Quit]
        }
    }
}

fn on_decided(app: &mut App, key: &str, result: Result<Outcome, String>) -> Vec<Effect> {
    app.busy = None;
    let goal = key.split('/').next().unwrap_or("").to_owned();
    app.own_write = Some(goal.clone());
    if let Some(rev) = result.as_ref().ok().and_then(|o| o.record.as_ref()).and_then(|r| r.applied_revision.clone()) {
        app.own_revisions.insert(goal.clone(), rev);
    }
    match result {
        Ok(out) => {
            let kind = outcome_kind(out.status);
            let flash = (format!("{} — {}", out.status.as_str(), crate::scan::shown(&out.message, false)), kind);
            if out.status == Status::LockBusy {
                app.lock_busy = Some((key.to_owned(), out.lock.clone().unwrap_or_default()));
                app.tab = Tab::Conflict;
            } else if app.lock_busy.as_ref().is_some_and(|(k, _)| k == key) {
                app.lock_busy = None;
            }
            app.flash = Some(flash.clone());
            if out.item_moved {
                app.just_decided.insert(key.to_owned());
                app.marked.remove(key);
                // Select the next item now; the reload drops the decided one.
                let pos = app.selected_pos().unwrap_or(0);
                app.visible.retain(|&i| app.items[i].key != key);
                app.pinned = None;
                app.banner = None;
                app.selected = None;
                let mut fx = app.select_index(pos.min(app.visible.len().saturating_sub(1)));
                app.flash = Some(flash);
                fx.push(Effect::Reload(Some(vec![goal])));
                if app.quitting {
                    fx.push(Effect::Quit);
                }
                return fx;
            }
        }
        Err(e) => {
            app.flash = Some((format!("not decided: {}", crate::scan::shown(&e, false)), FlashKind::Error));
        }
    }
    let mut fx = vec![Effect::Reload(Some(vec![goal]))];
    if app.quitting {
        fx.push(Effect::Quit);
    }
    fx
}

fn on_watch(app: &mut App, w: WatchMsg) -> Vec<Effect> {
    match w {
        WatchMsg::Mode(WatchMode::Native) => {
            app.watch_note = "live".into();
            Vec::new()
        }
        WatchMsg::Mode(WatchMode::Polling { interval, reason }) => {
            app.watch_note =
                format!("polling every {} ms ({})", interval.as_millis(), crate::scan::shown(&reason, false));
            Vec::new()
        }
        WatchMsg::Rescan(reason) => {
            tracing::warn!(reason, "full rescan");
            vec![Effect::Reload(None)]
        }
        WatchMsg::Changed(_) => Vec::new(),
    }
}

#[cfg(test)]
#[path = "app_tests.rs"]
pub(crate) mod tests;

#[cfg(test)]
#[path = "app_trust_tests.rs"]
mod trust_tests;
