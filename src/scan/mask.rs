//! Masking credentials in text that reaches a screen or a record ([`mask_secrets`]), line by
//! line ([`Masker`]): every credential match, overlapping matches as one, and the body of a
//! PEM private key after its `-----BEGIN … PRIVATE KEY-----` line (the rule matches the
//! marker; the key is the lines that follow it).

use super::decode;
use super::evidence::raw_hits;
use super::mask;

/// The most lines of one private key's body masked after its marker (a 16384-bit RSA key in
/// PEM is about 200 lines of 64 characters).
const KEY_BODY_LINES: usize = 256;
/// A line that is nothing but base64 this long or longer is masked wherever it appears: a
/// PEM body line is 64 characters (70 in OpenSSH's format), and a diff may show such lines
/// with the key's marker folded away.
const BARE_BODY_CHARS: usize = 60;

/// Masks one line after another, carrying what a line says about the next: inside a private
/// key's body, each line of it is masked whole. Used line by line where text is shown in
/// rows (the TUI's diff), and by [`mask_secrets`] over a whole text.
#[derive(Debug, Default)]
pub struct Masker {
    /// Lines still masked as a key's body (0: not inside one).
    key_lines: usize,
}

/// What [`Masker`] makes of a line inside a key's body.
enum BodyLine {
    /// A line of the body: masked after its `prefix` bytes (a diff sign, blanks, a quote).
    Body { prefix: usize, end: usize },
    /// The `-----END …` marker at byte `at`: what comes before it after `prefix` is masked.
    End { prefix: usize, at: usize },
    /// Not a key line: the body ended.
    Other,
}

impl Masker {
    /// A masker outside any key.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// `line` (with or without its line break) with every credential masked, and how many
    /// masks it holds.
    pub fn line(&mut self, line: &str) -> (String, usize) {
        let mut out = String::with_capacity(line.len());
        let n = self.line_into(line, &mut out);
        (out, n)
    }

    /// [`Self::line`] appended to `out`; returns how many masks it holds.
    pub fn line_into(&mut self, line: &str, out: &mut String) -> usize {
        if self.key_lines > 0 {
            self.key_lines -= 1;
            match body_line(line) {
                BodyLine::Body { prefix, end } => return masked_between(line, prefix, end, out),
                BodyLine::End { prefix, at } => {
                    self.key_lines = 0;
                    if at > prefix {
                        return masked_between(line, prefix, at, out);
                    }
                    out.push_str(line);
                    return 0;
                }
                BodyLine::Other => self.key_lines = 0,
            }
        }
        if let Some((prefix, end)) = bare_body(line) {
            return masked_between(line, prefix, end, out);
        }
        self.matches(line, out)
    }

    fn matches(&mut self, line: &str, out: &mut String) -> usize {
        // Without a `%` the decoded line is the line itself: no copy and no byte map.
        let decoded = line.contains('%').then(|| decode::decode_ascii_percent(line));
        let (scanned, map) = match &decoded {
            Some((d, map)) if map.len() == d.len() => (d.as_str(), Some(map)),
            Some(_) => {
                out.push_str(line);
                return 0;
            }
            None => (line, None),
        };
        let mut spans: Vec<(usize, usize, String)> = Vec::new();
        for h in raw_hits(scanned.as_bytes())
            .into_iter()
            .filter(|h| h.rule.category == "credentials" && h.rule.public == "block")
        {
            let end_dec = h.start + h.matched.len();
            if end_dec == 0 || end_dec > scanned.len() {
                continue;
            }
            let (start, mut end) = map.map_or((h.start, end_dec), |map| (map[h.start].0, map[end_dec - 1].1));
            if h.rule.id == "private_key_block" {
                // The key follows its marker: on this line through its END marker (a key
                // written with `\n` escapes), else to the line's end and the lines after.
                let rest = &line[end..];
                if let Some(at) = rest.find("-----END ") {
                    end += at + rest[at..].find("KEY-----").map_or(9, |k| k + 8);
                } else {
                    end = line.trim_end_matches(['\n', '\r']).len().max(end);
                    self.key_lines = KEY_BODY_LINES;
                }
                spans.push((start, end, line.get(start..end).map_or_else(|| "***".to_owned(), mask)));
                continue;
            }
            spans.push((start, end, mask(&h.matched)));
        }
        let (mut last, mut n) = (0, 0);
        for (start, end, masked) in union_of_overlapping(spans, line) {
            out.push_str(&line[last..start]);
            out.push_str(&masked);
            last = end;
            n += 1;
        }
        out.push_str(&line[last..]);
        n
    }
}

