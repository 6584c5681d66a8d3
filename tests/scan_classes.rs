//! The boundary scan's second-pass classes (issue 16), scored on labelled cases in
//! `fixtures/scan_corpus/classes/`: `tuning.jsonl` (the rules were written against it) and
//! `held_out.jsonl` (written from the class descriptions alone by another author, never
//! tuned against; scored by the ignored test below).
//!
//! A case is `{"id", "class", "kind": "text"|"json", "input", "expect": "block"|"warn"|"clean",
//! "note"}`, judged under the public policy as `writegate scan` judges a file: a `block` case
//! needs a block finding, a `warn` case a warn or block finding, and a `clean` case must have
//! no block finding (a warn on it counts against precision, not as a false block).
//!
//! Per class: recall (positives caught at their severity / positives), precision (caught /
//! (caught + clean cases of the class with any warn or block finding)) and false blocks.

#[path = "scan_classes/score.rs"]
mod score;
use score::score;

/// Asserts a tuning file: no clean case blocks and recall ≥ 0.9 in every class but
/// `out_of_scope` (cases the second author wrote in none of the classes: phone
/// numbers, employee ids, addresses at reserved `.example` domains; reported only).
fn assert_tuned(file: &str) {
    let (table, wrong, scores) = score(file);
    eprintln!("{table}\n{}", wrong.join("\n"));
    for (class, s) in scores.iter().filter(|(c, _)| c.as_str() != "out_of_scope") {
        assert_eq!(s.false_blocks, 0, "{class}: a clean case blocks\n{table}");
        assert!(s.recall() >= 0.9, "{class}: recall {:.3} under 0.9\n{table}", s.recall());
    }
}

#[test]
fn tuning_classes_are_caught_and_no_clean_case_blocks() {
    assert_tuned("tuning.jsonl");
}

#[test]
fn second_tuning_part_is_caught_and_no_clean_case_blocks() {
    assert_tuned("tuning_2.jsonl");
}

/// Key wrappings, `.netrc` entries and password-only URLs an adversarial helper found
/// unblocked (issue 16, sixth round), with clean near-misses; written by the rules' author.
#[test]
fn third_tuning_part_is_caught_and_no_clean_case_blocks() {
    assert_tuned("tuning_3.jsonl");
}

/// Private documents written hard on purpose (100 bodies in 16 languages, most without a
/// marking or title; 50 clean near misses: press releases, public minutes, RFC clauses,
/// licences, job posts), by a helper session, tuned against in the seventh round: no clean
/// case blocks, and the recall it reached then (0.78) does not fall.
#[test]
fn fourth_tuning_part_keeps_its_recall_and_no_clean_case_blocks() {
    let (table, wrong, scores) = score("tuning_4.jsonl");
    eprintln!("{table}\n{}", wrong.join("\n"));
    let s = scores["private_document"];
    assert_eq!(s.false_blocks, 0, "a clean near miss blocks\n{table}");
    assert!(s.recall() >= 0.78, "recall {:.3} under 0.78\n{table}", s.recall());
}

/// The fifth tuning part (`tuning_5.jsonl`, 160 cases by a helper session asked for the
/// shapes the seventh held-out part exposed: private documents naming few people, mostly not
/// in English, with 25 public look-alikes; Node, Maven, Gradle, kernel and progress output;
/// generic secrets in prose, deleting commands, private hosts and IPv6), tuned against in
/// the scan's fifth round: held to the tuning bars (no clean case blocks, recall ≥ 0.9 per class).
#[test]
fn fifth_tuning_part_is_caught_and_no_clean_case_blocks() {
    assert_tuned("tuning_5.jsonl");
}

/// Public texts made to look private (`clean_public_tuning.jsonl`: the even-numbered 75 of
/// 150 written by a helper session in 14 languages: press releases and ad-hoc disclosures,
/// news, annual and remuneration reports, statutes, public minutes and parliamentary
/// records, job postings, contract templates, open-source docs, biographies, tenders, HR
/// policies, fiction), tuned against in the scan's fifth round: none blocks as a private
/// document. Two software guides that quote example log lines and a stack trace still block
/// as raw tool output, by the shape rules' design.
#[test]
fn public_look_alikes_tuned_on_do_not_block_as_private_documents() {
    let (table, wrong, _) = score("clean_public_tuning.jsonl");
    eprintln!("{table}\n{}", wrong.join("\n"));
    let blocked: Vec<&String> = wrong.iter().filter(|w| w.starts_with("missed clean")).collect();
    // The rules a case gave follow its `->`: none of them a private-document rule.
    let rules = |w: &str| w.rsplit_once("->").map_or(String::new(), |(_, r)| r.to_owned());
    assert!(!blocked.iter().any(|w| rules(w).contains("private_prose") || rules(w).contains("minutes")), "{blocked:?}");
    assert!(blocked.len() <= 2, "{table}\n{blocked:?}");
}

