//! JSON documents kept in strings (issue 16, ninth round): a todo or evidence field holding
//! a pasted payload hides its strings' quotes and line breaks behind escapes, so such a
//! string is also read as a document, a few layers deep.

use super::{Finding, Policy, scan_json};

/// A JSON document kept as a string (`"evidence": "{\\"log\\": \\"203.0.113.4 - - [11/Jun…\\"}"`,
/// a todo holding a pasted payload) hides its strings' quotes and line breaks behind
/// escapes: when `text` is one ([`document_part`]: an object or array, also after a BOM,
/// in a code fence or after a label; or a text of JSON Lines, [`json_lines`]), the strings
/// inside are scanned as [`scan_json`] scans a document, at `location`,
/// and their findings of rules not already reported for `text` (`out[before..]`) are added.
pub(super) fn scan(text: &str, location: &str, policy: Policy, out: &mut Vec<Finding>, before: usize) {
    let Some(t) = document_part(text) else { return };
    // Each layer scans its strings once more: past [`NESTED_JSON_LAYERS`] layers the
    // strings are scanned as text only (a document escaped a dozen times over cost a dozen
    // scans of it).
    if NESTED_JSON_DEPTH.get() >= NESTED_JSON_LAYERS {
        return;
    }
    // Read as an inbox item is (`crate::json::parse_strict`): a key given twice or nesting
    // past its depth is no document, and the text stays scanned as text.
    let Some(value) = crate::json::parse_strict(t.as_bytes()).ok().or_else(|| json_lines(t)) else { return };
    let mut nested = Vec::new();
    {
        let _layer = NestedLayer::enter();
        scan_json(&value, location, policy, &mut nested);
    }
    for mut f in nested {
        if !out[before..].iter().any(|o| o.rule_id == f.rule_id) {
            location.clone_into(&mut f.location);
            out.push(f);
        }
    }
}

/// The JSON document a string holds, if it holds one: an object or array (first and last
/// characters aside from blanks, 8 bytes or more), after a byte-order mark, inside a
/// Markdown code fence (`` ```json `` … `` ``` ``), or after a short label on the same line
/// (`payload: {…}`, `response=[…]`: 64 bytes at most, ending in `:` or `=`).
fn document_part(text: &str) -> Option<&str> {
    let mut t = text.trim().trim_start_matches('\u{feff}').trim();
    if let Some(fenced) = t.strip_prefix("```") {
        let body = fenced.split_once('\n')?.1;
        t = body.trim_end().strip_suffix("```")?.trim();
    } else if !t.starts_with(['{', '[']) {
        // Bytes, not a slice of `t`: 66 bytes may end inside a character.
        let open = t.as_bytes().iter().take(66).position(|&b| b == b'{' || b == b'[')?;
        let label = t[..open].trim_end();
        if open > 64 || label.contains('\n') || !label.ends_with([':', '=']) {
            return None;
        }
        t = &t[open..];
    }
    let document = (t.starts_with('{') && t.ends_with('}')) || (t.starts_with('[') && t.ends_with(']'));
    (document && t.len() >= 8).then_some(t)
}

/// A text of JSON Lines (an export's `{"type": "post", …}` then `{"type": "reply", …}`):
/// two or more lines, each one JSON object (blank lines aside), read as the array of them;
/// `None` at the first line that is not one. Only its first [`JSON_LINES_MAX_BYTES`] are
/// read as records (a parsed value holds many times its text: a large file of small
/// objects held gigabytes); the whole text is scanned as text all the same.
fn json_lines(t: &str) -> Option<serde_json::Value> {
    let mut items = Vec::new();
    let mut read = 0;
    for line in t.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !(line.starts_with('{') && line.ends_with('}')) {
            return None;
        }
        if read + line.len() > JSON_LINES_MAX_BYTES {
            break;
        }
        read += line.len();
        items.push(crate::json::parse_strict(line.as_bytes()).ok()?);
    }
    (items.len() >= 2).then_some(serde_json::Value::Array(items))
}

/// The bytes of JSON Lines [`json_lines`] reads as records: 1 MiB.
const JSON_LINES_MAX_BYTES: usize = 1 << 20;

/// JSON documents kept in strings inside each other that [`scan`] reads as
/// documents, the outermost first.
const NESTED_JSON_LAYERS: usize = 3;

thread_local! {
    /// How many layers of JSON kept in strings this thread is reading now.
    static NESTED_JSON_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One layer of [`NESTED_JSON_DEPTH`], left when dropped (also on unwinding).
struct NestedLayer;

impl NestedLayer {
    fn enter() -> NestedLayer {
        NESTED_JSON_DEPTH.set(NESTED_JSON_DEPTH.get() + 1);
        NestedLayer
    }
}

impl Drop for NestedLayer {
    fn drop(&mut self) {
        NESTED_JSON_DEPTH.set(NESTED_JSON_DEPTH.get().saturating_sub(1));
    }
}
