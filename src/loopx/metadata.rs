//! Todo metadata comments: `<!-- loopx:todo key=value ... -->` parsing, percent-encoding
//! and emission in LoopX's schema order (FORMATS.md §1.5, `loopx/control_plane/todos/contract.py`).

use super::pytext::{compact_whitespace, py_strip};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use regex::Regex;
use std::sync::LazyLock;

mod packed;

/// Characters LoopX leaves unencoded: `quote(text, safe="A-Za-z0-9_.:-")` keeps ASCII
/// letters, digits, `_ . - ~` (always safe in CPython) and `:`.
const METADATA_SAFE: &AsciiSet = &NON_ALPHANUMERIC.remove(b'_').remove(b'.').remove(b'-').remove(b'~').remove(b':');

/// Emission order of every metadata key LoopX 0.5.4 writes (`_TODO_METADATA_FIELD_SCHEMA`).
/// `removed_continuation_policy` is read-only and never emitted, so it is absent here.
pub const FIELD_ORDER: &[&str] = &[
    "todo_id",
    "status",
    "task_class",
    "action_kind",
    "task_domain",
    "capability_binding_ref",
    "task_repository",
    "continuation_policy",
    "required_write_scopes",
    "required_capabilities",
    "target_capabilities",
    "explore_result_node_refs",
    "decision_scope",
    "required_decision_scopes",
    "decision_outcome",
    "decision_scope_outcomes",
    "claimed_by",
    "bound_agent",
    "goal_bound",
    "blocks_agent",
    "excluded_agents",
    "global_gate",
    "unblocks_todo_id",
    "successor_todo_ids",
    "completion_continuation",
    "completion_recovery",
    "replan_obligation_id",
    "resume_when",
    "resume_monitor_generation",
    "no_followup",
    "target_key",
    "monitor_effect_id",
    "cadence",
    "next_due_at",
    "expires_at",
    "last_checked_at",
    "result_hash",
    "consecutive_no_change",
    "material_change",
    "material_change_generation",
    "max_no_change_before_replan",
    "watch_only",
    "note",
    "evidence",
    "reason",
    "completed_at",
    "updated_at",
    "completion_turn_key",
    "validation_command",
    "validation_command_argv",
    "validation_label",
    "validation_timeout_seconds",
    "superseded_by",
];

const LIST_FIELDS: &[&str] = &[
    "required_write_scopes",
    "required_capabilities",
    "target_capabilities",
    "explore_result_node_refs",
    "required_decision_scopes",
    "decision_scope_outcomes",
    "excluded_agents",
    "successor_todo_ids",
];
const BOOL_FIELDS: &[&str] = &["goal_bound", "global_gate", "no_followup"];
const AGENT_FIELDS: &[&str] = &["claimed_by", "bound_agent", "blocks_agent"];
const TODO_ID_FIELDS: &[&str] = &["todo_id", "unblocks_todo_id", "superseded_by"];

static COMMENT_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*<!--\s*loopx:(?:todo\s+)?(?P<body>.*?)\s*-->\s*$").expect("static regex"));
/// The token rule as LoopX writes it; [`tokens`] reads it, this is its oracle in the tests.
#[cfg(test)]
static TOKEN_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?P<key>[a-z_][a-z0-9_]*)=(?P<value>[^\s<>]+)").expect("static regex"));
static TODO_ID_RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^todo_[a-z0-9_-]{3,64}$").expect("static regex"));
static AGENT_RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[a-z][a-z0-9_.:@-]{0,79}$").expect("static regex"));

