//! Running the rules' regexes on the windows the prefilter gives, and the evidence a match
//! needs before it is reported: a value check per rule ([`Check`]), published examples and
//! filler tokens left alone, and multi-match thresholds (two or three matches, speakers).

use super::rules::{self, Check, RULES, Rule};
use super::{Hit, is_reference_or_placeholder, looks_random, prefilter, regex, secret_values, values};

#[path = "evidence_checks.rs"]
mod checks;

/// Rule matches in `bytes`: each rule's regex runs only on the windows its gate gives
/// ([`prefilter`]).
pub(super) fn raw_hits(bytes: &[u8]) -> Vec<Hit> {
    keep_evidence(matches_in_windows(bytes, &prefilter::windows(bytes)))
}

/// Whether [`super::mask`] masks what a rule matches: a credential that blocks.
pub(super) fn is_masked(rule: &Rule) -> bool {
    rule.category == "credentials" && rule.public == "block"
}

/// The hits of [`raw_hits`] whose rule is masked ([`is_masked`]), in the same order: the
/// other rules' windows are dropped before any of their patterns is compiled or run (a diff
/// shown with masks paid for every rule's pattern on its lines). The same hits, since a
/// rule's hits depend on its own matches only ([`keep_evidence`] counts rule by rule).
pub(super) fn masked_hits(bytes: &[u8]) -> Vec<Hit> {
    let mut windows = prefilter::windows(bytes);
    for (rule, w) in RULES.iter().zip(windows.iter_mut()) {
        if !is_masked(rule) {
            w.clear();
        }
    }
    keep_evidence(matches_in_windows(bytes, &windows))
}

/// Every match of each rule's regex in its windows that passes the rule's check, before
/// the evidence thresholds of [`keep_evidence`].
pub(super) fn matches_in_windows(bytes: &[u8], windows: &prefilter::Windows) -> Vec<Hit> {
    matches_up_to(bytes, windows, None)
}

/// [`matches_in_windows`] on lines that are not neighbours (percent-decoded lines, joined
/// from anywhere in a text and cut into batches): a key's body is looked for on the
/// marker's own line only ([`Check::KeyBody`]), so a batch's cut changes no answer.
pub(super) fn matches_in_decoded_lines(bytes: &[u8], windows: &prefilter::Windows) -> Vec<Hit> {
    matches_up_to_in(bytes, windows, None, true)
}

/// A credential match that is, or whose captured value is, a published documentation example
/// (`Authorization: Bearer <the jwt.io example>`, `AccountKey=<the Azurite key>`), or a
/// fixed-prefix token (a [`Check::Always`] rule with literals) whose body is filler
/// ([`values::is_filler_token`]), or `Basic` credentials that are a template's words in
/// base64 ([`values::is_placeholder_basic_auth`]).
pub(super) fn is_example_or_filler(rule: &Rule, matched: &[u8], value: &[u8]) -> bool {
    let m = String::from_utf8_lossy(matched);
    values::is_documentation_example(&m)
        || values::is_documentation_example(&String::from_utf8_lossy(value))
        || m.rsplit([' ', '=', ':', '"', '\'']).next().is_some_and(values::is_documentation_example)
        || (matches!(rule.check, Check::Always | Check::KeyBody)
            && !rule.literals.is_empty()
            && values::is_filler_token(&m))
        || values::is_placeholder_basic_auth(&m)
}

/// Whether the host name matched at `at`, with the labels that follow it, ends in a name
/// reserved for documentation and tests (RFC 2606: the `.example`, `.test` and `.invalid`
/// top-level names and `example.com`, `.net`, `.org`): `pg-01.int.acme.example` names no
/// real network.
fn is_documentation_host(bytes: &[u8], at: (usize, usize)) -> bool {
    const RESERVED: &[&[u8]] = &[b".example", b".test", b".invalid", b".example.com", b".example.net", b".example.org"];
    let rest = &bytes[at.1..];
    let len = rest.iter().position(|&b| !(b.is_ascii_alphanumeric() || b == b'.' || b == b'-')).unwrap_or(rest.len());
    let host = bytes[at.0..at.1 + len].to_ascii_lowercase();
    let host = host.strip_suffix(b".").unwrap_or(&host);
    RESERVED.iter().any(|r| host.ends_with(r))
}

