//! The operator TUI (ratatui + crossterm). The Elm architecture: background threads (input,
//! watcher, loader, view builder, decisions) send messages on one channel; `app::update`
//! turns them into state and effects; the loop runs the effects through the engine and
//! draws from `&App`. Terminal set-up and restore live in [`TerminalGuard`] and survive
//! panics and error returns.

pub mod app;
pub mod attention;
pub mod batch;
mod input;
pub mod keymap;
pub mod model;
mod revert;
pub mod theme;
pub mod verdict;
pub mod view;

use crate::config::Config;
use crate::engine::Engine;
use crate::watch::{self, WatchMsg};
use app::{App, Effect, Msg, ViewCache};
use ratatui::crossterm::event::{self, DisableBracketedPaste, EnableBracketedPaste, Event};
use ratatui::crossterm::execute;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, atomic::AtomicBool, atomic::Ordering};
use std::time::Duration;

/// How the TUI was asked to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Monitoring only.
    pub read_only: bool,
    /// The user config.
    pub config: Config,
}

/// Restores the terminal (raw mode off, alternate screen left, bracketed paste off) when
/// dropped — on normal exit, on an error return, and from the panic hook.
pub struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        let _ = execute!(std::io::stdout(), DisableBracketedPaste);
        ratatui::restore();
    }
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = execute!(std::io::stdout(), DisableBracketedPaste);
        ratatui::restore();
        previous(info);
    }));
}

/// Loader jobs: everything, or some goals.
#[derive(Debug, Clone)]
enum Job {
    Full,
    Goals(BTreeSet<String>),
}

