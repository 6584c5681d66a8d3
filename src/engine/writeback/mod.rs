//! Writeback previews (`session_runtime_controlled_writeback_v0`, the session-runtime seed;
//! DESIGN.md §6): parsing, the seed's write-class table with its allowed payload fields and
//! "must not mean" rules, and the compact reflection an adapter receives.
//!
//! A writeback reflects a decision LoopX already recorded; it never grants authority, never
//! carries raw evidence, and fails closed: an unknown field, a field that would mean what
//! the table forbids, or a payload over the size bound is refused with the reason.

mod criteria;
mod flow;

use crate::loopx::hash::{canonical_json, sha256_hex};
use serde_json::{Map, Value, json};

/// The packet's `schema_version`.
pub const SCHEMA: &str = "session_runtime_controlled_writeback_v0";
/// `schema_version` of the reflection handed to adapters (one `metadata.jsonl` line).
pub const REFLECTION_SCHEMA: &str = "writegate_runtime_reflection_v0";
/// Canonical JSON of a payload may not exceed this (bytes): compact metadata only.
pub const MAX_PAYLOAD_BYTES: usize = 1024;
/// Any one text value of a payload may not exceed this (characters).
pub const MAX_TEXT_CHARS: usize = 280;
/// The boundary flags a writeback must carry, each `false` (seed, "Minimal Shape").
pub const BOUNDARY_FLAGS: [&str; 5] = [
    "raw_transcripts_copied",
    "raw_tool_outputs_copied",
    "credentials_copied",
    "private_paths_copied",
    "launch_authority_granted",
];

/// A payload field's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// A short public-safe text (≤ [`MAX_TEXT_CHARS`]).
    Text,
    /// An id: `[A-Za-z0-9._:@+-]`, 1–128 bytes, no `..`, not random-looking (a secret in
    /// an id field is still a secret; our hex digests are allowed).
    Id,
    /// A non-negative integer ≤ 1000.
    Count,
    /// One of the listed values.
    OneOf(&'static [&'static str]),
    /// A list of at most 16 ids.
    IdList,
}

/// One row of the seed's write-class table.
#[derive(Debug, Clone, Copy)]
pub struct WriteClass {
    /// `write_class` value.
    pub name: &'static str,
    /// The LoopX source (`loopx_source.source_event_class`).
    pub source: &'static str,
    /// The seed's "Runtime Target".
    pub target: &'static str,
    /// Allowed payload fields and their types.
    pub fields: &'static [(&'static str, FieldType)],
    /// Fields a payload of this class must carry.
    pub required: &'static [&'static str],
    /// The seed's "Must Not Mean".
    pub must_not_mean: &'static str,
    /// Field-name fragments that would mean what is forbidden, with the reason.
    pub forbidden: &'static [(&'static str, &'static str)],
}

use FieldType::{Count, Id, IdList, OneOf, Text};

