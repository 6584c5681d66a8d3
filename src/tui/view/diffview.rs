//! The Diff tab: unified or side-by-side, old/new line numbers, `+`/`-` markers, changed
//! words emphasised, folded context with a count, a visible "no newline at end of file"
//! marker, line-ending notes. Built only for the visible window.

use super::safe;
use crate::diff::{ModelLine, Row};
use crate::tui::app::{App, DiffMode};
use crate::tui::model::QueueItem;
use crate::tui::theme::Theme;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

fn num(n: Option<usize>) -> String {
    n.map_or_else(|| "    ".to_owned(), |n| format!("{n:>4}"))
}

fn spans_of(l: &ModelLine, x: usize, width: usize, base: Style, theme: Theme) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let mut skip = x;
    let mut room = width;
    for (emph, text) in &l.spans {
        let text = safe(text);
        let n = text.chars().count();
        if skip >= n {
            skip -= n;
            continue;
        }
        let part: String = text.chars().skip(skip).take(room).collect();
        skip = 0;
        room = room.saturating_sub(part.chars().count());
        out.push(Span::styled(part, if *emph { base.patch(theme.emphasis()) } else { base }));
        if room == 0 {
            break;
        }
    }
    if l.missing_newline && room > 0 {
        out.push(Span::styled(" ⏎ no newline at end of file", theme.warn()));
    }
    out
}

/// Greedy word wrap to `width` columns (a word longer than the width gets its own line).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    for word in text.split(' ') {
        let last = out.last_mut().expect("one line");
        let used = unicode_width::UnicodeWidthStr::width(last.as_str());
        if used > 0 && used + 1 + unicode_width::UnicodeWidthStr::width(word) > width {
            out.push(word.to_owned());
        } else {
            if used > 0 {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    out
}

fn style_of(tag: char, theme: Theme) -> Style {
    match tag {
        '+' => theme.added(),
        '-' => theme.removed(),
        _ => Style::new(),
    }
}

pub(super) fn lines(app: &App, item: &QueueItem, h: usize, w: usize, theme: Theme) -> Vec<Line<'static>> {
    if item.detail.proposed.is_none() && !item.checking {
        // Nothing would be written (invalid, a failing edit, a canonical goal's todo edit):
        // say why instead of showing an empty diff.
        let why = item.detail.invalid_reason.as_deref().unwrap_or("the item is invalid or its edit fails (see Checks)");
        return wrap_words(&format!("nothing would be written: {}", safe(why)), w.max(20))
            .into_iter()
            .map(|l| Line::styled(l, theme.dim()))
            .collect();
    }
    let Some(view) = app.view.as_ref().filter(|v| v.key == item.key) else {
        let msg = if item.detail.proposed.is_some() {
            "computing the diff…"
        } else {
            "no diff: the item is invalid or its edit fails (see Checks)"
        };
        return vec![Line::styled(msg, theme.dim())];
    };
    let m = &view.diff;
    let mut out: Vec<Line<'static>> = Vec::new();
    out.push(Line::styled(
        format!(
            "+{} −{} lines · {}",
            m.added,
            m.removed,
            if app.diff_mode == DiffMode::Unified { "unified (d: side by side)" } else { "side by side (d: unified)" }
        ),
        theme.dim(),
    ));
    for n in &m.notes {
        out.push(Line::styled(format!("⚠ {}", safe(n)), theme.warn()));
    }
    for n in &item.detail.notes {
        out.push(Line::styled(format!("◷ {}", safe(n)), theme.dim()));
    }
    out.extend(plan_lines(&view.plan, h, w, theme));
    if m.rows.is_empty() {
        let why = if item.detail.command_line.is_some() {
            "no Markdown change: this LoopX command changes none here (see the Checks tab's loopx line)"
        } else {
            "no change: the state already holds this write"
        };
        out.push(Line::styled(why, theme.dim()));
    }
    let (y, x) = (usize::from(app.scroll.0), usize::from(app.scroll.1));
    let body: Vec<Line<'static>> = match app.diff_mode {
        DiffMode::Unified => unified(&m.rows, y, h, x, w, theme),
        DiffMode::SideBySide => side_by_side(&m.rows, y, h, x, w, theme),
    };
    out.extend(body);
    out.truncate(h);
    out
}

/// The plan view leading the Diff tab of a todo change (one line per changed todo field,
/// wrapped, at most half the pane), then the heading of the raw diff; nothing without a plan.
fn plan_lines(plan: &[String], h: usize, w: usize, theme: Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if plan.is_empty() {
        return out;
    }
    // Wrapped, so the new value of a long field shows whole.
    let room = (h / 2).clamp(3, 16);
    out.push(Line::styled("plan", theme.title()));
    let (mut rows_used, mut shown) = (0, 0);
    for l in plan {
        let style = match l.chars().next() {
            Some('+') => theme.added(),
            Some('-') => theme.removed(),
            _ => Style::new(),
        };
        // A field line keeps its indent under its todo; wrapped rows hang below its text.
        let text = safe(l);
        let indent = " ".repeat(text.len() - text.trim_start().len());
        let rows = wrap_words(text.trim_start(), w.saturating_sub(6 + indent.len()).max(20));
        if rows_used + rows.len() > room {
            break;
        }
        rows_used += rows.len();
        for (n, row) in rows.into_iter().enumerate() {
            let hang = if n == 0 { "" } else { "    " };
            out.push(Line::styled(format!("  {indent}{hang}{row}"), style));
        }
        shown += 1;
    }
    if plan.len() > shown {
        out.push(Line::styled(
            format!("  … {} more plan line(s); the raw diff below has every byte", plan.len() - shown),
            theme.dim(),
        ));
    }
    out.push(Line::styled("raw diff — exactly what is written", theme.title()));
    out
}

