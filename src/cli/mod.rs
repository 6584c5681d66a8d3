//! The command line: read-only subcommands over the engine, `propose` for agents, `scan`,
//! and `demo`. JSON out with `--json`; exit codes in [`exit`] (a contract, see README).

mod check;
mod demo;
mod loopx_line;
mod output;
pub use output::err_line;
mod propose;
pub mod propose_args;
pub mod propose_loopx;

use crate::engine::{Clock, Engine};
use crate::loopx::registry::Locator;
use anyhow::Context as _;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Exit codes.
pub mod exit {
    /// Success, nothing pending, no blocking finding.
    pub const OK: i32 = 0;
    /// Pending items exist (`status`, `list`), a LoopX 2.x goal's projection is pending or
    /// broken (`status`), the item is not ready (`preview`), a blocking finding (`scan`), or
    /// problems found (`check`).
    pub const ATTENTION: i32 = 1;
    /// An error: bad arguments, unreadable workspace, a refused proposal.
    pub const ERROR: i32 = 2;
}

/// writegate — gated writes to LoopX goal state.
#[derive(Debug, Parser)]
#[command(
    name = "writegate",
    version,
    about,
    after_help = "Logs: $XDG_STATE_HOME/writegate/writegate.log (default ~/.local/state/writegate/writegate.log).\nExit codes: 0 ok · 1 pending items / not ready / blocking findings · 2 error."
)]
pub struct Cli {
    /// LoopX registry file (else $LOOPX_REGISTRY, ./.loopx/registry.json, the global registry).
    #[arg(long, global = true)]
    pub registry: Option<PathBuf>,
    /// LoopX runtime root (else the registry's common_runtime_root, else the global registry's
    /// folder, else ~/.codex/loopx when it holds state, else ~/.loopx as LoopX 2.x).
    #[arg(long, global = true)]
    pub runtime_root: Option<PathBuf>,
    /// Operator name recorded with decisions (default $USER).
    #[arg(long, global = true)]
    pub operator: Option<String>,
    /// Monitoring only: the TUI shows everything and refuses decisions.
    #[arg(long, global = true)]
    pub read_only: bool,
    /// Print the config file path and exit.
    #[arg(long)]
    pub print_config_path: bool,
    /// The command (the TUI when omitted).
    #[command(subcommand)]
    pub cmd: Option<Cmd>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Per goal: revision, frontmatter status, open todos, pending items, conflicts.
    Status {
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
    /// Pending items with the status apply would return now.
    List {
        /// Only this goal.
        #[arg(long)]
        goal: Option<String>,
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
    /// One item: every check, scan findings and the diff.
    Preview {
        /// `ITEM_ID` or `GOAL_ID/ITEM_ID`.
        item: String,
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
    /// Decision results, newest first.
    Log {
        /// Only this goal.
        #[arg(long)]
        goal: Option<String>,
        /// At most this many.
        #[arg(long)]
        limit: Option<usize>,
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
    /// Validate the workspace: goals, state files, inbox items, results logs, markers.
    Check {
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
    /// Boundary-scan a file (JSON or text) or stdin (`-`).
    Scan {
        /// File to scan, `-` for stdin.
        #[arg(default_value = "-")]
        path: PathBuf,
        /// `public` (strict, default) or `local`.
        #[arg(long, default_value = "public", value_parser = ["public", "local"])]
        policy: String,
        /// JSON output.
        #[arg(long)]
        json: bool,
        /// Print the rule table (Markdown) instead of scanning.
        #[arg(long)]
        rules: bool,
    },
    /// Create a sample workspace (several goals, items of every kind) and show it.
    Demo {
        /// Where to create it (default: a new folder under the temp dir).
        #[arg(long)]
        path: Option<PathBuf>,
        /// Only create it and print the registry path.
        #[arg(long)]
        no_tui: bool,
        /// Seconds a simulated LoopX writer holds docs-goal's state lock after the TUI
        /// starts, to show `lock_busy` (0: never).
        #[arg(long, default_value_t = 90, value_name = "SECS")]
        hold_lock: u64,
    },
    /// Revision snapshots (`gate/revisions/`): bound them.
    #[command(subcommand)]
    Revisions(RevisionsCmd),
    /// For agents: drop a write intent computed exactly as `loopx … --dry-run` would.
    #[command(subcommand)]
    Propose(propose_args::ProposeCmd),
}

/// `writegate revisions …`.
#[derive(Debug, Subcommand)]
pub enum RevisionsCmd {
    /// Remove snapshots older than `--max-age-days`, then the oldest until each goal's fit in
    /// `--max-mb`; the current state and the bases of pending items are always kept.
    Prune {
        /// Size bound per goal, MiB.
        #[arg(long, default_value_t = 256)]
        max_mb: u64,
        /// Age bound, days (by modification time; a snapshot seen again is refreshed).
        #[arg(long, default_value_t = 30)]
        max_age_days: u64,
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
}

/// Runs the command line; returns the exit code.
///
/// # Errors
/// Any failure (mapped to exit code 2 by `main`).
pub fn run(cli: Cli) -> anyhow::Result<i32> {
    let operator = cli.operator.clone().or_else(|| std::env::var("USER").ok()).unwrap_or_else(|| "operator".into());
    let loc = Locator::from_env(cli.registry.clone(), cli.runtime_root.clone());
    let open = || -> anyhow::Result<Engine> {
        let adapters = crate::config::load()?.adapters();
        Ok(Engine::open(&loc, Clock::System, operator.clone())
            .context("failed to open the workspace")?
            .with_adapters(&adapters))
    };
    if cli.print_config_path {
        output::out(&format!("{}\n", crate::config::config_path().display()))?;
        return Ok(exit::OK);
    }
    match cli.cmd {
        None => tui(open()?, cli.read_only),
        Some(Cmd::Status { json }) => status(&open()?, json),
        Some(Cmd::List { goal, json }) => {
            let engine = open()?;
            if let Some(g) = &goal {
                engine.goal(g)?;
            }
            let rows = engine.list(goal.as_deref());
            output::print_list(&rows, json)?;
            Ok(if rows.is_empty() { exit::OK } else { exit::ATTENTION })
        }
        Some(Cmd::Preview { item, json }) => {
            let engine = open()?;
            let prepared = engine.prepare_named(&item)?;
            let preview = prepared.to_wire();
            output::print_preview(&preview, json)?;
            Ok(if preview.row.predicted_status == "ready" { exit::OK } else { exit::ATTENTION })
        }
        Some(Cmd::Log { goal, limit, json }) => log(&open()?, goal.as_deref(), limit, json),
        Some(Cmd::Check { json }) => {
            let engine = open()?;
            let auths = check::read_authorities(&engine);
            let problems = check::check(&engine, &auths);
            check::print_check(&problems, &check::authorities(&engine, &auths), json)?;
            Ok(if problems.is_empty() { exit::OK } else { exit::ATTENTION })
        }
        Some(Cmd::Scan { rules: true, .. }) => {
            output::out(&crate::scan::rules_markdown())?;
            Ok(exit::OK)
        }
        Some(Cmd::Scan { path, policy, json, .. }) => output::scan(&path, &policy, json),
        Some(Cmd::Demo { path, no_tui, hold_lock }) => demo::run(path, no_tui, hold_lock, &operator, cli.read_only),
        Some(Cmd::Revisions(RevisionsCmd::Prune { max_mb, max_age_days, json })) => {
            if cli.read_only {
                anyhow::bail!("--read-only: `revisions prune` removes files");
            }
            prune(&open()?, max_mb, max_age_days, json)
        }
        Some(Cmd::Propose(cmd)) => propose::run(&loc, cmd, &operator),
    }
}

/// `status`: per goal, as a table or JSON; exit 1 when a goal has pending items or a LoopX
/// 2.x projection pending or broken.
fn status(engine: &Engine, json: bool) -> anyhow::Result<i32> {
    let rows = engine.status();
    if !json {
        output::out(&format!(
            "registry {} · runtime root {}\n",
            output::clean(&engine.ws.registry_path.display().to_string()),
            output::clean(&engine.ws.runtime_root.display().to_string())
        ))?;
    }
    output::print_status(&rows, json)?;
    let attention =
        |r: &crate::wire::GoalStatus| r.pending > 0 || matches!(r.projection.as_deref(), Some("pending" | "broken"));
    Ok(if rows.iter().any(attention) { exit::ATTENTION } else { exit::OK })
}

/// `log`: decisions, newest first, of one goal (which must exist) or all, at most `limit`.
fn log(engine: &Engine, goal: Option<&str>, limit: Option<usize>, json: bool) -> anyhow::Result<i32> {
    if let Some(g) = goal {
        engine.goal(g)?;
    }
    let mut rows = engine.log(goal)?;
    rows.truncate(limit.unwrap_or(usize::MAX));
    output::print_log(&rows, json)?;
    Ok(exit::OK)
}

/// `revisions prune`: keeps at most `max_mb` MiB and `max_age_days` days of snapshots per
/// goal; exit 1 when a goal's folder could not be pruned.
fn prune(engine: &Engine, max_mb: u64, max_age_days: u64, json: bool) -> anyhow::Result<i32> {
    let results = engine.prune_revisions(
        max_mb.saturating_mul(1024 * 1024),
        std::time::Duration::from_secs(max_age_days.saturating_mul(86_400)),
    );
    output::print_prune(&results, json)?;
    Ok(if results.iter().any(|(_, r)| r.is_err()) { exit::ATTENTION } else { exit::OK })
}

/// Opens the TUI on `engine` (the config is loaded first; a bad config is an error).
pub(crate) fn tui(engine: Engine, read_only: bool) -> anyhow::Result<i32> {
    use std::io::IsTerminal as _;
    if !std::io::stdout().is_terminal() {
        anyhow::bail!("the TUI needs a terminal; use a subcommand (status, list, preview, …) in scripts");
    }
    let config = crate::config::load()?;
    crate::tui::run(engine, &crate::tui::Options { read_only, config })?;
    Ok(exit::OK)
}
