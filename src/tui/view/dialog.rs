//! Dialogs (apply, typed confirmation, skip, reject) and the help overlay. Dialog text comes
//! from what the engine computed — revisions, line counts, checks — never from the packet.

use super::safe;
use crate::engine::Predicted;
use crate::tui::app::{App, Mode, QUICK_REASONS, Typed};
use crate::tui::keymap::Scope;
use crate::tui::theme::Theme;
use crate::wire::Status;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width.saturating_sub(2));
    let h = h.min(area.height.saturating_sub(2));
    Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h }
}

/// Rows `lines` take when word-wrapped at `width` columns (greedy, as the paragraph wraps:
/// a word moves to the next row when it does not fit; a word wider than a row is split).
fn wrapped_height(lines: &[Line], width: usize) -> u16 {
    let width = width.max(1);
    let rows: usize = lines
        .iter()
        .map(|l| {
            let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
            let (mut rows, mut used) = (1usize, 0usize);
            for word in text.split(' ') {
                let w = unicode_width::UnicodeWidthStr::width(word);
                let need = if used == 0 { w } else { used + 1 + w };
                if need <= width {
                    used = need;
                } else if w <= width {
                    rows += 1;
                    used = w;
                } else {
                    rows += usize::from(used > 0) + (w - 1) / width;
                    used = (w - 1) % width + 1;
                }
            }
            rows
        })
        .sum();
    u16::try_from(rows).unwrap_or(u16::MAX)
}

fn short(rev: Option<String>) -> String {
    rev.map_or_else(|| "—".into(), |r| r.chars().take(19).collect())
}

