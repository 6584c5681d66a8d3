//! The detail pane: tabs Diff, Scan, Packet, Checks, Conflict, History for the item under
//! review.
//! Only the visible window of each tab is built; long lines scroll horizontally.

use super::{diffview, safe};
use crate::tui::app::{App, Tab};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

pub(super) fn draw(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
    let Some(item) = app.current() else {
        let block = Block::default().borders(Borders::ALL).title(" detail ");
        f.render_widget(Paragraph::new("select an item").block(block).style(theme.dim()), area);
        return;
    };
    let title = format!(
        " {} · {} · {} ",
        safe(&item.item_id),
        safe(&item.goal_id),
        safe(if item.write_class.is_empty() { &item.kind } else { &item.write_class })
    );
    let block = Block::default().borders(Borders::ALL).title(Span::styled(title, theme.title()));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let [tabs, body] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(inner);
    let d = &item.detail;
    let failing = d.checks.iter().filter(|c| !c.ok).count();
    let labels = [
        (Tab::Diff, "Diff".to_owned()),
        (Tab::Scan, format!("Scan({})", d.findings.len())),
        (Tab::Packet, "Packet".to_owned()),
        (Tab::Checks, if failing > 0 { format!("Checks!{failing}") } else { "Checks".to_owned() }),
        (
            Tab::Conflict,
            // Details that stand in nobody's way (a recompute, a head that moved with the same
            // change) give no `!`.
            if d.conflict.as_ref().is_some_and(|c| !matches!(c["kind"].as_str(), Some("recomputed" | "moved_since")))
                || d.rejected_before.is_some()
                || app.lock_busy.as_ref().is_some_and(|(k, _)| *k == item.key)
            {
                "Conflict!".to_owned()
            } else {
                "Conflict".to_owned()
            },
        ),
        (Tab::History, format!("Log({})", d.history.len())),
    ];
    let mut spans = Vec::new();
    for (tab, label) in labels {
        if tab == app.tab {
            spans.push(Span::styled(format!("[{label}]"), theme.selected()));
        } else {
            spans.push(Span::raw(format!(" {label} ")));
        }
    }
    f.render_widget(Paragraph::new(Line::from(spans)), tabs);
    let (h, w) = (usize::from(body.height), usize::from(body.width));
    let (y, x) = (usize::from(app.scroll.0), usize::from(app.scroll.1));
    let wrapped = |lines: Vec<(Style, String)>| {
        let lines: Vec<Line> = lines.into_iter().map(|(st, t)| Line::styled(safe(&t), st)).collect();
        Paragraph::new(lines).wrap(Wrap { trim: false }).scroll((app.scroll.0, 0))
    };
    let para = match app.tab {
        Tab::Diff => Paragraph::new(diffview::lines(app, item, h, w, theme)),
        Tab::Scan => wrapped(scan_lines(item, theme)),
        Tab::Packet => Paragraph::new(match app.view.as_ref().filter(|v| v.key == item.key) {
            Some(v) => v
                .packet
                .iter()
                .skip(y)
                .take(h)
                .map(|l| Line::raw(l.chars().skip(x).take(w).collect::<String>()))
                .collect(),
            None => vec![Line::styled("preparing…", theme.dim())],
        }),
        Tab::Checks => {
            let lines = hang_wrap(check_lines(item, theme), w);
            Paragraph::new(lines.into_iter().map(|(st, t)| Line::styled(t, st)).collect::<Vec<_>>())
                .scroll((app.scroll.0, 0))
        }
        Tab::Conflict => {
            let lines = marked_wrap(super::conflict::lines(app, item, theme), w);
            Paragraph::new(lines.into_iter().map(|(st, t)| Line::styled(t, st)).collect::<Vec<_>>())
                .scroll((app.scroll.0, 0))
        }
        Tab::History => {
            // Records (one or two lines each) from the one that keeps the cursor in view.
            let (hint, records) = history_lines(item, app.log_cursor, theme);
            let per_record: Vec<usize> = records.iter().map(Vec::len).collect();
            let mut first = app.log_cursor.min(records.len().saturating_sub(1));
            let mut used = per_record.get(first).copied().unwrap_or(0);
            while first > 0 && used + per_record[first - 1] < h.saturating_sub(1) {
                first -= 1;
                used += per_record[first];
            }
            let lines = std::iter::once(hint).chain(records.into_iter().skip(first).flatten());
            Paragraph::new(lines.map(|(st, t)| Line::styled(t, st)).collect::<Vec<_>>())
        }
    };
    f.render_widget(para, body);
}

