//! The checks of [`super`] that read around a match (issue 16, thirteenth round): whether a
//! `//host/share` is a share, a command asks for a dry run, an access code is a date, a
//! secret-named field holds a secret. Each reads a bounded stretch of the match's line
//! ([`near_line`]), so many matches on one long line cost no more than on short ones.

use super::super::looks_random;

/// The bytes of `bytes`' line around `at..end` within [`NEAR`] bytes on either side:
/// `(before, after)`, each cut at the line's break, and whether the whole line is in them.
/// Bounded, so a check that reads a match's line costs the same on a line of a megabyte
/// holding many matches.
pub(super) fn near_line(bytes: &[u8], at: usize, end: usize) -> (&[u8], &[u8], bool) {
    let from = at.saturating_sub(NEAR);
    let to = (end + NEAR).min(bytes.len());
    let start = memchr::memrchr(b'\n', &bytes[from..at]).map(|i| from + i + 1);
    let stop = memchr::memchr(b'\n', &bytes[end..to]).map(|i| end + i);
    let whole = (start.is_some() || from == 0) && (stop.is_some() || to == bytes.len());
    (&bytes[start.unwrap_or(from)..at], &bytes[end..stop.unwrap_or(to)], whole)
}

/// The match at `at` with the text of its line around it ([`near_line`]), as text.
pub(super) fn text_near(bytes: &[u8], at: (usize, usize)) -> String {
    let (before, after, _) = near_line(bytes, at.0, at.1);
    String::from_utf8_lossy(&[before, &bytes[at.0..at.1], after].concat()).into_owned()
}

/// How far [`near_line`] reads on either side of a match.
const NEAR: usize = 200;

/// [`Check::NetworkShare`]: the `//host/share` match at `at` is a share, not a PEM body's
/// line ([`Check::NetworkShare`]) nor a build tool's label ([`build_label`]).
pub(super) fn network_share(bytes: &[u8], at: (usize, usize)) -> bool {
    let (before, after, whole) = near_line(bytes, at.0, at.1);
    let line: Vec<u8> = [before, &bytes[at.0..at.1], after].concat();
    let body = line.trim_ascii();
    let body = &body[..body.len() - body.iter().rev().take_while(|&&b| b == b'=').count()];
    let base64 = whole && body.len() >= 40 && body.iter().all(|&b| super::super::decode::B64[usize::from(b)]);
    !(base64 || build_label(&line.to_ascii_lowercase(), before, after))
}

/// Whether a `//a/b` match is a build tool's label, on a line that names no share (`mount`,
/// `net use`, `cifs`, `smb`, `nfs`): the text after it goes on as a label does (`/...` for
/// every target below, `:target`), a build tool's command comes before it (`bazel test //…`,
/// `buck2 build //…`, `pants lint //…`), or the line is a BUILD file's attribute (`deps =
/// ["//lib/util"]`). `line` is the lower-cased line near the match, `before` and `after`
/// the bytes on either side ([`near_line`]).
fn build_label(line: &[u8], before: &[u8], after: &[u8]) -> bool {
    let has = |hay: &[u8], w: &str| memchr::memmem::find(hay, w.as_bytes()).is_some();
    if ["mount", "net use", "cifs", "smb", "nfs"].iter().any(|w| has(line, w)) {
        return false;
    }
    let tail = after
        .split(|b| b.is_ascii_whitespace() || matches!(b, b'`' | b'\'' | b'"' | b',' | b']'))
        .next()
        .unwrap_or_default();
    let target = tail.iter().position(|&b| b == b':').is_some_and(|i| {
        let name = &tail[i + 1..];
        !name.is_empty() && name.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'+'))
    });
    let before = before.to_ascii_lowercase();
    tail.ends_with(b"/...")
        || target
        || ["bazel ", "bazelisk ", "blaze ", "buck ", "buck2 ", "pants "].iter().any(|t| has(&before, t))
        || ["deps =", "deps=", "srcs =", "srcs=", "visibility =", "visibility="].iter().any(|t| has(line, t))
}

/// Whether an access code's digits are a date or a year (`2024-03-15`, `2024`): four
/// digits from 1900 to 2039 (a year a note names; `PIN … es 2093` is a code), then
/// nothing or a month and a day.
pub(super) fn date_or_year(value: &[u8]) -> bool {
    let digits: Vec<u8> = value.iter().copied().filter(u8::is_ascii_digit).collect();
    let year = digits.len() >= 4 && (digits[..2] == *b"19" || (digits[..2] == *b"20" && digits[2] <= b'3'));
    year && (digits.len() == 4 || (digits.len() == 8 && value.len() == 10 && value[4] == b'-'))
}

