//! Batch decisions (issue 14 item 2): `space` marks an item, `*` marks every ready item of
//! the current filter, then `A` / `S` / `X` apply, skip or reject the marked ones. The dialog
//! lists exactly the items it will decide, captured when it opens, with their summaries and
//! line counts; the typed count confirms. Each item then goes through the engine on its own —
//! its checks re-run under the lock against the state the previous one left — and the batch
//! goes on past a conflict; every outcome is reported at the end.

use super::app::{App, Effect, FlashKind, Mode, outcome_kind};
use super::model::{QueueItem, ScanMark};
use crate::engine::{Approval, Decision, Outcome, Predicted};
use crate::wire::Status;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a batch does to each of its items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchAction {
    /// Apply (never with warn findings, an override, a rejection before, or a read-only
    /// writeback: those are left marked with the reason).
    Apply,
    /// Skip.
    Skip,
    /// Reject, all with one reason.
    Reject,
}

impl BatchAction {
    /// `apply` / `skip` / `reject`.
    #[must_use]
    pub fn verb(self) -> &'static str {
        match self {
            Self::Apply => "apply",
            Self::Skip => "skip",
            Self::Reject => "reject",
        }
    }
}

/// One row of a batch dialog or report: item key, summary or outcome, and how it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchRow {
    /// `goal/item`.
    pub key: String,
    /// The summary with its line counts (dialog) or the outcome (report).
    pub text: String,
    /// Colour.
    pub kind: FlashKind,
}

/// An open batch dialog: exactly the items it will decide, in queue order, captured when it
/// opened (later arrivals and marks do not join it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// What it does.
    pub action: BatchAction,
    /// The items it decides, as shown, with their dialog rows.
    pub items: Vec<(BatchItem, BatchRow)>,
    /// Marked items it leaves out, with the reason.
    pub excluded: Vec<BatchRow>,
    /// The typed count (or, for a reject before `reason` is set, the reason).
    pub typed: String,
    /// The reject reason, once entered.
    pub reason: Option<String>,
}

/// One item of a batch as the dialog showed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchItem {
    /// `goal/item`.
    pub key: String,
    /// The item file's digest as shown (a changed file is refused, not decided).
    pub digest: String,
    /// The state revision the item was shown against (`sha256:` of the Markdown); `None` for
    /// a LoopX 2.x command, whose expected revision LoopX itself checks when it commits.
    pub shown_revision: Option<String>,
}

/// Why `item` is left out of a batch `action`, or `None` when the batch may decide it. A
/// batch never applies what needs a typed confirmation or a choice: warn findings, an
/// idempotency override, an earlier rejection, anything not `ready`.
#[must_use]
pub fn exclusion(item: &QueueItem, action: BatchAction) -> Option<String> {
    if item.checking {
        return Some("still checking".into());
    }
    match action {
        BatchAction::Apply => {
            if item.predicted != Predicted::Ready {
                return Some(format!("not ready ({})", super::app::status_label(item.predicted.name())));
            }
            if item.scan == ScanMark::Block {
                return Some("block findings".into());
            }
            if item.scan == ScanMark::Warn {
                return Some("warn findings need the typed confirmation: apply it alone".into());
            }
            if item.detail.rejected_before.is_some() {
                return Some("rejected before: apply it alone, with the typed confirmation".into());
            }
            None
        }
        BatchAction::Skip if item.is_read_only_writeback() => {
            Some("a read-only writeback is rejected or gets a blocker, not skipped".into())
        }
        BatchAction::Skip | BatchAction::Reject => None,
    }
}

/// `space`: marks or unmarks the selected item.
pub(super) fn toggle_mark(app: &mut App) -> Vec<Effect> {
    let Some(key) = app.current().map(|c| c.key.clone()) else { return Vec::new() };
    if !app.marked.remove(&key) {
        app.marked.insert(key);
    }
    app.flash = Some((marked_note(app), FlashKind::Info));
    Vec::new()
}

/// `goal/item` with the item id cut to its first 8 characters.
fn short_key(key: &str) -> String {
    let (goal, id) = key.split_once('/').unwrap_or(("", key));
    format!("{goal}/{}", id.chars().take(8).collect::<String>())
}

/// `*`: marks every item of the current filter a batch apply would take; when all of them
/// are marked already, clears those marks (marks outside the filter stay).
pub(super) fn mark_all_ready(app: &mut App) -> Vec<Effect> {
    let ready: Vec<String> = app
        .visible
        .iter()
        .map(|&i| &app.items[i])
        .filter(|it| exclusion(it, BatchAction::Apply).is_none())
        .map(|it| it.key.clone())
        .collect();
    if !ready.is_empty() && ready.iter().all(|k| app.marked.contains(k)) {
        for k in &ready {
            app.marked.remove(k);
        }
        app.flash = Some((format!("{} mark(s) cleared · {}", ready.len(), marked_note(app)), FlashKind::Info));
        return Vec::new();
    }
    app.marked.extend(ready);
    app.flash = Some((marked_note(app), FlashKind::Info));
    Vec::new()
}

