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

/// Whether a zero-width (non-)joiner or a direction mark at `at` is part of the writing,
/// not hidden in it: a ZWNJ or ZWJ between two letters of a script that spells words with
/// them (Arabic and Persian, Syriac, Thaana, the Brahmic scripts of India and Sri Lanka:
/// U+0600–U+07BF, U+0900–U+0DFF, U+FB50–U+FDFF, U+FE70–U+FEFC), a ZWJ joining two emoji
/// into one (U+2600–U+27BF, U+1F000 and up, after an emoji's U+FE0F), Unicode 15, ch. 23.2;
/// or a direction mark in right-to-left writing ([`beside_right_to_left`]).
fn is_orthographic_joiner(text: &str, at: usize, c: char) -> bool {
    let joining =
        |c: char| matches!(u32::from(c), 0x0600..=0x07BF | 0x0900..=0x0DFF | 0xFB50..=0xFDFF | 0xFE70..=0xFEFC);
    let emoji = |c: char| matches!(u32::from(c), 0x2600..=0x27BF | 0x1F000..=0x1FAFF | 0xFE0F);
    if matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}') {
        // A mark may open the text (`\u{200f}הממשלה אישרה…`).
        return beside_right_to_left(text, at, c.len_utf8());
    }
    let (Some(before), Some(after)) = (text[..at].chars().next_back(), text[at + c.len_utf8()..].chars().next()) else {
        return false;
    };
    match c {
        '\u{200c}' => joining(before) && joining(after),
        '\u{200d}' => (joining(before) && joining(after)) || (emoji(before) && emoji(after)),
        _ => false,
    }
}

/// Whether a right-to-left letter (Hebrew, Arabic, Syriac, Thaana, N'Ko and their
/// presentation forms: U+0590–U+08FF, U+FB1D–U+FDFF, U+FE70–U+FEFC) stands within 64 bytes
/// of the mark at `at` (`len` bytes long, itself not counted: U+061C is in that range) on its
/// line: a left-to-right, right-to-left or Arabic letter mark there sets the direction of a
/// number or a sign in right-to-left writing (`זמן תגובה: ‏180 ms`). A mark moves no letter
/// (Unicode 15, UAX #9: marks are not embeddings, overrides or isolates), and every view
/// shows it as `<U+200F>`.
fn beside_right_to_left(text: &str, at: usize, len: usize) -> bool {
    let rtl = |c: char| matches!(u32::from(c), 0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFC);
    let mut from = at.saturating_sub(64);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let mut to = (at + 64).min(text.len());
    while !text.is_char_boundary(to) {
        to -= 1;
    }
    let (before, after) = (&text[from..at], text.get(at + len..to).unwrap_or_default());
    let before = before.rsplit('\n').next().unwrap_or_default();
    let after = after.split('\n').next().unwrap_or_default();
    before.chars().chain(after.chars()).any(rtl)
}

/// Whether the bytes `b`, `next` can start a character [`kind_of`] reports: a C0 control
/// other than tab, line feed and carriage return, DEL, a C1 control (`C2 80`–`C2 9F`),
/// U+061C (`D8 9C`), a bidi or zero-width character of U+2000–U+206F (`E2 80`, `E2 81`) or
/// U+FEFF (`EF BB`). None of the first bytes is a UTF-8 continuation byte, so each marks a
/// character boundary. Bitwise, without branches, so a block's test compiles to vector code.
#[allow(clippy::needless_bitwise_bool)]
fn may_start_hidden(b: u8, next: u8) -> bool {
    (b < 0x20) & (b != b'\t') & (b != b'\n') & (b != b'\r')
        | (b == 0x7f)
        | (b == 0xc2) & (0x80..=0x9f).contains(&next)
        | (b == 0xd8) & (next == 0x9c)
        | (b == 0xe2) & ((next == 0x80) | (next == 0x81))
        | (b == 0xef) & (next == 0xbb)
}

/// The hidden characters of a text, or of the pieces of it seen so far: per kind (in
/// [`KINDS`] order), the first occurrence (byte offset, character) and the count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Census {
    first: [Option<(usize, char)>; 3],
    count: [usize; 3],
}

impl Census {
    /// The census of `text[from..to]` (offsets into `text`; `from` and `to` on character
    /// boundaries): only the characters that start where [`may_start_hidden`] holds are
    /// decoded.
    #[must_use]
    pub(super) fn of(text: &str, from: usize, to: usize) -> Census {
        let mut c = Census::default();
        let bytes = text.as_bytes();
        let mut offsets = Vec::new();
        // The screen: any byte besides printable ASCII, tab, CR and line feed? Most blocks of
        // prose, code and logs have none. (`b.wrapping_add(0x81) < 0x81` is `b >= 0x7f`: DEL
        // and every non-ASCII byte.)
        let screen =
            |b: u8, _| u8::from(b.wrapping_add(0x81) < 0x81) | (u8::from(b < 0x20) & u8::from(b != b'\n')) != 0;
        super::blocks::offsets_where(bytes, (from, to), screen, may_start_hidden, &mut offsets);
        for at in offsets {
            let Some(ch) = text.get(at..).and_then(|rest| rest.chars().next()) else { continue };
            if let Some(k) = kind_of(ch, at).filter(|_| !is_orthographic_joiner(text, at, ch)) {
                c.count[k] += 1;
                c.first[k].get_or_insert((at, ch));
            }
        }
        c
    }