/// One metadata value after LoopX's read normalisation, borrowed from its [`Metadata`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaValue<'a> {
    /// A compacted text token (most keys).
    Text(&'a str),
    /// A comma-separated list (deduplicated; `excluded_agents` also sorted), its items joined
    /// by `,` (no item holds one).
    List(&'a str),
    /// `true` / `false`.
    Bool(bool),
}

impl MetaValue<'_> {
    /// The value as text (lists comma-joined, booleans `true`/`false`).
    #[must_use]
    pub fn as_text(&self) -> String {
        match self {
            Self::Text(t) | Self::List(t) => (*t).to_owned(),
            Self::Bool(b) => b.to_string(),
        }
    }

    fn of((_, kind, value): packed::Entry<'_>) -> MetaValue<'_> {
        match kind {
            packed::LIST => MetaValue::List(value),
            packed::TRUE => MetaValue::Bool(true),
            packed::FALSE => MetaValue::Bool(false),
            _ => MetaValue::Text(value),
        }
    }
}

/// A value [`normalize`] made, before it is packed.
enum Normalized {
    Text(String),
    List(Vec<String>),
    Bool(bool),
}

/// The known metadata of one todo, keyed by field name. Unknown keys are not kept:
/// LoopX ignores them on read and drops them on rewrite (FORMATS.md §1.5).
///
/// Every field lives in one byte buffer, sorted by the key's position in [`FIELD_ORDER`]
/// (layout: the `packed` module): a todo carries a handful of keys, and a state of 350,000
/// todos spent most of its memory on a vector and an allocation per value.
#[derive(Clone, Default, Eq)]
pub struct Metadata {
    packed: Box<[u8]>,
}

/// Byte equality of the packed buffers, with two empty ones equal before any `memcmp`: an
/// empty buffer's pointer is dangling, and glibc's AVX-512 `memcmp` of 0 bytes still issues
/// a masked load from it, which this machine's CPU serves through a slow assist. Comparing
/// the todos of two states (most without metadata) spent about 75 ns a todo there: 1 ms of a
/// 1 MB state's lease check.
impl PartialEq for Metadata {
    fn eq(&self, other: &Self) -> bool {
        self.packed.len() == other.packed.len() && (self.packed.is_empty() || self.packed == other.packed)
    }
}

impl std::fmt::Debug for Metadata {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// `key`'s position in [`FIELD_ORDER`] (fits a `u8`: the table has 53 keys).
fn field_index(key: &str) -> Option<u8> {
    FIELD_ORDER.iter().position(|k| *k == key).and_then(|i| u8::try_from(i).ok())
}

impl Metadata {
    /// The value of `key`, if present.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<MetaValue<'_>> {
        // Most todos have no metadata: no key lookup then.
        if self.packed.is_empty() {
            return None;
        }
        let i = field_index(key)?;
        packed::entries(&self.packed).find(|e| e.0 == i).map(MetaValue::of)
    }

    fn insert(&mut self, key: &str, value: &Normalized) {
        if let Some(i) = field_index(key) {
            self.put(i, value);
        }
    }

    /// Sets the field at position `i` of [`FIELD_ORDER`], keeping the fields sorted.
    fn put(&mut self, i: u8, value: &Normalized) {
        let joined;
        let entry = match value {
            Normalized::Text(t) => (i, packed::TEXT, t.as_str()),
            Normalized::List(items) => {
                joined = items.join(",");
                (i, packed::LIST, joined.as_str())
            }
            Normalized::Bool(b) => (i, if *b { packed::TRUE } else { packed::FALSE }, ""),
        };
        self.put_entry(entry);
    }

    fn put_entry(&mut self, entry: packed::Entry<'_>) {
        let mut entries: Vec<packed::Entry<'_>> = packed::entries(&self.packed).filter(|e| e.0 != entry.0).collect();
        let at = entries.partition_point(|e| e.0 < entry.0);
        entries.insert(at, entry);
        self.packed = packed::encode(entries);
    }

    /// The value of `key` as text, if present.
    #[must_use]
    pub fn text(&self, key: &str) -> Option<String> {
        self.get(key).as_ref().map(MetaValue::as_text)
    }

    /// The value of `key` as text without a copy, if present and not a boolean.
    #[must_use]
    pub fn text_ref(&self, key: &str) -> Option<&str> {
        match self.get(key)? {
            MetaValue::Text(t) | MetaValue::List(t) => Some(t),
            MetaValue::Bool(_) => None,
        }
    }

    /// The list value of `key` (empty when absent).
    #[must_use]
    pub fn list(&self, key: &str) -> Vec<String> {
        match self.get(key) {
            Some(MetaValue::List(items)) => items.split(',').map(str::to_owned).collect(),
            Some(other) => vec![other.as_text()],
            None => Vec::new(),
        }
    }

    /// True when no known key is present.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }

    /// Sets `key` from raw (already decoded) text, applying the field's normaliser; a
    /// value the normaliser rejects or an empty value removes the key, as LoopX does. A key
    /// outside [`FIELD_ORDER`] is not kept (LoopX never writes one).
    pub fn set_text(&mut self, key: &str, raw: &str) {
        match normalize(key, raw) {
            Some(value) => self.insert(key, &value),
            None => self.remove(key),
        }
    }

    /// Sets a list field from items (normalised like a comma-joined value).
    pub fn set_list(&mut self, key: &str, items: &[String]) {
        self.set_text(key, &items.join(","));
    }

    /// Sets a boolean field.
    pub fn set_bool(&mut self, key: &str, value: bool) {
        self.insert(key, &Normalized::Bool(value));
    }

    /// Removes `key`.
    pub fn remove(&mut self, key: &str) {
        if let Some(i) = field_index(key)
            && packed::entries(&self.packed).any(|e| e.0 == i)
        {
            self.packed = packed::encode(packed::entries(&self.packed).filter(|e| e.0 != i));
        }
    }

    /// Merges `other` over `self` (later metadata lines override earlier ones).
    pub fn extend(&mut self, other: Metadata) {
        if self.packed.is_empty() {
            self.packed = other.packed;
            return;
        }
        let mine = packed::entries(&self.packed).filter(|e| packed::entries(&other.packed).all(|o| o.0 != e.0));
        let mut merged: Vec<packed::Entry<'_>> = mine.chain(packed::entries(&other.packed)).collect();
        merged.sort_by_key(|e| e.0);
        self.packed = packed::encode(merged);
    }

    /// Iterates present fields in emission order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, MetaValue<'_>)> {
        packed::entries(&self.packed)
            .map(|e| (FIELD_ORDER.get(usize::from(e.0)).copied().unwrap_or(""), MetaValue::of(e)))
    }

    /// The full comment line LoopX writes for this metadata: two spaces,
    /// `<!-- loopx:todo k=v ... -->`, values percent-encoded; `None` when empty.
    #[must_use]
    pub fn format_line(&self) -> Option<String> {
        let tokens: Vec<String> = self.iter().map(|(k, v)| format!("{k}={}", encode_value(&v.as_text()))).collect();
        if tokens.is_empty() {
            return None;
        }
        Some(format!("  <!-- loopx:todo {} -->", tokens.join(" ")))
    }
}

