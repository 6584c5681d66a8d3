//! Inbox items (DESIGN.md §3): a `local_state_write_correctness_v0` packet — bare, or
//! wrapped in the JSON `loopx … --dry-run --format json` prints — plus writegate's
//! `proposal`. Parsing never fails: a bad file becomes an item with an `invalid` reason.

use crate::loopx::edit::TodoOp;
use crate::loopx::hash::{sha256_hex, value_digest};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Inbox items larger than this are refused unread (bytes).
pub const MAX_ITEM_BYTES: u64 = 4 * 1024 * 1024;
/// Locator fields LoopX prints around a dry-run packet; not payload, never copied.
pub const LOCATOR_FIELDS: &[&str] = &["state_file", "project"];

/// What the item asks to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proposal {
    /// A LoopX todo / refresh-state command, recomputed on the current text.
    TodoOp(TodoOp),
    /// The full new state text, bound to `expected_revision`; shared, not copied, by every
    /// check that reads it (a `replace` carries a whole state).
    Replace(std::sync::Arc<String>),
    /// A unified diff against the text at `expected_revision`.
    UnifiedDiff(String),
}

impl Proposal {
    /// `todo_op` | `replace` | `unified_diff`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Self::TodoOp(_) => "todo_op",
            Self::Replace(_) => "replace",
            Self::UnifiedDiff(_) => "unified_diff",
        }
    }
}

/// A parsed write intent.
#[derive(Debug, Clone)]
pub struct Intent {
    /// `write_intent.write_id`.
    pub write_id: String,
    /// `write_intent.goal_id`.
    pub goal_id: String,
    /// `write_intent.writer_id`.
    pub writer_id: String,
    /// `write_intent.write_class`.
    pub write_class: String,
    /// `write_intent.idempotency_key`.
    pub idempotency_key: String,
    /// `write_intent.expected_revision.value`.
    pub expected_revision: String,
    /// `write_intent.lease_ref` (null → `None`).
    pub lease_ref: Option<Value>,
    /// `write_intent.target_refs.todo_id`.
    pub target_todo_id: Option<String>,
    /// What to write.
    pub proposal: Proposal,
    /// Digest of the proposal: the effect, for idempotency comparisons.
    pub effect_digest: String,
    /// The document without locator fields and without `base_text`: what the scan reads
    /// (shared: items are cloned into every preview). It holds the seed packet, under
    /// `local_state_write_correctness`.
    pub payload: std::sync::Arc<Value>,
    /// Optional top-level `base_text`: the state text the agent read, for the 3-way view
    /// when `gate/revisions/` does not hold it. Used only if its revision is the packet's
    /// `expected_revision`; never written, shown masked.
    pub base_text: Option<String>,
    /// Optional top-level `reverts`: the id of the applied item whose change this one undoes
    /// (`writegate` drops it for a revert, issue 14 item 5); recorded with the decision.
    pub reverts: Option<String>,
    /// The boundary scan of [`Self::payload`] under the local policy, worked out on first use
    /// ([`Self::payload_findings`]) and shared by every clone of the intent.
    payload_scan: std::sync::Arc<std::sync::OnceLock<Vec<crate::wire::Finding>>>,
}

impl Intent {
    /// Every finding of the boundary scan of [`Self::payload`] (each JSON key and string,
    /// `scan::scan_json` at the root) under [`crate::scan::Policy::Local`], the policy the
    /// pipeline scans write intents with; scanned once per read of the item, whichever
    /// thread asks first (`writegate preview` asks on the thread that read the item).
    #[must_use]
    pub fn payload_findings(&self) -> &[crate::wire::Finding] {
        self.payload_scan.get_or_init(|| {
            let mut out = Vec::new();
            crate::scan::scan_json(&self.payload, "", crate::scan::Policy::Local, &mut out);
            out
        })
    }
}

/// One inbox file.
#[derive(Debug, Clone)]
pub struct Item {
    /// File stem.
    pub id: String,
    /// Goal whose inbox holds it.
    pub goal_id: String,
    /// Path.
    pub path: PathBuf,
    /// `sha256:` of the file bytes.
    pub payload_digest: String,
    /// Seconds since the file's mtime.
    pub age_seconds: u64,
    /// The file's mtime, when readable (a stable arrival order for the queue).
    pub modified: Option<std::time::SystemTime>,
    /// `write_intent` | `writeback` | `loopx_command` | `unknown`.
    pub kind: &'static str,
    /// The parsed intent, or why it is invalid (for a parsed writeback: why it is not an intent).
    pub intent: Result<Intent, String>,
    /// A parsed writeback preview (`kind == "writeback"`).
    pub writeback: Option<super::writeback::Writeback>,
    /// A parsed LoopX 2.x command (`kind == "loopx_command"`).
    pub command: Option<super::canonical::LoopxCommand>,
}

