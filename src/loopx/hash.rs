//! LoopX hashing, bit-exact: the state revision, Python-compatible canonical JSON, and
//! the write-intent digest behind `write_id` / `idempotency_key` (FORMATS.md §5.2, §5.5).

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// `sha256:<64 hex>` of `text` after universal-newline translation (CRLF/CR → LF, BOM kept),
/// exactly as LoopX computes `expected_revision.value` (FORMATS.md §5.2).
#[must_use]
pub fn revision_of_text(text: &str) -> String {
    let normalized = super::pytext::universal_newlines(text);
    format!("sha256:{}", sha256_hex(normalized.as_bytes()))
}

/// A 64-bit hash of `text` seeded once per process (foldhash, quality variant): not a
/// LoopX hash and never written anywhere; for in-memory tables and for telling whether a
/// text kept earlier in this process is the same text. Seeded per process, so input from
/// disk cannot be built to collide.
#[must_use]
pub fn process_hash(text: &str) -> u64 {
    use std::hash::BuildHasher as _;
    static SEED: std::sync::LazyLock<foldhash::quality::RandomState> =
        std::sync::LazyLock::new(foldhash::quality::RandomState::default);
    SEED.hash_one(text)
}

/// Lowercase hex SHA-256 of `bytes`.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Lowercase hex SHA-1 of `bytes` (todo ids, FORMATS.md §1.6).
#[must_use]
pub fn sha1_hex(bytes: &[u8]) -> String {
    use sha1::Sha1;
    hex::encode(Sha1::digest(bytes))
}

/// Python `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=...)`.
///
/// Keys are sorted by code point, no spaces, `"`/`\`/control characters escaped the way
/// CPython escapes them (`\n`, `\t`, … and lowercase `\u00xx`); with `ensure_ascii` every
/// non-ASCII character becomes `\uxxxx` (surrogate pairs above the BMP). Floats follow
/// Python's `repr`.
#[must_use]
pub fn canonical_json(value: &Value, ensure_ascii: bool) -> String {
    let mut out = String::new();
    write_value(&mut out, value, ensure_ascii, Separators::COMPACT, true);
    out
}

/// Python `json.dumps(value, sort_keys=True, ensure_ascii=...)` with the default
/// separators `", "` and `": "` (used by LoopX's event logs, FORMATS.md §3).
#[must_use]
pub fn python_json_default_separators(value: &Value, ensure_ascii: bool) -> String {
    let mut out = String::new();
    write_value(&mut out, value, ensure_ascii, Separators::DEFAULT, true);
    out
}

/// Python `json.dumps(value, indent=2, ensure_ascii=False)` keeping insertion order
/// (LoopX lease and registry files are written this way).
#[must_use]
pub fn python_json_indent2(value: &Value) -> String {
    let mut out = String::new();
    write_indented(&mut out, value, 0);
    out
}

#[derive(Clone, Copy)]
struct Separators {
    item: &'static str,
    key: &'static str,
}

impl Separators {
    const COMPACT: Self = Self { item: ",", key: ":" };
    const DEFAULT: Self = Self { item: ", ", key: ": " };
}

fn write_value(out: &mut String, value: &Value, ascii: bool, seps: Separators, sort: bool) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s, ascii),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(seps.item);
                }
                write_value(out, item, ascii, seps, sort);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            if sort {
                entries.sort_by(|a, b| a.0.cmp(b.0));
            }
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(seps.item);
                }
                write_string(out, k, ascii);
                out.push_str(seps.key);
                write_value(out, v, ascii, seps, sort);
            }
            out.push('}');
        }
    }
}

fn write_indented(out: &mut String, value: &Value, depth: usize) {
    let pad = |out: &mut String, d: usize| out.push_str(&" ".repeat(d * 2));
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                pad(out, depth + 1);
                write_indented(out, item, depth + 1);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            pad(out, depth);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push_str("{\n");
            for (i, (k, v)) in map.iter().enumerate() {
                pad(out, depth + 1);
                write_string(out, k, false);
                out.push_str(": ");
                write_indented(out, v, depth + 1);
                out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            pad(out, depth);
            out.push('}');
        }
        other => write_value(out, other, false, Separators::DEFAULT, false),
    }
}