pub(super) fn draw(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
    let Some(item) = app.current() else { return };
    let d = &item.detail;
    let before = short(d.current.as_deref().map(|t| crate::loopx::hash::revision_of_text(t)));
    // Other pending items of this goal that are not stale yet (duplicates stay duplicates):
    // an apply moves the state, so they will come back as stale.
    let siblings = app
        .items
        .iter()
        .filter(|i| {
            i.goal_id == item.goal_id
                && i.key != item.key
                && i.kind == "write_intent"
                && !matches!(
                    i.predicted,
                    Predicted::Invalid
                        | Predicted::Status(
                            Status::SkippedDuplicate | Status::AlreadyApplied | Status::RevisionConflict
                        )
                )
        })
        .count();
    let stamp = "LoopX stamps updated_at with the time of the write, so the new revision is known once written";
    let stats = app
        .view
        .as_ref()
        .filter(|v| v.key == item.key)
        .map_or_else(|| "diff pending".to_owned(), |v| format!("+{} −{} line(s)", v.diff.added, v.diff.removed));
    let mut lines = vec![
        Line::from(vec![Span::styled("item   ", theme.dim()), Span::raw(safe(&item.item_id))]),
        Line::from(vec![
            Span::styled("goal   ", theme.dim()),
            Span::raw(format!("{} · {} · agent {}", safe(&item.goal_id), safe(&item.write_class), safe(&item.agent))),
        ]),
    ];
    lines.push(Line::from(vec![Span::styled("does   ", theme.dim()), Span::raw(safe(&item.summary))]));
    if let Some(r) = &d.recomputed {
        lines.push(Line::styled(format!("{} (see Conflict)", safe(&r.line())), theme.warn()));
    }
    if let Some(r) = &d.rejected_before {
        lines.push(Line::styled(safe(&r.line()), theme.error()));
    }
    let (title, prompt): (&str, Vec<Line>) = match &app.mode {
        Mode::ConfirmApply { note, .. } => {
            let what = match item.predicted {
                Predicted::Status(Status::SkippedDuplicate) if item.kind == "writeback" => "the runtime already holds this key and payload: it will be recorded as skipped (already reflected); nothing is re-sent".to_owned(),
                Predicted::Status(Status::SkippedDuplicate) if item.kind == "loopx_command" => "LoopX already holds this command: it will be recorded as skipped_duplicate; nothing runs".to_owned(),
                Predicted::Status(Status::SkippedDuplicate) => "already applied with the same key and effect: it will be recorded as skipped_duplicate; nothing is written".to_owned(),
                Predicted::Status(Status::AlreadyApplied) => "the state already holds this change: it will be recorded as already_applied; nothing is written".to_owned(),
                Predicted::Ready if item.kind == "loopx_command" => format!(
                    "run  {}  — LoopX checks the revision, the lease and the operation id itself, then commits; the Markdown it writes is compared with the prediction and recorded.",
                    item.detail.command_line.as_deref().map_or_else(String::new, safe)
                ),
                Predicted::Ready if item.kind == "writeback" => {
                    let target = item.detail.checks.iter().find(|c| c.name.starts_with("entry.3")).map_or_else(String::new, |c| c.detail.clone());
                    format!("send the compact reflection (see Diff) — {target}; every criterion runs again first, the runtime dry-runs it, then applies. Its answer (applied / skipped / rejected / failed) is recorded with a LoopX result run in runs/index.jsonl.")
                }
                _ => format!("write {stats} to the state file at revision {before}; every check runs again under the lock first ({stamp})."),
            };
            let keys = if note.focused {
                Line::from(vec![
                    Span::styled("Enter", theme.title()),
                    Span::raw(" apply   "),
                    Span::styled("Tab / Esc", theme.title()),
                    Span::raw(" leave the note"),
                ])
            } else {
                Line::from(vec![
                    Span::styled("y", theme.title()),
                    Span::raw(" apply   "),
                    Span::styled("Tab", theme.title()),
                    Span::raw(" add a note   "),
                    Span::styled("n / Esc", theme.title()),
                    Span::raw(" cancel"),
                ])
            };
            ("apply?", vec![Line::raw(what), note_line(note, theme), keys])
        }
        Mode::TypedConfirm { typed, purpose: Typed::ReleaseLease { todo_id, seen }, .. } => {
            ("release expired lease — typed confirmation", release_prompt(item, todo_id, seen, typed, app.now, theme))
        }
        Mode::TypedConfirm { typed, purpose, note, .. } => {
            let want: String = item.item_id.chars().take(6).collect();
            let why = if *purpose == Typed::OverrideIdempotency {
                "this idempotency key was applied before with a different effect (LoopX reuses one key per todo). Applying records an override with both effect digests."
            } else if item.scan == crate::tui::model::ScanMark::Warn {
                "the scan has warnings (see Scan)."
            } else {
                "an operator rejected this key or effect before (above)."
            };
            (
                "apply — typed confirmation",
                vec![
                    Line::raw(match item.detail.command_line.as_deref() {
                        Some(cmd) => format!("{why} Run  {}  (LoopX commits it).", safe(cmd)),
                        None => format!("{why} Write {stats} at revision {before}."),
                    }),
                    note_line(note, theme),
                    Line::raw(format!("type {want} then Enter to apply · Tab moves to the note · Esc cancels")),
                    Line::from(vec![
                        Span::styled("> ", theme.title()),
                        Span::raw(safe(typed)),
                        Span::raw(if note.focused { "" } else { "▏" }),
                    ]),
                ],
            )
        }
        Mode::ConfirmBlocker(_) => (
            "record a blocker?",
            vec![
                Line::raw(
                    "propose an agent todo (task class blocker) naming the failed entry criteria, as a new pending item in this goal — applied only when you apply it; this writeback is recorded as rejected (blocker_recorded) with a LoopX result run",
                ),
                Line::from(vec![
                    Span::styled("y", theme.title()),
                    Span::raw(" record   "),
                    Span::styled("n / Esc", theme.title()),
                    Span::raw(" cancel"),
                ]),
            ],
        ),
        Mode::ConfirmSkip(_) => (
            "skip?",
            vec![
                Line::raw("record this item as skipped and move it to decided/; nothing is written to the state"),
                Line::from(vec![
                    Span::styled("y", theme.title()),
                    Span::raw(" skip   "),
                    Span::styled("n / Esc", theme.title()),
                    Span::raw(" cancel"),
                ]),
            ],
        ),
        Mode::Reject { typed, .. } => {
            let mut v = vec![Line::raw("type a reason, or a number 1–4 alone for a quick reason, then Enter:")];
            for (i, r) in QUICK_REASONS.iter().enumerate() {
                v.push(Line::styled(format!("  {}  {r}", i + 1), theme.dim()));
            }
            v.push(Line::from(vec![Span::styled("> ", theme.title()), Span::raw(safe(typed)), Span::raw("▏")]));
            v.push(Line::raw("Enter rejects · Ctrl-U clears · Esc cancels"));
            ("reject", v)
        }
        _ => return,
    };
    lines.push(Line::default());
    let writes_state = match &app.mode {
        Mode::ConfirmApply { .. } => item.kind != "writeback",
        Mode::TypedConfirm { purpose, .. } => !matches!(purpose, Typed::ReleaseLease { .. }),
        _ => false,
    };
    if siblings > 0 && writes_state {
        lines.push(Line::styled(format!("also: {siblings} other pending item(s) of this goal are checked again on the new state: order-independent todo changes are recomputed, the rest turn stale"), theme.dim()));
    }
    // On a small terminal the body gives way, never the keys and the input line at the end.
    let keep = match &app.mode {
        Mode::TypedConfirm { .. } | Mode::Reject { .. } => 2,
        _ => 1,
    }
    .min(prompt.len());
    let header = lines.len();
    lines.extend(prompt);
    let width = 76.min(area.width.saturating_sub(2));
    let inner_width = usize::from(width.saturating_sub(2));
    let room = usize::from(area.height.saturating_sub(4));
    // First the item / goal header goes (the detail pane names the item), then body lines.
    if usize::from(wrapped_height(&lines, inner_width)) > room {
        lines.drain(..header.min(2));
    }
    if usize::from(wrapped_height(&lines, inner_width)) > room && lines.len() > keep {
        let tail = lines.split_off(lines.len() - keep);
        while !lines.is_empty()
            && usize::from(wrapped_height(&lines, inner_width)) + usize::from(wrapped_height(&tail, inner_width)) + 1
                > room
        {
            lines.pop();
        }
        lines.push(Line::styled("… (enlarge the terminal for the rest)", theme.dim()));
        lines.extend(tail);
    }
    let h = wrapped_height(&lines, inner_width) + 2;
    let rect = centered(area, width, h);
    f.render_widget(Clear, rect);
    let block = Block::default().borders(Borders::ALL).title(Span::styled(format!(" {title} "), theme.warn()));
    f.render_widget(Paragraph::new(lines).block(block).wrap(Wrap { trim: false }), rect);
}

