//! Disguises undone for the scan (issue 16): a secret or path split by zero-width
//! characters, written in fullwidth letters (`ｇｈｐ＿…`) or with a separator's homoglyph
//! (`∕home∕…`, `C:¥Users¥…`) or a Cyrillic or Greek look-alike letter (`/hоme/…`), spelt wholly or partly in escapes (`\u0073\u006b\u005f…`,
//! `\u{6f}`, `\x2f`, octal `\150`; four or more in a run), or cut into string literals joined
//! by concatenation (`"ghp_" "AbC…"`, `'sk_live_' + '…'`), or kept reversed for code to
//! flip (`"…_fh"[::-1]`), or said in prose to be kept in ROT13, backwards or wrapped by a
//! terminal (`written backwards, reverse it before use: …`). The lines that hold one are
//! rewritten without it and scanned again; a match found there and not in the plain text is
//! the disguised secret. Pure.

use super::invisible::is_zero_width;

/// A fullwidth digit or Latin letter (`U+FF10`–`U+FF19`, `U+FF21`–`U+FF3A`, `U+FF41`–`U+FF5A`):
/// what a token in fullwidth is made of. Fullwidth punctuation alone (`，` `：` `（`, common in
/// CJK prose) does not make a line disguised.
fn is_fullwidth_alnum(c: char) -> bool {
    matches!(c, '\u{FF10}'..='\u{FF19}' | '\u{FF21}'..='\u{FF3A}' | '\u{FF41}'..='\u{FF5A}')
}

/// A character drawn like a path's separator (`∕` division slash, `⁄` fraction slash, `⧸`
/// big solidus, fullwidth `／`; `∖` set minus, `⧹` big reverse solidus, fullwidth `＼`; `¥`
/// and `￥`, which Japanese Windows draws for `\\`, and Korean Windows' `₩`): a path written
/// with it reads as the path (`∕home∕oleksandr∕…`, `C:¥Users¥tanaka¥…`).
fn is_separator_homoglyph(c: char) -> bool {
    matches!(
        c,
        '\u{2215}'
            | '\u{2044}'
            | '\u{29F8}'
            | '\u{FF0F}'
            | '\u{2216}'
            | '\u{29F9}'
            | '\u{FF3C}'
            | '\u{A5}'
            | '\u{FFE5}'
            | '\u{20A9}'
    )
}

/// The ASCII character a fullwidth form (`U+FF01`–`U+FF5E`), a separator's homoglyph
/// ([`is_separator_homoglyph`]) or a Latin letter's Cyrillic or Greek look-alike
/// ([`latin_look_alike`]) stands for.
fn folded(c: char) -> Option<char> {
    let u = u32::from(c);
    match c {
        '\u{2215}' | '\u{2044}' | '\u{29F8}' => Some('/'),
        '\u{2216}' | '\u{29F9}' | '\u{A5}' | '\u{FFE5}' | '\u{20A9}' => Some('\\'),
        _ => latin_look_alike(c)
            .or_else(|| (0xFF01..=0xFF5E).contains(&u).then(|| char::from_u32(u - 0xFF01 + 0x21)).flatten()),
    }
}

/// The Latin letter a Cyrillic or Greek letter is drawn like (`о` → `o`, `р` → `p`, `Ѕ` →
/// `S`, `ο` → `o`): what a path or token typed with one in it (`/hоme/…`) reads as.
fn latin_look_alike(c: char) -> Option<char> {
    const PAIRS: &[(char, char)] = &[
        ('а', 'a'),
        ('е', 'e'),
        ('о', 'o'),
        ('р', 'p'),
        ('с', 'c'),
        ('у', 'y'),
        ('х', 'x'),
        ('і', 'i'),
        ('ј', 'j'),
        ('ѕ', 's'),
        ('һ', 'h'),
        ('ԁ', 'd'),
        ('А', 'A'),
        ('В', 'B'),
        ('Е', 'E'),
        ('К', 'K'),
        ('М', 'M'),
        ('Н', 'H'),
        ('О', 'O'),
        ('Р', 'P'),
        ('С', 'C'),
        ('Т', 'T'),
        ('Х', 'X'),
        ('І', 'I'),
        ('Ѕ', 'S'),
        ('ο', 'o'),
        ('α', 'a'),
        ('ν', 'v'),
        ('Ο', 'O'),
        ('Α', 'A'),
        ('Β', 'B'),
        ('Ε', 'E'),
        ('Κ', 'K'),
        ('Μ', 'M'),
        ('Ν', 'N'),
        ('Τ', 'T'),
    ];
    PAIRS.iter().find(|(from, _)| *from == c).map(|&(_, to)| to)
}

