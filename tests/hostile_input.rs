//! Hostile input from disk: raw proposals that dodge the lease or the packet, FIFOs,
//! escape sequences in names, symlinks out of the runtime root, forged markers and logs.
//! Each must be refused or reported — never applied, never a hang, never a terminal escape.

mod common;
use common::{demo, engine, item_with};
use serde_json::{Value, json};
use std::io::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use writegate::engine::Decision;

fn item_doc(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("item")).expect("json")
}

fn run_with_timeout(args: &[&str], secs: u64) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_writegate"))
        .args(args)
        .env("XDG_STATE_HOME", std::env::temp_dir())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            panic!("writegate {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

#[test]
fn a_raw_diff_cannot_dodge_a_foreign_lease() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let leased = e.find_item(&item_with(&e, "demo-goal", "lease_conflict")).expect("item");
    let state = std::fs::read_to_string(&e.goal("demo-goal").expect("goal").state_file).expect("state");
    let new_state = state.replace("todo_id=todo_28ff25cccdd0 status=open", "todo_id=todo_28ff25cccdd0 status=done");
    let diff = writegate::diff::unified(&state, &new_state, "x");
    for proposal in [json!({"kind": "unified_diff", "diff": diff}), json!({"kind": "replace", "text": new_state})] {
        let mut doc = item_doc(&leased.path);
        doc["proposal"] = proposal;
        let path = leased.path.with_file_name("raw-lease.json");
        std::fs::write(&path, serde_json::to_vec(&doc).expect("json")).expect("write");
        let e = engine(&reg);
        let p = e.prepare(&e.find_item("raw-lease").expect("item"));
        assert_eq!(p.predicted.name(), "lease_conflict", "{:?}", p.checks);
        assert!(p.findings.iter().any(|f| f.rule_id == "unverified_raw_change"));
    }
}

#[test]
fn a_raw_change_must_stay_inside_the_todo_its_packet_names() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let ready = e.find_item(&item_with(&e, "docs-goal", "ready")).expect("item");
    let mut doc = item_doc(&ready.path);
    let state = std::fs::read_to_string(&e.goal("docs-goal").expect("goal").state_file).expect("state");
    doc["local_state_write_correctness"]["write_intent"]["target_refs"]["todo_id"] = json!("todo_61974865c668");
    doc["local_state_write_correctness"]["write_intent"]["expected_revision"]["value"] =
        json!(writegate::loopx::hash::revision_of_text(&state));
    doc["proposal"] =
        json!({"kind": "replace", "text": state.replace("Ship the demo smoke suite", "Delete the release branch")});
    std::fs::write(ready.path.with_file_name("raw-outside.json"), serde_json::to_vec(&doc).expect("json"))
        .expect("write");
    let p = e.prepare(&e.find_item("raw-outside").expect("item"));
    assert_eq!(p.predicted.name(), "invalid");
    assert!(p.invalid_reason.expect("reason").contains("outside todo blocks"));
}

#[test]
fn fifos_never_hang_and_are_reported() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let state = e.goal("docs-goal").expect("goal").state_file.clone();
    std::fs::remove_file(&state).expect("rm");
    assert!(Command::new("mkfifo").arg(&state).status().expect("mkfifo").success());
    let results = e.gate("demo-goal").expect("gate").results().path().to_owned();
    std::fs::remove_file(&results).expect("rm");
    assert!(Command::new("mkfifo").arg(&results).status().expect("mkfifo").success());
    let inbox_fifo = e.gate("demo-goal").expect("gate").inbox().join("fifo.json");
    assert!(Command::new("mkfifo").arg(&inbox_fifo).status().expect("mkfifo").success());
    let reg = reg.to_str().expect("utf8");
    for cmd in [["status"], ["list"], ["check"], ["log"]] {
        let out = run_with_timeout(&[&["--registry", reg][..], &cmd[..]].concat(), 10);
        assert_ne!(out.status.code(), Some(101), "{cmd:?} panicked");
    }
    let out = run_with_timeout(&["--registry", reg, "check"], 10);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("not a regular file"), "{text}");
}

