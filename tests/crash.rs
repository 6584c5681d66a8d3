//! Crash safety: a child process applies an item and is killed (abort, no cleanup) at
//! each failpoint of the apply path. After each crash the state is the old or the new
//! text (never torn), the results log reads back, and recovery finishes or unwinds the
//! apply without a second write; a later apply leaves exactly one applied change.

mod common;
use common::{demo, engine, held_up_by_expired_lease, item_with, pin_expired_lease};
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
const APPLY: Decision = Decision::apply();

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
        let new = e.prepare(&e.find_item(&id).expect("item")).proposed_text.expect("proposed").to_string();
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
    let new = e.prepare(&e.find_item(&id).expect("item")).proposed_text.expect("proposed").to_string();
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

const RELEASE_FAILPOINTS: &[&str] = &[
    "after_release_marker",
    "after_lease_lock",
    "after_release_record_marker",
    "before_lease_rename",
    "after_lease_write",
    "after_release_result",
    "after_lease_unlock",
];

/// Child half: releases the expired demo lease for the item it holds up; run by the parent.
#[test]
#[ignore = "run as a child process by crash_a_lease_release_at_every_failpoint"]
fn child_release() {
    let Ok(reg) = std::env::var("WG_CHILD_REGISTRY") else { return };
    let e = engine(Path::new(&reg));
    let dir = e.ws.goal_runtime_dir("demo-goal").expect("dir");
    let writegate::loopx::lease::LeaseRead::Present(seen) =
        writegate::loopx::lease::read_lease(&dir, "todo_c670645b588b")
    else {
        return;
    };
    let Some(id) = held_up_by_expired_lease(&e) else { return };
    let item = e.find_item(&id).expect("item");
    let _ = e.release_expired_lease(&item, "todo_c670645b588b", &seen, "crash test");
}

fn dot_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|d| d.file_name().to_string_lossy().into_owned()).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|n| n.starts_with('.'))
        .collect()
}

#[test]
fn crash_a_lease_release_at_every_failpoint() {
    // Issue 12 case 9: a release interrupted after the lease file was rewritten was never
    // recorded, and writegate's own leftover task-lease lock refused every retry.
    for fp in RELEASE_FAILPOINTS {
        let (_d, reg) = demo();
        let e = engine(&reg);
        let (id, seen) = pin_expired_lease(&e);
        let dir = e.ws.goal_runtime_dir("demo-goal").expect("dir");
        let lease = writegate::loopx::lease::lease_path(&dir, "todo_c670645b588b");
        let before = std::fs::read(&lease).expect("lease");
        let out = Command::new(std::env::current_exe().expect("exe"))
            .args(["--exact", "child_release", "--ignored", "--quiet", "--test-threads=1"])
            .env("WG_CHILD_REGISTRY", &reg)
            .env(FAILPOINT_ENV, fp)
            .output()
            .expect("spawn child");
        assert!(!out.status.success(), "{fp}: the child should have aborted");
        let reached = std::fs::read(&lease).expect("lease") != before;
        let notes = e.recover_all().expect("recover");
        let leases = dir.join("task-leases");
        assert_eq!(dot_files(&leases), Vec::<String>::new(), "{fp}: lock, claim or temp left ({notes:?})");
        let gate = e.gate("demo-goal").expect("gate");
        assert_eq!(dot_files(&gate.applying()), Vec::<String>::new(), "{fp}: temp left in applying/");
        assert!(!gate.applying().join(format!("{id}.release")).exists(), "{fp}: marker left ({notes:?})");
        let released =
            || gate.results().read_all(false).expect("log").iter().filter(|r| r.decision == "release_lease").count();
        if reached {
            assert_eq!(released(), 1, "{fp}: the release that reached the lease file is recorded once ({notes:?})");
            assert!(held_up_by_expired_lease(&e).is_none(), "{fp}");
        } else {
            assert_eq!(released(), 0, "{fp}: nothing recorded ({notes:?})");
            // The retry is not refused by a leftover lock: it runs at once.
            let started = std::time::Instant::now();
            let item = e.find_item(&id).expect("item");
            let out = e.release_expired_lease(&item, "todo_c670645b588b", &seen, "retry").expect("retry");
            assert_eq!(out.status, Status::LeaseReleased, "{fp}");
            assert!(started.elapsed() < std::time::Duration::from_secs(2), "{fp}: the retry waited for a lock");
            assert_eq!(released(), 1, "{fp}");
        }
        eprintln!("{fp}: lease {}, recovery {notes:?}", if reached { "released" } else { "unchanged" });
    }
}
