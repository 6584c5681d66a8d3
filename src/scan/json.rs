//! JSON structure rules: forbidden key names, boundary flags set to true, chat message arrays,
//! and secret-named fields holding random-looking literals; every key and string value is
//! scanned as text too. Locations are JSON pointers.

use super::rules::{FORBIDDEN_KEYS, RULES, Rule};
use super::{Hit, Policy, finding, looks_random, mask, scan_text, secret_values, values};
use crate::loopx::hash::sha256_hex;
use crate::wire::Finding;
use serde_json::Value;
use std::fmt::Write as _;
use std::sync::LazyLock;

/// Key names of secrets, matched on the lowercased name. `auth` alone, or before a
/// separator, `orization` or `enticat…` (`auth_token`, `authorization`), not `author` or
/// `authority`.
static SECRET_NAME: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|accountkey|credential|auth(?:orization|enticat|[^oe]|$))").expect("static regex")
});

fn secret_rule() -> &'static Rule {
    RULES.iter().find(|r| r.id == "secret_assignment").expect("secret_assignment rule")
}

/// The warn-level rule of generically named secrets ([`GENERIC_SECRET_NAME`]).
fn generic_rule() -> &'static Rule {
    RULES.iter().find(|r| r.id == "generic_secret").expect("generic_secret rule")
}

/// Key names of secrets named only generically (issue 16): passphrases, salts, peppers,
/// unseal keys, unlock and PIN codes, master keys, seeds and mnemonics (recovery phrases
/// named in Spanish, Portuguese, Italian, French, German, Dutch, Turkish, Polish, Japanese,
/// Chinese and Korean too), encryption and signing keys, matched on the lowercased name.
static GENERIC_SECRET_NAME: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"(?:pass[_-]?phrase|salt|pepper|unseal[_-]?key|unlock[_-]?code|(?:alarm|disarm|door|gate|safe)[_-]?code|(?:^|_)pin$|pin[_-]?code|(?:^|_)puk$|master[_.-]?(?:key|secret|password)|cipher[_-]?seed|^seed$|seed[_-]?(?:phrase|words)|mnemonic|recovery[_-]?(?:phrase|key|code)|frase[_-]?d[eio][_-]?recuper|phrase[_-]?de[_-]?r[ée]cup[ée]ration|wiederherstellungs|herstelzin|kurtarma|fraza[_ -]?odzyskiwania|リカバリー(?:フレーズ|キー)|シードフレーズ|助记词|恢复短语|恢復短語|복구 ?문구|시드 ?문구|hoofdsleutel|hauptschlüssel|encryption[_-]?(?:key|secret)|signing[_-]?(?:key|secret)|hmac[_-]?(?:key|secret))").expect("static regex")
});

/// Twelve to twenty-four words of letters, none upper case (in any script: BIP-39 has
/// Korean, Japanese and Chinese lists): a wallet seed or recovery phrase.
fn is_word_list(value: &str) -> bool {
    let words: Vec<&str> = value.split([' ', ',', '\u{3000}']).filter(|w| !w.is_empty()).collect();
    (12..=24).contains(&words.len())
        && words
            .iter()
            .all(|w| (1..=10).contains(&w.chars().count()) && w.chars().all(|c| c.is_alphabetic() && !c.is_uppercase()))
}

/// A PIN, PUK or unlock code under a key naming one ([`GENERIC_SECRET_NAME`]'s `pin`,
/// `sim_pin`, `puk`, `unlock_code`, an alarm's, door's, gate's or safe's `…_code`): 4 to 8
/// digits.
fn is_pin(key: &str, value: &str) -> bool {
    let key = key.to_ascii_lowercase();
    (key == "pin"
        || key == "puk"
        || key.ends_with("_pin")
        || key.ends_with("_puk")
        || key.contains("pin_code")
        || key.contains("pincode")
        || key.contains("unlock_code")
        || key.contains("unlockcode")
        || ["alarm_code", "disarm_code", "door_code", "gate_code", "safe_code"].iter().any(|c| key.contains(c)))
        && (4..=8).contains(&value.len())
        && value.bytes().all(|b| b.is_ascii_digit())
}