/// The note line of an apply dialog: what is typed, or how to add one.
fn note_line(note: &crate::tui::app::NoteField, theme: Theme) -> Line<'static> {
    if note.focused || !note.text.is_empty() {
        Line::from(vec![
            Span::styled("note   ", theme.dim()),
            Span::raw(safe(&note.text)),
            Span::raw(if note.focused { "▏" } else { "" }),
        ])
    } else {
        Line::styled("note   none (kept in the result record when given)", theme.dim())
    }
}

/// Draws a bordered box of `lines` titled `title` in the middle of `area`.
fn boxed(f: &mut Frame, area: Rect, title: &str, lines: Vec<Line>, theme: Theme) {
    let width = 96.min(area.width.saturating_sub(2));
    let h = wrapped_height(&lines, usize::from(width.saturating_sub(2))).min(area.height.saturating_sub(4)) + 2;
    let rect = centered(area, width, h);
    f.render_widget(Clear, rect);
    let block = Block::default().borders(Borders::ALL).title(Span::styled(format!(" {title} "), theme.warn()));
    f.render_widget(Paragraph::new(lines).block(block).wrap(Wrap { trim: false }), rect);
}

fn kind_style(kind: crate::tui::app::FlashKind, theme: Theme) -> ratatui::style::Style {
    match kind {
        crate::tui::app::FlashKind::Success => theme.ok(),
        crate::tui::app::FlashKind::Conflict => theme.warn(),
        crate::tui::app::FlashKind::Error => theme.error(),
        crate::tui::app::FlashKind::Info => ratatui::style::Style::new(),
    }
}