/// Lines word-wrapped at `width` columns with a hanging indent: a continuation starts under
/// the text after the line's leading marker and name (`✓ pass  name  `), so a check's name
/// never runs into its wrapped detail. Words longer than the room are cut.
fn hang_wrap(lines: Vec<(Style, String)>, width: usize) -> Vec<(Style, String)> {
    use unicode_width::UnicodeWidthStr as _;
    let width = width.max(20);
    let mut out = Vec::new();
    for (style, text) in lines {
        if text.width() <= width {
            out.push((style, text));
            continue;
        }
        // The hang: after "✓ pass  <name>  " when the line has that shape, else 2 columns.
        let after_run = |from: usize| text[from..].find(|c: char| c != ' ').map(|k| from + k);
        let indent = text
            .find("  ")
            .and_then(&after_run)
            .and_then(|i| text[i..].find("  ").map(|j| i + j))
            .and_then(after_run)
            .map_or(2, |byte| {
                let cols = text[..byte].width();
                if cols > width / 2 { 2 } else { cols }
            });
        let mut line = String::new();
        let mut first = true;
        for word in text.split(' ') {
            let room = width.saturating_sub(if first { 0 } else { indent });
            let extra = usize::from(!line.is_empty());
            if line.width() + extra + word.width() > room && !line.is_empty() {
                let prefix = if first { String::new() } else { " ".repeat(indent) };
                out.push((style, format!("{prefix}{line}")));
                first = false;
                line.clear();
            }
            let room = width.saturating_sub(if first { 0 } else { indent });
            let mut w = word.to_owned();
            while w.width() > room && room > 0 {
                let cut: String = w.chars().take(room).collect();
                let prefix = if first { String::new() } else { " ".repeat(indent) };
                out.push((style, format!("{prefix}{cut}")));
                first = false;
                w = w.chars().skip(room).collect();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&w);
        }
        if !line.is_empty() {
            let prefix = if first { String::new() } else { " ".repeat(indent) };
            out.push((style, format!("{prefix}{line}")));
        }
    }
    out
}

/// Sanitised lines wrapped at `width` columns; each continuation starts with `    ↪ ` so a
/// wrapped diff line is never mistaken for a line of its own.
fn marked_wrap(lines: Vec<(Style, String)>, width: usize) -> Vec<(Style, String)> {
    use unicode_width::UnicodeWidthChar as _;
    const MARK: &str = "    ↪ ";
    let width = width.max(12);
    let mut out = Vec::new();
    for (style, text) in lines {
        let text = safe(&text);
        let mut row = String::new();
        let mut used = 0;
        for ch in text.chars() {
            let cw = ch.width().unwrap_or(0);
            if used + cw > width {
                out.push((style, std::mem::take(&mut row)));
                row.push_str(MARK);
                used = MARK.chars().count();
            }
            row.push(ch);
            used += cw;
        }
        out.push((style, row));
    }
    out
}

fn scan_lines(item: &crate::tui::model::QueueItem, theme: Theme) -> Vec<(Style, String)> {
    let d = &item.detail;
    if d.findings.is_empty() {
        let policy = if item.kind == "writeback" {
            "policy public: a writeback leaves this machine"
        } else {
            "policy local: the goal's own state file"
        };
        return vec![(theme.ok(), format!("✓ no findings ({policy})"))];
    }
    let mut out =
        vec![(theme.dim(), "severity  rule                    location          sample          reason".to_owned())];
    for f in &d.findings {
        let (style, sev) = match f.severity.as_str() {
            "block" => (theme.error(), "✗ BLOCK "),
            "warn" => (theme.warn(), "! WARN  "),
            _ => (theme.dim(), "· info  "),
        };
        out.push((
            style,
            format!("{sev}  {:<22}  {:<16}  {:<14}  {}", f.rule_id, f.location, f.sample_masked, f.reason),
        ));
    }
    if d.findings.iter().any(|f| f.severity == "block") {
        out.push((theme.error(), "apply is unavailable while a block finding stands; reject the item".into()));
    } else if d.findings.iter().any(|f| f.severity == "warn") {
        out.push((theme.warn(), "warn findings: apply asks you to type the item id's first 6 characters".into()));
    } else {
        out.push((theme.dim(), "info findings only: nothing here holds up apply".into()));
    }
    out
}

