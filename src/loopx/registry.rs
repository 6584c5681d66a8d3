//! LoopX registry discovery and goal resolution (FORMATS.md §2): which registry file, which
//! runtime root, and each goal's state file, refused when it resolves outside its root.

use serde_json::Value;
use std::path::{Component, Path, PathBuf};

/// Failures reading a workspace.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// No registry could be found.
    #[error("no LoopX registry found (tried {tried}); pass --registry or set LOOPX_REGISTRY")]
    NotFound {
        /// The paths tried, comma-separated.
        tried: String,
    },
    /// The registry could not be read.
    #[error("read registry {path}")]
    Read {
        /// Registry path.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// The registry is not valid JSON of the expected shape.
    #[error("parse registry {path}: {reason}")]
    Parse {
        /// Registry path.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The goal id is not in the registry.
    #[error("goal {0:?} is not in the registry")]
    UnknownGoal(String),
    /// A goal id that is not a single safe path segment.
    #[error("goal id {0:?} is not a valid LoopX goal id")]
    InvalidGoalId(String),
    /// A path resolves outside the root it must stay in.
    #[error("{what} {path} resolves outside {root}")]
    Escapes {
        /// What the path is (state file, gate folder).
        what: &'static str,
        /// The offending path.
        path: PathBuf,
        /// The root it must stay under.
        root: PathBuf,
    },
    /// The goal has no usable repo / state file.
    #[error("goal {goal}: {reason}")]
    Goal {
        /// Goal id.
        goal: String,
        /// What is missing.
        reason: String,
    },
}

/// How the caller pointed at the workspace (CLI flags and environment).
#[derive(Debug, Clone, Default)]
pub struct Locator {
    /// `--registry`.
    pub registry: Option<PathBuf>,
    /// `--runtime-root`.
    pub runtime_root: Option<PathBuf>,
    /// `$LOOPX_REGISTRY`.
    pub env_registry: Option<PathBuf>,
    /// The working directory (for `./.loopx/registry.json`).
    pub cwd: PathBuf,
    /// `$HOME` (for `~/.codex/loopx`).
    pub home: Option<PathBuf>,
}

impl Locator {
    /// A locator from the process environment plus explicit flags.
    #[must_use]
    pub fn from_env(registry: Option<PathBuf>, runtime_root: Option<PathBuf>) -> Self {
        Self {
            registry,
            runtime_root,
            env_registry: std::env::var_os("LOOPX_REGISTRY").filter(|v| !v.is_empty()).map(PathBuf::from),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            home: std::env::var_os("HOME").map(PathBuf::from),
        }
    }

    /// The two default runtime roots: LoopX 2.x's `~/.loopx` and 0.5.x's `~/.codex/loopx`.
    fn default_roots(&self) -> (PathBuf, PathBuf) {
        let home = self.home.clone().unwrap_or_else(|| PathBuf::from("/"));
        (home.join(".loopx"), home.join(".codex/loopx"))
    }

    /// The default runtime root as LoopX 2.1.1 selects it (`paths.py`
    /// `default_runtime_route`): the legacy `~/.codex/loopx` when only it holds state, else
    /// `~/.loopx` (an empty folder holds no state). When both hold state LoopX refuses to
    /// guess; writegate keeps the legacy root, as 0.5.x did, and detection looks in both.
    fn default_runtime_root(&self) -> PathBuf {
        let (current, legacy) = self.default_roots();
        let has_state = |p: &Path| std::fs::read_dir(p).is_ok_and(|mut d| d.next().is_some());
        if has_state(&legacy) { legacy } else { current }
    }

    /// Global registries to try: `<--runtime-root>/registry.global.json`, else both LoopX
    /// lines' defaults (`~/.codex/loopx/…` for 0.5.x, `~/.loopx/…` for 2.x).
    fn global_registries(&self) -> Vec<PathBuf> {
        if let Some(rt) = &self.runtime_root {
            return vec![rt.join("registry.global.json")];
        }
        let home = self.home.clone().unwrap_or_else(|| PathBuf::from("/"));
        vec![home.join(".codex/loopx/registry.global.json"), home.join(".loopx/registry.global.json")]
    }
}

/// One goal entry, with paths resolved.
#[derive(Debug, Clone)]
pub struct Goal {
    /// `id`.
    pub id: String,
    /// `repo` (absolute project path).
    pub repo: PathBuf,
    /// `state_file` as written in the registry (usually relative).
    pub state_file_rel: String,
    /// The resolved state file path (inside `repo`).
    pub state_file: PathBuf,
    /// Registry `status`.
    pub status: Option<String>,
    /// `coordination.registered_agents`.
    pub registered_agents: Vec<String>,
    /// The raw entry (shared: snapshots and previews clone the goal).
    pub raw: std::sync::Arc<Value>,
}

/// A loaded workspace: registry path, runtime root and goals.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The registry file read.
    pub registry_path: PathBuf,
    /// The runtime root (`goals/<id>/...` lives under it).
    pub runtime_root: PathBuf,
    /// Goals whose paths resolved.
    pub goals: Vec<Goal>,
    /// Goals that could not be resolved, with the reason (shown, never used).
    pub broken_goals: Vec<(String, String)>,
    /// The default runtime roots (`~/.loopx`, `~/.codex/loopx`) other than `runtime_root`:
    /// where LoopX 2.x authority files are looked for too, so a goal is never judged
    /// 0.5.x just because writegate resolved another root than LoopX did.
    pub other_runtime_roots: Vec<PathBuf>,
    /// Goal id → index into `goals` (lookups by id stay O(1) at any registry size).
    index: std::collections::HashMap<String, usize>,
}