fn write_string(out: &mut String, s: &str, ascii: bool) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        // Copy the run of characters that stand for themselves in one go: everything but
        // `"`, `\`, control characters and (with `ensure_ascii`) non-ASCII. The run ends on
        // an ASCII byte or on the first byte of a character, so it is whole UTF-8.
        let run = plain_run(&bytes[at..], ascii);
        out.push_str(&s[at..at + run]);
        at += run;
        let Some(c) = s[at..].chars().next() else { break };
        at += c.len_utf8();
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// How many bytes at the start of `bytes` stand for themselves in a JSON string: none is
/// `"`, `\\`, a control character or (with `ascii`) non-ASCII. Eight bytes at a time while
/// a word holds none of them (a state's text is long runs of such bytes).
fn plain_run(bytes: &[u8], ascii: bool) -> usize {
    use crate::loopx::pytext::{HIGHS, ONES, word_at};
    // Exact for "some byte is zero" / "some byte is below 0x20": the lowest such byte sets
    // its own high bit, whatever the others hold.
    let has_zero = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS != 0;
    let mut n = 0;
    while let Some(w) = word_at(bytes, n) {
        let special = w.wrapping_sub(ONES * 0x20) & !w & HIGHS != 0
            || has_zero(w ^ (ONES * u64::from(b'"')))
            || has_zero(w ^ (ONES * u64::from(b'\\')))
            || (ascii && w & HIGHS != 0);
        if special {
            break;
        }
        n += 8;
    }
    n + bytes[n..].iter().take_while(|&&b| b >= 0x20 && b != b'"' && b != b'\\' && !(ascii && b >= 0x80)).count()
}

fn write_number(out: &mut String, n: &serde_json::Number) {
    if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else if let Some(f) = n.as_f64() {
        out.push_str(&python_float_repr(f));
    }
}

/// Python `repr(float)`: shortest round-trip digits, fixed notation for decimal exponents
/// in `-4..16`, otherwise `d.ddde+XX`.
#[must_use]
pub fn python_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let point = exp + 1;
        let body = if point <= 0 {
            format!("0.{}{}", "0".repeat(point.unsigned_abs() as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            let (a, b) = digits.split_at(point as usize);
            format!("{a}.{b}")
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}{frac}e{esign}{:02}", exp.unsigned_abs())
    }
}

/// The write-intent seed of FORMATS.md §5.2, hashed: returns `(write_id, idempotency_key)`.
///
/// `seed` must be the JSON object `{goal_id, writer_id, write_class, target_refs,
/// patch_summary, expected_write_scopes, lease_ref}`; the digest is SHA-256 of its
/// canonical JSON (`ensure_ascii=False`). `write_id = write_<class>_<digest[:16]>`,
/// `idempotency_key = <goal_id>:<class>:<digest>`.
#[must_use]
pub fn write_identity(seed: &Value) -> (String, String) {
    let digest = sha256_hex(canonical_json(seed, false).as_bytes());
    let goal_id = seed.get("goal_id").and_then(Value::as_str).unwrap_or_default();
    let class = seed.get("write_class").and_then(Value::as_str).unwrap_or_default();
    (format!("write_{class}_{}", &digest[..16]), format!("{goal_id}:{class}:{digest}"))
}

