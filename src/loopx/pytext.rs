//! Python-compatible text helpers: the exact string operations LoopX 0.5.4 (CPython)
//! applies, so that writegate reads, hashes and rewrites text byte for byte as LoopX does.

/// Universal-newline translation as `Path.read_text(encoding="utf-8")` applies it:
/// `\r\n` and a lone `\r` become `\n`. A UTF-8 BOM is kept as U+FEFF (FORMATS.md §5.2).
#[must_use]
pub fn universal_newlines(text: &str) -> String {
    if !text.contains('\r') {
        return text.to_owned();
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
    out
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
    let mut lines = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut iter = text.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        if is_line_boundary(c) {
            lines.push(&text[start..i]);
            let mut end = i + c.len_utf8();
            if c == '\r' && bytes.get(end) == Some(&b'\n') {
                iter.next();
                end += 1;
            }
            start = end;
        }
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
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
    text.split(is_py_space).filter(|part| !part.is_empty()).collect::<Vec<_>>().join(" ")
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
    if compact.chars().count() <= limit {
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
    }

    #[test]
    fn compact_and_limit() {
        assert_eq!(compact_whitespace("  a \t b\u{3000}c "), "a b c");
        let long = "x".repeat(600);
        let cut = normalize_todo_text(&long);
        assert_eq!(cut.chars().count(), 500);
        assert!(cut.ends_with('…'));
    }
}
