//! The operator TUI (ratatui + crossterm). The Elm architecture: background threads (input,
//! watcher, loader, view builder, decisions) send messages on one channel; `app::update`
//! turns them into state and effects; the loop runs the effects through the engine and
//! draws from `&App`. Terminal set-up and restore live in [`TerminalGuard`] and survive
//! panics and error returns.

pub mod app;
pub mod attention;
pub mod batch;
mod decider;
mod input;
pub mod keymap;
mod loaded;
mod loader;
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

/// Runs the TUI until the operator quits.
///
/// # Errors
/// Terminal set-up failures and invalid key overrides.
pub fn run(engine: Engine, opts: &Options) -> anyhow::Result<()> {
    let mut app = new_app(&engine, opts)?;
    let mut terminal = ratatui::try_init()?;
    install_panic_hook();
    let _guard = TerminalGuard;
    execute!(std::io::stdout(), EnableBracketedPaste)?;

    // The first frame comes first: the workspace's folders are watched, and its goals read,
    // on their own threads after it.
    terminal.draw(|f| view::draw(f, &app))?;
    let engine: loader::Shared = Arc::new(Mutex::new(Arc::new(engine)));
    let (tx, rx) = channel::<Msg>();
    let stop = Arc::new(AtomicBool::new(false));
    spawn_input(tx.clone(), stop.clone());
    spawn_signals(tx.clone())?;
    let poll = Duration::from_millis(opts.config.poll_interval_ms);
    let (wtx, wrx) = channel::<WatchMsg>();
    forward(wrx, tx.clone());
    // Armed by the loader (first thing it does), so the watcher and the first read agree.
    let watcher = watch::start(&[], poll, opts.config.force_poll, &wtx);
    let loader = loader::spawn(engine.clone(), watcher.clone(), tx.clone());
    let viewer = spawn_viewer(tx.clone());
    let decider = decider::Decider::start();
    let mut deciding: Vec<std::thread::JoinHandle<()>> = Vec::new();
    let mut hold = loader::Hold::default();

    let mut last_tick = std::time::Instant::now();
    while let Some(msgs) = next_burst(&rx, &mut last_tick) {
        // A file change alone changes nothing on screen (the reload it asks for redraws when
        // it lands): during a batch, each apply's writes would redraw for nothing.
        let redraw = !msgs.iter().all(|m| matches!(m, Msg::Watch(WatchMsg::Changed(_))));
        let Burst { quit, mut reload, work } =
            take_burst(&mut app, msgs, (&engine, &tx, &mut hold), &viewer, &opts.config.notify_command);
        hold.filter(&mut reload);
        if !reload.is_empty() {
            tracing::debug!(?reload, "reload");
            let _ = loader.send(reload);
        }
        if redraw && !quit {
            terminal.draw(|f| view::draw(f, &app))?;
        }
        // Work starts once the frame saying so is drawn: a batch's first apply no longer
        // shares the processor with that frame.
        for (job, joined) in work {
            if joined {
                deciding.extend(decider.run(job));
            } else {
                std::thread::spawn(job);
            }
        }
        if quit {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    // A decision in flight completes before we leave: never half an apply.
    decider.finish();
    for h in deciding {
        let _ = h.join();
    }
    drop(watcher);
    Ok(())
}

/// What one burst of messages asks of the loop: to leave, to reload, work to start.
struct Burst {
    quit: bool,
    reload: loader::Job,
    /// Jobs, each with whether it is a decision ([`work_job`]).
    work: Vec<(decider::Job, bool)>,
}

/// Runs `msgs` through `app::update`: carries out the effects that need nothing of the
/// loop's (the bell, `notify_command`, view requests to `viewer`) and gathers the rest. File
/// changes become reload jobs, a finished batch releases its goals' held reloads, and work
/// is made into jobs on the engine as it is now (`engine`, `tx`, `hold`: see [`work_job`]).
fn take_burst(
    app: &mut App,
    msgs: Vec<Msg>,
    (engine, tx, hold): (&loader::Shared, &Sender<Msg>, &mut loader::Hold),
    viewer: &Sender<(String, Arc<model::Detail>)>,
    notify_command: &[String],
) -> Burst {
    let mut burst = Burst { quit: false, reload: loader::Job::default(), work: Vec::new() };
    for msg in msgs {
        if let Msg::Watch(WatchMsg::Changed(paths)) = &msg {
            tracing::debug!(?paths, "changed");
            burst.reload.merge(loader::job_for(&loader::current(engine), paths));
        }
        if matches!(msg, Msg::BatchDone { .. }) {
            burst.reload.merge(hold.release());
        }
        for effect in app::update(app, msg) {
            match effect {
                Effect::Quit => burst.quit = true,
                Effect::Bell => {
                    let _ = execute!(std::io::stdout(), ratatui::crossterm::style::Print("\u{7}"));
                }
                Effect::Notify(waiting) => spawn_notify(notify_command.to_vec(), waiting),
                Effect::Reload(None) => burst.reload.merge(loader::Job::full()),
                Effect::Reload(Some(goals)) => burst.reload.merge(loader::Job::goals(goals)),
                Effect::ComputeView { key } => {
                    if let Some(item) = app.current().filter(|c| c.key == key) {
                        let _ = viewer.send((key, item.detail.clone()));
                    }
                }
                w @ (Effect::DecideBatch { .. } | Effect::Revert { .. } | Effect::Decide { .. }) => {
                    burst.work.extend(work_job(w, engine, tx, hold));
                }
            }
        }
    }
    burst
}

/// The app as the options set it up: key overrides, colour, arming, notification gap.
fn new_app(engine: &Engine, opts: &Options) -> anyhow::Result<App> {
    let keys = keymap::with_overrides(keymap::default_table(), &opts.config.keys).map_err(anyhow::Error::msg)?;
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && opts.config.theme != "mono";
    let mut app =
        App::new(engine.ws.registry_path.display().to_string(), opts.read_only, color, opts.config.bell, keys);
    app.arming = Duration::from_millis(opts.config.confirm_arming_ms);
    app.notify_gap = (!opts.config.notify_command.is_empty()).then(|| {
        chrono::Duration::seconds(i64::try_from(opts.config.notify_min_interval_s).unwrap_or(i64::MAX / 1000))
    });
    Ok(app)
}

/// Runs the configured `notify_command` for `waiting` on its own thread; the outcome is logged.
fn spawn_notify(argv: Vec<String>, waiting: attention::Waiting) {
    std::thread::spawn(move || match attention::run_notify(&argv, &waiting) {
        Ok(()) => tracing::info!(count = waiting.count, "notify_command ran"),
        Err(e) => tracing::warn!("{e}"),
    });
}

/// The job for a decision, a batch of them or a revert, on the engine as it is now, and
/// whether it is a decision (run on the [`decider::Decider`] and joined before the loop
/// leaves: never half an apply) rather than a revert (a thread of its own). A batch's goals
/// are held from reloading from now until it is done ([`loader::Hold`]).
fn work_job(
    work: Effect,
    engine: &loader::Shared,
    tx: &Sender<Msg>,
    hold: &mut loader::Hold,
) -> Option<(decider::Job, bool)> {
    let (eng, tx) = (loader::current(engine), tx.clone());
    match work {
        Effect::DecideBatch { action, items, decision } => {
            hold.start(items.iter().filter_map(|i| i.key.split('/').next().map(str::to_owned)));
            let job: decider::Job = Box::new(move || {
                let outcomes = batch::run(&eng, items, &decision);
                let _ = tx.send(Msg::BatchDone { action, outcomes });
            });
            Some((job, true))
        }
        Effect::Revert { goal, item_id } => {
            let job: decider::Job = Box::new(move || {
                let result = revert::propose(&eng, &goal, &item_id);
                let _ = tx.send(Msg::Reverted { goal, result });
            });
            Some((job, false))
        }
        Effect::Decide { key, digest, decision } => {
            let job: decider::Job = Box::new(move || {
                let result = eng.decide(&key, &decision, Some(&digest)).map_err(|e| crate::error_chain(&e));
                tracing::info!(item = key, ?result, "decision");
                let _ = tx.send(Msg::Decided { key, result });
            });
            Some((job, true))
        }
        _ => None,
    }
}

/// The next burst of messages (waiting up to a second, then a [`Msg::Tick`]), coalesced so
/// resize storms and watch bursts make one redraw; a tick is added once a second even while
/// messages keep coming (countdowns, ages). `None` once every sender is gone.
fn next_burst(rx: &Receiver<Msg>, last_tick: &mut std::time::Instant) -> Option<Vec<Msg>> {
    let first = match rx.recv_timeout(Duration::from_secs(1)) {
        Ok(m) => m,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Msg::Tick,
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return None,
    };
    let mut msgs = vec![first];
    msgs.extend(rx.try_iter().take(512));
    if last_tick.elapsed() >= Duration::from_secs(1) {
        *last_tick = std::time::Instant::now();
        if !msgs.iter().any(|m| matches!(m, Msg::Tick)) {
            msgs.push(Msg::Tick);
        }
    } else if matches!(msgs.first(), Some(Msg::Tick)) {
        *last_tick = std::time::Instant::now();
    }
    Some(msgs)
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
    let proposed = detail.proposed_text();
    let mut diff = match (&detail.current, &proposed) {
        (Some(a), Some(b)) => crate::diff::model(a, b, 3, VIEW_DIFF_DEADLINE),
        _ => crate::diff::Model::default(),
    };
    mask_model(&mut diff, detail.current.as_deref().map(String::as_str), proposed.as_deref());
    let plan = match (&detail.current, &proposed) {
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
/// The rows are masked in order as one text ([`crate::scan::mask_lines_into`]), so a private
/// key's body rows are masked with its marker's row, and the last rows of a key shown above
/// its END marker without its BEGIN marker too.
fn mask_model(m: &mut crate::diff::Model, old: Option<&str>, new: Option<&str>) {
    // Rows inside a key's body in either whole text, wherever the hunk cut it.
    let keys = |t: &str| memchr::memmem::find(t.as_bytes(), b"PRIVATE KEY").map(|_| crate::scan::key_body_lines(t));
    let (old_keys, new_keys) = (old.and_then(keys), new.and_then(keys));
    let in_key = |keys: &Option<Vec<bool>>, n: Option<usize>| {
        keys.as_ref().zip(n).is_some_and(|(k, n)| n.checked_sub(1).and_then(|i| k.get(i)).copied().unwrap_or(false))
    };
    let texts: Vec<String> = m
        .rows
        .iter()
        .map(|row| match row {
            crate::diff::Row::Line(l) => l.spans.iter().map(|(_, t)| t.as_str()).collect(),
            crate::diff::Row::Fold(_) => String::new(),
        })
        .collect();
    let lines: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut masked = vec![None; lines.len()];
    crate::scan::mask_lines_into(&lines, |i, _, shown, n| {
        if n > 0 {
            masked[i] = Some(shown);
        }
    });
    for (row, shown) in m.rows.iter_mut().zip(masked) {
        let crate::diff::Row::Line(l) = row else { continue };
        if in_key(&old_keys, l.old.filter(|_| l.tag != '+')) || in_key(&new_keys, l.new.filter(|_| l.tag != '-')) {
            l.spans = vec![(false, "***".to_owned())];
        } else if let Some(shown) = shown {
            l.spans = vec![(false, shown)];
        }
    }
}
