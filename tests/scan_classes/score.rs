//! Scoring of [`super`]: each labelled case judged as `writegate scan` judges a file, and
//! the per-class counts (recall, precision, false blocks).

use serde_json::Value;
use std::collections::BTreeMap;
use writegate::scan::{Policy, scan_json, scan_text};
use writegate::wire::Finding;

/// One class's counts.
#[derive(Default, Debug, Clone, Copy)]
pub(super) struct Score {
    pub(super) positives: usize,
    pub(super) caught: usize,
    pub(super) clean: usize,
    pub(super) clean_flagged: usize,
    pub(super) false_blocks: usize,
}

impl Score {
    pub(super) fn recall(&self) -> f64 {
        if self.positives == 0 { 1.0 } else { self.caught as f64 / self.positives as f64 }
    }

    pub(super) fn precision(&self) -> f64 {
        let flagged = self.caught + self.clean_flagged;
        if flagged == 0 { 1.0 } else { self.caught as f64 / flagged as f64 }
    }
}

/// What one case gave: its class, whether it was judged right, and a line for the report.
struct Outcome {
    class: String,
    expect: String,
    right: bool,
    flagged: bool,
    blocked: bool,
    line: String,
}

fn findings_of(case: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    match case["kind"].as_str() {
        Some("json") => scan_json(&case["input"], "", Policy::Public, &mut out),
        _ => scan_text(case["input"].as_str().unwrap_or(""), "/", Policy::Public, &mut out),
    }
    out
}

fn judge(case: &Value) -> Outcome {
    let id = case["id"].as_str().unwrap_or("?");
    let expect = case["expect"].as_str().unwrap_or("?").to_owned();
    let findings = findings_of(case);
    let blocked = findings.iter().any(|f| f.severity == "block");
    let flagged = blocked || findings.iter().any(|f| f.severity == "warn");
    let right = match expect.as_str() {
        "block" => blocked,
        "warn" => flagged,
        _ => !blocked,
    };
    let rules: Vec<String> =
        findings.iter().filter(|f| f.severity != "info").map(|f| format!("{}:{}", f.rule_id, f.severity)).collect();
    Outcome {
        class: case["class"].as_str().unwrap_or("?").to_owned(),
        expect,
        right,
        flagged,
        blocked,
        line: format!("{id} ({}) -> {rules:?}", case["note"].as_str().unwrap_or("")),
    }
}

/// Scores every case of `file`; the per-class table, the wrong cases, and the scores.
pub(super) fn score(file: &str) -> (String, Vec<String>, BTreeMap<String, Score>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scan_corpus/classes").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut scores: BTreeMap<String, Score> = BTreeMap::new();
    let mut wrong = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{file} line {}: {e}", n + 1));
        assert!(
            matches!(case["expect"].as_str(), Some("block" | "warn" | "clean")),
            "{file} line {}: expect must be block, warn or clean",
            n + 1
        );
        let o = judge(&case);
        let s = scores.entry(o.class.clone()).or_default();
        if o.expect == "clean" {
            s.clean += 1;
            s.clean_flagged += usize::from(o.flagged);
            s.false_blocks += usize::from(o.blocked);
        } else {
            s.positives += 1;
            s.caught += usize::from(o.right);
        }
        if !o.right {
            wrong.push(format!("missed {} {}", o.expect, o.line));
        } else if o.expect == "clean" && o.flagged {
            wrong.push(format!("warned on clean {}", o.line));
        }
    }
    let mut table =
        format!("{file}\nclass                positives caught recall  clean flagged false_blocks precision\n");
    let mut total = Score::default();
    for (class, s) in &scores {
        table += &format!(
            "{class:<20} {:>9} {:>6} {:>6.3} {:>6} {:>7} {:>12} {:>9.3}\n",
            s.positives,
            s.caught,
            s.recall(),
            s.clean,
            s.clean_flagged,
            s.false_blocks,
            s.precision()
        );
        total.positives += s.positives;
        total.caught += s.caught;
        total.clean += s.clean;
        total.clean_flagged += s.clean_flagged;
        total.false_blocks += s.false_blocks;
    }
    table += &format!(
        "{:<20} {:>9} {:>6} {:>6.3} {:>6} {:>7} {:>12} {:>9.3}\n",
        "all",
        total.positives,
        total.caught,
        total.recall(),
        total.clean,
        total.clean_flagged,
        total.false_blocks,
        total.precision()
    );
    (table, wrong, scores)
}
