//! `writegate demo`: builds the sample workspace and shows it.

use super::output::{out, print_list, print_status};
use crate::engine::{Clock, Engine};
use crate::loopx::registry::Locator;
use anyhow::Context as _;
use std::path::PathBuf;

pub(super) fn run(
    path: Option<PathBuf>,
    no_tui: bool,
    hold_lock: u64,
    operator: &str,
    read_only: bool,
) -> anyhow::Result<i32> {
    let root = match path {
        Some(p) => p,
        None => tempfile_dir(),
    };
    let registry = crate::demo::build(&root, operator).context("failed to build the demo workspace")?;
    if no_tui {
        out(&format!("{}\n", registry.display()))?;
        return Ok(super::exit::OK);
    }
    let loc = Locator { registry: Some(registry.clone()), ..Locator::from_env(None, None) };
    let adapters = crate::config::load()?.adapters();
    let engine = Engine::open(&loc, Clock::System, operator.to_owned())?.with_adapters(&adapters);
    if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        // A simulated LoopX writer holds docs-goal's state lock for a while (README, demo).
        if hold_lock > 0 {
            crate::demo::hold_state_lock(&registry, "docs-goal", std::time::Duration::from_secs(hold_lock))
                .context("failed to start the demo's lock holder")?;
        }
        // Printed before the TUI takes the screen, so it is in the scrollback while the TUI
        // runs and after it ends.
        crate::cli::output::err_line(format_args!(
            "demo workspace: {} (kept when you quit)\nfrom another terminal, propose a write as an agent would:\n  writegate --registry {} propose todo add --goal-id docs-goal --role agent --text \"[P2] Write the upgrade notes\"",
            root.display(),
            registry.display()
        ));
        let code = super::tui(engine, read_only)?;
        crate::cli::output::err_line(format_args!(
            "demo workspace kept at {} (registry {})",
            root.display(),
            registry.display()
        ));
        return Ok(code);
    }
    out(&format!("demo workspace: {}\n\n", registry.display()))?;
    print_status(&engine.status(), false)?;
    out("\n")?;
    print_list(&engine.list(None), false)?;
    out(&format!("\nNot a terminal, so no TUI. Try: writegate --registry {} preview <ITEM>\n", registry.display()))?;
    Ok(super::exit::OK)
}

fn tempfile_dir() -> PathBuf {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S");
    std::env::temp_dir().join(format!("writegate-demo-{stamp}-{}", std::process::id()))
}