/// The ASCII character an escape at `bytes[i..]` spells and the escape's length: `\u00HH`,
/// `\U000000HH` or `\xHH` with `HH` a printable ASCII character (`\u0073` is `s`), or a blank, tab or
/// line break, each spelt as a blank (the undone line stays one line).
fn escaped_ascii_at(bytes: &[u8], i: usize) -> Option<(char, usize)> {
    let hex = |b: &[u8]| -> Option<u8> {
        let s = std::str::from_utf8(b).ok()?;
        let c = u8::from_str_radix(s, 16).ok()?;
        match c {
            0x20..=0x7E => Some(c),
            0x09 | 0x0A | 0x0D => Some(b' '),
            _ => None,
        }
    };
    match bytes.get(i..i + 2)? {
        b"\\u" if bytes.get(i + 2..i + 4)? == b"00" => hex(bytes.get(i + 4..i + 6)?).map(|c| (char::from(c), 6)),
        b"\\u" if bytes.get(i + 2) == Some(&b'{') => {
            // `\u{6f}`: one to six hex digits in braces (JavaScript, Rust, Swift).
            let close = bytes.get(i + 3..(i + 10).min(bytes.len()))?.iter().position(|&b| b == b'}')?;
            let digits = bytes.get(i + 3..i + 3 + close)?;
            let digits = digits.strip_prefix(b"0000").or_else(|| digits.strip_prefix(b"00")).unwrap_or(digits);
            (1..=2).contains(&digits.len()).then_some(())?;
            hex(digits).map(|c| (char::from(c), close + 4))
        }
        // `\U00000073`: eight hex digits (Python, C99).
        b"\\U" if bytes.get(i + 2..i + 8)? == b"000000" => hex(bytes.get(i + 8..i + 10)?).map(|c| (char::from(c), 10)),
        b"\\x" => hex(bytes.get(i + 2..i + 4)?).map(|c| (char::from(c), 4)),
        [b'\\', b'0'..=b'3'] => {
            // `\150`: three octal digits (printf, C, Python bytes).
            let d = bytes.get(i + 1..i + 4)?;
            d.iter().all(|b| (b'0'..=b'7').contains(b)).then_some(())?;
            let c = d.iter().fold(0u8, |v, b| v * 8 + (b - b'0'));
            matches!(c, 0x21..=0x7E).then(|| (char::from(c), 4))
        }
        _ => None,
    }
}

/// Fewest escaped ASCII characters in a run ([`escaped_run`]) that make a disguise
/// (`\u0073\u006b…`): a JSON text's `\u00e9` is an accent (not ASCII), and a lone `\x20`
/// or `\u0022` is a blank or a quote, not a token spelt in escapes.
const ESCAPED_RUN: usize = 4;

/// Fewest plain token bytes ([`is_token_byte`]) a run of escapes may hold between two of
/// them: a token partly escaped (`\u0073k_\u006civ…`, `\x2fhome\x2fvaleria\x2f…`).
const ESCAPED_GAP: usize = 12;

