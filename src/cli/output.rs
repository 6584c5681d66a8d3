//! Human and JSON printers for the read-only subcommands (one `wire` type per output).

use crate::scan::{self, Policy};
use crate::wire::{Doc, Finding, GoalStatus, LIST_SCHEMA, ListRow, Preview, ResultRecord, STATUS_SCHEMA};
use anyhow::Context as _;
use serde::Serialize;
use std::io::{Read as _, Write};
use std::path::Path;

/// Writes `text` to stdout; a closed pipe (e.g. `| head`) is not an error.
pub fn out(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("failed to write to stdout"),
    }
}

/// Pretty JSON with every character a terminal could act on escaped: serde escapes C0
/// controls; C1 controls, DEL and bidi overrides are escaped here (still valid JSON).
pub(super) fn json<T: Serialize>(v: &T) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(v)?;
    let mut safe = String::with_capacity(text.len());
    for c in text.chars() {
        if ('\u{7f}'..='\u{9f}').contains(&c) || crate::textsafe::is_bidi_control(c) {
            safe.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            safe.push(c);
        }
    }
    out(&(safe + "\n"))
}

/// Writes one line to standard error, ignoring a failed write: `eprintln!` panics when
/// stderr is closed (a caller that reads the start of a long error and hangs up), which
/// turned an error into a crash with exit code 101.
pub fn err_line(args: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{args}");
}

/// Terminal-safe single-line text (see [`crate::textsafe`]).
#[must_use]
pub fn clean(text: &str) -> String {
    crate::scan::shown(text, false)
}

pub(super) fn print_status(rows: &[GoalStatus], as_json: bool) -> anyhow::Result<()> {
    if as_json {
        // The state's own words (its frontmatter `status:`, an error quoting the state) are
        // an agent's to write: masked as in the table, so a token written there never shows.
        let items = rows
            .iter()
            .map(|r| GoalStatus {
                frontmatter_status: r.frontmatter_status.as_deref().map(|s| crate::scan::mask_secrets(s).0),
                error: r.error.as_deref().map(|e| crate::scan::mask_secrets(e).0),
                ..r.clone()
            })
            .collect();
        return json(&Doc { schema_version: STATUS_SCHEMA.into(), items });
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let rev = r.revision.as_deref().map_or_else(
                || format!("error: {}", r.error.as_deref().unwrap_or("")),
                |v| v.chars().take(19).collect(),
            );
            vec![
                clean(&r.goal_id),
                clean(r.frontmatter_status.as_deref().unwrap_or("-")),
                if r.authority.is_empty() { "-".into() } else { r.authority.clone() },
                r.open_todos.to_string(),
                r.leases.len().to_string(),
                r.pending.to_string(),
                r.conflicts.to_string(),
                r.projection.clone().unwrap_or_else(|| "-".into()),
                clean(&rev),
            ]
        })
        .collect();
    out(&table(
        &["GOAL", "STATUS", "AUTHORITY", "OPEN", "LEASES", "PENDING", "CONFLICTS", "PROJECTION", "REVISION"],
        &cells,
    ))
}

/// Renders rows as left-aligned columns sized to their content (last column unpadded).
fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let n = cells.len();
        let mut out = String::new();
        for (i, (cell, w)) in cells.into_iter().zip(&widths).enumerate() {
            if i + 1 == n {
                out.push_str(&cell);
            } else {
                out.push_str(&format!("{cell:<w$}  "));
            }
        }
        out.trim_end().to_owned() + "\n"
    };
    let mut s = line(header.iter().map(|h| (*h).to_owned()).collect());
    for r in rows {
        s += &line(r.clone());
    }
    s
}

pub(super) fn print_list(rows: &[ListRow], as_json: bool) -> anyhow::Result<()> {
    if as_json {
        return json(&Doc { schema_version: LIST_SCHEMA.into(), items: rows.to_vec() });
    }
    if rows.is_empty() {
        return out("(no pending items)\n");
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                clean(&r.item_id),
                clean(&r.goal_id),
                clean(&r.write_class),
                match &r.reason_code {
                    Some(code) => format!("{} ({code})", r.predicted_status),
                    None => r.predicted_status.clone(),
                },
                if r.authority.is_empty() { "-".into() } else { r.authority.clone() },
                age(r.age_seconds),
                clean(&r.agent_id),
                clean(&r.summary),
            ]
        })
        .collect();
    out(&table(&["ITEM", "GOAL", "CLASS", "PREDICTED", "AUTHORITY", "AGE", "AGENT", "DOES"], &cells))
}

