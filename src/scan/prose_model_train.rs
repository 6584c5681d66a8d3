//! The trainer of [`super`]'s weights and its checks. `WG_TRAIN=1 cargo test --release
//! --lib prose_model::train::committed` writes `src/scan/prose_model.bin`; without it, the
//! same test fails when the committed file is not exactly what the corpus trains.
//!
//! Training data: every labelled case of `fixtures/scan_corpus/` but the parts in
//! [`HELD_BACK`] (a JSON case is its strings that can hold prose, one per line, as the scan
//! reads them); a
//! private document (`class: private_document`, `expect: block`) is a positive, every other
//! case a negative; the LoopX samples' files are negatives too (state files and their
//! prose). (Not this README: an edit to it would change the weights.)

use super::{BUCKETS, Feature, MIN_BYTES, MIN_FEATURES, THRESHOLD, features, with_signals};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Parts never trained on: blind held-out parts and the public look-alikes' report half.
const HELD_BACK: &[&str] = &["held_out_25.jsonl", "clean_public_held_out.jsonl"];

/// Passes over the data, step size, L2 penalty.
const EPOCHS: usize = 12;
const STEP: f64 = 0.25;
const L2: f64 = 1e-7;

/// One training text: its part (file name), label, features and an id for reports.
pub(super) struct Example {
    pub part: String,
    pub id: String,
    pub positive: bool,
    pub features: Vec<Feature>,
    /// Labelled clean (must not block).
    pub clean: bool,
    /// Whether the scan blocks it without this model (labelled cases only).
    pub blocked_otherwise: bool,
    /// Whether it reads as a public text (the model is then not asked).
    pub public: bool,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The text the model judges for a case: a text case's input; a JSON case's strings that
/// can hold prose, one per line (as `dossier::find_in_strings` gives them).
pub(super) fn case_text(case: &Value) -> String {
    match case["input"].as_str() {
        Some(s) if case["kind"].as_str() != Some("json") => s.to_owned(),
        _ => super::super::dossier::joined_strings(&case["input"]).map(|(_, prose)| prose).unwrap_or_default(),
    }
}

fn example(part: &str, id: &str, positive: bool, text: &str) -> Option<Example> {
    let range = MIN_BYTES..=super::super::dossier::MAX_BYTES;
    let words = features(text);
    (range.contains(&text.trim().len()) && words.len() >= MIN_FEATURES).then(|| Example {
        part: part.to_owned(),
        id: id.to_owned(),
        positive,
        features: with_signals(text, &words),
        clean: !positive,
        blocked_otherwise: false,
        public: super::super::dossier::reads_public(text),
    })
}

/// Whether the scan blocks `case` (public policy) on rules other than this model's.
fn blocked_otherwise(case: &Value) -> bool {
    let mut out = Vec::new();
    let policy = super::super::Policy::Public;
    match case["kind"].as_str() {
        Some("json") => super::super::scan_json(&case["input"], "", policy, &mut out),
        _ => super::super::scan_text(case["input"].as_str().unwrap_or(""), "/", policy, &mut out),
    }
    out.iter().any(|f| f.severity == "block" && f.rule_id != super::PRIVATE_PROSE_WEIGHED.id)
}

/// Every labelled case of one JSONL part that the model would judge.
pub(super) fn part_examples(file: &Path) -> Vec<Example> {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_owned();
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| {
            let case: Value = serde_json::from_str(l).expect("corpus line parses");
            let positive = case["class"] == "private_document" && case["expect"] == "block";
            let mut e = example(&name, case["id"].as_str().unwrap_or("?"), positive, &case_text(&case))?;
            e.clean = case["expect"] == "clean";
            e.blocked_otherwise = blocked_otherwise(&case);
            Some(e)
        })
        .collect()
}

