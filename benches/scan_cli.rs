//! Whole-command boundary-scan speed and memory (issue 16), release mode:
//! `cargo bench --bench scan_cli`.
//!
//! Writes about 32 MB of realistic mixed text (English prose with names and figures, JSON
//! records, Rust and Python code, service logs, Chinese and Japanese prose, Markdown todos,
//! and now and then a token, a home path or a transcript turn), then runs, paired and
//! alternated, one core each (`taskset -c 0`, which the scan sees as one core and so scans on
//! one thread):
//! - `writegate scan FILE` (the release binary users run, its findings printed to a pipe);
//! - `rg --no-unicode -U -c -e <every rule pattern> FILE` (ripgrep from PATH, or installed
//!   with pip into `target/tmp/ripgrep-venv`).
//!
//! Prints the medians, the median of the per-round ratios, peak RSS of each process (its
//! `ru_maxrss`, read by a Python wrapper) against the file's size, and the machine load.
//! Asserts nothing. With `SCAN_CLI_WRITE_TO=PATH` it only writes the text there (to profile).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{load, median, ms};

/// Bytes of mixed text written.
const SIZE: usize = 32 << 20;
/// Paired rounds.
const ROUNDS: usize = 9;

/// A small deterministic generator (64-bit LCG, high bits): the text is the same every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as usize
    }
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.next() % v.len()]
    }
}

const WORDS: &[&str] = &[
    "the",
    "review",
    "of",
    "release",
    "notes",
    "shows",
    "that",
    "latency",
    "improved",
    "after",
    "we",
    "moved",
    "cache",
    "into",
    "worker",
    "pool",
    "and",
    "budget",
    "for",
    "quarter",
    "was",
    "approved",
    "by",
    "team",
    "migration",
    "finished",
    "on",
    "schedule",
    "while",
    "two",
    "regions",
    "stayed",
    "read",
    "only",
    "during",
    "window",
    "customers",
    "reported",
    "fewer",
    "timeouts",
    "our",
    "plan",
    "is",
    "to",
    "retire",
    "old",
    "endpoint",
    "next",
    "month",
    "benchmark",
    "table",
    "records",
    "median",
    "throughput",
    "per",
    "node",
];
const NAMES: &[&str] = &["Alice", "Bob", "Carmen", "Dmitri", "Eun-ji", "Farah", "Gustavo", "Hiro", "Ines", "Jonas"];
const CJK: &[&str] = &[
    "本周完成了缓存迁移，延迟下降了百分之十二。",
    "下一步是整理基准测试表并提交审核报告。",
    "会议记录已经上传，请各位在周五之前确认。",
    "今週はリリースノートを更新し、テストを追加しました。",
    "次の作業はベンチマークの結果をまとめることです。",
    "设计文档中的接口说明需要补充错误码。",
];
const LEVELS: &[&str] = &["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"];
const SERVICES: &[&str] = &["api", "worker", "scheduler", "billing", "search", "gateway"];

fn prose(g: &mut Lcg, s: &mut String) {
    for _ in 0..3 + g.next() % 5 {
        let n = 8 + g.next() % 14;
        let mut first = true;
        for _ in 0..n {
            let w = if g.next().is_multiple_of(9) { g.pick(NAMES) } else { g.pick(WORDS) };
            if first {
                let mut c = w.chars();
                if let Some(h) = c.next() {
                    s.extend(h.to_uppercase());
                    s.push_str(c.as_str());
                }
                first = false;
            } else {
                s.push(' ');
                s.push_str(w);
            }
            if g.next().is_multiple_of(17) {
                s.push_str(&format!(" {}.{} ms", g.next() % 500, g.next() % 10));
            }
        }
        s.push_str(". ");
    }
    s.push_str("\n\n");
}

fn json_records(g: &mut Lcg, s: &mut String) {
    for _ in 0..4 + g.next() % 8 {
        s.push_str(&format!(
            "{{\"id\": \"req-{:08x}\", \"service\": \"{}\", \"status\": {}, \"duration_ms\": {}, \"owner\": \"{}\", \"tags\": [\"{}\", \"{}\"]}}\n",
            g.next(),
            g.pick(SERVICES),
            [200, 200, 201, 404, 500][g.next() % 5],
            g.next() % 2000,
            g.pick(NAMES),
            g.pick(WORDS),
            g.pick(WORDS)
        ));
    }
}