fn age(secs: u64) -> String {
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

pub(super) fn print_preview(p: &Preview, as_json: bool) -> anyhow::Result<()> {
    if as_json {
        return json(p);
    }
    let mut s = format!(
        "item {}  goal {}  {}  {}\nauthority: {}\npredicted: {}{}\n",
        clean(&p.row.item_id),
        clean(&p.row.goal_id),
        clean(&p.row.write_class),
        clean(&p.row.writer_id),
        if p.row.authority.is_empty() { "unknown" } else { p.row.authority.as_str() },
        p.row.predicted_status,
        p.row.reason_code.as_deref().map(|c| format!(" ({c})")).unwrap_or_default(),
    );
    if let Some(r) = &p.invalid_reason {
        s += &format!("reason: {}\n", clean(r));
    }
    if let Some(cmd) = &p.loopx_command {
        s += &format!("runs: {}\n", clean(cmd));
    }
    s += "checks:\n";
    for c in &p.checks {
        s += &format!("  [{}] {:<12} {}\n", if c.ok { "ok" } else { "!!" }, c.name, clean(&c.detail));
    }
    if !p.findings.is_empty() {
        s += "findings:\n";
        for f in &p.findings {
            s += &format!(
                "  {:<5} {:<22} {:<14} {}  {}\n",
                clean(&f.severity),
                clean(&f.rule_id),
                clean(&f.location),
                clean(&f.sample_masked),
                clean(&f.reason)
            );
        }
    }
    if let Some(c) = p.conflict.as_ref().and_then(serde_json::Value::as_object) {
        s += "conflict:\n";
        for (k, v) in c.iter().filter(|(k, _)| !k.ends_with("_diff")) {
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
            s += &format!("  {:<24} {}\n", clean(k), clean(&v));
        }
        for (k, title) in [
            ("since_base_diff", "changed since the agent read it (base → current)"),
            ("proposal_on_base_diff", "what the agent wants (base → proposal on the base)"),
            ("proposal_diff", "the earlier applied proposal → this one"),
        ] {
            if let Some(d) = c.get(k).and_then(serde_json::Value::as_str) {
                s += &format!("{title}:\n{}", clean_lines(d));
            }
        }
    }
    for note in &p.diff_notes {
        s += &format!("note: {}\n", clean(note));
    }
    if !p.diff.is_empty() {
        // Masked when the preview was built (`Prepared::to_wire`), and masking a masked text
        // changes nothing (a test over every corpus holds it): only made visible here.
        s += &format!("diff:\n{}", crate::textsafe::sanitize(&p.diff, true));
    }
    out(&s)
}

fn clean_lines(text: &str) -> String {
    crate::scan::shown(text, true)
}

pub(super) fn print_log(rows: &[ResultRecord], as_json: bool) -> anyhow::Result<()> {
    if as_json {
        return json(&Doc { schema_version: crate::wire::LOG_SCHEMA.into(), items: rows.to_vec() });
    }
    if rows.is_empty() {
        return out("(no results)\n");
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                clean(&r.recorded_at),
                clean(&r.goal_id),
                clean(&r.item_id),
                clean(&r.decision),
                r.status.as_str().to_owned(),
                clean(&r.operator),
                r.reason.as_deref().or(r.reason_code.as_deref()).map(clean).unwrap_or_default(),
            ]
        })
        .collect();
    out(&table(&["RECORDED", "GOAL", "ITEM", "DECISION", "STATUS", "OPERATOR", "REASON"], &cells))
}

pub(super) fn print_prune(
    results: &[(String, Result<crate::gate::revisions::PruneReport, String>)],
    as_json: bool,
) -> anyhow::Result<()> {
    if as_json {
        let goals: Vec<_> = results
            .iter()
            .map(|(goal, r)| match r {
                Ok(r) => serde_json::json!({"goal_id": goal, "ok": true, "kept": r.kept, "kept_bytes": r.kept_bytes,
                    "removed": r.removed, "removed_bytes": r.removed_bytes, "foreign_files": r.foreign}),
                Err(e) => serde_json::json!({"goal_id": goal, "ok": false, "error": e}),
            })
            .collect();
        return json(&serde_json::json!({"schema_version": "writegate_revisions_prune_v1", "goals": goals}));
    }
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|(goal, r)| match r {
            Ok(r) => vec![
                clean(goal),
                r.kept.to_string(),
                format!("{:.1} MiB", r.kept_bytes as f64 / 1_048_576.0),
                r.removed.to_string(),
                format!("{:.1} MiB", r.removed_bytes as f64 / 1_048_576.0),
                if r.foreign > 0 { format!("{} other files left alone", r.foreign) } else { String::new() },
            ],
            Err(e) => vec![clean(goal), "-".into(), "-".into(), "-".into(), "-".into(), format!("error: {}", clean(e))],
        })
        .collect();
    out(&table(&["GOAL", "KEPT", "SIZE", "REMOVED", "FREED", "NOTE"], &rows))
}

