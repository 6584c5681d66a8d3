//! The line-start gates of [`super`]: each line's first bytes, after its blanks or marks,
//! decide which [`super::Gate::LineHead`] and [`super::Gate::SectionHead`] rules' regexes
//! must look at it.

use super::{Collector, Compiled, NO_LINE, Rules};
use crate::scan::rules;

/// The line-start gate: each line of `bytes[from..to]` (which starts at a line start).
pub(super) fn line_heads(c: &Compiled, bytes: &[u8], from: usize, to: usize, col: &mut Collector) {
    let mut start = from;
    let mut breaks = memchr::memchr_iter(b'\n', &bytes[from..to]).map(|k| from + k);
    loop {
        let end = breaks.next();
        let line = &bytes[start..end.unwrap_or(to)];
        col.line = if end.is_some() || to == bytes.len() { (start, end.unwrap_or(to)) } else { NO_LINE };
        if !line.is_empty() {
            let skips = Skips::of(line);
            head(&c.rules, line, start, &skips, col);
            section_head(c, line, start, skips.marks, col);
        }
        match end {
            Some(e) => start = e + 1,
            None => break,
        }
    }
    col.line = NO_LINE;
}

fn starts_with_ci(text: &[u8], word: &[u8]) -> bool {
    text.get(..word.len()).is_some_and(|t| t.eq_ignore_ascii_case(word))
}

/// Where a line's leading runs end: of blanks (`[ \t]*`), and of blanks and marks
/// (`[ \t>*_#-]*`: quotes, list marks, headings, emphasis). Computed once per line for all
/// the line-start gates.
struct Skips {
    blanks: usize,
    marks: usize,
}

impl Skips {
    fn of(line: &[u8]) -> Skips {
        let run = |from: usize, set: fn(u8) -> bool| {
            line[from..].iter().position(|&b| !set(b)).map_or(line.len(), |i| from + i)
        };
        let blanks = run(0, |b| matches!(b, b' ' | b'\t'));
        let marks = run(blanks, |b| matches!(b, b' ' | b'\t' | b'>' | b'*' | b'_' | b'#' | b'-'));
        Skips { blanks, marks }
    }
}

fn head(r: &Rules, line: &[u8], start: usize, skips: &Skips, col: &mut Collector) {
    let first = line[0];
    // transcript_turns: a role word after the line's marks, `[` and a role (`[tool_call]`),
    // or a table row's `|`
    let k = skips.marks;
    if role_word_at(line, k) || (line.get(k) == Some(&b'[') && role_word_at(line, k + 1)) || first == b'|' {
        col.add(r.turns, start);
    }
    clock_heads(r, line, start, col);
    indented_heads(r, line, start, skips.blanks, col);
    document_heads(r, line, start, skips.blanks, col);
    // stack_trace: `^[ \t]+at `
    if skips.blanks > 0 && line[skips.blanks..].starts_with(b"at ") {
        col.add(r.stack, start);
    }
    if named_turn_head(line) {
        col.add(r.named_turns, start);
    }
    if (line[0].is_ascii_uppercase() || (0xC3..=0xC5).contains(&line[0]))
        && (clock_between_blanks(line) || ends_with_clock(line))
    {
        col.add(r.chat_columns, start);
    }
    if first.is_ascii_digit() && strace_prefixed_head(line, rules::RULES[r.strace].literals) {
        col.add(r.strace, start);
    }
    // court_turns on a transcript's page: a line number (one to three digits) and two blanks
    // or a tab before the turn.
    let digits = line[skips.blanks..].iter().take(4).take_while(|b| b.is_ascii_digit()).count();
    let after = &line[skips.blanks + digits..];
    if (1..=3).contains(&digits) && (after.starts_with(b"  ") || after.starts_with(b"\t")) {
        col.add(r.court, start);
    }
    // ops_run_output's BuildKit progress: `^#\d` (section heads read `#` as a heading's mark).
    if first == b'#' && line.get(1).is_some_and(u8::is_ascii_digit) {
        col.add(r.ops_run, start);
    }
    // autogen_console: `^-{10} `
    if first == b'-' && line.starts_with(b"---------- ") {
        col.add(r.autogen_console, start);
    }
    // irc_turns: `^<`
    if first == b'<' {
        col.add(r.irc_turns, start);
    }
    if shell_prompt(line) {
        col.add(r.shell, start);
    }
    if first == b'{' && ndjson_head(line) {
        col.add(r.ndjson, start);
    }
    // tagged_progress_lines: `^\[[A-Za-z]`
    if first == b'[' && line.get(1).is_some_and(u8::is_ascii_alphabetic) {
        col.add(r.tagged, start);
    }
}

