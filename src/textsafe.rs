//! Terminal-safe text: what file content may become before a person sees it or a record
//! keeps it. Escape sequences (CSI/OSC), other control characters and bidi overrides are
//! removed; tabs expand to spaces.

/// Bidi embedding / override / isolate controls and marks.
#[must_use]
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

/// Removes escape sequences, control characters (except `\n` when `keep_newlines`) and bidi
/// controls; expands tabs to the next multiple of 4 columns.
#[must_use]
pub fn sanitize(text: &str, keep_newlines: bool) -> String {
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
            '\t' => {
                let n = 4 - col % 4;
                out.extend(std::iter::repeat_n(' ', n));
                col += n;
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_sequences_and_controls() {
        assert_eq!(sanitize("a\u{1b}[31mred\u{1b}[0m b", false), "ared b");
        assert_eq!(sanitize("x\u{1b}]0;title\u{7}y", false), "xy");
        assert_eq!(sanitize("x\u{1b}]8;;http://e\u{1b}\\y", false), "xy");
        assert_eq!(sanitize("ab\u{202e}cd\u{7}", false), "abcd");
        assert_eq!(sanitize("a\tb\nc", true), "a   b\nc");
        assert_eq!(sanitize("a\nb", false), "ab");
    }
}
