//! A first boundary scan over what a write would put on disk or reflect: every JSON key
//! and string value of the item (locator fields excluded) and every line the change adds.
//! Severity follows the destination policy (DESIGN.md §5). Pure; the full rule set is a
//! later issue.

use crate::wire::Finding;
use regex::Regex;
use serde_json::Value;
use std::sync::LazyLock;

/// Where the scanned data goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Writebacks, status and results: strict.
    Public,
    /// The goal's own local-private state file: paths, hosts and e-mails only warn.
    Local,
}

struct Rule {
    id: &'static str,
    category: &'static str,
    re: Regex,
    local_warn: bool,
    reason: &'static str,
}

fn rule(id: &'static str, category: &'static str, re: &str, local_warn: bool, reason: &'static str) -> Rule {
    Rule { id, category, re: Regex::new(re).expect("static regex"), local_warn, reason }
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        rule("aws_access_key", "credentials", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", false, "AWS access key id"),
        rule("github_token", "credentials", r"\bgh[pousr]_[A-Za-z0-9]{30,}\b", false, "GitHub token"),
        rule("openai_style_key", "credentials", r"\bsk-[A-Za-z0-9_-]{20,}", false, "model API key"),
        rule("slack_token", "credentials", r"\bxox[abprs]-[A-Za-z0-9-]{10,}", false, "Slack token"),
        rule(
            "jwt",
            "credentials",
            r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
            false,
            "JSON web token",
        ),
        rule("private_key_block", "credentials", r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----", false, "PEM private key"),
        rule("bearer_token", "credentials", r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*", false, "bearer token"),
        rule("authorization_header", "credentials", r"(?i)\bauthorization:\s*\S+", false, "Authorization header"),
        rule("url_password", "credentials", r"[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@", false, "password in URL"),
        rule(
            "secret_assignment",
            "credentials",
            r#"(?i)\b(?:password|passwd|secret|token|api[_-]?key|access[_-]?key)\s*[=:]\s*["']?([A-Za-z0-9_./+=-]{8,})"#,
            false,
            "secret assigned a literal value",
        ),
        rule(
            "home_path",
            "local_paths",
            r"(?:/home/[^/\s]+|/Users/[^/\s]+|/root)(?:/|\b)",
            true,
            "local home directory path",
        ),
        rule(
            "windows_home_path",
            "local_paths",
            r"(?i)\b[A-Z]:(?:\\\\|\\)Users(?:\\\\|\\)[^\\\s]+",
            true,
            "Windows home directory path",
        ),
        rule(
            "private_ip",
            "network",
            r"\b(?:10\.\d{1,3}|172\.(?:1[6-9]|2\d|3[01])|192\.168)\.\d{1,3}\.\d{1,3}\b",
            true,
            "private IP address",
        ),
        rule(
            "transcript_turn",
            "transcripts",
            r"(?im)^\s*(?:user|assistant|system|human)\s*:\s+\S",
            false,
            "role-marked conversation turn",
        ),
        rule(
            "stack_trace",
            "raw_tool_output",
            r"(?m)^Traceback \(most recent call last\):|^\s+at [\w.$]+\([\w.]+:\d+\)",
            false,
            "stack trace",
        ),
    ]
});

static EMAIL_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b").expect("static regex"));
static REFERENCE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)(?:[=:]\s*["']?)(?:\$\{?[A-Za-z_]|%[A-Za-z_]+%|os\.environ|process\.env|<[^>]+>|redacted|example|placeholder|changeme|your[-_])"#).expect("static regex")
});

const FORBIDDEN_KEYS: &[&str] = &[
    "password",
    "secret",
    "transcript",
    "request_body",
    "response_body",
    "cookie",
    "authorization",
    "credentials",
    "private_key",
];

/// `first4***last4`, or `***` for samples of 8 characters or fewer.
#[must_use]
pub fn mask(sample: &str) -> String {
    let chars: Vec<char> = sample.chars().collect();
    if chars.len() <= 8 {
        return "***".into();
    }
    let head: String = chars[..4].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}***{tail}")
}

fn severity(rule: &Rule, policy: Policy) -> &'static str {
    if rule.local_warn && policy == Policy::Local { "warn" } else { "block" }
}

/// Scans one string found at `location`.
pub fn scan_text(text: &str, location: &str, policy: Policy, out: &mut Vec<Finding>) {
    for r in RULES.iter() {
        for m in r.re.find_iter(text) {
            if r.id == "secret_assignment" && REFERENCE_RE.is_match(m.as_str()) {
                continue;
            }
            out.push(Finding {
                rule_id: r.id.into(),
                category: r.category.into(),
                severity: severity(r, policy).into(),
                location: location.to_owned(),
                sample_masked: mask(m.as_str()),
                reason: r.reason.into(),
            });
        }
    }
    for m in EMAIL_RE.find_iter(text) {
        out.push(Finding {
            rule_id: "email_address".into(),
            category: "network".into(),
            severity: "warn".into(),
            location: location.to_owned(),
            sample_masked: mask(m.as_str()),
            reason: "e-mail address".into(),
        });
    }
}

