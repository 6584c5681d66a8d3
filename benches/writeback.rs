//! Writeback previews at volume (release build; `cargo bench --bench writeback`): the demo
//! workspace plus N copies of a passing handoff writeback (distinct keys) in one goal.
//! Reports the time to prepare every item of the goal (preview: criteria, scan, inbox
//! has-key), the median single preview, and apply latency as the runtime's metadata.jsonl
//! and the goal's runs/index.jsonl grow.

use std::path::Path;
use std::time::{Duration, Instant};
use writegate::engine::{Clock, Decision, Engine};
use writegate::loopx::registry::Locator;

const ITEMS: usize = 1000;
const APPLIES: usize = 300;

fn engine(reg: &Path) -> Engine {
    let loc = Locator { registry: Some(reg.to_owned()), ..Locator::from_env(None, None) };
    Engine::open(&loc, Clock::System, "bench".into()).expect("engine")
}

mod common;
use common::{median, ms};

fn main() {
    let dir = tempfile::tempdir().expect("tmp");
    let reg = writegate::demo::build(&dir.path().join("ws"), "bench").expect("demo");
    let e = engine(&reg);
    let inbox = e.gate("demo-goal").expect("gate").inbox();
    let doc = writegate::demo::writebacks().into_iter().find(|(n, _)| *n == "writeback-handoff").expect("doc").1;
    for i in 0..ITEMS {
        let mut d = doc.clone();
        d["writeback"]["idempotency_key"] = serde_json::json!(format!("demo-goal:bench:{i:05}"));
        d["writeback"]["payload"]["summary"] =
            serde_json::json!(format!("continue the validated next action, step {i}"));
        std::fs::write(inbox.join(format!("wb-bench-{i:05}.json")), d.to_string()).expect("write");
    }
    let start = Instant::now();
    let prepared = e.prepared(Some("demo-goal"));
    let all = start.elapsed();
    let ready = prepared.iter().filter(|p| p.item.writeback.is_some() && p.predicted.name() == "ready").count();
    println!("prepare all {} items of demo-goal ({ready} ready writebacks): {:>8.1} ms", prepared.len(), ms(all));
    let snap = e.goal_snapshot("demo-goal");
    let items = e.items(Some("demo-goal"));
    let wb: Vec<_> = items.iter().filter(|i| i.id.starts_with("wb-bench-")).collect();
    let singles: Vec<Duration> = wb
        .iter()
        .take(200)
        .map(|i| {
            let s = Instant::now();
            let _ = e.prepare_in(i, &snap);
            s.elapsed()
        })
        .collect();
    println!("one writeback preview (median of 200):            {:>8.3} ms", ms(median(singles)));
    let apply = Decision::apply();
    let mut times = Vec::new();
    for i in wb.iter().take(APPLIES) {
        let s = Instant::now();
        let out = e.decide(&format!("demo-goal/{}", i.id), &apply, None).expect("apply");
        times.push(s.elapsed());
        assert_eq!(out.status.as_str(), "applied", "{}", out.message);
    }
    let first: Vec<Duration> = times[..50].to_vec();
    let last: Vec<Duration> = times[times.len() - 50..].to_vec();
    println!(
        "apply (median): first 50 {:.2} ms, last 50 {:.2} ms ({APPLIES} reflections in metadata.jsonl by then)",
        ms(median(first)),
        ms(median(last))
    );
    println!("apply total for {APPLIES}: {:.0} ms", ms(times.iter().sum()));
    // Previews again, now that the runtime's metadata.jsonl and the run index have grown.
    let start = Instant::now();
    let prepared = e.prepared(Some("demo-goal"));
    println!(
        "prepare all {} items again ({APPLIES} reflections, {APPLIES} more run rows): {:>8.1} ms",
        prepared.len(),
        ms(start.elapsed())
    );
}