impl Item {
    /// Reads and parses an inbox file. Never panics and never touches the file.
    #[must_use]
    pub fn read(path: &Path, goal_id: &str) -> Self {
        let mut item = Self::read_unmasked(path, goal_id);
        // Why an item is invalid may quote its text (a duplicate key, an unknown argument, a
        // diff's context line): never a full secret (issue 12 case 3).
        if let Err(reason) = &mut item.intent {
            *reason = crate::scan::mask_secrets(reason).0;
        }
        item
    }

    /// The file's stem as the file names it (before [`crate::gate::visible_id`]).
    fn raw_id(path: &Path) -> String {
        path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
    }

    /// The id [`Item::read`] gives the item at `path`, without reading it: its file stem
    /// with anything outside `[A-Za-z0-9._:@+=-]` shown as `\u{…}`.
    #[must_use]
    pub fn id_of(path: &Path) -> String {
        crate::gate::visible_id(&Self::raw_id(path))
    }

    fn read_unmasked(path: &Path, goal_id: &str) -> Self {
        let id = Self::raw_id(path);
        // One lstat: its times are the file's own (a symlink is refused below, by this
        // same answer).
        let meta = std::fs::symlink_metadata(path).ok();
        let modified = meta.as_ref().and_then(|m| m.modified().ok());
        let age_seconds = modified.and_then(|t| t.elapsed().ok()).map_or(0, |d| d.as_secs());
        let mut item = Self {
            id,
            goal_id: goal_id.to_owned(),
            path: path.to_owned(),
            payload_digest: String::new(),
            age_seconds,
            modified,
            kind: "unknown",
            intent: Err(String::new()),
            writeback: None,
            command: None,
        };
        let raw_id = item.id.clone();
        item.id = crate::gate::visible_id(&raw_id);
        if !crate::gate::is_safe_id(&raw_id) {
            item.intent = Err("item file name must use only [A-Za-z0-9._:@+=-] (it holds spaces, control, bidi or other characters); rename or remove it by hand".into());
            return item;
        }
        if meta.as_ref().is_some_and(|m| m.file_type().is_symlink()) {
            item.intent = Err("item file is a symlink; writegate reads only regular files in the inbox".into());
            return item;
        }
        if meta.as_ref().is_some_and(|m| m.len() > MAX_ITEM_BYTES) {
            item.intent = Err(format!("item is larger than {MAX_ITEM_BYTES} bytes"));
            return item;
        }
        let bytes = match crate::gate::fsutil::read_regular(path, MAX_ITEM_BYTES, false) {
            Ok(b) => b,
            Err(e) => {
                item.intent = Err(format!("cannot read: {e}"));
                return item;
            }
        };
        item.payload_digest = format!("sha256:{}", sha256_hex(&bytes));
        let doc = match crate::json::parse_strict(&bytes) {
            Ok(v) => v,
            Err(e) => {
                item.intent = Err(format!("not valid JSON (half-written or damaged?): {e}"));
                return item;
            }
        };
        item.kind = classify(&doc);
        item.intent = match item.kind {
            "writeback" => match super::writeback::parse(&doc) {
                Ok(wb) => {
                    item.writeback = Some(wb);
                    Err("a writeback preview, not a write intent".into())
                }
                Err(e) => Err(e),
            },
            "loopx_command" => match super::canonical::parse(&doc) {
                Ok(cmd) => {
                    item.command = Some(cmd);
                    Err("a LoopX 2.x command, not a write intent".into())
                }
                Err(e) => Err(e),
            },
            "write_intent" => parse_intent(doc),
            _ => Err("neither a local_state_write_correctness_v0 packet nor a writeback preview".into()),
        };
        item
    }
}

fn classify(doc: &Value) -> &'static str {
    match doc.get("schema_version").and_then(Value::as_str) {
        Some("session_runtime_controlled_writeback_v0") => "writeback",
        Some(super::canonical::SCHEMA) => "loopx_command",
        Some("local_state_write_correctness_v0") => "write_intent",
        _ if doc.get("local_state_write_correctness").is_some_and(Value::is_object) => "write_intent",
        _ => "unknown",
    }
}

fn text_at<'a>(v: &'a Value, pointer: &str) -> Result<&'a str, String> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("packet field {pointer} is missing or not a string"))
}