/// Whether an access code's digits are a factory default or a rejected example rather than
/// a secret: one digit repeated (`0000`, `000000`) or a run up or down (`1234`, `987654`).
pub(super) fn trivial_code(value: &[u8]) -> bool {
    let digits: Vec<i16> = value.iter().filter(|b| b.is_ascii_digit()).map(|&b| i16::from(b - b'0')).collect();
    let steps: Vec<i16> = digits.windows(2).map(|w| w[1] - w[0]).collect();
    digits.len() >= 4
        && (steps.iter().all(|&s| s == 0) || steps.iter().all(|&s| s == 1) || steps.iter().all(|&s| s == -1))
}

/// [`Check::SecretAssigned`]: `whole` is the match (name, sign, value), `value` the value.
pub(super) fn assigned_secret(whole: &str, value: &str) -> bool {
    const SECRET_NAMES: &[&str] = &[
        "secret",
        "token",
        "passw",
        "pwd",
        "credential",
        "api_key",
        "apikey",
        "api-key",
        "access_key",
        "accesskey",
        "private_key",
        "privatekey",
        "auth_key",
        "write_key",
        "server_key",
        "master_key",
        "signing_key",
        "encryption_key",
        "admin_key",
    ];
    let name = whole.get(..whole.len().saturating_sub(value.len())).unwrap_or(whole).to_ascii_lowercase();
    // A public key's field; a template's slot; a URL's scheme read as a name (`otpauth://…`).
    let public = name.contains("public") || name.contains("pubkey") || name.contains("pub_key");
    if public || value.starts_with('$') || value.contains('{') || value.starts_with("//") {
        return false;
    }
    let hex = value.len() >= 32 && value.bytes().all(|b| b.is_ascii_hexdigit());
    let uuid = value.len() == 36
        && value
            .bytes()
            .enumerate()
            .all(|(i, b)| if [8, 13, 18, 23].contains(&i) { b == b'-' } else { b.is_ascii_hexdigit() });
    looks_random(value) || ((hex || uuid) && SECRET_NAMES.iter().any(|n| name.contains(n)))
}

/// Whether the command from a match's start (`command`, up to the end of its line) asks
/// for a dry run ([`Check::NoDryRun`]): one of its arguments, before the command ends (at
/// `&&`, `;`, `|` or a comment's `#`), is `--dry-run` (or `=client`, `=server`; not `=none`
/// or `=false`), `--dryrun`, `--what-if`, PowerShell's `-WhatIf` (not `-WhatIf:$false`),
/// Ansible's `--check`, `--syntax-check`, `--list-tasks`, `--list-hosts`, or `--help` (a
/// command asked for its usage does nothing).
pub(super) fn asks_dry_run(command: &[u8]) -> bool {
    let end = command.iter().position(|&b| matches!(b, b';' | b'|' | b'#' | b'&')).unwrap_or(command.len());
    command[..end].split(u8::is_ascii_whitespace).any(|arg| {
        let arg = arg.trim_ascii_end().strip_suffix(b"`").unwrap_or(arg).to_ascii_lowercase();
        let (flag, value) = match arg.iter().position(|&b| b == b'=' || b == b':') {
            Some(i) => (&arg[..i], Some(&arg[i + 1..])),
            None => (&arg[..], None),
        };
        let off = value.is_some_and(|v| matches!(v, b"none" | b"false" | b"$false" | b"0"));
        !off && matches!(
            flag,
            b"--dry-run"
                | b"--dryrun"
                | b"--what-if"
                | b"-whatif"
                | b"--check"
                | b"--syntax-check"
                | b"--list-tasks"
                | b"--list-hosts"
                | b"--help"
        )
    })
}

/// Whether the path matched by `tilde_path` at `at` in `bytes` (the match holds its `~/`
/// near its start) is named in a sentence as where a program keeps its settings
/// ([`Check::NotSettingsPath`]): a dot-folder or dot-file right under `~` (`~/.config/…`,
/// `~/.bashrc`), or macOS's `~/Library/Application Support`, `Preferences`, `Logs`,
/// `Caches` or `Containers`, after a blank, `(` or a backtick. The same path as a whole
/// value, alone on its line or after `=` (`"artifact": "~/.config/loopx/settings.toml"`,
/// `path=~/.cache/pip/wheels`) is a file on the machine, not a program's documented place.
pub(super) fn settings_path(bytes: &[u8], at: usize) -> bool {
    const LIBRARY: &[&[u8]] = &[b"Application Support/", b"Preferences/", b"Logs/", b"Caches/", b"Containers/"];
    let Some(i) = memchr::memmem::find(&bytes[at..bytes.len().min(at + 8)], b"~/").map(|i| at + i) else {
        return false;
    };
    let in_sentence = i.checked_sub(1).is_some_and(|p| matches!(bytes[p], b' ' | b'\t' | b'(' | b'`'));
    let path = &bytes[i + 2..];
    in_sentence
        && (path.first() == Some(&b'.')
            || path.strip_prefix(b"Library/").is_some_and(|rest| LIBRARY.iter().any(|l| rest.starts_with(l))))
}

