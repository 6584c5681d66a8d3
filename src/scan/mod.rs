//! The boundary scan: what a write would put on disk or reflect — every JSON key and string
//! value (JSON escapes decoded by the parser, percent-encoding and long base64 runs decoded
//! here) and every line a change adds. Rules live in [`rules`]; severity follows the
//! destination policy (DESIGN.md §5). Byte-mode regexes run only on the line windows their
//! gate gives ([`prefilter`]: Teddy stems, byte and line-start gates); every automaton is
//! built once. Texts of 4 MiB or more are scanned in two halves on two threads. Pure.

pub mod prefilter;
pub mod rules;
mod values;

use crate::loopx::hash::sha256_hex;
use crate::wire::Finding;
use regex::bytes::Regex;
use rules::{Check, RULES, Rule};
use serde_json::Value;
use std::sync::LazyLock;
pub use values::{is_our_id, is_reference_or_placeholder, looks_random};

/// Where the scanned data goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Writebacks, status and results: strict.
    Public,
    /// The goal's own local-private state file: paths, hosts and e-mails only warn.
    Local,
}

/// Each rule's pattern compiled in byte mode (`(?-u)`: ASCII classes and `\b`), once.
static REGEXES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    RULES.iter().map(|r| Regex::new(&format!("(?-u){}", r.pattern)).expect("static rule pattern")).collect()
});

static SECRET_NAME: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|accountkey|credential|auth)").expect("static regex")
});

fn secret_rule() -> &'static Rule {
    RULES.iter().find(|r| r.id == "secret_assignment").expect("secret_assignment rule")
}

/// Whether a byte belongs to the base64 alphabet (standard or URL-safe, padding excluded).
static B64: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        #[allow(clippy::cast_possible_truncation)]
        let b = i as u8;
        t[i] = b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'_' || b == b'-';
        i += 1;
    }
    t
};

/// Shortest base64 run that is decoded and scanned again, in bytes.
const B64_MIN_RUN: usize = 40;

/// Maximal runs of [`B64_MIN_RUN`] or more base64 characters, each with up to two `=` of
/// padding after it: `(start, end)` byte offsets, in order.
///
/// Probes every 40th byte: a run that long must cover the probe, so a probe on a byte
/// outside the alphabet skips 40 bytes at once, and one inside it costs only its own run.
fn base64_runs(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    // Invariant: every run ending before `i` is handled, and `i` is not inside a run.
    let mut i = 0;
    while let Some(&probe) = bytes.get(i + B64_MIN_RUN - 1) {
        let p = i + B64_MIN_RUN - 1;
        if !B64[usize::from(probe)] {
            i = p + 1;
            continue;
        }
        let mut start = p;
        while start > i && B64[usize::from(bytes[start - 1])] {
            start -= 1;
        }
        let mut end = p + 1;
        while end < bytes.len() && B64[usize::from(bytes[end])] {
            end += 1;
        }
        let run_end = end;
        while end < bytes.len() && bytes[end] == b'=' && end - run_end < 2 {
            end += 1;
        }
        if run_end - start >= B64_MIN_RUN {
            out.push((start, end));
        }
        i = end;
    }
    out
}

/// Decoded lines are handed on in batches of about this many bytes, so the decoded copy
/// stays small and in cache whatever the size of the text.
const PERCENT_BATCH: usize = 64 * 1024;