fn parse_intent(doc: Value) -> Result<Intent, String> {
    let packet = doc.get("local_state_write_correctness").unwrap_or(&doc);
    if packet.get("schema_version").and_then(Value::as_str) != Some("local_state_write_correctness_v0") {
        return Err("packet schema_version is not local_state_write_correctness_v0".into());
    }
    let status = text_at(packet, "/apply_result/status")?;
    if status != "preview_only" {
        return Err(format!(
            "packet apply_result.status is {status:?}, not preview_only: only dry-run previews can be decided"
        ));
    }
    if packet.pointer("/preview/mode").and_then(Value::as_str) != Some("dry_run") {
        return Err("packet preview.mode is not dry_run".into());
    }
    let proposal_value = doc.get("proposal").ok_or(
        "no proposal: a LoopX dry run does not say exactly what it would write (e.g. an update's new note); drop items with `writegate propose …` instead",
    )?;
    let proposal = parse_proposal(proposal_value)?;
    let write_class = text_at(packet, "/write_intent/write_class")?.to_owned();
    if let Proposal::TodoOp(op) = &proposal
        && op.name() != write_class
    {
        return Err(format!("proposal op {} does not match the packet's write_class {write_class}", op.name()));
    }
    let base_text = match doc.get("base_text") {
        None | Some(Value::Null) => None,
        Some(Value::String(t)) => Some(t.clone()),
        Some(_) => return Err("base_text must be a string (the state text the agent read)".into()),
    };
    let reverts = match doc.get("reverts") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) if crate::gate::is_safe_id(id) => Some(id.clone()),
        Some(_) => return Err("reverts must be the id of an applied item".into()),
    };
    let effect_digest = value_digest(proposal_value);
    let mut intent = Intent {
        write_id: text_at(packet, "/write_intent/write_id")?.to_owned(),
        goal_id: text_at(packet, "/write_intent/goal_id")?.to_owned(),
        writer_id: text_at(packet, "/write_intent/writer_id")?.to_owned(),
        idempotency_key: text_at(packet, "/write_intent/idempotency_key")?.to_owned(),
        expected_revision: text_at(packet, "/write_intent/expected_revision/value")?.to_owned(),
        lease_ref: packet.pointer("/write_intent/lease_ref").filter(|v| !v.is_null()).cloned(),
        target_todo_id: packet
            .pointer("/write_intent/target_refs/todo_id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned),
        effect_digest,
        write_class,
        proposal,
        payload: std::sync::Arc::default(),
        base_text,
        reverts,
        payload_scan: std::sync::Arc::default(),
    };
    // The payload keeps the packet: it is not copied out of it.
    let mut payload = doc;
    if let Some(map) = payload.as_object_mut() {
        for key in LOCATOR_FIELDS {
            map.shift_remove(*key);
        }
        map.shift_remove("base_text");
    }
    intent.payload = std::sync::Arc::new(payload);
    Ok(intent)
}

fn parse_proposal(v: &Value) -> Result<Proposal, String> {
    let kind = v.get("kind").and_then(Value::as_str).ok_or("proposal.kind is missing")?;
    match kind {
        "todo_op" => {
            let mut body = v.clone();
            if let Some(map) = body.as_object_mut() {
                map.shift_remove("kind");
            }
            serde_json::from_value::<TodoOp>(body).map(Proposal::TodoOp).map_err(|e| format!("proposal todo_op: {e}"))
        }
        "replace" => v
            .get("text")
            .and_then(Value::as_str)
            .map(|t| Proposal::Replace(std::sync::Arc::new(t.to_owned())))
            .ok_or_else(|| "proposal replace needs a string text".into()),
        "unified_diff" => v
            .get("diff")
            .and_then(Value::as_str)
            .map(|t| Proposal::UnifiedDiff(t.to_owned()))
            .ok_or_else(|| "proposal unified_diff needs a string diff".into()),
        other => Err(format!("unknown proposal kind {other:?} (todo_op, replace, unified_diff)")),
    }
}

/// Builds the inbox document `writegate propose` drops: the packet under
/// `local_state_write_correctness` (as LoopX's dry-run JSON carries it), a few of the
/// dry-run payload's fields, and the `proposal`. No locator paths.
#[must_use]
pub fn make_item_doc(
    goal_id: &str,
    op: &TodoOp,
    state_text: &str,
    outcome: &crate::loopx::edit::EditOutcome,
    created_at: &str,
) -> Value {
    let packet = crate::loopx::packet::build_packet(goal_id, op, state_text, outcome);
    let proposal = serde_json::to_value(op).unwrap_or(Value::Null);
    let mut proposal_obj = serde_json::Map::new();
    proposal_obj.insert("kind".into(), Value::String("todo_op".into()));
    if let Value::Object(m) = proposal {
        proposal_obj.extend(m);
    }
    serde_json::json!({
        "ok": true,
        "dry_run": true,
        "changed": outcome.changed,
        "goal_id": goal_id,
        "role": outcome.role.map(crate::loopx::state::Role::as_str),
        "section": outcome.section,
        "todo_id": outcome.todo_id,
        "claimed_by": outcome.claimed_by,
        "proposed_by": "writegate propose",
        "created_at": created_at,
        "local_state_write_correctness": packet,
        "proposal": Value::Object(proposal_obj),
    })
}