/// The training set, in a fixed order: the labelled parts (sorted by name) then the LoopX
/// samples' files.
pub(super) fn training_set() -> Vec<Example> {
    let classes = root().join("fixtures/scan_corpus/classes");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&classes)
        .expect("classes folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .filter(|p| !HELD_BACK.iter().any(|h| p.ends_with(h)))
        .collect();
    files.sort();
    files.push(root().join("fixtures/scan_corpus/cases.jsonl"));
    let mut out: Vec<Example> = files.iter().flat_map(|f| part_examples(f)).collect();
    let mut samples = vec![root().join("fixtures/samples")];
    while let Some(dir) = samples.pop() {
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(&dir).expect("samples").filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                samples.push(p);
            } else if let Ok(text) = std::fs::read_to_string(&p) {
                out.extend(example("repo", &p.display().to_string(), false, &text));
            }
        }
    }
    out
}

/// Float weights: bias then [`BUCKETS`] slots.
pub(super) struct Trained {
    pub bias: f64,
    pub weights: Vec<f64>,
}

impl Trained {
    pub fn logit(&self, f: &[Feature]) -> f64 {
        let v = value(f);
        self.bias + v * f.iter().map(|x| self.weights[x.slot as usize]).sum::<f64>()
    }
}

/// e^x from additions, multiplications and a power of two only (each exact or correctly
/// rounded by IEEE 754), so training gives the same bits on every machine: the platform's
/// `exp` may differ in the last bit between C libraries, and the committed weights are
/// compared byte for byte. Range reduction by ln 2, then the Taylor series to degree 14
/// (|r| ≤ 0.35; the reduction by k·ln 2 costs up to 1e-13 relative at |x| = 700).
fn exp(x: f64) -> f64 {
    const LN2: f64 = std::f64::consts::LN_2;
    let x = x.clamp(-700.0, 700.0);
    let k = (x / LN2).round();
    let r = x - k * LN2;
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for i in 1..=14 {
        term = term * r / f64::from(i);
        sum += term;
    }
    // k is within ±1010: 2^k is a normal double.
    sum * f64::from_bits(((k as i64 + 1023) as u64) << 52)
}

#[test]
fn the_trainers_exp_matches_the_platforms() {
    for x in [-700.0, -30.5, -2.0, -0.3, 0.0, 1e-9, 0.7, 3.25, 40.0, 700.0] {
        let (ours, theirs) = (exp(x), f64::exp(x));
        assert!((ours - theirs).abs() <= theirs * 1e-12, "{x}: {ours} vs {theirs}");
    }
}

/// Every feature's value: 1/√n over the n features.
fn value(f: &[Feature]) -> f64 {
    1.0 / (f.len().max(1) as f64).sqrt()
}

/// Logistic regression by AdaGrad over `set` in a fixed pseudo-random order per epoch.
pub(super) fn train(set: &[&Example]) -> Trained {
    let mut t = Trained { bias: 0.0, weights: vec![0.0; BUCKETS] };
    let mut squares = vec![1e-8; BUCKETS];
    let mut bias_square = 1e-8;
    let mut order: Vec<usize> = (0..set.len()).collect();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..EPOCHS {
        for i in (1..order.len()).rev() {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            order.swap(i, (seed >> 33) as usize % (i + 1));
        }
        for &i in &order {
            let e = set[i];
            let p = 1.0 / (1.0 + exp(-t.logit(&e.features)));
            let g = p - f64::from(u8::from(e.positive));
            let v = value(&e.features);
            for f in &e.features {
                let s = f.slot as usize;
                let grad = g * v + L2 * t.weights[s];
                squares[s] += grad * grad;
                t.weights[s] -= STEP * grad / squares[s].sqrt();
            }
            bias_square += g * g;
            t.bias -= STEP * g / f64::sqrt(bias_square);
        }
    }
    t
}

