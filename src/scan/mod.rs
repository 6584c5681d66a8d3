//! The boundary scan: what a write would put on disk or reflect — every JSON key and string
//! value (JSON escapes decoded by the parser, percent-encoding and long base64 runs decoded
//! here) and every line a change adds. Rules live in [`rules`]; severity follows the
//! destination policy (DESIGN.md §5). Byte-mode regexes run only on the line windows their
//! gate gives ([`prefilter`]: Teddy stems, byte and line-start gates); every automaton is
//! built once. Texts of 4 MiB or more are scanned in two halves on two threads. Pure.

mod blocks;
mod decode;
mod disguise;
mod dossier;
mod evidence;
pub mod invisible;
mod json;
mod json_records;
mod mask;
mod names;
mod nested_json;
pub mod prefilter;
mod prose_model;
pub mod rules;
mod secret_values;
mod tables;
mod values;

use crate::loopx::hash::sha256_hex;
use crate::wire::Finding;
use decode::{PERCENT_BATCH, base64_runs, percent_batches, raw_offset};
use evidence::{keep_evidence, matches_in_windows, matches_up_to, raw_hits};
pub use json::{scan_json, unreadable_document};
pub use mask::{Masker, key_body_lines, key_tails, mask_lines_into, mask_secrets, mask_unified};
use regex::bytes::Regex;
use rules::{RULES, Rule};
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

/// One slot per rule for its compiled regex, filled on first use: a process that scans a
/// few strings compiles only the rules whose literals occur in them (compiling all of them
/// was most of a `preview`'s scan).
static REGEXES: LazyLock<Vec<std::sync::OnceLock<Regex>>> =
    LazyLock::new(|| RULES.iter().map(|_| std::sync::OnceLock::new()).collect());

/// Rule `i`'s pattern compiled in byte mode (`(?-u)`: ASCII classes and `\b`), once per
/// process. Panics only when `i` is not a rule index or a static pattern does not compile
/// (a test compiles every one).
fn regex(i: usize) -> &'static Regex {
    REGEXES[i].get_or_init(|| Regex::new(&format!("(?-u){}", RULES[i].pattern)).expect("static rule pattern"))
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
    // Its ends only: a key's span can be a whole line of megabytes, masked once per match.
    if sample.chars().nth(8).is_none() {
        return "***".into();
    }
    let head: String = sample.chars().take(4).collect();
    let mut tail: Vec<char> = sample.chars().rev().take(4).collect();
    tail.reverse();
    format!("{head}***{}", tail.into_iter().collect::<String>())
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