/// Whether a private address that ends at `end` is a network in CIDR notation
/// (`10.96.0.0/12`, `10.244.0.0/16`: a range, such as a cluster's documented default, not a
/// host): it ends in `.0` (IPv4) or `::` (IPv6, `fd00::/8`) and a `/` with a prefix length
/// follows.
fn is_cidr_network(bytes: &[u8], end: usize) -> bool {
    (bytes[..end].ends_with(b".0") || bytes[..end].ends_with(b"::"))
        && bytes.get(end) == Some(&b'/')
        && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)
}

/// Line breaks as a one-line key writes them between its lines: JSON or shell escapes
/// (`\n`, doubled `\\n`, `\u000a`), URL encoding (`%0A`), HTML (`&#10;`, `&#xA;`, `<br>`).
const ESCAPED_BREAKS: &[&[u8]] = &[
    b"\\r\\n",
    b"\\n",
    b"\\\\r\\\\n",
    b"\\\\n",
    b"%0D%0A",
    b"%0d%0a",
    b"%0A",
    b"%0a",
    b"\\u000d\\u000a",
    b"\\u000D\\u000A",
    b"\\u000a",
    b"\\u000A",
    b"&#13;&#10;",
    b"&#10;",
    b"&#xA;",
    b"&#xa;",
    b"&#x0A;",
    b"&#x0a;",
    b"<br>",
    b"<br/>",
    b"<br />",
    b"<BR>",
];

/// Whether a key's body follows a `-----BEGIN … PRIVATE KEY-----` marker (`after` is the
/// text after it): after blanks and line breaks (written, or escaped: [`ESCAPED_BREAKS`], a
/// JSON string, a one-line key, a URL-encoded or HTML one; PGP armour leaves a blank line),
/// a header line (`Proc-Type: …`, `Version: …`, `Comment: …`) or a run of 16 or more base64
/// characters, or nothing (the text ends); or, a line or two of words after the marker, a
/// line of 40 or more base64 characters (in quotes too, as a line of an array of strings).
/// A sentence naming the marker (`starts with -----BEGIN … KEY----- and ends with …`)
/// carries no key.
fn key_body_follows(after: &[u8]) -> bool {
    let mut rest = after;
    loop {
        rest = match rest {
            [b' ' | b'\t' | b'\r' | b'\n', tail @ ..] => tail,
            _ => match ESCAPED_BREAKS.iter().find_map(|brk| rest.strip_prefix(*brk)) {
                Some(tail) => tail,
                None => break,
            },
        };
    }
    if rest.is_empty() {
        // The marker ends the text: what followed may have been cut off; judged a key.
        return true;
    }
    // Only the first bytes are looked at (a header line is shorter than 80; a run of 16
    // decides; a body line two lines down lies within 512): a line of tens of thousands of
    // markers made each look read the rest of the line.
    let head = &rest[..rest.len().min(80)];
    let header_line = match memchr::memchr(b'\n', head) {
        Some(end) => head[..end].contains(&b':'),
        None => rest.len() < 80 && head.contains(&b':'),
    };
    let is_base64 = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=');
    let run = rest.iter().take(16).take_while(|b| is_base64(b)).count();
    if run >= 16 || (header_line && rest.first().is_some_and(u8::is_ascii_alphabetic)) {
        return true;
    }
    // A body line may sit in a string of code (`"b3BlbnNzaC1r…",` in an array of lines).
    let code = |b: &u8| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'`' | b',' | b';');
    rest[..rest.len().min(512)].split(|&b| b == b'\n').skip(1).take(3).any(|line| {
        let from = line.iter().position(|b| !code(b)).unwrap_or(line.len());
        let line = &line[from..line.iter().rposition(|b| !code(b)).map_or(from, |i| i + 1)];
        line.len() >= 40 && line.iter().all(is_base64)
    })
}

/// Whether the text just before a confidentiality marking names the marking instead of
/// bearing it (`documents marked CONFIDENTIAL`, `labelled INTERNAL ONLY or RESTRICTED`):
/// a policy or a how-to, not a marked document. `before` ends where the match starts.
fn marking_named(before: &[u8]) -> bool {
    let tail = &before[before.len().saturating_sub(24)..];
    let tail = String::from_utf8_lossy(tail).to_ascii_lowercase();
    if tail.ends_with(['"', '\'', '`', '“', '«']) {
        // A marking in quotes is a word being talked about (`the badge reads "(vertraulich)"`).
        return true;
    }
    let tail = tail.trim_end_matches([' ', '*', '(']);
    ["marked", "labelled", "labeled", "classified as", "stamped", "tagged", " or", " and", "such as", "e.g.", "like"]
        .iter()
        .any(|w| tail.ends_with(w))
}

