//! Drawing: only reads `&App`. Layout: title, optional banner, goals and queue on the left
//! (goals hidden when narrow), detail tabs on the right (below when narrow), footer; dialogs
//! and help on top. Below 60×15 a notice replaces the layout.

mod conflict;
mod detail;
mod dialog;
mod diffview;
mod goals;
mod queue;

use super::app::{App, FlashKind, Mode};
use super::keymap::{self, Scope};
use super::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Smallest supported terminal.
pub const MIN_SIZE: (u16, u16) = (60, 15);

/// Text for the screen: secrets masked, hidden characters shown ([`crate::scan::shown`]).
#[must_use]
pub fn safe(text: &str) -> String {
    crate::scan::shown(text, false)
}

/// Draws the whole UI.
pub fn draw(f: &mut Frame, app: &App) {
    let area = f.area();
    let theme = Theme::new(app.color);
    if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
        let msg = format!(
            "writegate needs at least {}×{} (now {}×{}); q quits",
            MIN_SIZE.0, MIN_SIZE.1, area.width, area.height
        );
        f.render_widget(Paragraph::new(msg).style(theme.warn()).wrap(ratatui::widgets::Wrap { trim: true }), area);
        return;
    }
    let banner_h = u16::from(app.banner.is_some());
    // A long status message gets a second line instead of being cut.
    let flash_len = app.flash.as_ref().map_or(0, |(t, _)| unicode_width::UnicodeWidthStr::width(safe(t).as_str()) + 1);
    let note_h: u16 = if flash_len > usize::from(area.width) { 2 } else { 1 };
    let [title, banner, body, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(banner_h),
        Constraint::Min(5),
        Constraint::Length(note_h + 1),
    ])
    .areas(area);
    draw_title(f, app, title, theme);
    if let Some(b) = &app.banner {
        f.render_widget(
            Paragraph::new(format!(" ⚠ {}", safe(b)))
                .style(theme.warn().add_modifier(ratatui::style::Modifier::REVERSED)),
            banner,
        );
    }
    if body.width >= 100 {
        // Wide terminals give the queue half, so what each item does fits on its row.
        let left_pct = if body.width >= 140 { 50 } else { 42 };
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(left_pct), Constraint::Percentage(100 - left_pct)]).areas(body);
        let goals_h = (app.goals.len() as u16 * 2 + 2).clamp(4, left.height / 3);
        let [g, q] = Layout::vertical([Constraint::Length(goals_h), Constraint::Min(3)]).areas(left);
        goals::draw(f, app, g, theme);
        queue::draw(f, app, q, theme);
        detail::draw(f, app, right, theme);
    } else {
        let [q, d] = Layout::vertical([Constraint::Percentage(40), Constraint::Percentage(60)]).areas(body);
        queue::draw(f, app, q, theme);
        detail::draw(f, app, d, theme);
    }
    draw_footer(f, app, footer, theme);
    match &app.mode {
        Mode::Help => dialog::help(f, app, area, theme),
        Mode::Batch(b) => dialog::batch(f, b, area, theme),
        Mode::BatchReport(rows) => dialog::batch_report(f, rows, area, theme),
        Mode::ConfirmApply { .. }
        | Mode::ConfirmSkip(_)
        | Mode::ConfirmBlocker(_)
        | Mode::TypedConfirm { .. }
        | Mode::Reject { .. } => {
            dialog::draw(f, app, area, theme);
        }
        Mode::Normal | Mode::Filter => {}
    }
}

fn draw_title(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
    let pending = app.items.len();
    let conflicts = app.items.iter().filter(|i| crate::engine::is_conflict_name(i.predicted.name())).count();
    let mut spans = vec![
        Span::styled(" writegate ", theme.title()),
        Span::raw(format!("{} goals · {pending} pending · {conflicts} conflicts · ", app.goals.len())),
        Span::styled(safe(&app.watch_note), theme.dim()),
    ];
    if app.read_only {
        spans.push(Span::styled(" · READ-ONLY", theme.warn()));
    }
    if app.loading {
        spans.push(Span::styled(" · loading…", theme.warn()));
    }
    if let Some(b) = &app.busy {
        spans.push(Span::styled(format!(" · deciding {}…", safe(b)), theme.warn()));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn draw_footer(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
    let [note, keys] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(area);
    let line = if app.mode == Mode::Filter {
        Line::from(vec![
            Span::styled(" filter: ", theme.title()),
            Span::raw(safe(&app.filter)),
            Span::styled("▏ Enter keeps · Esc clears", theme.dim()),
        ])
    } else if let Some((text, kind)) = &app.flash {
        let style = match kind {
            FlashKind::Info => theme.dim(),
            FlashKind::Success => theme.ok(),
            FlashKind::Conflict => theme.warn(),
            FlashKind::Error => theme.error(),
        };
        Line::from(Span::styled(format!(" {}", safe(text)), style))
    } else {
        Line::default()
    };
    f.render_widget(Paragraph::new(line).wrap(ratatui::widgets::Wrap { trim: false }), note);
    let mut spans = Vec::new();
    // The resolution the selected item offers comes first, so it shows on narrow screens too.
    if let Some(item) = app.current().filter(|_| !app.read_only && !item_busy(app)) {
        let offer = if crate::tui::input::expired_lease(item).is_some() {
            Some((keymap::Action::ReleaseLease, "release"))
        } else if item.is_read_only_writeback() {
            Some((keymap::Action::RecordBlocker, "blocker"))
        } else {
            None
        };
        if let Some((action, what)) = offer
            && let Some(k) = keymap::first_key(&app.keys, action)
        {
            spans.push(Span::styled(format!(" {k}"), theme.warn()));
            spans.push(Span::styled(format!(" {what} "), theme.warn()));
        }
    }
    // `help` and `quit` always show: on a narrow footer the other hints give way, moving
    // and browsing ones before the decisions.
    let (last, mut hints): (Vec<_>, Vec<_>) = keymap::footer(&app.keys, Scope::Normal, app.read_only)
        .into_iter()
        .partition(|(_, d)| matches!(*d, "help" | "quit"));
    let width = |v: &[(String, &str)]| v.iter().map(|(k, d)| k.chars().count() + d.chars().count() + 3).sum::<usize>();
    let room = usize::from(keys.width).saturating_sub(spans.iter().map(|s| s.content.chars().count()).sum::<usize>());
    for gives_way in ["move", "detail tabs", "diff", "filter", "reject", "skip", "apply"] {
        if width(&hints) + width(&last) <= room {
            break;
        }
        hints.retain(|(_, d)| *d != gives_way);
    }
    for (k, d) in hints.into_iter().chain(last) {
        spans.push(Span::styled(format!(" {k}"), theme.title()));
        spans.push(Span::raw(format!(" {d} ")));
    }
    if !app.filter.is_empty() && app.mode != Mode::Filter {
        spans.push(Span::styled(format!(" [filter: {}]", safe(&app.filter)), theme.warn()));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), keys);
}

fn item_busy(app: &App) -> bool {
    app.busy.is_some() || app.current().is_some_and(|i| i.checking)
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod render_tests;