/// One batch row on one line of the 96-column box: goal, short item id, then the text (cut
/// at 60 characters).
fn row_line(row: &crate::tui::app::BatchRow, style: Style, theme: Theme) -> Line<'static> {
    let (goal, id) = row.key.split_once('/').unwrap_or(("", row.key.as_str()));
    let text: String = safe(&row.text).chars().take(60).collect();
    Line::from(vec![
        Span::styled(format!("  {:<12.12} {:<17} ", safe(goal), super::queue::short_id(id)), theme.dim()),
        Span::styled(text, style),
    ])
}

/// The batch dialog: exactly the items it decides (summary and line counts), the marked
/// ones it leaves out with the reason, and the typed count (a reject's reason first).
pub(super) fn batch(f: &mut Frame, b: &crate::tui::app::Batch, area: Rect, theme: Theme) {
    use crate::tui::app::BatchAction;
    let n = b.items.len();
    let mut lines = vec![Line::raw(match b.action {
        BatchAction::Apply => format!(
            "apply these {n} item(s) in queue order; each is checked again under the lock on the state the one before it left (order-independent todo changes are recomputed); the batch goes on past a conflict and reports every outcome"
        ),
        BatchAction::Skip => {
            format!("skip these {n} item(s): each is recorded as skipped; nothing is written to the state")
        }
        BatchAction::Reject => {
            format!("reject these {n} item(s), all with one reason; nothing is written to the state")
        }
    })];
    // The rows give way to the prompt on a small terminal; the count says how many there are.
    let room = usize::from(area.height.saturating_sub(12)).max(3);
    for (_, row) in b.items.iter().take(room) {
        lines.push(row_line(row, Style::new(), theme));
    }
    if n > room {
        lines.push(Line::styled(format!("  … and {} more (enlarge the terminal to see them)", n - room), theme.dim()));
    }
    if !b.excluded.is_empty() {
        lines.push(Line::styled(format!("left out, still marked ({}):", b.excluded.len()), theme.warn()));
        for row in b.excluded.iter().take(6) {
            lines.push(row_line(row, theme.warn(), theme));
        }
        if b.excluded.len() > 6 {
            lines.push(Line::styled(format!("  … and {} more", b.excluded.len() - 6), theme.dim()));
        }
    }
    match (&b.action, &b.reason) {
        (BatchAction::Reject, None) => {
            lines.push(Line::raw("type the reason for all of them, then Enter · Esc cancels"));
        }
        (_, reason) => {
            if let Some(r) = reason {
                lines.push(Line::from(vec![Span::styled("reason ", theme.dim()), Span::raw(safe(r))]));
            }
            lines.push(Line::raw(format!(
                "type {n} (the number of items) then Enter to {} · Esc cancels",
                b.action.verb()
            )));
        }
    }
    lines.push(Line::from(vec![Span::styled("> ", theme.title()), Span::raw(safe(&b.typed)), Span::raw("▏")]));
    boxed(f, area, &format!("batch {} — typed count", b.action.verb()), lines, theme);
}