/// The end of the run of escaped ASCII characters starting at `p` ([`escaped_ascii_at`]),
/// with up to [`ESCAPED_GAP`] plain token bytes between two escapes, and how many escapes
/// it holds.
fn escaped_run(bytes: &[u8], p: usize) -> (usize, usize) {
    let (mut end, mut n) = (p, 0);
    let mut at = p;
    loop {
        if let Some((_, len)) = escaped_ascii_at(bytes, at) {
            at += len;
            end = at;
            n += 1;
            continue;
        }
        let gap = bytes[at.min(bytes.len())..].iter().take(ESCAPED_GAP + 1).take_while(|&&b| is_token_byte(b)).count();
        if gap == 0 || gap > ESCAPED_GAP || bytes.get(at + gap) != Some(&b'\\') {
            return (end, n);
        }
        at += gap;
    }
}

/// A byte a split token is made of on either side of a join.
pub(super) fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+' | b'/' | b'=' | b'.')
}

/// Where a concatenation join starts at quote `q` of `bytes`: the closing quote after a
/// token byte, then either the other quote right after it (a shell word made of quoted
/// pieces, `'xo'"xb-"'…'`) or blanks (a line break too, or a backslash continuing the
/// line), at most one `+` or `.`/`..` operator, blanks, and the same quote, before a token
/// byte. Returns the end of the join
/// (the byte after the opening quote).
fn join_at(bytes: &[u8], q: usize) -> Option<usize> {
    let quote = bytes[q];
    if q == 0 || !is_token_byte(bytes[q - 1]) {
        return None;
    }
    let other = if quote == b'"' { b'\'' } else { b'"' };
    if bytes.get(q + 1) == Some(&other) && bytes.get(q + 2).copied().is_some_and(is_token_byte) {
        return Some(q + 2);
    }
    let mut i = q + 1;
    // Blanks, line breaks and a backslash that continues the line (`"SG." + \`).
    let blanks = |i: &mut usize| loop {
        match bytes.get(*i) {
            Some(b' ' | b'\t' | b'\r' | b'\n') => *i += 1,
            Some(b'\\') if matches!(bytes.get(*i + 1), Some(b'\n' | b'\r')) => *i += 1,
            _ => break,
        }
    };
    blanks(&mut i);
    if bytes.get(i) == Some(&b'+') {
        i += 1;
    } else if bytes.get(i..i + 2) == Some(b"..") {
        i += 2;
    }
    blanks(&mut i);
    (bytes.get(i) == Some(&quote) && bytes.get(i + 1).copied().is_some_and(is_token_byte)).then_some(i + 1)
}

/// Whether the bytes `b`, `next` can start a disguise: a quote followed by what a join
/// needs next (a blank or line break, `+`, `.`, or a quote: see [`join_at`]), or the
/// first two bytes of a zero-width character (`E2 80`, `E2 81`, `EF BB`), of a fullwidth
/// form (`EF BC`, `EF BD`) or of a separator's homoglyph (`E2 82`, `E2 88`, `E2 A7`, `EF BF`,
/// `C2 A5`), or where Latin meets a Greek or Cyrillic letter ([`look_alike_edge`]).
/// Bitwise, without branches, for the block test.
#[allow(clippy::needless_bitwise_bool)]
fn may_start_disguise(b: u8, next: u8) -> bool {
    let quote = (b == b'"') | (b == b'\'');
    let joins = (next == b' ') | (next == b'\t') | (next == b'\r') | (next == b'\n') | (next == b'+') | (next == b'.');
    let wide = (b == 0xE2) & ((next == 0x80) | (next == 0x81) | (next == 0x82) | (next == 0x88) | (next == 0xA7))
        | (b == 0xEF) & ((0xBB..=0xBD).contains(&next) | (next == 0xBF))
        | (b == 0xC2) & (next == 0xA5);
    let escape = (b == b'\\') & ((next == b'u') | (next == b'U') | (next == b'x') | (b'0'..=b'3').contains(&next));
    quote & (joins | (next == b'"') | (next == b'\'')) | wide | escape | look_alike_edge(b, next)
}

