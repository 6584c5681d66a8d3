//! Writeback previews end to end on the demo workspace: each entry criterion failing on its
//! own and all passing, the inbox and command adapters (dry run first, timeout → failed),
//! idempotency (same key → skipped, not re-sent; other payload → refused), the scan on a
//! handoff carrying transcript text, "record a blocker", and the LoopX result runs.

mod common;
use common::{demo, engine};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use writegate::engine::{Decision, Engine, EngineError};
use writegate::wire::Status;

const APPLY: Decision = Decision::Apply { confirm_warnings: false, override_idempotency: false };

fn runtime(e: &Engine) -> PathBuf {
    e.ws.runtime_root.clone()
}

fn metadata_lines(e: &Engine, runtime_id: &str, session: &str) -> Vec<Value> {
    let path = runtime(e).join("runtimes").join(runtime_id).join(session).join("metadata.jsonl");
    std::fs::read_to_string(path).unwrap_or_default().lines().map(|l| serde_json::from_str(l).expect("json")).collect()
}

fn run_rows(e: &Engine) -> Vec<Value> {
    let path = runtime(e).join("goals/demo-goal/runs/index.jsonl");
    std::fs::read_to_string(path).expect("index").lines().map(|l| serde_json::from_str(l).expect("json")).collect()
}

fn writeback_rows(e: &Engine) -> Vec<Value> {
    run_rows(e).into_iter().filter(|r| r["classification"] == "controlled_writeback").collect()
}

fn failing(e: &Engine, id: &str) -> Vec<String> {
    let p = e.prepare(&e.find_item(id).expect("item"));
    p.checks.iter().filter(|c| !c.ok).map(|c| c.name.clone()).collect()
}

fn drop_item(e: &Engine, name: &str, doc: &Value) {
    let inbox = runtime(e).join("goals/demo-goal/gate/inbox");
    std::fs::write(inbox.join(format!("{name}.json")), serde_json::to_string_pretty(doc).expect("json")).expect("drop");
}

fn demo_doc(name: &str) -> Value {
    writegate::demo::writebacks().into_iter().find(|(n, _)| *n == name).expect("demo writeback").1
}

#[test]
fn each_entry_criterion_fails_on_its_own_and_read_only_items_are_never_sent() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    for (id, criterion) in [
        ("writeback-no-session", "entry.1 projection ids"),
        ("writeback-unrecorded-run", "entry.2 LoopX source event"),
        ("writeback-no-dry-run", "entry.3 runtime dry run"),
        ("writeback-reward-score", "entry.4 compact payload"),
        ("writeback-offline-runtime", "entry.5 result reporting"),
    ] {
        assert_eq!(failing(&e, id), [criterion], "{id}");
        let p = e.prepare(&e.find_item(id).expect("item"));
        assert_eq!(p.predicted.name(), "preview_only", "{id}");
        let before = run_rows(&e).len();
        match e.decide(id, &APPLY, None) {
            Err(EngineError::Refused(m)) => assert!(m.contains(criterion) && m.contains("record a blocker"), "{m}"),
            other => panic!("{id}: apply must be refused, got {other:?}"),
        }
        assert!(e.find_item(id).is_ok(), "{id} stays pending");
        assert_eq!(run_rows(&e).len(), before, "nothing recorded for a refused apply");
    }
    assert!(!runtime(&e).join("runtimes").exists(), "no runtime was written to");
    for id in ["writeback-handoff", "writeback-gate-approved"] {
        assert!(failing(&e, id).is_empty(), "{id}: {:?}", failing(&e, id));
    }
}

