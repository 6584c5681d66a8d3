//! Timing helpers shared by the benches.
#![allow(dead_code)]

pub mod pty;

use std::time::{Duration, Instant};

/// How long `f` takes once.
pub fn time<F: FnMut()>(mut f: F) -> Duration {
    let s = Instant::now();
    f();
    s.elapsed()
}

/// The median of `v` (upper middle for an even count).
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The median of `n` timings of `f`.
pub fn median_of<F: FnMut()>(n: usize, mut f: F) -> Duration {
    median((0..n).map(|_| time(&mut f)).collect())
}