/// A file read for `writegate scan`, with what was learnt while each piece was in cache.
struct ReadText {
    bytes: Vec<u8>,
    /// A `\r` occurs.
    has_cr: bool,
}

/// Bytes read at a time by [`read_text`]: small enough that checking a piece after reading
/// it reads it from cache, not memory.
const READ_PIECE: usize = 256 * 1024;

/// Reads `r` to its end (`size_hint` bytes expected: the buffer is sized once), looking for
/// `\r` piece by piece as they arrive, instead of in one more sweep over the whole text.
/// (UTF-8 is still checked over the whole text at once: a `&str` of the whole buffer can
/// only be had, without `unsafe`, from a check of the whole buffer.) Errors: what reading
/// gives.
fn read_text<R: std::io::Read>(r: &mut R, size_hint: usize) -> std::io::Result<ReadText> {
    let mut bytes: Vec<u8> = Vec::with_capacity(size_hint.saturating_add(1));
    let mut has_cr = false;
    loop {
        let filled = bytes.len();
        if bytes.capacity() - filled < READ_PIECE {
            bytes.reserve(READ_PIECE);
        }
        let n = r.by_ref().take(READ_PIECE as u64).read_to_end(&mut bytes)?;
        if n == 0 {
            break;
        }
        has_cr |= memchr::memchr(b'\r', &bytes[filled..]).is_some();
    }
    Ok(ReadText { bytes, has_cr })
}

pub(super) fn scan(path: &Path, policy: &str, as_json: bool) -> anyhow::Result<i32> {
    let read = if path == Path::new("-") {
        read_text(&mut std::io::stdin().lock(), 0).context("failed to read stdin")?
    } else {
        let fail = || format!("failed to read {}", path.display());
        let mut file = std::fs::File::open(path).with_context(fail)?;
        let size = file.metadata().map_or(0, |m| usize::try_from(m.len()).unwrap_or(0));
        read_text(&mut file, size).with_context(fail)?
    };
    let bytes = &read.bytes;
    let policy = if policy == "local" { Policy::Local } else { Policy::Public };
    let mut findings: Vec<Finding> = Vec::new();
    // A JSON document is an object or an array here: other text is not parsed on speculation.
    let body = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let json_like = body.iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|b| matches!(b, b'{' | b'['));
    let document = json_like.then(|| crate::json::parse_strict(bytes));
    // A document the strict reading refuses for what it holds (a key given twice, nesting past
    // its depth) is a finding; one that is no single document (NDJSON, broken syntax) is read
    // as text, as before.
    if let Some(Err(crate::json::JsonError::Syntax(e))) = &document
        && e.classify() == serde_json::error::Category::Data
    {
        findings.push(scan::unreadable_document(&e.to_string()));
    }
    match document.and_then(Result::ok) {
        Some(v) => scan::scan_json(&v, "", policy, &mut findings),
        // UTF-8 was checked with SIMD while reading (std's check is a tenth of a large scan's
        // time on CJK text); invalid bytes become U+FFFD as before.
        None => match simdutf8::basic::from_utf8(bytes) {
            Ok(text) => scan::scan_document_known(text, read.has_cr, policy, &mut findings),
            Err(_) => scan::scan_document(&String::from_utf8_lossy(bytes), policy, &mut findings),
        },
    }
    let blocking = findings.iter().any(|f| f.severity == "block");
    if as_json {
        json(&serde_json::json!({"schema_version": "writegate_scan_v1", "ok": !blocking, "findings": findings}))?;
    } else {
        let mut s = String::new();
        for f in &findings {
            s += &format!(
                "{:<5} {:<22} {:<16} {:<14} {}\n",
                clean(&f.severity),
                clean(&f.rule_id),
                clean(&f.location),
                clean(&f.sample_masked),
                clean(&f.reason)
            );
        }
        s += &format!("{} finding(s), {}\n", findings.len(), if blocking { "blocking" } else { "none blocking" });
        out(&s)?;
    }
    Ok(if blocking { super::exit::ATTENTION } else { super::exit::OK })
}