/// The batch report: one row per item decided, its outcome.
pub(super) fn batch_report(f: &mut Frame, rows: &[crate::tui::app::BatchRow], area: Rect, theme: Theme) {
    let room = usize::from(area.height.saturating_sub(6)).max(3);
    let mut lines: Vec<Line> = rows.iter().take(room).map(|r| row_line(r, kind_style(r.kind, theme), theme)).collect();
    if rows.len() > room {
        lines.push(Line::styled(
            format!("… and {} more (the Log tab of each goal has them all)", rows.len() - room),
            theme.dim(),
        ));
    }
    lines.push(Line::styled("any key closes", theme.dim()));
    boxed(f, area, &format!("batch report — {} item(s)", rows.len()), lines, theme);
}

/// The release dialog: the lease as seen, what is written, and the typed id.
fn release_prompt(
    item: &crate::tui::model::QueueItem,
    todo_id: &str,
    seen: &crate::loopx::lease::TaskLease,
    typed: &str,
    now: chrono::DateTime<chrono::Utc>,
    theme: Theme,
) -> Vec<Line<'static>> {
    let want: String = item.item_id.chars().take(6).collect();
    let since = seen.expiry().map_or_else(|| "at an unreadable time".to_owned(), |t| super::goals::countdown(t, now));
    vec![
        Line::from(vec![
            Span::styled("lease  ", theme.dim()),
            Span::raw(format!(
                "{} · owner {} · version {} · epoch {} · key {}",
                safe(todo_id),
                safe(&seen.owner),
                seen.version,
                seen.lease_epoch,
                safe(seen.idempotency_key.as_deref().unwrap_or("—"))
            )),
        ]),
        Line::styled(format!("{since}; LoopX counts it as held until it is released"), theme.warn()),
        Line::raw(format!(
            "writes task-leases/{}.json as `loopx task-lease release` does: status released, released_at and updated_at now; version and epoch stay. The owner's own release becomes a replay; it can no longer renew.",
            safe(todo_id)
        )),
        Line::raw(
            "checked again under LoopX's task-lease lock: nothing is written if the lease changed meanwhile. Recorded as release_lease; the item stays pending — apply it afterwards.",
        ),
        Line::raw(format!("type {want} then Enter to release · Esc cancels")),
        Line::from(vec![Span::styled("> ", theme.title()), Span::raw(safe(typed)), Span::raw("▏")]),
    ]
}

pub(super) fn help(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
    let mut lines = vec![Line::styled(format!("registry: {}", safe(&app.workspace)), theme.dim())];
    for (scope, label) in [(Scope::Normal, "browsing"), (Scope::Confirm, "in a confirmation")] {
        lines.push(Line::styled(label.to_owned(), theme.title()));
        for bnd in app.keys.iter().filter(|b| b.scope == scope && !(app.read_only && b.action.is_decision())) {
            lines.push(Line::raw(format!("  {:<16} {}", bnd.keys.join(" / "), bnd.desc)));
        }
    }
    lines.push(Line::styled(
        "typing (filter, reason, confirmation): Enter submits · Esc cancels · Ctrl-U clears",
        theme.dim(),
    ));
    lines.push(Line::styled("         pasted text is typed as text only", theme.dim()));
    lines.push(Line::styled(
        "markers: ✓ ready  ✓ recomputed  ! conflict (stale · leased · key-reuse)  ✗ blocked/failed",
        theme.dim(),
    ));
    lines.push(Line::styled(
        "         ? invalid  = duplicate/applied  ! read-only (a writeback failing an entry criterion)",
        theme.dim(),
    ));
    lines.push(Line::styled(
        "         B block finding · W warn finding · R rejected before · L lease held (L:holder at the row end) · ▪ marked",
        theme.dim(),
    ));
    let rect = centered(area, 90, u16::try_from(lines.len()).unwrap_or(30) + 2);
    f.render_widget(Clear, rect);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(" help — j/k scroll · any other key closes ", theme.title()));
    // Wrapped, not cut: a long line (the registry's path, the markers) reads whole on a
    // narrow terminal.
    f.render_widget(Paragraph::new(lines).block(block).wrap(Wrap { trim: false }).scroll((app.help_scroll, 0)), rect);
}
