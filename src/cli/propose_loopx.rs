//! `writegate propose …` on a LoopX 2.x goal: the agent's LoopX 2.1.1 command line, taken
//! verbatim (not through the 0.5.x flag parser), checked, dry-run by LoopX and dropped as
//! an item. Chosen before the normal command-line parsing, from the raw words, when the
//! `--goal-id` names a canonical goal; everything else goes the usual way.

use super::exit;
use super::output::out;
use crate::engine::{Clock, Engine, ProposeError};
use crate::loopx::registry::Locator;
use std::ffi::OsString;
use std::path::PathBuf;

/// writegate's global options (the same names are LoopX's globals).
#[derive(Debug, Default)]
struct Globals {
    registry: Option<PathBuf>,
    runtime_root: Option<PathBuf>,
    operator: Option<String>,
}

impl Globals {
    /// Takes `word` (and maybe the next) when it is a global option; true when it was.
    fn take(&mut self, word: &str, rest: &mut std::slice::Iter<'_, String>) -> bool {
        let (name, inline) = word.split_once('=').map_or((word, None), |(n, v)| (n, Some(v.to_owned())));
        let slot = match name {
            "--registry" => 0,
            "--runtime-root" => 1,
            "--operator" => 2,
            "--read-only" => return true,
            _ => return false,
        };
        let Some(value) = inline.or_else(|| rest.next().cloned()) else { return false };
        match slot {
            0 => self.registry = Some(value.into()),
            1 => self.runtime_root = Some(value.into()),
            _ => self.operator = Some(value),
        }
        true
    }
}

/// The LoopX words of a `propose todo …` / `propose refresh-state …` command line and
/// writegate's globals given before `propose`; `None` for any other command line, or one
/// asking for help. After `propose` every word is LoopX's: a `--registry` or
/// `--runtime-root` there is refused with the command (it would point writegate at another
/// workspace, where the operator's console never looks).
fn split(argv: &[OsString]) -> Option<(Globals, Vec<String>)> {
    let words: Vec<String> = argv.iter().skip(1).map(|w| w.to_str().map(str::to_owned)).collect::<Option<_>>()?;
    let mut globals = Globals::default();
    let mut rest = words.iter();
    loop {
        let w = rest.next()?;
        if w == "propose" {
            break;
        }
        if !globals.take(w, &mut rest) {
            return None;
        }
    }
    let loopx: Vec<String> = rest.cloned().collect();
    if loopx.iter().any(|w| matches!(w.as_str(), "-h" | "--help")) {
        return None;
    }
    matches!(loopx.first().map(String::as_str), Some("todo" | "refresh-state")).then_some((globals, loopx))
}

fn goal_id(words: &[String]) -> Option<String> {
    let mut it = words.iter();
    while let Some(w) = it.next() {
        if let Some(v) = w.strip_prefix("--goal-id=") {
            return Some(v.to_owned());
        }
        if w == "--goal-id" {
            return it.next().cloned();
        }
    }
    None
}

/// Runs `propose` for a LoopX 2.x goal when `argv` is one (module docs): `Some(exit code)`,
/// or `None` to parse `argv` the usual way.
#[must_use]
pub fn try_run(argv: &[OsString]) -> Option<i32> {
    let (globals, words) = split(argv)?;
    let goal = goal_id(&words)?;
    let loc = Locator::from_env(globals.registry, globals.runtime_root);
    let operator = globals.operator.or_else(|| std::env::var("USER").ok()).unwrap_or_else(|| "operator".into());
    let engine = Engine::open(&loc, Clock::System, operator).ok()?;
    let g = engine.goal(&goal).ok()?;
    let state = crate::engine::read_state(&g.state_file).ok();
    if !crate::loopx2::is_canonical_goal(engine.goal_place(g), state.as_deref()) {
        return None;
    }
    Some(report(&goal, engine.propose_loopx(&words)).unwrap_or_else(|e| {
        crate::cli::output::err_line(format_args!("writegate: {e:#}"));
        exit::ERROR
    }))
}

fn report(goal: &str, result: Result<crate::engine::canonical::LoopxProposed, ProposeError>) -> anyhow::Result<i32> {
    match result {
        Ok(p) => {
            tracing::info!(goal, item = p.proposed.item_id, reused = p.proposed.reused, "proposed a LoopX 2.x command");
            out(&format!("{}\n", p.proposed.item_id))?;
            if let Some(op) = &p.operation_id {
                crate::cli::output::err_line(format_args!("writegate: operation id {op}"));
            }
            if p.proposed.reused {
                crate::cli::output::err_line(format_args!(
                    "writegate: an identical item is already pending; not adding a duplicate"
                ));
            }
            if p.proposed.predicted_status != "ready" {
                crate::cli::output::err_line(format_args!(
                    "writegate: note: apply would return {} now{}",
                    p.proposed.predicted_status,
                    p.proposed.detail.map(|d| format!(" ({})", super::output::clean(&d))).unwrap_or_default()
                ));
            }
            Ok(exit::OK)
        }
        Err(ProposeError::Loopx(answer)) => {
            // LoopX's own refusal, as LoopX printed it.
            let why = answer.get("error").and_then(serde_json::Value::as_str).unwrap_or("refused");
            crate::cli::output::err_line(format_args!(
                "writegate: LoopX refused the command's dry run: {}",
                super::output::clean(why)
            ));
            out(&(serde_json::to_string(&crate::scan::mask_json(&answer))? + "\n"))?;
            Ok(exit::ERROR)
        }
        Err(ProposeError::Canonical(why) | ProposeError::Refused(crate::loopx::edit::EditRefused(why))) => {
            crate::cli::output::err_line(format_args!("writegate: {}", super::output::clean(&why)));
            out(&(serde_json::to_string(&serde_json::json!({"ok": false, "goal_id": goal, "error": why}))? + "\n"))?;
            Ok(exit::ERROR)
        }
        Err(ProposeError::Engine(e)) => Err(anyhow::Error::new(e).context("failed to propose")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn splits_globals_from_the_loopx_words() {
        let (g, w) = split(&os(&[
            "writegate",
            "--registry",
            "r.json",
            "--runtime-root=/rt",
            "propose",
            "todo",
            "add",
            "--goal-id",
            "g",
            "--priority",
            "P1",
        ]))
        .expect("a propose");
        assert_eq!((g.registry, g.runtime_root), (Some("r.json".into()), Some("/rt".into())));
        assert_eq!(w, ["todo", "add", "--goal-id", "g", "--priority", "P1"]);
        // After `propose`, a workspace flag is the command's, and the command refuses it.
        let (g, words) =
            split(&os(&["writegate", "propose", "todo", "add", "--goal-id", "g", "--runtime-root=/elsewhere"]))
                .expect("a propose");
        assert_eq!(g.runtime_root, None);
        assert!(crate::engine::canonical::argv::LoopxArgv::parse(&words).is_err());
        assert_eq!(goal_id(&w).as_deref(), Some("g"));
        assert!(split(&os(&["writegate", "status"])).is_none());
        assert!(split(&os(&["writegate", "propose", "replace", "--goal-id", "g"])).is_none());
        assert!(split(&os(&["writegate", "propose", "todo", "add", "--help"])).is_none());
    }
}