/// The odd-numbered 75 of the same 150 (`clean_public_held_out.jsonl`), not tuned against:
/// its false blocks are reported, never asserted. (The helper's one-line descriptions of
/// every block on all 150, before the split, were read: see the README.)
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn public_look_alikes_held_out_report() {
    let (table, wrong, _) = score("clean_public_held_out.jsonl");
    eprintln!("{table}\n{}", wrong.join("\n"));
}

/// The sixth round's parts, by helper sessions from the class descriptions: `tuning_6.jsonl`
/// (180 private-document cases in 28 languages: 120 bodies naming few people, 60 public
/// look-alikes), `tuning_7.jsonl` (260 in 43 languages), `tuning_8.jsonl` (320 short notes
/// in 48 languages), `tuning_9.jsonl` (300 in 45 languages) and `clean_public_2.jsonl` (200
/// public look-alikes in 26 languages).
/// The private-prose model is trained on them, so these are training figures: every
/// private document of them but a few is caught, and none of their clean cases blocks.
#[test]
fn sixth_round_parts_are_caught_and_no_clean_case_blocks() {
    for (file, bar) in [
        ("tuning_6.jsonl", 0.95),
        ("tuning_7.jsonl", 0.95),
        ("tuning_8.jsonl", 0.9),
        ("tuning_9.jsonl", 0.9),
        ("clean_public_2.jsonl", 1.0),
    ] {
        let (table, wrong, scores) = score(file);
        eprintln!("{table}\n{}", wrong.join("\n"));
        let s = scores["private_document"];
        assert_eq!(s.false_blocks, 0, "{file}: a clean case blocks\n{table}");
        assert!(s.recall() >= bar, "{file}: recall {:.3} under {bar}\n{table}", s.recall());
    }
}

/// The third held-out part, tuned against in the third round once its blind score was
/// taken: now a tuning part, held to the same bars.
#[test]
fn third_part_tuned_in_the_third_round_is_caught_and_no_clean_case_blocks() {
    assert_tuned("held_out_3.jsonl");
}

/// The held-out part, scored once when the work on a class is done (`cargo test --test
/// scan_classes -- --ignored --nocapture`): its figures go in the closing note, never into
/// the rules.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn held_out_classes_report() {
    report("held_out.jsonl");
}

/// Prints a held-out file's table and wrong cases; asserts only that the file is there.
fn report(file: &str) {
    let (table, wrong, scores) = score(file);
    println!("{table}\n{}", wrong.join("\n"));
    assert!(scores.values().map(|s| s.positives + s.clean).sum::<usize>() > 100, "the held-out part is there");
}

/// The second held-out part (`held_out_2.jsonl`, 241 cases by a third author, committed
/// before the second round of tuning), scored the same way and reported apart.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn second_held_out_classes_report() {
    report("held_out_2.jsonl");
}

/// The third held-out part (`held_out_3.jsonl`, 240 cases by a fifth author who saw only the
/// issue's class descriptions, no rule and no other file; committed before any tuning
/// against it), scored the same way and reported apart.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn third_held_out_classes_report() {
    report("held_out_3.jsonl");
}

/// The fourth held-out part (`held_out_4.jsonl`, 245 cases by a sixth author who saw only the
/// issue's class descriptions; committed before any tuning against it). Its per-class table
/// alone, without the wrong cases (`WG_SHOW_MISSES=1` prints them too): a table says how far
/// the rules are without showing a case to tune against.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn fourth_held_out_classes_report() {
    report_table("held_out_4.jsonl");
}

/// Prints a held-out file's table, and its wrong cases only with `WG_SHOW_MISSES=1`;
/// asserts only that the file is there.
fn report_table(file: &str) {
    let (table, wrong, scores) = score(file);
    println!("{table}");
    if std::env::var_os("WG_SHOW_MISSES").is_some() {
        println!("{}", wrong.join("\n"));
    }
    assert!(scores.values().map(|s| s.positives + s.clean).sum::<usize>() > 100, "the held-out part is there");
}

