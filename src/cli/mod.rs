//! The command line: read-only subcommands over the engine, `propose` for agents, and
//! `demo`. JSON out with `--json`; exit codes in [`exit`].

pub mod propose_args;
