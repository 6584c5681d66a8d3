//! Python-compatible text helpers: the exact string operations LoopX 0.5.4 (CPython)
//! applies, so that writegate reads, hashes and rewrites text byte for byte as LoopX does.

/// Universal-newline translation as `Path.read_text(encoding="utf-8")` applies it:
/// `\r\n` and a lone `\r` become `\n`. A UTF-8 BOM is kept as U+FEFF (FORMATS.md §5.2).
#[must_use]
pub fn universal_newlines(text: &str) -> std::borrow::Cow<'_, str> {
    if memchr::memchr(b'\r', text.as_bytes()).is_none() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            if chars.peek() == Some(&'\n') {
                chars.next();
            }
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// True for every character Python's `str.splitlines()` treats as a line boundary.
#[must_use]
pub fn is_line_boundary(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// Python `str.splitlines()` (no `keepends`): splits on every line boundary, `\r\n` counts
/// once, and a trailing boundary does not produce a final empty line.
#[must_use]
pub fn splitlines(text: &str) -> Vec<&str> {
    lines_of(text).collect()
}

/// Bytes that may start a line boundary in UTF-8: the ASCII boundaries, and the lead bytes
/// of U+0085 (`C2 85`) and of U+2028 / U+2029 (`E2 80 A8` / `E2 80 A9`). Neither lead byte
/// is ever a continuation byte, so a scan byte by byte never stops inside a character.
const BOUNDARY_START: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 7 {
        t[[b'\n', b'\r', 0x0b, 0x0c, 0x1c, 0x1d, 0x1e][i] as usize] = true;
        i += 1;
    }
    t[0xc2] = true;
    t[0xe2] = true;
    t
};

/// `0x01` in every byte of a word.
pub(crate) const ONES: u64 = u64::from_ne_bytes([1; 8]);
/// `0x80` in every byte of a word.
pub(crate) const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);

/// The eight bytes at `at` as one little-endian word, or `None` past `at + 8 > len`.
pub(crate) fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let eight: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(eight))
}

/// True when some byte of `word` is below `n` (at most 0x80) or at least 0x80. Exact: a
/// byte at 0x80 or above sets its own high bit; when none does, subtracting `n` from every
/// byte sets a high bit (and borrows) only where a byte is below `n`, and the lowest such
/// byte's own bit is always set.
fn any_below_or_high(word: u64, n: u8) -> bool {
    (word.wrapping_sub(ONES * u64::from(n)) | word) & HIGHS != 0
}

/// The length in bytes of the line boundary starting at `at` ([`is_line_boundary`]), or 0.
fn boundary_len(bytes: &[u8], at: usize) -> usize {
    match bytes[at] {
        0xc2 => usize::from(bytes.get(at + 1) == Some(&0x85)) * 2,
        0xe2 => usize::from(bytes.get(at + 1) == Some(&0x80) && matches!(bytes.get(at + 2), Some(0xa8 | 0xa9))) * 3,
        _ => 1,
    }
}

/// [`splitlines`] one line at a time, without collecting them. Scans bytes, not characters
/// (a state is split several times per apply).
pub fn lines_of(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let (mut start, mut at) = (0, 0);
    std::iter::from_fn(move || {
        while at < bytes.len() {
            // Eight bytes at a time over text with no byte that could start a boundary
            // (every one is below 0x1f or above 0x7f).
            if let Some(word) = word_at(bytes, at)
                && !any_below_or_high(word, 0x1f)
            {
                at += 8;
                continue;
            }
            if !BOUNDARY_START[usize::from(bytes[at])] {
                at += 1;
                continue;
            }
            let len = boundary_len(bytes, at);
            if len == 0 {
                at += 1;
                continue;
            }
            let line = &text[start..at];
            let crlf = bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n');
            at += len + usize::from(crlf);
            start = at;
            return Some(line);
        }
        (start < text.len()).then(|| {
            let line = &text[start..];
            start = text.len();
            line
        })
    })
}

/// True for characters Python's `str.isspace()` accepts (used by `split()` / `strip()`).
#[must_use]
pub fn is_py_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t'
            | '\n'
            | '\x0b'
            | '\x0c'
            | '\r'
            | '\x1c'..='\x1f'
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// Python `str.strip()` with no argument.
#[must_use]
pub fn py_strip(text: &str) -> &str {
    text.trim_matches(is_py_space)
}

