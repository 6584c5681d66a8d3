//! The labelled corpus in `fixtures/scan_corpus/cases.jsonl`: precision and recall per
//! category under the public policy (a category counts as found when a `block` or `warn`
//! finding of it is reported), and no `block` finding on clean cases. Bars (issue 4):
//! credentials precision and recall ≥ 0.99, home paths recall ≥ 0.98, transcripts and raw
//! logs recall ≥ 0.95.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use writegate::scan::{Policy, scan_json, scan_text};

#[test]
fn corpus_precision_and_recall() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scan_corpus/cases.jsonl");
    let text = std::fs::read_to_string(path).expect("corpus");
    let mut tp: BTreeMap<String, usize> = BTreeMap::new();
    let mut fp: BTreeMap<String, usize> = BTreeMap::new();
    let mut fnn: BTreeMap<String, usize> = BTreeMap::new();
    let mut clean_blocks = Vec::new();
    let mut misses = Vec::new();
    let mut false_alarms = Vec::new();
    let mut cases = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("case json");
        cases += 1;
        let id = case["id"].as_str().unwrap_or("?").to_owned();
        let expect: BTreeSet<String> = case["expect"]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
            .unwrap_or_default();
        let mut findings = Vec::new();
        match case["kind"].as_str() {
            Some("json") => scan_json(&case["input"], "", Policy::Public, &mut findings),
            _ => scan_text(case["input"].as_str().unwrap_or(""), "/", Policy::Public, &mut findings),
        }
        let found: BTreeSet<String> =
            findings.iter().filter(|f| f.severity != "info").map(|f| f.category.clone()).collect();
        if expect.is_empty() && findings.iter().any(|f| f.severity == "block") {
            clean_blocks.push(format!(
                "{id}: {:?}",
                findings.iter().filter(|f| f.severity == "block").map(|f| &f.rule_id).collect::<Vec<_>>()
            ));
        }
        for c in expect.union(&found) {
            match (expect.contains(c), found.contains(c)) {
                (true, true) => *tp.entry(c.clone()).or_default() += 1,
                (false, true) => {
                    *fp.entry(c.clone()).or_default() += 1;
                    false_alarms.push(format!(
                        "{id} {c}: {:?}",
                        findings.iter().filter(|f| &f.category == c).map(|f| &f.rule_id).collect::<Vec<_>>()
                    ));
                }
                (true, false) => {
                    *fnn.entry(c.clone()).or_default() += 1;
                    misses.push(format!("{id} {c}"));
                }
                (false, false) => {}
            }
        }
    }
    let mut report = format!("{cases} cases\ncategory          TP   FP   FN  precision  recall\n");
    let cats: BTreeSet<&String> = tp.keys().chain(fp.keys()).chain(fnn.keys()).collect();
    let mut scores = BTreeMap::new();
    for c in cats {
        let (t, f, n) =
            (tp.get(c).copied().unwrap_or(0), fp.get(c).copied().unwrap_or(0), fnn.get(c).copied().unwrap_or(0));
        let p = if t + f == 0 { 1.0 } else { t as f64 / (t + f) as f64 };
        let r = if t + n == 0 { 1.0 } else { t as f64 / (t + n) as f64 };
        report += &format!("{c:<16} {t:>4} {f:>4} {n:>4}  {p:>9.3}  {r:>6.3}\n");
        scores.insert(c.clone(), (p, r));
    }
    eprintln!(
        "{report}\nmisses: {misses:#?}\nfalse alarms: {false_alarms:#?}\nclean cases with a block finding: {clean_blocks:#?}"
    );
    let get = |c: &str| scores.get(c).copied().unwrap_or((1.0, 1.0));
    assert!(clean_blocks.is_empty(), "clean payloads must have no block finding");
    assert!(get("credentials").0 >= 0.99 && get("credentials").1 >= 0.99, "credentials {:?}", get("credentials"));
    assert!(get("local_paths").1 >= 0.98, "local_paths {:?}", get("local_paths"));
    assert!(get("transcripts").1 >= 0.95, "transcripts {:?}", get("transcripts"));
    assert!(get("raw_tool_output").1 >= 0.95, "raw_tool_output {:?}", get("raw_tool_output"));
}
