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

/// The new state text of `propose replace`: a UTF-8 file, or standard input for `-`.
fn read_text(path: &std::path::Path) -> anyhow::Result<String> {
    // An item holds the text, and items are at most MAX_ITEM_BYTES: read one byte past the
    // bound to refuse a larger text instead of dropping an unreadable item.
    let limit = crate::engine::MAX_REPLACE_BYTES;
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::Read::read_to_end(&mut std::io::Read::take(std::io::stdin(), limit + 1), &mut bytes)
            .context("failed to read standard input")?;
    } else {
        let file = std::fs::File::open(path).with_context(|| format!("failed to read {}", path.display()))?;
        std::io::Read::read_to_end(&mut std::io::Read::take(file, limit + 1), &mut bytes)
            .with_context(|| format!("failed to read {}", path.display()))?;
    }
    anyhow::ensure!(
        bytes.len() as u64 <= limit,
        "the proposed text is larger than {limit} bytes (an item holds at most {} bytes)",
        crate::engine::item::MAX_ITEM_BYTES
    );
    String::from_utf8(bytes).context("the proposed text is not UTF-8")
}

pub(super) fn run(loc: &Locator, cmd: ProposeCmd, operator: &str) -> anyhow::Result<i32> {
    let engine = Engine::open(loc, Clock::System, operator.to_owned()).context("failed to open the workspace")?;
    let (goal_id, result) = match cmd {
        ProposeCmd::Replace(f) => {
            let text = read_text(&f.file)?;
            let base = f.expected_revision.as_deref();
            (f.goal_id.clone(), engine.propose_replace(&f.goal_id, &text, &f.agent_id, base))
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
                crate::cli::output::err_line(format_args!(
                    "writegate: an identical item is already pending; not adding a duplicate"
                ));
            }
            if p.predicted_status != "ready" {
                crate::cli::output::err_line(format_args!(
                    "writegate: note: apply would return {} now{}",
                    p.predicted_status,
                    p.detail.map(|d| format!(" ({})", super::output::clean(&d))).unwrap_or_default()
                ));
            }
            Ok(exit::OK)
        }
        Err(ProposeError::Refused(refused)) => {
            out(&(serde_json::to_string(&serde_json::json!({"ok": false, "goal_id": goal_id, "error": refused.0}))?
                + "\n"))?;
            Ok(exit::ERROR)
        }
        Err(ProposeError::Canonical(why)) => {
            let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
            let instead = super::loopx_line::loopx_equivalent(&argv);
            crate::cli::output::err_line(format_args!("writegate: {}", super::output::clean(&why)));
            match &instead {
                Some(line) => crate::cli::output::err_line(format_args!("writegate: instead run: {line}")),
                None if argv.iter().skip_while(|a| *a != "propose").nth(1).is_some_and(|a| a == "replace") => {
                    crate::cli::output::err_line(format_args!(
                        "writegate: LoopX has no command for a whole new state text: change todos with `loopx todo …`, and keep every todo region byte-identical in a replace"
                    ));
                }
                None => crate::cli::output::err_line(format_args!(
                    "writegate: (no loopx line shown: an argument holds characters that cannot be shown as typed)"
                )),
            }
            let doc = serde_json::json!({"ok": false, "goal_id": goal_id, "error": why,
                "reason_code": "canonical_authority", "loopx_command": instead});
            out(&(serde_json::to_string(&doc)? + "\n"))?;
            Ok(exit::ERROR)
        }
        Err(ProposeError::Loopx(answer)) => {
            out(&(serde_json::to_string(&answer)? + "\n"))?;
            Ok(exit::ERROR)
        }
        Err(ProposeError::Engine(e)) => Err(e).context("failed to propose"),
    }
}