/// Whether bytes `b`, `next` are where Latin meets a Greek or Cyrillic letter: an ASCII
/// letter, digit or `/` before the lead byte of one (`CE`, `CF`, `D0`, `D1`, `D4`), or a
/// continuation byte (the end of a two-byte letter) before an ASCII letter, digit or `/`.
/// Inside Russian or Greek words neither occurs, so their text makes no candidates.
#[allow(clippy::needless_bitwise_bool)]
fn look_alike_edge(b: u8, next: u8) -> bool {
    let latin = |x: u8| x.is_ascii_alphanumeric() | (x == b'/');
    let lead = |x: u8| (x == 0xCE) | (x == 0xCF) | (x == 0xD0) | (x == 0xD1) | (x == 0xD4);
    (latin(b) & lead(next)) | ((b & 0xC0 == 0x80) & latin(next))
}

/// The Greek or Cyrillic letter at a [`look_alike_edge`] found at `p`: `(start, end)` of
/// the letter after an ASCII byte at `p`, or of the two-byte letter ending at `p`, when it
/// is one of [`latin_look_alike`]'s.
fn look_alike_at(text: &str, p: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let start = if bytes[p].is_ascii() { p + 1 } else { p.checked_sub(1)? };
    let c = text.get(start..)?.chars().next()?;
    let end = start + c.len_utf8();
    (latin_look_alike(c).is_some() && (bytes[p].is_ascii() || end == p + 1)).then_some((start, end))
}

/// The disguised stretches whose disguise starts in `text[from..to]`: `(line start, line
/// end)` of each, in order, possibly overlapping (a join across a line break takes both
/// lines). Found from the bytes that can start a disguise: a zero-width character's or
/// fullwidth letter's first byte (`E2`, `EF`) and the quotes. The scan calls this piece by
/// piece, while each piece is in cache, and hands the stretches to [`undone`]. The bytes
/// are screened with [`may_start_disguise`] in blocks ([`super::blocks::offsets_where`]).
#[must_use]
pub(super) fn stretches(text: &str, from: usize, to: usize) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    // The last span marked: candidates come in order, and a long line holds many, so a
    // candidate inside it reuses its bounds instead of searching the line again (that
    // search, per candidate, made a 10 MB line of quotes take minutes).
    let mut last: Option<(usize, usize)> = None;
    let mut mark = |p: usize, end: usize| {
        let within = last.filter(|&(start, stop)| p >= start && p <= stop);
        if within.is_some_and(|(_, stop)| end <= stop) {
            return;
        }
        let start = within.map_or_else(|| memchr::memrchr(b'\n', &bytes[..p]).map_or(0, |i| i + 1), |(start, _)| start);
        let stop = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |i| end + i);
        spans.push((start, stop));
        last = Some((start, stop));
    };
    let mut candidates = Vec::new();
    // The screen: every byte a join needs after a quote is at most `.` (0x2E), and `,` (after
    // every JSON string but the last) is not one of them.
    let screen = |b: u8, n: u8| {
        let quote = u8::from(b == b'"') | u8::from(b == b'\'');
        (quote & u8::from(n <= b'.') & u8::from(n != b','))
            | u8::from(b == 0xE2)
            | u8::from(b == 0xEF)
            | u8::from(b == 0xC2)
            | u8::from(b == b'\\')
            | u8::from(look_alike_edge(b, n))
            != 0
    };
    super::blocks::offsets_where(bytes, (from, to), screen, may_start_disguise, &mut candidates);
    let mut escapes_end = 0;
    for p in candidates {
        if matches!(bytes[p], b'"' | b'\'') {
            if let Some(e) = join_at(bytes, p) {
                mark(p, e);
            }
            continue;
        }
        if bytes[p] == b'\\' {
            // A run is measured once, from its first escape: the candidates inside it are
            // skipped (measuring from each made a long run cost its length squared).
            if p >= escapes_end {
                let (end, n) = escaped_run(bytes, p);
                escapes_end = end.max(p + 1);
                if n >= ESCAPED_RUN {
                    mark(p, end);
                }
            }
            continue;
        }
        // A Cyrillic or Greek letter drawn like a Latin one, beside a Latin letter, digit or
        // `/` (`/hоme/…` with a Cyrillic `о`): in Russian or Greek words it has neither.
        if bytes[p].is_ascii_alphanumeric() || bytes[p] == b'/' || bytes[p] & 0xC0 == 0x80 {
            if let Some((start, end)) = look_alike_at(text, p) {
                mark(start, end);
            }
            continue;
        }
        // Most E2 and EF bytes start punctuation (`“` `—` `，` `：`): the second byte rules
        // them out before any decoding.
        let second = bytes.get(p + 1).copied().unwrap_or(0);
        if !matches!(
            (bytes[p], second),
            (0xE2, 0x80 | 0x81 | 0x82 | 0x88 | 0xA7) | (0xEF, 0xBB..=0xBD | 0xBF) | (0xC2, 0xA5)
        ) {
            continue;
        }
        let Some(c) = text.get(p..).and_then(|s| s.chars().next()) else { continue };
        if (is_zero_width(c) && p > 0) || is_fullwidth_alnum(c) || is_separator_homoglyph(c) {
            mark(p, p + c.len_utf8());
        }
    }
    mark_words(bytes, from, to, &mut mark);
    spans
}