fn check_lines(item: &crate::tui::model::QueueItem, theme: Theme) -> Vec<(Style, String)> {
    let d = &item.detail;
    let mut out = vec![(theme.title(), format!("predicted: {}", item.predicted.name()))];
    if let Some(r) = &d.invalid_reason {
        out.push((theme.error(), format!("reason: {r}")));
    }
    let name_width = d.checks.iter().map(|c| c.name.chars().count()).max().unwrap_or(0).clamp(11, 26);
    for c in &d.checks {
        let (style, mark) = if c.ok { (theme.ok(), "✓ pass") } else { (theme.error(), "✗ FAIL") };
        out.push((style, format!("{mark}  {:<name_width$}  {}", c.name, c.detail)));
    }
    if let Some(c) = &d.conflict {
        out.push((theme.warn(), "conflict (the Conflict tab shows it readably):".into()));
        let mut c = c.clone();
        if let Some(o) = c.as_object_mut() {
            o.retain(|k, _| !k.ends_with("_diff"));
        }
        for l in serde_json::to_string_pretty(&c).unwrap_or_default().lines() {
            out.push((Style::new(), format!("  {l}")));
        }
    }
    if let Some(why) = crate::tui::app::apply_unavailable(item) {
        out.push((theme.warn(), format!("next: {why}")));
    }
    out
}

/// A line of text and its style.
type StyledLine = (Style, String);

/// The Log tab: a hint line, then each record, newest first, as one line (time, status,
/// decision, operator, item id) and, when it has any, a second with its reason, note, what it
/// reverts or what reverted it, and a lease released. The record under the cursor (`J` / `K`
/// move it) is marked `▶`: `U` proposes its revert.
fn history_lines(
    item: &crate::tui::model::QueueItem,
    cursor: usize,
    theme: Theme,
) -> (StyledLine, Vec<Vec<StyledLine>>) {
    let h = &item.detail.history;
    if h.is_empty() {
        return ((theme.dim(), "no decisions recorded for this goal yet".into()), Vec::new());
    }
    let hint = (theme.dim(), "J / K move ▶ · U proposes the revert of an applied change as a new item".to_owned());
    let reverted_by: std::collections::HashMap<&str, &str> = h
        .iter()
        .filter(|r| r.status == crate::wire::Status::Applied)
        .filter_map(|r| r.reverts.as_deref().map(|id| (id, r.item_id.as_str())))
        .collect();
    // Newest first (the history is kept oldest first, as the log holds it).
    let records = h
        .iter()
        .rev()
        .enumerate()
        .map(|(i, r)| {
            let style = match r.status {
                crate::wire::Status::Applied | crate::wire::Status::LeaseReleased => theme.ok(),
                s if s.is_conflict() => theme.warn(),
                _ => Style::new(),
            };
            let mut more: Vec<String> = r.reason.iter().chain(r.reason_code.iter()).cloned().collect();
            more.extend(r.note.as_ref().map(|n| format!("note: {n}")));
            more.extend(r.reverts.as_ref().map(|id| format!("reverts {id}")));
            more.extend(reverted_by.get(r.item_id.as_str()).map(|by| format!("reverted by {by}")));
            if let Some(l) = &r.lease_release {
                more.push(format!(
                    "lease of {} by {} (v{} e{}) released",
                    l["todo_id"].as_str().unwrap_or("?"),
                    l["owner"].as_str().unwrap_or("?"),
                    l["version"],
                    l["lease_epoch"]
                ));
            }
            let (mark, style) = if i == cursor { ("▶ ", style.patch(theme.selected())) } else { ("  ", style) };
            let head = format!(
                "{mark}{}  {:<10} {:<7} {:<10} {}",
                r.recorded_at,
                r.status.as_str(),
                r.decision,
                r.operator,
                r.item_id
            );
            let mut out = vec![(style, safe(&head))];
            if !more.is_empty() {
                out.push((theme.dim(), safe(&format!("      {}", more.join(" · ")))));
            }
            out
        })
        .collect();
    (hint, records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_conflict_lines_carry_a_continuation_mark() {
        let out = marked_wrap(vec![(Style::new(), format!("+{}", "x".repeat(25)))], 12);
        let text: Vec<&str> = out.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(text, ["+xxxxxxxxxxx", "    ↪ xxxxxx", "    ↪ xxxxxx", "    ↪ xx"]);
        // Wide characters count two columns.
        let out = marked_wrap(vec![(Style::new(), "每周摘要完成了三个任务".into())], 12);
        assert_eq!(out[0].1, "每周摘要完成");
    }
}
