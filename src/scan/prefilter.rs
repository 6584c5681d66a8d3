//! Where each rule could match: the line windows its regex must run on.
//!
//! The text is taken in chunks of about 64 KiB that end at a line break, so every pass over a
//! chunk after the first reads it from cache. Per chunk:
//! - one Teddy (SIMD) search over a lower-cased copy finds the [`STEMS`]; each stem hit is
//!   checked against the full literals that contain it, then against the rule's
//!   [`After`] and [`rules::word_start`] conditions, all on a few bytes;
//! - `memchr` finds the rare bytes the other gates start from (`/` `\` `@` `.` `A` `S` `:` `~`);
//! - the line breaks give every line's first bytes to the [`Gate::LineHead`] rules.
//!
//! Every gate is a necessary condition of its rule's pattern (the `scan::tests`
//! `prefilter_is_exact_*` tests compare with running every regex on every line, and a
//! multi-line rule's regex on the whole text), so the prefilter changes speed, never
//! findings. Automata are built once.

use super::rules::{self, After, Gate, RULES};
use aho_corasick::{AhoCorasick, MatchKind, packed};
use memchr::memmem;
use std::sync::LazyLock;

mod char_gates;
mod heads;
mod stems;
use char_gates::byte_gates;
use heads::line_heads;

/// Chunk size in bytes; a chunk runs on to the end of its line.
const CHUNK: usize = 64 * 1024;

/// Stems per Teddy searcher: Teddy takes at most 128 patterns, and slows as its buckets fill.
const TEDDY_GROUP: usize = 40;

pub use stems::STEMS;

/// One literal of a literal-gated rule, lower case, with the stem it is found by.
struct Lit {
    text: Vec<u8>,
    /// Where the stem sits inside `text`.
    offset: usize,
    rule: usize,
    after: After,
    word_start: bool,
}

struct Compiled {
    /// Teddy searchers over groups of at most [`TEDDY_GROUP`] stems, each with the global
    /// index of its stems; `None` where Teddy cannot run (or a group would not build).
    teddy: Option<Vec<(packed::Searcher, Vec<usize>)>>,
    /// The same stems, for machines without Teddy's vector instructions.
    fallback: AhoCorasick,
    /// Stem index → the literals found through it.
    by_stem: Vec<Vec<Lit>>,
    /// First byte (lower case) → the [`Gate::SectionHead`] literals starting with it, lower
    /// case, with their rule index.
    section_heads: Vec<Vec<(Vec<u8>, usize)>>,
    /// Rule indexes of the byte and line-start gates.
    rules: Rules,
}

/// The rule index of each rule id a byte gate serves (`usize::MAX` when absent).
struct Rules {
    home: usize,
    windows_home: usize,
    wsl: usize,
    tilde: usize,
    home_folder: usize,
    android: usize,
    system: usize,
    email: usize,
    url_password: usize,
    private_ip: usize,
    private_ipv6: usize,
    internal_host: usize,
    aws: usize,
    google: usize,
    aklt: usize,
    twilio: usize,
    sendgrid: usize,
    turns: usize,
    session_log: usize,
    timestamped: usize,
    stack: usize,
    shell: usize,
    unc: usize,
    unc_slash: usize,
    tilde_user: usize,
    tilde_named: usize,
    user_temp: usize,
    chat_log: usize,
    syslog: usize,
    tagged: usize,
    ndjson: usize,
    powershell: usize,
    email_headers: usize,
    contract_clauses: usize,
    chat_export: usize,
    named_turns: usize,
    chat_columns: usize,
    court: usize,
    ops_run: usize,
    irc_turns: usize,
    dated_chat: usize,
    strace: usize,
    autogen_console: usize,
    telegram: usize,
    compose: usize,
    provider_token: usize,
}

fn rule_index(id: &str) -> usize {
    RULES.iter().position(|r| r.id == id).unwrap_or(usize::MAX)
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| compile(true));

/// The Teddy searchers over the stems, by kind: Teddy checks as many leading bytes as its
/// group's shortest stem has (up to 4), so 3-byte stems go together; stems that are not ASCII
/// start with the lead bytes of CJK text and go together; the rest in groups of
/// [`TEDDY_GROUP`]. `None` where Teddy cannot run or a group would not build.
fn teddy_groups() -> Option<Vec<(packed::Searcher, Vec<usize>)>> {
    let kind = |k: usize| {
        let s = STEMS[k];
        (if s.is_ascii() { usize::from(s.len() >= 4) } else { 2 }, k)
    };
    let mut ids: Vec<usize> = (0..STEMS.len()).collect();
    ids.sort_by_key(|&k| kind(k));
    let groups: Vec<Vec<usize>> = ids
        .chunk_by(|&a, &b| kind(a).0 == kind(b).0)
        .flat_map(|same| same.chunks(TEDDY_GROUP).map(<[usize]>::to_vec))
        .collect();
    groups
        .into_iter()
        .map(|group| {
            packed::Config::new()
                .match_kind(packed::MatchKind::LeftmostFirst)
                .heuristic_pattern_limits(false)
                .builder()
                .extend(group.iter().map(|&k| STEMS[k]))
                .build()
                .map(|t| (t, group))
        })
        .collect::<Option<Vec<_>>>()
}