/// Marks (`mark(start, end)`, as in [`stretches`]) what the words of [`PIECE_CALL_SEARCH`]
/// in `bytes[from..to]` reach: calls that assemble a string from literal pieces (`''.join([…])`,
/// `[…].join`, `string.Concat(…)`, `"{}-{}".format(…)`, `os.path.join(…)`) on their line;
/// calls that reverse a string (`"…_fh"[::-1]`) with the two lines before (the literal may
/// be assigned there: `_k = "…"` then `token = _k[::-1]`); an announcement in prose with the
/// [`ANNOUNCED_ABOVE`] lines before (`…_phg` then `(the line above is reversed)`) and the
/// [`ANNOUNCED_REACH`] lines after.
fn mark_words(bytes: &[u8], from: usize, to: usize, mark: &mut impl FnMut(usize, usize)) {
    let piece = &bytes[from..to.min(bytes.len())];
    // Per kind of word, the end of the line of the last one marked: another on the same line
    // marks nothing new, and measuring its reach again made a line of them quadratic.
    let mut done = [0usize; 3];
    let mut at = 0;
    while let Some(m) = PIECE_CALL_SEARCH.find(piece, at) {
        at = m.end();
        let p = from + m.start();
        let k = m.pattern().as_usize();
        let kind = if k < PIECE_CALLS.len() {
            0
        } else if k < PIECE_CALLS.len() + REVERSALS.len() {
            1
        } else {
            2
        };
        if p < done[kind] {
            continue;
        }
        let line_end = memchr::memchr(b'\n', &bytes[p..]).map_or(bytes.len(), |i| p + i);
        done[kind] = line_end;
        match kind {
            0 => mark(p, line_end),
            1 => mark(lines_before(bytes, p, 2), line_end),
            _ => mark(lines_before(bytes, p, ANNOUNCED_ABOVE), lines_after(bytes, line_end, ANNOUNCED_REACH)),
        }
    }
}

/// The start of the line `n` lines above the one holding byte `p` (the text's start when
/// there are fewer).
fn lines_before(bytes: &[u8], p: usize, n: usize) -> usize {
    let mut start = memchr::memrchr(b'\n', &bytes[..p]).map_or(0, |i| i + 1);
    for _ in 0..n {
        if start == 0 {
            break;
        }
        start = memchr::memrchr(b'\n', &bytes[..start - 1]).map_or(0, |i| i + 1);
    }
    start
}

/// The end of the line `n` lines below the one holding byte `p` (the text's end when there
/// are fewer).
fn lines_after(bytes: &[u8], p: usize, n: usize) -> usize {
    let mut end = memchr::memchr(b'\n', &bytes[p..]).map_or(bytes.len(), |i| p + i);
    for _ in 0..n {
        if end >= bytes.len() {
            break;
        }
        end = memchr::memchr(b'\n', &bytes[end + 1..]).map_or(bytes.len(), |i| end + 1 + i);
    }
    end
}

