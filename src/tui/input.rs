//! Keyboard and paste handling for `update`: the key table resolves keys to actions in
//! normal mode; dialogs (confirm, typed confirmation, reject reason) and the filter read
//! keys as text. Pasted text is only ever text.

use super::app::{
    App, BatchAction, DiffMode, Effect, FlashKind, Mode, NoteField, TABS, Typed, apply_unavailable, quick_reason,
};
use super::keymap::{self, Action, Scope};
use crate::engine::{Approval, Decision, Predicted};
use crate::wire::Status;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

pub(super) fn on_paste(app: &mut App, text: &str) -> Vec<Effect> {
    let clean = crate::textsafe::strip_input(text, false);
    match &mut app.mode {
        Mode::Filter => {
            app.filter.push_str(&clean);
            refilter_and_select(app)
        }
        Mode::ConfirmApply { note, .. } | Mode::TypedConfirm { note, .. } if note.focused => {
            note.text.push_str(&clean);
            Vec::new()
        }
        Mode::Reject { typed, .. } | Mode::TypedConfirm { typed, .. } => {
            typed.push_str(&clean);
            Vec::new()
        }
        Mode::Batch(b) => {
            b.typed.push_str(&clean);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

fn refilter_and_select(app: &mut App) -> Vec<Effect> {
    app.refilter();
    if app.selected_pos().is_none() {
        app.selected = None;
    }
    app.ensure_selection()
}

/// True for the dialogs whose key decides.
fn is_dialog(mode: &Mode) -> bool {
    matches!(
        mode,
        Mode::ConfirmApply { .. }
            | Mode::ConfirmSkip(_)
            | Mode::ConfirmBlocker(_)
            | Mode::TypedConfirm { .. }
            | Mode::Reject { .. }
            | Mode::Batch(_)
    )
}

/// `Err(hint)` when a confirming key must not count yet (issue 12 case 5): it came less than
/// the arming delay after the dialog opened or after the key before it, so it is part of
/// typing or a paste (the words "okay" or "say yes", an unbracketed "ay"), not a decision
/// made on what the dialog shows. Untimed keys (tests of other behaviour) are always armed.
fn armed(app: &App) -> Result<(), String> {
    let Some(at) = app.key_at else { return Ok(()) };
    let since = |t: Option<std::time::Instant>| t.map(|t| at.saturating_duration_since(t));
    let too_soon = [since(app.dialog_at), since(app.prev_key_at)].into_iter().flatten().any(|d| d < app.arming);
    if too_soon {
        return Err(format!(
            "ignored: a key that comes with typing or a paste never decides; read the dialog, pause {} ms, then press the key again",
            app.arming.as_millis()
        ));
    }
    Ok(())
}

pub(super) fn on_key(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    let was_dialog = is_dialog(&app.mode);
    let effects = on_key_inner(app, key);
    if !is_dialog(&app.mode) {
        app.dialog_at = None;
    } else if !was_dialog {
        app.dialog_at = app.key_at;
    }
    effects
}

/// Refuses a confirming key that is not armed, with the hint on the status line.
pub(super) fn unarmed(app: &mut App) -> Option<Vec<Effect>> {
    armed(app).err().map(|hint| {
        app.flash = Some((hint, FlashKind::Conflict));
        Vec::new()
    })
}

fn on_key_inner(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    let ctrl_c = key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl_c {
        return quit(app);
    }
    match app.mode.clone() {
        Mode::Normal => keymap::resolve(&app.keys, Scope::Normal, &key).map_or_else(Vec::new, |a| on_action(app, a)),
        Mode::Help => on_help(app, key),
        Mode::Filter => on_filter(app, key),
        Mode::ConfirmApply { key: k, note } => on_confirm_apply(app, k, note, key),
        Mode::Batch(b) => super::batch::on_key(app, b, key),
        Mode::BatchReport(_) => {
            app.mode = Mode::Normal;
            // The summary stays; the hint about the report it closed goes with it.
            if let Some((text, _)) = app.flash.as_mut()
                && let Some(at) = text.find(super::batch::REPORT_HINT)
            {
                text.truncate(at);
            }
            Vec::new()
        }
        Mode::ConfirmSkip(k) | Mode::ConfirmBlocker(k) => match keymap::resolve(&app.keys, Scope::Confirm, &key) {
            Some(Action::Confirm) => {
                if let Some(none) = unarmed(app) {
                    return none;
                }
                let decision =
                    if matches!(app.mode, Mode::ConfirmSkip(_)) { Decision::Skip } else { Decision::RecordBlocker };
                app.mode = Mode::Normal;
                decide(app, &k, decision)
            }
            Some(Action::Cancel) => cancel(app),
            _ => Vec::new(),
        },
        Mode::TypedConfirm { key: k, typed, purpose, note } => on_typed_confirm(app, k, typed, purpose, note, key),
        Mode::Reject { key: k, typed } => on_reject(app, k, typed, key),
    }
}

/// Keys of the help overlay: `j`/`k` scroll, any other key closes it.
fn on_help(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    match key.code {
        KeyCode::Char('j' | 'J') | KeyCode::Down | KeyCode::PageDown => {
            app.help_scroll = app.help_scroll.saturating_add(3);
        }
        KeyCode::Char('k' | 'K') | KeyCode::Up | KeyCode::PageUp => {
            app.help_scroll = app.help_scroll.saturating_sub(3);
        }
        _ => {
            app.mode = Mode::Normal;
            app.help_scroll = 0;
        }
    }
    Vec::new()
}

/// Keys while typing the queue filter.
fn on_filter(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    match key.code {
        KeyCode::Enter => app.mode = Mode::Normal,
        KeyCode::Esc => {
            app.filter.clear();
            app.mode = Mode::Normal;
        }
        KeyCode::Backspace => {
            app.filter.pop();
        }
        KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => app.filter.clear(),
        KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
            app.filter.push(c);
        }
        _ => {}
    }
    refilter_and_select(app)
}

/// Keys of the reject dialog: a reason (or a lone 1–4 for a quick one), then Enter.
fn on_reject(app: &mut App, k: String, mut typed: String, key: KeyEvent) -> Vec<Effect> {
    match key.code {
        KeyCode::Esc => cancel(app),
        KeyCode::Backspace => {
            typed.pop();
            app.mode = Mode::Reject { key: k, typed };
            Vec::new()
        }
        KeyCode::Enter => {
            let reason = quick_reason(&typed);
            if reason.is_empty() {
                app.flash = Some(("a reject needs a reason: type one, or 1–4 and Enter".into(), FlashKind::Conflict));
                return Vec::new();
            }
            if let Some(none) = unarmed(app) {
                return none;
            }
            app.mode = Mode::Normal;
            decide(app, &k, Decision::Reject { reason })
        }
        KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => {
            app.mode = Mode::Reject { key: k, typed: String::new() };
            Vec::new()
        }
        KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
            typed.push(c);
            app.mode = Mode::Reject { key: k, typed };
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Keys of a typed confirmation: the first 6 characters of the item id, then Enter; for an
/// apply, Tab moves typing to the note and back.
fn on_typed_confirm(
    app: &mut App,
    k: String,
    mut typed: String,
    purpose: Typed,
    mut note: NoteField,
    key: KeyEvent,
) -> Vec<Effect> {
    if note.focused || (key.code == KeyCode::Tab && !matches!(purpose, Typed::ReleaseLease { .. })) {
        // Typing goes to the note: Tab or Esc leave it (kept), Enter confirms as below.
        if key.code == KeyCode::Esc {
            note.focused = false;
        } else if key.code != KeyCode::Enter {
            edit_note(&mut note, key);
        }
        if key.code != KeyCode::Enter {
            app.mode = Mode::TypedConfirm { key: k, typed, purpose, note };
            return Vec::new();
        }
        note.focused = false;
    }
    match key.code {
        KeyCode::Esc => cancel(app),
        KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => {
            app.mode = Mode::TypedConfirm { key: k, typed: String::new(), purpose, note };
            Vec::new()
        }
        KeyCode::Backspace => {
            typed.pop();
            app.mode = Mode::TypedConfirm { key: k, typed, purpose, note };
            Vec::new()
        }
        KeyCode::Enter => {
            let id = k.rsplit('/').next().unwrap_or("");
            let want: String = id.chars().take(6).collect();
            // ASCII case aside: Caps Lock on is no reason to refuse a deliberate confirmation.
            if typed.eq_ignore_ascii_case(&want) {
                if let Some(none) = unarmed(app) {
                    return none;
                }
                app.mode = Mode::Normal;
                let decision = match purpose {
                    Typed::Warnings => Decision::Apply(approval(app, &k, false, &note)),
                    Typed::OverrideIdempotency => Decision::Apply(approval(app, &k, true, &note)),
                    Typed::ReleaseLease { todo_id, seen } => {
                        Decision::ReleaseExpiredLease { todo_id, seen, reason: String::new() }
                    }
                };
                decide(app, &k, decision)
            } else {
                app.flash = Some((
                    if typed.is_empty() {
                        format!("type the first 6 characters of the item id ({want}) and press Enter")
                    } else {
                        format!(
                            "{typed:?} does not match: type the first 6 characters of the item id ({want}) and press Enter"
                        )
                    },
                    FlashKind::Conflict,
                ));
                Vec::new()
            }
        }
        KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
            typed.push(c);
            app.mode = Mode::TypedConfirm { key: k, typed, purpose, note };
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Keys of the plain apply dialog: `y` applies, `n` / Esc cancel, Tab moves typing to the
/// note (where Enter applies and Tab moves back).
fn on_confirm_apply(app: &mut App, k: String, mut note: NoteField, key: KeyEvent) -> Vec<Effect> {
    let action = if note.focused {
        match key.code {
            KeyCode::Enter => Some(Action::Confirm),
            KeyCode::Esc => {
                // Esc leaves the note (kept); a second Esc cancels the dialog.
                note.focused = false;
                app.mode = Mode::ConfirmApply { key: k, note };
                return Vec::new();
            }
            _ => {
                edit_note(&mut note, key);
                app.mode = Mode::ConfirmApply { key: k, note };
                return Vec::new();
            }
        }
    } else if key.code == KeyCode::Tab {
        note.focused = true;
        app.mode = Mode::ConfirmApply { key: k, note };
        return Vec::new();
    } else {
        keymap::resolve(&app.keys, Scope::Confirm, &key)
    };
    match action {
        Some(Action::Confirm) => {
            if let Some(none) = unarmed(app) {
                return none;
            }
            app.mode = Mode::Normal;
            let decision = Decision::Apply(Approval { confirm_warnings: false, ..approval(app, &k, false, &note) });
            decide(app, &k, decision)
        }
        Some(Action::Cancel) => cancel(app),
        _ => Vec::new(),
    }
}

/// Tab leaves the note; Backspace, Ctrl-U and characters edit it.
fn edit_note(note: &mut NoteField, key: KeyEvent) {
    match key.code {
        KeyCode::Tab => note.focused = !note.focused,
        KeyCode::Backspace => {
            note.text.pop();
        }
        KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => note.text.clear(),
        KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) && note.text.chars().count() < 200 => {
            note.text.push(c);
        }
        _ => {}
    }
}

/// The approval of an apply from a dialog: typed confirmation given, the note, and the state
/// the operator reviewed the item on (an apply computed on any other is refused, not written).
fn approval(app: &App, key: &str, override_idempotency: bool, note: &NoteField) -> Approval {
    let item = app.current().filter(|i| i.key == key);
    Approval {
        confirm_warnings: true,
        override_idempotency,
        note: note.value(),
        on_revision: item.and_then(|i| match &i.detail.recomputed {
            Some(r) => Some(r.onto.clone()),
            None if i.kind == "write_intent" => {
                i.detail.current.as_deref().map(|t| crate::loopx::hash::revision_of_text(t))
            }
            None => None,
        }),
    }
}

fn cancel(app: &mut App) -> Vec<Effect> {
    app.mode = Mode::Normal;
    app.flash = Some(("cancelled; nothing was written".into(), FlashKind::Info));
    Vec::new()
}

fn quit(app: &mut App) -> Vec<Effect> {
    if app.busy.is_some() {
        app.quitting = true;
        app.flash = Some(("quitting after the decision in flight completes…".into(), FlashKind::Info));
        return Vec::new();
    }
    vec![Effect::Quit]
}

fn decide(app: &mut App, key: &str, decision: Decision) -> Vec<Effect> {
    let Some(item) = app.current().filter(|i| i.key == key) else {
        app.flash = Some(("the item is no longer selected; nothing was written".into(), FlashKind::Conflict));
        return Vec::new();
    };
    let digest = item.payload_digest.clone();
    let id = item.item_id.clone();
    app.busy = Some(key.to_owned());
    app.flash = Some((format!("deciding {id}…"), FlashKind::Info));
    vec![Effect::Decide { key: key.to_owned(), digest, decision }]
}

fn on_action(app: &mut App, action: Action) -> Vec<Effect> {
    if app.read_only && action.is_decision() {
        app.flash = Some(("read-only: decisions are disabled (started with --read-only)".into(), FlashKind::Conflict));
        return Vec::new();
    }
    let pos = app.selected_pos().unwrap_or(0);
    let n = app.visible.len();
    match action {
        Action::SelectNext => app.select_index((pos + 1).min(n.saturating_sub(1))),
        Action::SelectPrev => app.select_index(pos.saturating_sub(1)),
        Action::SelectFirst => app.select_index(0),
        Action::SelectLast => app.select_index(n.saturating_sub(1)),
        Action::NextTab | Action::PrevTab => {
            let i = TABS.iter().position(|t| *t == app.tab).unwrap_or(0);
            let j = if action == Action::NextTab { (i + 1) % TABS.len() } else { (i + TABS.len() - 1) % TABS.len() };
            app.tab = TABS[j];
            app.scroll = (0, 0);
            Vec::new()
        }
        Action::ScrollDown | Action::ScrollUp if app.tab == super::app::Tab::History => {
            let last = app.current().map_or(0, |c| c.detail.history.len().saturating_sub(1));
            app.log_cursor = if action == Action::ScrollDown {
                (app.log_cursor + 1).min(last)
            } else {
                app.log_cursor.saturating_sub(1)
            };
            Vec::new()
        }
        Action::ScrollDown => scroll(app, 10, 0),
        Action::ScrollUp => scroll(app, -10, 0),
        Action::ScrollLeft => scroll(app, 0, -8),
        Action::ScrollRight => scroll(app, 0, 8),
        Action::ToggleDiffMode => {
            app.diff_mode = if app.diff_mode == DiffMode::Unified { DiffMode::SideBySide } else { DiffMode::Unified };
            Vec::new()
        }
        Action::StartFilter => {
            app.mode = Mode::Filter;
            Vec::new()
        }
        Action::ToggleGoalScope => {
            app.goal_scope = if app.goal_scope.is_some() { None } else { app.current().map(|c| c.goal_id.clone()) };
            app.refilter();
            app.ensure_selection()
        }
        Action::Apply => start_apply(app),
        Action::ToggleMark => super::batch::toggle_mark(app),
        Action::MarkAllReady => super::batch::mark_all_ready(app),
        Action::BatchApply => super::batch::start(app, BatchAction::Apply),
        Action::BatchSkip => super::batch::start(app, BatchAction::Skip),
        Action::BatchReject => super::batch::start(app, BatchAction::Reject),
        Action::Revert => super::revert::start(app),
        Action::ReleaseLease => start_release_lease(app),
        Action::RecordBlocker => start_blocker(app),
        Action::Skip | Action::Reject => start_skip_or_reject(app, action),
        Action::Reload => {
            app.pinned = None;
            app.banner = None;
            app.view = None;
            app.flash = None;
            app.current().map(|c| vec![Effect::ComputeView { key: c.key.clone() }]).unwrap_or_default()
        }
        Action::ToggleHelp => {
            app.mode = Mode::Help;
            Vec::new()
        }
        Action::Quit => quit(app),
        Action::Confirm | Action::Cancel => Vec::new(),
    }
}

/// `s` / `r`: opens the skip confirmation or the reject dialog for the selected item.
fn start_skip_or_reject(app: &mut App, action: Action) -> Vec<Effect> {
    let Some(item) = app.current() else {
        return Vec::new();
    };
    if action == Action::Skip && item.is_read_only_writeback() {
        // The engine refuses it: do not open a dialog that can only fail.
        app.flash = Some((
            "a read-only writeback cannot be skipped: reject it, or b records a blocker todo".into(),
            FlashKind::Conflict,
        ));
        return Vec::new();
    }
    let key = item.key.clone();
    app.mode = if action == Action::Skip { Mode::ConfirmSkip(key) } else { Mode::Reject { key, typed: String::new() } };
    Vec::new()
}

fn scroll(app: &mut App, dy: i32, dx: i32) -> Vec<Effect> {
    let y = (i32::from(app.scroll.0) + dy).clamp(0, i32::from(u16::MAX));
    let x = (i32::from(app.scroll.1) + dx).clamp(0, 4000);
    app.scroll = (y as u16, x as u16);
    Vec::new()
}

/// The selected item, when a decision may start on it: `None` when nothing is selected, or
/// when the item or its goal changed on disk since it was shown (the flash then says to
/// review it first).
fn item_to_decide(app: &mut App) -> Option<crate::tui::model::QueueItem> {
    let item = app.current()?.clone();
    if app.banner.is_some() {
        app.flash = Some((
            "this item or its goal changed on disk: press u to review the current version first".into(),
            FlashKind::Conflict,
        ));
        return None;
    }
    Some(item)
}

/// The expired hard lease holding `item` up, from its conflict details: `(todo_id, lease)`.
pub(crate) fn expired_lease(item: &crate::tui::model::QueueItem) -> Option<(String, crate::loopx::lease::TaskLease)> {
    crate::engine::conflict::expired_lease(item.detail.conflict.as_ref()?)
}

fn start_release_lease(app: &mut App) -> Vec<Effect> {
    let Some(item) = item_to_decide(app) else {
        return Vec::new();
    };
    let why = if item.checking {
        "still checking this item".to_owned()
    } else if let Some((todo_id, seen)) = expired_lease(&item) {
        app.mode = Mode::TypedConfirm {
            key: item.key.clone(),
            typed: String::new(),
            purpose: Typed::ReleaseLease { todo_id, seen },
            note: NoteField::default(),
        };
        return Vec::new();
    } else {
        "L is for an item held up by an expired hard lease; a live lease or a soft claim is never released or transferred here".to_owned()
    };
    app.flash = Some((why, FlashKind::Conflict));
    Vec::new()
}

fn start_blocker(app: &mut App) -> Vec<Effect> {
    let Some(item) = item_to_decide(app) else {
        return Vec::new();
    };
    if item.checking {
        app.flash = Some(("still checking this item".into(), FlashKind::Conflict));
    } else if item.is_read_only_writeback() {
        app.mode = Mode::ConfirmBlocker(item.key.clone());
    } else {
        app.flash = Some((
            "b is for a read-only writeback (an entry criterion failed); this item can be decided with a / s / r"
                .into(),
            FlashKind::Conflict,
        ));
    }
    Vec::new()
}

fn start_apply(app: &mut App) -> Vec<Effect> {
    let Some(item) = item_to_decide(app) else {
        return Vec::new();
    };
    if let Some(why) = apply_unavailable(&item) {
        app.flash = Some((why, FlashKind::Conflict));
        return Vec::new();
    }
    let key = item.key.clone();
    let note = NoteField::default();
    app.mode = match item.predicted {
        Predicted::Status(Status::IdempotencyConflict) => {
            Mode::TypedConfirm { key, typed: String::new(), purpose: Typed::OverrideIdempotency, note }
        }
        _ if item.needs_typed_confirmation() => {
            Mode::TypedConfirm { key, typed: String::new(), purpose: Typed::Warnings, note }
        }
        _ => Mode::ConfirmApply { key, note },
    };
    Vec::new()
}