/// Appends `/` and `key` escaped as a JSON pointer segment (`~` → `~0`, `/` → `~1`).
fn push_segment(at: &mut String, key: &str) {
    at.push('/');
    for c in key.chars() {
        match c {
            '~' => at.push_str("~0"),
            '/' => at.push_str("~1"),
            c => at.push(c),
        }
    }
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

/// A key name that holds what a tool printed (lowercased): `stdout`, `stderr`, `output` and
/// `*_output`, `console`, `log`/`logs` and the CI and build logs, `observation`/`observed`,
/// `tool_result`, `dump` and `*_dump`. A journal an agent keeps (`decision_log`) is not one.
fn is_captured_output_key(lower: &str) -> bool {
    matches!(
        lower,
        "stdout"
            | "stderr"
            | "output"
            | "console"
            | "log"
            | "logs"
            | "build_log"
            | "ci_log"
            | "job_log"
            | "test_log"
            | "run_log"
            | "console_log"
            | "observation"
            | "observed"
            | "tool_result"
            | "dump"
    ) || ["_output", "_stdout", "_stderr", "_dump"].iter().any(|s| lower.ends_with(s))
}

/// Lines of a captured output from which it is raw tool output, not a one-line summary.
const CAPTURED_OUTPUT_LINES: usize = 4;

/// The finding of a text that opens as a JSON document (`{` or `[`) but that an inbox item's
/// strict reading ([`crate::json::parse_strict`]: a key given twice, nesting past its depth,
/// trailing data) refuses, with that reading's `error`: an item holding it is refused too, and
/// a scan of it as a document would miss what a repeated key hides (`writegate scan` then
/// scans the text as text besides). Blocks under both policies.
#[must_use]
pub fn unreadable_document(error: &str) -> Finding {
    structure("unreadable_json", String::new(), "", format!("not a JSON document an inbox item may hold: {error}"))
}

fn structure(rule_id: &str, loc: String, sample: &str, reason: String) -> Finding {
    Finding {
        rule_id: rule_id.into(),
        category: match rule_id {
            "chat_message_array" => "transcripts",
            "pay_records" => "private_documents",
            "captured_output" | "log_records" | "stack_frames" | "lint_diagnostics" | "cluster_events"
            | "test_results" => "raw_tool_output",
            _ => "structure",
        }
        .into(),
        severity: "block".into(),
        fingerprint: format!("{rule_id}:{}", &sha256_hex(format!("{rule_id}\0{loc}").as_bytes())[..16]),
        location: loc,
        sample_masked: mask(sample),
        reason,
    }
}

/// Whether a key named after a secret (`key`, and `lower`, it lowercased) holds a fact
/// about it rather than the secret: it ends in a word of policy, time, count, kind or place
/// after a separator or in camel case (`password_policy`, `passwordPolicy`,
/// `api_key_rotation_due`, `token_ttl_minutes`, `secret_manager`, `salt_length`,
/// `token_url`). Its value is judged by the text rules alone (issue 16: `"password_policy":
/// "min 14 chars"` blocked as a random literal).
fn describes_a_secret(key: &str, lower: &str) -> bool {
    const ABOUT: &[&str] = &[
        "policy",
        "rotation",
        "rotation_due",
        "rotated_at",
        "ttl",
        "ttl_minutes",
        "ttl_seconds",
        "minutes",
        "seconds",
        "hours",
        "days",
        "manager",
        "length",
        "min_length",
        "expiry",
        "expires",
        "expires_at",
        "expiration",
        "hint",
        "type",
        "format",
        "version",
        "count",
        "enabled",
        "required",
        "url",
        "endpoint",
        "provider",
        "owner",
        "scope",
        "scopes",
        "header",
        "header_name",
        "env",
        "env_var",
        "field",
        "strength",
        "algorithm",
        "id",
        "name",
        "label",
    ];
    // A camel-case word starts with a capital where the lowercased name has the word.
    let camel = |rest: &str| {
        !rest.is_empty()
            && key.len() == lower.len()
            && key.as_bytes().get(rest.len()).is_some_and(u8::is_ascii_uppercase)
    };
    ABOUT.iter().any(|a| lower.strip_suffix(a).is_some_and(|rest| rest.ends_with(['_', '-', '.']) || camel(rest)))
}

/// What a key's name alone says (lowercased): see [`key_facts`].
#[derive(Clone, Copy)]
struct KeyFacts {
    secret_named: bool,
    generic_secret: bool,
    forbidden: bool,
    boundary_flag: bool,
    captured_output: bool,
    /// The name says it holds a chat (`chat`, `history`, `conversation`, `dialog`).
    chat_history: bool,
    /// The name says it holds an app's URL routes (`routes`, `endpoints`).
    web_routes: bool,
}

/// At most this many key names are remembered per thread (then forgotten all at once).
const KEYS_KEPT: usize = 4096;

thread_local! {
    /// [`KeyFacts`] by key name: every item repeats the same few dozen keys.
    static KEY_FACTS: std::cell::RefCell<std::collections::HashMap<Box<str>, KeyFacts>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// The facts of key name `k` (a function of the name alone), remembered per thread.
fn key_facts(k: &str) -> KeyFacts {
    if let Some(f) = KEY_FACTS.with_borrow(|m| m.get(k).copied()) {
        return f;
    }
    let lower = k.to_lowercase();
    let about = describes_a_secret(k, &lower);
    let facts = KeyFacts {
        secret_named: SECRET_NAME.is_match(&lower) && !about,
        generic_secret: GENERIC_SECRET_NAME.is_match(&lower) && !about,
        forbidden: is_forbidden_key(&lower),
        boundary_flag: is_boundary_flag(&lower),
        captured_output: is_captured_output_key(&lower),
        chat_history: ["chat", "history", "conversation", "dialog"].iter().any(|w| lower.contains(w)),
        web_routes: ["route", "endpoint"].iter().any(|w| lower.contains(w)),
    };
    KEY_FACTS.with_borrow_mut(|m| {
        if m.len() >= KEYS_KEPT {
            m.clear();
        }
        m.insert(k.into(), facts);
    });
    facts
}

/// Scans every key and string value of `value`; forbidden key names, `true` boundary flags
/// and message arrays with roles are findings too. Locations are JSON pointers under
/// `pointer`.
pub fn scan_json(value: &Value, pointer: &str, policy: Policy, out: &mut Vec<Finding>) {
    let mut at = pointer.to_owned();
    let before = out.len();
    scan_at(value, &mut at, policy, out);
    // Prose judged private string by string is public when the document's strings read
    // together say so (a synopsis's text beside a goal naming the programme guide).
    let judged = |f: &Finding| matches!(f.rule_id.as_str(), "private_prose" | "private_prose_weighed");
    if out[before..].iter().any(judged)
        && super::dossier::joined_strings(value).is_some_and(|(all, _)| super::dossier::reads_public(&all))
    {
        let kept: Vec<Finding> = out.drain(before..).filter(|f| !judged(f)).collect();
        out.extend(kept);
    }
    if !out[before..].iter().any(|f| f.category == "private_documents")
        && let Some(hit) = super::dossier::find_in_strings(value)
    {
        out.push(finding(&hit, pointer.to_owned(), policy));
    }
}

/// [`scan_json`] of `value` at pointer `at`, one buffer for every pointer below it (a
/// location is copied out only for a finding); `at` is as it was on return.
fn scan_at(value: &Value, at: &mut String, policy: Policy, out: &mut Vec<Finding>) {
    match value {
        Value::String(s) => scan_text(s, at, policy, out),
        Value::Array(items) => scan_array(items, at, policy, out),
        Value::Object(map) => {
            let nodes = map.values().filter(|v| is_export_node(v)).count();
            if nodes >= 2 {
                let what = format!("a conversation export of {nodes} messages with roles");
                out.push(structure("chat_message_array", at.clone(), "author/parts", what));
            }
            let len = at.len();
            for (k, v) in map {
                push_segment(at, k);
                scan_entry(k, v, at, policy, out);
                at.truncate(len);
            }
            // A token in one field, kept backwards or in ROT13 as another field says (the
            // fields are joined only when one of them says so: this runs on every object).
            let strings = || map.values().filter_map(Value::as_str);
            if strings().nth(1).is_some()
                && strings().any(super::disguise::announces)
                && let Some(tokens) = super::disguise::announced_tokens(&strings().collect::<Vec<_>>().join("\n"))
            {
                scan_joined(&tokens, at, policy, out, |f| f.category == "credentials" && f.severity == "block");
            }
        }
        _ => {}
    }
}

fn scan_array(items: &[Value], at: &mut String, policy: Policy, out: &mut Vec<Finding>) {
    for (rule, sample, fewest, is_one, what) in super::json_records::RECORD_ARRAYS {
        let n = items.iter().filter(|v| is_one(v)).count();
        if n >= *fewest {
            out.push(structure(rule, at.clone(), sample, format!("an array of {n} {what}")));
        }
    }
    let len = at.len();
    for (i, v) in items.iter().enumerate() {
        let _ = write!(at, "/{i}");
        scan_at(v, at, policy, out);
        at.truncate(len);
    }
    // Log lines, turns and stack frames split over array items are one text.
    let strings: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
    let blocks_a_credential = |f: &Finding| f.category == "credentials" && f.severity == "block";
    // A token split into pieces (`["ghp_", "SdRl…", …]`) is one when the pieces are joined.
    if (2..=16).contains(&strings.len())
        && strings.iter().all(|p| !p.is_empty() && p.len() <= 64 && !p.contains(char::is_whitespace))
    {
        scan_joined(&strings.concat(), at, policy, out, blocks_a_credential);
    }
    // A token spelt as character codes (`[103, 104, 112, 95, …]`) is the text they spell.
    if let Some(spelt) = super::decode::spelt(items.iter().map(Value::as_u64)) {
        scan_joined(&spelt, at, policy, out, blocks_a_credential);
    }
    // A path kept as its parts (`["C:\\", "Users", "li", "Desktop"]`), joined by a program.
    let key = at.rsplit('/').next().unwrap_or_default().to_ascii_lowercase();
    let path_key = ["path", "dir", "cwd", "folder"].iter().any(|w| key.contains(w));
    if let Some(path) = path_of_parts(&strings, path_key) {
        scan_joined(&path, at, policy, out, |f| f.category == "local_paths");
    }
    if strings.len() >= 2 {
        let is_output = |f: &Finding| matches!(f.category.as_str(), "transcripts" | "raw_tool_output");
        scan_joined(&strings.join("\n"), at, policy, out, is_output);
    }
}

/// Scans `joined` (an array's strings put together) and adds the findings `keep` selects
/// that no finding of the same rule under `at` already reports.
fn scan_joined(joined: &str, at: &str, policy: Policy, out: &mut Vec<Finding>, keep: impl Fn(&Finding) -> bool) {
    let mut found = Vec::new();
    scan_text(joined, at, policy, &mut found);
    for f in found.into_iter().filter(|f| keep(f)) {
        if !out.iter().any(|o| o.rule_id == f.rule_id && o.location.starts_with(at)) {
            out.push(f);
        }
    }
}

/// The path an array of two to sixteen parts spells when joined (`["/", "home", "li"]` →
/// `/home/li`, `["C:\\", "Users", "li"]` → `C:/Users/li`, `["home", "li", "notes.md"]` →
/// `/home/li/notes.md`): `None` unless one part is a home folder's parent (`home`, `Users`,
/// `Documents and Settings`, any case; `root` after a root) with a part after it, every
/// part is short and holds no line break, and the array reads as a path: it opens with a
/// root (`/`, `\`, `~`, a drive `C:`) or a part holding a separator, its last part names a
/// file (`notes.md`, `.ssh`), or its key (`path_key`) names a path (`cwd_parts`, `path`,
/// `dir`, `folder`). A menu or tag list (`["home", "about", "contact"]`) is none.
fn path_of_parts(parts: &[&str], path_key: bool) -> Option<String> {
    const HOMES: &[&str] = &["home", "users", "documents and settings"];
    let short = |p: &&str| !p.is_empty() && p.len() <= 64 && !p.contains('\n');
    let first = parts.first()?;
    let rooted = first.starts_with(['/', '\\', '~'])
        || first.ends_with(['/', '\\'])
        || (first.len() == 2 && first.ends_with(':') && first.starts_with(|c: char| c.is_ascii_alphabetic()));
    // `root`'s home counts after a root only (`["/", "root", ".ssh"]`).
    let is_home = |p: &str| {
        let p = p.trim_matches(['/', '\\']);
        HOMES.iter().any(|h| p.eq_ignore_ascii_case(h)) || (rooted && p == "root")
    };
    let home = parts.iter().position(|p| is_home(p))?;
    if !(2..=16).contains(&parts.len()) || !parts.iter().all(short) || home + 1 >= parts.len() {
        return None;
    }
    // Unrooted, a user's folder needs a part after it (`["home", "index.html"]` is a page).
    if !rooted && parts.len() < home + 3 {
        return None;
    }
    let file = parts.last().is_some_and(|l| l.contains('.') && !l.ends_with('.'));
    if !rooted && !file && !path_key {
        return None;
    }
    let mut path = String::new();
    for (i, part) in parts.iter().enumerate() {
        let part = part.trim_end_matches(['/', '\\']);
        if i == 0 && !part.is_empty() && !part.ends_with(':') && !part.starts_with(['/', '\\', '~']) {
            path.push('/');
        }
        if i > 0 {
            path.push('/');
        }
        path.push_str(part.trim_start_matches(['/', '\\']));
    }
    Some(path)
}

/// A chat UI's history (Gradio's `[[user, bot], …]`): two or more pairs of strings (or a
/// `null` answer still pending), one of them holding a blank (a sentence, not a key-value
/// pair). Asked only under a key naming a chat or history ([`KeyFacts::chat_history`]).
fn is_exchange_list(items: &[Value]) -> bool {
    let pair = |v: &Value| {
        v.as_array().is_some_and(|p| p.len() == 2 && p[0].is_string() && (p[1].is_string() || p[1].is_null()))
    };
    let prose = |v: &Value| v.as_array().is_some_and(|p| p.iter().filter_map(Value::as_str).any(|t| t.contains(' ')));
    items.len() >= 2 && items.iter().all(pair) && items.iter().any(prose)
}

/// A JSON Schema declaration of a property (`{"type": "string", "minLength": 12}`): an
/// object whose `type` is one of the schema's type names (or a list of them), holding no
/// `default`, `const`, `example(s)` or `enum` that could carry a value.
fn is_schema_property(v: &Value) -> bool {
    const TYPES: &[&str] = &["string", "integer", "number", "boolean", "object", "array", "null"];
    let Some(map) = v.as_object() else { return false };
    let typed = match map.get("type") {
        Some(Value::String(t)) => TYPES.contains(&t.as_str()),
        Some(Value::Array(ts)) => !ts.is_empty() && ts.iter().all(|t| t.as_str().is_some_and(|t| TYPES.contains(&t))),
        _ => false,
    };
    typed && !["default", "const", "example", "examples", "enum"].iter().any(|k| map.contains_key(*k))
}

/// A node of a ChatGPT conversation export's `mapping`: `{"message": {"author": {"role":
/// "user"}, "content": {"parts": […]}}}` (or the message itself).
fn is_export_node(v: &Value) -> bool {
    let m = v.get("message").unwrap_or(v);
    let role = m.get("author").and_then(|a| a.get("role")).and_then(Value::as_str);
    role.is_some_and(|r| matches!(r, "user" | "assistant" | "system" | "tool"))
        && m.get("content").and_then(|c| c.get("parts")).is_some_and(Value::is_array)
}

/// One object entry `k: v`, `at` its pointer.
fn scan_entry(k: &str, v: &Value, at: &mut String, policy: Policy, out: &mut Vec<Finding>) {
    let facts = key_facts(k);
    let value_text = v.as_str();
    if facts.secret_named && value_text.is_some_and(looks_random) {
        // A secret-named field holding a random-looking literal: the value is a credential.
        let hit = Hit {
            rule: secret_rule(),
            start: 0,
            matched: value_text.unwrap_or_default().to_owned(),
            note: " (JSON field)",
        };
        out.push(finding(&hit, at.clone(), policy));
    }
    // A seed or mnemonic may be kept as an array of its words.
    let words = v
        .as_array()
        .and_then(|items| items.iter().map(Value::as_str).collect::<Option<Vec<&str>>>())
        .map(|w| w.join(" "));
    let generic_value = value_text.or(words.as_deref());
    if facts.generic_secret
        && !facts.secret_named
        && generic_value
            .is_some_and(|t| looks_random(t) || is_word_list(t) || secret_values::is_secret_value(t) || is_pin(k, t))
    {
        let hit = Hit {
            rule: generic_rule(),
            start: 0,
            matched: generic_value.unwrap_or_default().to_owned(),
            note: " (JSON field)",
        };
        out.push(finding(&hit, at.clone(), policy));
    }
    // A forbidden key is structure even when its value was redacted; only no value at all
    // (`null`, an empty string: a config's empty slot), an environment reference, a
    // `<your-…>` template, a name made of words (a field or constant name,
    // [`values::is_identifier`]), a provider's published example key, or a JSON Schema
    // declaration of the field (`"password": {"type": "string", …}`) leaves it alone.
    if facts.forbidden
        && !v.is_null()
        && v.as_str() != Some("")
        && !is_schema_property(v)
        && !value_text.is_some_and(|t| {
            values::is_reference_or_template(t)
                || values::is_identifier(t)
                || values::is_snake_name(t)
                || values::is_documentation_example(t)
        })
    {
        let shown = crate::textsafe::sanitize(k, false);
        out.push(structure("forbidden_key", at.clone(), k, format!("key name {shown:?} carries raw or secret data")));
    }
    if facts.captured_output
        && let Some(t) = value_text
        && t.lines().filter(|l| !l.trim().is_empty()).nth(CAPTURED_OUTPUT_LINES - 1).is_some()
    {
        let shown = crate::textsafe::sanitize(k, false);
        let lines = t.lines().filter(|l| !l.trim().is_empty()).count();
        out.push(structure("captured_output", at.clone(), k, format!("{shown:?} holds {lines} lines a tool printed")));
    }
    if facts.chat_history
        && let Some(pairs) = v.as_array().filter(|items| is_exchange_list(items))
    {
        let what = format!("a chat history of {} exchanges", pairs.len());
        out.push(structure("chat_message_array", at.clone(), "[user, bot]", what));
    }
    if facts.boundary_flag && v == &Value::Bool(true) {
        let shown = crate::textsafe::sanitize(k, false);
        out.push(structure("boundary_flag_true", at.clone(), "true", format!("boundary flag {shown} is true")));
    }
    scan_text(k, at, policy, out);
    let before = out.len();
    scan_at(v, at, policy, out);
    if facts.web_routes {
        drop_route_paths(v, at, before, out);
    }
}

/// Drops the local-path findings from `out[before..]` (found in `v`, at pointer `at`) whose
/// string is a route of two segments: under a key naming an app's routes (`"routes":
/// ["/home/feed", …]`) such a string is a URL path, and its `home` a route's segment, not a
/// folder.
fn drop_route_paths(v: &Value, at: &str, before: usize, out: &mut Vec<Finding>) {
    // A route's shape: `/home/feed` (two segments of letters, digits, `-` and `_`, a
    // trailing `/` allowed); a longer path, a dotted name or a file stays a path.
    let route_like = |s: &str| {
        let segments: Vec<&str> = s.trim_end_matches('/').split('/').skip(1).collect();
        s.starts_with('/')
            && segments.len() == 2
            && segments
                .iter()
                .all(|g| !g.is_empty() && g.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
    };
    let route = |f: &Finding| {
        f.category == "local_paths"
            && f.location.get(at.len()..).and_then(|rest| pointed(v, rest)).is_some_and(route_like)
    };
    let kept: Vec<Finding> = out.drain(before..).filter(|f| !route(f)).collect();
    out.extend(kept);
}

/// The string at JSON pointer `rest` (`/0`, `/a/1`, or empty for `v` itself) under `v`.
fn pointed<'v>(v: &'v Value, rest: &str) -> Option<&'v str> {
    if rest.is_empty() {
        return v.as_str();
    }
    v.pointer(rest).and_then(Value::as_str)
}