/// The fifth held-out part (`held_out_5.jsonl`, 192 cases by a seventh author who saw only
/// the class descriptions), committed while the fourth was tuned against and scored
/// once at the end of that round: the round's blind figure. Prints the table and the misses.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn fifth_held_out_classes_report() {
    report("held_out_5.jsonl");
}

/// The sixth held-out part (`held_out_6.jsonl`, 220 cases by a helper session that saw only
/// the class descriptions and a list of shapes to cover; committed unseen before this
/// round's later tuning and scored once at its end). The table alone (`WG_SHOW_MISSES=1`
/// prints the wrong cases too).
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn sixth_held_out_classes_report() {
    report_table("held_out_6.jsonl");
}

/// The seventh held-out part (`held_out_7.jsonl`, 240 cases by a helper session that saw only
/// the class descriptions and a list of shapes per class, heavier on private
/// documents; committed unseen before this round's tuning and scored once at its end). The
/// table alone (`WG_SHOW_MISSES=1` prints the wrong cases too).
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn seventh_held_out_classes_report() {
    report_table("held_out_7.jsonl");
}

/// The eighth held-out part (`held_out_8.jsonl`, 246 cases by a helper session that saw only
/// the class descriptions, 70 private documents of which 36 not in English; committed
/// unseen before this round's tuning against other parts and scored once at its end). The
/// table alone (`WG_SHOW_MISSES=1` lists the wrong cases once the part is spent).
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn eighth_held_out_classes_report() {
    report_table("held_out_8.jsonl");
}

/// The ninth held-out part (`held_out_9.jsonl`, 250 cases by a helper session that saw only
/// the class descriptions, 70 private documents of which 48 not in English, in 24
/// languages; committed unseen before this round's work on other parts, left out of the
/// private-prose model's training, and scored once at the round's end).
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn ninth_held_out_classes_report() {
    report_table("held_out_9.jsonl");
}

/// The tenth held-out part (`held_out_10.jsonl`, 250 cases by a helper session that saw only
/// the class descriptions, 70 private documents of which 53 not in English, in 27
/// languages), committed unseen in the sixth round after the ninth part's blind score, left
/// out of the private-prose model's training, and scored once at the round's end.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn tenth_held_out_classes_report() {
    report_table("held_out_10.jsonl");
}

/// The eleventh held-out part (`held_out_11.jsonl`, 200 cases by a helper session that saw
/// only the class descriptions, 60 private documents of which 47 not in English, in
/// 36 languages), committed unseen late in the sixth round, held back from the private-prose
/// model's training, and scored once at the round's end.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn eleventh_held_out_classes_report() {
    report_table("held_out_11.jsonl");
}

/// The twelfth held-out part (`held_out_12.jsonl`, 250 cases by a helper session that saw
/// only the class descriptions, 70 private documents of which 47 not in English),
/// committed unseen at the seventh round's start, held back from the private-prose model's
/// training, and scored once at the round's end; spent, and trained on since the eighth
/// round.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn twelfth_held_out_classes_report() {
    report_table("held_out_12.jsonl");
}

/// The seventh round's parts, by helper sessions from the class descriptions:
/// `tuning_11.jsonl` (300 private-document cases in 46 languages, mostly short notes naming
/// no one: 220 bodies, 80 public look-alikes), `tuning_12.jsonl` (300 in 46 languages: 150
/// bodies written to resemble public texts, 150 public look-alikes with fiction),
/// `tuning_13.jsonl` (260 cases of the other five classes in unusual shapes),
/// `tuning_14.jsonl` (320 short notes in 54 languages), `tuning_15.jsonl` (300 documents of
/// medium length in 47 languages), `clean_public_3.jsonl` (250 public look-alikes in 59
/// languages, fiction and news first), and, last, `tuning_16.jsonl` (200 private documents)
/// and `clean_public_4.jsonl` (200 public texts) in 32 languages with little data. JSON cases of `tuning_11` and `tuning_12` had their
/// wrappers rewritten to neutral ones shared by both labels (the helpers' wrappers differed
/// by label). The rules were tuned and the model trained on them, so these are training
/// figures; their first scores are in the README. Known false blocks, left: in
/// `tuning_15`, a settlement template marked `for use with Legal only` (words of secrecy);
/// in `clean_public_3`, a novelist's interview quoting "made to keep quiet", a Dutch novel's
/// dismissal scene and a Korean news item, with names, sums and matters and no genre word.
/// Each part's private documents: recall at least its bar, and no more false blocks than
/// it is known to have, as `(file, bar, known false blocks)`.
fn assert_private_documents(parts: &[(&str, f64, usize)]) {
    for &(file, bar, known_false_blocks) in parts {
        let (table, wrong, scores) = score(file);
        eprintln!("{table}\n{}", wrong.join("\n"));
        let s = scores["private_document"];
        assert!(s.false_blocks <= known_false_blocks, "{file}: a clean case blocks\n{table}");
        assert!(s.recall() >= bar, "{file}: recall {:.3} under {bar}\n{table}", s.recall());
    }
}