/// Lines below a token's first piece whose literals may complete it ([`assembled`]).
const ASSEMBLED_LINES: usize = 12;

/// Bytes read from a token's first piece on ([`assembled`]).
const ASSEMBLED_REACH: usize = 2048;

/// Longest join of pieces tried ([`assembled`]): the longest token a rule reads is shorter.
const ASSEMBLED_MAX: usize = 320;

/// Pieces after the first that [`assembled`] reads.
const ASSEMBLED_PIECES: usize = 10;

/// Most pieces after the first in one join ([`assembled`]): more, and any run of random
/// literals would join into a token's length.
const ASSEMBLED_JOINED: usize = 5;

/// Most pieces left out between those of one join ([`assembled`]): others' literals among
/// a key's parts (`BUCKET = "…"`).
const ASSEMBLED_SKIPS: usize = 2;

/// Joins [`assembled`] scans at most per first piece: the search is bounded whatever the
/// code around it.
const ASSEMBLED_TRIES: usize = 40;

thread_local! {
    /// Set while [`assembled`] scans a join, so the scan of a join never starts another.
    static ASSEMBLING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the literal `piece` (a provider token's prefix and first characters, matched by
/// `assembled_token` at `at` in `bytes`) is completed by pieces after it
/// ([`super::Check::Assembled`]): code that builds a key from parts (`_a = "AKIAIVTV"` then
/// `_b = "MD55WRBSX47E"`; `.append("ghp_UH39m")` over several `.append(…)` lines; `TOKEN_A
/// := glpat-qEs-y` then `TOKEN_B := 5Ypwob4CBonGVUR`). The pieces are the literals after it
/// on its line and on the [`ASSEMBLED_LINES`] lines below, and the bare values of assignment
/// lines there (`NAME := value`, `NAME=value`), in order ([`line_pieces`]); joins of the
/// first piece with up to [`ASSEMBLED_JOINED`] of the next [`ASSEMBLED_PIECES`], in order,
/// at most [`ASSEMBLED_SKIPS`] left out between them (`BUCKET = "…"` amid a key's parts),
/// are scanned, neighbours first, at most [`ASSEMBLED_TRIES`] of them; the check holds when
/// one is a token a blocking credential rule finds and the piece alone is none. A piece
/// joined to the next on its own line (`"ghp_" + "…"`) is left to
/// [`super::super::disguise`], which reads such joins.
pub(super) fn assembled(bytes: &[u8], at: (usize, usize), piece: &[u8]) -> bool {
    let rest = &bytes[at.1..bytes.len().min(at.1 + ASSEMBLED_REACH)];
    let next = rest.iter().find(|b| !matches!(b, b' ' | b'\t')).copied();
    if matches!(next, Some(b'+' | b'"' | b'\'')) || ASSEMBLING.get() || is_token(piece) {
        return false;
    }
    let text = String::from_utf8_lossy(rest);
    // A piece that opens another token (a list of prefixes, `["ghp_", "gho_", …]`) or is a
    // placeholder (`xxxxxxxx`, `<your-token>`) is no part of this one.
    let part =
        |p: &&str| !PREFIXES.iter().any(|(x, ..)| p.starts_with(x)) && !super::super::is_reference_or_placeholder(p);
    let Some(&(_, shortest, longest)) = PREFIXES.iter().find(|(x, ..)| piece.starts_with(x.as_bytes())) else {
        return false;
    };
    let pieces: Vec<&str> =
        text.split('\n').take(ASSEMBLED_LINES + 1).flat_map(line_pieces).filter(part).take(ASSEMBLED_PIECES).collect();
    let mut search = Search { pieces: &pieces, lengths: (shortest, longest), tries: ASSEMBLED_TRIES };
    search.joins_to_token(&mut piece.to_vec(), 0, ASSEMBLED_JOINED, ASSEMBLED_SKIPS)
}

/// The prefixes `assembled_token` reads a first piece by (the same as its pattern's), each
/// with the shortest and longest whole token its provider issues, in bytes (GitHub's classic
/// tokens are 40, an AWS key id 20, npm's 40, a DigitalOcean token 71, a SendGrid key 69, a
/// Shopify token 38, a fine-grained GitHub token 93): a join is scanned only at a length a
/// token has ([`assembled`]).
#[rustfmt::skip]
const PREFIXES: &[(&str, usize, usize)] = &[
    ("ghp_", 40, 40), ("gho_", 40, 40), ("ghu_", 40, 40), ("ghs_", 40, 40), ("ghr_", 40, 40),
    ("github_pat_", 93, 93), ("glpat-", 26, 64), ("xoxa-", 15, 255), ("xoxb-", 15, 255), ("xoxp-", 15, 255),
    ("xoxo-", 15, 255), ("xoxs-", 15, 255), ("xoxr-", 15, 255), ("xapp-", 15, 255), ("sk_live_", 24, 255),
    ("rk_live_", 24, 255), ("sk-proj-", 28, 255), ("sk-ant-", 27, 255), ("npm_", 40, 40), ("pypi-", 55, 255),
    ("hf_", 33, 64), ("AKIA", 20, 20), ("dop_v1_", 71, 71), ("shpat_", 38, 38), ("hvs.", 35, 255), ("SG.", 69, 69),
];

/// The search of [`assembled`]: its pieces, a whole token's lengths, the joins left to try.
struct Search<'a> {
    pieces: &'a [&'a str],
    lengths: (usize, usize),
    tries: usize,
}

