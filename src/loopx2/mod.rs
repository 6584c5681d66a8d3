//! LoopX 2.x goals (LOOPX2.md): which authority a goal has, and a read-only view of a
//! canonical goal (todos, hard leases, provider revision, projection health, ghost todos).
//! writegate writes nothing here: on a canonical goal the authority is LoopX's store.

pub mod cli;
pub mod narrative;
pub mod regions;
pub mod store;

use chrono::{DateTime, Utc};
use regions::RegionDoc;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use store::{CanonicalHead, StoreError};

/// Who holds a goal's todos (LOOPX2.md §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthorityKind {
    /// LoopX 0.5.x: the Markdown is the authority (also a 0.5.x goal a 2.x CLI has not
    /// migrated). writegate writes it itself, byte-exactly.
    Markdown,
    /// LoopX 2.x: a canonical store; the Markdown's todo regions are regenerated from it.
    Canonical,
}

impl AuthorityKind {
    /// `markdown` | `canonical`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Markdown => "markdown",
            Self::Canonical => "canonical",
        }
    }
}

/// The authority files of one goal under the runtime root (LOOPX2.md §1).
#[derive(Debug, Clone)]
pub struct AuthorityFiles {
    /// `<rt>/authority/provider-<sha256(goal_id)>.json`.
    pub provider: PathBuf,
    /// `<rt>/authority/sqlite-v0/authority-<sha256(goal_id)>.sqlite`.
    pub sqlite: PathBuf,
    /// `<rt>/authority-transition/file-v0/legacy-writer-fence-<sha256(goal_id)[:16]>.json`.
    pub fence: PathBuf,
    /// `<rt>/authority/file-v0/authority-store-<sha256(goal_id)[:16]>.json` (the `file`
    /// provider, which writes no provider file).
    pub file_store: PathBuf,
}

impl AuthorityFiles {
    /// The paths for `goal_id` under `runtime_root`.
    #[must_use]
    pub fn new(runtime_root: &Path, goal_id: &str) -> Self {
        Self::at(runtime_root, &crate::loopx::hash::sha256_hex(goal_id.as_bytes()))
    }

    /// [`Self::new`] from the goal id's digest (64 hex digits), hashed once for every root.
    fn at(runtime_root: &Path, digest: &str) -> Self {
        Self {
            provider: runtime_root.join("authority").join(format!("provider-{digest}.json")),
            sqlite: store::sqlite_path_at(runtime_root, digest),
            fence: runtime_root
                .join("authority-transition/file-v0")
                .join(format!("legacy-writer-fence-{}.json", &digest[..16])),
            file_store: store::file_store_path_at(runtime_root, digest),
        }
    }
}

/// Projection health of a canonical goal's Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Projection {
    /// Every region shows the authority's records.
    Current,
    /// The authority holds records the Markdown does not show yet (a held lock, a failed
    /// render): LoopX's next todo commit or `todo project-markdown` redelivers them.
    Pending,
    /// The Markdown cannot be projected into (LoopX's `status` and `refresh-state` fail).
    Broken,
}

impl Projection {
    /// `current` | `pending` | `broken`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Current => "current",
            Self::Pending => "pending",
            Self::Broken => "broken",
        }
    }
}