/// Every class of a part of several classes: recall at least `bar`, and no more false blocks
/// than `known` gives for it, as `(class, known false blocks)` (none for a class not named).
fn assert_every_class(file: &str, bar: f64, known: &[(&str, usize)]) {
    let (table, wrong, scores) = score(file);
    eprintln!("{table}\n{}", wrong.join("\n"));
    for (class, s) in &scores {
        let allowed = known.iter().find(|(c, _)| c == class).map_or(0, |&(_, n)| n);
        assert!(s.false_blocks <= allowed, "{file} {class}: a clean case blocks\n{table}");
        assert!(s.recall() >= bar, "{file} {class}: recall {:.3}\n{table}", s.recall());
    }
}

#[test]
fn seventh_round_parts_are_caught_and_no_clean_case_blocks() {
    assert_private_documents(&[
        ("tuning_11.jsonl", 0.95, 0),
        ("tuning_12.jsonl", 0.95, 0),
        ("tuning_14.jsonl", 0.95, 0),
        ("tuning_15.jsonl", 0.95, 1),
        ("clean_public_3.jsonl", 1.0, 3),
        ("tuning_16.jsonl", 0.95, 0),
        ("clean_public_4.jsonl", 1.0, 0),
    ]);
    assert_every_class("tuning_13.jsonl", 0.9, &[]);
}

/// The eighth round's parts, by helper sessions that saw only the class descriptions:
/// `tuning_17.jsonl` (240 short private fragments of 20 to 400 characters, 193 not in
/// English over 72 languages, and 80 hard clean notes), `clean_public_5.jsonl` (250 public
/// look-alikes in 65 languages), `tuning_18.jsonl` (300 private documents of medium length,
/// 10 in each of 30 languages) with `clean_public_6.jsonl` (300 public look-alikes in the
/// same 30 languages), `tuning_19.jsonl` (200 private documents of the hardest kinds and
/// 100 look-alikes in 33 languages), and, last, `tuning_20.jsonl` (180 private documents and
/// 60 look-alikes in 18 widely written languages) and `clean_public_7.jsonl` (240 public
/// texts about people, money, work and health in tuning_18's 30 languages). The JSON cases
/// of `tuning_18` and `clean_public_6` were rewrapped in neutral wrappers shared by both
/// labels (their authors' wrappers differed by file, so by label). Tuned and trained on, so training figures (first scores in the
/// README). Short fragments stay the weak spot: a quarter of tuning_17's lie outside the
/// model's range (under 100 bytes or 40 features), so its bar is lower than the other parts'
/// (0.66: the twelfth round's model kept 165 of its 240, the thirteenth's 164; the
/// fourteenth's, trained on 1,500 more private documents in over 100 languages, keeps 161).
/// Known false blocks, left: a short story
/// in `tuning_19` whose memo is "Strictly Confidential"; a Dutch foundation's sick-leave
/// protocol for all staff in `clean_public_6`.
#[test]
fn eighth_round_parts_are_caught_and_no_clean_case_blocks() {
    assert_private_documents(&[
        ("tuning_17.jsonl", 0.66, 0),
        ("tuning_18.jsonl", 0.95, 0),
        ("tuning_19.jsonl", 0.95, 1),
        ("tuning_20.jsonl", 0.95, 0),
        ("clean_public_6.jsonl", 1.0, 1),
        ("clean_public_7.jsonl", 1.0, 0),
    ]);
    let (table, wrong, scores) = score("clean_public_5.jsonl");
    eprintln!("{table}\n{}", wrong.join("\n"));
    for (class, s) in &scores {
        assert_eq!(s.false_blocks, 0, "clean_public_5 {class}: a clean case blocks\n{table}");
    }
}

