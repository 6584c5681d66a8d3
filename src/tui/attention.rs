//! Telling the operator that items wait (issue 12 case 16): one terminal bell per burst of
//! arrivals, and an optional `notify_command` from the config, run when items start waiting
//! so the operator can be told on a phone or desktop.
//!
//! The command gets counts, goal ids and an age only — never an item's payload text,
//! summary or agent-written field: goal ids are LoopX-validated segments
//! (`^[A-Za-z0-9][A-Za-z0-9_.-]*$`), so nothing an agent wrote can reach its arguments.

use super::app::{App, Effect};
use crate::engine::Predicted;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The minimum time between two bells: a burst of arrivals rings once.
pub const BELL_GAP_SECS: i64 = 2;

/// How long a notify command may run before it is killed.
pub const NOTIFY_TIMEOUT: Duration = Duration::from_secs(10);

/// What a notification says: the items waiting now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    /// Pending items that are not invalid.
    pub count: usize,
    /// Their goals, sorted, each once.
    pub goals: Vec<String>,
    /// Age of the oldest of them, seconds (from its file's mtime).
    pub oldest_age_secs: i64,
}

impl Waiting {
    /// One line for a notification: `writegate: 3 items waiting (demo-goal, docs-goal);
    /// oldest 2 min`.
    #[must_use]
    pub fn line(&self) -> String {
        let age = match self.oldest_age_secs {
            s if s < 90 => format!("{} s", s.max(0)),
            s if s < 90 * 60 => format!("{} min", (s + 30) / 60),
            s => format!("{} h", (s + 1800) / 3600),
        };
        format!(
            "writegate: {} item{} waiting ({}); oldest {age}",
            self.count,
            if self.count == 1 { "" } else { "s" },
            self.goals.join(", ")
        )
    }
}

/// The items waiting in `app` now, or `None` when none are.
fn waiting(app: &App) -> Option<Waiting> {
    let live: Vec<_> = app.items.iter().filter(|i| i.predicted != Predicted::Invalid).collect();
    let oldest = live.iter().map(|i| i.arrived).min()?;
    let mut goals: Vec<String> = live.iter().map(|i| i.goal_id.clone()).collect();
    goals.sort();
    goals.dedup();
    Some(Waiting { count: live.len(), goals, oldest_age_secs: (app.now - oldest).num_seconds() })
}

/// After a load: marks the items new to the operator (never seen, and readable — a
/// half-written file counts once it is whole) and returns the bell and notification the
/// arrival calls for. A quiet load (the first one) marks items without ringing. The bell
/// rings at most once per [`BELL_GAP_SECS`]; a notification is made due and sent by
/// [`due_notification`].
pub fn on_arrivals(app: &mut App, quiet: bool) -> Vec<Effect> {
    let fresh: Vec<String> = app
        .items
        .iter()
        .filter(|i| i.predicted != Predicted::Invalid && !app.rung.contains(&i.key))
        .map(|i| i.key.clone())
        .collect();
    if fresh.is_empty() || quiet {
        app.rung.extend(fresh);
        return Vec::new();
    }
    app.rung.extend(fresh);
    let mut fx = Vec::new();
    let spaced = app.last_bell.is_none_or(|t| (app.now - t).num_seconds() >= BELL_GAP_SECS);
    if app.bell && spaced {
        app.last_bell = Some(app.now);
        fx.push(Effect::Bell);
    }
    if app.notify_gap.is_some() {
        app.notify_due = true;
    }
    fx.extend(due_notification(app));
    fx
}

/// The notification that is due now, if any: items arrived since the last one, some are
/// still waiting, and the config's `notify_min_interval_s` has passed since the last one
/// (arrivals inside the interval are told together when it ends; call on every tick).
pub fn due_notification(app: &mut App) -> Option<Effect> {
    let gap = app.notify_gap?;
    if !app.notify_due || app.last_notify.is_some_and(|t| app.now - t < gap) {
        return None;
    }
    app.notify_due = false;
    let now_waiting = waiting(app)?;
    app.last_notify = Some(app.now);
    Some(Effect::Notify(now_waiting))
}

/// Runs the notify command `argv` with `w`'s line as its last argument and
/// `WRITEGATE_WAITING_COUNT`, `WRITEGATE_WAITING_GOALS` (comma-separated) and
/// `WRITEGATE_OLDEST_AGE_SECONDS` in its environment; no shell, stdin and stdout closed.
/// Waits at most [`NOTIFY_TIMEOUT`], then kills it. Call off the UI thread.
///
/// # Errors
/// A message: the program could not start, exited non-zero (with its stderr's first line),
/// or timed out.
pub fn run_notify(argv: &[String], w: &Waiting) -> Result<(), String> {
    let (program, rest) = argv.split_first().ok_or("notify_command is empty")?;
    let mut child = Command::new(program)
        .args(rest)
        .arg(w.line())
        .env("WRITEGATE_WAITING_COUNT", w.count.to_string())
        .env("WRITEGATE_WAITING_GOALS", w.goals.join(","))
        .env("WRITEGATE_OLDEST_AGE_SECONDS", w.oldest_age_secs.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("notify_command {program:?} could not start: {e}"))?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => {
                let out = child.wait_with_output().map(|o| o.stderr).unwrap_or_default();
                let first = String::from_utf8_lossy(&out).lines().next().unwrap_or_default().to_owned();
                return Err(format!(
                    "notify_command {program:?} exited with {status}: {}",
                    crate::textsafe::sanitize(&first, false)
                ));
            }
            Ok(None) if started.elapsed() < NOTIFY_TIMEOUT => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "notify_command {program:?} ran over {} s and was killed",
                    NOTIFY_TIMEOUT.as_secs()
                ));
            }
            Err(e) => return Err(format!("notify_command {program:?}: {e}")),
        }
    }
}
