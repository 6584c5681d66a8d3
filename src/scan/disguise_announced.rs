//! Tokens said in prose to be kept in ROT13, backwards or wrapped by a terminal's width
//! (issue 16, eleventh round): the words that announce one ([`ROT13`], [`SAID_REVERSED`],
//! [`SAID_WRAPPED`], searched with [`super`]'s piece calls) and what the lines near one are
//! read as ([`announced`]).

use super::{REVERSED_MIN, is_token_byte};

/// Words that announce a token kept in ROT13 (`stored it rot13'd`): the runs of token
/// bytes on the line, the [`ANNOUNCED_ABOVE`] lines above and the [`ANNOUNCED_REACH`] lines
/// below are read rotated back.
pub(super) const ROT13: &[&[u8]] = &[b"rot13", b"ROT13", b"Rot13", b"rot-13", b"ROT-13", b"rot 13", b"ROT 13"];

/// Words that announce a token written backwards in prose (`written backwards`, `reverse
/// it before use`; `al revés`, `à l'envers`, `rückwärts`, `omgekeerd`, `baklänges`,
/// `odwrotnie`, `ao contrário`, `ters çevrilmiş`, `задом наперёд`, `в обратном порядке`,
/// `逆順`, `倒序`, `反过来`, `倒着`, `거꾸로`, `umgekehrt`, `inversé`, `al contrario`): the runs
/// of token bytes near one are also read backwards.
pub(super) const SAID_REVERSED: &[&[u8]] = &[
    b"backwards",
    b"reversed",
    b"everse it",
    b"everse the",
    b"everse before",
    b"in reverse",
    "al revés".as_bytes(),
    b"al reves",
    "à l'envers".as_bytes(),
    b"a l'envers",
    "rückwärts".as_bytes(),
    b"umgedreht",
    b"invertid",
    "ao contrário".as_bytes(),
    b"omgekeerd",
    b"achterstevoren",
    "baklänges".as_bytes(),
    b"odwrotn",
    "ters çevr".as_bytes(),
    "задом наперёд".as_bytes(),
    "задом наперед".as_bytes(),
    "в обратном порядке".as_bytes(),
    "逆順".as_bytes(),
    "倒序".as_bytes(),
    "反转".as_bytes(),
    "反过来".as_bytes(),
    "反過來".as_bytes(),
    "倒着".as_bytes(),
    "倒著".as_bytes(),
    "反的".as_bytes(),
    "거꾸로".as_bytes(),
    b"umgekehrt",
    "inversé".as_bytes(),
    b"al contrario",
    b"alla rovescia",
    b"invertit",
];

/// Words that announce a token broken over lines by a terminal's width (`it wrapped at 24
/// cols`): lines near one that are each a run of token bytes are also read joined.
pub(super) const SAID_WRAPPED: &[&[u8]] = &[b"wrapped", b"wrapping", b"line-wrap", b"linewrap"];

/// Lines below an announcing word whose tokens are read as it says.
pub(super) const ANNOUNCED_REACH: usize = 3;

/// Lines above an announcing word whose tokens are read as it says (a note after the
/// token: `…_phg` then `the token above is reversed`).
pub(super) const ANNOUNCED_ABOVE: usize = 2;

/// Whether `lines` hold one of `words`.
fn says(lines: &str, words: &[&[u8]]) -> bool {
    words.iter().any(|w| memchr::memmem::find(lines.as_bytes(), w).is_some())
}

/// Whether `text` holds a word of [`ROT13`], [`SAID_REVERSED`] or [`SAID_WRAPPED`]: the
/// cheap test before anything is joined or read ([`announced_tokens`]).
#[must_use]
pub(in crate::scan) fn announces(text: &str) -> bool {
    says(text, ROT13) || says(text, SAID_REVERSED) || says(text, SAID_WRAPPED)
}

/// The runs of [`REVERSED_MIN`] or more token bytes in `lines` (outside quotes too).
fn token_runs(lines: &str) -> impl Iterator<Item = &str> {
    lines.split(|c: char| !c.is_ascii() || !is_token_byte(c as u8)).filter(|r| r.len() >= REVERSED_MIN)
}

/// Appends what an announcement near `lines` says the tokens there are: rotated back from
/// ROT13, read backwards, or the lines that are one token run each joined (a terminal's
/// wrap), one per line.
pub(super) fn announced(lines: &str, out: &mut String) {
    if says(lines, ROT13) {
        for run in token_runs(lines) {
            out.extend(run.chars().map(rot13));
            out.push('\n');
        }
    }
    if says(lines, SAID_REVERSED) {
        // A run with a `:` inside is read backwards whole too: a Telegram bot token's
        // `id:secret` reversed is `terces:di`.
        let with_colon = lines
            .split(|c: char| !c.is_ascii() || !(is_token_byte(c as u8) || c == ':'))
            .filter(|r| r.len() >= REVERSED_MIN && r.trim_matches(':').contains(':'));
        for run in token_runs(lines).chain(with_colon) {
            out.extend(run.chars().rev());
            out.push('\n');
        }
    }
    if says(lines, SAID_WRAPPED) {
        let whole = |l: &&str| l.len() >= 8 && l.bytes().all(is_token_byte);
        let rows: Vec<&str> = lines.lines().map(str::trim).collect();
        for group in rows.chunk_by(|a, b| whole(a) && whole(b)).filter(|g| g.len() >= 2) {
            out.push_str(&group.concat());
            out.push('\n');
        }
    }
}

/// What the announcement in `text` ([`ROT13`], [`SAID_REVERSED`], [`SAID_WRAPPED`]) says
/// its tokens are (see [`announced`]), one per line; `None` when `text` announces nothing.
/// For texts taken apart, such as a JSON object's strings (`{"k": "…_mpn", "how": "reverse
/// before use"}`).
#[must_use]
pub(in crate::scan) fn announced_tokens(text: &str) -> Option<String> {
    if !announces(text) {
        return None;
    }
    let mut out = String::new();
    announced(text, &mut out);
    (!out.is_empty()).then_some(out)
}

/// `c` rotated by 13 places if it is an ASCII letter.
fn rot13(c: char) -> char {
    match c {
        'a'..='m' | 'A'..='M' => (c as u8 + 13) as char,
        'n'..='z' | 'N'..='Z' => (c as u8 - 13) as char,
        _ => c,
    }
}