/// The lines of `text` that hold a `%XX` escape of a printable ASCII byte, decoded and
/// joined, handed to `f` in batches of at least `batch` bytes (the last may be shorter) with
/// the offset map of [`raw_offset`]. Lines are found from the `%` signs, so text without any
/// costs one `memchr`; a decoded line is copied a run at a time.
fn percent_batches(text: &str, batch: usize, mut f: impl FnMut(&str, &[(usize, usize)])) {
    let bytes = text.as_bytes();
    let mut decoded: Vec<u8> = Vec::new();
    let mut map = Vec::new();
    let mut flush = |decoded: &mut Vec<u8>, map: &mut Vec<(usize, usize)>| {
        // Only whole ASCII bytes were replaced by ASCII bytes, so the text is still UTF-8.
        if let Ok(d) = std::str::from_utf8(decoded) {
            f(d, map);
        }
        decoded.clear();
        map.clear();
    };
    let mut from = 0;
    while let Some(k) = memchr::memchr(b'%', &bytes[from..]) {
        let pct = from + k;
        if escape_at(bytes, pct).is_none() {
            from = pct + 1;
            continue;
        }
        let line_start = memchr::memrchr(b'\n', &bytes[..pct]).map_or(0, |i| i + 1);
        let line_end = memchr::memchr(b'\n', &bytes[pct..]).map_or(bytes.len(), |i| pct + i + 1);
        map.push((decoded.len(), line_start));
        let mut run = line_start;
        let mut at = pct;
        loop {
            if let Some(b) = escape_at(bytes, at) {
                decoded.extend_from_slice(&bytes[run..at]);
                map.push((decoded.len(), at));
                decoded.push(b);
                map.push((decoded.len(), at + 3));
                run = at + 3;
                at = run;
            } else {
                at += 1;
            }
            match memchr::memchr(b'%', &bytes[at.min(line_end)..line_end]) {
                Some(k) => at += k,
                None => break,
            }
        }
        decoded.extend_from_slice(&bytes[run..line_end]);
        if decoded.len() >= batch {
            flush(&mut decoded, &mut map);
        }
        from = line_end;
    }
    if !decoded.is_empty() {
        flush(&mut decoded, &mut map);
    }
}

/// All of [`percent_batches`] in one piece (`None` when no line has an escape).
#[cfg(test)]
fn percent_lines(text: &str) -> Option<(String, Vec<(usize, usize)>)> {
    let mut out: Option<(String, Vec<(usize, usize)>)> = None;
    percent_batches(text, usize::MAX, |d, m| out = Some((d.to_owned(), m.to_vec())));
    out
}

/// The byte a `%XX` escape at `at` stands for, when it is printable ASCII.
fn escape_at(bytes: &[u8], at: usize) -> Option<u8> {
    let h = bytes.get(at..at + 3)?;
    if h[0] != b'%' {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16);
    let b = (digit(h[1])? * 16 + digit(h[2])?) as u8;
    (0x20..0x7f).contains(&b).then_some(b)
}

/// Offset in the original text of byte `pos` of a [`percent_lines`] result. The map holds
/// `(decoded offset, original offset)` where the two stop running in step: at each line's
/// start and on either side of each decoded escape.
fn raw_offset(map: &[(usize, usize)], pos: usize) -> usize {
    let i = map.partition_point(|&(d, _)| d <= pos).saturating_sub(1);
    map.get(i).map_or(0, |&(d, r)| r + (pos - d))
}

/// One rule match before it becomes a [`Finding`]: byte offsets into the scanned text.
#[derive(Debug, Clone)]
struct Hit {
    rule: &'static Rule,
    start: usize,
    matched: String,
    note: &'static str,
}

/// `first4***last4`, or `***` for samples of 8 characters or fewer.
#[must_use]
pub fn mask(sample: &str) -> String {
    let chars: Vec<char> = sample.chars().collect();
    if chars.len() <= 8 {
        return "***".into();
    }
    let head: String = chars[..4].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}***{tail}")
}

fn severity(rule: &Rule, policy: Policy) -> &'static str {
    if policy == Policy::Public { rule.public } else { rule.local }
}

fn finding(hit: &Hit, location: String, policy: Policy) -> Finding {
    Finding {
        rule_id: hit.rule.id.into(),
        category: hit.rule.category.into(),
        severity: severity(hit.rule, policy).into(),
        location,
        sample_masked: mask(&hit.matched),
        reason: format!("{}{}", hit.rule.what, hit.note),
        fingerprint: format!(
            "{}:{}",
            hit.rule.id,
            &sha256_hex(format!("{}\0{}", hit.rule.id, hit.matched).as_bytes())[..16]
        ),
    }
}

/// Rule matches in `bytes`: each rule's regex runs only on the windows its gate gives
/// ([`prefilter`]).
fn raw_hits(bytes: &[u8]) -> Vec<Hit> {
    keep_evidence(matches_in_windows(bytes, &prefilter::windows(bytes)))
}