/// The ninth round's parts, by helper sessions from the class descriptions:
/// `tuning_21.jsonl` (300 private documents and 80 public look-alikes, 12 and 3 or so in each
/// of 25 languages: the languages `held_out_14` missed in, and more), `clean_public_8.jsonl`
/// (300 public texts in the same languages), both with their JSON wrappers rewritten to
/// neutral shared ones, and `tuning_22.jsonl` (300 cases of the other five classes in the
/// long tail: agent frameworks and less common chat exports, runtimes and debuggers, system
/// logs, provider tokens, commands in other shells, secrets named in other languages); last,
/// `tuning_23.jsonl` (300 private documents) and `clean_public_9.jsonl` (300 public texts),
/// 10 of each in 30 languages the data held little or nothing of (Welsh to Sinhala); then
/// `tuning_24.jsonl` (300 short plain private documents, 104 to 388 characters, no marking,
/// often naming nobody) and `clean_public_10.jsonl` (300 short public texts on the same
/// matters), 10 of each in 30 widely written languages.
/// Trained and tuned on: training figures (first scores in the README). Known, left:
/// `tuning_22`'s two credential look-alikes whose secret-named keys hold redaction marks
/// (`shpat_****…a91f`, `dapi<redacted>`), a value that was there by DESIGN.md §5; a
/// Vietnamese news report on a franchise dispute in `clean_public_8`; an advice column's
/// reader letter (`letter_shape`) in `clean_public_10`.
#[test]
fn ninth_round_parts_are_caught_and_no_clean_case_blocks() {
    assert_private_documents(&[
        ("tuning_21.jsonl", 0.95, 0),
        ("clean_public_8.jsonl", 1.0, 1),
        ("tuning_23.jsonl", 0.95, 0),
        ("clean_public_9.jsonl", 1.0, 0),
        ("tuning_24.jsonl", 0.95, 0),
        ("clean_public_10.jsonl", 1.0, 1),
    ]);
    assert_every_class("tuning_22.jsonl", 0.85, &[("credential_disguise", 2)]);
}

/// The tenth round's parts (README, "Tenth round"; first scores there), each by a helper
/// session from the class descriptions only: private documents in 30 languages each
/// (`tuning_25`, `tuning_27` corporate, `tuning_28` languages new to the data) and public
/// look-alikes in the same languages (`clean_public_11` to `_13`), and `tuning_26`, the long
/// tail of the five other classes. False blocks left: `git remote -v` with its prompt (a
/// shell session, by design) and macOS's `/var/folders/zz/…` of a system account (the two
/// public whistleblowing policies whose promise of secrecy read as a secret kept pass since
/// the eleventh round).
#[test]
fn tenth_round_parts_are_caught_and_no_clean_case_blocks() {
    assert_private_documents(&[
        ("tuning_25.jsonl", 0.95, 0),
        ("clean_public_11.jsonl", 1.0, 0),
        ("tuning_27.jsonl", 0.95, 0),
        ("clean_public_12.jsonl", 1.0, 0),
        ("tuning_28.jsonl", 0.95, 0),
        ("clean_public_13.jsonl", 1.0, 0),
    ]);
    assert_every_class("tuning_26.jsonl", 0.88, &[("credential_disguise", 1), ("path_disguise", 1)]);
}

/// The eleventh round's parts (README, "Eleventh round"; first scores there), each by a
/// helper session from the class descriptions only: personal private documents in 47
/// languages (`tuning_29`), short plain private notes in 60 languages (`tuning_31`), public
/// look-alikes (`clean_public_14`: published policies and templates in 43 languages;
/// `clean_public_15`: short public notes in 60), and `tuning_30`, the long tail of the five
/// other classes.
#[test]
fn eleventh_round_parts_are_caught_and_no_clean_case_blocks() {
    assert_private_documents(&[
        ("tuning_29.jsonl", 0.95, 0),
        ("clean_public_14.jsonl", 1.0, 0),
        ("tuning_31.jsonl", 0.95, 0),
        ("clean_public_15.jsonl", 1.0, 0),
    ]);
    assert_every_class("tuning_30.jsonl", 0.85, &[]);
}

/// The twelfth round's parts (training figures: tuned against or trained on): 300 private
/// notes and shapes in 89 languages (`tuning_32`: agent-state notes, messages, forms,
/// statements), 300 work notes and public look-alikes (`clean_public_16`), 240 private
/// documents and 240 public look-alikes in the 24 languages the blind misses were in
/// (`tuning_34`, `clean_public_17`), held to 0.95 and no false block; 240 long-tail cases
/// of the other five classes (`tuning_33`), every class to 0.8 and no false block.
#[test]
fn twelfth_round_parts_are_caught_and_no_clean_case_blocks() {
    assert_private_documents(&[
        ("tuning_32.jsonl", 0.95, 0),
        ("clean_public_16.jsonl", 1.0, 0),
        ("tuning_34.jsonl", 0.95, 0),
        ("clean_public_17.jsonl", 1.0, 0),
    ]);
    assert_every_class("tuning_33.jsonl", 0.8, &[]);
}