#[test]
fn a_passing_writeback_is_reflected_once_and_recorded_with_a_loopx_run() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let out = e.decide("writeback-gate-approved", &APPLY, None).expect("apply");
    assert_eq!(out.status, Status::Applied, "{}", out.message);
    assert!(out.item_moved);
    let lines = metadata_lines(&e, "codex_cli_tui", "public-safe-session-handle");
    assert_eq!(lines.len(), 1);
    let line = &lines[0];
    assert_eq!(line["write_class"], "operator_gate_decision");
    assert_eq!(line["payload"]["decision_label"], "approve");
    let event_id = line["runtime_event_id"].as_str().expect("event id").to_owned();
    assert!(event_id.starts_with("rte_"));
    let rec = out.record.expect("record");
    assert_eq!(rec.kind, "writeback");
    assert_eq!(rec.writeback.as_ref().expect("wb")["runtime_event_id"], event_id.as_str());
    let rows = writeback_rows(&e);
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    let cw = &row["controlled_writeback"];
    assert_eq!((cw["status"].as_str(), cw["write_class"].as_str()), (Some("applied"), Some("operator_gate_decision")));
    assert_eq!(cw["runtime_event_id"], event_id.as_str());
    assert_eq!(row["progress_scope"], "agent_lane");
    let text = serde_json::to_string(row).expect("json");
    assert!(!text.contains(&runtime(&e).display().to_string()), "no absolute path in the run row: {text}");

    // The same key and payload again: skipped, not re-sent. Another payload: refused.
    drop_item(&e, "again", &demo_doc("writeback-gate-approved"));
    assert_eq!(e.prepare(&e.find_item("again").expect("item")).predicted.name(), "skipped_duplicate");
    let out = e.decide("again", &APPLY, None).expect("apply");
    assert_eq!(out.status, Status::Skipped);
    assert_eq!(out.record.as_ref().and_then(|r| r.reason_code.clone()).as_deref(), Some("already_reflected"));
    assert_eq!(metadata_lines(&e, "codex_cli_tui", "public-safe-session-handle").len(), 1, "not re-sent");
    assert_eq!(writeback_rows(&e).last().expect("row")["controlled_writeback"]["status"], "skipped");
    let mut other = demo_doc("writeback-gate-approved");
    other["writeback"]["payload"]["reason_summary"] = json!("a different reason");
    drop_item(&e, "other", &other);
    let out = e.decide("other", &APPLY, None).expect("apply");
    assert_eq!(out.status, Status::IdempotencyConflict);
    assert!(!out.item_moved);
    assert_eq!(metadata_lines(&e, "codex_cli_tui", "public-safe-session-handle").len(), 1);
}

#[test]
fn a_handoff_carrying_transcript_text_is_refused_by_the_scan_and_a_blocker_can_be_recorded() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let mut doc = demo_doc("writeback-handoff");
    doc["writeback"]["idempotency_key"] = json!("demo-goal:transcript:handoff");
    doc["writeback"]["payload"]["summary"] = json!("User: please deploy it\nAssistant: running the deploy now");
    drop_item(&e, "transcript", &doc);
    assert_eq!(failing(&e, "transcript"), ["entry.4 compact payload"]);
    let p = e.prepare(&e.find_item("transcript").expect("item"));
    assert!(p.findings.iter().any(|f| f.category == "transcripts"), "{:?}", p.findings);

    let before: Vec<String> = e.items(Some("demo-goal")).iter().map(|i| i.id.clone()).collect();
    let out = e.decide("transcript", &Decision::RecordBlocker, None).expect("record blocker");
    assert_eq!(out.status, Status::Rejected);
    assert!(out.item_moved);
    let rec = out.record.expect("record");
    assert_eq!(rec.reason_code.as_deref(), Some("blocker_recorded"));
    let new: Vec<_> = e.items(Some("demo-goal")).into_iter().filter(|i| !before.contains(&i.id)).collect();
    assert_eq!(new.len(), 1, "one blocker todo proposed");
    let blocker = e.prepare(&new[0]);
    assert_eq!(blocker.predicted.name(), "ready", "{:?}", blocker.checks);
    let text = blocker.proposed_text.clone().expect("text");
    assert!(text.contains("[P1] Writeback blocked: handoff_packet_pointer to codex_cli_tui failed entry criteria 4"));
    assert!(text.contains("task_class=blocker"), "{text}");
    assert!(!text.contains("deploy"), "no payload text in the todo");
    assert!(rec.reason.as_deref().is_some_and(|r| r.contains(&new[0].id)));
    assert_eq!(writeback_rows(&e).last().expect("row")["controlled_writeback"]["reason_code"], "blocker_recorded");
    // A passing writeback has no blocker to record; an intent neither.
    assert!(matches!(e.decide("writeback-handoff", &Decision::RecordBlocker, None), Err(EngineError::Refused(_))));
}