/// Appends `line` with `line[from..to]` shown as `***`; one mask.
fn masked_between(line: &str, from: usize, to: usize, out: &mut String) -> usize {
    out.push_str(&line[..from]);
    out.push_str("***");
    out.push_str(&line[to..]);
    1
}

/// Where a line's content starts and ends, past a diff sign, blanks and quotes before it
/// and a line break, quote or comma after it.
fn content(line: &str) -> (usize, usize) {
    let end = line.trim_end_matches(['\n', '\r', '"', '\'', ',', ' ', '\t']).len();
    let start = end - line[..end].trim_start_matches(['+', '-', ' ', '\t', '"', '\'', '>']).len();
    (start, end)
}

/// How a line inside a key's body reads: base64 (and the `Proc-Type:` / `DEK-Info:` header
/// lines of an encrypted key) is body, a blank line is body (it follows those headers).
fn body_line(line: &str) -> BodyLine {
    if let Some(at) = line.find("-----END ") {
        return BodyLine::End { prefix: content(line).0.min(at), at };
    }
    let (start, end) = content(line);
    let body = &line[start..end];
    let key_chars = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b':' | b',' | b'-' | b' ');
    if body.bytes().all(key_chars) { BodyLine::Body { prefix: start, end } } else { BodyLine::Other }
}

/// A line that is one run of base64 of [`BARE_BODY_CHARS`] or more, mixing capitals, small
/// letters and digits: a key's body line wherever it stands.
fn bare_body(line: &str) -> Option<(usize, usize)> {
    let (start, end) = content(line);
    let body = &line.as_bytes()[start..end];
    let base64 = body.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    let mixed = body.iter().any(u8::is_ascii_uppercase)
        && body.iter().any(u8::is_ascii_lowercase)
        && body.iter().any(u8::is_ascii_digit);
    (body.len() >= BARE_BODY_CHARS && base64 && mixed).then_some((start, end))
}

/// `spans` (start, end, masked form) in order, each group of overlapping ones made one span
/// over their union, masked whole: keeping only the first of two overlapping matches showed
/// the rest of the other.
fn union_of_overlapping(mut spans: Vec<(usize, usize, String)>, line: &str) -> Vec<(usize, usize, String)> {
    spans.sort_by_key(|s| (s.0, std::cmp::Reverse(s.1)));
    let mut out: Vec<(usize, usize, String)> = Vec::with_capacity(spans.len());
    for (start, end, masked) in spans {
        match out.last_mut() {
            Some(last) if start < last.1 => {
                if end > last.1 {
                    last.1 = end;
                    last.2 = line.get(last.0..last.1).map_or_else(|| "***".to_owned(), mask);
                }
            }
            _ => out.push((start, end, masked)),
        }
    }
    out
}

/// Replaces every credential match in `text` — also inside percent-encoded metadata, and a
/// private key's body after its marker — with its masked form; returns the text and how many
/// masks it holds. Used on diffs and packets so a preview never shows a full secret.
#[must_use]
pub fn mask_secrets(text: &str) -> (String, usize) {
    let mut lines = Masker::new();
    let mut out = String::with_capacity(text.len());
    let mut n = 0;
    for line in text.split_inclusive('\n') {
        n += lines.line_into(line, &mut out);
    }
    (out, n)
}