/// `transcript_turns`' role words at `line[k..]` (ASCII case-insensitive): `user`,
/// `assistant`, …, `tool`, a chat app's `you` / `chatgpt` (its bold or heading lines), and a
/// dump's `role` / `speaker` field.
fn role_word_at(line: &[u8], k: usize) -> bool {
    const ROLES: &[&[u8]] = &[
        b"user",
        b"assistant",
        b"human",
        b"system",
        b"ai",
        b"model",
        b"tool",
        b"you",
        b"chatgpt",
        b"claude",
        b"gemini",
        b"copilot",
        b"role",
        b"speaker",
    ];
    line.get(k).is_some_and(|c| matches!(c | 0x20, b'u' | b'a' | b'h' | b's' | b'm' | b't' | b'y' | b'c' | b'g' | b'r'))
        && ROLES.iter().any(|w| starts_with_ci(&line[k..], w))
}

/// The gates of `dated_chat_log` (`^\[?\d{4}-\d\d-\d\d[ T]\d`, `^\(\d`), `session_log`
/// (`^\[?\d{1,2}:`), `chat_log` (the same clock) and
/// `timestamped_log` (`^\[?(\d\d|\d:|[A-Z][a-z][a-z] +\d)`, `^\[[ \t]*\d`, a service's name
/// before ` | ` and a digit, or Ruby's Logger's `^[DIWEFA], \[`), `compose_log_lines` (a service's name before ` | `).
fn clock_heads(r: &Rules, line: &[u8], start: usize, col: &mut Collector) {
    // `docker compose logs`: a service's name, blanks, `| ` (and a date, for
    // `timestamped_log`).
    if (line[0].is_ascii_lowercase() || line[0].is_ascii_digit())
        && let Some(bar) = memchr::memchr(b'|', &line[..line.len().min(48)])
        && line[bar - 1] == b' '
        && line.get(bar + 1) == Some(&b' ')
    {
        col.add(r.compose, start);
        if line.get(bar + 2).is_some_and(u8::is_ascii_digit) {
            col.add(r.timestamped, start);
        }
    }
    if line[0] == b'[' && line[1..].iter().find(|&&c| !matches!(c, b' ' | b'\t')).is_some_and(u8::is_ascii_digit) {
        col.add(r.timestamped, start);
    }
    // Ruby's Logger: a severity letter, `, [` and the date (`I, [2024-12-02T18:22:04…`).
    if line.len() > 5 && matches!(line[0], b'D' | b'I' | b'W' | b'E' | b'F' | b'A') && line[1..].starts_with(b", [") {
        col.add(r.timestamped, start);
    }
    let b = if line[0] == b'[' { &line[1..] } else { line };
    let d = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    // `[2025-03-02 21:14]`, and Pidgin's `(11:40:19 AM)`.
    if (line[0] == b'[' && iso_date_and_clock(b))
        || iso_date_and_clock(line)
        || (line[0] == b'(' && line.get(1).is_some_and(u8::is_ascii_digit))
    {
        col.add(r.dated_chat, start);
    }
    if d(0) {
        let clock = b.get(1) == Some(&b':') || (d(1) && b.get(2) == Some(&b':'));
        if clock {
            col.add(r.session_log, start);
            col.add(r.chat_log, start);
        }
        // A Redis server's `1:M 11 Jul 2024 …` opens with a one-digit pid and `:`.
        if d(1) || clock {
            col.add(r.timestamped, start);
        }
    } else if b.len() >= 5
        && b[0].is_ascii_uppercase()
        && b[3] == b' '
        && b[1].is_ascii_lowercase()
        && b[2].is_ascii_lowercase()
        && b[4..].iter().find(|&&c| c != b' ').is_some_and(u8::is_ascii_digit)
    {
        col.add(r.timestamped, start);
    }
}

/// Whether `b` starts with an ISO date, a blank or `T`, and a digit (`2025-03-02 21:14`):
/// `dated_chat_log`'s head after its `[`.
fn iso_date_and_clock(b: &[u8]) -> bool {
    const SHAPE: &[u8; 12] = b"dddd-dd-dd d";
    b.len() >= SHAPE.len()
        && SHAPE.iter().zip(b).all(|(&want, &c)| match want {
            b'd' => c.is_ascii_digit(),
            b' ' => c == b' ' || c == b'T',
            _ => c == want,
        })
}

