//! Batch decisions (issue 14 item 2): `space` marks an item, `*` marks every ready item of
//! the current filter, then `A` / `S` / `X` apply, skip or reject the marked ones. The dialog
//! lists exactly the items it will decide, captured when it opens, with their summaries and
//! line counts; the typed count confirms. Each item then goes through the engine on its own —
//! its checks re-run under the lock against the state the previous one left — and the batch
//! goes on past a conflict; every outcome is reported at the end.

use super::app::{App, Batch, BatchAction, BatchRow, Effect, FlashKind, Mode, outcome_kind};
use super::model::{QueueItem, ScanMark};
use crate::engine::{Approval, Decision, Outcome, Predicted};
use crate::wire::Status;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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

/// `*`: marks every item of the current filter a batch apply would take; when all of them
/// are marked already, clears every mark.
pub(super) fn mark_all_ready(app: &mut App) -> Vec<Effect> {
    let ready: Vec<String> = app
        .visible
        .iter()
        .map(|&i| &app.items[i])
        .filter(|it| exclusion(it, BatchAction::Apply).is_none())
        .map(|it| it.key.clone())
        .collect();
    if !ready.is_empty() && ready.iter().all(|k| app.marked.contains(k)) {
        app.marked.clear();
        app.flash = Some(("marks cleared".into(), FlashKind::Info));
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
            items.push((it.key.clone(), it.payload_digest.clone(), row));
        }
    }
    if items.is_empty() {
        app.flash = Some((
            format!(
                "none of the {} marked item(s) can be batch-{}ed: {}",
                excluded.len(),
                action.verb(),
                excluded[0].text
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
            let reason = b.typed.trim().to_owned();
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
        // No pin to a revision: each item is re-checked, and recomputed where the rule
        // allows, on the state the one before it left.
        BatchAction::Apply => Decision::Apply(Approval::default()),
        BatchAction::Skip => Decision::Skip,
        BatchAction::Reject => Decision::Reject { reason: b.reason.clone().unwrap_or_default() },
    };
    app.mode = Mode::Normal;
    app.busy = Some(format!("batch of {want}"));
    app.flash = Some((format!("batch {}: deciding {want} item(s)…", b.action.verb()), FlashKind::Info));
    let items = b.items.into_iter().map(|(key, digest, _)| (key, digest, decision.clone())).collect();
    vec![Effect::DecideBatch { action: b.action, items }]
}

/// Runs a batch: each item decided through the engine one after another, in the order given,
/// each with the digest it was shown with and its own checks under the lock; the batch goes
/// on past a conflict or an error. Returns every outcome in order.
#[must_use]
pub fn run(
    engine: &crate::engine::Engine,
    items: Vec<(String, String, Decision)>,
) -> Vec<(String, Result<Outcome, String>)> {
    items
        .into_iter()
        .map(|(key, digest, decision)| {
            let r = engine.decide(&key, &decision, Some(&digest)).map_err(|e| crate::error_chain(&e));
            tracing::info!(item = key, ?r, "batch decision");
            (key, r)
        })
        .collect()
}

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
    app.flash =
        Some((format!("batch {}: {} (see the report; any key closes it)", action.verb(), summary.join(" · ")), worst));
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