/// Percent-encodes a value as LoopX `encode_metadata_value` does (whitespace compacted first).
#[must_use]
pub fn encode_value(text: &str) -> String {
    utf8_percent_encode(&compact_whitespace(text), METADATA_SAFE).to_string()
}

/// Decodes a value as LoopX `decode_metadata_value`: `unquote` (UTF-8, invalid bytes become
/// U+FFFD, `+` stays `+`) then whitespace compaction.
#[must_use]
pub fn decode_value(raw: &str) -> String {
    if !raw.contains('%') {
        return compact_whitespace(raw);
    }
    compact_whitespace(&percent_decode_str(raw).decode_utf8_lossy())
}

/// Parses a metadata comment line into its known, valid fields. Returns `None` when the
/// line is not a `loopx:` comment or carries no valid known key.
#[must_use]
pub fn parse_line(line: &str) -> Option<Metadata> {
    let body = comment_body(line)?;
    // (position, value) of each known key, the last of a key winning, packed once at the end.
    let mut fields: Vec<(u8, Option<Normalized>)> = Vec::new();
    for (start, key, value) in tokens(body) {
        // Python's `(?<!\S)`: a token starts the body or follows whitespace.
        if start > 0 && !body[..start].ends_with(char::is_whitespace) {
            continue;
        }
        if key == "removed_continuation_policy" {
            continue;
        }
        let Some(i) = field_index(key) else { continue };
        // A value the normaliser rejects removes the key, as `set_text` does.
        let value = normalize(key, &decode_value(value));
        match fields.iter_mut().find(|(k, _)| *k == i) {
            Some(slot) => slot.1 = value,
            None => fields.push((i, value)),
        }
    }
    fields.sort_by_key(|(k, _)| *k);
    let joined: Vec<(u8, u8, String)> = fields
        .into_iter()
        .filter_map(|(i, v)| match v? {
            Normalized::Text(t) => Some((i, packed::TEXT, t)),
            Normalized::List(items) => Some((i, packed::LIST, items.join(","))),
            Normalized::Bool(b) => Some((i, if b { packed::TRUE } else { packed::FALSE }, String::new())),
        })
        .collect();
    let meta = Metadata { packed: packed::encode(joined.iter().map(|(i, k, v)| (*i, *k, v.as_str()))) };
    (!meta.is_empty()).then_some(meta)
}