fn marked_note(app: &App) -> String {
    let keys = |k: super::keymap::Action| super::keymap::first_key(&app.keys, k).unwrap_or_default();
    format!(
        "{} marked · {} applies, {} skips, {} rejects the marked items",
        app.marked.len(),
        keys(super::keymap::Action::BatchApply),
        keys(super::keymap::Action::BatchSkip),
        keys(super::keymap::Action::BatchReject)
    )
}

/// `A` / `S` / `X`: opens the batch dialog over the marked items, in queue order.
pub(super) fn start(app: &mut App, action: BatchAction) -> Vec<Effect> {
    app.marked.retain(|k| app.items.iter().any(|i| &i.key == k));
    if app.marked.is_empty() {
        app.flash = Some((
            "nothing marked: space marks the selected item, * every ready item of the filter".into(),
            FlashKind::Conflict,
        ));
        return Vec::new();
    }
    let (mut items, mut excluded) = (Vec::new(), Vec::new());
    for it in app.items.iter().filter(|i| app.marked.contains(&i.key)) {
        if let Some(why) = exclusion(it, action) {
            excluded.push(BatchRow { key: it.key.clone(), text: why, kind: FlashKind::Conflict });
        } else {
            let text = match it.lines {
                (0, 0) => it.summary.clone(),
                (plus, minus) => format!("{}  (+{plus} −{minus})", it.summary),
            };
            let row = BatchRow { key: it.key.clone(), text, kind: FlashKind::Info };
            let shown_revision = it
                .detail
                .current
                .as_deref()
                .filter(|_| it.kind != "loopx_command")
                .map(|t| crate::loopx::hash::revision_of_text(t));
            let item = BatchItem { key: it.key.clone(), digest: it.payload_digest.clone(), shown_revision };
            items.push((item, row));
        }
    }
    if items.is_empty() {
        let why: Vec<String> = excluded.iter().take(3).map(|r| format!("{}: {}", short_key(&r.key), r.text)).collect();
        let more = excluded.len().saturating_sub(3);
        app.flash = Some((
            format!(
                "none of the {} marked item(s) can be decided in a batch {}: {}{}",
                excluded.len(),
                action.verb(),
                why.join("; "),
                if more > 0 { format!("; and {more} more") } else { String::new() }
            ),
            FlashKind::Conflict,
        ));
        return Vec::new();
    }
    app.mode = Mode::Batch(Batch { action, items, excluded, typed: String::new(), reason: None });
    Vec::new()
}

/// Keys in the batch dialog: for a reject, the reason first (Enter takes it), then the
/// count; Enter with the right count decides, Esc cancels.
pub(super) fn on_key(app: &mut App, mut b: Batch, key: KeyEvent) -> Vec<Effect> {
    match key.code {
        KeyCode::Esc => {
            app.mode = Mode::Normal;
            app.flash = Some(("batch cancelled; nothing was decided".into(), FlashKind::Info));
            return Vec::new();
        }
        KeyCode::Backspace => {
            b.typed.pop();
        }
        KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => b.typed.clear(),
        KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => b.typed.push(c),
        KeyCode::Enter if b.action == BatchAction::Reject && b.reason.is_none() => {
            let reason = super::app::quick_reason(&b.typed);
            if reason.is_empty() {
                app.flash = Some(("a reject needs a reason: type one, then Enter".into(), FlashKind::Conflict));
            } else {
                b.reason = Some(reason);
                b.typed.clear();
            }
        }
        KeyCode::Enter => return confirm(app, b),
        _ => {}
    }
    app.mode = Mode::Batch(b);
    Vec::new()
}

fn confirm(app: &mut App, b: Batch) -> Vec<Effect> {
    let want = b.items.len().to_string();
    if b.typed.trim() != want {
        app.flash = Some((format!("type the number of items, {want}, then Enter"), FlashKind::Conflict));
        app.mode = Mode::Batch(b);
        return Vec::new();
    }
    if let Some(none) = super::input::unarmed(app) {
        app.mode = Mode::Batch(b);
        return none;
    }
    let decision = match b.action {
        // Each item is re-checked, and recomputed where the rule allows, on the state the one
        // before it left; `run` pins each to that state (see there).
        BatchAction::Apply => Decision::Apply(Approval::default()),
        BatchAction::Skip => Decision::Skip,
        BatchAction::Reject => Decision::Reject { reason: b.reason.clone().unwrap_or_default() },
    };
    app.mode = Mode::Normal;
    app.busy = Some(format!("batch of {want}"));
    app.flash = Some((format!("batch {}: deciding {want} item(s)…", b.action.verb()), FlashKind::Info));
    let items = b.items.into_iter().map(|(item, _)| item).collect();
    vec![Effect::DecideBatch { action: b.action, items, decision }]
}