fn pointer_escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Scans every key and string value of `value`; `true` boundary flags and forbidden key
/// names are findings too. Locations are JSON pointers.
pub fn scan_json(value: &Value, pointer: &str, policy: Policy, out: &mut Vec<Finding>) {
    match value {
        Value::String(s) => scan_text(s, pointer, policy, out),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                scan_json(v, &format!("{pointer}/{i}"), policy, out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                let loc = format!("{pointer}/{}", pointer_escape(k));
                let lower = k.to_lowercase();
                let forbidden = FORBIDDEN_KEYS.contains(&lower.as_str())
                    || lower.starts_with("raw_") && !lower.ends_with("_copied") && !lower.ends_with("_recorded")
                    || lower.ends_with("_token") && !lower.ends_with("_tokens");
                if forbidden {
                    out.push(Finding {
                        rule_id: "forbidden_key".into(),
                        category: "structure".into(),
                        severity: "block".into(),
                        location: loc.clone(),
                        sample_masked: mask(k),
                        reason: format!(
                            "key name {:?} carries raw or secret data",
                            crate::textsafe::sanitize(k, false)
                        ),
                    });
                }
                let flag = lower.ends_with("_copied")
                    || lower.ends_with("_recorded")
                    || lower.ends_with("_authorized")
                    || lower.ends_with("_granted");
                if flag && v == &Value::Bool(true) {
                    out.push(Finding {
                        rule_id: "boundary_flag_true".into(),
                        category: "structure".into(),
                        severity: "block".into(),
                        location: loc.clone(),
                        sample_masked: "true".into(),
                        reason: format!("boundary flag {} is true", crate::textsafe::sanitize(k, false)),
                    });
                }
                scan_text(k, &loc, policy, out);
                scan_json(v, &loc, policy, out);
            }
        }
        _ => {}
    }
}

/// Scans added lines (`(line number, text)`); locations are `line:column`.
pub fn scan_lines(lines: &[(usize, String)], policy: Policy, out: &mut Vec<Finding>) {
    for (n, raw) in lines {
        let before = out.len();
        let (decoded, _) = decode_ascii_percent(raw);
        let line = &decoded;
        scan_text(line, &format!("{n}:1"), policy, out);
        for f in &mut out[before..] {
            let col = line.find(f.sample_masked.get(..4).unwrap_or("")).map_or(1, |c| c + 1);
            f.location = format!("{n}:{col}");
        }
    }
}

/// Decodes ASCII `%XX` escapes (what LoopX's metadata encoding produces) and returns the
/// decoded text with, for each decoded byte, the byte range it came from in `text`.
fn decode_ascii_percent(text: &str) -> (String, Vec<(usize, usize)>) {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut map = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(b) = hex.filter(|b| (0x20..0x7f).contains(b)) {
                out.push(b);
                map.push((i, i + 3));
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        map.push((i, i + 1));
        i += 1;
    }
    (String::from_utf8(out).unwrap_or_else(|_| text.to_owned()), map)
}

/// Replaces every credential match in `text` — also inside percent-encoded metadata — with
/// its masked form; returns the text and how many were masked. Used on diffs so a preview
/// never shows a full secret.
#[must_use]
pub fn mask_secrets(text: &str) -> (String, usize) {
    let mut n = 0;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (decoded, map) = decode_ascii_percent(line);
        if map.len() != decoded.len() {
            out.push_str(line);
            continue;
        }
        let mut spans: Vec<(usize, usize, String)> = Vec::new();
        for r in RULES.iter().filter(|r| r.category == "credentials") {
            for m in r.re.find_iter(&decoded) {
                let (start, end) = (map[m.start()].0, map[m.end() - 1].1);
                if !spans.iter().any(|(s, e, _)| start < *e && *s < end) {
                    spans.push((start, end, mask(m.as_str())));
                }
            }
        }
        spans.sort_by_key(|s| s.0);
        let mut last = 0;
        for (start, end, masked) in spans {
            out.push_str(&line[last..start]);
            out.push_str(&masked);
            last = end;
            n += 1;
        }
        out.push_str(&line[last..]);
    }
    (out, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_and_allows() {
        let mut f = Vec::new();
        scan_text("token=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "/x", Policy::Local, &mut f);
        assert!(f.iter().any(|x| x.rule_id == "github_token" && x.severity == "block"));
        assert!(f.iter().all(|x| !x.sample_masked.contains("abcdefghijkl")));
        let mut f = Vec::new();
        scan_text("password=${DB_PASSWORD} and see <project-root>/docs", "/x", Policy::Public, &mut f);
        assert!(f.is_empty(), "{f:?}");
        let mut f = Vec::new();
        scan_text("logs in /home/alice/x", "/x", Policy::Local, &mut f);
        assert_eq!(f[0].severity, "warn");
        let mut f = Vec::new();
        scan_json(
            &json!({"raw_transcript": "x", "boundary": {"credentials_copied": true}}),
            "",
            Policy::Public,
            &mut f,
        );
        assert_eq!(f.iter().filter(|x| x.severity == "block").count(), 2);
    }

    #[test]
    fn masks_inside_percent_encoded_metadata() {
        let line = "+  <!-- loopx:todo note=deploy%20with%20token%3Dghp_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2gU8 -->\n";
        let (masked, n) = mask_secrets(line);
        assert!(n >= 1);
        assert!(!masked.contains("Xq8vR2mN5tK9"), "{masked}");
        let mut f = Vec::new();
        scan_lines(&[(3, line.trim_end().to_owned())], Policy::Local, &mut f);
        assert!(f.iter().any(|x| x.rule_id == "github_token"));
    }
}