#[test]
fn hostile_names_and_symlinks_are_invalid_and_never_printed_raw() {
    let (d, reg) = demo();
    let e = engine(&reg);
    let gate = e.gate("docs-goal").expect("gate");
    let ready = e.find_item(&item_with(&e, "docs-goal", "ready")).expect("item");
    std::fs::copy(&ready.path, gate.inbox().join("evil\u{1b}]0;PWN\u{7}\u{202e}x.json")).expect("copy");
    std::os::unix::fs::symlink(&ready.path, gate.inbox().join("link.json")).expect("symlink");
    std::os::unix::fs::symlink("/etc/hostname", gate.inbox().join("etc.json")).expect("symlink");
    let e = engine(&reg);
    let rows = e.list(Some("docs-goal"));
    let evil = rows.iter().find(|r| r.item_id.starts_with("evil")).expect("listed");
    assert_eq!(evil.predicted_status, "invalid");
    assert!(!evil.item_id.contains('\u{1b}') && !evil.item_id.contains('\u{202e}'));
    for id in ["link", "etc"] {
        assert_eq!(rows.iter().find(|r| r.item_id == id).expect("listed").predicted_status, "invalid", "{id}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_writegate"))
        .args(["--registry", reg.to_str().expect("utf8"), "list", "--json"])
        .env("XDG_STATE_HOME", d.path())
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}') && !text.contains('\u{7}'));
}

#[test]
fn a_gate_folder_symlinked_out_of_the_runtime_root_is_refused() {
    let (d, reg) = demo();
    let e = engine(&reg);
    let gate = e.gate("docs-goal").expect("gate").root().to_owned();
    let outside = d.path().join("elsewhere-gate");
    std::fs::rename(&gate, &outside).expect("move");
    std::os::unix::fs::symlink(&outside, &gate).expect("symlink");
    let e = engine(&reg);
    assert!(e.gate("docs-goal").is_err());
    assert!(e.list(Some("docs-goal")).is_empty());
    let out = Command::new(env!("CARGO_BIN_EXE_writegate"))
        .args(["--registry", reg.to_str().expect("utf8"), "check"])
        .env("XDG_STATE_HOME", d.path())
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&out.stdout).contains("resolves outside"));
}

#[test]
fn a_gate_subfolder_or_results_log_symlinked_out_of_the_runtime_root_is_refused() {
    // The gate's children are checked with one lstat each when they are plain entries of a
    // checked folder; a symlinked one still gets the full resolution, and is refused.
    for child in ["inbox", "decided", "results.jsonl"] {
        let (d, reg) = demo();
        let e = engine(&reg);
        let path = e.gate("docs-goal").expect("gate").root().join(child);
        let outside = d.path().join(format!("elsewhere-{child}"));
        if path.exists() {
            std::fs::rename(&path, &outside).expect("move");
        } else {
            std::fs::create_dir_all(&outside).expect("mkdir");
        }
        std::os::unix::fs::symlink(&outside, &path).expect("symlink");
        let e = engine(&reg);
        assert!(e.gate("docs-goal").is_err_and(|err| err.to_string().contains("outside")), "{child}");
    }
}

#[test]
fn a_forged_marker_cannot_move_files_and_a_foreign_record_is_damage() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let gate = e.gate("docs-goal").expect("gate");
    std::fs::create_dir_all(gate.applying()).expect("mkdir");
    let marker = json!({"item_id": "../../../../../.loopx/registry", "base_revision": "x", "applied_revision": "y",
        "record": serde_json::to_value(&e.log(Some("docs-goal")).expect("log")[0]).expect("rec")});
    std::fs::write(gate.applying().join("evil.json"), marker.to_string()).expect("write");
    let id = item_with(&e, "docs-goal", "ready");
    assert!(e.decide(&id, &Decision::Skip, None).is_err(), "a marker with an unsafe id stops the decision");
    assert!(reg.exists(), "the registry was not moved");
    std::fs::remove_file(gate.applying().join("evil.json")).expect("rm");

    let mut rec = e.log(Some("docs-goal")).expect("log")[0].clone();
    rec.goal_id = "demo-goal".into();
    gate.results().append(&rec).expect("append");
    assert!(gate.results().read_all(false).is_err(), "a record for another goal is damage");
    assert_eq!(e.prepare(&e.find_item(&id).expect("item")).predicted.name(), "failed");
}