/// The committed file's bytes for `t`: bias, unit, one signed byte per slot.
pub(super) fn quantized(t: &Trained) -> Vec<u8> {
    let most = t.weights.iter().fold(0.0f64, |m, w| m.max(w.abs())).max(1e-9);
    let unit = most / 127.0;
    let mut out = Vec::with_capacity(8 + BUCKETS);
    out.extend_from_slice(&(t.bias as f32).to_le_bytes());
    out.extend_from_slice(&(unit as f32).to_le_bytes());
    out.extend(t.weights.iter().map(|w| (w / unit).round().clamp(-127.0, 127.0) as i8 as u8));
    out
}

#[test]
fn committed_weights_are_what_the_corpus_trains() {
    let set = training_set();
    let refs: Vec<&Example> = set.iter().collect();
    let bytes = quantized(&train(&refs));
    let path = root().join("src/scan/prose_model.bin");
    if std::env::var_os("WG_TRAIN").is_some() {
        std::fs::write(&path, &bytes).expect("write weights");
        return;
    }
    assert!(bytes == super::WEIGHTS[..], "{} is not what the corpus trains: WG_TRAIN=1 to retrain", path.display());
}

/// Leave one part out: train on the others, judge the part (the model alone, at
/// [`THRESHOLD`]). What a part the model never saw gets, per part and in all.
#[test]
#[ignore = "a report: WG_LOPO=1 for the per-part table"]
fn leave_one_part_out_report() {
    let set = training_set();
    let mut parts: Vec<&str> = set.iter().map(|e| e.part.as_str()).collect();
    parts.dedup();
    let (mut pos, mut caught, mut neg, mut flagged) = (0, 0, 0, 0);
    let mut logits_neg = Vec::new();
    let mut all = Vec::new();
    for part in &parts {
        let refs: Vec<&Example> = set.iter().filter(|e| e.part != *part).collect();
        let t = train(&refs);
        let (mut p, mut c, mut n, mut f) = (0, 0, 0, 0);
        let (mut both, mut before, mut false_blocks) = (0, 0, 0);
        for e in set.iter().filter(|e| e.part == *part) {
            let l = t.logit(&e.features);
            let hit = l >= f64::from(THRESHOLD) && !e.public;
            if e.positive {
                both += usize::from(hit || e.blocked_otherwise);
                before += usize::from(e.blocked_otherwise);
            }
            if e.clean && hit && !e.blocked_otherwise {
                false_blocks += 1;
            }
            all.push((if e.public { f64::MIN } else { l }, e.positive));
            if e.positive {
                p += 1;
                c += usize::from(hit);
            } else {
                n += 1;
                f += usize::from(hit);
                logits_neg.push((l, e.id.clone()));
                if hit {
                    eprintln!("  false: {part} {} {l:.2}", e.id);
                }
            }
        }
        eprintln!(
            "{part:<30} positives {p:>4} caught {c:>4}  negatives {n:>4} flagged {f:>3} | scan before {before:>4} with model {both:>4}, new false blocks {false_blocks}"
        );
        (pos, caught, neg, flagged) = (pos + p, caught + c, neg + n, flagged + f);
    }
    logits_neg.sort_by(|a, b| b.0.total_cmp(&a.0));
    eprintln!("all: positives {pos} caught {caught}  negatives {neg} flagged {flagged}");
    for t in [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0] {
        let c = all.iter().filter(|(l, p)| *p && *l >= t).count();
        let f = all.iter().filter(|(l, p)| !*p && *l >= t).count();
        eprintln!("threshold {t:.1}: caught {c} flagged {f}");
    }
    eprintln!("highest negatives: {:?}", &logits_neg[..10.min(logits_neg.len())]);
}

/// `find` without its early exit: the model's whole judgement.
fn judged(text: &str) -> bool {
    let words = features(text);
    let range = MIN_BYTES..=super::super::dossier::MAX_BYTES;
    range.contains(&text.trim().len())
        && words.len() >= MIN_FEATURES
        && super::logit(&with_signals(text, &words)) >= THRESHOLD
        && !super::super::dossier::reads_public(text)
}