/// `strace_lines`' head after `strace -f -tt`'s prefix (`48211 14:02:11.481913 `): one or two
/// runs of digits, `:` and `.` each followed by blanks, then one of the rule's calls.
fn strace_prefixed_head(line: &[u8], calls: &[&str]) -> bool {
    let mut rest = line;
    for _ in 0..2 {
        let n = rest.iter().take_while(|c| c.is_ascii_digit() || matches!(c, b':' | b'.')).count();
        let blanks = rest[n..].iter().take_while(|&&c| c == b' ').count();
        if n == 0 || blanks == 0 {
            break;
        }
        rest = &rest[n + blanks..];
    }
    rest.len() < line.len() && calls.iter().any(|c| rest.starts_with(c.as_bytes()))
}

/// `named_turns`' head, `^(\*\*)?[A-Z][a-z]+(?: [A-Z][a-z]+)?(\*\*)?:[ \t]` (accented
/// letters' bytes taken as lower case): most prose lines start with a capital, few with a name and a colon.
fn named_turn_head(line: &[u8]) -> bool {
    // A chat panel's export writes the name in bold (`**Elif Demir**: …`).
    let bold = line.starts_with(b"**");
    let line = if bold { &line[2..] } else { line };
    let word = |from: usize| {
        let upper = line.get(from).is_some_and(u8::is_ascii_uppercase);
        // Lower-case letters, and the bytes of Latin letters with accents (`í` is C3 AD).
        let lower = line
            .get(from + 1..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&b| b.is_ascii_lowercase() || (0x80..=0xBF).contains(&b) || (0xC3..=0xC5).contains(&b))
            .count();
        (upper && lower > 0).then_some(from + 1 + lower)
    };
    let Some(mut end) = word(0) else { return false };
    if line.get(end) == Some(&b' ')
        && let Some(second) = word(end + 1)
    {
        end = second;
    }
    if line.get(end..end + 2) == Some(b"**") {
        end += 2;
    }
    line.get(end) == Some(&b':') && line.get(end + 1).is_some_and(|b| matches!(b, b' ' | b'\t'))
}

/// `shell_session`'s prompt: `^(\$|%|❯|>>>|PS…>|user@host:…\$) +`.
fn shell_prompt(line: &[u8]) -> bool {
    let class = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'.' | b'-');
    match line[0] {
        b'$' | b'%' => line.get(1) == Some(&b' '),
        0xE2 => line.starts_with("❯ ".as_bytes()),
        b'>' => line.starts_with(b">>> "),
        b'P' => line.get(1) == Some(&b'S'),
        c if class(&c) => line.get(line.iter().position(|b| !class(b)).unwrap_or(line.len())) == Some(&b'@'),
        _ => false,
    }
}

/// The [`Gate::SectionHead`] gate: a rule's literal right after the line's run of
/// `[ \t>*_#-]`. The rules' own prefixes are subsets of that set and their words start with
/// none of its bytes, so where such a rule matches, its word starts where the run ends.
fn section_head(c: &Compiled, line: &[u8], start: usize, k: usize, col: &mut Collector) {
    let Some(first) = line.get(k) else { return };
    for (lit, rule) in &c.section_heads[usize::from(first.to_ascii_lowercase())] {
        if starts_with_ci(&line[k..], lit) {
            col.add(*rule, start);
        }
    }
}

/// `ndjson_log`'s whole head, `^\{[ \t]*"(level|lvl|…|logger)"[ \t]*:`: JSON lines of other
/// records are common and never match.
fn ndjson_head(line: &[u8]) -> bool {
    let blanks = |b: &[u8]| b.iter().position(|c| !matches!(c, b' ' | b'\t')).unwrap_or(b.len());
    let rest = &line[1..];
    let Some(rest) = rest[blanks(rest)..].strip_prefix(b"\"") else { return false };
    let Some(close) = memchr::memchr(b'"', rest) else { return false };
    let after = &rest[close + 1..];
    matches!(
        &rest[..close],
        b"level"
            | b"lvl"
            | b"severity"
            | b"ts"
            | b"time"
            | b"timestamp"
            | b"@timestamp"
            | b"msg"
            | b"message"
            | b"logger"
    ) && after.get(blanks(after)) == Some(&b':')
}

/// Discord's `Today at` / `Yesterday at` in `chat_export`'s sender lines (one searcher for
/// every line).
static DAY_AT: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"day at "));

/// The end `chat_export`'s name line must have, `\d:\d{2}(?:[ \t]?[AP]M)?[ \t]*$`: a clock
/// time closes the line (prose lines start with a capital too); `chat_columns`' help-desk
/// header ends so too.
fn ends_with_clock(line: &[u8]) -> bool {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b' ' | b'\t') {
        end -= 1;
    }
    let mut t = &line[..end];
    if let Some(rest) = t.strip_suffix(b"AM").or_else(|| t.strip_suffix(b"PM")) {
        t = rest.strip_suffix(b" ").or_else(|| rest.strip_suffix(b"\t")).unwrap_or(rest);
    }
    matches!(t, [.., d, b':', m1, m2] if d.is_ascii_digit() && m1.is_ascii_digit() && m2.is_ascii_digit())
}