impl Workspace {
    /// Discovers and loads the workspace: `--registry`, else `$LOOPX_REGISTRY`, else
    /// `./.loopx/registry.json`, else `<runtime_root>/registry.global.json` — without
    /// `--runtime-root`, `~/.codex/loopx/registry.global.json` (0.5.x, `loopx/paths.py`), then
    /// `~/.loopx/registry.global.json` (2.x). Runtime root: `--runtime-root`, else the
    /// registry's `common_runtime_root` (relative to the project root, the parent of
    /// `.loopx`), else the folder of a global registry, else the default (see
    /// `default_runtime_root`: `~/.codex/loopx`, or `~/.loopx` when only that exists).
    ///
    /// # Errors
    /// [`RegistryError`] when no registry exists or it cannot be parsed.
    pub fn load(loc: &Locator) -> Result<Self, RegistryError> {
        let local = loc.cwd.join(".loopx/registry.json");
        let globals = loc.global_registries();
        let path = if let Some(p) = loc.registry.clone().or_else(|| loc.env_registry.clone()) {
            p
        } else if local.is_file() {
            local
        } else if let Some(global) = globals.iter().find(|g| g.is_file()) {
            global.clone()
        } else {
            let tried: Vec<String> = std::iter::once(&local).chain(&globals).map(|p| p.display().to_string()).collect();
            return Err(RegistryError::NotFound { tried: tried.join(", ") });
        };
        let path = absolute(&loc.cwd, &path);
        let bytes = crate::gate::fsutil::read_regular(&path, crate::gate::fsutil::limits::REGISTRY, true)
            .map_err(|source| RegistryError::Read { path: path.clone(), source })?;
        let value = crate::json::parse_strict(&bytes)
            .map_err(|e| RegistryError::Parse { path: path.clone(), reason: e.to_string() })?;
        Self::from_value(&path, &value, loc)
    }