/// The thirteenth round's parts (training figures: tuned against or trained on): 300 short
/// and long private notes in 76 languages (`tuning_35`) and 300 structured private documents
/// in 72 (`tuning_37`: notices, agreements, letters with identifiers) and 300 short notes,
/// todo lists, board-only notes and clauses in 75 (`tuning_39`), held to 0.95; their
/// public look-alikes (`clean_public_18`, `clean_public_19`, `clean_public_20`: short work
/// notes, public figures' news, generic HR text, fiction): none blocks but a French model
/// lease with dotted blanks in `clean_public_19`; two long-tail parts of the other five
/// classes: `tuning_36` every class to 0.85 (its one false block is a redacted password under
/// a forbidden key, by design: DESIGN.md §5), `tuning_38` to 0.7 (shapes left: alerting
/// notifications, solver and engine logs, split keys; its false block an EC2 node's internal
/// name in a dry run).
#[test]
fn thirteenth_round_parts_are_caught_and_no_clean_case_blocks() {
    assert_private_documents(&[
        ("tuning_35.jsonl", 0.95, 0),
        ("clean_public_18.jsonl", 1.0, 0),
        ("tuning_37.jsonl", 0.95, 0),
        ("clean_public_19.jsonl", 1.0, 1),
        ("clean_public_20.jsonl", 1.0, 0),
        ("tuning_39.jsonl", 0.95, 0),
    ]);
    assert_every_class("tuning_36.jsonl", 0.85, &[("credential_disguise", 1)]);
    assert_every_class("tuning_38.jsonl", 0.7, &[("warn_class", 1)]);
}

/// The fourteenth round's parts (training figures: tuned against or trained on): private
/// documents in 104 languages (`tuning_40`: case notes, statements, claims, CSV rows, form
/// fields), in 96 (`tuning_42`: lender letters, IOUs, school reports, certificates, salary
/// decisions), in 95 (`tuning_43`: e-mail threads, memos, board notes, reviews, postmortems)
/// and in 112 (`tuning_44`, most with little web text), held to 0.95; their public
/// look-alikes (`clean_public_21` to `clean_public_24`: policies, templates, newsletters,
/// mailing lists, published postmortems and judgments, news, fiction): none blocks but a
/// novel's in-story e-mail with headers in `clean_public_24`; the long tail of the other five
/// classes (`tuning_41`: depositions, alerting notifications, split keys, chat-app webhooks)
/// every class to 0.8, its one false block an internal host in a JDBC URL whose password is
/// a placeholder (`internal_host`, by design); everyday shapes of the same five classes as
/// agents paste them (`tuning_45`: partial copies, indented blocks, quoted lines) every
/// class to 0.8, its one false block a redacted token under a forbidden key (by design:
/// DESIGN.md §5).
#[test]
fn fourteenth_round_parts_are_caught_and_no_clean_case_blocks() {
    assert_private_documents(&[
        ("tuning_40.jsonl", 0.95, 0),
        ("clean_public_21.jsonl", 1.0, 0),
        ("tuning_42.jsonl", 0.95, 0),
        ("clean_public_22.jsonl", 1.0, 0),
        ("tuning_43.jsonl", 0.95, 0),
        ("clean_public_23.jsonl", 1.0, 0),
        ("tuning_44.jsonl", 0.95, 0),
        ("clean_public_24.jsonl", 1.0, 1),
    ]);
    assert_every_class("tuning_41.jsonl", 0.8, &[("credential_disguise", 1)]);
    assert_every_class("tuning_45.jsonl", 0.8, &[("credential_disguise", 1)]);
}

