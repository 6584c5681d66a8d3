//! Masking credentials in text that reaches a screen or a record ([`mask_secrets`]), line by
//! line ([`Masker`]): every credential match, overlapping matches as one, and the body of a
//! PEM private key after its `-----BEGIN … PRIVATE KEY-----` line (the rule matches the
//! marker; the key is the lines that follow it).

use super::decode;
use super::evidence::{is_masked, masked_hits};
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
        // Without a `%` or `&` the decoded line is the line itself: no copy and no byte map.
        let decoded = line.contains(['%', '&']).then(|| decode::decode_ascii_percent(line));
        let (scanned, map) = match &decoded {
            Some((d, map)) if map.len() == d.len() => (d.as_str(), Some(map)),
            Some(_) => {
                out.push_str(line);
                return 0;
            }
            None => (line, None),
        };
        let mut spans: Vec<(usize, usize, String)> = Vec::new();
        // The last search for an END marker: (from, where it is). The key matches come in
        // order, and one after `from` but before that END finds the same one without reading
        // the line again (a line of tens of thousands of markers searched the rest of the
        // line once per marker: seconds for a megabyte).
        let mut end_search: Option<(usize, Option<usize>)> = None;
        for h in masked_hits(scanned.as_bytes()) {
            debug_assert!(is_masked(h.rule));
            let end_dec = h.start + h.matched.len();
            if end_dec == 0 || end_dec > scanned.len() {
                continue;
            }
            let (start, mut end) = map.map_or((h.start, end_dec), |map| (map[h.start].0, map[end_dec - 1].1));
            if h.rule.id == "private_key_block" {
                // The key follows its marker: on this line through its END marker (a key
                // written with `\n` escapes), else to the line's end and the lines after.
                let found = match end_search {
                    Some((from, found)) if from <= end && found.is_none_or(|at| end <= at) => found,
                    _ => {
                        let found = line[end..].find("-----END ").map(|at| end + at);
                        end_search = Some((end, found));
                        found
                    }
                };
                if let Some(at) = found {
                    // The marker's own end, near it (`-----END ENCRYPTED PRIVATE KEY-----`).
                    let near = &line.as_bytes()[at..line.len().min(at + 96)];
                    end = at + memchr::memmem::find(near, b"KEY-----").map_or(9, |k| k + 8);
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
    let key_chars =
        |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b':' | b',' | b'-' | b' ' | b'"');
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

/// Which of `lines` end a private key's body that shows without its marker: the run of
/// lines of nothing but base64 right above an `-----END … PRIVATE KEY-----` line (a diff's
/// context can show a key's last lines and its END marker but not its BEGIN marker, and a
/// key's last line is shorter than the 60 characters [`Masker`] masks on their own).
#[must_use]
pub fn key_tails(lines: &[&str]) -> Vec<bool> {
    let mut marked = vec![false; lines.len()];
    for (i, line) in lines.iter().enumerate() {
        if !(line.contains("-----END ") && line.contains("PRIVATE KEY")) {
            continue;
        }
        for j in (0..i).rev() {
            let (start, end) = content(lines[j]);
            let body = &lines[j].as_bytes()[start..end];
            if body.is_empty() || !body.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')) {
                break;
            }
            marked[j] = true;
        }
    }
    marked
}

/// Which lines of a whole text (split at `\n`, 0-based) are a private key's body: after a
/// `-----BEGIN … PRIVATE KEY-----` line, up to its END line, while they are base64, blank or
/// PEM header lines (at most [`KEY_BODY_LINES`]). For a diff's lines, which show parts of a
/// text without the lines around them: a hunk in the middle of a key shows body lines of any
/// width with no marker in sight.
#[must_use]
pub fn key_body_lines(text: &str) -> Vec<bool> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut marked = vec![false; lines.len()];
    let mut left = 0usize;
    for (i, line) in lines.iter().enumerate() {
        if left > 0 {
            let (start, end) = content(line);
            let body = &line.as_bytes()[start..end];
            let base64 = body.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
            let header =
                [&b"Proc-Type:"[..], b"DEK-Info:", b"Comment:", b"Version:"].iter().any(|h| body.starts_with(h));
            if line.contains("-----END ") || !(base64 || header) {
                left = 0;
            } else {
                marked[i] = true;
                left -= 1;
                continue;
            }
        }
        if line.contains("-----BEGIN ") && line.contains("PRIVATE KEY") && !line.contains("-----END ") {
            left = KEY_BODY_LINES;
        }
    }
    marked
}

