//! Operator releases of expired hard leases (LoopX 0.5.x lease files): the release itself
//! ([`release`]) and its crash recovery ([`recover`]).

mod recover;
mod release;

pub(in crate::engine) use recover::release_marker_path;
