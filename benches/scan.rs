//! Boundary-scan speed (issue 4), release mode: `cargo bench --bench scan`.
//! - a 1 MB ASCII payload, cold (first call: automata built) and warm (median of 30);
//! - a 1 MB CJK-heavy payload, warm;
//! - throughput against `rg --no-unicode -U` running the same patterns over the same bytes
//!   (a 32 MB file so process start-up is noise), when ripgrep is installed; the scan splits
//!   texts of 4 MiB or more over two threads, so it is timed that way and on one thread.
//!
//! Prints the figures; asserts nothing.

use writegate::scan::{Policy, rules::RULES, scan_text};

fn ascii_payload(size: usize) -> String {
    let chunks = [
        "- [ ] [P2] Refresh the benchmark table and record the result in the progress ledger\n",
        "  <!-- loopx:todo todo_id=todo_37d901fb5153 status=open action_kind=rebuild_score updated_at=2026-11-29T12:57:39%2B00:00 -->\n",
        "The run finished in 41 s; see docs/benchmarks.md for the full table and the method.\n",
        "{\"goal_id\": \"demo-goal\", \"classification\": \"state_refreshed\", \"health_check\": \"ok\"}\n",
        "Rotate the API token every 90 days; never paste a password into a todo note.\n",
        "Timings: p50 12 ms, p95 31 ms, max 48 ms over 10,000 requests at 200 rps.\n",
    ];
    let mut s = String::with_capacity(size + 200);
    let mut i = 0;
    while s.len() < size {
        s.push_str(chunks[i % chunks.len()]);
        if i % 997 == 0 {
            s.push_str("deploy note: token=ghp_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2gU8 was rotated\n");
        }
        i += 1;
    }
    s
}

fn cjk_payload(size: usize) -> String {
    let line = "每周摘要：完成了三个任务，还有一个待审核。提交审核报告之前请先运行测试（cargo test）。\n";
    let mut s = String::with_capacity(size + 200);
    while s.len() < size {
        s.push_str(line);
    }
    s
}

mod common;
use common::{median_of, ms, time};

fn main() {
    let ascii = ascii_payload(1 << 20);
    let cjk = cjk_payload(1 << 20);
    let mut out = Vec::new();
    let cold = time(|| scan_text(&ascii, "/", Policy::Public, &mut out));
    println!("1 MB ASCII, cold (automata built on first use): {:>7.2} ms, {} findings", ms(cold), out.len());
    let warm = median_of(30, || {
        let mut o = Vec::new();
        scan_text(&ascii, "/", Policy::Public, &mut o);
    });
    println!(
        "1 MB ASCII, warm (median of 30):                {:>7.2} ms  ({:.0} MB/s)",
        ms(warm),
        1.0 / warm.as_secs_f64()
    );
    let warm_cjk = median_of(30, || {
        let mut o = Vec::new();
        scan_text(&cjk, "/", Policy::Public, &mut o);
    });
    println!(
        "1 MB CJK, warm (median of 30):                  {:>7.2} ms  ({:.0} MB/s; {:.2}x the ASCII speed)",
        ms(warm_cjk),
        1.0 / warm_cjk.as_secs_f64(),
        warm.as_secs_f64() / warm_cjk.as_secs_f64()
    );

    // Where the time goes: each rule's regex alone over the ASCII payload.
    let mut per_rule: Vec<(f64, &str)> = RULES
        .iter()
        .map(|r| {
            let re = regex::bytes::Regex::new(&format!("(?-u){}", r.pattern)).expect("rule");
            let d = median_of(5, || {
                let _ = re.find_iter(ascii.as_bytes()).count();
            });
            (ms(d), r.id)
        })
        .collect();
    per_rule.sort_by(|a, b| b.0.total_cmp(&a.0));
    let prefilter_time = median_of(10, || {
        let _ = writegate::scan::prefilter::windows(ascii.as_bytes());
    });
    println!(
        "prefilter alone ({} Teddy stems, byte and line-start gates) over 1 MB ASCII: {:.2} ms",
        writegate::scan::prefilter::STEMS.len(),
        ms(prefilter_time)
    );
    println!(
        "slowest rules alone over 1 MB ASCII: {}",
        per_rule.iter().take(6).map(|(t, id)| format!("{id} {t:.2} ms")).collect::<Vec<_>>().join(", ")
    );

    let prof = writegate::scan::profile_rules(&ascii);
    println!(
        "scan cost by rule (windows, bytes, µs): {}",
        prof.iter().take(8).map(|(id, w, b, us)| format!("{id} {w}/{b}/{us}")).collect::<Vec<_>>().join(", ")
    );

    // Against ripgrep on the same patterns and bytes.
    let big: String = ascii.repeat(32);
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("payload.txt");
    std::fs::write(&file, &big).expect("write");
    let ours = median_of(5, || {
        let mut o = Vec::new();
        scan_text(&big, "/", Policy::Public, &mut o);
    });
    println!(
        "32 MB, writegate scan (median of 5):            {:>7.1} ms  ({:.0} MB/s; two threads)",
        ms(ours),
        32.0 / ours.as_secs_f64()
    );
    let ours_one = median_of(5, || {
        let mut o = Vec::new();
        writegate::scan::scan_text_one_thread(&big, "/", Policy::Public, &mut o);
    });
    println!(
        "32 MB, writegate scan on one thread (median of 5): {:>7.1} ms  ({:.0} MB/s)",
        ms(ours_one),
        32.0 / ours_one.as_secs_f64()
    );
    let mut args: Vec<String> = vec!["--no-unicode".into(), "-U".into(), "-c".into()];
    for r in RULES.iter() {
        args.push("-e".into());
        args.push(r.pattern.into());
    }
    args.push(file.display().to_string());
    let rg = std::process::Command::new("rg").args(&args).output();
    match rg {
        Ok(o) if o.status.code().is_some_and(|c| c <= 1) => {
            let theirs = median_of(5, || {
                let _ = std::process::Command::new("rg").args(&args).output();
            });
            println!(
                "32 MB, rg --no-unicode -U, same {} patterns:    {:>7.1} ms  ({:.0} MB/s)",
                RULES.len(),
                ms(theirs),
                32.0 / theirs.as_secs_f64()
            );
            println!(
                "writegate / rg throughput: {:.2}x (two threads), {:.2}x (one thread)",
                theirs.as_secs_f64() / ours.as_secs_f64(),
                theirs.as_secs_f64() / ours_one.as_secs_f64()
            );
        }
        Ok(o) => println!("rg failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => println!("rg not available ({e}); install ripgrep to compare"),
    }
}