/// Per-rule cost of [`raw_hits`] on `text`: `(rule id, windows, bytes in windows, µs)`,
/// slowest first; the first row is the prefilter. For the scan benchmark only.
#[doc(hidden)]
#[must_use]
pub fn profile_rules(text: &str) -> Vec<(&'static str, usize, usize, u128)> {
    let bytes = text.as_bytes();
    for i in 0..RULES.len() {
        regex(i); // compiled before the clock starts, as in a long-lived process
    }
    let started = std::time::Instant::now();
    let windows = prefilter::windows(bytes);
    let mut out = vec![("(prefilter)", 0, bytes.len(), started.elapsed().as_micros())];
    for (i, ws) in windows.iter().enumerate() {
        let t = std::time::Instant::now();
        for &(a, b) in ws {
            let _ = regex(i).captures_iter(&bytes[a..b]).count();
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
fn hits_with_decoding(text: &str) -> (Vec<Hit>, invisible::Census) {
    match decode::lone_cr_as_newline(text) {
        Some(lines) => hits_with_decoding_split(&lines, SPLIT, PIECE),
        None => hits_with_decoding_split(text, SPLIT, PIECE),
    }
}

/// [`hits_with_decoding`], splitting texts of `split` bytes or more, in pieces of about
/// `piece` bytes.
fn hits_with_decoding_split(text: &str, split: usize, piece: usize) -> (Vec<Hit>, invisible::Census) {
    let bytes = text.as_bytes();
    let mid = (text.len() >= split && *TWO_CORES)
        .then(|| memchr::memchr(b'\n', &bytes[text.len() / 2..]).map(|i| text.len() / 2 + i + 1))
        .flatten()
        .filter(|&m| m < text.len());
    let part = match mid {
        None => hits_in_part(text, 0, text.len(), piece),
        Some(mid) => {
            let (first, mut second) = std::thread::scope(|s| {
                let first = s.spawn(|| hits_in_part(text, 0, mid, piece));
                let second = hits_in_part(text, mid, text.len(), piece);
                match first.join() {
                    Ok(first) => (first, second),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            });
            let mut part = first;
            part.plain.append(&mut second.plain);
            prefilter::merge_into(&mut part.multi_line, second.multi_line);
            part.percent.append(&mut second.percent);
            part.base64.append(&mut second.base64);
            part.stretches.append(&mut second.stretches);
            part.census.absorb(second.census);
            part
        }
    };
    let mut plain = part.plain;
    plain.extend(matches_up_to(bytes, &part.multi_line, Some(&mut vec![0; RULES.len()])));
    let mut hits = keep_evidence(plain);
    hits.extend(keep_evidence(part.percent));
    hits.extend(part.base64);
    hits.extend(disguised_hits(text, part.stretches));
    dossier::drop_public_shapes(text, &mut hits);
    let documents = hits.iter().any(|h| h.rule.category == "private_documents");
    if documents && (dossier::is_template(text) || dossier::is_exercise(text)) {
        hits.retain(|h| h.rule.category != "private_documents");
    } else if !documents && let Some((start, matched)) = dossier::find(text) {
        hits.push(Hit { rule: &dossier::PRIVATE_PROSE, start, matched, note: "" });
    } else if !documents && let Some((start, matched)) = tables::find(text) {
        hits.push(Hit { rule: &tables::PEOPLE_TABLE, start, matched, note: "" });
    } else if !documents && let Some((start, matched)) = prose_model::find(text) {
        hits.push(Hit { rule: &prose_model::PRIVATE_PROSE_WEIGHED, start, matched, note: "" });
    }
    let mut seen = std::collections::BTreeSet::new();
    hits.retain(|h| seen.insert((h.rule.id, h.matched.clone())));
    (hits, part.census)
}

/// Matches on the lines of `text` that hold a disguise (`stretches`, from
/// [`disguise::stretches`]), each at the start of its line in `text`. Single-line rules
/// only: the lines are taken apart from their neighbours.
fn disguised_hits(text: &str, stretches: Vec<(usize, usize)>) -> Vec<Hit> {
    let Some((undone, map)) = disguise::undone(text, stretches) else { return Vec::new() };
    let d = undone.as_bytes();
    let mut windows = prefilter::windows(d);
    for (w, rule) in windows.iter_mut().zip(RULES.iter()) {
        if rules::extra_lines(rule) > 0 {
            w.clear();
        }
    }
    let mut hits = keep_evidence(matches_in_windows(d, &windows));
    for h in &mut hits {
        let i = map.partition_point(|&(u, _)| u <= h.start).saturating_sub(1);
        h.start = map.get(i).map_or(0, |&(_, line)| line);
        h.note = " (disguised: zero-width, fullwidth, look-alike letters, escaped, split into literals, reversed, ROT13 or wrapped)";
    }
    hits
}

/// Whether the machine has a second core (asked once: the answer reads files under `/proc`
/// and `/sys`).
static TWO_CORES: LazyLock<bool> = LazyLock::new(|| std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2));

/// Texts of at least this many bytes are scanned in two halves (split at a line break) on
/// two threads when the machine has two cores.
const SPLIT: usize = 4 << 20;

/// Bytes per piece of [`hits_in_part`]: small enough to stay in a core's L2 cache.
const PIECE: usize = 256 * 1024;

/// Matches found in one part of a text, before the evidence thresholds.
struct PartHits {
    plain: Vec<Hit>,
    /// Windows of the multi-line rules, whose regexes run once all parts are in: a window can
    /// reach into the next piece, and one pass over the merged windows is what a single pass
    /// over the text does.
    multi_line: prefilter::Windows,
    percent: Vec<Hit>,
    /// Already thresholded: each base64 run, and each run of character codes, is its own text.
    base64: Vec<Hit>,
    /// Per rule, the plain matches found so far ([`matches_up_to`]).
    counts: Vec<usize>,
    /// The lines holding a disguise ([`disguise::stretches`]).
    stretches: Vec<(usize, usize)>,
    /// The hidden characters ([`invisible::Census`]).
    census: invisible::Census,
}

/// The matches whose candidates lie in `text[from..to]` (`from` at a line start, `to` at a
/// line start or the end): plain, percent-decoded and inside base64 runs, with offsets into
/// `text`. Works through pieces of about `piece` bytes ending at line breaks, so every pass
/// over a piece after the first reads it from cache.
fn hits_in_part(text: &str, from: usize, to: usize, piece: usize) -> PartHits {
    let bytes = text.as_bytes();
    let mut part = PartHits {
        plain: Vec::new(),
        multi_line: Vec::new(),
        percent: Vec::new(),
        base64: Vec::new(),
        counts: vec![0; RULES.len()],
        stretches: Vec::new(),
        census: invisible::Census::default(),
    };
    let mut start = from;
    while start < to {
        let end = if to - start <= piece {
            to
        } else {
            memchr::memchr(b'\n', &bytes[start + piece..to]).map_or(to, |i| start + piece + i + 1)
        };
        hits_in_piece(text, start, end, &mut part);
        start = end;
    }
    part
}

/// [`hits_in_part`] for one piece, added to `part`.
fn hits_in_piece(text: &str, from: usize, to: usize, part: &mut PartHits) {
    let bytes = text.as_bytes();
    part.census.absorb(invisible::Census::of(text, from, to));
    part.stretches.extend(disguise::stretches(text, from, to));
    let mut windows = prefilter::windows_in(bytes, from, to);
    if !windows.is_empty() {
        let mut multi_line = vec![Vec::new(); windows.len()];
        for ((w, m), rule) in windows.iter_mut().zip(&mut multi_line).zip(RULES.iter()) {
            if rules::extra_lines(rule) > 0 {
                std::mem::swap(w, m);
            }
        }
        prefilter::merge_into(&mut part.multi_line, multi_line);
        part.plain.extend(matches_up_to(bytes, &windows, Some(&mut part.counts)));
    }
    let percent = &mut part.percent;
    percent_batches(&text[from..to], PERCENT_BATCH, |decoded, map| {
        let d = decoded.as_bytes();
        let mut windows = prefilter::windows(d);
        // Decoded lines are joined whether or not they were neighbours, and batches and
        // halves cut between them: multi-line rules look at the plain text only.
        for (w, rule) in windows.iter_mut().zip(RULES.iter()) {
            if rules::extra_lines(rule) > 0 {
                w.clear();
            }
        }
        for mut h in evidence::matches_in_decoded_lines(d, &windows) {
            h.start = from + raw_offset(map, h.start);
            h.note = " (percent-encoded or HTML-escaped)";
            percent.push(h);
        }
    });
    // Each run, then the runs an encoder wrapped over several lines, joined.
    let runs = base64_runs(&bytes[from..to]);
    let wrapped = decode::wrapped_runs(&bytes[from..to], &runs);
    let plain = runs.iter().map(|&(start, end)| (start, &bytes[from + start..from + end]));
    for (start, run) in plain.chain(wrapped.iter().map(|(start, joined)| (*start, &joined[..]))) {
        for mut h in run_hits(run, DECODE_DEPTH) {
            h.start = from + start;
            part.base64.push(h);
        }
    }
    for (start, _, spelt) in decode::char_code_runs(&bytes[from..to]) {
        for mut h in raw_hits(spelt.as_bytes()) {
            h.start = from + start;
            h.note = " (as character codes)";
            part.base64.push(h);
        }
    }
}

/// How many encodings deep a run is decoded: base64 of base64 (or of hex) is still read.
const DECODE_DEPTH: usize = 3;

/// The matches inside one base64 or hex run ([`decode::decode_run_text`]), and inside the
/// runs its decoded text holds (or the decoded text itself, when it is one short run:
/// [`decode::whole_run`]), `depth` layers down; each hit's `start` is left for the
/// caller to place.
fn run_hits(run: &[u8], depth: usize) -> Vec<Hit> {
    let Some((decoded, how)) = decode::decode_run_text(run) else { return Vec::new() };
    let d = decoded.as_bytes();
    let mut hits = raw_hits(d);
    for h in &mut hits {
        h.note = how;
    }
    if depth > 1 {
        for (start, end) in base64_runs(d).into_iter().chain(decode::whole_run(d)) {
            hits.extend(run_hits(&d[start..end], depth - 1));
        }
    }
    hits
}

/// Scans one string found at `location` (a JSON pointer, or a label). Texts of 4 MiB or
/// more are scanned in two halves on two threads.
///
/// Short texts found clean are remembered per thread ([`CLEAN_SHORT_TEXTS`]): item after
/// item repeats the same keys and values (`schema_version`, `preview_only`, …), and a text
/// that gave no finding gives none again (the scan is a function of the text; the location
/// and policy only shape findings).
pub fn scan_text(text: &str, location: &str, policy: Policy, out: &mut Vec<Finding>) {
    let short = text.len() <= CLEAN_TEXT_MAX_BYTES;
    if short && CLEAN_SHORT_TEXTS.with_borrow(|seen| seen.contains(text)) {
        return;
    }
    let before = out.len();
    let (hits, census) = hits_with_decoding(text);
    for h in hits {
        out.push(finding(&h, location.to_owned(), policy));
    }
    invisible::report(text, &census, &|_| location.to_owned(), out);
    nested_json::scan(text, location, policy, out, before);
    if short && out.len() == before {
        CLEAN_SHORT_TEXTS.with_borrow_mut(|seen| {
            if seen.len() >= CLEAN_TEXTS_KEPT {
                seen.clear();
            }
            seen.insert(text.into());
        });
    }
}

/// Texts up to this many bytes are remembered when clean.
const CLEAN_TEXT_MAX_BYTES: usize = 128;

/// At most this many clean texts are remembered per thread (then forgotten all at once):
/// at most about 1.5 MiB.
const CLEAN_TEXTS_KEPT: usize = 8192;

thread_local! {
    /// Short texts [`scan_text`] found clean on this thread.
    static CLEAN_SHORT_TEXTS: std::cell::RefCell<std::collections::HashSet<Box<str>>> =
        std::cell::RefCell::new(std::collections::HashSet::new());
}

/// [`scan_text`] on one thread whatever the size: for the scan benchmark.
#[doc(hidden)]
pub fn scan_text_one_thread(text: &str, location: &str, policy: Policy, out: &mut Vec<Finding>) {
    let (hits, census) = hits_with_decoding_split(text, usize::MAX, PIECE);
    for h in hits {
        out.push(finding(&h, location.to_owned(), policy));
    }
    invisible::report(text, &census, &|_| location.to_owned(), out);
}

/// Scans a whole document (a file `writegate scan` reads) in place: what [`scan_lines`] finds
/// on its lines, with the same `line:column` locations, without copying each line into a
/// `String` and joining them back (issue 16: that held the input four times over). A text
/// with `\r` goes through [`scan_lines`], which sees `\r\n` as a line break.
pub fn scan_document(text: &str, policy: Policy, out: &mut Vec<Finding>) {
    scan_document_known(text, memchr::memchr(b'\r', text.as_bytes()).is_some(), policy, out);
}

/// [`scan_document`] when the caller already knows whether `text` holds a `\r` (`has_cr`;
/// `writegate scan` learns it while reading the file, so the text is not swept once more).
pub fn scan_document_known(text: &str, has_cr: bool, policy: Policy, out: &mut Vec<Finding>) {
    if has_cr {
        let lines: Vec<(usize, String)> = text.lines().enumerate().map(|(i, l)| (i + 1, l.to_owned())).collect();
        scan_lines(&lines, policy, out);
        return;
    }
    let bytes = text.as_bytes();
    let before = out.len();
    // No `\r` at all (the caller looked): no bare one to read as a line break.
    let (hits, census) = hits_with_decoding_split(text, SPLIT, PIECE);
    // The line of every hit, from one sweep over the text up to the last of them.
    let mut offsets: Vec<usize> = hits.iter().map(|h| h.start).collect();
    offsets.sort_unstable();
    offsets.dedup();
    // The line and column of every hit, from one sweep: a hit's column counts on from the
    // previous hit's when both are on one line (counting each from its line's start cost
    // the line's length per hit: quadratic on a long line of findings).
    let mut known: Vec<(usize, usize, usize)> = Vec::with_capacity(offsets.len());
    let (mut from, mut line, mut col) = (0, 1, 1);
    for offset in offsets {
        let breaks = count_newlines(&bytes[from..offset]);
        if breaks > 0 {
            line += breaks;
            let line_start = memchr::memrchr(b'\n', &bytes[..offset]).map_or(0, |i| i + 1);
            col = column(text, line_start, offset);
        } else {
            // Columns count characters up to the one a hit starts in (see `column`).
            col += text[floor_char(text, from)..floor_char(text, offset)].chars().count();
        }
        known.push((offset, line, col));
        from = offset;
    }
    let at = |offset: usize| {
        if let Ok(i) = known.binary_search_by_key(&offset, |&(o, _, _)| o) {
            return format!("{}:{}", known[i].1, known[i].2);
        }
        let i = known.partition_point(|&(o, _, _)| o < offset);
        let (o, l, _) = i.checked_sub(1).map_or((0, 1, 1), |j| known[j]);
        let line = l + count_newlines(&bytes[o..offset]);
        let line_start = memchr::memrchr(b'\n', &bytes[..offset]).map_or(0, |i| i + 1);
        format!("{line}:{}", column(text, line_start, offset))
    };
    for h in hits {
        out.push(finding(&h, at(h.start), policy));
    }
    invisible::report(text, &census, &at, out);
    // A text that is a JSON document in a code fence or after a label (a chat array pasted
    // as Markdown) is read as the document too, at its first line.
    nested_json::scan(text, "1:1", policy, out, before);
}

/// The line breaks in `bytes` (`memchr`'s counting iterator counts with vector code: a
/// text's lines are counted once per scan, to place its findings).
fn count_newlines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

/// The 1-based column (in characters) of byte `offset` on the line starting at byte
/// `line_start` of `text`. A match may start on a UTF-8 continuation byte (a byte-mode class
/// before it took one): the column is then that of the character it starts in.
fn column(text: &str, line_start: usize, offset: usize) -> usize {
    text[line_start..floor_char(text, offset.max(line_start))].chars().count() + 1
}

/// The start of the character byte `offset` of `text` is in (`offset` itself on a
/// boundary; the text's end past it). `str::floor_char_boundary` is newer than the crate's
/// MSRV.
fn floor_char(text: &str, offset: usize) -> usize {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
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
    let at = |offset: usize| {
        let idx = starts.partition_point(|(s, _)| *s <= offset).saturating_sub(1);
        let (line_start, line_no) = starts.get(idx).copied().unwrap_or((0, 0));
        let col = column(&text, line_start, offset);
        format!("{line_no}:{col}")
    };
    let (hits, census) = hits_with_decoding(&text);
    for h in hits {
        out.push(finding(&h, at(h.start), policy));
    }
    invisible::report(&text, &census, &at, out);
}

/// The one function for every string that reaches a screen or a record (issue 12 case 3):
/// credentials masked ([`mask_secrets`]), then every hidden character made visible
/// ([`crate::textsafe::sanitize`]). `keep_newlines` keeps line breaks (multi-line text).
#[must_use]
pub fn shown(text: &str, keep_newlines: bool) -> String {
    crate::textsafe::sanitize(&mask_secrets(text).0, keep_newlines)
}

/// `value` with every string in it (keys too) passed through [`mask_secrets`]: for JSON
/// documents that quote what they found (conflict details, holder records).
#[must_use]
pub fn mask_json(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(s) => Value::String(mask_secrets(s).0),
        Value::Array(a) => Value::Array(a.iter().map(mask_json).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (mask_secrets(k).0, mask_json(v))).collect()),
        other => other.clone(),
    }
}

/// The rule table as Markdown (id, category, public / local severity, what it matches, a
/// hit and a miss) — `writegate scan --rules` and `docs/scan-rules.md`.
#[must_use]
pub fn rules_markdown() -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', "⏎");
    let mut out = String::from(
        "# writegate scan rules\n\nGenerated by `writegate scan --rules` from `src/scan/rules.rs`; a test keeps this file in step.\n\n| rule | category | public | local | matches | flags | leaves alone |\n|---|---|---|---|---|---|---|\n",
    );
    for r in RULES.iter().chain([&dossier::PRIVATE_PROSE, &tables::PEOPLE_TABLE, &prose_model::PRIVATE_PROSE_WEIGHED]) {
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
    out.push_str("| `forbidden_key` | structure | block | block | JSON keys that carry raw or secret data (`raw_*`, `*_token`, `password`, `secret`, `request_body`, `transcript`, …) unless there is no value (`null`, `\"\"`) or the value is an environment reference, a `<your-…>` template, a field or cookie name, or a provider's published example key | `{\"access_token\": \"x\"}` | `{\"token_count\": 3}` |\n");
    out.push_str("| `captured_output` | raw_tool_output | block | block | a key that holds what a tool printed (`stdout`, `stderr`, `output`, `*_output`, `log`, `build_log`, `observation`, …) with four or more non-blank lines | `{\"stdout\": \"a\\nb\\nc\\nd\"}` | `{\"decision_log\": \"a\\nb\\nc\\nd\"}` |\n");
    out.push_str("| `pay_records` | private_documents | block | block | a JSON array of three or more records naming a person beside a number under a pay key (`salary`, `base`, `bonus`, `pay`, …) | `[{\"name\":\"Ana Ruiz\",\"salary\":98000}, …]` | `[{\"name\":\"api\",\"replicas\":3}]` |\n");
    out.push_str("| `log_records` | raw_tool_output | block | block | a JSON array of three or more log records, each with a level (`error`, `WARN`, …), a time and a message (or a time and a log line opening with its date; Kubernetes events; `go test -json` events) | `[{\"ts\":\"…\",\"level\":\"error\",\"msg\":\"timeout\"}, …]` | `[{\"level\":\"senior\",\"name\":\"Ana\"}]` |\n");
    out.push_str("| `stack_frames` | raw_tool_output | block | block | a JSON array of two or more stack frames, each with a file, a line number and a function (an error tracker's event) | `[{\"filename\":\"app.php\",\"lineno\":31,\"function\":\"main\"}, …]` | `[{\"file\":\"a.md\",\"title\":\"A\"}]` |\n");
    out.push_str("| `lint_diagnostics` | raw_tool_output | block | block | a JSON array of two or more diagnostics of a linter (a message, a line and a column, a rule id or a severity each: ESLint's JSON output) | `[{\"ruleId\":\"no-unused-vars\",\"message\":\"…\",\"line\":63,\"column\":9}, …]` | `[{\"message\":\"hi\",\"line\":\"a\"}]` |\n");
    out.push_str("| `cluster_events` | raw_tool_output | block | block | a JSON array of two or more Kubernetes events (a reason, a message and the object each: `kubectl get events -o json`) | `[{\"reason\":\"Unhealthy\",\"message\":\"…\",\"involvedObject\":{…}}, …]` | `[{\"reason\":\"x\"}]` |\n");
    out.push_str("| `test_results` | raw_tool_output | block | block | a JSON array holding a failed test result with its output of three or more lines (Jest's `testResults`, `failureMessages`) | `[{\"status\":\"failed\",\"failureMessages\":[\"Error: …\\n…\\n…\"]}]` | `[{\"status\":\"failed\",\"message\":\"3 tests failed\"}]` |\n");
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
mod eighth_round_tests;
#[cfg(test)]
mod eleventh_round_tests;
#[cfg(test)]
mod fifteenth_round_tests;
#[cfg(test)]
mod fourteenth_round_tests;
#[cfg(test)]
mod mask_tests;
#[cfg(test)]
mod ninth_round_tests;
#[cfg(test)]
mod second_pass_tests;
#[cfg(test)]
mod seventh_round_tests;
#[cfg(test)]
mod tenth_round_tests;
#[cfg(test)]
mod test_pieces;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod thirteenth_round_tests;
#[cfg(test)]
mod twelfth_round_tests;