/// Whether the words right after a marking tell of it rather than bear it: a story's
/// `CONFIDENTIAL, it said, in red letters` or `CONFIDENTIAL, the header said` (`said`,
/// `read` or `in red` within the next four words), or a Japanese or Chinese marking used as
/// a word of the sentence (`社外秘の通達を…`: a particle or `的` follows), or the head of a
/// compound that names a notion (`機密性` confidentiality as in the CIA triad, `機密計算`
/// confidential computing, `機密保持` the duty of confidentiality).
fn marking_narrated(after: &[u8]) -> bool {
    const PARTICLES: &[&str] = &[
        "の",
        "を",
        "が",
        "に",
        "は",
        "で",
        "と",
        "も",
        "的",
        "性",
        "計算",
        "计算",
        "コンピューティング",
        "保持",
        "保護",
        "保护",
    ];
    let head = String::from_utf8_lossy(&after[..after.len().min(40)]).to_ascii_lowercase();
    if PARTICLES.iter().any(|p| head.starts_with(p)) {
        return true;
    }
    let head = head.trim_start_matches([',', ' ', '*', '"', '\'', '”', '»', '!', '.']);
    head.split([' ', ',', '.', ';'])
        .filter(|w| !w.is_empty())
        .take(4)
        .any(|w| matches!(w, "said" | "says" | "read" | "reads" | "red"))
}

/// Whether a `mailto:` link (`link`, its mailbox `local`) names a template's mailbox: `you`,
/// `name`, `first.last` (dots, underscores and hyphens read alike), or a shared one
/// (`support`, `info`, `noreply`, …) at a documentation domain (RFC 2606: `example.com`,
/// `example.net`, `example.org`, `.example`, `.test`, `.invalid`).
fn mailbox_of_a_template(link: &str, local: &str) -> bool {
    const TEMPLATE: &[&str] = &[
        "you",
        "me",
        "name",
        "user",
        "username",
        "someone",
        "email",
        "address",
        "your-email",
        "your-name",
        "yourname",
        "first-last",
        "firstname-lastname",
        "foo",
        "test",
    ];
    const SHARED: &[&str] = &[
        "support",
        "info",
        "contact",
        "hello",
        "help",
        "admin",
        "team",
        "sales",
        "press",
        "noreply",
        "no-reply",
        "security",
        "abuse",
        "postmaster",
        "webmaster",
    ];
    let local = local.to_ascii_lowercase().replace(['.', '_'], "-");
    let link = link.to_ascii_lowercase();
    let host = link.rsplit('@').next().unwrap_or_default();
    let documentation = ["example.com", "example.net", "example.org", ".example", ".test", ".invalid"]
        .iter()
        .any(|d| host.ends_with(d));
    TEMPLATE.contains(&local.as_str()) || (documentation && SHARED.contains(&local.as_str()))
}