/// The fifteenth round's parts (training figures: tuned against or trained on): private
/// documents in 141 languages (`tuning_46`: short notes, letters, closed minutes, many
/// languages with little web text), in 136 (`tuning_48`: workplace and everyday papers, a
/// fifth split over JSON fields) and in 104 (`tuning_50`: official letters, contracts,
/// certificates), held to 0.95; their public look-alikes (`clean_public_25` to
/// `clean_public_27`: filings, judgments, tribunal decisions, board minutes, written
/// questions, breach notices, sports and political news, staff newsletters, advice
/// columns, fiction and screenplays) block no more than the 8, 16 and 33 they do (the
/// prose model's, on institutional and news texts naming people and sums, which it weighs
/// as private even trained on them, and one novel's e-mail whose content reads as a private
/// one: the known weakness these bars record, not a target); the long tail of the other five classes
/// (`tuning_47`) every class to 0.88, its false block a placeholder password beside an
/// internal host (`internal_host`, by design); keys built from pieces over lines
/// (`tuning_49`, 110 of them) to 0.75.
#[test]
fn fifteenth_round_parts_are_held_to_their_bars() {
    assert_private_documents(&[
        ("tuning_46.jsonl", 0.95, 0),
        ("clean_public_25.jsonl", 1.0, 8),
        ("tuning_48.jsonl", 0.95, 0),
        ("clean_public_26.jsonl", 1.0, 16),
        ("tuning_50.jsonl", 0.95, 0),
        ("clean_public_27.jsonl", 1.0, 33),
    ]);
    assert_every_class("tuning_47.jsonl", 0.88, &[("credential_disguise", 1)]);
    assert_every_class("tuning_49.jsonl", 0.75, &[]);
}

/// The thirteenth held-out part (`held_out_13.jsonl`, 250 cases by a helper session that saw
/// only the class descriptions, 70 private documents of which 48 not in English in
/// 44 languages), committed unseen at the seventh round's end, held back from the
/// private-prose model's training, and scored once in the eighth round (on bd82a79); spent,
/// and trained on after that score.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn thirteenth_held_out_classes_report() {
    report_table("held_out_13.jsonl");
}

/// The fourteenth held-out part (`held_out_14.jsonl`, 250 cases by a helper session that saw
/// only the class descriptions: 70 private documents, 46 of them not in English, and
/// the other five classes with their clean look-alikes), committed unseen early in the eighth
/// round, held back from the private-prose model's training, and scored once at the round's
/// end (on 43b5662); spent, and trained on after that score.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn fourteenth_held_out_classes_report() {
    report_table("held_out_14.jsonl");
}

/// The fifteenth held-out part (`held_out_15.jsonl`, 250 cases by a helper session that saw
/// only the class descriptions: 70 private documents, 49 of them not in English, and
/// the other five classes with their clean look-alikes), committed unseen at the eighth
/// round's end, held back from the private-prose model's training, and scored once in the
/// ninth round (on e8862ff); spent, and trained on after that score.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn fifteenth_held_out_classes_report() {
    report_table("held_out_15.jsonl");
}

/// The sixteenth held-out part (`held_out_16.jsonl`, 250 cases by a helper session that saw
/// only the class descriptions: 70 private documents, 44 of them not in English, in
/// 41 languages, and the other five classes with their clean look-alikes), committed unseen
/// in the ninth round for a later blind score, held back from the private-prose model's
/// training, and scored once in the tenth round (on 3b7f435); spent, and trained on after
/// that score.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn sixteenth_held_out_classes_report() {
    report_table("held_out_16.jsonl");
}

/// The seventeenth held-out part (`held_out_17.jsonl`, 250 cases by a helper session that
/// saw only the class descriptions: 70 private documents in 46 languages, about a
/// third plain bodies, and the other five classes with their clean look-alikes), committed
/// unseen in the tenth round for the next blind score, held back from the private-prose
/// model's training, and scored once in the eleventh round (on c90e6bd); spent, and trained
/// on after that score.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn seventeenth_held_out_classes_report() {
    report_table("held_out_17.jsonl");
}

/// The eighteenth held-out part (`held_out_18.jsonl`, 250 cases by a helper session that
/// saw only the class descriptions: 70 private documents in 55 languages, a third
/// of them under 300 characters, and the other five classes with their clean look-alikes),
/// committed unseen in the eleventh round for the next blind score, held back from the
/// private-prose model's training, and scored once in the twelfth round (on 2644e9b);
/// spent, and trained on after that score.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn eighteenth_held_out_classes_report() {
    report_table("held_out_18.jsonl");
}

/// The nineteenth held-out part (`held_out_19.jsonl`, 250 cases by a helper session that
/// saw only the class descriptions: 70 private documents in 44 languages, a third of
/// them under 300 characters and some as an agent's todo or status notes, and the other
/// five classes with their clean look-alikes), committed unseen in the twelfth round,
/// scored once in the thirteenth (README, "Thirteenth round"), then trained on.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn nineteenth_held_out_classes_report() {
    report_table("held_out_19.jsonl");
}

