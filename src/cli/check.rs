//! `writegate check`: validates the workspace — goals, state files, gate folders, results
//! logs, markers, runtime adapters — and, for LoopX 2.x goals, the runtime root, the
//! authority, ghost todos and projection health (issue 11). Each goal's authority is
//! reported beside the problems.

use super::output::{clean, json, out};
use crate::engine::Engine;
use serde::Serialize;

/// A workspace problem found by `check`.
#[derive(Debug, Serialize)]
pub(super) struct Problem {
    goal_id: String,
    what: String,
    detail: String,
}

/// Each goal's authority, read once for both `check` and its report.
pub(super) type Authorities = std::collections::HashMap<String, crate::loopx2::GoalAuthority>;

/// Reads every goal's authority (the CLI fallback, where it applies, runs once per goal).
#[must_use]
pub(super) fn read_authorities(engine: &Engine) -> Authorities {
    engine
        .ws
        .goals
        .iter()
        .map(|g| (g.id.clone(), engine.goal_authority(g, crate::engine::read_state(&g.state_file).ok().as_deref())))
        .collect()
}

pub(super) fn check(engine: &Engine, auths: &Authorities) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut add = |g: &str, what: &str, detail: String| {
        out.push(Problem { goal_id: g.into(), what: what.into(), detail });
    };
    for (id, err) in &engine.ws.broken_goals {
        add(id, "goal", err.clone());
    }
    if let Some(e) = &engine.adapters.error {
        add("", "runtimes", format!("{e} (the workspace file serves no runtime until it is fixed)"));
    }
    for p in engine.adapters.problems() {
        add("", "runtimes", p);
    }
    for g in &engine.ws.goals {
        match crate::engine::read_state(&g.state_file) {
            Err(e) => add(&g.id, "state_file", e),
            Ok(text) => {
                let st = crate::loopx::state::ActiveState::parse(&text);
                if st.frontmatter.is_empty() {
                    add(&g.id, "state_file", "no frontmatter (LoopX will not bump updated_at)".into());
                }
                for d in st.duplicate_todo_ids() {
                    add(&g.id, "state_file", format!("duplicate todo id {d}"));
                }
            }
        }
        let gate = match engine.gate(&g.id) {
            Ok(gate) => gate,
            Err(e) => {
                add(&g.id, "gate", crate::error_chain(&e));
                continue;
            }
        };
        if let Err(e) = crate::gate::allowlist::load(&gate) {
            add(&g.id, "allowlist", format!("{e} (it allows nothing until fixed)"));
        }
        if let Err(e) = gate.results().read_all(false) {
            add(&g.id, "results", crate::error_chain(&e));
        } else if gate.results().has_torn_tail() {
            add(
                &g.id,
                "results",
                "the last line is torn (a crash mid-append); it is moved aside on the next decision".into(),
            );
        }
        check_authority(engine, g, auths.get(&g.id), &mut add);
        // Markers are `<item>.json` (apply) and `<item>.release` (lease release); a dead
        // writer's temp file is cleaned by recovery.
        let marker = |e: &std::fs::DirEntry| {
            let name = e.file_name().to_string_lossy().into_owned();
            !name.starts_with('.')
                && std::path::Path::new(&name)
                    .extension()
                    .is_some_and(|x| x == "json" || x == "release" || x == "loopx")
        };
        if std::fs::read_dir(gate.applying()).is_ok_and(|d| d.filter_map(Result::ok).any(|e| marker(&e))) {
            add(&g.id, "applying", "an interrupted apply or lease release awaits recovery (the next decision finishes it, or holds its item when it cannot tell whether it reached the state or the lease file: inspect gate/applying)".into());
        }
        for item in engine.items(Some(&g.id)) {
            if let (Err(e), None, None) = (&item.intent, &item.writeback, &item.command) {
                add(&g.id, "item", format!("{}: {e}", item.id));
            }
        }
    }
    out
}

/// Problems of a goal's LoopX 2.x authority (issue 11): the runtime root, an unreadable
/// authority, ghost todos, a pending or broken projection.
fn check_authority(
    engine: &Engine,
    g: &crate::loopx::registry::Goal,
    auth: Option<&crate::loopx2::GoalAuthority>,
    add: &mut dyn FnMut(&str, &str, String),
) {
    let rt = &engine.ws.runtime_root;
    if !rt.is_dir() {
        add(&g.id, "runtime_root", format!("the runtime root {} does not exist (pass --runtime-root?)", rt.display()));
    }
    let Some(auth) = auth.filter(|a| a.is_canonical()) else { return };
    if let Some(why) = runtime_root_problem(auth, rt) {
        add(&g.id, "runtime_root", why);
    }
    if let Some(Err(e)) = auth.head_read() {
        add(&g.id, "authority", format!("the canonical authority cannot be read: {e}"));
    }
    for (line, id) in &auth.ghosts() {
        add(
            &g.id,
            "ghost_todo",
            format!(
                "line {line}: todo {id} is outside the todo regions and the authority does not hold it: LoopX never imports it; remove the line, or add the todo with `loopx todo add`"
            ),
        );
    }
    if let Some((what, why)) = projection_problem(auth, g) {
        add(&g.id, what, why);
    }
}