fn code(g: &mut Lcg, s: &mut String) {
    let name = format!("{}_{}", g.pick(WORDS), g.pick(WORDS));
    if g.next().is_multiple_of(2) {
        s.push_str(&format!(
            "pub fn {name}(items: &[Item], limit: usize) -> Result<Vec<Item>, Error> {{\n    let mut out = Vec::with_capacity(limit);\n    for item in items.iter().take(limit) {{\n        if item.weight > {} {{\n            out.push(item.clone());\n        }}\n    }}\n    Ok(out)\n}}\n\n",
            g.next() % 100
        ));
    } else {
        s.push_str(&format!(
            "def {name}(rows, limit={}):\n    \"\"\"Return the heaviest rows.\"\"\"\n    kept = [r for r in rows if r.weight > {}]\n    kept.sort(key=lambda r: r.weight, reverse=True)\n    return kept[:limit]\n\n",
            g.next() % 50,
            g.next() % 100
        ));
    }
}

fn logs(g: &mut Lcg, s: &mut String) {
    for _ in 0..3 + g.next() % 10 {
        s.push_str(&format!(
            "2026-11-{:02}T{:02}:{:02}:{:02}.{:03}Z {} [{}] {} {} {} in {} ms\n",
            1 + g.next() % 28,
            g.next() % 24,
            g.next() % 60,
            g.next() % 60,
            g.next() % 1000,
            g.pick(LEVELS),
            g.pick(SERVICES),
            g.pick(WORDS),
            g.pick(WORDS),
            g.pick(WORDS),
            g.next() % 900
        ));
    }
}

fn cjk(g: &mut Lcg, s: &mut String) {
    for _ in 0..2 + g.next() % 6 {
        s.push_str(g.pick(CJK));
    }
    s.push('\n');
}

fn todos(g: &mut Lcg, s: &mut String) {
    for _ in 0..2 + g.next() % 4 {
        s.push_str(&format!(
            "- [ ] [P{}] {} the {} {} and record the result\n  <!-- loopx:todo todo_id=todo_{:012x} status=open updated_at=2026-11-29T12:57:39%2B00:00 -->\n",
            g.next() % 4,
            g.pick(&["Refresh", "Check", "Rebuild", "Measure"]),
            g.pick(WORDS),
            g.pick(WORDS),
            g.next()
        ));
    }
}

/// Something the scan exists to find, a few times per megabyte.
fn leak(g: &mut Lcg, s: &mut String) {
    match g.next() % 4 {
        0 => s.push_str(&format!("deploy note: token=ghp_{:016x}{:016x}Ab12 was rotated\n", g.next(), g.next())),
        1 => s.push_str(&format!("see /home/{}/work/notes-{}.md for the draft\n", g.pick(NAMES).to_lowercase(), g.next() % 90)),
        2 => s.push_str("user: can you check the failing test?\nassistant: The failure is in the cache layer.\n"),
        _ => s.push_str("Traceback (most recent call last):\n  File \"app.py\", line 12, in <module>\n    main()\nValueError: bad input\n"),
    }
}

/// About `size` bytes of mixed text.
fn mixed_text(size: usize) -> String {
    let mut g = Lcg(0x5eed_1234);
    let mut s = String::with_capacity(size + 4096);
    while s.len() < size {
        match g.next() % 100 {
            0..=27 => prose(&mut g, &mut s),
            28..=44 => json_records(&mut g, &mut s),
            45..=59 => code(&mut g, &mut s),
            60..=74 => logs(&mut g, &mut s),
            75..=86 => cjk(&mut g, &mut s),
            87..=98 => todos(&mut g, &mut s),
            _ => leak(&mut g, &mut s),
        }
    }
    s
}

/// ripgrep: from PATH, else installed with pip into `target/tmp/ripgrep-venv`.
fn ripgrep() -> Option<PathBuf> {
    if Command::new("rg").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return Some(PathBuf::from("rg"));
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tmp/ripgrep-venv");
    let rg = venv.join("bin/rg");
    if !rg.exists() {
        eprintln!("installing ripgrep with pip into {}", venv.display());
        let ok = Command::new("python3").arg("-m").arg("venv").arg(&venv).status().is_ok_and(|s| s.success())
            && Command::new(venv.join("bin/pip"))
                .args(["install", "-q", "ripgrep"])
                .status()
                .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("could not install ripgrep (no registry?)");
            return None;
        }
    }
    Some(rg)
}