/// A match's judgement by its rule's [`Check`]: `at` is where the match lies in `bytes` (the
/// whole text), `value` its captured value (the match itself when it captures nothing).
fn passes(rule: &Rule, bytes: &[u8], at: (usize, usize), value: &[u8]) -> bool {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    match rule.check {
        Check::Always
        | Check::AtLeastTwo
        | Check::AtLeastThree
        | Check::Speakers
        | Check::TwoSenders
        | Check::ConsoleRun => true,
        Check::LetterPart => !values::addresses_the_public(&text(&bytes[at.0..at.1])),
        Check::NotPlaceholder => {
            let local_login = rule.id == "url_password" && values::is_local_default_login(&text(&bytes[at.0..at.1]));
            let mut v = text(value);
            if rule.id == "email_obfuscated" {
                // `<at>` and `<dot>` spell an address's signs; they are no template's slot.
                v = v.to_ascii_lowercase().replace("<at>", " at ").replace("<dot>", " dot ");
            }
            !(is_reference_or_placeholder(&v) || local_login)
        }
        // A mailbox's dots are a name's (`ines.carvalho`), not a reference's path.
        Check::PersonalMailbox => {
            let v = text(value);
            !mailbox_of_a_template(&text(&bytes[at.0..at.1]), &v) && !is_reference_or_placeholder(&v.replace('.', "-"))
        }
        Check::Random => looks_random(&text(value)),
        // A value joined to the next literal (`"…/" + "…"`) is judged whole, as the
        // disguise rules read the joined line.
        Check::SecretAssigned => {
            !checks::joined_on(&bytes[at.1..]) && checks::assigned_secret(&text(&bytes[at.0..at.1]), &text(value))
        }
        // A value read as words (`5pW3…T1 on nodes`, `9f8e…3921 so old hashes verify`) may be
        // one secret word and prose.
        Check::SecretValue => {
            let v = text(value);
            (secret_values::is_secret_value(&v)
                || v.split([' ', '\t']).next().is_some_and(|w| w.len() < v.len() && secret_values::is_secret_value(w)))
                && !secret_values::describes_its_label(&text(&bytes[at.0..at.1]), &v)
        }
        Check::RandomOrHex => {
            let v = text(value);
            // Hex of 32 digits or more, a UUID's dashes between them allowed.
            let hex = v.bytes().filter(u8::is_ascii_hexdigit).count();
            looks_random(&v) || (hex >= 32 && v.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-'))
        }
        // A final line break does not count: a file scans as its lines do.
        Check::InText => bytes.strip_suffix(b"\n").unwrap_or(bytes).len() >= at.1 - at.0 + 32,
        Check::Marking => {
            bytes.strip_suffix(b"\n").unwrap_or(bytes).len() >= at.1 - at.0 + 32
                && !marking_named(&bytes[..at.0])
                && !marking_narrated(&bytes[at.1..])
        }
        Check::NotTestIdentifier => !values::is_test_identifier(&checks::text_near(bytes, at)),
        Check::NotPlaceholderUser => !values::is_placeholder_user(&text(value)),
        Check::NotNetwork => !is_cidr_network(bytes, at.1),
        Check::NetworkShare => checks::network_share(bytes, at),
        Check::AccessCode => {
            !is_reference_or_placeholder(&text(value)) && !checks::date_or_year(value) && !checks::trivial_code(value)
        }
        Check::NoDryRun => !checks::asks_dry_run(checks::near_line(bytes, at.0, at.0).1),
        Check::NotSettingsPath => !checks::settings_path(bytes, at.0),
        Check::Assembled => checks::assembled(bytes, at, value),
        // `.env.local`, `.npmrc.local`: a file name, not a host.
        Check::NotFileName => at.0.checked_sub(1).is_none_or(|i| bytes[i] != b'.') && !is_documentation_host(bytes, at),
        Check::NotApproximation => !rules::APPROXIMATIONS.iter().any(|w| w.as_bytes() == value),
        Check::KeyBody => key_body_follows(&bytes[at.1..]),
        Check::SeedWords => secret_values::is_seed_words(&text(&bytes[at.0..at.1]), &text(value)),
    }
}

/// How many matches a rule needs in a text to be reported ([`Check::AtLeastTwo`],
/// [`Check::AtLeastThree`]; 1 for the others).
pub(super) fn matches_needed(rule: &Rule) -> usize {
    match rule.check {
        Check::AtLeastTwo | Check::LetterPart => 2,
        Check::AtLeastThree => 3,
        // Enough turns to judge the speakers by.
        Check::Speakers | Check::TwoSenders | Check::ConsoleRun => SPEAKER_TURNS_KEPT,
        _ => 1,
    }
}

/// [`matches_in_windows`]; with `counts` (per rule, the matches already found earlier in the
/// same text, updated here), a multi-match rule stops once it has as many as it needs:
/// [`keep_evidence`] reports such a rule once, at its first match, so later matches change
/// nothing (log files match on every line: this is most of a scan's regex time on them).
pub(super) fn matches_up_to(bytes: &[u8], windows: &prefilter::Windows, counts: Option<&mut [usize]>) -> Vec<Hit> {
    matches_up_to_in(bytes, windows, counts, false)
}

/// [`matches_up_to`]; with `lines_apart`, a [`Check::KeyBody`] match is judged on the rest
/// of its own line ([`matches_in_decoded_lines`]).
fn matches_up_to_in(
    bytes: &[u8],
    windows: &prefilter::Windows,
    mut counts: Option<&mut [usize]>,
    lines_apart: bool,
) -> Vec<Hit> {
    let mut hits = Vec::new();
    for (i, rule) in RULES.iter().enumerate() {
        let Some(rule_windows) = windows.get(i).filter(|w| !w.is_empty()) else { continue };
        let need = matches_needed(rule);
        let limit = match counts.as_deref() {
            Some(c) if need > 1 => need.saturating_sub(c[i]),
            _ => usize::MAX,
        };
        if limit == 0 {
            continue;
        }
        let re = regex(i);
        let mut found: Vec<Hit> = Vec::new();
        'windows: for &(ws, we) in rule_windows {
            let window = &bytes[ws..we];
            for caps in re.captures_iter(window) {
                let Some(whole) = caps.get(0) else { continue };
                let value = (1..caps.len()).find_map(|g| caps.get(g)).unwrap_or(whole);
                let at = (ws + whole.start(), ws + whole.end());
                let hay = if lines_apart && rule.check == Check::KeyBody {
                    &bytes[..memchr::memchr(b'\n', &bytes[at.1..]).map_or(bytes.len(), |i| at.1 + i)]
                } else {
                    bytes
                };
                let ok = passes(rule, hay, at, value.as_bytes())
                    && !(rule.category == "credentials"
                        && is_example_or_filler(rule, whole.as_bytes(), value.as_bytes()));
                if ok {
                    let shown = if rule.id == "home_path" { value } else { whole };
                    found.push(Hit {
                        rule,
                        start: ws + shown.start(),
                        matched: String::from_utf8_lossy(shown.as_bytes()).into_owned(),
                        note: "",
                    });
                    if found.len() >= limit {
                        break 'windows;
                    }
                }
            }
        }
        if let Some(c) = counts.as_deref_mut() {
            c[i] += found.len();
        }
        hits.extend(found);
    }
    hits
}