/// A canonical goal whose authority files are not under the runtime root writegate uses.
fn runtime_root_problem(auth: &crate::loopx2::GoalAuthority, rt: &std::path::Path) -> Option<String> {
    if auth.runtime_files_missing && rt.is_dir() {
        return Some(format!(
            "the goal is canonical ({}) but no runtime root holds its authority files (looked in {} and the defaults ~/.loopx, ~/.codex/loopx; pass --runtime-root?)",
            auth.evidence.join(", "),
            rt.display()
        ));
    }
    (!auth.runtime_files_missing && auth.authority_root != rt).then(|| {
        format!(
            "the goal's LoopX 2.x authority files are under {}, not under the runtime root writegate resolved ({}); pass --runtime-root {}",
            auth.authority_root.display(),
            rt.display(),
            auth.authority_root.display()
        )
    })
}

/// `projection_pending` (with the redelivery command, and the state lock's holder when one
/// holds it now) or `projection_broken` (with the line and what to do).
fn projection_problem(
    auth: &crate::loopx2::GoalAuthority,
    g: &crate::loopx::registry::Goal,
) -> Option<(&'static str, String)> {
    match &auth.projection {
        Some((crate::loopx2::Projection::Pending, why)) => {
            let holder = crate::loopx::lock::read_holder(&g.state_file);
            let held = if crate::loopx::lock::held_by_another(&holder) {
                format!(
                    " (the state file's lock is held now by pid {} ({}): the redelivery waits for it)",
                    holder["pid"],
                    holder.get("operation").and_then(serde_json::Value::as_str).unwrap_or("?")
                )
            } else {
                String::new()
            };
            Some((
                "projection_pending",
                format!(
                    "{why}; LoopX's next todo commit or `loopx todo project-markdown --goal-id {} --provider-revision {} --execute` redelivers it{held}",
                    g.id,
                    auth.head().map_or("<head>", |h| h.provider_revision.as_str())
                ),
            ))
        }
        Some((crate::loopx2::Projection::Broken, why)) => Some((
            "projection_broken",
            format!(
                "{why}: `loopx status` and `refresh-state` fail and todo commits stay undelivered until a person fixes {} (remove or move that line; `loopx todo project-markdown` refuses until then)",
                g.state_file_rel
            ),
        )),
        _ => None,
    }
}

/// One goal's authority as `check` reports it.
#[derive(Debug, Serialize)]
pub(super) struct AuthorityInfo {
    goal_id: String,
    authority: String,
    evidence: Vec<&'static str>,
    read_via: Option<&'static str>,
    fallback: Option<String>,
    provider_revision: Option<String>,
    projection: Option<&'static str>,
}

pub(super) fn authorities(engine: &Engine, auths: &Authorities) -> Vec<AuthorityInfo> {
    engine
        .ws
        .goals
        .iter()
        .map(|g| {
            let a = auths.get(&g.id);
            AuthorityInfo {
                goal_id: g.id.clone(),
                authority: a.map_or("markdown", |a| a.kind.as_str()).into(),
                evidence: a.map(|a| a.evidence.clone()).unwrap_or_default(),
                read_via: a.and_then(|a| a.head()).map(|h| h.read_via),
                fallback: a.and_then(|a| a.fallback.clone()),
                provider_revision: a.and_then(|a| a.head()).map(|h| h.provider_revision.clone()),
                projection: a.and_then(|a| a.projection.as_ref()).map(|(p, _)| p.as_str()),
            }
        })
        .collect()
}

pub(super) fn print_check(problems: &[Problem], goals: &[AuthorityInfo], as_json: bool) -> anyhow::Result<()> {
    if as_json {
        return json(&serde_json::json!({"schema_version": "writegate_check_v1", "ok": problems.is_empty(),
            "goals": goals, "problems": problems}));
    }
    let mut s = String::new();
    for g in goals {
        let how = match (g.authority.as_str(), g.read_via, &g.fallback) {
            ("markdown", ..) => "markdown (LoopX 0.5.x): gated and written by writegate".to_owned(),
            (_, Some(via @ ("sqlite" | "file_store")), _) => format!(
                "canonical (LoopX 2.x): read from the {} at {}, projection {}; todo writes gated and run by LoopX's own CLI",
                if via == "sqlite" { "SQLite store" } else { "file provider's journal" },
                g.provider_revision.as_deref().unwrap_or("?"),
                g.projection.unwrap_or("unknown")
            ),
            (_, Some(_), Some(why)) => {
                format!("canonical (LoopX 2.x): {why}; todo writes gated and run by LoopX's own CLI")
            }
            _ => "canonical (LoopX 2.x): authority unreadable; nothing is written".to_owned(),
        };
        s += &format!("{:<20} {:<12} {}\n", clean(&g.goal_id), "authority", clean(&how));
    }
    for p in problems {
        s += &format!("{:<20} {:<12} {}\n", clean(&p.goal_id), p.what, clean(&p.detail));
    }
    if problems.is_empty() {
        s += "workspace ok\n";
    }
    out(&s)
}