    fn from_value(path: &Path, value: &Value, loc: &Locator) -> Result<Self, RegistryError> {
        let parse_err = |reason: &str| RegistryError::Parse { path: path.to_owned(), reason: reason.to_owned() };
        let goals_raw = value.get("goals").and_then(Value::as_array).ok_or_else(|| parse_err("missing goals[]"))?;
        let project_root = registry_project_root(path);
        let runtime_root = match (&loc.runtime_root, value.get("common_runtime_root").and_then(Value::as_str)) {
            (Some(rt), _) => absolute(&loc.cwd, rt),
            (None, Some(common)) if !common.is_empty() => absolute(&project_root, &expand_user(common, loc)),
            _ if path.file_name().is_some_and(|n| n == "registry.global.json") => {
                path.parent().map_or_else(|| loc.default_runtime_root(), Path::to_owned)
            }
            _ => loc.default_runtime_root(),
        };
        let mut goals: Vec<Goal> = Vec::new();
        let mut broken_goals = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut index = std::collections::HashMap::new();
        let mut plain = PlainDirs::default();
        for raw in goals_raw {
            let id = raw.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
            if !seen.insert(id.clone()) {
                broken_goals.push((id, "duplicate goal id in the registry; the first entry is used".into()));
                continue;
            }
            match resolve_goal(raw, &project_root, &mut plain) {
                Ok(goal) => {
                    index.insert(goal.id.clone(), goals.len());
                    goals.push(goal);
                }
                Err(e) => broken_goals.push((id, crate::error_chain(&e))),
            }
        }
        let (current, legacy) = loc.default_roots();
        let other_runtime_roots = [current, legacy].into_iter().filter(|r| *r != runtime_root).collect();
        Ok(Self { registry_path: path.to_owned(), runtime_root, goals, broken_goals, other_runtime_roots, index })
    }

    /// The goal with `id`.
    ///
    /// # Errors
    /// [`RegistryError::UnknownGoal`].
    pub fn goal(&self, id: &str) -> Result<&Goal, RegistryError> {
        self.index.get(id).and_then(|&i| self.goals.get(i)).ok_or_else(|| RegistryError::UnknownGoal(id.to_owned()))
    }

    /// `<runtime_root>/goals/<goal_id>`, refused when the id is not one safe segment or
    /// the directory resolves (through symlinks) outside the runtime root.
    ///
    /// # Errors
    /// [`RegistryError::InvalidGoalId`] or [`RegistryError::Escapes`].
    pub fn goal_runtime_dir(&self, goal_id: &str) -> Result<PathBuf, RegistryError> {
        self.goal_runtime_dir_in(goal_id, &mut PlainDirs::default())
    }

    /// [`Self::goal_runtime_dir`] within one pass over the goals ([`PlainDirs`]).
    ///
    /// # Errors
    /// As [`Self::goal_runtime_dir`].
    pub fn goal_runtime_dir_in(&self, goal_id: &str, plain: &mut PlainDirs) -> Result<PathBuf, RegistryError> {
        validate_goal_id(goal_id)?;
        let dir = self.runtime_root.join("goals").join(goal_id);
        ensure_inside_in(&dir, &self.runtime_root, "goal runtime folder", plain)?;
        Ok(dir)
    }
}

/// `Path(value).expanduser()`: a leading `~` or `~/` is `$HOME`.
fn expand_user(value: &str, loc: &Locator) -> PathBuf {
    match (value.strip_prefix('~'), &loc.home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => home.join(rest.trim_start_matches('/')),
        _ => PathBuf::from(value),
    }
}

/// LoopX goal id rules: `^[A-Za-z0-9][A-Za-z0-9_.-]*$` and a single path segment that is
/// not `.` or `..` (FORMATS.md §2.3).
///
/// # Errors
/// [`RegistryError::InvalidGoalId`].
pub fn validate_goal_id(id: &str) -> Result<(), RegistryError> {
    let ok = id.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        && id != "."
        && id != ".."
        && id.len() <= 200;
    if ok { Ok(()) } else { Err(RegistryError::InvalidGoalId(id.to_owned())) }
}