/// Every match of each rule's regex in its windows that passes the rule's check, before
/// the evidence thresholds of [`keep_evidence`].
fn matches_in_windows(bytes: &[u8], windows: &prefilter::Windows) -> Vec<Hit> {
    let regexes = &*REGEXES;
    let mut hits = Vec::new();
    for (i, rule) in RULES.iter().enumerate() {
        if windows[i].is_empty() {
            continue;
        }
        let re = &regexes[i];
        let mut found: Vec<Hit> = Vec::new();
        for &(ws, we) in &windows[i] {
            let window = &bytes[ws..we];
            for caps in re.captures_iter(window) {
                let Some(whole) = caps.get(0) else { continue };
                let value = (1..caps.len()).find_map(|g| caps.get(g)).unwrap_or(whole);
                let ok = match rule.check {
                    Check::Always | Check::AtLeastTwo | Check::AtLeastThree => true,
                    Check::NotPlaceholder => !is_reference_or_placeholder(&String::from_utf8_lossy(value.as_bytes())),
                    Check::Random => looks_random(&String::from_utf8_lossy(value.as_bytes())),
                };
                if ok {
                    let shown = if rule.id == "home_path" { value } else { whole };
                    found.push(Hit {
                        rule,
                        start: ws + shown.start(),
                        matched: String::from_utf8_lossy(shown.as_bytes()).into_owned(),
                        note: "",
                    });
                }
            }
        }
        hits.extend(found);
    }
    hits
}

/// Applies the multi-match rules' thresholds ([`Check::AtLeastTwo`], [`Check::AtLeastThree`])
/// over all of `hits`: such a rule is reported once, at its first match, when it matched
/// often enough; other hits pass unchanged.
fn keep_evidence(hits: Vec<Hit>) -> Vec<Hit> {
    let need = |r: &Rule| match r.check {
        Check::AtLeastTwo => 2,
        Check::AtLeastThree => 3,
        _ => 1,
    };
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for h in &hits {
        *counts.entry(h.rule.id).or_default() += 1;
    }
    let mut reported = std::collections::BTreeSet::new();
    hits.into_iter()
        .filter(|h| {
            let n = need(h.rule);
            n == 1 || (counts[h.rule.id] >= n && reported.insert(h.rule.id))
        })
        .collect()
}

/// Per-rule cost of [`raw_hits`] on `text`: `(rule id, windows, bytes in windows, µs)`,
/// slowest first; the first row is the prefilter. For the scan benchmark only.
#[doc(hidden)]
#[must_use]
pub fn profile_rules(text: &str) -> Vec<(&'static str, usize, usize, u128)> {
    let bytes = text.as_bytes();
    let regexes = &*REGEXES;
    let started = std::time::Instant::now();
    let windows = prefilter::windows(bytes);
    let mut out = vec![("(prefilter)", 0, bytes.len(), started.elapsed().as_micros())];
    for (i, ws) in windows.iter().enumerate() {
        let t = std::time::Instant::now();
        for &(a, b) in ws {
            let _ = regexes[i].captures_iter(&bytes[a..b]).count();
        }
        out.push((RULES[i].id, ws.len(), ws.iter().map(|(a, b)| b - a).sum(), t.elapsed().as_micros()));
    }
    out.sort_by_key(|e| std::cmp::Reverse(e.3));
    out
}