/// [`TOKEN_RE`]'s successive matches in `body` as (start, key, value), read without the
/// regex (a proptest holds the two equal). The regex `[a-z_][a-z0-9_]*=[^\s<>]+` matches
/// at a position exactly when a key character other than a digit starts there, the longest
/// run of key characters is followed by `=`, and one value character follows that: a
/// shorter key could not end at `=`. The value is then the longest run of value
/// characters, and the search goes on after it.
fn tokens(body: &str) -> impl Iterator<Item = (usize, &str, &str)> {
    let is_key = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_';
    let is_value = |c: char| !c.is_whitespace() && c != '<' && c != '>';
    let bytes = body.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            let start = at;
            let b = bytes[start];
            if !(b.is_ascii_lowercase() || b == b'_') {
                // Step one code point: a match starts on a character boundary.
                at += body[start..].chars().next().map_or(1, char::len_utf8);
                continue;
            }
            let key_end = start + bytes[start..].iter().take_while(|b| is_key(**b)).count();
            let value_start = key_end + 1;
            let value_len = if bytes.get(key_end) == Some(&b'=') {
                body[value_start..].find(|c: char| !is_value(c)).unwrap_or(body.len() - value_start)
            } else {
                0
            };
            if value_len == 0 {
                // Every later start inside this key run ends at the same `key_end`, so
                // fails the same way.
                at = key_end;
                continue;
            }
            at = value_start + value_len;
            return Some((start, &body[start..key_end], &body[value_start..at]));
        }
        None
    })
}

/// True when `line` is a metadata comment line (even one with no known key).
#[must_use]
pub fn is_metadata_comment(line: &str) -> bool {
    comment_body(line).is_some()
}

/// [`COMMENT_RE`]'s `body` capture, without running the regex where the answer is plain
/// (every todo of a state has such a line; the regex's backtracker was a third of a large
/// state's parse). A line with a line break inside goes to the regex itself; a proptest holds
/// the two equal.
#[must_use]
pub fn comment_body(line: &str) -> Option<&str> {
    if line.contains('\n') {
        return COMMENT_RE.captures(line).and_then(|c| c.name("body")).map(|m| m.as_str());
    }
    let rest = line.trim_start().strip_prefix("<!--")?.trim_start().strip_prefix("loopx:")?;
    // `(?:todo\s+)?`, greedy: taken whenever it is there (it can never reach the `-->`).
    let rest = match rest.strip_prefix("todo") {
        Some(r) if r.starts_with(char::is_whitespace) => r.trim_start(),
        _ => rest,
    };
    // `(?P<body>.*?)\s*-->\s*$`: the last `-->` ends the line but for whitespace; the body is
    // what comes before it, its trailing whitespace left out.
    Some(rest.trim_end().strip_suffix("-->")?.trim_end())
}

/// LoopX `normalize_todo_id`: lowercased, must match `^todo_[a-z0-9_-]{3,64}$`.
#[must_use]
pub fn normalize_todo_id(raw: &str) -> Option<String> {
    let id = py_strip(raw).to_lowercase();
    TODO_ID_RE.is_match(&id).then_some(id)
}

/// LoopX agent-id normalisation: lowercased, spaces → `-`, must match
/// `^[a-z][a-z0-9_.:@-]{0,79}$` (FORMATS.md §1.5).
#[must_use]
pub fn normalize_agent_id(raw: &str) -> Option<String> {
    let id = compact_whitespace(raw).to_lowercase().replace(' ', "-");
    AGENT_RE.is_match(&id).then_some(id)
}