fn resolve_goal(raw: &Value, project_root: &Path, plain: &mut PlainDirs) -> Result<Goal, RegistryError> {
    let id = raw.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
    validate_goal_id(&id)?;
    let goal_err = |reason: &str| RegistryError::Goal { goal: id.clone(), reason: reason.to_owned() };
    let repo = match raw.get("repo") {
        None | Some(Value::Null) => project_root.to_owned(),
        Some(Value::String(r)) if Path::new(r).is_absolute() => absolute(project_root, Path::new(r)),
        Some(Value::String(r)) => {
            // A relative repo is read against the project root and must stay inside it.
            let repo = absolute(project_root, Path::new(r));
            ensure_inside_in(&repo, project_root, "relative repo", plain)?;
            repo
        }
        Some(_) => return Err(goal_err("repo is not a string")),
    };
    if !matches!(raw.get("state_file"), None | Some(Value::Null | Value::String(_))) {
        return Err(goal_err("state_file is not a string"));
    }
    let rel = raw
        .get("state_file")
        .and_then(Value::as_str)
        .map_or_else(|| format!(".codex/goals/{id}/ACTIVE_GOAL_STATE.md"), str::to_owned);
    if rel.is_empty() {
        return Err(goal_err("empty state_file"));
    }
    let state_file = absolute(&repo, Path::new(&rel));
    ensure_inside_in(&state_file, &repo, "state file", plain)?;
    let registered_agents = raw
        .pointer("/coordination/registered_agents")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    Ok(Goal {
        status: raw.get("status").and_then(Value::as_str).map(str::to_owned),
        id,
        repo,
        state_file_rel: rel,
        state_file,
        registered_agents,
        raw: std::sync::Arc::new(raw.clone()),
    })
}

/// The project root of a registry: the parent of its `.loopx` folder, else its folder.
#[must_use]
pub fn registry_project_root(registry: &Path) -> PathBuf {
    let dir = registry.parent().unwrap_or(Path::new("/"));
    if dir.file_name().is_some_and(|n| n == ".loopx") { dir.parent().unwrap_or(dir).to_owned() } else { dir.to_owned() }
}

/// `base.join(p)` lexically normalised (`.` and `..` folded), without touching the disk.
#[must_use]
pub fn absolute(base: &Path, p: &Path) -> PathBuf {
    let joined = if p.is_absolute() { p.to_owned() } else { base.join(p) };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Refuses `path` unless it stays under `root` both lexically and after resolving every
/// symlink of its longest existing ancestor.
///
/// # Errors
/// [`RegistryError::Escapes`].
pub fn ensure_inside(path: &Path, root: &Path, what: &'static str) -> Result<(), RegistryError> {
    ensure_inside_in(path, root, what, &mut PlainDirs::default())
}

/// Folders found to be real folders (not symlinks) during one pass over many paths (the
/// registry's goals, read back to back): each is looked at once per pass, not once per
/// path under it. A pass is one registry load or one `status` / `list` over the goals;
/// nothing long-lived keeps one (a folder swapped for a symlink later is seen by the next
/// pass).
#[derive(Debug, Default)]
pub struct PlainDirs(std::collections::HashSet<PathBuf>);

/// [`ensure_inside`] within one pass, remembering the folders it found plain in `plain`.
fn ensure_inside_in(path: &Path, root: &Path, what: &'static str, plain: &mut PlainDirs) -> Result<(), RegistryError> {
    let escapes = || RegistryError::Escapes { what, path: path.to_owned(), root: root.to_owned() };
    let lexical = absolute(Path::new("/"), path);
    let lexical_root = absolute(Path::new("/"), root);
    if !lexical.starts_with(&lexical_root) {
        return Err(escapes());
    }
    if plain_on_the_way(&lexical, root, plain) || resolves_inside(&lexical, root, lexical_root) {
        Ok(())
    } else {
        Err(escapes())
    }
}

/// The full walk of [`ensure_inside`]: `realpath` of `root` and of the longest existing
/// ancestor of `lexical`, the rest joined back on.
fn resolves_inside(lexical: &Path, root: &Path, lexical_root: PathBuf) -> bool {
    let real_root = std::fs::canonicalize(root).unwrap_or(lexical_root);
    let mut probe = lexical;
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(probe) {
            let full = rest.iter().rev().fold(real, |acc: PathBuf, part| acc.join(part));
            return full.starts_with(&real_root);
        }
        match (probe.parent(), probe.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                probe = parent;
            }
            _ => return true,
        }
    }
}