impl Search<'_> {
    /// Whether `joined` followed by up to `more` of the pieces from `from` on (in order, at
    /// most `skips` of them left out in all) makes a token ([`is_token`]), the next piece
    /// first; a join is scanned only at a whole token's length, and when it looks random
    /// ([`random_join`]).
    fn joins_to_token(&mut self, joined: &mut Vec<u8>, from: usize, more: usize, skips: usize) -> bool {
        if more == 0 {
            return false;
        }
        for (i, p) in self.pieces.iter().enumerate().skip(from).take(skips + 1) {
            if self.tries == 0 {
                return false;
            }
            if joined.len() + p.len() > self.lengths.1.min(ASSEMBLED_MAX) {
                continue;
            }
            let len = joined.len();
            joined.extend_from_slice(p.as_bytes());
            let whole = joined.len() >= self.lengths.0;
            if whole {
                self.tries -= 1;
            }
            if (whole && random_join(joined) && is_token(joined))
                || self.joins_to_token(joined, i + 1, more - 1, skips - (i - from))
            {
                return true;
            }
            joined.truncate(len);
        }
        false
    }
}

/// Whether a join of pieces may be a key: random-looking, unless it has no lower-case letter
/// (an AWS key id is upper case and digits, and may hold no digit). Lower-case words of a
/// program's literals joined are no key.
fn random_join(joined: &[u8]) -> bool {
    !joined.iter().any(u8::is_ascii_lowercase) || looks_random(&String::from_utf8_lossy(joined))
}

/// Whether a blocking credential rule (not `assembled_token`) finds a token in `s`.
fn is_token(s: &[u8]) -> bool {
    ASSEMBLING.set(true);
    let found = super::raw_hits(s)
        .iter()
        .any(|h| h.rule.category == "credentials" && h.rule.public == "block" && h.rule.id != "assembled_token");
    ASSEMBLING.set(false);
    found
}

/// The pieces of a key a line may hold ([`assembled`]): its literals (in `"…"`, `'…'` or
/// `` `…` ``) made only of a token's bytes, or the bare value of an assignment (`NAME :=
/// value`, `NAME ?= value`, `NAME=value`, `export NAME=value`) when the line has no quote.
fn line_pieces(line: &str) -> Vec<&str> {
    let token = |s: &str| {
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'+'))
    };
    if line.contains(['"', '\'', '`']) {
        return crate::scan::disguise::literals_in(line, b"\"'`").into_iter().filter(|l| token(l)).collect();
    }
    let line = line.trim().strip_prefix("export ").unwrap_or(line.trim());
    let Some(eq) = line.find('=') else { return Vec::new() };
    let name = line[..eq].trim_end_matches([':', '?', ' ', '\t']);
    let value = line[eq + 1..].trim();
    let named = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if named && token(value) { vec![value] } else { Vec::new() }
}

/// Whether a literal's value that ends where `after` starts is joined to the next literal:
/// its closing quote, blanks, then `+` or another quote (`"wJalr…/" + "bPxR…"`).
pub(super) fn joined_on(after: &[u8]) -> bool {
    let rest = after.strip_prefix(b"\"").or_else(|| after.strip_prefix(b"'")).unwrap_or(after);
    let next = rest.iter().take(16).find(|b| !matches!(b, b' ' | b'\t'));
    rest.len() < after.len() && matches!(next, Some(b'+' | b'"' | b'\''))
}