/// The seed's table. Field lists are documented in the README ("Writeback previews").
pub const CLASSES: [WriteClass; 5] = [
    WriteClass {
        name: "operator_gate_decision",
        source: "operator_gate",
        target: "approval-like runtime event or metadata",
        fields: &[
            ("decision_id", Id),
            ("decision_label", OneOf(&["approve", "defer", "reject"])),
            ("actor_class", OneOf(&["operator", "controller", "owner"])),
            ("reason_summary", Text),
            ("source_run_id", Id),
        ],
        required: &["decision_id", "decision_label"],
        must_not_mean: "runtime permission override, hidden approval, production authorization",
        forbidden: &[
            ("permission", "a runtime permission override"),
            ("override", "a runtime permission override"),
            ("authoriz", "a production authorization"),
            ("production", "a production authorization"),
            ("hidden", "a hidden approval"),
            ("auto_approv", "a hidden approval"),
            ("grant", "a runtime permission grant"),
        ],
    },
    WriteClass {
        name: "human_reward_overlay",
        source: "human_reward",
        target: "run-bound judgment metadata",
        fields: &[
            ("reward_id", Id),
            ("judged_run_id", Id),
            ("decision_label", Id),
            ("reward", OneOf(&["positive", "negative", "mixed", "neutral"])),
            ("reason_summary", Text),
        ],
        required: &["judged_run_id", "decision_label"],
        must_not_mean: "model score, benchmark score, or task pass/fail impersonation",
        forbidden: &[
            ("score", "a model or benchmark score"),
            ("benchmark", "a benchmark score"),
            ("rating", "a model score"),
            ("pass", "a task pass/fail verdict"),
            ("fail", "a task pass/fail verdict"),
            ("accuracy", "a model score"),
            ("grade", "a model score"),
        ],
    },
    WriteClass {
        name: "quota_scheduler_hint",
        source: "quota_decision",
        target: "scheduler hint metadata",
        fields: &[("hint", OneOf(&["eligible", "throttled", "monitor"])), ("window_id", Id), ("reason_code", Id)],
        required: &["hint"],
        must_not_mean: "billing decision, launch authority, or hidden session start",
        forbidden: &[
            ("billing", "a billing decision"),
            ("bill", "a billing decision"),
            ("cost", "a billing decision"),
            ("charge", "a billing decision"),
            ("invoice", "a billing decision"),
            ("price", "a billing decision"),
            ("launch", "launch authority"),
            ("start", "a hidden session start"),
            ("spawn", "a hidden session start"),
            ("authority", "launch authority"),
            ("run_now", "launch authority"),
        ],
    },
    WriteClass {
        name: "handoff_packet_pointer",
        source: "handoff_packet",
        target: "session metadata pointer or message draft",
        fields: &[
            ("handoff_id", Id),
            ("decision_label", Id),
            ("summary", Text),
            ("next_action", Text),
            ("stop_condition", Text),
            ("evidence_pointers", IdList),
            ("evidence_pointer_count", Count),
        ],
        required: &["summary"],
        must_not_mean: "raw transcript copy, unbounded prompt injection, or forced same-session control",
        forbidden: &[
            ("transcript", "a raw transcript copy"),
            ("message", "a raw transcript copy"),
            ("conversation", "a raw transcript copy"),
            ("prompt", "a prompt injection"),
            ("instruction", "a prompt injection"),
            ("force", "forced same-session control"),
            ("control", "forced same-session control"),
            ("resume_session", "forced same-session control"),
        ],
    },
    WriteClass {
        name: "artifact_run_pointer",
        source: "artifact_run_pointer",
        target: "runtime artifact annotation",
        fields: &[
            ("artifact_id", Id),
            ("run_id", Id),
            ("validation_label", Id),
            ("outcome_class", OneOf(&["success", "partial", "failure", "inconclusive"])),
        ],
        required: &["artifact_id", "outcome_class"],
        must_not_mean: "raw evidence upload, local path exposure, or private log mirror",
        forbidden: &[
            ("path", "a local path exposure"),
            ("file", "a local path exposure"),
            ("url", "a raw evidence upload"),
            ("upload", "a raw evidence upload"),
            ("content", "a raw evidence upload"),
            ("body", "a raw evidence upload"),
            ("log", "a private log mirror"),
            ("raw", "a raw evidence upload"),
        ],
    },
];

/// The table row of `name`.
#[must_use]
pub fn class(name: &str) -> Option<&'static WriteClass> {
    CLASSES.iter().find(|c| c.name == name)
}

/// A parsed writeback preview. Missing projection ids are not parse errors: they fail entry
/// criterion 1, shown with the others.
#[derive(Debug, Clone, PartialEq)]
pub struct Writeback {
    /// `goal_id`.
    pub goal_id: Option<String>,
    /// `agent_id`.
    pub agent_id: Option<String>,
    /// `runtime.runtime_id`.
    pub runtime_id: Option<String>,
    /// `runtime.session_id`.
    pub session_id: Option<String>,
    /// `loopx_source.source_run_id`.
    pub source_run_id: Option<String>,
    /// `loopx_source.source_todo_id`.
    pub source_todo_id: Option<String>,
    /// `loopx_source.source_event_class`.
    pub source_event_class: Option<String>,
    /// `writeback.write_class`.
    pub write_class: String,
    /// `writeback.idempotency_key`.
    pub idempotency_key: String,
    /// `writeback.payload` (an object).
    pub payload: Map<String, Value>,
    /// `boundary` (anything; criterion 4 judges it).
    pub boundary: Value,
    /// `sha256:` of the canonical payload with class and target: the effect.
    pub payload_digest: String,
    /// The document, for the scan.
    pub doc: Value,
}