    /// Adds the census of a later part of the same text.
    pub(super) fn absorb(&mut self, later: Census) {
        for k in 0..KINDS.len() {
            self.count[k] += later.count[k];
            if self.first[k].is_none() {
                self.first[k] = later.first[k];
            }
        }
    }
}

/// Appends the hidden-character findings of `text` from its census; `location` turns the
/// byte offset of a kind's first occurrence into a location (a JSON pointer, or
/// `line:column`).
pub(super) fn report(text: &str, census: &Census, location: &dyn Fn(usize) -> String, out: &mut Vec<Finding>) {
    for (k, (id, severity, what)) in KINDS.iter().enumerate() {
        let Some((at, c)) = census.first[k] else { continue };
        let around: String = text[at..].chars().take(32).collect();
        let shown = crate::textsafe::sanitize(&around.chars().take(12).collect::<String>(), false);
        out.push(Finding {
            rule_id: (*id).into(),
            category: "invisible_text".into(),
            severity: (*severity).into(),
            location: location(at),
            sample_masked: shown.chars().take(12).collect(),
            reason: format!("{what}: {} in this text, first U+{:04X}", census.count[k], u32::from(c)),
            fingerprint: format!("{id}:{}", &sha256_hex(format!("{id}\0{around}").as_bytes())[..16]),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        report(text, &Census::of(text, 0, text.len()), &|at| format!("@{at}"), &mut out);
        out.into_iter().map(|f| (f.rule_id, f.severity)).collect()
    }

    /// What [`Census::of`] must equal: every character decoded.
    fn census_of_every_char(text: &str) -> Census {
        let mut c = Census::default();
        for (at, ch) in text.char_indices() {
            if let Some(k) = kind_of(ch, at).filter(|_| !is_orthographic_joiner(text, at, ch)) {
                c.count[k] += 1;
                c.first[k].get_or_insert((at, ch));
            }
        }
        c
    }

    proptest::proptest! {
        #[test]
        fn census_decodes_only_where_it_must(
            pieces in proptest::collection::vec(proptest::prop_oneof![
                proptest::prelude::Just("plain ".to_owned()),
                proptest::prelude::Just("می\u{200c}خو\u{200d}👩\u{200d}💻".to_owned()),
                proptest::prelude::Just("\u{200b}\u{200c}\u{200d}\u{2060}\u{feff}".to_owned()),
                proptest::prelude::Just("\u{202a}\u{202e}\u{2066}\u{2069}\u{200e}\u{200f}\u{061c}".to_owned()),
                proptest::prelude::Just("\u{1b}[31m\u{7}\u{7f}\u{85}\u{9f}\t\r\n".to_owned()),
                proptest::prelude::Just("ascii only \u{1b}[0m then \u{8} and \u{7f} ".to_owned()),
                proptest::prelude::Just("sixty-four bytes of plain ASCII text, to fill a whole block: ok.\n".to_owned()),
                proptest::prelude::Just("“quoted” — ❯ ¡ ÿ ة 表 ﻿ \u{2028}".to_owned()),
                ".{0,70}",
            ], 0..40),
            cuts in proptest::collection::vec(0usize..4000, 0..4),
        ) {
            let text: String = pieces.concat();
            let whole = census_of_every_char(&text);
            proptest::prop_assert_eq!(Census::of(&text, 0, text.len()), whole);
            // Piece by piece, as the scan takes a text, absorbed in order.
            let mut bounds: Vec<usize> = cuts.iter().map(|&c| c % (text.len() + 1)).filter(|&c| text.is_char_boundary(c)).collect();
            bounds.extend([0, text.len()]);
            bounds.sort_unstable();
            let mut pieced = Census::default();
            for w in bounds.windows(2) {
                pieced.absorb(Census::of(&text, w[0], w[1]));
            }
            proptest::prop_assert_eq!(pieced, whole);
        }
    }

    #[test]
    fn joiners_of_persian_hindi_and_emoji_are_writing_but_not_in_ascii() {
        assert_eq!(kinds("می\u{200c}خواهم و نامه\u{200c}ای نوشت"), []);
        assert_eq!(kinds("क्\u{200d}ष"), []);
        assert_eq!(kinds("👩\u{200d}💻 on call"), []);
        assert_eq!(kinds("ghp_\u{200c}abc"), [("zero_width".to_owned(), "warn".to_owned())]);
        assert_eq!(kinds("\u{200c}می"), [("zero_width".to_owned(), "warn".to_owned())]);
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

    #[test]
    fn direction_marks_in_right_to_left_writing_are_writing() {
        // A mark that sets a number's direction in Hebrew or Arabic (issue 16, twelfth round).
        assert_eq!(kinds("זמן תגובה ממוצע של ה-API: \u{200f}180 ms"), vec![]);
        assert_eq!(kinds("المبلغ \u{061c}250 دولار"), vec![]);
        // In Latin text, or on another line than the right-to-left words, it blocks; an
        // override blocks in Hebrew too.
        assert_eq!(kinds("price: \u{200f}180 ms"), vec![("bidi_control".into(), "block".into())]);
        assert_eq!(kinds("שלום\nprice: \u{200f}180"), vec![("bidi_control".into(), "block".into())]);
        assert_eq!(kinds("שלום \u{202e}txt.exe"), vec![("bidi_control".into(), "block".into())]);
        // A mark opening the text; an Arabic letter mark in Latin text is no writing.
        assert_eq!(kinds("\u{200f}הממשלה אישרה היום את התקציב"), vec![]);
        assert_eq!(kinds("deploy\u{061c} now to prod"), vec![("bidi_control".into(), "block".into())]);
    }
}