/// The gates' automata and tables; `with_teddy: false` leaves out the vector search, as on a
/// machine without it (the fallback is tested against it).
fn compile(with_teddy: bool) -> Compiled {
    let mut by_stem: Vec<Vec<Lit>> = STEMS.iter().map(|_| Vec::new()).collect();
    let mut section_heads: Vec<Vec<(Vec<u8>, usize)>> = vec![Vec::new(); 256];
    for (i, r) in RULES.iter().enumerate() {
        if rules::gate(r) == Gate::SectionHead {
            for l in r.literals {
                let text = l.to_ascii_lowercase().into_bytes();
                section_heads[usize::from(text[0])].push((text, i));
            }
        }
        if rules::gate(r) != Gate::Literals {
            continue;
        }
        for l in r.literals {
            let text = l.to_ascii_lowercase().into_bytes();
            let found = STEMS.iter().enumerate().find_map(|(k, s)| memmem::find(&text, s.as_bytes()).map(|o| (k, o)));
            let (k, offset) = found.expect(
                "every literal contains a stem (scan::tests::every_literal_has_a_stem_and_stems_are_not_prefixes)",
            );
            by_stem[k].push(Lit { text, offset, rule: i, after: rules::after(r), word_start: rules::word_start(r) });
        }
    }
    let teddy = with_teddy.then(teddy_groups).flatten();
    let fallback =
        AhoCorasick::builder().match_kind(MatchKind::LeftmostFirst).build(STEMS).expect("static stems build");
    let rules = Rules {
        home: rule_index("home_path"),
        windows_home: rule_index("windows_home_path"),
        wsl: rule_index("wsl_home_path"),
        tilde: rule_index("tilde_path"),
        home_folder: rule_index("home_folder_path"),
        android: rule_index("android_user_path"),
        system: rule_index("system_path"),
        email: rule_index("email"),
        url_password: rule_index("url_password"),
        private_ip: rule_index("private_ip"),
        private_ipv6: rule_index("private_ipv6"),
        internal_host: rule_index("internal_host"),
        aws: rule_index("aws_access_key_id"),
        google: rule_index("google_api_key"),
        aklt: rule_index("aklt_access_key"),
        twilio: rule_index("twilio_key"),
        sendgrid: rule_index("sendgrid_key"),
        turns: rule_index("transcript_turns"),
        session_log: rule_index("session_log"),
        timestamped: rule_index("timestamped_log"),
        stack: rule_index("stack_trace"),
        shell: rule_index("shell_session"),
        unc: rule_index("unc_path"),
        unc_slash: rule_index("unc_slash_path"),
        tilde_user: rule_index("tilde_user_path"),
        tilde_named: rule_index("tilde_user"),
        user_temp: rule_index("user_temp_path"),
        chat_log: rule_index("chat_log"),
        syslog: rule_index("syslog_lines"),
        tagged: rule_index("tagged_progress_lines"),
        ndjson: rule_index("ndjson_log"),
        powershell: rule_index("powershell_session"),
        email_headers: rule_index("email_headers"),
        contract_clauses: rule_index("contract_clauses"),
        chat_export: rule_index("chat_export"),
        named_turns: rule_index("named_turns"),
        chat_columns: rule_index("chat_columns"),
        court: rule_index("court_turns"),
        ops_run: rule_index("ops_run_output"),
        telegram: rule_index("telegram_bot_token"),
        compose: rule_index("compose_log_lines"),
        autogen_console: rule_index("autogen_console"),
        irc_turns: rule_index("irc_turns"),
        dated_chat: rule_index("dated_chat_log"),
        strace: rule_index("strace_lines"),
        provider_token: rule_index("provider_token"),
    };
    Compiled { teddy, fallback, by_stem, section_heads, rules }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `\s` of a byte-mode regex, without the line break (windows never span one for these rules).
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

fn after_holds(after: After, rest: &[u8]) -> bool {
    match after {
        After::Any => true,
        After::Blank => rest.first().copied().is_some_and(is_blank),
        After::Assign(ops) => {
            // The patterns' `\\?["']?\]?`: an escaping backslash, a quote, an array slot's
            // `]`, each optional.
            let mut i = usize::from(rest.first() == Some(&b'\\'));
            i += usize::from(matches!(rest.get(i), Some(b'"' | b'\'')));
            i += usize::from(rest.get(i) == Some(&b']'));
            while rest.get(i).copied().is_some_and(is_blank) {
                i += 1;
            }
            rest.get(i).is_some_and(|b| ops.contains(b))
        }
    }
}

/// Per-rule windows `(start, end)`: byte ranges of whole lines (end excludes the line
/// break), in order, merged when they overlap. Indexed like [`RULES`]; it may be shorter
/// (empty when nothing is a candidate: most strings of an item are), and a rule past its
/// end has no window.
pub type Windows = Vec<Vec<(usize, usize)>>;

/// Merges the windows of consecutive pieces of one text (each in order, pieces in order),
/// as one pass over the whole text would have merged them.
pub fn merge_into(into: &mut Windows, piece: Windows) {
    if into.len() < piece.len() {
        into.resize_with(piece.len(), Vec::new);
    }
    for (ws, more) in into.iter_mut().zip(piece) {
        for (start, end) in more {
            match ws.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => ws.push((start, end)),
            }
        }
    }
}