/// One search for every [`PIECE_CALLS`] word: a vector (Teddy) search where the machine has
/// one, Aho-Corasick otherwise.
enum PieceCallSearch {
    Packed(aho_corasick::packed::Searcher),
    Automaton(aho_corasick::AhoCorasick),
}

impl PieceCallSearch {
    fn find(&self, hay: &[u8], at: usize) -> Option<aho_corasick::Match> {
        let span = aho_corasick::Span::from(at..hay.len());
        match self {
            PieceCallSearch::Packed(s) => s.find_in(hay, span),
            PieceCallSearch::Automaton(a) => a.find(aho_corasick::Input::new(hay).span(span)),
        }
    }
}

/// One search for [`PIECE_CALLS`], [`REVERSALS`] and the announcing words ([`ROT13`],
/// [`SAID_REVERSED`], [`SAID_WRAPPED`]), in that order (a match's pattern index tells which).
static PIECE_CALL_SEARCH: std::sync::LazyLock<PieceCallSearch> = std::sync::LazyLock::new(|| {
    let words = || PIECE_CALLS.iter().chain(REVERSALS).chain(ROT13).chain(SAID_REVERSED).chain(SAID_WRAPPED).copied();
    match aho_corasick::packed::Searcher::new(words()) {
        Some(s) => PieceCallSearch::Packed(s),
        None => PieceCallSearch::Automaton(aho_corasick::AhoCorasick::new(words()).expect("static words build")),
    }
});

/// The calls whose quoted arguments [`undo_line`] puts together ([`pieces_joined`]).
const PIECE_CALLS: &[&[u8]] = &[b"join", b"oncat", b".format("];

/// What reverses a string in code, as searched: Python's `[::-1]`, JavaScript's and Java's
/// `….reverse()` after a call (`split('')`, `new StringBuilder(…)`), PHP's `strrev(`, VB's
/// `StrReverse(`, Rust's `chars().rev()`. Each starts with bytes rare in prose (a search
/// for `reverse` or `str…` ran on every `review` and `string`). Python's `''.join(reversed(…))`
/// is found as a join ([`PIECE_CALLS`]). The literals near one are also read backwards
/// ([`reversed_literals`]).
const REVERSALS: &[&[u8]] = &[b"[::-1]", b").reverse()", b"rrev(", b"rReverse(", b"().rev()"];

/// Whether `lines` reverse a string: one of [`REVERSALS`], or `reversed(`.
fn reverses(lines: &str) -> bool {
    let b = lines.as_bytes();
    REVERSALS.iter().copied().chain([&b"reversed("[..]]).any(|w| memchr::memmem::find(b, w).is_some())
}

/// Fewest characters of a literal read backwards: the shortest token prefix and body a rule
/// asks for are longer.
pub(super) const REVERSED_MIN: usize = 16;

/// The quoted literals of `lines` ([`literals_of`]) of [`REVERSED_MIN`] or more token bytes,
/// each read backwards, one per line: a token kept reversed and flipped at run time.
fn reversed_literals(lines: &str, out: &mut String) {
    for line in lines.lines() {
        for lit in literals_of(line) {
            if lit.len() >= REVERSED_MIN && lit.bytes().all(is_token_byte) {
                out.extend(lit.chars().rev());
                out.push('\n');
            }
        }
    }
}

/// The contents of the quoted literals of `line` (`'…'`, `"…"`; a backslash escapes the
/// next byte), in order. Backticks are not quotes here: Markdown puts code in them.
fn literals_of(line: &str) -> Vec<&str> {
    literals_in(line, b"\"'")
}

/// The contents of `line`'s literals between any of the `quotes` (a backslash escapes the
/// next byte), in order.
pub(super) fn literals_in<'a>(line: &'a str, quotes: &[u8]) -> Vec<&'a str> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let q = bytes[i];
        if !quotes.contains(&q) {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < bytes.len() && bytes[j] != q {
            j += if bytes[j] == b'\\' { 2 } else { 1 };
        }
        if let Some(s) = line.get(i + 1..j.min(bytes.len())) {
            out.push(s);
        }
        i = j + 1;
    }
    out
}

