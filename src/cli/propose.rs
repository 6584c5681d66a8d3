//! `writegate propose …`: computes the write exactly as `loopx … --dry-run` would (same
//! packet), adds the proposal, drops the item into the goal's inbox and prints its id.
//! It never touches the state file. The item id goes to stdout; a note on stderr says when
//! apply would not be `ready` now, or when an identical item was already pending. A command LoopX would refuse prints LoopX's error as
//! `{"ok": false, "error": …}` and exits 2.

use super::exit;
use super::output::out;
use super::propose_args::ProposeCmd;
use crate::engine::{Clock, Engine, ProposeError};
use crate::loopx::registry::Locator;
use anyhow::Context as _;

/// The `loopx …` command line this `writegate … propose …` stands for (its arguments after
/// `propose`, shell-quoted), to run instead on a LoopX 2.x goal.
fn loopx_equivalent() -> String {
    let args: Vec<String> = std::env::args().skip_while(|a| a != "propose").skip(1).collect();
    let quote = |a: &String| {
        if !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "_./:=@%+-,".contains(c)) {
            a.clone()
        } else {
            format!("'{}'", a.replace('\'', "'\\''"))
        }
    };
    std::iter::once("loopx".to_owned()).chain(args.iter().map(quote)).collect::<Vec<_>>().join(" ")
}

/// The new state text of `propose replace`: a UTF-8 file, or standard input for `-`.
fn read_text(path: &std::path::Path) -> anyhow::Result<String> {
    let bytes = if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf).context("failed to read standard input")?;
        buf
    } else {
        std::fs::read(path).with_context(|| format!("failed to read {}", path.display()))?
    };
    String::from_utf8(bytes).context("the proposed text is not UTF-8")
}

pub(super) fn run(loc: &Locator, cmd: ProposeCmd, operator: &str) -> anyhow::Result<i32> {
    let engine = Engine::open(loc, Clock::System, operator.to_owned()).context("failed to open the workspace")?;
    let (goal_id, result) = match cmd {
        ProposeCmd::Replace(f) => {
            let text = read_text(&f.file)?;
            (f.goal_id.clone(), engine.propose_replace(&f.goal_id, &text, &f.agent_id))
        }
        other => {
            let Some((goal_id, op)) = other.into_op() else { unreachable!("replace is handled above") };
            let result = engine.propose(&goal_id, &op);
            (goal_id, result)
        }
    };
    match result {
        Ok(p) => {
            tracing::info!(
                goal = goal_id,
                item = p.item_id,
                reused = p.reused,
                predicted = p.predicted_status,
                "proposed"
            );
            out(&format!("{}\n", p.item_id))?;
            if p.reused {
                eprintln!("writegate: an identical item is already pending; not adding a duplicate");
            }
            if p.predicted_status != "ready" {
                eprintln!(
                    "writegate: note: apply would return {} now{}",
                    p.predicted_status,
                    p.detail.map(|d| format!(" ({})", super::output::clean(&d))).unwrap_or_default()
                );
            }
            Ok(exit::OK)
        }
        Err(ProposeError::Refused(refused)) => {
            out(&(serde_json::to_string(&serde_json::json!({"ok": false, "goal_id": goal_id, "error": refused.0}))?
                + "\n"))?;
            Ok(exit::ERROR)
        }
        Err(ProposeError::Canonical(why)) => {
            let instead = loopx_equivalent();
            eprintln!(
                "writegate: {}\nwritegate: instead run: {}",
                super::output::clean(&why),
                super::output::clean(&instead)
            );
            let doc = serde_json::json!({"ok": false, "goal_id": goal_id, "error": why,
                "reason_code": "canonical_authority", "loopx_command": instead});
            out(&(serde_json::to_string(&doc)? + "\n"))?;
            Ok(exit::ERROR)
        }
        Err(ProposeError::Engine(e)) => Err(e).context("failed to propose"),
    }
}