/// What writegate knows of one goal's authority, read once per goal snapshot.
#[derive(Debug)]
pub struct GoalAuthority {
    /// Markdown or canonical.
    pub kind: AuthorityKind,
    /// Why the goal was judged canonical (`provider_file`, `legacy_writer_fence`,
    /// `registry_storage_target`, `todo_region_markers`); empty for markdown goals.
    pub evidence: Vec<&'static str>,
    /// The runtime root holding the goal's authority files: the workspace's, else a default
    /// root where LoopX 2.x keeps them (then `check` says the roots differ).
    pub authority_root: PathBuf,
    /// The provider named by the provider file (`sqlite`, `file`), when there is one.
    pub provider: Option<String>,
    /// The head read from the store directly (`None`: markdown goal, or the CLI fallback).
    store_head: Option<Result<CanonicalHead, String>>,
    /// Why LoopX's CLI is the reader (a store schema or provider writegate does not read).
    pub fallback: Option<String>,
    /// The CLI read, run on first use only (never by a preview or an apply, which need only
    /// the Markdown: an apply holds LoopX's state lock, and a `loopx` read must not wait on it).
    cli_head: std::sync::OnceLock<Result<CanonicalHead, String>>,
    registry: PathBuf,
    goal_id: String,
    /// Projection health and its detail (canonical goals with a readable Markdown and a head
    /// read from the store; `broken` whenever LoopX cannot parse the regions).
    pub projection: Option<(Projection, String)>,
    /// Todo ids on metadata lines outside the regions (1-based line, id); ghosts are those the
    /// authority does not hold.
    outside_ids: Vec<(usize, String)>,
    /// True when none of the goal's authority files exist under any runtime root.
    pub runtime_files_missing: bool,
}

/// Where a goal lives, for [`GoalAuthority::read`].
#[derive(Debug, Clone, Copy)]
pub struct GoalPlace<'a> {
    /// The goal id.
    pub goal_id: &'a str,
    /// The registry entry.
    pub entry: &'a Value,
    /// The registry file (for the CLI fallback).
    pub registry: &'a Path,
    /// The runtime root.
    pub runtime_root: &'a Path,
    /// Other runtime roots where LoopX keeps authority files (the defaults).
    pub other_roots: &'a [PathBuf],
}

impl GoalAuthority {
    /// Detects the authority of a goal and, for a canonical one, reads its head from the
    /// store (read-only) and judges the Markdown `state` against it. A store writegate does
    /// not read is left to [`GoalAuthority::head_read`], which asks LoopX's CLI on first use.
    #[must_use]
    pub fn read(place: GoalPlace<'_>, state: Option<&str>) -> Self {
        let roots = roots_of(place);
        // The root holding the goal's authority: the first with a store or provider file,
        // else the first with any authority file (a fence), else the runtime root.
        let chosen =
            roots.iter().find(|r| r.holds_store()).or_else(|| roots.iter().find(|r| r.any())).unwrap_or(&roots[0]);
        let (root, files) = (chosen.root, &chosen.files);
        let evidence = evidence_in(&roots, place.entry, state);
        let mut out = Self {
            kind: if evidence.is_empty() { AuthorityKind::Markdown } else { AuthorityKind::Canonical },
            evidence,
            authority_root: root.to_owned(),
            provider: if chosen.provider { provider_name(&files.provider) } else { None },
            store_head: None,
            fallback: None,
            cli_head: std::sync::OnceLock::new(),
            registry: place.registry.to_owned(),
            goal_id: place.goal_id.to_owned(),
            projection: None,
            outside_ids: Vec::new(),
            runtime_files_missing: !chosen.any(),
        };
        if out.kind == AuthorityKind::Markdown {
            return out;
        }
        let head = match out.provider.as_deref() {
            Some("file") => store::read_file_store(&files.file_store, place.goal_id),
            None if !chosen.sqlite && chosen.file_store => store::read_file_store(&files.file_store, place.goal_id),
            Some("sqlite") | None => store::read_sqlite(&files.sqlite, place.goal_id),
            Some(other) => Err(StoreError::UnknownSchema(format!("provider {other}"))),
        };
        match head {
            Ok(h) => out.store_head = Some(Ok(h)),
            Err(StoreError::UnknownSchema(s)) => {
                out.fallback = Some(format!("{s}: read through `loopx todo list` and `loopx status`"));
            }
            Err(e) => out.store_head = Some(Err(e.to_string())),
        }
        if let Some(text) = state {
            match RegionDoc::parse(text) {
                Err(e) => out.projection = Some((Projection::Broken, e.to_string())),
                Ok(doc) => {
                    out.outside_ids = doc.todo_ids_outside().into_iter().map(|(n, id)| (n + 1, id)).collect();
                    if let Some(Ok(h)) = &out.store_head {
                        out.projection = Some(projection_health(&doc, h));
                    }
                }
            }
        }
        out
    }