/// Applies the multi-match rules' thresholds ([`Check::AtLeastTwo`], [`Check::AtLeastThree`])
/// over all of `hits`: such a rule is reported once, at its first match, when it matched
/// often enough; other hits pass unchanged.
pub(super) fn keep_evidence(hits: Vec<Hit>) -> Vec<Hit> {
    let need = matches_needed;
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for h in &hits {
        *counts.entry(h.rule.id).or_default() += 1;
    }
    let speakers_hold = speakers_hold(&hits);
    // The senders of [`Check::TwoSenders`] heads (one rule has that check).
    let two_senders = hits
        .iter()
        .filter(|h| h.rule.check == Check::TwoSenders)
        .map(|h| h.matched.split(" (to ").next().unwrap_or_default())
        .collect::<std::collections::BTreeSet<&str>>()
        .len()
        >= 2;
    // [`Check::ConsoleRun`]: two banners or more, one of them the user's.
    let banners: Vec<&str> =
        hits.iter().filter(|h| h.rule.check == Check::ConsoleRun).map(|h| h.matched.as_str()).collect();
    let console_run = banners.len() >= 2 && banners.iter().any(|b| b.contains(" user ") || b.contains("(user)"));
    let mut reported = std::collections::BTreeSet::new();
    hits.into_iter()
        .filter(|h| {
            if h.rule.check == Check::Speakers {
                return speakers_hold && reported.insert(h.rule.id);
            }
            if h.rule.check == Check::TwoSenders {
                return two_senders && reported.insert(h.rule.id);
            }
            if h.rule.check == Check::ConsoleRun {
                return console_run && reported.insert(h.rule.id);
            }
            let n = need(h.rule);
            n == 1 || (counts[h.rule.id] >= n && reported.insert(h.rule.id))
        })
        .collect()
}

/// The speaker of a [`Check::Speakers`] turn (after a leading `[date clock]`, a bare ISO
/// date and clock, Pidgin's `(clock)` or a transcript page's line number, skipped): a
/// deposition's `Q.` or `A.` (`Q` or `A` before two blanks), a courtroom's speaker in
/// capitals before two blanks (`MR. OYELARAN   Objection`), the nick of `<nick> …` (IRC's
/// mode mark dropped) unless it names an HTML element
/// ([`rules::HTML_ELEMENTS`]), the name before a column chat's clock (`Agent Rosa  10:02
/// …`), else the words before `:` unless they are a field label ([`rules::NOT_SPEAKERS`],
/// [`rules::FAQ_LABELS`]).
/// `None`: no speaker.
fn speaker(turn: &str) -> Option<&str> {
    let turn = past_line_head(turn);
    if let Some(mark) = court_speaker(turn) {
        return Some(mark);
    }
    if let Some(rest) = turn.strip_prefix('<') {
        let nick = rest.split('>').next().unwrap_or_default().trim_start_matches(['@', '+', '%', '~', '&']);
        let html = rules::HTML_ELEMENTS.iter().any(|e| e.eq_ignore_ascii_case(nick));
        return (!html).then_some(nick);
    }
    // A help desk's header (`Kwame (Support)  ·  Feb 2, 2024 10:02`): the name before its dot.
    if let Some(i) = turn.find(" · ").or_else(|| turn.find(" • ")) {
        return Some(turn[..i].trim());
    }
    // A chat in columns (`Agent Rosa  10:02  Hi!`): the name before the clock.
    if let Some(i) = turn.find(['\t']).or_else(|| turn.find("  "))
        && !turn[..i].contains(':')
        && turn[i..].trim_start().starts_with(|c: char| c.is_ascii_digit())
    {
        return Some(turn[..i].trim());
    }
    // A bold name (`**Elif Demir**`) is the name; a bold field label is still a label.
    let speaker = turn.split(':').next().unwrap_or_default().trim_matches('*');
    (!rules::NOT_SPEAKERS.contains(&speaker) && !rules::FAQ_LABELS.contains(&speaker)).then_some(speaker)
}

