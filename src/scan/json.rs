//! JSON structure rules: forbidden key names, boundary flags set to true, chat message arrays,
//! and secret-named fields holding random-looking literals; every key and string value is
//! scanned as text too. Locations are JSON pointers.

use super::rules::{FORBIDDEN_KEYS, RULES, Rule};
use super::{Hit, Policy, finding, looks_random, mask, scan_text, values};
use crate::loopx::hash::sha256_hex;
use crate::wire::Finding;
use serde_json::Value;
use std::sync::LazyLock;

static SECRET_NAME: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|accountkey|credential|auth)").expect("static regex")
});

fn secret_rule() -> &'static Rule {
    RULES.iter().find(|r| r.id == "secret_assignment").expect("secret_assignment rule")
}

fn pointer_escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A boundary flag name (`*_copied`, `*_recorded`, `*_authorized`, `*_granted`), lowercased.
fn is_boundary_flag(lower: &str) -> bool {
    ["_copied", "_recorded", "_authorized", "_granted"].iter().any(|s| lower.ends_with(s))
}

fn is_forbidden_key(lower: &str) -> bool {
    let flag = is_boundary_flag(lower);
    FORBIDDEN_KEYS.contains(&lower)
        || (lower.starts_with("raw_") && !flag)
        || ["_token", "_secret", "_password", "_credential", "_credentials", "_cookie"]
            .iter()
            .any(|s| lower.ends_with(s))
}

fn structure(rule_id: &str, loc: String, sample: &str, reason: String) -> Finding {
    Finding {
        rule_id: rule_id.into(),
        category: if rule_id == "chat_message_array" { "transcripts" } else { "structure" }.into(),
        severity: "block".into(),
        fingerprint: format!("{rule_id}:{}", &sha256_hex(format!("{rule_id}\0{loc}").as_bytes())[..16]),
        location: loc,
        sample_masked: mask(sample),
        reason,
    }
}

/// Scans every key and string value of `value`; forbidden key names, `true` boundary flags
/// and message arrays with roles are findings too. Locations are JSON pointers.
pub fn scan_json(value: &Value, pointer: &str, policy: Policy, out: &mut Vec<Finding>) {
    match value {
        Value::String(s) => scan_text(s, pointer, policy, out),
        Value::Array(items) => {
            let turns = items
                .iter()
                .filter(|v| {
                    v.get("content").is_some()
                        && v.get("role")
                            .and_then(Value::as_str)
                            .is_some_and(|r| matches!(r, "user" | "assistant" | "system" | "tool"))
                })
                .count();
            if turns >= 2 {
                out.push(structure(
                    "chat_message_array",
                    pointer.to_owned(),
                    "role/content",
                    format!("an array of {turns} chat messages with roles"),
                ));
            }
            for (i, v) in items.iter().enumerate() {
                scan_json(v, &format!("{pointer}/{i}"), policy, out);
            }
            // Log lines, turns and stack frames split over array items are one text.
            let strings: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            if strings.len() >= 2 {
                let mut joined = Vec::new();
                scan_text(&strings.join("\n"), pointer, policy, &mut joined);
                for f in joined.into_iter().filter(|f| matches!(f.category.as_str(), "transcripts" | "raw_tool_output"))
                {
                    if !out.iter().any(|o| o.rule_id == f.rule_id && o.location.starts_with(pointer)) {
                        out.push(f);
                    }
                }
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                let loc = format!("{pointer}/{}", pointer_escape(k));
                let lower = k.to_lowercase();
                let value_text = v.as_str();
                let secret_named = SECRET_NAME.is_match(&lower);
                if secret_named && value_text.is_some_and(looks_random) {
                    // A secret-named field holding a random-looking literal: the value is a credential.
                    let hit = Hit {
                        rule: secret_rule(),
                        start: 0,
                        matched: value_text.unwrap_or_default().to_owned(),
                        note: " (JSON field)",
                    };
                    out.push(finding(&hit, loc.clone(), policy));
                }
                // A forbidden key is structure even when its value was redacted; only an
                // environment reference or a `<your-…>` template leaves it alone.
                if is_forbidden_key(&lower) && !value_text.is_some_and(values::is_reference_or_template) {
                    let shown = crate::textsafe::sanitize(k, false);
                    out.push(structure(
                        "forbidden_key",
                        loc.clone(),
                        k,
                        format!("key name {shown:?} carries raw or secret data"),
                    ));
                }
                if is_boundary_flag(&lower) && v == &Value::Bool(true) {
                    let shown = crate::textsafe::sanitize(k, false);
                    out.push(structure(
                        "boundary_flag_true",
                        loc.clone(),
                        "true",
                        format!("boundary flag {shown} is true"),
                    ));
                }
                scan_text(k, &loc, policy, out);
                scan_json(v, &loc, policy, out);
            }
        }
        _ => {}
    }
}