#[test]
fn duplicate_goal_ids_are_reported() {
    let (d, reg) = demo();
    let mut v: Value = serde_json::from_slice(&std::fs::read(&reg).expect("reg")).expect("json");
    let first = v["goals"][0].clone();
    v["goals"].as_array_mut().expect("goals").push(first);
    std::fs::write(&reg, serde_json::to_vec(&v).expect("json")).expect("write");
    let e = engine(&reg);
    assert_eq!(e.ws.goals.iter().filter(|g| g.id == "demo-goal").count(), 1);
    assert!(e.ws.broken_goals.iter().any(|(id, why)| id == "demo-goal" && why.contains("duplicate")));
    let _ = d;
}

/// Swaps the state file (or, with `whole_folder`, the goal's state folder) for a symlink to
/// an identical copy outside the repo, after the engine loaded the workspace.
fn swap_state_for_outside_copy(
    e: &writegate::engine::Engine,
    outside: &Path,
    whole_folder: bool,
) -> std::path::PathBuf {
    let state = e.goal("docs-goal").expect("goal").state_file.clone();
    std::fs::create_dir_all(outside).expect("mkdir");
    if whole_folder {
        let folder = state.parent().expect("folder").to_owned();
        std::fs::remove_dir(outside).expect("rmdir");
        std::fs::rename(&folder, outside).expect("move folder");
        std::os::unix::fs::symlink(outside, &folder).expect("symlink");
    } else {
        std::fs::copy(&state, outside.join("copy.md")).expect("copy");
        std::fs::remove_file(&state).expect("rm");
        std::os::unix::fs::symlink(outside.join("copy.md"), &state).expect("symlink");
    }
    outside.join(if whole_folder { state.file_name().expect("name").to_str().expect("utf8") } else { "copy.md" })
}

#[test]
fn a_state_file_or_folder_swapped_for_a_symlink_out_of_the_repo_is_never_written() {
    for whole_folder in [false, true] {
        let (d, reg) = demo();
        let e = engine(&reg);
        let id = item_with(&e, "docs-goal", "ready");
        let outside = d.path().join("outside");
        let victim = swap_state_for_outside_copy(&e, &outside, whole_folder);
        let before = std::fs::read(&victim).expect("victim");
        let apply = Decision::apply();
        let err = e.decide(&id, &apply, None).expect_err("refused");
        let msg = err.to_string();
        assert!(msg.contains("nothing was written") && msg.contains("outside"), "{msg}");
        assert_eq!(std::fs::read(&victim).expect("victim"), before, "whole folder: {whole_folder}");
        assert!(e.find_item(&id).is_ok(), "the item stays pending");
        assert!(e.log(Some("docs-goal")).expect("log").iter().all(|r| r.item_id != id));
    }
}

#[test]
fn a_state_file_symlinked_inside_the_repo_is_written_through_as_loopx_does() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let id = item_with(&e, "docs-goal", "ready");
    let goal = e.goal("docs-goal").expect("goal").clone();
    let real = goal.repo.join("real-state.md");
    std::fs::rename(&goal.state_file, &real).expect("move");
    std::os::unix::fs::symlink(&real, &goal.state_file).expect("symlink");
    let expected = e.prepare(&e.find_item(&id).expect("item")).proposed_text.expect("proposed").to_string();
    let apply = Decision::apply();
    let out = e.decide(&id, &apply, None).expect("decide");
    assert_eq!(out.status.as_str(), "applied", "{}", out.message);
    assert!(std::fs::symlink_metadata(&goal.state_file).expect("meta").file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&real).expect("real"), expected);
}