/// A rule match as `(rule id, start, matched)`.
#[doc(hidden)]
pub type MatchKey = (&'static str, usize, String);

/// The rule matches of [`raw_hits`] and of running every regex on every line, as
/// `(rule id, start, matched)` sets: the prefilter is exact when they are equal.
#[doc(hidden)]
#[must_use]
pub fn prefilter_vs_every_line(text: &str) -> (Vec<MatchKey>, Vec<MatchKey>) {
    let bytes = text.as_bytes();
    let key = |hits: Vec<Hit>| {
        let mut v: Vec<_> = hits.into_iter().map(|h| (h.rule.id, h.start, h.matched)).collect();
        v.sort();
        v
    };
    (key(raw_hits(bytes)), key(keep_evidence(matches_in_windows(bytes, &prefilter::windows_every_line(bytes)))))
}

/// Hits in `text`, plus hits in its percent-decoded form and in decoded base64 runs, with
/// offsets into `text`.
fn hits_with_decoding(text: &str) -> Vec<Hit> {
    hits_with_decoding_split(text, SPLIT)
}

/// [`hits_with_decoding`], splitting texts of `split` bytes or more.
fn hits_with_decoding_split(text: &str, split: usize) -> Vec<Hit> {
    let bytes = text.as_bytes();
    let mid = (text.len() >= split && *TWO_CORES)
        .then(|| memchr::memchr(b'\n', &bytes[text.len() / 2..]).map(|i| text.len() / 2 + i + 1))
        .flatten()
        .filter(|&m| m < text.len());
    let part = match mid {
        None => hits_in_part(text, 0, text.len()),
        Some(mid) => {
            let (first, mut second) = std::thread::scope(|s| {
                let first = s.spawn(|| hits_in_part(text, 0, mid));
                let second = hits_in_part(text, mid, text.len());
                match first.join() {
                    Ok(first) => (first, second),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            });
            let mut part = first;
            part.plain.append(&mut second.plain);
            part.percent.append(&mut second.percent);
            part.base64.append(&mut second.base64);
            part
        }
    };
    let mut hits = keep_evidence(distinct(part.plain));
    hits.extend(keep_evidence(distinct(part.percent)));
    hits.extend(part.base64);
    let mut seen = std::collections::BTreeSet::new();
    hits.retain(|h| seen.insert((h.rule.id, h.matched.clone())));
    hits
}

/// Whether the machine has a second core (asked once: the answer reads files under `/proc`
/// and `/sys`).
static TWO_CORES: LazyLock<bool> = LazyLock::new(|| std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2));

/// Texts of at least this many bytes are scanned in two halves (split at a line break) on
/// two threads when the machine has two cores.
const SPLIT: usize = 4 << 20;

/// Matches found in one part of a text, before the evidence thresholds.
struct PartHits {
    plain: Vec<Hit>,
    percent: Vec<Hit>,
    /// Already thresholded: each base64 run is its own text.
    base64: Vec<Hit>,
}

/// The matches whose candidates lie in `text[from..to]` (`from` at a line start, `to` at a
/// line start or the end): plain, percent-decoded and inside base64 runs, with offsets into
/// `text`.
fn hits_in_part(text: &str, from: usize, to: usize) -> PartHits {
    let bytes = text.as_bytes();
    let plain = matches_in_windows(bytes, &prefilter::windows_in(bytes, from, to));
    let mut percent = Vec::new();
    percent_batches(&text[from..to], PERCENT_BATCH, |decoded, map| {
        let d = decoded.as_bytes();
        let mut windows = prefilter::windows(d);
        // Decoded lines are joined whether or not they were neighbours, and batches and
        // halves cut between them: multi-line rules look at the plain text only.
        for (w, rule) in windows.iter_mut().zip(RULES) {
            if rules::extra_lines(rule) > 0 {
                w.clear();
            }
        }
        for mut h in matches_in_windows(d, &windows) {
            h.start = from + raw_offset(map, h.start);
            h.note = " (percent-encoded)";
            percent.push(h);
        }
    });
    let mut base64 = Vec::new();
    for (start, end) in base64_runs(&bytes[from..to]) {
        if let Some(decoded) = values::decode_base64_text(&bytes[from + start..from + end]) {
            for mut h in raw_hits(decoded.as_bytes()) {
                h.start = from + start;
                h.note = " (inside base64)";
                base64.push(h);
            }
        }
    }
    PartHits { plain, percent, base64 }
}

/// Drops repeated `(rule, start)` matches (a multi-line window of one part can reach into
/// the next).
fn distinct(mut hits: Vec<Hit>) -> Vec<Hit> {
    let mut seen = std::collections::BTreeSet::new();
    hits.retain(|h| seen.insert((h.rule.id, h.start)));
    hits
}

/// Scans one string found at `location` (a JSON pointer, or a label). Texts of 4 MiB or
/// more are scanned in two halves on two threads.
pub fn scan_text(text: &str, location: &str, policy: Policy, out: &mut Vec<Finding>) {
    for h in hits_with_decoding(text) {
        out.push(finding(&h, location.to_owned(), policy));
    }
}

/// [`scan_text`] on one thread whatever the size: for the scan benchmark.
#[doc(hidden)]
pub fn scan_text_one_thread(text: &str, location: &str, policy: Policy, out: &mut Vec<Finding>) {
    for h in hits_with_decoding_split(text, usize::MAX) {
        out.push(finding(&h, location.to_owned(), policy));
    }
}

/// Scans added lines (`(line number, text)`) as one text, so multi-line evidence (turns,
/// log runs, stack traces) is seen; locations are `line:column` of the proposed text.
pub fn scan_lines(lines: &[(usize, String)], policy: Policy, out: &mut Vec<Finding>) {
    let mut text = String::new();
    let mut starts = Vec::with_capacity(lines.len());
    for (n, l) in lines {
        starts.push((text.len(), *n));
        text.push_str(l);
        text.push('\n');
    }
    for h in hits_with_decoding(&text) {
        let idx = starts.partition_point(|(s, _)| *s <= h.start).saturating_sub(1);
        let (line_start, line_no) = starts.get(idx).copied().unwrap_or((0, 0));
        let col = text[line_start..h.start.max(line_start)].chars().count() + 1;
        out.push(finding(&h, format!("{line_no}:{col}"), policy));
    }
}

fn pointer_escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn is_forbidden_key(lower: &str) -> bool {
    let flag = lower.ends_with("_copied")
        || lower.ends_with("_recorded")
        || lower.ends_with("_authorized")
        || lower.ends_with("_granted");
    rules::FORBIDDEN_KEYS.contains(&lower)
        || (lower.starts_with("raw_") && !flag)
        || ["_token", "_secret", "_password", "_credential", "_credentials", "_cookie"]
            .iter()
            .any(|s| lower.ends_with(s))
}

fn structure(rule_id: &str, loc: String, sample: &str, reason: String) -> Finding {
    Finding {
        rule_id: rule_id.into(),
        category: if rule_id == "chat_message_array" { "transcripts" } else { "structure" }.into(),
        severity: "block".into(),
        fingerprint: format!("{rule_id}:{}", &sha256_hex(format!("{rule_id}\0{loc}").as_bytes())[..16]),
        location: loc,
        sample_masked: mask(sample),
        reason,
    }
}

/// Scans every key and string value of `value`; forbidden key names, `true` boundary flags
/// and message arrays with roles are findings too. Locations are JSON pointers.
pub fn scan_json(value: &Value, pointer: &str, policy: Policy, out: &mut Vec<Finding>) {
    match value {
        Value::String(s) => scan_text(s, pointer, policy, out),
        Value::Array(items) => {
            let turns = items
                .iter()
                .filter(|v| {
                    v.get("content").is_some()
                        && v.get("role")
                            .and_then(Value::as_str)
                            .is_some_and(|r| matches!(r, "user" | "assistant" | "system" | "tool"))
                })
                .count();
            if turns >= 2 {
                out.push(structure(
                    "chat_message_array",
                    pointer.to_owned(),
                    "role/content",
                    format!("an array of {turns} chat messages with roles"),
                ));
            }
            for (i, v) in items.iter().enumerate() {
                scan_json(v, &format!("{pointer}/{i}"), policy, out);
            }
            // Log lines, turns and stack frames split over array items are one text.
            let strings: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            if strings.len() >= 2 {
                let mut joined = Vec::new();
                scan_text(&strings.join("\n"), pointer, policy, &mut joined);
                for f in joined.into_iter().filter(|f| matches!(f.category.as_str(), "transcripts" | "raw_tool_output"))
                {
                    if !out.iter().any(|o| o.rule_id == f.rule_id && o.location.starts_with(pointer)) {
                        out.push(f);
                    }
                }
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                let loc = format!("{pointer}/{}", pointer_escape(k));
                let lower = k.to_lowercase();
                let value_text = v.as_str();
                let secret_named = SECRET_NAME.is_match(&lower);
                if secret_named && value_text.is_some_and(looks_random) {
                    // A secret-named field holding a random-looking literal: the value is a credential.
                    let hit = Hit {
                        rule: secret_rule(),
                        start: 0,
                        matched: value_text.unwrap_or_default().to_owned(),
                        note: " (JSON field)",
                    };
                    out.push(finding(&hit, loc.clone(), policy));
                }
                // A forbidden key is structure even when its value was redacted; only an
                // environment reference or a `<your-…>` template leaves it alone.
                if is_forbidden_key(&lower) && !value_text.is_some_and(values::is_reference_or_template) {
                    let shown = crate::textsafe::sanitize(k, false);
                    out.push(structure(
                        "forbidden_key",
                        loc.clone(),
                        k,
                        format!("key name {shown:?} carries raw or secret data"),
                    ));
                }
                let flag = lower.ends_with("_copied")
                    || lower.ends_with("_recorded")
                    || lower.ends_with("_authorized")
                    || lower.ends_with("_granted");
                if flag && v == &Value::Bool(true) {
                    let shown = crate::textsafe::sanitize(k, false);
                    out.push(structure(
                        "boundary_flag_true",
                        loc.clone(),
                        "true",
                        format!("boundary flag {shown} is true"),
                    ));
                }
                scan_text(k, &loc, policy, out);
                scan_json(v, &loc, policy, out);
            }
        }
        _ => {}
    }
}

/// Replaces every credential match in `text` — also inside percent-encoded metadata — with
/// its masked form; returns the text and how many were masked. Used on diffs and packets so
/// a preview never shows a full secret.
#[must_use]
pub fn mask_secrets(text: &str) -> (String, usize) {
    let mut n = 0;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (decoded, map) = values::decode_ascii_percent(line);
        if map.len() != decoded.len() {
            out.push_str(line);
            continue;
        }
        let mut spans: Vec<(usize, usize, String)> = Vec::new();
        for h in raw_hits(decoded.as_bytes())
            .into_iter()
            .filter(|h| h.rule.category == "credentials" && h.rule.public == "block")
        {
            let end_dec = h.start + h.matched.len();
            if end_dec == 0 || end_dec > map.len() {
                continue;
            }
            let (start, end) = (map[h.start].0, map[end_dec - 1].1);
            if !spans.iter().any(|(s, e, _)| start < *e && *s < end) {
                spans.push((start, end, mask(&h.matched)));
            }
        }
        spans.sort_by_key(|s| s.0);
        let mut last = 0;
        for (start, end, masked) in spans {
            if start < last {
                continue;
            }
            out.push_str(&line[last..start]);
            out.push_str(&masked);
            last = end;
            n += 1;
        }
        out.push_str(&line[last..]);
    }
    (out, n)
}

