//! Judging matched values: references and placeholders (allowed), writegate / LoopX ids
//! (allowed), randomness (secrets look random; words do not), and the decoders the scan
//! applies (ASCII percent-escapes, base64 runs).

use std::sync::LazyLock;

static OUR_ID: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(
        r"^(?:sha256:[0-9a-f]{64}|[0-9a-f]{40}|[0-9a-f]{64}|write_[a-z_]+_[0-9a-f]{16}|todo_[a-z0-9_-]{3,64}|[A-Za-z0-9_.-]+:[a-z_]+:[0-9a-f]{64}|local_completion_[0-9a-f]{32}|lease_[A-Za-z0-9_]+|\d{4}-\d{2}-\d{2}T\d{2}[-:]\d{2}[-:]\d{2}(?:[-:+.0-9Z]*)(?:-[a-z][a-z0-9-]*)?|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$",
    )
    .expect("static regex")
});

const PLACEHOLDER_WORDS: &[&str] = &[
    "example",
    "dummy",
    "placeholder",
    "changeme",
    "change_me",
    "redacted",
    "your-",
    "your_",
    "yourkey",
    "xxxx",
    "****",
    "...",
    "<",
    ">",
    "{{",
    "fake",
    "sample",
    "replace",
    "insert",
    "todo",
    "none",
    "null",
    "undefined",
    "secret_here",
    "here",
];

/// True for values that only refer to a secret (`$X`, `${X}`, `%X%`, `os.environ[...]`,
/// `process.env.X`, `getenv(...)`) or are placeholders (`<your-token>`, `example`, …).
/// Mirrors LoopX's reference rule, plus placeholders.
#[must_use]
pub fn is_reference_or_placeholder(value: &str) -> bool {
    let v = value.trim().trim_matches(['"', '\'', '`']);
    let lower = v.to_ascii_lowercase();
    if v.is_empty() {
        return true;
    }
    if v.starts_with('$') || (v.starts_with('%') && v[1..].contains('%')) || v.starts_with('<') || v.starts_with("{{") {
        return true;
    }
    if ["os.environ", "os.getenv", "process.env", "getenv(", "system.getenv", "deno.env", "env::var", "env."]
        .iter()
        .any(|p| lower.starts_with(p))
    {
        return true;
    }
    if PLACEHOLDER_WORDS.iter().any(|w| lower.contains(w)) {
        return true;
    }
    // A variable reference such as `args.reset_token` or `config.api_key)`.
    v.chars().all(|c| c.is_ascii_lowercase() || c == '_' || c == '.' || c == ')' || c == '(') && v.contains(['.', '('])
}

/// True for environment references (`$X`, `${X}`, `%X%`, `os.environ[…]`, …) and config
/// templates (`<YOUR_API_KEY>`, `your-token-here`) — not for redaction marks like `****`.
#[must_use]
pub fn is_reference_or_template(value: &str) -> bool {
    let v = value.trim();
    let lower = v.to_ascii_lowercase();
    v.starts_with('$')
        || (v.starts_with('%') && v[1..].contains('%'))
        || v.starts_with("{{")
        || ["os.environ", "os.getenv", "process.env", "getenv(", "system.getenv", "deno.env", "env::var"]
            .iter()
            .any(|p| lower.starts_with(p))
        || (lower.starts_with("<your") || lower.starts_with("your_") || lower.starts_with("your-"))
}

/// True for a name made of words (`preferredTokenSigningKeyThumbprint`, `API_KEY_HEADER_NAME`,
/// `token-signing-key`): letters only, cut at underscores, hyphens, dots and lower-to-upper
/// case changes into two or more segments of three or more letters, each with a vowel. A
/// field or constant name, not a secret (issue 16: `"clientSecret": "preferredTokenSigning…"`
/// blocked). Random letters make short or vowel-less segments.
#[must_use]
pub fn is_identifier(value: &str) -> bool {
    let v = value.trim();
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'-' | b'.')) {
        return false;
    }
    let mut segments: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in v.chars() {
        if matches!(c, '_' | '-' | '.') {
            segments.push(std::mem::take(&mut current));
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower {
            segments.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_ascii_lowercase();
        current.push(c);
    }
    segments.push(current);
    let vowel = |s: &str| s.chars().any(|c| matches!(c.to_ascii_lowercase(), 'a' | 'e' | 'i' | 'o' | 'u' | 'y'));
    segments.len() >= 2 && segments.iter().all(|s| s.len() >= 3 && vowel(s))
}

/// True for ids writegate and LoopX print themselves: revisions, commit hashes, write ids,
/// todo ids, idempotency keys, completion keys, lease ids, UUIDs, and run ids (a
/// `generated_at` or its artifact stem with a writer suffix, `2026-11-29T13-04-00-00-00-operator-gate`).
#[must_use]
pub fn is_our_id(value: &str) -> bool {
    OUR_ID.is_match(value.trim().trim_matches(['"', '\'']))
}

/// Shannon entropy in bits per character.
fn entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for c in s.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let n = s.chars().count() as f64;
    counts
        .values()
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// True when a value looks like a generated secret rather than a word, an id of ours, a
/// reference or a placeholder: at least 8 characters, several character classes, and high
/// entropy for its length.
#[must_use]
pub fn looks_random(value: &str) -> bool {
    let v = value.trim().trim_matches(['"', '\'', '`']);
    if v.chars().count() < 8 || is_reference_or_placeholder(v) || is_our_id(v) {
        return false;
    }
    if is_identifier(v) {
        return false;
    }
    let classes = [
        v.chars().any(|c| c.is_ascii_lowercase()),
        v.chars().any(|c| c.is_ascii_uppercase()),
        v.chars().any(|c| c.is_ascii_digit()),
        v.chars().any(|c| !c.is_ascii_alphanumeric()),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    let e = entropy(v);
    let len = v.chars().count();
    // Plain lowercase words and snake_case names are not secrets.
    if v.chars().all(|c| c.is_ascii_lowercase() || c == '_' || c == '-' || c == '.') {
        return false;
    }
    // Nor are structured names built of lowercase words and short numbers
    // (`demo-goal:run_123:handoff_packet_pointer`, `release-2026-11-29`): every segment
    // between separators is letters only or at most 6 digits.
    let segments: Vec<&str> = v.split([':', '_', '-', '.', '/']).filter(|s| !s.is_empty()).collect();
    if segments.len() >= 2
        && segments.iter().all(|s| {
            s.chars().all(|c| c.is_ascii_lowercase()) || (s.len() <= 6 && s.chars().all(|c| c.is_ascii_digit()))
        })
    {
        return false;
    }
    if len >= 20 {
        classes >= 2 && e >= 3.5
    } else if len >= 12 {
        classes >= 3 && e >= 3.2
    } else {
        classes >= 3 && e >= 2.8
    }
}