/// Runs the TUI until the operator quits.
///
/// # Errors
/// Terminal set-up failures and invalid key overrides.
pub fn run(engine: Engine, opts: &Options) -> anyhow::Result<()> {
    let keys = keymap::with_overrides(keymap::default_table(), &opts.config.keys).map_err(anyhow::Error::msg)?;
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && opts.config.theme != "mono";
    let mut app =
        App::new(engine.ws.registry_path.display().to_string(), opts.read_only, color, opts.config.bell, keys);
    app.arming = Duration::from_millis(opts.config.confirm_arming_ms);
    app.notify_gap = (!opts.config.notify_command.is_empty()).then(|| {
        chrono::Duration::seconds(i64::try_from(opts.config.notify_min_interval_s).unwrap_or(i64::MAX / 1000))
    });
    let mut terminal = ratatui::try_init()?;
    install_panic_hook();
    let _guard = TerminalGuard;
    execute!(std::io::stdout(), EnableBracketedPaste)?;

    let engine = Arc::new(Mutex::new(Arc::new(engine)));
    let (tx, rx) = channel::<Msg>();
    let stop = Arc::new(AtomicBool::new(false));
    spawn_input(tx.clone(), stop.clone());
    spawn_signals(tx.clone())?;
    let loader = spawn_loader(engine.clone(), tx.clone());
    let viewer = spawn_viewer(tx.clone());
    let poll = Duration::from_millis(opts.config.poll_interval_ms);
    let (wtx, wrx) = channel::<WatchMsg>();
    forward(wrx, tx.clone());
    let mut dirs = watch::watch_set(&current(&engine));
    let mut watcher = watch::start(&paths_of(&dirs), poll, opts.config.force_poll, &wtx);
    let _ = loader.send(Job::Full);
    let mut deciding: Vec<std::thread::JoinHandle<()>> = Vec::new();

    terminal.draw(|f| view::draw(f, &app))?;
    let mut last_tick = std::time::Instant::now();
    loop {
        let first = match rx.recv_timeout(Duration::from_secs(1)) {
            Ok(m) => m,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Msg::Tick,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        };
        // Coalesce bursts (resize storms, watch bursts) into one redraw.
        let mut msgs = vec![first];
        msgs.extend(rx.try_iter().take(512));
        // The clock moves every second even while messages keep coming (countdowns, ages).
        if last_tick.elapsed() >= Duration::from_secs(1) {
            last_tick = std::time::Instant::now();
            if !msgs.iter().any(|m| matches!(m, Msg::Tick)) {
                msgs.push(Msg::Tick);
            }
        } else if matches!(msgs.first(), Some(Msg::Tick)) {
            last_tick = std::time::Instant::now();
        }
        let mut quit = false;
        let mut reload: Option<Job> = None;
        for msg in msgs {
            if let Msg::Watch(WatchMsg::Changed(paths)) = &msg {
                tracing::debug!(?paths, "changed");
                let eng = current(&engine);
                merge(&mut reload, goals_for(&eng, paths));
                // A folder made, removed or replaced: re-arm on the new set of folders.
                let folders_moved = paths.iter().any(|p| p.is_dir() || !p.exists());
                if folders_moved || paths.iter().any(|p| p == &eng.ws.registry_path) {
                    let fresh = rearm(&eng, &mut dirs, &mut watcher, (poll, opts.config.force_poll, &wtx));
                    merge(&mut reload, goals_for(&eng, &fresh));
                }
            }
            let full_load = matches!(msg, Msg::Loaded { full: true, .. });
            if full_load {
                // The registry may have gained goals: watch their folders too.
                let eng = current(&engine);
                let fresh = rearm(&eng, &mut dirs, &mut watcher, (poll, opts.config.force_poll, &wtx));
                if !fresh.is_empty() {
                    merge(&mut reload, goals_for(&eng, &fresh));
                }
            }
            for effect in app::update(&mut app, msg) {
                match effect {
                    Effect::Quit => quit = true,
                    Effect::Bell => {
                        let _ = execute!(std::io::stdout(), ratatui::crossterm::style::Print("\u{7}"));
                    }
                    Effect::Notify(waiting) => {
                        let argv = opts.config.notify_command.clone();
                        std::thread::spawn(move || match attention::run_notify(&argv, &waiting) {
                            Ok(()) => tracing::info!(count = waiting.count, "notify_command ran"),
                            Err(e) => tracing::warn!("{e}"),
                        });
                    }
                    Effect::Reload(None) => merge(&mut reload, Job::Full),
                    Effect::Reload(Some(goals)) => {
                        merge(&mut reload, Job::Goals(goals.into_iter().collect()));
                    }
                    Effect::ComputeView { key } => {
                        if let Some(item) = app.current().filter(|c| c.key == key) {
                            let _ = viewer.send((key, item.detail.clone()));
                        }
                    }
                    Effect::DecideBatch { action, items, decision } => {
                        let eng = current(&engine);
                        let tx = tx.clone();
                        deciding.push(std::thread::spawn(move || {
                            let outcomes = batch::run(&eng, items, &decision);
                            let _ = tx.send(Msg::BatchDone { action, outcomes });
                        }));
                    }
                    Effect::Revert { goal, item_id } => {
                        let (eng, tx) = (current(&engine), tx.clone());
                        std::thread::spawn(move || {
                            let result = revert::propose(&eng, &goal, &item_id);
                            let _ = tx.send(Msg::Reverted { goal, result });
                        });
                    }
                    Effect::Decide { key, digest, decision } => {
                        let eng = current(&engine);
                        let tx = tx.clone();
                        deciding.push(std::thread::spawn(move || {
                            let result = eng.decide(&key, &decision, Some(&digest)).map_err(|e| crate::error_chain(&e));
                            tracing::info!(item = key, ?result, "decision");
                            let _ = tx.send(Msg::Decided { key, result });
                        }));
                    }
                }
            }
        }
        if let Some(job) = reload {
            tracing::debug!(?job, "reload");
            let _ = loader.send(job);
        }
        if quit {
            break;
        }
        terminal.draw(|f| view::draw(f, &app))?;
    }
    stop.store(true, Ordering::Relaxed);
    // A decision in flight completes before we leave: never half an apply.
    for h in deciding {
        let _ = h.join();
    }
    drop(watcher);
    Ok(())
}

fn current(engine: &Arc<Mutex<Arc<Engine>>>) -> Arc<Engine> {
    engine.lock().map_or_else(|p| p.into_inner().clone(), |g| g.clone())
}

fn merge(slot: &mut Option<Job>, job: Job) {
    *slot = match (slot.take(), job) {
        (Some(Job::Full), _) | (_, Job::Full) => Some(Job::Full),
        (Some(Job::Goals(mut a)), Job::Goals(b)) => {
            a.extend(b);
            Some(Job::Goals(a))
        }
        (None, j) => Some(j),
    };
}

fn paths_of(set: &[(PathBuf, u64)]) -> Vec<PathBuf> {
    set.iter().map(|(p, _)| p.clone()).collect()
}

