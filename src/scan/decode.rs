//! Decoding for the scan: base64 runs and percent-encoded lines are found and decoded here, so
//! a secret hidden in either is scanned too. Pure.

use base64::Engine as _;

/// Whether a byte belongs to the base64 alphabet (standard or URL-safe, padding excluded).
pub(super) static B64: [bool; 256] = {
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

/// Whether a byte belongs to the base64 alphabet, in arithmetic and comparisons only (no
/// table), so a block's test compiles to vector code; the same set as [`B64`].
fn is_b64(b: u8) -> bool {
    let letter = (b | 0x20).wrapping_sub(b'a') < 26;
    let digit = b.wrapping_sub(b'0') < 10;
    #[allow(clippy::needless_bitwise_bool)]
    let any = letter | digit | (b == b'+') | (b == b'/') | (b == b'_') | (b == b'-');
    any
}

#[cfg(test)]
#[test]
fn the_arithmetic_alphabet_is_the_table() {
    for b in 0..=255u8 {
        assert_eq!(is_b64(b), B64[usize::from(b)], "byte {b:#04x}");
    }
}

/// Bytes per aligned block of [`base64_runs`]' screen. A run of at least
/// `2 * RUN_BLOCK - 1` bytes holds a whole aligned block, and [`B64_MIN_RUN`] is at least that.
const RUN_BLOCK: usize = 16;

/// Maximal runs of [`B64_MIN_RUN`] or more base64 characters, each with up to two `=` of
/// padding after it: `(start, end)` byte offsets, in order.
///
/// Tests aligned 16-byte blocks: a run that long holds a whole one, so only a block made
/// entirely of the alphabet (rare in prose, code and logs) is grown into its run.
pub(super) fn base64_runs(bytes: &[u8]) -> Vec<(usize, usize)> {
    const _: () = assert!(B64_MIN_RUN >= 2 * RUN_BLOCK - 1);
    let mut out = Vec::new();
    screened_runs(bytes, is_b64, |start, run_end| {
        let mut end = run_end;
        while end < bytes.len() && bytes[end] == b'=' && end - run_end < 2 {
            end += 1;
        }
        if run_end - start >= B64_MIN_RUN {
            out.push((start, end));
        }
        end
    });
    out
}

/// Line widths at which an encoder's wrapped output is joined: 76 (`base64`, `base32` and
/// MIME by default), 64 (PEM, `openssl base64`) and whatever `-w N` asked for, from
/// [`B64_MIN_RUN`] (the shortest run [`base64_runs`] reports) to 128.
const WRAP_WIDTHS: std::ops::RangeInclusive<usize> = B64_MIN_RUN..=128;

/// The runs of [`base64_runs`] in `bytes` that an encoder wrapped: a run that is its whole
/// line (blanks around it aside), of a width in [`WRAP_WIDTHS`], and the lines after it
/// that hold only the alphabet (the last one shorter, with its padding: [`wrapped_line`]),
/// joined without their breaks: `(start of the first line, joined run)`. `echo $TOKEN | base64` wraps a token of more than 57 bytes so, and its
/// halves decode to nothing whole. A block of more than [`WRAP_LINES_MAX`] lines (an
/// attachment, a key's body) is no token and is passed over without a copy.
#[must_use]
pub(super) fn wrapped_runs(bytes: &[u8], runs: &[(usize, usize)]) -> Vec<(usize, Vec<u8>)> {
    let line_end = |from: usize| memchr::memchr(b'\n', &bytes[from..]).map_or(bytes.len(), |i| from + i);
    let mut out = Vec::new();
    let mut skip_to = 0;
    for &(start, end) in runs {
        // The run is its line's text: blanks (a YAML block's indent) may stand around it.
        // Read outward from the run over blanks only, so a long line of many runs costs no
        // more than its length.
        let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r');
        let lead = bytes[..start].iter().rev().take_while(|b| blank(b)).count();
        let opens_line = start == lead || bytes[start - lead - 1] == b'\n';
        if start < skip_to || !opens_line || !WRAP_WIDTHS.contains(&(end - start)) {
            continue;
        }
        let trail = end + bytes[end..].iter().take_while(|b| blank(b)).count();
        if trail < bytes.len() && bytes[trail] != b'\n' {
            continue;
        }
        let width = end - start;
        let mut joined = bytes[start..end].to_vec();
        let (mut next, mut lines) = (trail + 1, 1);
        while next < bytes.len() {
            let stop = line_end(next);
            let Some(line) = wrapped_line(&bytes[next..stop]) else { break };
            lines += 1;
            if lines <= WRAP_LINES_MAX {
                joined.extend_from_slice(line);
            }
            next = stop + 1;
            if line.len() != width {
                break;
            }
        }
        skip_to = next;
        if lines > 1 && lines <= WRAP_LINES_MAX {
            out.push((start, joined));
        }
    }
    out
}

/// The most lines [`wrapped_runs`] joins: 16 lines of 76 hold 912 bytes, more than any
/// token or key a rule names.
const WRAP_LINES_MAX: usize = 16;

/// A wrapped run's line without its blanks and `\r` around it: the alphabet only, then up to
/// six `=` (base32 pads to eight characters).
fn wrapped_line(line: &[u8]) -> Option<&[u8]> {
    let line = line.trim_ascii();
    let pad = line.iter().rev().take_while(|&&b| b == b'=').count().min(6);
    (!line.is_empty() && line[..line.len() - pad].iter().all(|&b| B64[usize::from(b)])).then_some(line)
}

/// Hands `found` each maximal run of bytes for which `member` holds that contains a whole
/// aligned block of [`RUN_BLOCK`] bytes, as `(start, end)`, in order; `found` returns where
/// the run's use ends (at or after `end`: base64 padding), and the search goes on from
/// there. `member` should be arithmetic and comparisons only, so a block's test compiles to
/// vector code: only a block made entirely of members (rare in prose, code and logs) is
/// grown into its run.
fn screened_runs(bytes: &[u8], member: impl Fn(u8) -> bool, mut found: impl FnMut(usize, usize) -> usize) {
    // Invariant: every run ending before `i` is handled, and `i` is not inside a run.
    let mut i = 0;
    let mut a = 0;
    while let Some(block) = bytes.get(a..a + RUN_BLOCK).and_then(|b| <&[u8; RUN_BLOCK]>::try_from(b).ok()) {
        let mut all = 1u8;
        for &b in block {
            all &= u8::from(member(b));
        }
        if all == 0 {
            a += RUN_BLOCK;
            continue;
        }
        let mut start = a;
        while start > i && member(bytes[start - 1]) {
            start -= 1;
        }
        let mut end = a + RUN_BLOCK;
        while end < bytes.len() && member(bytes[end]) {
            end += 1;
        }
        i = found(start, end).max(end);
        a = i.div_ceil(RUN_BLOCK) * RUN_BLOCK;
    }
}

/// Hands `found` each maximal run of base64-alphabet characters (padding excluded) that
/// holds a whole aligned block of [`RUN_BLOCK`] bytes, as [`screened_runs`] does; every run
/// of `2 * RUN_BLOCK - 1` (31) or more characters is one of them. For the prefilter's
/// [`super::rules::Gate::Run`].
pub(super) fn alphabet_runs(bytes: &[u8], found: impl FnMut(usize, usize) -> usize) {
    screened_runs(bytes, is_b64, found);
}

/// Shortest decoded text that is read as base64 once more when it is nothing else
/// ([`whole_run`]): base64 of a 12-byte value.
const WHOLE_RUN_MIN: usize = 16;

/// A decoded text that is, blanks aside, one base64 run shorter than [`B64_MIN_RUN`] but of
/// at least [`WHOLE_RUN_MIN`] characters (with up to two `=`): `(start, end)`. A secret
/// encoded twice is short inside the outer layer (a 26-character token is 36 characters of
/// base64), too short for [`base64_runs`] in free text but alone in what the outer layer held.
pub(super) fn whole_run(decoded: &[u8]) -> Option<(usize, usize)> {
    let start = decoded.iter().position(|b| !b.is_ascii_whitespace())?;
    let end = decoded.iter().rposition(|b| !b.is_ascii_whitespace())? + 1;
    let run = &decoded[start..end];
    let body = run.len() - run.iter().rev().take(2).take_while(|&&b| b == b'=').count();
    let all = run[..body].iter().all(|&b| B64[usize::from(b)]);
    (all && (WHOLE_RUN_MIN..B64_MIN_RUN).contains(&body)).then_some((start, end))
}

/// Decoded lines are handed on in batches of about this many bytes, so the decoded copy
/// stays small and in cache whatever the size of the text.
pub(super) const PERCENT_BATCH: usize = 64 * 1024;

/// The lines of `text` that hold an escape of a printable ASCII byte ([`escape_at`]: `%XX`,
/// or an HTML character reference such as `&#47;`), decoded and joined, handed to `f` in
/// batches of at least `batch` bytes (the last may be shorter) with the offset map of
/// [`raw_offset`]. Lines are found from the `%` and `&` signs, so text without any costs one
/// `memchr2`; a decoded line is copied a run at a time.
pub(super) fn percent_batches(text: &str, batch: usize, mut f: impl FnMut(&str, &[(usize, usize)])) {
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
    while let Some(k) = memchr::memchr2(b'%', b'&', &bytes[from..]) {
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
            if let Some((b, len)) = escape_at(bytes, at) {
                decoded.extend_from_slice(&bytes[run..at]);
                map.push((decoded.len(), at));
                decoded.push(b);
                map.push((decoded.len(), at + len));
                run = at + len;
                at = run;
            } else {
                at += 1;
            }
            match memchr::memchr2(b'%', b'&', &bytes[at.min(line_end)..line_end]) {
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
pub(super) fn percent_lines(text: &str) -> Option<(String, Vec<(usize, usize)>)> {
    let mut out: Option<(String, Vec<(usize, usize)>)> = None;
    percent_batches(text, usize::MAX, |d, m| out = Some((d.to_owned(), m.to_vec())));
    out
}

/// The byte and length of the escape at `at` whose first `%XX` stands for `b`: a `%` escaped
/// again (`%252F`, a URL encoded twice) stands for the escape after it (`/`, 5 bytes).
fn twice_escaped(bytes: &[u8], at: usize, b: u8) -> (u8, usize) {
    let digit = |c: u8| (c as char).to_digit(16);
    let inner = bytes.get(at + 3..at + 5).and_then(|h| Some(digit(h[0])? * 16 + digit(h[1])?));
    match inner {
        Some(v) if b == b'%' && (0x20..0x7f).contains(&v) => (v as u8, 5),
        _ => (b, 3),
    }
}

/// The byte the escape at `at` stands for and the escape's length, when the byte is
/// printable ASCII: a `%XX` escape (a `%` escaped again reads through: [`twice_escaped`]), or
/// an HTML character reference (`&#47;`, `&#x2F;`, and the named `&sol;`, `&bsol;`,
/// `&colon;`, `&period;`: a path or URL written into HTML with its separators escaped).
fn escape_at(bytes: &[u8], at: usize) -> Option<(u8, usize)> {
    match bytes.get(at)? {
        b'%' => {
            let h = bytes.get(at..at + 3)?;
            let digit = |c: u8| (c as char).to_digit(16);
            let b = (digit(h[1])? * 16 + digit(h[2])?) as u8;
            (0x20..0x7f).contains(&b).then(|| twice_escaped(bytes, at, b))
        }
        b'&' => reference_at(&bytes[at..]),
        _ => None,
    }
}

/// The byte and length of an HTML character reference at the start of `r` that stands for
/// printable ASCII ([`escape_at`]): `&#` and one to four decimal digits, or `&#x` and one to
/// four hex digits, then `;`; or one of the named references of a path's punctuation.
fn reference_at(r: &[u8]) -> Option<(u8, usize)> {
    const NAMED: &[(&[u8], u8)] = &[(b"&sol;", b'/'), (b"&bsol;", b'\\'), (b"&colon;", b':'), (b"&period;", b'.')];
    if let Some((name, b)) = NAMED.iter().find(|(name, _)| r.starts_with(name)) {
        return Some((*b, name.len()));
    }
    let body = r.strip_prefix(b"&#")?;
    let (radix, digits) = match body.first() {
        Some(b'x' | b'X') => (16, &body[1..]),
        _ => (10, body),
    };
    let n = digits.iter().take(5).take_while(|c| (**c as char).is_digit(radix)).count();
    if !(1..=4).contains(&n) || digits.get(n) != Some(&b';') {
        return None;
    }
    let v = u32::from_str_radix(std::str::from_utf8(&digits[..n]).ok()?, radix).ok()?;
    let b = u8::try_from(v).ok().filter(|b| (0x20..0x7f).contains(b))?;
    Some((b, body.len() - digits.len() + n + 3))
}

/// Offset in the original text of byte `pos` of a [`percent_lines`] result. The map holds
/// `(decoded offset, original offset)` where the two stop running in step: at each line's
/// start and on either side of each decoded escape.
pub(super) fn raw_offset(map: &[(usize, usize)], pos: usize) -> usize {
    let i = map.partition_point(|&(d, _)| d <= pos).saturating_sub(1);
    map.get(i).map_or(0, |&(d, r)| r + (pos - d))
}

/// Decodes the escapes of printable ASCII bytes that [`percent_batches`] reads
/// ([`escape_at`]: `%XX`, what LoopX's metadata encoding produces, `%25XX` as one escape;
/// HTML character references) and returns the decoded text with, for each decoded byte,
/// the byte range it came from in `text`.
#[must_use]
pub(super) fn decode_ascii_percent(text: &str) -> (String, Vec<(usize, usize)>) {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut map = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if let Some((b, len)) = escape_at(bytes, i) {
            out.push(b);
            map.push((i, i + len));
            i += len;
            continue;
        }
        out.push(bytes[i]);
        map.push((i, i + 1));
        i += 1;
    }
    (String::from_utf8(out).unwrap_or_else(|_| text.to_owned()), map)
}

/// Decodes a run of [`base64_runs`] when the result is mostly printable text: as hex when
/// it is an even number of hex digits (a hex-encoded secret; a hash decodes to binary and is
/// left alone), else as base64. With the note a hit inside it carries.
#[must_use]
pub(super) fn decode_run_text(run: &[u8]) -> Option<(String, &'static str)> {
    if run.len().is_multiple_of(2) && run.iter().all(u8::is_ascii_hexdigit) {
        let bytes: Vec<u8> = run
            .chunks_exact(2)
            .filter_map(|p| std::str::from_utf8(p).ok().and_then(|h| u8::from_str_radix(h, 16).ok()))
            .collect();
        return printable_text(bytes).map(|t| (t, " (hex-encoded)"));
    }
    decode_base64_text(run)
        .map(|t| (t, " (inside base64)"))
        .or_else(|| decode_base32_text(run).map(|t| (t, " (base32-encoded)")))
}

/// Decodes a run of the base32 alphabet (RFC 4648 §6: `A`–`Z`, `2`–`7`, `=` padding; or
/// the same letters all in lower case, as some tools print it) when the result is mostly
/// printable text: a token kept in base32 (`IFKECVCU…`) reads as binary in base64.
fn decode_base32_text(run: &[u8]) -> Option<String> {
    let body = run.strip_suffix(b"=").unwrap_or(run);
    let body = body.iter().rposition(|&b| b != b'=').map_or(body, |i| &body[..=i]);
    // One case throughout: mixed case is base64's, not base32's.
    let first = if body.iter().any(u8::is_ascii_lowercase) { b'a' } else { b'A' };
    let mut out = Vec::with_capacity(body.len() * 5 / 8);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &b in body {
        let v = match b {
            b'2'..=b'7' => b - b'2' + 26,
            _ if b.wrapping_sub(first) < 26 => b - first,
            _ => return None,
        };
        acc = (acc << 5) | u32::from(v);
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    printable_text(out)
}

/// `bytes` as text when it is UTF-8 of at least 16 bytes and nine in ten of its characters
/// are printable or whitespace.
fn printable_text(bytes: Vec<u8>) -> Option<String> {
    let text = String::from_utf8(bytes).ok()?;
    let printable = text.chars().filter(|c| !c.is_control() || c.is_whitespace()).count();
    (text.len() >= 16 && printable * 10 >= text.chars().count() * 9).then_some(text)
}

/// Decodes a base64 (standard or URL-safe) run when the result is mostly printable text.
#[must_use]
pub(super) fn decode_base64_text(run: &[u8]) -> Option<String> {
    let trimmed: Vec<u8> = run.iter().copied().filter(|b| *b != b'=').collect();
    let decoded = base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(&trimmed)
        .or_else(|_| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(&trimmed))
        .ok()?;
    printable_text(decoded)
}

/// Fewest character codes in a run that [`char_code_runs`] decodes.
const CODES_MIN: usize = 16;

/// Whether a byte may be inside a run of character codes: a digit, a comma or a blank. In
/// arithmetic and comparisons only, so a block's test compiles to vector code.
fn is_code_byte(b: u8) -> bool {
    #[allow(clippy::needless_bitwise_bool)]
    let any = (b.wrapping_sub(b'0') < 10) | (b == b',') | (b == b' ');
    any
}

/// Runs of [`CODES_MIN`] or more decimal character codes of printable ASCII (32 to 126)
/// between commas, blanks allowed around them, as code writes a string it hides
/// (`String.fromCharCode(100, 111, …)`, `bytes([103, 104, …])`): `(start, end, decoded
/// text)`, in order. Every number of the run must be such a code (a trailing comma aside).
///
/// Screened as [`base64_runs`] is: sixteen codes take at least 47 bytes, so a run holds a
/// whole aligned block of [`RUN_BLOCK`] bytes made only of digits, commas and blanks.
pub(super) fn char_code_runs(bytes: &[u8]) -> Vec<(usize, usize, String)> {
    // Sixteen codes of two digits with a comma between take 47 bytes.
    const _: () = assert!(CODES_MIN * 3 > 2 * RUN_BLOCK - 1);
    let mut out = Vec::new();
    screened_runs(bytes, is_code_byte, |start, end| {
        if let Some(text) = codes_text(&bytes[start..end]) {
            out.push((start, end, text));
        }
        end
    });
    out
}

/// The text a run of [`char_code_runs`] spells: `None` unless every comma-separated number
/// (blanks trimmed; an empty last one allowed) is written in two or three digits and
/// [`spelt`] reads them.
fn codes_text(run: &[u8]) -> Option<String> {
    let mut pieces: Vec<&[u8]> = run.split(|&b| b == b',').map(<[u8]>::trim_ascii).collect();
    if pieces.last().is_some_and(|p| p.is_empty()) {
        pieces.pop();
    }
    spelt(pieces.iter().map(|p| std::str::from_utf8(p).ok().filter(|s| (2..=3).contains(&s.len()))?.parse().ok()))
}

/// The text that character codes spell (a JSON array `[115, 107, 95, …]`, or the numbers of
/// [`codes_text`]): `None` unless there are [`CODES_MIN`] or more and each is a number from
/// 32 to 126 (printable ASCII).
pub(super) fn spelt(codes: impl ExactSizeIterator<Item = Option<u64>>) -> Option<String> {
    if codes.len() < CODES_MIN {
        return None;
    }
    codes.map(|n| n.and_then(|n| u8::try_from(n).ok()).filter(|n| (32..=126).contains(n)).map(char::from)).collect()
}

/// `text` with each bare `\r` (one no `\n` follows: a classic Mac line end, or a break slipped
/// in to keep a transcript or trace from the line-anchored rules) read as `\n`; the same
/// length, so every offset holds. `None` when `text` has no bare `\r`.
pub(super) fn lone_cr_as_newline(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let lone = |&i: &usize| b.get(i + 1) != Some(&b'\n');
    memchr::memchr_iter(b'\r', b).find(lone)?;
    let mut out = b.to_vec();
    for i in memchr::memchr_iter(b'\r', b).filter(lone) {
        out[i] = b'\n';
    }
    // One ASCII byte for another keeps the text UTF-8.
    String::from_utf8(out).ok()
}
