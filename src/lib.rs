//! writegate: gated writes to LoopX goal state. The library is terminal-free: `loopx`
//! (formats), `gate` (the gate folder), `engine` (prepare → preview → apply → record),
//! `scan`, `diff`, `wire` (versioned JSON shapes), `cli`.

pub mod cli;
pub mod config;
pub mod demo;
pub mod diff;
pub mod engine;
pub mod gate;
pub mod json;
pub mod loopx;
pub mod loopx2;
pub mod scan;
pub mod textsafe;
pub mod tui;
pub mod watch;
pub mod wire;

/// An error with its whole `source()` chain, `": "`-joined (for messages stored as text).
#[must_use]
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cur = s.source();
    }
    out
}