/// Re-arms the watcher when the folders to watch changed (new, gone, or replaced under the
/// same path); returns the folders that are new since, whose goals are reloaded: a file
/// that landed in a folder before it was watched is picked up (issue 12 case 13).
fn rearm(
    engine: &Engine,
    dirs: &mut Vec<(PathBuf, u64)>,
    watcher: &mut watch::Watcher,
    (poll, force_poll, tx): (Duration, bool, &Sender<WatchMsg>),
) -> Vec<PathBuf> {
    let set = watch::watch_set(engine);
    if set == *dirs {
        return Vec::new();
    }
    let fresh: Vec<PathBuf> = set.iter().filter(|d| !dirs.contains(d)).map(|(p, _)| p.clone()).collect();
    *dirs = set;
    *watcher = watch::start(&paths_of(dirs), poll, force_poll, tx);
    fresh
}

/// Which goals a set of changed paths concerns (`Full` for the registry or a new goal).
fn goals_for(engine: &Engine, paths: &[PathBuf]) -> Job {
    let goals_dir = engine.ws.runtime_root.join("goals");
    let mut out = BTreeSet::new();
    for p in paths {
        if p == &engine.ws.registry_path || *p == goals_dir || p.parent() == Some(goals_dir.as_path()) {
            return Job::Full;
        }
        if let Ok(rest) = p.strip_prefix(&goals_dir) {
            if let Some(id) = rest.components().next() {
                out.insert(id.as_os_str().to_string_lossy().into_owned());
            }
            continue;
        }
        if std::iter::once(&engine.ws.runtime_root)
            .chain(&engine.ws.other_runtime_roots)
            .any(|root| p.starts_with(root.join("authority")))
        {
            out.extend(authority_goal(engine, p));
            continue;
        }
        for g in &engine.ws.goals {
            if g.state_file.parent() == p.parent() || g.state_file == *p {
                out.insert(g.id.clone());
            }
        }
    }
    Job::Goals(out)
}

/// The goal whose LoopX 2.x authority file `path` is: `authority-<sha256(goal_id)>.sqlite`
/// (and its `-wal`), `provider-<sha256(goal_id)>.json`, or the file provider's
/// `authority-store-<sha256(goal_id)[:16]>.json`.
fn authority_goal(engine: &Engine, path: &std::path::Path) -> Option<String> {
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

fn forward(rx: Receiver<WatchMsg>, tx: Sender<Msg>) {
    std::thread::spawn(move || {
        for m in rx {
            if tx.send(Msg::Watch(m)).is_err() {
                return;
            }
        }
    });
}

/// SIGTERM, SIGINT and SIGHUP become [`Msg::Signal`]: the loop quits through the normal
/// path, so the terminal guard restores the terminal (an external kill left it raw).
fn spawn_signals(tx: Sender<Msg>) -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP])?;
    std::thread::spawn(move || {
        for sig in signals.forever() {
            if tx.send(Msg::Signal(sig)).is_err() {
                return;
            }
        }
    });
    Ok(())
}

fn spawn_input(tx: Sender<Msg>, stop: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            match event::poll(Duration::from_millis(50)) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(_) => return,
            }
            let msg = match event::read() {
                Ok(Event::Key(k)) => Msg::TimedKey(k, std::time::Instant::now()),
                Ok(Event::Paste(text)) => Msg::Paste(text),
                Ok(Event::Resize(..)) => Msg::Resize,
                Ok(_) => continue,
                Err(_) => return,
            };
            if tx.send(msg).is_err() {
                return;
            }
        }
    });
}