/// `args` pinned to core 0.
fn one_core(args: &[String]) -> Command {
    let mut c = Command::new("taskset");
    c.arg("-c").arg("0").args(args).stdout(Stdio::piped()).stderr(Stdio::null());
    c
}

/// How long `cmd` takes, its output read to the end; the output's size in bytes.
fn run(args: &[String]) -> (Duration, usize) {
    let s = Instant::now();
    let out = one_core(args).output().expect("spawn");
    (s.elapsed(), out.stdout.len())
}

const PEAK_RSS: &str = r"
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
";

/// Peak RSS of `args` run on core 0, in MiB.
fn peak_rss_mib(args: &[String]) -> f64 {
    let out =
        Command::new("python3").args(["-c", PEAK_RSS, "taskset", "-c", "0"]).args(args).output().expect("python3");
    String::from_utf8_lossy(&out.stdout).trim().parse::<f64>().unwrap_or(f64::NAN) / 1024.0
}

fn main() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("mixed.txt");
    let text = mixed_text(SIZE);
    std::fs::write(&file, &text).expect("write");
    let mib = text.len() as f64 / 1_048_576.0;
    if let Some(keep) = std::env::var_os("SCAN_CLI_WRITE_TO") {
        std::fs::write(&keep, &text).expect("write SCAN_CLI_WRITE_TO");
        println!("wrote the mixed text to {}", Path::new(&keep).display());
        return;
    }
    drop(text);
    let path = file.display().to_string();
    let ours = vec![env!("CARGO_BIN_EXE_writegate").to_owned(), "scan".into(), path.clone()];
    let Some(rg) = ripgrep() else { return };
    let mut theirs = vec![rg.display().to_string(), "--no-unicode".into(), "-U".into(), "-c".into()];
    for r in writegate::scan::rules::RULES.iter() {
        theirs.push("-e".into());
        theirs.push(r.pattern.into());
    }
    theirs.push(path.clone());
    let probe = one_core(&theirs).output().expect("rg");
    if probe.status.code().is_none_or(|c| c > 1) {
        println!("rg refused the rule patterns: {}", String::from_utf8_lossy(&probe.stderr));
        return;
    }
    let (_, out_bytes) = run(&ours);
    let findings = Command::new(&ours[0])
        .args(&ours[1..])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).lines().last().unwrap_or("").to_owned());
    println!(
        "{mib:.1} MiB mixed text; writegate prints {out_bytes} bytes ({}); rg counts {} matching lines",
        findings.unwrap_or_default(),
        String::from_utf8_lossy(&probe.stdout).trim()
    );
    let load_before = load();
    let (mut a, mut b, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let (t_ours, t_rg) = if round.is_multiple_of(2) {
            let x = run(&ours).0;
            (x, run(&theirs).0)
        } else {
            let y = run(&theirs).0;
            (run(&ours).0, y)
        };
        a.push(t_ours);
        b.push(t_rg);
        ratios.push(t_rg.as_secs_f64() / t_ours.as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    let (ma, mb) = (median(a), median(b));
    println!(
        "one core, median of {ROUNDS} paired rounds: writegate scan {:.1} ms ({:.0} MB/s)   rg --no-unicode -U -c, same {} patterns {:.1} ms ({:.0} MB/s)",
        ms(ma),
        mib / ma.as_secs_f64(),
        writegate::scan::rules::RULES.len(),
        ms(mb),
        mib / mb.as_secs_f64()
    );
    println!(
        "rg / writegate: {:.2}x (median of per-round ratios; range {:.2}-{:.2})   load before {load_before}, after {}",
        ratios[ratios.len() / 2],
        ratios[0],
        ratios[ratios.len() - 1],
        load()
    );
    let (rss_ours, rss_rg) = (peak_rss_mib(&ours), peak_rss_mib(&theirs));
    println!(
        "peak RSS: writegate scan {rss_ours:.1} MiB ({:.2}x the file)   rg {rss_rg:.1} MiB ({:.2}x)",
        rss_ours / mib,
        rss_rg / mib
    );
}
