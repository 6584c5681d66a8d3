//! Terminal-safe text: what file content becomes before a person sees it or a record keeps
//! it. Nothing is dropped (issue 12 case 1: what the operator reads is what is written):
//! escape and other control characters are shown as their Unicode control pictures (`␛`,
//! `␇`, `␀`, …, `␡`), C1 controls, bidi controls and zero-width characters as `<U+XXXX>`, so
//! none of them can act on the terminal or hide; tabs expand to spaces.

/// Bidi embedding / override / isolate controls and marks.
#[must_use]
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

/// Spaces up to the next multiple of 4 columns (the one tab rule of both functions here).
fn expand_tab(out: &mut String, col: &mut usize) {
    let n = 4 - *col % 4;
    out.extend(std::iter::repeat_n(' ', n));
    *col += n;
}

/// Makes every character visible and inert (see the module docs); `\n` stays a line break
/// when `keep_newlines`, else it is shown as `␊`. Tabs expand to the next multiple of 4
/// columns.
#[must_use]
pub fn sanitize(text: &str, keep_newlines: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut col = 0usize;
    for c in text.chars() {
        match c {
            '\n' if keep_newlines => {
                out.push('\n');
                col = 0;
            }
            '\t' => expand_tab(&mut out, &mut col),
            // C0 controls: their control pictures U+2400..U+241F; DEL: U+2421.
            c if u32::from(c) < 0x20 => {
                out.push(char::from_u32(0x2400 + u32::from(c)).unwrap_or('?'));
                col += 1;
            }
            '\u{7f}' => {
                out.push('\u{2421}');
                col += 1;
            }
            c if c.is_control() || is_bidi_control(c) || crate::scan::invisible::is_zero_width(c) => {
                let shown = format!("<U+{:04X}>", u32::from(c));
                col += shown.len();
                out.push_str(&shown);
            }
            c => {
                out.push(c);
                col += 1;
            }
        }
    }
    out
}

/// For what the operator pastes or types into a field (filter, reason, typed id), not for
/// file text: removes escape sequences (a whole CSI / OSC / DCS), control characters
/// (except `\n` when `keep_newlines`) and bidi controls; expands tabs.
#[must_use]
pub fn strip_input(text: &str, keep_newlines: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut col = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' | '\u{9b}' => skip_escape(c, &mut chars),
            '\n' if keep_newlines => {
                out.push('\n');
                col = 0;
            }
            '\t' => expand_tab(&mut out, &mut col),
            c if c.is_control() || is_bidi_control(c) => {}
            c => {
                out.push(c);
                col += 1;
            }
        }
    }
    out
}

fn skip_escape(first: char, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    let kind = if first == '\u{9b}' {
        Some('[')
    } else {
        chars.next_if(|c| matches!(c, '[' | ']' | 'P' | '_' | '^' | '(' | ')'))
    };
    match kind {
        Some('[') => {
            // CSI: parameters and intermediates up to a final byte in @..~.
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
        Some(']' | 'P' | '_' | '^') => {
            // OSC / DCS / APC / PM: up to BEL or ST (ESC \).
            while let Some(c) = chars.next() {
                if c == '\u{7}' || c == '\u{9c}' {
                    break;
                }
                if c == '\u{1b}' {
                    chars.next_if_eq(&'\\');
                    break;
                }
            }
        }
        _ => {
            chars.next();
        }
    }
}

/// `text` cut to its first `max` characters with the count of the rest (`…(+99880 bytes)`):
/// an error that quotes the operator's argument does not echo a megabyte back.
#[must_use]
pub fn shortened(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…(+{} bytes)", &text[..at], text.len() - at),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_sequences_and_controls_instead_of_dropping_them() {
        assert_eq!(sanitize("a\u{1b}[31mred\u{1b}[0m b", false), "a␛[31mred␛[0m b");
        assert_eq!(sanitize("x\u{1b}]0;a whole sentence\u{7}y", false), "x␛]0;a whole sentence␇y");
        assert_eq!(sanitize("ab\u{202e}cd", false), "ab<U+202E>cd");
        assert_eq!(sanitize("to\u{200b}ken\u{9b}", false), "to<U+200B>ken<U+009B>");
        assert_eq!(sanitize("nul\u{0}del\u{7f}", false), "nul␀del␡");
        assert_eq!(sanitize("a\tb\nc", true), "a   b\nc");
        assert_eq!(sanitize("a\nb", false), "a␊b");
        // Nothing that reaches the terminal can start a sequence.
        let shown = sanitize("\u{1b}[2J\u{9b}31m\u{7}\u{8}", false);
        assert!(!shown.chars().any(char::is_control), "{shown:?}");
    }

    #[test]
    fn input_drops_whole_sequences() {
        assert_eq!(strip_input("zz\u{1b}[31m", false), "zz");
        assert_eq!(strip_input("x\u{1b}]0;title\u{7}y", false), "xy");
    }
}