/// `chat_columns`' gate: a clock after two blanks or a tab in the first 64 bytes of `line`
/// (`Agent Rosa  10:02  Hi!`: a support chat exported in columns): a `:` with one or two
/// digits before it, those after two blanks or a tab, and two digits after it.
fn clock_between_blanks(line: &[u8]) -> bool {
    let head = &line[..line.len().min(64)];
    memchr::memchr_iter(b':', head).any(|c| {
        let digits = head[..c].iter().rev().take_while(|b| b.is_ascii_digit()).count();
        let before = &head[..c - digits];
        (1..=2).contains(&digits)
            && (before.ends_with(b"  ") || before.ends_with(b"\t"))
            && head.get(c + 1..c + 3).is_some_and(|m| m.iter().all(u8::is_ascii_digit))
    })
}

/// The gates of rules that allow blanks before their line-start shape: `syslog_lines`
/// (`^[ \t]*[A-Z][a-z]{2} [ \d]\d `) and `powershell_session` (`^[ \t]*PS `).
fn indented_heads(r: &Rules, line: &[u8], start: usize, k: usize, col: &mut Collector) {
    let b = &line[k..];
    if b.len() >= 6
        && b[0].is_ascii_uppercase()
        && b[1].is_ascii_lowercase()
        && b[2].is_ascii_lowercase()
        && b[3] == b' '
        && (b[4] == b' ' || b[4].is_ascii_digit())
        && b[5].is_ascii_digit()
    {
        col.add(r.syslog, start);
    }
    if b.starts_with(b"PS ") {
        col.add(r.powershell, start);
    }
}

/// `chat_export`'s sender lines of Zulip (`**Ines Duarte** (10:31): …`), Telegram (`Name,
/// [02.10.2024 22:41]`) and KakaoTalk's Korean export (`2024년 5월 12일 오후 9:03, …`).
fn chat_export_head(line: &[u8]) -> bool {
    let trimmed = line.trim_ascii_end();
    (line.starts_with(b"**") && memchr::memmem::find(line, b"** (").is_some())
        || (trimmed.ends_with(b"]") && memchr::memmem::find(line, b", [").is_some())
        || (line.len() > 7 && line[..4].iter().all(u8::is_ascii_digit) && line[4..].starts_with("년".as_bytes()))
}

/// The line-start gates of the private-document rules: `email_headers`
/// (`^[ \t>]*<header>[ \t]*:` or `：`) and `contract_clauses` (`^[ \t]*\d{1,2}\.\d`).
fn document_heads(r: &Rules, line: &[u8], start: usize, blanks: usize, col: &mut Collector) {
    let k = if line.get(blanks) == Some(&b'>') {
        line.iter().position(|b| !matches!(b, b' ' | b'\t' | b'>')).unwrap_or(line.len())
    } else {
        blanks
    };
    let rest = &line[k..];
    // No header name holds `:` or the lead byte of `：` (EF), nor ends with a blank: the name
    // is what precedes the first of them, blanks trimmed.
    let header = memchr::memchr2(b':', 0xef, rest).is_some_and(|p| {
        let mut name = &rest[..p];
        while let [head @ .., b' ' | b'\t'] = name {
            name = head;
        }
        (rest[p] == b':' || rest[p..].starts_with("：".as_bytes()))
            && rules::documents::EMAIL_HEADERS.iter().any(|h| h.as_bytes() == name)
    });
    if header {
        col.add(r.email_headers, start);
    }
    if ((line[0].is_ascii_alphanumeric() || matches!(line[0], b'*' | b'_' | b'.' | b'-'))
        && (ends_with_clock(line) || DAY_AT.find(line).is_some()))
        || (line[0] == b'[' && line.get(1).is_some_and(u8::is_ascii_digit))
        || (line[0] == b'[' && memchr::memmem::find(line, b"] [").is_some())
        || (line[0].is_ascii_digit() && line[1..line.len().min(3)].iter().any(|&b| b == b'/' || b == b'.'))
        || (line[0] >= 0x80 && ends_with_clock(line))
        || chat_export_head(line)
    {
        col.add(r.chat_export, start);
    }
    let k = blanks;
    let digits = line[k..].iter().take(3).take_while(|b| b.is_ascii_digit()).count();
    if (1..=2).contains(&digits)
        && line.get(k + digits) == Some(&b'.')
        && line.get(k + digits + 1).is_some_and(u8::is_ascii_digit)
    {
        col.add(r.contract_clauses, start);
    }
}