#[test]
fn a_registry_larger_than_16_mib_as_loopx_writes_for_many_goals_is_read() {
    // Issue 15: LoopX writes a registry over 16 MiB before 10,000 goals; writegate refused it.
    let dir = tempfile::tempdir().expect("tmp");
    let registry = dir.path().join("project/.loopx/registry.json");
    std::fs::create_dir_all(registry.parent().expect("parent")).expect("mkdir");
    let pad = "x".repeat(1700);
    let goals: Vec<serde_json::Value> = (0..11_000)
        .map(|i| {
            json!({"id": format!("goal-{i:05}"), "status": "active", "repo": dir.path().join("project"),
                "state_file": format!(".codex/goals/goal-{i:05}/ACTIVE_GOAL_STATE.md"), "objective": pad})
        })
        .collect();
    let bytes = serde_json::to_vec(&json!({"schema_version": "0.1", "goals": goals})).expect("json");
    assert!(bytes.len() > 16 * 1024 * 1024, "{} bytes", bytes.len());
    std::fs::write(&registry, bytes).expect("write");
    let loc = writegate::loopx::registry::Locator {
        registry: Some(registry),
        ..writegate::loopx::registry::Locator::from_env(None, None)
    };
    let ws = writegate::loopx::registry::Workspace::load(&loc).expect("a large registry is read");
    assert_eq!(ws.goals.len() + ws.broken_goals.len(), 11_000);
}

#[test]
fn the_remembered_results_log_reads_what_was_appended_and_rereads_a_replaced_or_rewritten_file() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let log = e.gate("docs-goal").expect("gate").results();
    let same = |why: &str| {
        let full = log.read_all(false).expect("read_all");
        let remembered = log.read_remembered().expect("read_remembered");
        let remembered: Vec<_> = remembered.iter().map(|r| (**r).clone()).collect();
        assert_eq!(remembered, full, "{why}");
        full.len()
    };
    let n = same("first read");
    assert!(n > 0, "the demo has decisions");
    let mut rec = log.read_all(false).expect("read")[0].clone();
    for k in 0..3 {
        rec.item_id = format!("appended-{k}");
        log.append(&rec).expect("append");
        assert_eq!(same("after an append"), n + k + 1);
    }
    // A torn append (half a line) is not a record; once the line is whole, it is.
    let line = writegate::gate::results::encode_line(&{
        let mut r = rec.clone();
        r.item_id = "torn".into();
        r
    });
    let (a, b) = line.split_at(line.len() / 2);
    std::fs::OpenOptions::new()
        .append(true)
        .open(log.path())
        .and_then(|mut f| f.write_all(a.as_bytes()))
        .expect("half");
    assert_eq!(same("torn tail"), n + 3);
    std::fs::OpenOptions::new()
        .append(true)
        .open(log.path())
        .and_then(|mut f| f.write_all(b.as_bytes()))
        .expect("rest");
    assert_eq!(same("completed line"), n + 4);
    // The verified end rewritten (cut, then another record): read whole again.
    let bytes = std::fs::read(log.path()).expect("read");
    let cut = bytes[..bytes.len() - 1].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
    std::fs::OpenOptions::new().write(true).open(log.path()).and_then(|f| f.set_len(cut as u64)).expect("cut");
    rec.item_id = "other-end".into();
    log.append(&rec).expect("append");
    assert_eq!(same("rewritten end"), n + 4);
    // The file replaced (a new inode) with a damaged line in the middle: the damage shows.
    let mut text = String::from_utf8(std::fs::read(log.path()).expect("read")).expect("utf8");
    let at = text.find("appended-0").expect("record");
    text.replace_range(at..at + 10, "appended-X");
    let tmp = log.path().with_extension("swap");
    std::fs::write(&tmp, &text).expect("write");
    std::fs::rename(&tmp, log.path()).expect("rename");
    assert!(log.read_all(false).is_err());
    assert!(log.read_remembered().is_err(), "a replaced log is verified again");
}