/// Parses a `session_runtime_controlled_writeback_v0` document.
///
/// # Errors
/// Not that schema; `writeback.mode` other than `dry_run` (a packet that claims to be
/// applied is refused); no `write_class`, `idempotency_key` or object `payload`.
pub fn parse(doc: &Value) -> Result<Writeback, String> {
    if doc.get("schema_version").and_then(Value::as_str) != Some(SCHEMA) {
        return Err(format!("schema_version is not {SCHEMA}"));
    }
    let s = |p: &str| doc.pointer(p).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    match doc.pointer("/writeback/mode").and_then(Value::as_str) {
        Some("dry_run") => {}
        Some(m) => {
            return Err(format!(
                "writeback.mode is {m:?}: only dry_run previews are accepted; the apply happens here, on a keypress"
            ));
        }
        None => return Err("writeback.mode is missing (must be \"dry_run\")".into()),
    }
    let write_class = s("/writeback/write_class").ok_or("writeback.write_class is missing")?;
    let idempotency_key = s("/writeback/idempotency_key").ok_or("writeback.idempotency_key is missing")?;
    if idempotency_key.len() > 200
        || !idempotency_key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'@' | b'/' | b'+' | b'-'))
    {
        return Err("writeback.idempotency_key must be 1–200 bytes of [A-Za-z0-9._:@/+-]".into());
    }
    let Some(Value::Object(payload)) = doc.pointer("/writeback/payload") else {
        return Err("writeback.payload is missing or not an object".into());
    };
    let runtime_id = s("/runtime/runtime_id");
    let session_id = s("/runtime/session_id");
    let payload_digest = format!(
        "sha256:{}",
        sha256_hex(
            canonical_json(
                &json!({"write_class": write_class, "runtime_id": runtime_id, "session_id": session_id, "payload": payload}),
                true
            )
            .as_bytes()
        )
    );
    Ok(Writeback {
        goal_id: s("/goal_id"),
        agent_id: s("/agent_id"),
        runtime_id,
        session_id,
        source_run_id: s("/loopx_source/source_run_id"),
        source_todo_id: s("/loopx_source/source_todo_id"),
        source_event_class: s("/loopx_source/source_event_class"),
        write_class,
        idempotency_key,
        payload: payload.clone(),
        boundary: doc.get("boundary").cloned().unwrap_or(Value::Null),
        payload_digest,
        doc: doc.clone(),
    })
}

/// An id as [`FieldType::Id`] defines it.
#[must_use]
pub fn is_id(s: &str) -> bool {
    is_plain_id(s) && (crate::scan::is_our_id(s) || !crate::scan::looks_random(s))
}

/// `[A-Za-z0-9._:@+-]`, 1–128 bytes, no `..`: never a path (also a runtime's event id).
#[must_use]
pub fn is_plain_id(s: &str) -> bool {
    (1..=128).contains(&s.len())
        && !s.contains("..")
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'@' | b'+' | b'-'))
}

/// Characters no compact public-safe text carries: controls, format characters (zero-width,
/// bidi, BOM, soft hyphen, …), line/paragraph separators, and fullwidth ASCII look-alikes
/// (which would slip past the scan's ASCII rules).
fn hidden_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}')
        || ('\u{FF01}'..='\u{FF5E}').contains(&c)
}