/// LoopX boolean metadata words (`true/1/yes/on`, `false/0/no/off`).
#[must_use]
pub fn parse_bool(raw: &str) -> Option<bool> {
    match py_strip(raw).to_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

fn normalize(key: &str, raw: &str) -> Option<Normalized> {
    let text = compact_whitespace(raw);
    if LIST_FIELDS.contains(&key) {
        let mut items: Vec<String> = Vec::new();
        for part in text.split(',') {
            let part = py_strip(part);
            let item = match key {
                "excluded_agents" => normalize_agent_id(part),
                "successor_todo_ids" => normalize_todo_id(part),
                _ => (!part.is_empty()).then(|| part.to_owned()),
            };
            if let Some(item) = item
                && !items.contains(&item)
            {
                items.push(item);
            }
        }
        if key == "excluded_agents" {
            items.sort();
        }
        return (!items.is_empty()).then_some(Normalized::List(items));
    }
    if BOOL_FIELDS.contains(&key) {
        return parse_bool(&text).map(Normalized::Bool);
    }
    if text.is_empty() {
        return None;
    }
    let value = if AGENT_FIELDS.contains(&key) {
        normalize_agent_id(&text)?
    } else if TODO_ID_FIELDS.contains(&key) {
        normalize_todo_id(&text)?
    } else {
        match key {
            "status" => normalize_status(&text)?,
            "task_class" => {
                one_of(&text, &["advancement_task", "continuous_monitor", "user_gate", "user_action", "blocker"])?
            }
            "decision_outcome" => one_of(&text, &["approve", "reject", "cancel"])?,
            "continuation_policy" => one_of(&text, &["independent_handoff", "same_agent_non_delivery"])?,
            "completion_continuation" => one_of(&text, &["active_goal", "successor", "no_followup"])?,
            _ => text,
        }
    };
    Some(Normalized::Text(value))
}

/// LoopX `normalize_todo_status`: `open|done|blocked|deferred`, case-insensitive.
#[must_use]
pub fn normalize_status(raw: &str) -> Option<String> {
    one_of(raw, &["open", "done", "blocked", "deferred"])
}

fn one_of(raw: &str, allowed: &[&str]) -> Option<String> {
    let v = py_strip(raw).to_lowercase();
    allowed.contains(&v.as_str()).then_some(v)
}

#[cfg(test)]
mod fast_path_tests {
    use proptest::prelude::*;

    fn line() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("<!--"),
                Just("-->"),
                Just("loopx:"),
                Just("todo"),
                Just(" "),
                Just("\t"),
                Just("\n"),
                Just("\u{a0}"),
                Just("-"),
                Just("*"),
                Just("["),
                Just("]"),
                Just("x"),
                Just("X"),
                Just("a"),
                Just("k=v"),
                Just(">"),
                Just("é"),
                Just("\r"),
            ],
            0..14,
        )
        .prop_map(|v| v.concat())
    }

    /// Lines shaped like a metadata comment or a checkbox todo, each part right or wrong.
    fn shaped() -> impl Strategy<Value = String> {
        let ws = || prop_oneof![Just(""), Just(" "), Just("  "), Just("\t"), Just("\u{a0}"), Just("\n"), Just("\r")];
        let comment = (
            ws(),
            prop_oneof![Just("<!--"), Just("<!-"), Just("<!--x")],
            ws(),
            prop_oneof![Just("loopx:"), Just("loopx"), Just("loopx:todo"), Just("loopx:todo ")],
            prop_oneof![Just("todo_id=todo_abc"), Just(""), Just(" "), Just("a=b c=d"), Just("-->"), Just("é\n")],
            ws(),
            prop_oneof![Just("-->"), Just("->"), Just("--->"), Just("-->x")],
            ws(),
        )
            .prop_map(|(a, b, c, d, e, f, g, h)| [a, b, c, d, e, f, g, h].concat());
        let task = (
            ws(),
            prop_oneof![Just("-"), Just("*"), Just("+"), Just("--")],
            ws(),
            prop_oneof![Just("["), Just("(")],
            prop_oneof![Just(" "), Just("x"), Just("X"), Just("-"), Just("y"), Just("é")],
            prop_oneof![Just("]"), Just("]]")],
            ws(),
            prop_oneof![Just("text"), Just(""), Just(" "), Just("[P1] a b"), Just("é \t"), Just("\n")],
            ws(),
        )
            .prop_map(|(a, b, c, d, e, f, g, h, i)| [a, b, c, d, e, f, g, h, i].concat());
        prop_oneof![comment, task]
    }

    proptest::proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn the_tokens_match_the_regex(body in "[a-z_0-9=<> \t\u{a0}\u{3000}é%Z-]{0,24}") {
            let by_regex: Vec<(usize, &str, &str)> = super::TOKEN_RE
                .captures_iter(&body)
                .map(|c| (c.get(0).map_or(0, |m| m.start()), c.name("key").map_or("", |m| m.as_str()), c.name("value").map_or("", |m| m.as_str())))
                .collect();
            prop_assert_eq!(super::tokens(&body).collect::<Vec<_>>(), by_regex, "body {:?}", body);
        }

        #[test]
        fn the_plain_readings_match_the_regexes(l in prop_oneof![line(), shaped()]) {
            let by_regex = super::COMMENT_RE.captures(&l).and_then(|c| c.name("body")).map(|m| m.as_str());
            prop_assert_eq!(super::comment_body(&l), by_regex, "comment {:?}", l);
            let task = crate::loopx::state::TODO_TASK_RE
                .captures(&l)
                .and_then(|c| Some((c.get(1)?.as_str().chars().next()?, c.get(2)?.as_str())));
            prop_assert_eq!(crate::loopx::state::todo_task(&l), task, "task {:?}", l);
        }
    }
}

#[cfg(test)]
#[path = "metadata_tests.rs"]
mod tests;