/// Python `" ".join(text.split())`: collapses every whitespace run into one space.
#[must_use]
pub fn compact_whitespace(text: &str) -> String {
    if is_compact(text) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    for part in text.split(is_py_space).filter(|part| !part.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

/// `text` itself when [`compact_whitespace`] would return it unchanged (so no copy is
/// needed), else `None`.
#[must_use]
pub fn compact_borrowed(text: &str) -> Option<&str> {
    is_compact(text).then_some(text)
}

/// True when [`compact_whitespace`] would return `text` unchanged, read from the bytes
/// alone: ASCII only, no whitespace but single spaces between words. Any other text
/// (non-ASCII, where Python's whitespace includes several code points) says `false` and
/// takes the full path.
fn is_compact(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.first() == Some(&b' ') || bytes.last() == Some(&b' ') {
        return false;
    }
    let mut last_space = false;
    let (words, rest) = bytes.as_chunks::<8>();
    for eight in words {
        let word = u64::from_le_bytes(*eight);
        if any_below_or_high(word, 0x20) {
            // A control or non-ASCII byte: judged one byte at a time.
            if !compact_bytes(eight, &mut last_space) {
                return false;
            }
            continue;
        }
        // Printable ASCII only: 0x80 marks each space (`word ^ 0x20…` is zero there, and
        // below 0x80 everywhere, so adding 0x7f to each byte carries into no other).
        let spaces = !(word ^ (ONES * 0x20)).wrapping_add(ONES * 0x7f) & HIGHS;
        if spaces & (spaces >> 8) != 0 || (last_space && spaces & 0x80 != 0) {
            return false;
        }
        last_space = spaces >> 63 != 0;
    }
    compact_bytes(rest, &mut last_space)
}

/// [`is_compact`] over `bytes` one at a time, `last_space` carried from the bytes before.
fn compact_bytes(bytes: &[u8], last_space: &mut bool) -> bool {
    for &b in bytes {
        match b {
            b' ' if *last_space => return false,
            b' ' => *last_space = true,
            b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r' | 0x1c..=0x1f | 0x80.. => return false,
            _ => *last_space = false,
        }
    }
    true
}

/// LoopX `normalize_todo_text`: whitespace compacted, cut at `limit` code points with a
/// trailing `…` (`todo_summary.py`, limit 500).
#[must_use]
pub fn normalize_todo_text(text: &str) -> String {
    normalize_text_limit(text, 500)
}

/// [`normalize_todo_text`] with an explicit limit in code points.
#[must_use]
pub fn normalize_text_limit(text: &str, limit: usize) -> String {
    let compact = compact_whitespace(text);
    // A string of at most `limit` bytes has at most `limit` code points.
    if compact.len() <= limit || compact.chars().count() <= limit {
        return compact;
    }
    let cut: String = compact.chars().take(limit.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end_matches(is_py_space))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn universal_newlines_matches_python() {
        assert_eq!(universal_newlines("a\r\nb\rc\n"), "a\nb\nc\n");
        assert_eq!(universal_newlines("\u{feff}x\r\n"), "\u{feff}x\n");
    }

    #[test]
    fn splitlines_matches_python() {
        assert_eq!(splitlines("a\nb\n"), vec!["a", "b"]);
        assert_eq!(splitlines("a\r\nb"), vec!["a", "b"]);
        assert_eq!(splitlines("a\n\nb\n\n"), vec!["a", "", "b", ""]);
        assert_eq!(splitlines("a\u{2028}b"), vec!["a", "b"]);
        assert!(splitlines("").is_empty());
        assert_eq!(splitlines("\r\n\r"), vec!["", ""]);
        assert_eq!(splitlines("a\u{85}\u{2029}b\x0c"), vec!["a", "", "b"]);
    }

    /// Python's `splitlines` written the plain way, character by character.
    fn plain_splitlines(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let (mut start, mut iter) = (0, text.char_indices().peekable());
        while let Some((i, c)) = iter.next() {
            if is_line_boundary(c) {
                out.push(&text[start..i]);
                start = i + c.len_utf8();
                if c == '\r' && iter.peek().is_some_and(|(_, n)| *n == '\n') {
                    iter.next();
                    start += 1;
                }
            }
        }
        if start < text.len() {
            out.push(&text[start..]);
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The byte scan splits exactly where the character-by-character split does, on text
        /// dense in boundaries, their lead bytes in other characters (`Â` is `C2 82`, `€` is
        /// `E2 82 AC`, `\u{2027}` is `E2 80 A7`) and `\r\n` pairs.
        #[test]
        fn lines_of_matches_the_plain_split(
            t in proptest::prop_oneof![
                "[a\n\r\x0b\x0c\x1c\x1d\x1e\u{85}\u{2028}\u{2029}\u{2027}\u{82}€Âé]{0,16}",
                // Runs of plain text the scan crosses eight bytes at a time, between boundaries.
                "([a-z \x1f\x7f]{0,19}[\n\r\x0b\x0c\x1c\x1d\x1e\u{85}\u{2028}\u{2029}\u{2027}Âé])*[a-z]{0,9}",
            ]
        ) {
            proptest::prop_assert_eq!(splitlines(&t), plain_splitlines(&t));
        }

        /// The fast path and the split agree with Python's `" ".join(text.split())`, written
        /// the plain way.
        #[test]
        fn compact_matches_the_plain_join(
            t in proptest::prop_oneof![
                "[ a.]{0,12}",
                "[ a\t\n\u{a0}\u{3000}\u{85}\x1cé.]{0,12}",
                // Longer: words of eight bytes and more, spaces on either side of their edges.
                "([a-z.~\x01\x1b]{0,9} {1,2}){0,6}[a-z \t\x1fé]{0,9}",
            ]
        ) {
            let plain = t.split(is_py_space).filter(|p| !p.is_empty()).collect::<Vec<_>>().join(" ");
            // The fast path's own answer: "unchanged" exactly for ASCII text the join keeps.
            proptest::prop_assert_eq!(is_compact(&t), t.is_ascii() && plain == t);
            proptest::prop_assert_eq!(compact_whitespace(&t), plain);
        }
    }

    #[test]
    fn compact_and_limit() {
        assert_eq!(compact_whitespace("  a \t b\u{3000}c "), "a b c");
        // Two spaces at every place, within a word of eight bytes and across two.
        for k in 1..20 {
            let (one, two) =
                (format!("{}-{}", "a".repeat(k), "b".repeat(9)), format!("{}  {}", "a".repeat(k), "b".repeat(9)));
            assert!(is_compact(&one.replace('-', " ")), "{one}");
            assert!(!is_compact(&two), "{two}");
        }
        let long = "x".repeat(600);
        let cut = normalize_todo_text(&long);
        assert_eq!(cut.chars().count(), 500);
        assert!(cut.ends_with('…'));
    }
}