fn text_rules() -> &'static [(regex::Regex, &'static str)] {
    static RULES: std::sync::OnceLock<Vec<(regex::Regex, &'static str)>> = std::sync::OnceLock::new();
    RULES.get_or_init(|| {
        [
            (r"(?i)\b(password|passwd|passphrase|secret|token|api[ _-]?key|credential)s?\b\s*(is|was|=|:)\s*\S+", "reads like a credential"),
            (r"(?i)\b(ignore|disregard|forget)\b.{0,40}\b(previous|prior|above|earlier)\b.{0,20}\b(instruction|prompt|message)", "reads like a prompt injection"),
                        (r"(?i)\b(production|prod)\b", "would mean a production authorization (a gate decision does not speak of production)"),
            (r"(?i)\bauto[- ]?approv|\bhidden\b.{0,20}\bapprov|\bsilently\b.{0,20}\bapprov", "would mean a hidden approval"),
            (r"(?i)\b(grant|grants|granted|granting|authori[sz]\w*)\b.{0,30}\b(access|permission|permissions|rights?|privileges?)\b", "would mean a runtime permission grant"),
            (r"(?i)\bpermission\b.{0,20}\boverride|\boverride\b.{0,20}\b(permission|granted)", "would mean a runtime permission override"),
            (r"(?i)\b(force|hijack|take\s*over)\b.{0,30}\bsession\b", "would mean forced same-session control"),
            (r"(?i)\b\d+(\.\d+)?\s*(/\s*\d+|%|points?)(\W|$)|\bscore[ds]?\b", "would mean a score"),
        ]
        .into_iter()
        .filter_map(|(re, why)| regex::Regex::new(re).ok().map(|r| (r, why)))
        .collect()
    })
}

/// Role-marked turns (`User: … Assistant: …`) anywhere in a text, even on one line.
fn looks_like_turns(s: &str) -> bool {
    static RE: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    RE.get_or_init(|| regex::Regex::new(r"(?i)\b(user|assistant|system|human|ai|tool|model|bot)\s*:").ok())
        .as_ref()
        .is_some_and(|re| re.find_iter(s).count() >= 2)
}

fn judge_value(c: &WriteClass, key: &str, ty: FieldType, value: &Value) -> Option<String> {
    let strings: Vec<&str> = match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    for s in &strings {
        if s.chars().any(hidden_char) {
            return Some(format!("{key}: holds control, invisible, bidi or fullwidth characters"));
        }
        let lower = s.to_ascii_lowercase();
        if !matches!(ty, Text)
            && let Some((_, meaning)) = c.forbidden.iter().find(|(frag, _)| lower.contains(frag))
        {
            return Some(format!("{key}: the value {s:?} would mean {meaning}, which a {} must not mean", c.name));
        }
        if matches!(ty, Text) {
            if looks_like_turns(s) {
                return Some(format!("{key}: holds role-marked conversation turns (a raw transcript)"));
            }
            let applies = |why: &str| match why {
                "would mean a production authorization (a gate decision does not speak of production)"
                | "would mean a runtime permission override"
                | "would mean a hidden approval"
                | "would mean a runtime permission grant" => c.name == "operator_gate_decision",
                "would mean forced same-session control" => c.name == "handoff_packet_pointer",
                "would mean a score" => c.name == "human_reward_overlay",
                _ => true,
            };
            // "the token is expired" states a fact about a credential, not its value.
            let states_fact = |m: &str| {
                let last = m.rsplit(|c: char| c.is_whitespace() || c == '=' || c == ':').next().unwrap_or("");
                let word = last.trim_matches(|c: char| !c.is_ascii_alphanumeric()).to_ascii_lowercase();
                matches!(
                    word.as_str(),
                    "expired"
                        | "missing"
                        | "invalid"
                        | "revoked"
                        | "rotated"
                        | "required"
                        | "needed"
                        | "set"
                        | "unset"
                        | "present"
                        | "absent"
                        | "not"
                        | "empty"
                        | "redacted"
                        | "valid"
                        | "stale"
                        | "wrong"
                )
            };
            let hit = |re: &regex::Regex, why: &str| {
                applies(why) && re.find_iter(s).any(|m| why != "reads like a credential" || !states_fact(m.as_str()))
            };
            if let Some((_, why)) = text_rules().iter().find(|(re, why)| hit(re, why)) {
                return Some(format!("{key}: {why}"));
            }
        }
    }
    None
}

/// Judges the payload against its class: only allowed fields, each of its type, none that
/// would mean what the class must not mean, within the size bound. `Ok(summary)` or
/// `Err(every reason, "; "-joined)`.
///
/// # Errors
/// The reasons.
pub fn judge_payload(wb: &Writeback) -> Result<String, String> {
    let Some(c) = class(&wb.write_class) else {
        return Err(format!(
            "write_class {:?} is not in the seed's table ({})",
            wb.write_class,
            CLASSES.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
        ));
    };
    let mut why = Vec::new();
    for (key, value) in &wb.payload {
        let lower = key.to_ascii_lowercase();
        if let Some((_, meaning)) = c.forbidden.iter().find(|(frag, _)| lower.contains(frag)) {
            why.push(format!("{key}: a {} must not mean {meaning}", c.name));
            continue;
        }
        let Some((_, ty)) = c.fields.iter().find(|(f, _)| f == key) else {
            why.push(format!(
                "{key}: not a field of {} (allowed: {})",
                c.name,
                c.fields.iter().map(|(f, _)| *f).collect::<Vec<_>>().join(", ")
            ));
            continue;
        };
        if key.chars().any(hidden_char) {
            why.push("a field name holds control, invisible, bidi or fullwidth characters".into());
            continue;
        }
        if let Some(problem) = judge_value(c, key, *ty, value) {
            why.push(problem);
            continue;
        }
        let ok = match (ty, value) {
            (Text, Value::String(s)) => s.chars().count() <= MAX_TEXT_CHARS,
            (Id, Value::String(s)) => is_id(s),
            (Count, Value::Number(n)) => n.as_u64().is_some_and(|n| n <= 1000),
            (OneOf(allowed), Value::String(s)) => allowed.contains(&s.as_str()),
            (IdList, Value::Array(a)) => a.len() <= 16 && a.iter().all(|v| v.as_str().is_some_and(is_id)),
            _ => false,
        };
        if !ok {
            let expect = match ty {
                Text => format!("text of at most {MAX_TEXT_CHARS} characters"),
                Id => "an id ([A-Za-z0-9._:@+-], at most 128, no `..`, not random-looking)".to_owned(),
                Count => "a whole number 0–1000".to_owned(),
                OneOf(v) => format!("one of {}", v.join(", ")),
                IdList => "a list of at most 16 ids".to_owned(),
            };
            why.push(format!("{key}: must be {expect}"));
        }
    }
    let size = canonical_json(&Value::Object(wb.payload.clone()), false).len();
    if size > MAX_PAYLOAD_BYTES {
        why.push(format!("payload is {size} bytes; compact metadata is at most {MAX_PAYLOAD_BYTES}"));
    }
    let missing: Vec<&str> = c.required.iter().copied().filter(|f| !wb.payload.contains_key(*f)).collect();
    if !missing.is_empty() {
        why.push(format!("{} requires {}", c.name, missing.join(", ")));
    }
    if why.is_empty() {
        Ok(format!("{} field(s) of {}, {size} bytes", wb.payload.len(), c.name))
    } else {
        Err(why.join("; "))
    }
}

/// Judges the `boundary` block: each of [`BOUNDARY_FLAGS`] present and `false`, and every
/// other flag in it `false`.
///
/// # Errors
/// The flags that are missing, true or not booleans.
pub fn judge_boundary(boundary: &Value) -> Result<(), String> {
    let Some(map) = boundary.as_object() else {
        return Err("boundary block missing".into());
    };
    let mut why = Vec::new();
    for flag in BOUNDARY_FLAGS {
        if !map.contains_key(flag) {
            why.push(format!("{flag} missing"));
        }
    }
    for (k, v) in map {
        match v {
            Value::Bool(false) => {}
            Value::Bool(true) => why.push(format!("{k} is true")),
            _ => why.push(format!("{k} is not a boolean")),
        }
    }
    if why.is_empty() { Ok(()) } else { Err(why.join("; ")) }
}

/// The compact reflection an adapter receives (and the inbox adapter appends): ids, the
/// class, the key, the payload and its digest, the LoopX source. No path, no body.
#[must_use]
pub fn reflection(wb: &Writeback, recorded_at: &str) -> Value {
    json!({
        "schema_version": REFLECTION_SCHEMA,
        "recorded_at": recorded_at,
        "goal_id": wb.goal_id,
        "agent_id": wb.agent_id,
        "runtime_id": wb.runtime_id,
        "session_id": wb.session_id,
        "write_class": wb.write_class,
        "idempotency_key": wb.idempotency_key,
        "payload_digest": wb.payload_digest,
        "payload": wb.payload,
        "loopx_source": {
            "source_run_id": wb.source_run_id,
            "source_todo_id": wb.source_todo_id,
            "source_event_class": wb.source_event_class,
        },
    })
}

#[cfg(test)]
mod tests;