/// The rule table as Markdown (id, category, public / local severity, what it matches, a
/// hit and a miss) — `writegate scan --rules` and `docs/scan-rules.md`.
#[must_use]
pub fn rules_markdown() -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', "⏎");
    let mut out = String::from(
        "# writegate scan rules\n\nGenerated by `writegate scan --rules` from `src/scan/rules.rs`; a test keeps this file in step.\n\n| rule | category | public | local | matches | flags | leaves alone |\n|---|---|---|---|---|---|---|\n",
    );
    for r in RULES {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | `{}` | `{}` |\n",
            r.id,
            r.category,
            r.public,
            r.local,
            cell(r.what),
            cell(&mask_example(r.hit)),
            cell(r.miss)
        ));
    }
    out.push_str("| `forbidden_key` | structure | block | block | JSON keys that carry raw or secret data (`raw_*`, `*_token`, `password`, `secret`, `request_body`, `transcript`, …) unless the value is an environment reference or a `<your-…>` template | `{\"access_token\": \"x\"}` | `{\"token_count\": 3}` |\n");
    out.push_str("| `boundary_flag_true` | structure | block | block | a boundary flag (`*_copied`, `*_recorded`, `*_authorized`, `*_granted`) set to true | `{\"credentials_copied\": true}` | `{\"credentials_copied\": false}` |\n");
    out.push_str("| `chat_message_array` | transcripts | block | block | a JSON array with two or more `{role, content}` chat messages | `[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"yo\"}]` | `[{\"role\":\"agent\"}]` |\n");
    out.push_str("\nAllowed without a finding: environment-variable references (`$X`, `${X}`, `%X%`, `os.environ[…]`, `process.env.X`), placeholders (`<your-token>`, `example`, `redacted`, `changeme`, …), and writegate/LoopX ids (revisions, idempotency keys, write ids, todo ids, commit hashes). An operator-kept allowlist (`gate/allowlist.json`) can downgrade a finding by fingerprint; text inside a payload never allows itself.\n");
    out
}

/// Examples that are themselves secrets are shown masked in the docs.
fn mask_example(hit: &str) -> String {
    if hit.len() > 24 && !hit.contains('\n') && !hit.contains(' ') { mask(hit) } else { hit.to_owned() }
}

#[cfg(test)]
mod tests;
