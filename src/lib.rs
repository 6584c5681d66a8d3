//! writegate: gated writes to LoopX goal state. The library is terminal-free: `loopx`
//! (formats), `gate` (the gate folder), `engine` (prepare → preview → apply → record),
//! `scan`, `diff`, `wire` (versioned JSON shapes), `cli`.

pub mod cli;
pub mod demo;
pub mod diff;
pub mod engine;
pub mod gate;
pub mod json;
pub mod loopx;
pub mod scan;
pub mod textsafe;
pub mod wire;
