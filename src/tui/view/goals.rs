//! The goals pane: status, open todos, pending and conflict counts, next action, leases
//! with holder and a live countdown. Scrolls to keep the selected item's goal in view.

use super::safe;
use crate::tui::app::App;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// `1h59m`, `4m05s`, `expired 3m00s ago`.
#[must_use]
pub fn countdown(expires: chrono::DateTime<chrono::Utc>, now: chrono::DateTime<chrono::Utc>) -> String {
    let secs = (expires - now).num_seconds();
    let fmt = |s: i64| {
        if s >= 3600 { format!("{}h{:02}m", s / 3600, (s % 3600) / 60) } else { format!("{}m{:02}s", s / 60, s % 60) }
    };
    if secs > 0 { fmt(secs) } else { format!("expired {} ago", fmt(-secs)) }
}

/// `[2.x]`, then `✗ broken` / `! pending` projection and `! N ghost(s)` for a canonical goal.
fn authority_spans(g: &crate::tui::model::GoalRow, theme: Theme) -> Vec<Span<'static>> {
    if g.authority != crate::loopx2::AuthorityKind::Canonical {
        return Vec::new();
    }
    let mut out = vec![Span::styled(" [2.x]", theme.dim())];
    match g.projection {
        Some(crate::loopx2::Projection::Pending) => out.push(Span::styled(" ! projection pending", theme.warn())),
        Some(crate::loopx2::Projection::Broken) => out.push(Span::styled(" ✗ projection broken", theme.error())),
        _ => {}
    }
    if g.ghosts > 0 {
        out.push(Span::styled(format!(" ! {} ghost todo(s)", g.ghosts), theme.warn()));
    }
    out
}

pub(super) fn draw(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
    let now = app.now;
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(format!(" goals · {} ", app.goals.len()), theme.title()));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let per_goal = 2usize;
    let fit = (usize::from(inner.height) / per_goal).max(1);
    let focus = app.current().and_then(|c| app.goals.iter().position(|g| g.id == c.goal_id)).unwrap_or(0);
    let start = focus.saturating_sub(fit - 1).min(app.goals.len().saturating_sub(fit));
    let mut lines = Vec::new();
    for g in app.goals.iter().skip(start).take(fit) {
        let (pending, conflicts) = app.goal_counts.get(&g.id).copied().unwrap_or_default();
        let mut spans = vec![Span::styled(safe(&g.id), theme.title())];
        // LoopX 2.x goals: monitored here, their todos written by LoopX (issue 11). The tag
        // and what is wrong with the projection come before the counts, so a narrow pane
        // keeps them.
        spans.extend(authority_spans(g, theme));
        spans.push(Span::raw(format!(" {} · {} open · {pending} pending", safe(&g.status), g.open_todos)));
        if conflicts > 0 {
            spans.push(Span::styled(format!(" · !{conflicts} conflict(s)"), theme.warn()));
        }
        if let Some(e) = &g.error {
            spans.push(Span::styled(format!(" · error: {}", safe(e)), theme.error()));
        }
        lines.push(Line::from(spans));
        let mut second = Vec::new();
        let shown = 3;
        for l in g.leases.iter().take(shown) {
            let when = l.expires_at.map_or_else(|| "soft claim".to_owned(), |e| countdown(e, now));
            // Holder and time first: a narrow pane cuts the todo id, not the countdown. With
            // several leases the ids give way so every holder and time fits.
            let id = if g.leases.len() == 1 { format!(" {}", safe(&l.todo_id)) } else { String::new() };
            second.push(Span::raw(format!("  L {} ({when}){id}", safe(&l.holder))));
        }
        if g.leases.len() > shown {
            second.push(Span::raw(format!("  +{}", g.leases.len() - shown)));
        }
        second.push(Span::styled(format!("  → {}", safe(&g.next_action)), theme.dim()));
        lines.push(Line::from(second));
    }
    f.render_widget(Paragraph::new(lines), inner);
}
