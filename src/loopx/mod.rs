//! LoopX 0.5.4 formats: registry, active-state Markdown, todo edits, leases, the lock
//! protocol, and revision / idempotency hashing. Terminal-free and UI-free.

pub mod edit;
pub mod effect_lock;
pub mod hash;
pub mod lease;
pub mod lock;
pub mod metadata;
pub mod packet;
pub mod pytext;
pub mod registry;
pub mod runs;
pub mod state;
