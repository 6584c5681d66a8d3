//! Crash safety: a child process applies an item and is killed (abort, no cleanup) at
//! each failpoint of the apply path. After each crash the state is the old or the new
//! text (never torn), the results log reads back, and recovery finishes or unwinds the
//! apply without a second write; a later apply leaves exactly one applied change.

mod common;
use common::{demo, engine, item_with};
use std::path::Path;
use std::process::Command;
use writegate::engine::Decision;
use writegate::gate::fsutil::FAILPOINT_ENV;
use writegate::loopx::hash::revision_of_text;
use writegate::wire::Status;

const FAILPOINTS: &[&str] = &[
    "after_gate_lock",
    "after_state_lock",
    "after_marker",
    "before_state_rename",
    "after_state_write",
    "after_result",
    "after_move",
];
const APPLY: Decision = Decision::Apply { confirm_warnings: false, override_idempotency: false };

/// Child half: applies `WG_CHILD_ITEM` on `WG_CHILD_REGISTRY`; run by the parent only.
#[test]
#[ignore = "run as a child process by crash_at_every_failpoint"]
fn child_apply() {
    let (Ok(reg), Ok(item)) = (std::env::var("WG_CHILD_REGISTRY"), std::env::var("WG_CHILD_ITEM")) else {
        return;
    };
    let e = engine(Path::new(&reg));
    let _ = e.decide(&item, &APPLY, None);
}

#[test]
fn crash_at_every_failpoint() {
    for fp in FAILPOINTS {
        let (_d, reg) = demo();
        let e = engine(&reg);
        let id = item_with(&e, "docs-goal", "ready");
        let state_file = e.goal("docs-goal").expect("goal").state_file.clone();
        let old = std::fs::read_to_string(&state_file).expect("state");
        let new = e.prepare(&e.find_item(&id).expect("item")).proposed_text.expect("proposed");
        let status = Command::new(std::env::current_exe().expect("exe"))
            .args(["--exact", "child_apply", "--ignored", "--quiet", "--test-threads=1"])
            .env("WG_CHILD_REGISTRY", &reg)
            .stdout(std::process::Stdio::null())
            .env("WG_CHILD_ITEM", &id)
            .env(FAILPOINT_ENV, fp)
            .output()
            .expect("spawn child");
        assert!(!status.status.success(), "{fp}: the child should have aborted");
        let after = std::fs::read_to_string(&state_file).expect("state");
        assert!(after == old || after == new, "{fp}: state torn");
        let gate = e.gate("docs-goal").expect("gate");
        let notes = e.recover_all().expect("recover");
        let temps = std::fs::read_dir(state_file.parent().expect("dir"))
            .expect("dir")
            .filter_map(Result::ok)
            .filter(|f| f.file_name().to_string_lossy().ends_with(".tmp"))
            .count();
        assert_eq!(temps, 0, "{fp}: temp files left after recovery");
        let log = gate.results().read_all(false).expect("log readable");
        let applied_records = log
            .iter()
            .filter(|r| r.item_id == id && matches!(r.status, Status::Applied | Status::AlreadyApplied))
            .count();
        if after == new {
            assert_eq!(applied_records, 1, "{fp}: one applied/already_applied record ({notes:?})");
            assert!(e.find_item(&id).is_err(), "{fp}: item moved after recovery");
        } else {
            assert_eq!(applied_records, 0, "{fp}: nothing recorded as applied");
            let out = e.decide(&id, &APPLY, None).expect("apply after crash");
            assert_eq!(out.status, Status::Applied, "{fp}: {}", out.message);
        }
        let final_text = std::fs::read_to_string(&state_file).expect("state");
        assert_eq!(revision_of_text(&final_text), revision_of_text(&new), "{fp}: exactly one apply");
        assert!(!gate.applying().join(format!("{id}.json")).exists(), "{fp}: marker cleared");
        eprintln!("{fp}: state {}, recovery {notes:?}", if after == new { "new" } else { "old" });
    }
}

/// Runs the child apply of `id` killed at failpoint `fp`.
fn crash_child(reg: &Path, id: &str, fp: &str) -> std::process::Output {
    Command::new(std::env::current_exe().expect("exe"))
        .args(["--exact", "child_apply", "--ignored", "--quiet", "--test-threads=1"])
        .env("WG_CHILD_REGISTRY", reg)
        .env("WG_CHILD_ITEM", id)
        .env(FAILPOINT_ENV, fp)
        .output()
        .expect("spawn child")
}

#[test]
fn an_apply_that_reached_the_state_is_recorded_even_after_a_later_write() {
    // Issue 12 case 8: a crash between the state rename and the result append, then a LoopX
    // write before recovery: recovery said the apply "never reached the state", dropped the
    // marker and never recorded it.
    let (_d, reg) = demo();
    let e = engine(&reg);
    let id = item_with(&e, "docs-goal", "ready");
    let state_file = e.goal("docs-goal").expect("goal").state_file.clone();
    let new = e.prepare(&e.find_item(&id).expect("item")).proposed_text.expect("proposed");
    let out = crash_child(&reg, &id, "after_state_write");
    assert!(!out.status.success(), "the child should have aborted");
    assert_eq!(std::fs::read_to_string(&state_file).expect("state"), new, "the write reached the state");
    // Another writer moves the state on before writegate recovers.
    let later = format!("{new}- Appended by a later LoopX write.\n");
    std::fs::write(&state_file, &later).expect("later write");
    let notes = e.recover_all().expect("recover");
    let gate = e.gate("docs-goal").expect("gate");
    let log = gate.results().read_all(false).expect("log");
    let rec: Vec<_> = log.iter().filter(|r| r.item_id == id).collect();
    assert_eq!(rec.len(), 1, "{notes:?}");
    assert_eq!(rec[0].status, Status::Applied);
    assert_eq!(rec[0].reason_code.as_deref(), Some("recovered_after_interrupted_apply"));
    assert!(e.find_item(&id).is_err(), "the item moved to decided/");
    assert_eq!(std::fs::read_to_string(&state_file).expect("state"), later, "nothing rewritten");
    assert!(!gate.applying().join(format!("{id}.json")).exists(), "marker cleared");
}

#[test]
fn an_interrupted_apply_that_cannot_be_judged_holds_its_item() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let id = item_with(&e, "docs-goal", "ready");
    let state_file = e.goal("docs-goal").expect("goal").state_file.clone();
    let out = crash_child(&reg, &id, "after_state_write");
    assert!(!out.status.success());
    // A later write replaced the whole text: neither undoing nor redoing the change fits.
    std::fs::write(&state_file, "---\nstatus: active\n---\n\n# Rewritten\n").expect("rewrite");
    let notes = e.recover_all().expect("recover");
    assert!(notes.iter().any(|n| n.contains("cannot tell")), "{notes:?}");
    let gate = e.gate("docs-goal").expect("gate");
    assert!(gate.applying().join(format!("{id}.json")).exists(), "the marker stays for inspection");
    let err = e.decide(&id, &APPLY, None).expect_err("held");
    assert!(err.to_string().contains("awaits inspection"), "{err}");
    assert!(gate.results().read_all(false).expect("log").iter().all(|r| r.item_id != id), "nothing recorded");
}