    /// True for a canonical goal.
    #[must_use]
    pub fn is_canonical(&self) -> bool {
        self.kind == AuthorityKind::Canonical
    }

    /// The canonical head or why it cannot be read (`None` for a markdown goal). Runs the
    /// CLI fallback on first use when the store is not read directly.
    #[must_use]
    pub fn head_read(&self) -> Option<&Result<CanonicalHead, String>> {
        if !self.is_canonical() {
            return None;
        }
        if let Some(h) = &self.store_head {
            return Some(h);
        }
        Some(self.cli_head.get_or_init(|| cli::read_via_cli(&self.registry, &self.authority_root, &self.goal_id)))
    }

    /// The readable head, if any (see [`GoalAuthority::head_read`]).
    #[must_use]
    pub fn head(&self) -> Option<&CanonicalHead> {
        self.head_read().and_then(|h| h.as_ref().ok())
    }

    /// Todo lines with metadata outside the regions whose id the authority does not hold
    /// (1-based line, todo id); empty when the head cannot be read.
    #[must_use]
    pub fn ghosts(&self) -> Vec<(usize, String)> {
        let Some(h) = self.head() else { return Vec::new() };
        self.outside_ids.iter().filter(|(_, id)| !h.todos.iter().any(|t| &t.todo_id == id)).cloned().collect()
    }

    /// Hard leases whose stored status is `active` (expired ones included), with `expired`.
    #[must_use]
    pub fn active_leases(&self, now: DateTime<Utc>) -> Vec<(store::CanonicalLease, bool)> {
        self.head()
            .map(|h| {
                h.leases.iter().filter(|l| l.status == "active").map(|l| (l.clone(), l.is_expired_at(now))).collect()
            })
            .unwrap_or_default()
    }
}

/// Detection alone (no store read): true when any canonical evidence is present, under the
/// goal's runtime root or another default root.
#[must_use]
pub fn is_canonical_goal(place: GoalPlace<'_>, state: Option<&str>) -> bool {
    !evidence_in(&roots_of(place), place.entry, state).is_empty()
}

/// One root's authority files and which of them are (or may be) there ([`present`]), each
/// path looked at once per read: a goal over three roots asked about the same files up to
/// ten times.
struct RootFiles<'a> {
    root: &'a Path,
    files: AuthorityFiles,
    provider: bool,
    sqlite: bool,
    fence: bool,
    file_store: bool,
}

impl RootFiles<'_> {
    fn holds_store(&self) -> bool {
        self.provider || self.sqlite || self.file_store
    }

    fn any(&self) -> bool {
        self.holds_store() || self.fence
    }
}