fn script(dir: &Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt as _;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path.display().to_string()
}

fn with_command(e: Engine, program: &str, timeout_ms: u64) -> Engine {
    let toml = format!(
        "[runtimes.codex_cli_tui]\nadapter = \"command\"\nprogram = \"{program}\"\ntimeout_ms = {timeout_ms}\n"
    );
    let cfg = writegate::config::parse(&toml).expect("config");
    e.with_adapters(&cfg.adapters())
}

#[test]
fn a_command_adapter_dry_runs_first_and_a_timeout_or_bad_answer_is_failed() {
    let (dir, reg) = demo();
    let log = dir.path().join("calls.log");
    let good = script(
        dir.path(),
        "runtime-ok",
        &format!(
            "echo \"$@\" >> {log}\ncat > /dev/null\ncase \"$1\" in\n--has-key) echo '{{\"present\": false}}';;\n--dry-run) echo '{{\"status\": \"previewed\"}}';;\n*) echo '{{\"status\": \"applied\", \"runtime_event_id\": \"evt_42\"}}';;\nesac",
            log = log.display()
        ),
    );
    let e = with_command(engine(&reg), &good, 3000);
    let out = e.decide("writeback-handoff", &APPLY, None).expect("apply");
    assert_eq!(out.status, Status::Applied, "{}", out.message);
    assert_eq!(out.record.as_ref().expect("rec").writeback.as_ref().expect("wb")["runtime_event_id"], "evt_42");
    let calls = std::fs::read_to_string(&log).expect("log");
    let calls: Vec<&str> = calls.lines().collect();
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert!(calls[0].starts_with("--has-key demo-goal:"), "{calls:?}");
    assert_eq!(calls[1], "--dry-run");
    assert_eq!(calls[2], "");
    assert!(!runtime(&e).join("runtimes").exists(), "the command adapter, not the inbox, served it");

    let slow = script(dir.path(), "runtime-slow", "cat > /dev/null\nsleep 5\necho '{\"status\": \"applied\"}'");
    let e = with_command(engine(&reg), &slow, 300);
    let started = std::time::Instant::now();
    let out = e.decide("writeback-gate-approved", &APPLY, None).expect("apply");
    assert!(started.elapsed() < std::time::Duration::from_secs(4), "the timeout bounds the wait");
    assert_eq!(out.status, Status::Failed, "{}", out.message);
    assert!(out.item_moved, "a failed reflection is recorded; a new item retries it");
    assert!(out.record.as_ref().and_then(|r| r.reason.clone()).is_some_and(|r| r.contains("timed out")));
    assert_eq!(writeback_rows(&e).last().expect("row")["controlled_writeback"]["status"], "failed");

    let liar = script(dir.path(), "runtime-liar", "cat > /dev/null\necho 'approved!'");
    let e = with_command(engine(&reg), &liar, 3000);
    let mut doc = demo_doc("writeback-handoff");
    doc["writeback"]["idempotency_key"] = json!("demo-goal:liar:handoff");
    drop_item(&e, "liar", &doc);
    let out = e.decide("liar", &APPLY, None).expect("apply");
    assert_eq!(out.status, Status::Failed, "an answer that is not JSON is never approval");
}