/// The twentieth held-out part (`held_out_20.jsonl`, 250 cases by a helper session that saw
/// only the class descriptions: 70 private documents in 51 languages, e-mails,
/// memos, HR and medical notes, contracts and short personal notes, and the other five
/// classes with their clean look-alikes), committed unseen in the thirteenth round for a
/// later blind score, held back from the private-prose model's training. Scored once, blind,
/// in the fourteenth round on e6530d1: all 0.890 (178/200), private documents 0.757 (53/70),
/// credentials 0.929, warn 0.925, the other classes 1.000, no false block of 50; then its
/// misses were mended and it was trained on.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn twentieth_held_out_classes_report() {
    report_table("held_out_20.jsonl");
}

/// The twenty-first held-out part (`held_out_21.jsonl`, 250 cases by a helper session that
/// saw only the class descriptions: 70 private documents in about 50 languages,
/// long and short, and the other five classes with their clean look-alikes), committed
/// unseen in the fourteenth round for a later blind score, held back from the private-prose
/// model's training. Scored once, blind, at the end of the fourteenth round on dd2f16c:
/// all 0.920 (184/200), private documents 0.871 (61/70), credentials 0.893, tool output
/// 0.955, warn 0.925, transcripts and paths 1.000, 1 false block of 50 (a court's published
/// headnote); then its seen misses were mended where a rule could, and it was trained on.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn twenty_first_held_out_classes_report() {
    report_table("held_out_21.jsonl");
}

/// The twenty-second held-out part (`held_out_22.jsonl`, 250 cases by a helper session that
/// saw only the class descriptions: 70 private documents in 51 languages, and the
/// other five classes with their clean look-alikes), committed unseen in the fourteenth
/// round, scored once blind at the start of the fifteenth on a28910a: all 0.870 (174/200),
/// private 0.743, 1 false block of 50 (ASP.NET routes under `/Users/`). Seen since.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn twenty_second_held_out_classes_report() {
    report_table("held_out_22.jsonl");
}

/// The twenty-third held-out part (`held_out_23.jsonl`, 250 cases by a helper session that
/// saw only the class descriptions: 70 private documents in about 67 languages,
/// and the other five classes with their clean look-alikes), committed unseen in the
/// fifteenth round and scored once on fd6da06 (its list of misses was printed by a
/// regression run a moment before; nothing was tuned between): all 0.935 (187/200),
/// private 0.843 (59/70), credential 0.964, warn 0.975, the other three 1.000, 0 false
/// blocks of 50. Seen since, and trained on.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn twenty_third_held_out_classes_report() {
    report_table("held_out_23.jsonl");
}

/// The twenty-fourth held-out part (`held_out_24.jsonl`, 250 cases by a helper session that
/// saw only the class descriptions: 70 private documents in 67 languages, some in
/// JSON fields, and the other five classes with their clean look-alikes), committed unseen
/// in the fifteenth round and scored once, at its end, on 94cdd4a: all 0.925 (185/200),
/// private 0.814 (57/70), warn 0.950, the other four 1.000, precision 0.995, 1 false block
/// of 50 (a W3C traceparent under `trace_token`: a key LoopX's own validator rejects by its
/// `_token` ending). Seen since, and trained on.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn twenty_fourth_held_out_classes_report() {
    report_table("held_out_24.jsonl");
}

/// The twenty-fifth held-out part (`held_out_25.jsonl`, 250 cases by a helper session that
/// saw only the class descriptions: 70 private documents in about 66 languages,
/// some in JSON fields, and the other five classes with their clean look-alikes), committed
/// unseen at the fifteenth round's end for the next blind score, held back from the
/// private-prose model's training. Not yet scored.
#[test]
#[ignore = "held out: scored on purpose, not on every run"]
fn twenty_fifth_held_out_classes_report() {
    report_table("held_out_25.jsonl");
}

/// The table (and, with `WG_SHOW_MISSES`, the misses) of each part named in `WG_PARTS`
/// (file names under `classes/`, blank-separated): how a fresh part's first score is taken.
#[test]
#[ignore = "a tool: scores the parts named in WG_PARTS"]
fn parts_report() {
    for file in std::env::var("WG_PARTS").unwrap_or_default().split_whitespace() {
        let (table, wrong, _) = score(file);
        println!("{file}\n{table}");
        if std::env::var_os("WG_SHOW_MISSES").is_some() {
            println!("{}", wrong.join("\n"));
        }
    }
}