fn spawn_loader(engine: Arc<Mutex<Arc<Engine>>>, tx: Sender<Msg>) -> Sender<Job> {
    let (jtx, jrx) = channel::<Job>();
    std::thread::spawn(move || {
        while let Ok(first) = jrx.recv() {
            let mut job = Some(first);
            for more in jrx.try_iter() {
                merge(&mut job, more);
            }
            let Some(job) = job else { continue };
            let msg = match job {
                Job::Full => {
                    // Re-read the registry: goals may have been added or removed.
                    let old = current(&engine);
                    let loc = crate::loopx::registry::Locator {
                        registry: Some(old.ws.registry_path.clone()),
                        runtime_root: Some(old.ws.runtime_root.clone()),
                        ..crate::loopx::registry::Locator::from_env(None, None)
                    };
                    if let Ok(fresh) = Engine::open(&loc, old.clock, old.operator.clone())
                        && let Ok(mut g) = engine.lock()
                    {
                        // The user's runtime map stays; the workspace file is re-read.
                        *g = Arc::new(fresh.with_adapters(&old.user_adapters));
                    }
                    let eng = current(&engine);
                    let _ = eng.recover_all();
                    // A first batch so the queue shows quickly; the rest follows in chunks.
                    let ids: Vec<String> = eng.ws.goals.iter().map(|g| g.id.clone()).collect();
                    let first = ids.iter().take(model::FIRST_BATCH).map(|id| model::load_goal(&eng, id)).collect();
                    let done = ids.len() <= model::FIRST_BATCH;
                    if tx.send(Msg::Loaded { full: true, quiet: true, last: done, goals: first }).is_err() {
                        return;
                    }
                    let chunks: Vec<&[String]> = ids[ids.len().min(model::FIRST_BATCH)..].chunks(200).collect();
                    for (n, chunk) in chunks.iter().enumerate() {
                        let goals = chunk.iter().map(|id| model::load_goal(&eng, id)).collect();
                        if tx
                            .send(Msg::Loaded { full: false, quiet: true, last: n + 1 == chunks.len(), goals })
                            .is_err()
                        {
                            return;
                        }
                    }
                    continue;
                }
                Job::Goals(ids) => {
                    let eng = current(&engine);
                    let goals =
                        ids.iter().filter(|id| eng.goal(id).is_ok()).map(|id| model::load_goal(&eng, id)).collect();
                    Msg::Loaded { full: false, quiet: false, last: true, goals }
                }
            };
            if tx.send(msg).is_err() {
                return;
            }
        }
    });
    jtx
}

/// Builds view caches (diff model with a deadline, packet lines) for the latest request.
fn spawn_viewer(tx: Sender<Msg>) -> Sender<(String, Arc<model::Detail>)> {
    let (vtx, vrx) = channel::<(String, Arc<model::Detail>)>();
    std::thread::spawn(move || {
        while let Ok(mut req) = vrx.recv() {
            for newer in vrx.try_iter() {
                req = newer;
            }
            let (key, detail) = req;
            let cache = build_view(key, detail);
            if tx.send(Msg::ViewReady(cache)).is_err() {
                return;
            }
        }
    });
    vtx
}

/// How long the Diff tab's line diff and word highlights may take together
/// ([`crate::diff::model`]); masking and the plan come after it, inside issue 15's 250 ms
/// for a view of any two texts up to 2 MB.
pub const VIEW_DIFF_DEADLINE: Duration = Duration::from_millis(150);

/// Builds the view cache of an item: the display diff ([`VIEW_DIFF_DEADLINE`]), secrets
/// masked, the plan of a todo change, and the packet lines. Runs off the UI thread.
#[must_use]
pub fn build_view(key: String, detail: Arc<model::Detail>) -> ViewCache {
    let mut diff = match (&detail.current, &detail.proposed) {
        (Some(a), Some(b)) => crate::diff::model(a, b, 3, VIEW_DIFF_DEADLINE),
        _ => crate::diff::Model::default(),
    };
    mask_model(&mut diff);
    let plan = match (&detail.current, &detail.proposed) {
        (Some(a), Some(b)) => crate::engine::summary::plan(a, b),
        _ => Vec::new(),
    };
    ViewCache {
        key,
        diff: Arc::new(diff),
        packet: Arc::new(model::packet_lines(&detail)),
        plan: Arc::new(plan),
        detail,
    }
}

/// Masks credentials on every diff line (a line holding one loses its word highlights):
/// the screen never shows a full secret, whether the change adds it or the state has it.
fn mask_model(m: &mut crate::diff::Model) {
    for row in &mut m.rows {
        if let crate::diff::Row::Line(l) = row {
            let (masked, n) = match l.spans.as_slice() {
                [(_, one)] => crate::scan::mask_secrets(one),
                spans => crate::scan::mask_secrets(&spans.iter().map(|(_, t)| t.as_str()).collect::<String>()),
            };
            if n > 0 {
                l.spans = vec![(false, masked)];
            }
        }
    }
}