/// `sha256:` digest of a value's canonical JSON: how writegate fingerprints payloads and
/// effects (never the payload body itself) in result records.
#[must_use]
pub fn value_digest(value: &Value) -> String {
    format!("sha256:{}", sha256_hex(canonical_json(value, false).as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn golden_write_identity_and_revision() {
        // FORMATS.md §5.2 golden vector.
        let seed = json!({
            "goal_id": "demo-goal", "writer_id": "loopx.todo", "write_class": "todo_update",
            "target_refs": {"state_file_ref": "registry.goal.state_file", "todo_id": "todo_existing",
                            "role": "agent", "section": "Agent Todo"},
            "patch_summary": "preview todo_update for agent todo todo_existing: would change active state",
            "expected_write_scopes": ["active_state"],
            "lease_ref": {"kind": "todo_claim", "goal_id": "demo-goal", "todo_id": "todo_existing",
                          "claimed_by": "codex-main-control",
                          "lease_id": "lease_todo_existing_codex_main_control"}
        });
        assert_eq!(
            canonical_json(&seed, false),
            r#"{"expected_write_scopes":["active_state"],"goal_id":"demo-goal","lease_ref":{"claimed_by":"codex-main-control","goal_id":"demo-goal","kind":"todo_claim","lease_id":"lease_todo_existing_codex_main_control","todo_id":"todo_existing"},"patch_summary":"preview todo_update for agent todo todo_existing: would change active state","target_refs":{"role":"agent","section":"Agent Todo","state_file_ref":"registry.goal.state_file","todo_id":"todo_existing"},"write_class":"todo_update","writer_id":"loopx.todo"}"#
        );
        let (write_id, key) = write_identity(&seed);
        assert_eq!(write_id, "write_todo_update_168fafa252af51ce");
        assert_eq!(key, "demo-goal:todo_update:168fafa252af51ce0c397623d2f6330ed2b288627a9ea485253c23dce3d551f4");
        let state = "---\nstatus: active\n---\n\n## Agent Todo\n\n- [ ] Existing.\n  <!-- loopx:todo todo_id=todo_existing status=open -->\n";
        assert_eq!(revision_of_text(state), "sha256:a9359530da7f0c11db45a52dd08df09c81b04172c16715e8d693999ba5c1aa3d");
        assert_eq!(revision_of_text(&state.replace('\n', "\r\n")), revision_of_text(state));
    }

    #[test]
    fn escapes_like_python() {
        let v = json!({"b": "é\n\u{1}\"\\", "a": "😀"});
        assert_eq!(canonical_json(&v, false), "{\"a\":\"😀\",\"b\":\"é\\n\\u0001\\\"\\\\\"}");
        assert_eq!(canonical_json(&v, true), "{\"a\":\"\\ud83d\\ude00\",\"b\":\"\\u00e9\\n\\u0001\\\"\\\\\"}");
    }

    /// The escaping rule one character at a time, as the oracle of the run-copying writer.
    fn escaped_per_char(s: &str, ascii: bool) -> String {
        let mut out = String::from('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 || (ascii && !c.is_ascii()) => {
                    let mut buf = [0u16; 2];
                    for unit in c.encode_utf16(&mut buf) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        #[test]
        fn strings_escape_as_one_character_at_a_time(
            s in proptest::prop_oneof![
                "[a \"\\\\\n\t\u{1}\u{1f}\u{7f}é😀\u{2028}]{0,12}",
                // Plain runs the writer crosses eight bytes at a time (with the bytes next to
                // the special ones), each ended by a character to escape or a non-ASCII one.
                "([a-z !#\\[\\]~\u{7f}]{0,19}[\"\\\\\n\u{1f}é😀])*[a-z]{0,9}",
            ],
            ascii: bool,
        ) {
            let mut out = String::new();
            write_string(&mut out, &s, ascii);
            proptest::prop_assert_eq!(out, escaped_per_char(&s, ascii));
        }
    }

    #[test]
    fn float_repr_like_python() {
        assert_eq!(python_float_repr(1.0), "1.0");
        assert_eq!(python_float_repr(1.5), "1.5");
        assert_eq!(python_float_repr(1e16), "1e+16");
        assert_eq!(python_float_repr(0.0001), "0.0001");
        assert_eq!(python_float_repr(0.00001), "1e-05");
        assert_eq!(python_float_repr(123_456.789), "123456.789");
        assert_eq!(python_float_repr(-2.5e-7), "-2.5e-07");
    }
}