/// The runtime root first, then the other default roots, each with its files looked at.
fn roots_of(place: GoalPlace<'_>) -> Vec<RootFiles<'_>> {
    let digest = crate::loopx::hash::sha256_hex(place.goal_id.as_bytes());
    std::iter::once(place.runtime_root)
        .chain(place.other_roots.iter().map(PathBuf::as_path))
        .map(|root| {
            let files = AuthorityFiles::at(root, &digest);
            // A file whose folder is certainly absent is absent too: a root without LoopX
            // 2.x files costs one or two stats, not four.
            let root_there = present(root);
            let store_there = root_there && present(&root.join("authority"));
            let fence_there = root_there && present(&root.join("authority-transition"));
            RootFiles {
                root,
                provider: store_there && present(&files.provider),
                sqlite: store_there && present(&files.sqlite),
                fence: fence_there && present(&files.fence),
                file_store: store_there && present(&files.file_store),
                files,
            }
        })
        .collect()
}

/// The canonical evidence under every root (the runtime root and the defaults), each kind
/// once: the one rule for [`GoalAuthority::read`] and [`is_canonical_goal`].
fn evidence_in(roots: &[RootFiles<'_>], entry: &Value, state: Option<&str>) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for root in roots {
        for e in detect(root, entry, state) {
            if !out.contains(&e) {
                out.push(e);
            }
        }
    }
    out
}

/// The canonical evidence found (LOOPX2.md §1): any one makes a goal canonical.
fn detect(root: &RootFiles<'_>, entry: &Value, state: Option<&str>) -> Vec<&'static str> {
    let mut out = Vec::new();
    if root.provider {
        out.push("provider_file");
    }
    if root.fence && fence_engaged(&root.files.fence) {
        out.push("legacy_writer_fence");
    }
    if root.sqlite || root.file_store {
        out.push("authority_store");
    }
    if entry.pointer("/coordination/storage_target").is_some_and(|v| !v.is_null()) {
        out.push("registry_storage_target");
    }
    if state.is_some_and(|t| t.contains(regions::REGION_PREFIX)) {
        out.push("todo_region_markers");
    }
    out
}

/// True unless the path is certainly absent: a stat that fails for another reason
/// (permissions) counts as present, so detection fails closed.
fn present(path: &Path) -> bool {
    match std::fs::symlink_metadata(path) {
        Ok(_) => true,
        Err(e) => e.kind() != std::io::ErrorKind::NotFound,
    }
}

/// True when the fence file says `state: engaged`; an unreadable fence counts as engaged
/// (fail closed: it exists to stop the 0.5.x writer).
fn fence_engaged(path: &Path) -> bool {
    if !present(path) {
        return false;
    }
    crate::gate::fsutil::read_regular(path, 1 << 20, true)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .is_none_or(|v| v.get("state").and_then(Value::as_str) != Some("released"))
}

fn provider_name(path: &Path) -> Option<String> {
    let bytes = crate::gate::fsutil::read_regular(path, 1 << 20, true).ok()?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    v.get("provider").and_then(Value::as_str).map(str::to_owned)
}

/// Projection health of a text LoopX can parse (else it is `broken`): `pending` when some
/// role's records (as the authority holds them) are not what its region's marker names;
/// else `current`. A lease-only commit moves the head but not the records: still current.
#[must_use]
pub fn projection_health(doc: &RegionDoc<'_>, head: &CanonicalHead) -> (Projection, String) {
    let markers = doc.markers();
    let empty = store::records_sha256(&[], "agent");
    for role in ["user", "agent", "archive"] {
        let want = store::records_sha256(&head.todos, role);
        match markers.iter().find(|m| m.role == role) {
            Some(m) if m.records_sha256 == want => {}
            Some(m) => {
                return (
                    Projection::Pending,
                    format!(
                        "the {role} region shows records of {} but the authority is at {}",
                        m.provider_revision, head.provider_revision
                    ),
                );
            }
            None if want == empty => {}
            None => {
                return (Projection::Pending, format!("the authority holds {role} todos the Markdown does not show"));
            }
        }
    }
    (Projection::Current, format!("regions show the records of {}", head.provider_revision))
}

/// The words every refused 0.5.x-style write on a canonical goal carries (reason code
/// `canonical_authority`).
pub const CANONICAL_REFUSAL: &str = "this goal's todos live in LoopX 2.x's canonical authority, so writegate does not edit them in the Markdown (the edit would be lost or break the goal); propose the agent's `loopx` command instead, with LoopX 2.1.1's own flags (`writegate propose todo …`: apply runs the real command), or a narrative edit that leaves every todo region unchanged (`writegate propose replace`)";

/// The refusal of a 0.5.x-computed op on a canonical goal: `canonical authority: <op> is
/// computed as LoopX 0.5.x writes the Markdown; ` + [`CANONICAL_REFUSAL`].
#[must_use]
pub fn refusal_for(op: &str) -> String {
    format!("canonical authority: {op} is computed as LoopX 0.5.x writes the Markdown; {CANONICAL_REFUSAL}")
}
