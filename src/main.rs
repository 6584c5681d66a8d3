//! The `writegate` binary: parses the command line, sends logs to a file, maps errors to
//! exit code 2.

use clap::Parser;
use std::path::PathBuf;
use writegate::cli::{Cli, exit, run};

fn log_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))?;
    Some(base.join("writegate").join("writegate.log"))
}

fn init_logging() {
    let Some(path) = log_path() else { return };
    if let Some(dir) = path.parent()
        && std::fs::create_dir_all(dir).is_err()
    {
        return;
    }
    let Ok(file) = std::fs::OpenOptions::new().create(true).append(true).open(&path) else {
        return;
    };
    let _ = tracing_subscriber::fmt()
        .with_writer(std::sync::Mutex::new(file))
        .with_ansi(false)
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("WRITEGATE_LOG").unwrap_or_else(|_| "info".into()))
        .try_init();
}

fn main() {
    init_logging();
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // `propose` on a LoopX 2.x goal takes LoopX 2.1.1's own flags, not the 0.5.x parser's.
    if let Some(code) = writegate::cli::propose_loopx::try_run(&argv) {
        std::process::exit(code);
    }
    let cli = Cli::parse_from(argv);
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) => {
            writegate::cli::err_line(format_args!("writegate: {e:#}"));
            exit::ERROR
        }
    };
    std::process::exit(code);
}