/// Runs a batch: `decision` on each item through the engine, one after another in the order
/// given, each with the digest it was shown with and its own checks under the lock; the
/// batch goes on past a conflict or an error. An apply is pinned to the state the item may
/// be recomputed on: the revision the batch's last apply in its goal wrote, else the one
/// the dialog showed — a write by anyone else meanwhile makes a recomputed item refuse
/// (nothing written) instead of applying a change nobody reviewed. Returns every outcome in
/// order.
#[must_use]
pub fn run(
    engine: &crate::engine::Engine,
    items: Vec<BatchItem>,
    decision: &Decision,
) -> Vec<(String, Result<Outcome, String>)> {
    let mut written: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    tracing::info!(items = items.len(), "batch started");
    items
        .into_iter()
        .map(|item| {
            let goal = item.key.split('/').next().unwrap_or("").to_owned();
            let decision = match decision {
                Decision::Apply(a) => Decision::Apply(Approval {
                    on_revision: item.shown_revision.as_ref().map(|shown| written.get(&goal).unwrap_or(shown).clone()),
                    ..a.clone()
                }),
                other => other.clone(),
            };
            let r = engine.decide(&item.key, &decision, Some(&item.digest)).map_err(|e| crate::error_chain(&e));
            tracing::info!(item = item.key, ?r, "batch decision");
            if let (Some(_), Ok(out)) = (&item.shown_revision, &r)
                && let Some(rev) = out.record.as_ref().and_then(|r| r.applied_revision.clone())
                && out.status == Status::Applied
            {
                written.insert(goal, rev);
            }
            (item.key, r)
        })
        .collect()
}

/// What the status line adds to a batch's summary while its report is open; dropped when
/// the report closes.
pub(super) const REPORT_HINT: &str = " (see the report; any key closes it)";

/// The batch finished: decided items leave the queue and their marks, the rest stay marked;
/// the status line counts the outcomes and the report lists each.
pub(super) fn on_done(
    app: &mut App,
    action: BatchAction,
    outcomes: Vec<(String, Result<Outcome, String>)>,
) -> Vec<Effect> {
    app.busy = None;
    let mut counts: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    let mut rows = Vec::new();
    let mut goals = std::collections::BTreeSet::new();
    for (key, result) in outcomes {
        goals.insert(key.split('/').next().unwrap_or("").to_owned());
        let (word, text, kind) = match &result {
            Ok(out) => {
                if out.item_moved {
                    app.just_decided.insert(key.clone());
                    app.marked.remove(&key);
                }
                if let Some(rev) = out.record.as_ref().and_then(|r| r.applied_revision.clone()) {
                    app.own_revisions.insert(key.split('/').next().unwrap_or("").to_owned(), rev);
                }
                let word = out.status.as_str().to_owned();
                let rebased = out.record.as_ref().is_some_and(|r| r.reason_code.as_deref() == Some("rebased"));
                let text = match out.status {
                    Status::Applied if rebased => "applied, recomputed on the state the one before left".to_owned(),
                    Status::Applied | Status::Skipped | Status::Rejected => word.clone(),
                    _ => format!("{word} — {}", crate::scan::shown(&out.message, false)),
                };
                (word, text, outcome_kind(out.status))
            }
            Err(e) => {
                ("not decided".to_owned(), format!("not decided: {}", crate::scan::shown(e, false)), FlashKind::Error)
            }
        };
        *counts.entry(word).or_default() += 1;
        rows.push(BatchRow { key, text, kind });
    }
    let summary: Vec<String> = counts.iter().map(|(w, n)| format!("{n} {w}")).collect();
    let worst =
        if rows.iter().all(|r| r.kind == FlashKind::Success) { FlashKind::Success } else { FlashKind::Conflict };
    app.flash = Some((format!("batch {}: {}{REPORT_HINT}", action.verb(), summary.join(" · ")), worst));
    app.mode = Mode::BatchReport(rows);
    app.own_write = goals.iter().next().cloned();
    app.visible.retain(|&i| !app.just_decided.contains(&app.items[i].key));
    let mut fx = app.ensure_selection();
    fx.push(Effect::Reload(Some(goals.into_iter().collect())));
    if app.quitting {
        fx.push(Effect::Quit);
    }
    fx
}