/// `turn` past what comes before a speaker: a transcript page's line number, then a dated
/// line's bracketed date and clock, Pidgin's clock (`(11:40:19 AM) nick: …`) or a bare ISO
/// date and clock.
fn past_line_head(turn: &str) -> &str {
    let turn = after_line_number(turn.trim_start());
    [('[', ']'), ('(', ')')]
        .iter()
        .find_map(|&(open, close)| {
            let rest = turn.strip_prefix(open).filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))?;
            rest.split_once(close).map(|(_, after)| after.trim_start())
        })
        .or_else(|| after_iso_clock(turn))
        .unwrap_or(turn)
}

/// A court reporter's speaker at the start of `turn`: the question and answer marks (`Q.  …`,
/// `A.  …`, `Q   …`), or a courtroom's speaker in capitals before two blanks or a tab (`THE
/// WITNESS  Yes`, `MR. OYELARAN   Objection`); `None` for any other turn.
fn court_speaker(turn: &str) -> Option<&str> {
    if let Some(mark) = turn.get(..2).filter(|m| matches!(*m, "Q." | "A.")) {
        return Some(mark);
    }
    let head = &turn[..turn.find('\t').into_iter().chain(turn.find("  ")).min()?];
    let capitals =
        head.len() >= 4 && head.bytes().all(|b| b.is_ascii_uppercase() || matches!(b, b' ' | b'.' | b'\'' | b'-'));
    (matches!(head, "Q" | "A") || capitals).then_some(head)
}

/// `turn` past a transcript page's line number (one to three digits, then two blanks or a
/// tab: ` 14   Q   And when…`); `turn` itself when it has none.
fn after_line_number(turn: &str) -> &str {
    let digits = turn.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &turn[digits..];
    if (1..=3).contains(&digits) && (rest.starts_with("  ") || rest.starts_with('\t')) {
        rest.trim_start()
    } else {
        turn
    }
}

/// `turn` past a leading ISO date and clock (`2024-01-28 08:14  Henrike: …`, seconds
/// optional), blanks trimmed; `None` when it opens with none.
fn after_iso_clock(turn: &str) -> Option<&str> {
    let b = turn.as_bytes();
    let date = b.len() > 16
        && b[..10].iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() })
        && matches!(b[10], b' ' | b'T');
    if !date {
        return None;
    }
    let clock = turn[11..].find(|c: char| !(c.is_ascii_digit() || c == ':'))?;
    Some(turn[11 + clock..].trim_start())
}

/// Turns of a [`Check::Speakers`] rule looked at (the first ones of a text).
const SPEAKER_TURNS_KEPT: usize = 64;

/// Whether the [`Check::Speakers`] hits among `hits` make a conversation: four or more turns
/// by speakers (see [`speaker`]), two or more of whom speak twice or more, not all of them a
/// deposition's `Q.` and `A.` unless the lines are numbered as a transcript's page.
pub(super) fn speakers_hold(hits: &[Hit]) -> bool {
    let mut turns: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for h in hits.iter().filter(|h| h.rule.check == Check::Speakers) {
        if let Some(speaker) = speaker(&h.matched) {
            *turns.entry(speaker).or_default() += 1;
        }
    }
    // A deposition's `Q.` and `A.` need another speaker beside them (an FAQ has none), or
    // the line numbers of a transcript's page.
    let numbered = hits.iter().any(|h| {
        h.rule.check == Check::Speakers
            && after_line_number(h.matched.trim_start()).len() < h.matched.trim_start().len()
    });
    let marks_only = !numbered && turns.keys().all(|s| matches!(*s, "Q." | "A." | "Q" | "A"));
    !marks_only && turns.values().sum::<usize>() >= 4 && turns.values().filter(|&&n| n >= 2).count() >= 2
}