/// The strings a piece-assembling call on `line` can make ([`PIECE_CALLS`]): its quoted
/// literals joined with nothing and with `/` (a path join), and a `{}` template filled with
/// the literals after it. Empty when the line has fewer than two literals.
fn pieces_joined(line: &str) -> Vec<String> {
    let lits: Vec<&str> = literals_of(line).into_iter().filter(|l| !l.is_empty()).collect();
    if lits.len() < 2 {
        return Vec::new();
    }
    let mut out = vec![lits.concat(), lits.join("/").replace("//", "/")];
    let (template, args) = (lits[0], &lits[1..]);
    if template.matches("{}").count() == args.len() {
        let mut filled = String::new();
        let mut rest = template;
        for a in args {
            let (before, after) = rest.split_once("{}").unwrap_or((rest, ""));
            filled.push_str(before);
            filled.push_str(a);
            rest = after;
        }
        filled.push_str(rest);
        out.push(filled);
    }
    out
}

/// The text with every disguise undone, as the disguised lines alone (each ending in `\n`),
/// with `(offset in it, offset in text)` at each line's start; `None` when `text` holds no
/// disguise.
#[cfg(test)]
fn undisguised(text: &str) -> Option<(String, Vec<(usize, usize)>)> {
    undone(text, stretches(text, 0, text.len()))
}

/// The lines of `text` covered by `spans` ([`stretches`], in any order), merged and with
/// every disguise undone, each ending in `\n`, with `(offset in it, offset in text)` at each
/// line's start; `None` when there is no span.
#[must_use]
pub(super) fn undone(text: &str, mut spans: Vec<(usize, usize)>) -> Option<(String, Vec<(usize, usize)>)> {
    spans.sort_unstable();
    spans.dedup();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (start, stop) in spans {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(stop),
            _ => merged.push((start, stop)),
        }
    }
    let spans = merged;
    if spans.is_empty() {
        return None;
    }
    let mut out = String::new();
    let mut map = Vec::with_capacity(spans.len());
    for (start, end) in spans {
        map.push((out.len(), start));
        let lines = &text[start..end];
        undo_line(lines, &mut out);
        out.push('\n');
        for line in
            lines.lines().filter(|l| PIECE_CALLS.iter().any(|w| memchr::memmem::find(l.as_bytes(), w).is_some()))
        {
            for joined in pieces_joined(line) {
                out.push_str(&joined);
                out.push('\n');
            }
        }
        if reverses(lines) {
            reversed_literals(lines, &mut out);
        }
        announced::announced(lines, &mut out);
    }
    Some((out, map))
}

/// Appends `line` to `out` without zero-width characters, with fullwidth forms folded to
/// ASCII, escaped ASCII characters (`\u0073`, `\x73`) spelt out and concatenation joins
/// removed.
fn undo_line(line: &str, out: &mut String) {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < line.len() {
        let b = bytes[i];
        if matches!(b, b'"' | b'\'')
            && let Some(e) = join_at(bytes, i)
        {
            i = e;
            continue;
        }
        if b == b'\\'
            && let Some((c, len)) = escaped_ascii_at(bytes, i)
        {
            out.push(c);
            i += len;
            continue;
        }
        let Some(c) = line[i..].chars().next() else { break };
        if !is_zero_width(c) {
            out.push(folded(c).unwrap_or(c));
        }
        i += c.len_utf8();
    }
}

#[path = "disguise_announced.rs"]
mod announced;
use announced::{ANNOUNCED_ABOVE, ANNOUNCED_REACH, ROT13, SAID_REVERSED, SAID_WRAPPED};
pub(super) use announced::{announced_tokens, announces};

#[cfg(test)]
#[path = "disguise_tests.rs"]
mod tests;
