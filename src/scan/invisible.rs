//! Findings for characters a reader cannot see (issue 12 case 1): terminal escape sequences
//! and other control characters (block: they can recolour, retitle or rewrite what the
//! operator reads), bidi controls (block: they reorder what is shown), zero-width characters
//! (warn: they hide inside words, paths and keys). One finding per kind and text, at the
//! first occurrence, with the count. Every view shows these characters visibly
//! ([`crate::textsafe::sanitize`]), so nothing written is hidden.

use crate::loopx::hash::sha256_hex;
use crate::wire::Finding;

/// The kinds, in report order: (rule id, severity, what).
const KINDS: &[(&str, &str, &str)] = &[
    ("terminal_escape", "block", "a terminal escape sequence or control character (shown as ␛, ␇, …)"),
    ("bidi_control", "block", "a bidi control character that reorders the text shown (shown as <U+…>)"),
    ("zero_width", "warn", "a zero-width character (shown as <U+…>)"),
];

/// True for a zero-width character that can hide inside text (a BOM counts only past the
/// start of the text).
#[must_use]
pub fn is_zero_width(c: char) -> bool {
    matches!(c, '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}')
}

fn kind_of(c: char, at: usize) -> Option<usize> {
    match c {
        '\t' | '\n' | '\r' => None,
        c if c.is_control() => Some(0),
        c if crate::textsafe::is_bidi_control(c) => Some(1),
        '\u{feff}' if at == 0 => None,
        c if is_zero_width(c) => Some(2),
        _ => None,
    }
}

/// Appends the hidden-character findings of `text`; `location` turns the byte offset of a
/// kind's first occurrence into a location (a JSON pointer, or `line:column`).
pub fn scan(text: &str, location: &dyn Fn(usize) -> String, out: &mut Vec<Finding>) {
    // Fast path: nothing outside printable ASCII but tab / newline / CR.
    if text.bytes().all(|b| (0x20..0x7f).contains(&b) || matches!(b, b'\t' | b'\n' | b'\r')) {
        return;
    }
    let mut first: [Option<(usize, char)>; 3] = [None; 3];
    let mut count = [0usize; 3];
    for (at, c) in text.char_indices() {
        if let Some(k) = kind_of(c, at) {
            count[k] += 1;
            first[k].get_or_insert((at, c));
        }
    }
    for (k, (id, severity, what)) in KINDS.iter().enumerate() {
        let Some((at, c)) = first[k] else { continue };
        let around: String = text[at..].chars().take(32).collect();
        let shown = crate::textsafe::sanitize(&around.chars().take(12).collect::<String>(), false);
        out.push(Finding {
            rule_id: (*id).into(),
            category: "invisible_text".into(),
            severity: (*severity).into(),
            location: location(at),
            sample_masked: shown.chars().take(12).collect(),
            reason: format!("{what}: {} in this text, first U+{:04X}", count[k], u32::from(c)),
            fingerprint: format!("{id}:{}", &sha256_hex(format!("{id}\0{around}").as_bytes())[..16]),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        scan(text, &|at| format!("@{at}"), &mut out);
        out.into_iter().map(|f| (f.rule_id, f.severity)).collect()
    }

    #[test]
    fn escapes_and_bidi_block_zero_width_warns_and_plain_text_is_clean() {
        assert_eq!(kinds("plain text\twith tabs\r\n"), vec![]);
        assert_eq!(kinds("\u{feff}a BOM at the start is no finding"), vec![]);
        assert_eq!(kinds("red \u{1b}[31mtext"), vec![("terminal_escape".into(), "block".into())]);
        assert_eq!(kinds("ding\u{7}"), vec![("terminal_escape".into(), "block".into())]);
        assert_eq!(kinds("file\u{202e}txt.exe"), vec![("bidi_control".into(), "block".into())]);
        assert_eq!(kinds("to\u{200b}ken"), vec![("zero_width".into(), "warn".into())]);
        assert_eq!(kinds("\u{1b}]0;x\u{7}\u{200d}").len(), 2);
    }
}
