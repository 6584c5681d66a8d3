//! Strict unified-diff application for `unified_diff` proposals: every hunk's context and
//! removed lines must match the current text exactly at the stated position (no fuzz, no
//! offset search). Line terminators of untouched lines are kept byte for byte.

/// Why a diff does not apply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unified diff does not apply: {0}")]
pub struct PatchError(pub String);

struct HunkSpec {
    old_start: usize,
    lines: Vec<(char, String, bool)>,
}

fn parse(diff: &str) -> Result<Vec<HunkSpec>, PatchError> {
    let mut hunks: Vec<HunkSpec> = Vec::new();
    for raw in diff.split_inclusive('\n') {
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        if (line.starts_with("--- ")
            || line.starts_with("+++ ")
            || line.starts_with("diff ")
            || line.starts_with("index "))
            && hunks.last().is_none_or(|h| !h.lines.is_empty())
        {
            continue;
        }
        if let Some(rest) = line.strip_prefix("@@ -") {
            let old = rest.split_whitespace().next().unwrap_or("");
            let start: usize = old
                .split(',')
                .next()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| PatchError(format!("bad hunk header {line:?}")))?;
            hunks.push(HunkSpec { old_start: start, lines: Vec::new() });
            continue;
        }
        let Some(h) = hunks.last_mut() else {
            continue;
        };
        if line.starts_with("\\ No newline at end of file") {
            if let Some(last) = h.lines.last_mut() {
                last.2 = true;
            }
            continue;
        }
        let mut chars = line.chars();
        let tag = chars.next().unwrap_or(' ');
        if !matches!(tag, ' ' | '-' | '+') {
            return Err(PatchError(format!("unexpected diff line {line:?}")));
        }
        h.lines.push((tag, chars.as_str().to_owned(), false));
    }
    if hunks.is_empty() {
        return Err(PatchError("no hunks".into()));
    }
    Ok(hunks)
}

/// Applies `diff` to `current`, returning the new text.
///
/// # Errors
/// [`PatchError`] when a hunk does not match exactly or the diff is malformed.
pub fn apply(current: &str, diff: &str) -> Result<String, PatchError> {
    let lines: Vec<&str> = current.split_inclusive('\n').collect();
    let eol = if lines.first().is_some_and(|l| l.ends_with("\r\n")) { "\r\n" } else { "\n" };
    let body = |l: &str| l.strip_suffix('\n').map_or(l, |s| s.strip_suffix('\r').unwrap_or(s)).to_owned();
    let mut out = String::with_capacity(current.len() + diff.len());
    let mut pos = 0usize;
    for h in parse(diff)? {
        let pure_insert = h.lines.iter().all(|l| l.0 == '+');
        let start = if pure_insert { h.old_start } else { h.old_start.saturating_sub(1) };
        if start < pos || start > lines.len() {
            return Err(PatchError(format!("hunk at line {} is out of order or past the end", h.old_start)));
        }
        for l in &lines[pos..start] {
            out.push_str(l);
        }
        pos = start;
        for (tag, text, no_eol) in &h.lines {
            match tag {
                ' ' | '-' => {
                    let Some(cur) = lines.get(pos) else {
                        return Err(PatchError(format!("hunk at line {} runs past the end", h.old_start)));
                    };
                    if body(cur) != *text {
                        return Err(PatchError(format!(
                            "line {} is {:?}, the diff expects {:?}",
                            pos + 1,
                            body(cur),
                            text
                        )));
                    }
                    if *tag == ' ' {
                        out.push_str(cur);
                    }
                    pos += 1;
                }
                _ => {
                    out.push_str(text);
                    if !no_eol {
                        out.push_str(eol);
                    }
                }
            }
        }
    }
    for l in &lines[pos..] {
        out.push_str(l);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_and_refuses() {
        let cur = "a\r\nb\r\nc\r\n";
        let diff = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
        assert_eq!(apply(cur, diff).as_deref(), Ok("a\r\nB\r\nc\r\n"));
        assert!(apply("a\nX\nc\n", diff).is_err());
        let unified = crate::diff::unified("one\ntwo\n", "one\n2\nthree", "s");
        assert_eq!(apply("one\ntwo\n", &unified).as_deref(), Ok("one\n2\nthree"));
    }
}
