//! The queue pane: one row per pending item — batch mark (`▪`), status marker and word
//! (`recomputed` for a stale item recomputed on the current state, `lock held` for a ready
//! one whose state LoopX's lock holds now), scan marker (B block,
//! W warn), `R` when an operator rejected the key or effect before, lease marker (L holder),
//! age, what the item does, goal and agent. Only visible rows are built.

use super::safe;
use crate::tui::app::App;
use crate::tui::model::ScanMark;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// `42s`, `7m`, `3h`, `2d`.
#[must_use]
pub fn age(secs: u64) -> String {
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// An item id cut to 16 columns: `propose`'s ids keep their leading 8 hex digits and class
/// (`5e6f7a8b-todo_upd…`), other names their start.
pub(super) fn short_id(id: &str) -> String {
    let clean = safe(id);
    if clean.chars().count() <= 16 { clean } else { format!("{}…", clean.chars().take(15).collect::<String>()) }
}

pub(super) fn draw(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
    let title = match &app.goal_scope {
        Some(g) => format!(" queue · {} of {} · goal {} ", app.visible.len(), app.items.len(), safe(g)),
        None if !app.filter.is_empty() => {
            format!(" queue · {} of {} ", app.visible.len(), app.items.len())
        }
        None => format!(" queue · {} ", app.items.len()),
    };
    let block = Block::default().borders(Borders::ALL).title(Span::styled(title, theme.title()));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let height = usize::from(inner.height);
    let sel = app.selected_pos().unwrap_or(0);
    let start = sel.saturating_sub(height.saturating_sub(1)).min(app.visible.len().saturating_sub(height));
    let mut lines = Vec::with_capacity(height);
    if app.visible.is_empty() {
        lines.push(Line::from(Span::styled(
            if app.loading {
                "loading…"
            } else if app.items.is_empty() {
                "no pending items — waiting for agents"
            } else {
                "no item matches the filter"
            },
            theme.dim(),
        )));
    }
    let wide = inner.width >= 80;
    for &i in app.visible.iter().skip(start).take(height) {
        let it = &app.items[i];
        let (mark, style) = if it.checking { ("…", theme.dim()) } else { theme.status(&it.predicted) };
        let scan = match it.scan {
            ScanMark::Block => "B",
            ScanMark::Warn => "W",
            ScanMark::Clean => " ",
        };
        // `L` right after the scan marker so a narrow queue still shows it; the holder's name
        // follows at the end of the row when it fits.
        let lease_flag = if it.lease.is_some() { "L" } else { " " };
        let rejected = if it.detail.rejected_before.is_some() { "R" } else { " " };
        let lease = it.lease.as_ref().map(|h| format!("L:{} ", safe(h))).unwrap_or_default();
        let status = if it.checking {
            "checking"
        } else if it.predicted == crate::engine::Predicted::Ready
            && it.detail.checks.iter().any(|c| c.name == "lock" && !c.ok)
        {
            // Ready but for a writer holding LoopX's lock now: apply would wait, maybe fail.
            "lock held"
        } else if it.detail.recomputed.is_some() && it.predicted == crate::engine::Predicted::Ready {
            "recomputed"
        } else {
            crate::tui::app::status_label(it.predicted.name())
        };
        let marked = if app.marked.contains(&it.key) { "▪" } else { " " };
        // What the item does takes the room left after the fixed columns.
        let fixed = 2 + 11 + 3 + 6 + if wide { 13 + 17 } else { 0 };
        let room = usize::from(inner.width).saturating_sub(fixed).max(12);
        let summary: String = safe(&it.summary).chars().take(room).collect();
        let mut spans = vec![
            Span::styled(marked, theme.title()),
            Span::styled(format!("{mark} {status:<10} "), style),
            Span::raw(scan),
            Span::styled(rejected, theme.error()),
            Span::styled(lease_flag, theme.warn()),
            Span::raw(format!(" {:>4} ", age(it.age(app.now)))),
            Span::raw(format!("{summary:<room$} ")),
        ];
        if wide {
            // Wide panes tell look-alike rows apart by goal and id (the detail title shows it whole).
            spans.push(Span::styled(format!("{:<12.12} ", safe(&it.goal_id)), theme.dim()));
            spans.push(Span::styled(format!("{:<16} ", short_id(&it.item_id)), theme.dim()));
        }
        spans.extend([Span::styled(lease, theme.warn()), Span::raw(safe(&it.agent))]);
        let mut line = Line::from(spans);
        if app.selected.as_ref() == Some(&it.key) {
            line = line.style(theme.selected());
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);
}
