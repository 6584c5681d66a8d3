//! JSON documents kept in strings (issue 16, ninth round): a todo or evidence field holding
//! a pasted payload hides its strings' quotes and line breaks behind escapes, so such a
//! string is also read as a document, a few layers deep.

use super::{Finding, Policy, scan_json};

/// A JSON document kept as a string (`"evidence": "{\\"log\\": \\"203.0.113.4 - - [11/Jun…\\"}"`,
/// a todo holding a pasted payload) hides its strings' quotes and line breaks behind
/// escapes: when `text` is one (an object or array, first and last characters aside from
/// blanks), the strings inside are scanned as [`scan_json`] scans a document, at `location`,
/// and their findings of rules not already reported for `text` (`out[before..]`) are added.
pub(super) fn scan(text: &str, location: &str, policy: Policy, out: &mut Vec<Finding>, before: usize) {
    let t = text.trim();
    let document = (t.starts_with('{') && t.ends_with('}')) || (t.starts_with('[') && t.ends_with(']'));
    if !document || t.len() < 8 {
        return;
    }
    // Each layer scans its strings once more: past [`NESTED_JSON_LAYERS`] layers the
    // strings are scanned as text only (a document escaped a dozen times over cost a dozen
    // scans of it).
    if NESTED_JSON_DEPTH.get() >= NESTED_JSON_LAYERS {
        return;
    }
    // Read as an inbox item is (`crate::json::parse_strict`): a key given twice or nesting
    // past its depth is no document, and the text stays scanned as text.
    let Ok(value) = crate::json::parse_strict(t.as_bytes()) else { return };
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