/// The fast half of [`ensure_inside`]: true when `root` is absolute and plain (no `.` or
/// `..`) and no existing component of `lexical` (already known to lie under it lexically) is
/// a symlink, one `lstat` per component up to the first that does not exist. Such a path
/// resolves to itself, and so does `root`, so the full walk (two `realpath`s, a `readlink`
/// per component each) would find it inside. Any symlink, or an error other than "not
/// found", leaves the answer to the full walk.
fn plain_on_the_way(lexical: &Path, root: &Path, seen: &mut PlainDirs) -> bool {
    let plain = |p: &Path| p.components().all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
    if !root.is_absolute() || !plain(root) || !plain(lexical) {
        return false;
    }
    let mut at = PathBuf::from("/");
    for c in lexical.components().skip(1) {
        at.push(c);
        if seen.0.contains(&at) {
            continue;
        }
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => return false,
            Ok(m) if m.is_dir() => {
                seen.0.insert(at.clone());
            }
            Ok(_) => {}
            Err(e) => return e.kind() == std::io::ErrorKind::NotFound,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goal_ids() {
        assert!(validate_goal_id("demo-goal").is_ok());
        for bad in ["", "..", ".", "a/b", "-x", "a\\b"] {
            assert!(validate_goal_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn refuses_escapes() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join("sub"))?;
        assert!(ensure_inside(&absolute(&repo, Path::new("sub/x.md")), &repo, "state file").is_ok());
        assert!(ensure_inside(&absolute(&repo, Path::new("../x.md")), &repo, "state file").is_err());
        assert!(ensure_inside(Path::new("/etc/passwd"), &repo, "state file").is_err());
        std::os::unix::fs::symlink(dir.path(), repo.join("out"))?;
        assert!(ensure_inside(&repo.join("out/x.md"), &repo, "state file").is_err());
        Ok(())
    }

    /// The lstat walk answers exactly as the full `realpath` walk, on a tree with folders,
    /// files, symlinks in and out (to folders and files), dangling links and a symlinked
    /// root, for every path made of its names (and names that do not exist) up to three deep.
    #[test]
    fn the_plain_walk_agrees_with_the_full_walk() -> Result<(), Box<dyn std::error::Error>> {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir()?;
        let top = std::fs::canonicalize(dir.path())?;
        let root = top.join("root");
        std::fs::create_dir_all(root.join("a/b"))?;
        std::fs::create_dir_all(top.join("outside/c"))?;
        std::fs::write(root.join("a/f"), "x")?;
        std::fs::write(top.join("outside/g"), "x")?;
        symlink(top.join("outside"), root.join("out"))?;
        symlink(root.join("a"), root.join("in"))?;
        symlink("b", root.join("a/rel"))?;
        symlink("../../outside/g", root.join("a/up"))?;
        symlink(top.join("nowhere"), root.join("dangling"))?;
        symlink(&root, top.join("linked-root"))?;
        let names = ["a", "b", "f", "out", "in", "rel", "up", "dangling", "c", "g", "missing"];
        let mut paths = vec![PathBuf::new()];
        for _ in 0..3 {
            let deeper: Vec<PathBuf> = paths.iter().flat_map(|p| names.iter().map(move |n| p.join(n))).collect();
            paths.extend(deeper);
        }
        let mut inside = (0, 0);
        for base in [root.clone(), top.join("linked-root")] {
            // One pass over every path, as the registry's goals are read: what it remembers
            // about folders must not change an answer.
            let mut pass = PlainDirs::default();
            for rel in &paths {
                let path = base.join(rel);
                let lexical = absolute(Path::new("/"), &path);
                let lexical_root = absolute(Path::new("/"), &base);
                let full = resolves_inside(&lexical, &base, lexical_root);
                let ours = ensure_inside(&path, &base, "probe").is_ok();
                assert_eq!(ours, full, "{}", path.display());
                assert_eq!(ensure_inside_in(&path, &base, "probe", &mut pass).is_ok(), full, "{}", path.display());
                if ours { inside.0 += 1 } else { inside.1 += 1 }
            }
        }
        assert!(inside.0 > 100 && inside.1 > 100, "both answers are exercised: {inside:?}");
        Ok(())
    }
}
