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

/// The machine's load averages (1, 5, 15 min), printed beside each figure.
pub fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// About `bytes` of text: every third line blank, the others `<word> line <i> …` (two such
/// texts of different words share only their blank lines: a near-disjoint rewrite).
pub fn near_disjoint(word: &str, bytes: usize) -> String {
    let mut out = String::new();
    let mut i = 0;
    while out.len() < bytes {
        if i % 3 == 0 {
            out.push('\n');
        } else {
            out.push_str(&format!("{word} line {i} of the generated text, {}\n", i * 7919 % 100_003));
        }
        i += 1;
    }
    out
}

/// `seed` (a state) with about 1 MB of generated todos before its Next Action.
pub fn big_state(seed: &str) -> String {
    state_of_size(seed, 1_000_000)
}

/// `seed` (a state) with about `bytes` of generated todos (a checkbox line and a metadata
/// line each, 178 bytes) before its Next Action.
pub fn state_of_size(seed: &str, bytes: usize) -> String {
    let at = seed.find("## Next Action").unwrap_or(seed.len());
    let mut block = String::with_capacity(bytes + 200);
    let mut n = 0;
    while block.len() < bytes {
        block.push_str(&format!("- [ ] [P2] Generated todo number {n} with enough words to look like a real one\n  <!-- loopx:todo todo_id=todo_gen{n:06} status=open updated_at=2026-11-29T12:59:13%2B00:00 -->\n"));
        n += 1;
    }
    format!("{}{block}\n{}", &seed[..at], &seed[at..])
}