struct Collector<'a> {
    bytes: &'a [u8],
    windows: Windows,
    /// The line the line-start gates are looking at, `(start, end)` with `end` at its line
    /// break or the end of `bytes`: candidates in it need no search for its bounds.
    line: (usize, usize),
    /// The bounds of the line of the last candidate found outside [`Collector::line`]: the
    /// next candidates in the same line (a long line holds many) need no search for them.
    found: (usize, usize),
    /// Per multi-line rule, the start of the line whose reach its window last took in: a
    /// later candidate in the same line has the same reach (without this, every candidate
    /// of a long line searched for its reach again: quadratic in the line's length).
    reach_from: Vec<usize>,
}

/// [`rules::extra_lines`] of each rule, looked up by index.
static EXTRA_LINES: LazyLock<Vec<usize>> = LazyLock::new(|| RULES.iter().map(rules::extra_lines).collect());

/// No line: [`Collector::line`] before the line-start gates run.
const NO_LINE: (usize, usize) = (usize::MAX, 0);

impl Collector<'_> {
    /// Records that `rule` may match on the line holding byte `pos`: a window from that line's
    /// start to the end of the line, or of the last line a multi-line rule's match from there
    /// can reach ([`rules::extra_lines`]).
    fn add(&mut self, rule: usize, pos: usize) {
        if self.windows.is_empty() {
            self.windows.resize_with(RULES.len(), Vec::new);
            self.reach_from = vec![usize::MAX; RULES.len()];
        }
        let Some(ws) = self.windows.get_mut(rule) else { return };
        let extra = EXTRA_LINES[rule];
        // A single-line rule's window already covers the whole line of a later candidate in
        // it; a multi-line rule's must grow to that candidate's reach.
        if extra == 0 && ws.last().is_some_and(|&(_, e)| pos < e) {
            return;
        }
        let bytes = self.bytes;
        let (start, mut end) = if (self.line.0..=self.line.1).contains(&pos) {
            self.line
        } else if (self.found.0..=self.found.1).contains(&pos) {
            self.found
        } else {
            self.found = (
                memchr::memrchr(b'\n', &bytes[..pos]).map_or(0, |i| i + 1),
                memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i),
            );
            self.found
        };
        if extra > 0 {
            if self.reach_from[rule] == start {
                return;
            }
            self.reach_from[rule] = start;
        }
        for _ in 0..extra {
            if end >= bytes.len() {
                break;
            }
            end = memchr::memchr(b'\n', &bytes[end + 1..]).map_or(bytes.len(), |i| end + 1 + i);
        }
        match ws.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => ws.push((start, end)),
        }
    }
}

/// The windows of every rule over `bytes`.
#[must_use]
pub fn windows(bytes: &[u8]) -> Windows {
    let mut w = windows_in(bytes, 0, bytes.len());
    w.resize_with(RULES.len(), Vec::new);
    w
}

/// The windows of the candidates in `bytes[from..end]` (`from` at a line start), empty
/// when there is none. A multi-line rule's window may run past `end`.
#[must_use]
pub fn windows_in(bytes: &[u8], from: usize, end: usize) -> Windows {
    windows_with(&COMPILED, bytes, from, end)
}