#[test]
fn the_early_exit_changes_no_answer_on_the_corpus() {
    let classes = root().join("fixtures/scan_corpus/classes");
    let mut n = 0;
    for entry in std::fs::read_dir(classes).expect("classes") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).expect("part");
        for line in text.lines() {
            let case: Value = serde_json::from_str(line).expect("case");
            let text = case_text(&case);
            assert_eq!(super::find(&text).is_some(), judged(&text), "{}", case["id"]);
            n += usize::from(judged(&text));
        }
    }
    assert!(n > 100, "only {n} texts judged private: the check would prove little");
}

#[test]
fn features_skip_state_lines_and_keep_character_offsets() {
    let state = "## Todos\n- [ ] ship the parser <!-- loopx:todo id=t1 -->\nupdated_at: 2026-01-02\n";
    assert!(features(state).is_empty());
    let text = "Résumé: 14.07.1951 — 田中さんの給与は€3,200です。\n> Ça va?";
    let f = features(text);
    let mut slots: Vec<u32> = f.iter().map(|x| x.slot).collect();
    slots.sort_unstable();
    slots.dedup();
    assert_eq!(slots.len(), f.len(), "each slot once");
    // The thread's bitmap is left clear: the same text gives the same features again.
    assert_eq!(features(text), f);
    assert!(f.iter().all(|x| text.is_char_boundary(x.at as usize)));
    // A number's shape is its digits as zeros with the separators kept.
    let date = super::slot(super::kind::NUMBER, b"00.00.0000");
    assert!(f.iter().any(|x| x.slot == date && &text[x.at as usize..x.at as usize + 2] == "14"));
}

#[test]
fn the_rules_example_blocks_and_its_miss_does_not() {
    let rule = &super::PRIVATE_PROSE_WEIGHED;
    let blocks = |text: &str| {
        let mut out = Vec::new();
        super::super::scan_text(text, "/", super::super::Policy::Public, &mut out);
        out.iter().any(|f| f.rule_id == rule.id && f.severity == "block")
    };
    assert!(blocks(rule.hit), "logit {}", super::logit(&with_signals(rule.hit, &features(rule.hit))));
    assert!(!blocks(rule.miss));
}

/// Where the time goes on a LoopX state's prose (an in-process probe for finding costs).
#[test]
#[ignore = "a timing probe: --release --nocapture"]
fn cost_probe() {
    let text = include_str!("../../assets/demo/docs-goal.ACTIVE_GOAL_STATE.md");
    let n = 2000;
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(features(std::hint::black_box(text)));
    }
    eprintln!("features: {:.1} us", t.elapsed().as_secs_f64() * 1e6 / f64::from(n));
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(super::find(std::hint::black_box(text)));
    }
    eprintln!("find: {:.1} us ({} features)", t.elapsed().as_secs_f64() * 1e6 / f64::from(n), features(text).len());
    for path in std::env::var("WG_PROBE_FILES").unwrap_or_default().split_whitespace() {
        let text = std::fs::read_to_string(path).expect("probe file");
        eprintln!("{path}: logit {:.2}", super::logit(&with_signals(&text, &features(&text))));
    }
}

#[test]
fn only_strings_that_can_hold_prose_are_read_from_json() {
    use super::super::dossier::{joined_strings, prose_string};
    assert!(!prose_string("todo_da5e12b8b6be"));
    assert!(!prose_string("sha256:17f55879145246fc3e2b78ef27302701"));
    assert!(prose_string("Agent Todo"));
    assert!(prose_string("給与は据え置き"));
    let doc = serde_json::json!({"id": "goal-00019", "note": "two words", "tags": ["a_b", "日本"]});
    let (all, prose) = joined_strings(&doc).expect("small");
    assert_eq!(all, "goal-00019\ntwo words\na_b\n日本\n");
    assert_eq!(prose, "two words\n日本\n");
}