/// Unified rows as display lines: changed lines wrap (so the change is always visible),
/// context lines are clipped and scroll sideways with `x`. Only the window `[y, y+h)` of
/// display lines is built.
fn unified(rows: &[Row], y: usize, h: usize, x: usize, w: usize, theme: Theme) -> Vec<Line<'static>> {
    let text_w = w.saturating_sub(12).max(8);
    let mut out = Vec::with_capacity(h);
    let mut seen = 0usize;
    for r in rows {
        if out.len() >= h {
            break;
        }
        match r {
            Row::Fold(n) => {
                if seen >= y {
                    out.push(Line::styled(format!("          ⋯ {n} unchanged line(s)"), theme.dim()));
                }
                seen += 1;
            }
            Row::Line(l) => {
                let base = style_of(l.tag, theme);
                let chunks =
                    if l.tag == ' ' { vec![spans_of(l, x, text_w, base, theme)] } else { wrap(l, text_w, base, theme) };
                for (i, chunk) in chunks.into_iter().enumerate() {
                    if seen >= y && out.len() < h {
                        let gutter = if i == 0 {
                            format!("{} {} {} ", num(l.old), num(l.new), l.tag)
                        } else {
                            format!("{:>11} ", "↪")
                        };
                        let mut spans = vec![Span::styled(gutter, base)];
                        spans.extend(chunk);
                        out.push(Line::from(spans));
                    }
                    seen += 1;
                }
            }
        }
    }
    out
}

/// Splits a changed line's spans into display chunks of `width` characters.
fn wrap(l: &ModelLine, width: usize, base: Style, theme: Theme) -> Vec<Vec<Span<'static>>> {
    let mut chunks: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut room = width;
    for (emph, text) in &l.spans {
        let style = if *emph { base.patch(theme.emphasis()) } else { base };
        let mut rest: Vec<char> = safe(text).chars().collect();
        while !rest.is_empty() {
            if room == 0 {
                chunks.push(Vec::new());
                room = width;
            }
            let take = room.min(rest.len());
            let part: String = rest.drain(..take).collect();
            room -= take;
            if let Some(c) = chunks.last_mut() {
                c.push(Span::styled(part, style));
            }
        }
    }
    if l.missing_newline
        && let Some(c) = chunks.last_mut()
    {
        c.push(Span::styled(" ⏎ no newline at end of file", theme.warn()));
    }
    chunks
}

fn side_by_side(rows: &[Row], y: usize, h: usize, x: usize, w: usize, theme: Theme) -> Vec<Line<'static>> {
    // Pair each run of deletions with the following run of insertions.
    let mut pairs: Vec<(Option<&ModelLine>, Option<&ModelLine>, Option<usize>)> = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        match &rows[i] {
            Row::Fold(n) => {
                pairs.push((None, None, Some(*n)));
                i += 1;
            }
            Row::Line(l) if l.tag == ' ' => {
                pairs.push((Some(l), Some(l), None));
                i += 1;
            }
            Row::Line(_) => {
                let mut dels = Vec::new();
                let mut ins = Vec::new();
                while let Some(Row::Line(l)) = rows.get(i).filter(|r| matches!(r, Row::Line(l) if l.tag == '-')) {
                    dels.push(l);
                    i += 1;
                }
                while let Some(Row::Line(l)) = rows.get(i).filter(|r| matches!(r, Row::Line(l) if l.tag == '+')) {
                    ins.push(l);
                    i += 1;
                }
                for k in 0..dels.len().max(ins.len()) {
                    pairs.push((dels.get(k).copied(), ins.get(k).copied(), None));
                }
            }
        }
    }
    let half = w.saturating_sub(3) / 2;
    let cell_w = half.saturating_sub(7).max(4);
    let side = |ml: Option<&ModelLine>, left: bool| -> Vec<Vec<Span<'static>>> {
        let Some(ml) = ml else { return vec![vec![Span::raw(" ".repeat(half))]] };
        let base = style_of(ml.tag, theme);
        let no = if left { ml.old } else { ml.new };
        let chunks =
            if ml.tag == ' ' { vec![spans_of(ml, x, cell_w, base, theme)] } else { wrap(ml, cell_w, base, theme) };
        chunks
            .into_iter()
            .enumerate()
            .map(|(i, content)| {
                let gutter = if i == 0 {
                    format!("{} {} ", num(no), if ml.tag == ' ' { ' ' } else { ml.tag })
                } else {
                    format!("{:>5} ", "↪")
                };
                let used: usize =
                    content.iter().map(|s| unicode_width::UnicodeWidthStr::width(s.content.as_ref())).sum();
                let mut v = vec![Span::styled(gutter, base)];
                v.extend(content);
                v.push(Span::raw(" ".repeat(cell_w.saturating_sub(used))));
                v
            })
            .collect()
    };
    let mut out = Vec::with_capacity(h);
    let mut seen = 0usize;
    for (l, r, fold) in pairs {
        if out.len() >= h {
            break;
        }
        if let Some(n) = fold {
            if seen >= y {
                out.push(Line::styled(format!("     ⋯ {n} unchanged line(s)"), theme.dim()));
            }
            seen += 1;
            continue;
        }
        let (left, right) = (side(l, true), side(r, false));
        for i in 0..left.len().max(right.len()) {
            if seen >= y && out.len() < h {
                let mut spans = left.get(i).cloned().unwrap_or_else(|| vec![Span::raw(" ".repeat(half))]);
                spans.push(Span::styled(" │ ", theme.dim()));
                spans.extend(right.get(i).cloned().unwrap_or_default());
                out.push(Line::from(spans));
            }
            seen += 1;
        }
    }
    out
}