fn windows_with(c: &Compiled, bytes: &[u8], from: usize, end: usize) -> Windows {
    let mut col = Collector { bytes, windows: Vec::new(), line: NO_LINE, found: NO_LINE, reach_from: Vec::new() };
    let mut folded = Vec::with_capacity((end - from).min(CHUNK + 4096));
    let mut from = from;
    while from < end {
        let to = if end - from <= CHUNK {
            end
        } else {
            memchr::memchr(b'\n', &bytes[from + CHUNK..end]).map_or(end, |i| from + CHUNK + i + 1)
        };
        folded.clear();
        folded.extend(bytes[from..to].iter().map(u8::to_ascii_lowercase));
        stems(c, &folded, from, &mut col);
        byte_gates(&c.rules, bytes, from, to, &mut col);
        run_gate(&c.rules, bytes, from, to, &mut col);
        line_heads(c, bytes, from, to, &mut col);
        from = to;
    }
    col.windows
}

/// The [`Gate::Run`] gate over `bytes[from..to]`: each run of base64-alphabet characters
/// holding a whole aligned block of them ([`super::decode::alphabet_runs`]; a run of 31 or
/// more always does) makes its line a candidate.
fn run_gate(r: &Rules, bytes: &[u8], from: usize, to: usize, col: &mut Collector) {
    super::decode::alphabet_runs(&bytes[from..to], |start, end| {
        col.add(r.provider_token, from + start);
        end
    });
}

/// The literal gate over one lower-cased chunk that starts at `base`.
fn stems(c: &Compiled, folded: &[u8], base: usize, col: &mut Collector) {
    let mut found: Vec<(usize, usize)> = Vec::new();
    if let Some(groups) = &c.teddy {
        for (t, ids) in groups {
            let mut at = 0;
            while let Some(m) = t.find_in(folded, aho_corasick::Span::from(at..folded.len())) {
                found.push((m.start(), ids[m.pattern().as_usize()]));
                at = m.start() + 1;
            }
        }
        // Windows are built in text order, rule by rule.
        found.sort_unstable();
    } else {
        let mut at = 0;
        while let Some(m) = c.fallback.find(aho_corasick::Input::new(folded).span(at..folded.len())) {
            found.push((m.start(), m.pattern().as_usize()));
            at = m.start() + 1;
        }
    }
    for (s, stem) in found {
        for lit in &c.by_stem[stem] {
            let Some(start) = s.checked_sub(lit.offset) else { continue };
            let end = start + lit.text.len();
            if folded.get(start..end) != Some(&lit.text[..])
                || (lit.word_start && start > 0 && is_word(folded[start - 1]))
                || !after_holds(lit.after, &folded[end..])
            {
                continue;
            }
            col.add(lit.rule, base + start);
        }
    }
}

/// Windows as if every line were a candidate for every rule: the reference the prefilter
/// must agree with. For tests and the scan benchmark.
#[doc(hidden)]
#[must_use]
pub fn windows_every_line(bytes: &[u8]) -> Windows {
    let mut col = Collector { bytes, windows: Vec::new(), line: NO_LINE, found: NO_LINE, reach_from: Vec::new() };
    let mut start = 0;
    loop {
        for r in 0..RULES.len() {
            col.add(r, start);
        }
        match memchr::memchr(b'\n', &bytes[start..]) {
            Some(k) if start + k + 1 < bytes.len() => start += k + 1,
            _ => break,
        }
    }
    col.windows
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Machines without Teddy's vector instructions search the stems with Aho-Corasick; both
    /// must give the same windows.
    #[test]
    fn fallback_search_gives_the_windows_teddy_gives() {
        let fallback = compile(false);
        assert!(fallback.teddy.is_none());
        // Where Teddy can run, every group must build: a group past Teddy's pattern limit
        // silently fell back to Aho-Corasick once and halved the scan's speed.
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("ssse3") {
            assert!(COMPILED.teddy.is_some(), "a Teddy group failed to build: see TEDDY_GROUP");
        }
        if COMPILED.teddy.is_none() {
            eprintln!("Teddy is not available here: only the fallback was exercised");
        }
        let corpus = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/scan_corpus/cases.jsonl"))
            .expect("corpus");
        let mut texts: Vec<String> = RULES.iter().flat_map(|r| [r.hit.to_owned(), r.miss.to_owned()]).collect();
        texts.push(corpus.clone());
        texts.extend(corpus.lines().map(str::to_owned));
        let mut hits = 0;
        for t in &texts {
            let b = t.as_bytes();
            let teddy = windows_with(&COMPILED, b, 0, b.len());
            assert_eq!(windows_with(&fallback, b, 0, b.len()), teddy, "on {t:?}");
            hits += teddy.iter().filter(|w| !w.is_empty()).count();
        }
        assert!(hits > 100, "the texts exercise the gates ({hits} rule windows)");
    }
}