/// A unified diff of `old` → `new` masked for a reader: [`mask_secrets`], then every line
/// of a hunk that falls inside a private key's body in either text ([`key_body_lines`]) shown
/// as its sign and `***`, so a hunk cut out of the middle of a key shows none of it.
#[must_use]
pub fn mask_unified(diff: &str, old: &str, new: &str) -> String {
    let masked = mask_secrets(diff).0;
    // Most texts hold no key: one search each instead of splitting both into lines.
    let has_key = |t: &str| memchr::memmem::find(t.as_bytes(), b"PRIVATE KEY").is_some();
    if !has_key(old) && !has_key(new) {
        return masked;
    }
    let (old_keys, new_keys) = (key_body_lines(old), key_body_lines(new));
    if !old_keys.contains(&true) && !new_keys.contains(&true) {
        return masked;
    }
    let is_key = |keys: &[bool], i: usize| keys.get(i).copied().unwrap_or(false);
    let mut out = String::with_capacity(masked.len());
    // The next old and new line (0-based); `None` before the first hunk (the file headers).
    let mut at: Option<(usize, usize)> = None;
    for line in masked.split_inclusive('\n') {
        if let Some(header) = line.strip_prefix("@@ -") {
            at = Some(hunk_starts(header));
            out.push_str(line);
            continue;
        }
        let Some((o, n)) = at.as_mut() else {
            out.push_str(line);
            continue;
        };
        let key = match line.as_bytes().first() {
            Some(b' ') => {
                let k = is_key(&old_keys, *o) || is_key(&new_keys, *n);
                (*o, *n) = (*o + 1, *n + 1);
                k
            }
            Some(b'-') => {
                *o += 1;
                is_key(&old_keys, *o - 1)
            }
            Some(b'+') => {
                *n += 1;
                is_key(&new_keys, *n - 1)
            }
            _ => false,
        };
        if key {
            out.push_str(&line[..1]);
            out.push_str("***");
            if line.ends_with('\n') {
                out.push('\n');
            }
        } else {
            out.push_str(line);
        }
    }
    out
}

/// The first old and new line (0-based) of a hunk from its header after `@@ -`
/// (`12,3 +12,4 @@`); a count of 0 names the line before, which no line of the hunk uses.
fn hunk_starts(header: &str) -> (usize, usize) {
    let number = |s: &str| {
        s.bytes()
            .take_while(u8::is_ascii_digit)
            .fold(0usize, |n, d| n.saturating_mul(10).saturating_add(usize::from(d - b'0')))
    };
    let old = number(header);
    let new = header.find(" +").map_or(0, |at| number(&header[at + 2..]));
    (old.saturating_sub(1), new.saturating_sub(1))
}

/// [`Masker::line_into`] over `lines` in order, a line [`key_tails`] marks masked whole.
pub fn mask_lines_into(lines: &[&str], mut out: impl FnMut(usize, &str, String, usize)) {
    let tails = key_tails(lines);
    let mut masker = Masker::new();
    for (i, line) in lines.iter().enumerate() {
        let mut shown = String::with_capacity(line.len());
        let n = if tails[i] {
            let (start, end) = content(line);
            masked_between(line, start, end, &mut shown)
        } else {
            masker.line_into(line, &mut shown)
        };
        out(i, line, shown, n);
    }
}

/// Replaces every credential match in `text` — also inside percent-encoded metadata, and a
/// private key's body after its marker — with its masked form; returns the text and how many
/// masks it holds. Used on diffs and packets so a preview never shows a full secret.
#[must_use]
pub fn mask_secrets(text: &str) -> (String, usize) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len());
    let mut n = 0;
    mask_lines_into(&lines, |_, _, shown, k| {
        out.push_str(&shown);
        n += k;
    });
    (out, n)
}
