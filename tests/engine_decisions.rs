//! Decisions through the engine on the demo workspace: apply, skip, reject, conflicts
//! recorded without writing, overrides, changed items, and the results log.

mod common;
use common::{EXPIRED_LEASE, demo, engine, item_with};
use writegate::engine::{Approval, Decision, EngineError};
use writegate::loopx::hash::revision_of_text;
use writegate::wire::Status;

const APPLY: Decision = Decision::apply();

fn state(engine: &writegate::engine::Engine, goal: &str) -> String {
    std::fs::read_to_string(&engine.goal(goal).expect("goal").state_file).expect("state")
}

#[test]
fn apply_writes_exactly_the_previewed_text_and_records_once() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let id = item_with(&e, "docs-goal", "ready");
    let prepared = e.prepare(&e.find_item(&id).expect("item"));
    let expected = prepared.proposed_text.clone().expect("proposed");
    let before = state(&e, "docs-goal");
    let out = e.decide(&id, &APPLY, Some(&prepared.item.payload_digest)).expect("decide");
    assert_eq!(out.status, Status::Applied, "{}", out.message);
    assert_eq!(state(&e, "docs-goal"), *expected);
    let rec = out.record.expect("record");
    assert_eq!(rec.base_revision.as_deref(), Some(revision_of_text(&before).as_str()));
    assert_eq!(rec.applied_revision.as_deref(), Some(revision_of_text(&expected).as_str()));
    assert!(e.find_item(&id).is_err(), "item left the inbox");
    let gate = e.gate("docs-goal").expect("gate");
    assert!(gate.decided().join(format!("{id}.json")).exists());
    let log = e.log(Some("docs-goal")).expect("log");
    assert_eq!(log.iter().filter(|r| r.item_id == id).count(), 1);
    let raw = std::fs::read_to_string(gate.results().path()).expect("results");
    assert!(!raw.contains("Run the smoke suite"), "results never hold the payload body");
    // Both sides of the write are kept as revision snapshots, byte for byte.
    let store = gate.revisions();
    assert_eq!(store.load(&revision_of_text(&before)).expect("base").as_deref(), Some(before.as_str()));
    assert_eq!(store.load(&revision_of_text(&expected)).expect("new").as_deref(), Some(expected.as_str()));
}

#[test]
fn revision_snapshots_are_pruned_but_current_and_pending_bases_stay() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let id = item_with(&e, "docs-goal", "ready");
    let pending_base = e.find_item(&id).expect("item").intent.expect("intent").expected_revision;
    let gate = e.gate("docs-goal").expect("gate");
    let store = gate.revisions();
    let base = state(&e, "docs-goal");
    store.keep(&base).expect("keep base");
    for i in 0..5 {
        store.keep(&format!("an older state {i}\n")).expect("keep");
    }
    let count = || std::fs::read_dir(store.dir()).expect("dir").count();
    let before = count();
    assert!(before >= 6, "the demo's proposals kept their bases too");
    let results = e.prune_revisions(0, std::time::Duration::from_secs(3600));
    let (_, r) = results.iter().find(|(g, _)| g == "docs-goal").expect("goal");
    let r = r.as_ref().expect("pruned");
    assert_eq!((r.kept, r.removed), (1, before - 1), "{r:?}");
    assert_eq!(count(), 1);
    assert!(store.load(&revision_of_text(&base)).expect("load").is_some(), "the current state stays");
    assert_eq!(revision_of_text(&base), pending_base, "the demo item is based on the current state");
    for i in 0..5 {
        assert_eq!(store.load(&revision_of_text(&format!("an older state {i}\n"))).expect("load"), None);
    }
}

#[test]
fn conflicts_are_recorded_but_never_write_and_the_item_stays() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let stale = common::stale_item(&e);
    for status in ["revision_conflict", "lease_conflict", "boundary_rejected"] {
        let id = if status == "revision_conflict" { stale.clone() } else { item_with(&e, "demo-goal", status) };
        let before = state(&e, "demo-goal");
        let out = e.decide(&id, &APPLY, None).expect("decide");
        assert_eq!(out.status.as_str(), status);
        assert!(!out.item_moved);
        assert_eq!(state(&e, "demo-goal"), before, "{status} wrote the state");
        assert!(e.find_item(&id).is_ok(), "{status} item stays pending");
    }
}

#[test]
fn duplicate_is_skipped_and_moved() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let id = item_with(&e, "demo-goal", "skipped_duplicate");
    let before = state(&e, "demo-goal");
    let out = e.decide(&id, &APPLY, None).expect("decide");
    assert_eq!(out.status, Status::SkippedDuplicate);
    assert!(out.item_moved);
    assert_eq!(state(&e, "demo-goal"), before);
}

#[test]
fn idempotency_conflict_needs_an_explicit_override_that_records_both_digests() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let id = item_with(&e, "docs-goal", "idempotency_conflict");
    // The conflict shows where the earlier applied proposal and this one differ.
    let c = e.prepare(&e.find_item(&id).expect("item")).conflict.expect("conflict");
    assert_eq!(c["prior_proposal_found"], true, "{c}");
    let d = c["proposal_diff"].as_str().expect("diff");
    assert!(d.lines().any(|l| l.starts_with('-')) && d.lines().any(|l| l.starts_with('+')), "{d}");
    let out = e.decide(&id, &APPLY, None).expect("decide");
    assert_eq!(out.status, Status::IdempotencyConflict);
    let out = e
        .decide(
            &id,
            &Decision::Apply(Approval { confirm_warnings: false, override_idempotency: true, ..Approval::default() }),
            None,
        )
        .expect("override");
    assert_eq!(out.status, Status::Applied, "{}", out.message);
    let rec = out.record.expect("record");
    assert_eq!(rec.reason_code.as_deref(), Some("idempotency_override"));
    assert!(rec.override_of_effect_digest.is_some_and(|d| d != rec.effect_digest));
}

#[test]
fn warnings_need_confirmation() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let id = e
        .list(Some("demo-goal"))
        .into_iter()
        .find(|r| r.predicted_status == "ready" && e.prepare(&e.find_item(&r.item_id).expect("item")).has_warnings())
        .expect("warn item")
        .item_id;
    assert!(e.decide(&id, &APPLY, None).is_err());
    let out = e.decide(&id, &Decision::apply_confirmed(), None).expect("confirmed");
    assert_eq!(out.status, Status::Applied);
}

#[test]
fn skip_and_reject_record_and_move_without_writing() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let a = common::stale_item(&e);
    let before = state(&e, "demo-goal");
    assert_eq!(e.decide(&a, &Decision::Skip, None).expect("skip").status, Status::Skipped);
    let b = item_with(&e, "demo-goal", "boundary_rejected");
    assert!(
        e.decide(&b, &Decision::Reject { reason: "  \u{1b}[31m ".into() }, None).is_err(),
        "empty reason after sanitising"
    );
    let out = e.decide(&b, &Decision::Reject { reason: "contains a token\u{7}".into() }, None).expect("reject");
    assert_eq!(out.record.expect("rec").reason.as_deref(), Some("contains a token"));
    assert_eq!(state(&e, "demo-goal"), before);
    assert!(matches!(e.decide(&a, &Decision::Skip, None), Err(EngineError::NoSuchItem(_))));
    let kept = e.gate("demo-goal").expect("gate").revisions().load(&revision_of_text(&before)).expect("load");
    assert_eq!(kept.as_deref(), Some(before.as_str()), "the state decided on is kept as a snapshot");
}

#[test]
fn an_item_changed_after_preview_is_not_decided() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let id = item_with(&e, "docs-goal", "ready");
    let item = e.find_item(&id).expect("item");
    let digest = item.payload_digest.clone();
    let mut text = std::fs::read_to_string(&item.path).expect("item");
    text.push(' ');
    std::fs::write(&item.path, text).expect("touch");
    assert!(matches!(e.decide(&id, &APPLY, Some(&digest)), Err(EngineError::ItemChanged(_))));
}

#[test]
fn invalid_items_are_never_applied_or_deleted() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    for id in ["half-written", "raw-loopx-dry-run"] {
        let out = e.decide(id, &APPLY, None).expect("decide");
        assert_eq!(out.status, Status::Failed);
        assert!(e.find_item(id).is_ok(), "{id} kept");
    }
}

#[test]
fn a_torn_results_line_is_repaired_and_mid_file_damage_is_reported() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let log = e.gate("docs-goal").expect("gate").results();
    let good = std::fs::read_to_string(log.path()).expect("log");
    std::fs::write(log.path(), format!("{good}{{\"schema_version\":\"writegate_res")).expect("tear");
    assert_eq!(log.read_all(true).expect("repaired").len(), good.lines().count());
    assert_eq!(std::fs::read_to_string(log.path()).expect("log"), good);
    std::fs::write(log.path(), format!("{{\"x\":1}}\n{good}")).expect("damage");
    assert!(log.read_all(true).is_err(), "damage mid-file is an error");
}

#[test]
fn a_whole_last_record_without_its_newline_is_kept_not_moved_aside() {
    // Issue 12 case 11: the record verifies, so it was appended; only its `\n` is missing.
    let (_d, reg) = demo();
    let e = engine(&reg);
    let log = e.gate("docs-goal").expect("gate").results();
    let good = std::fs::read_to_string(log.path()).expect("log");
    let count = good.lines().count();
    std::fs::write(log.path(), good.trim_end_matches('\n')).expect("cut the newline");
    assert!(!log.has_torn_tail(), "a verifying record is not torn");
    assert_eq!(log.read_all(false).expect("read").len(), count, "the record counts before repair");
    assert_eq!(log.read_all(true).expect("repair").len(), count);
    assert_eq!(std::fs::read_to_string(log.path()).expect("log"), good, "repair only completes the line");
    let aside = std::fs::read_dir(log.path().parent().expect("dir"))
        .expect("dir")
        .filter_map(Result::ok)
        .any(|f| f.file_name().to_string_lossy().contains("torn-"));
    assert!(!aside, "nothing moved aside");
}

#[test]
fn lock_busy_when_another_holder_keeps_the_state_lock() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let id = item_with(&e, "docs-goal", "ready");
    let target = e.goal("docs-goal").expect("goal").state_file.clone();
    let req = writegate::loopx::lock::LockRequest {
        target: &target,
        agent_id: Some("codex-x"),
        operation: "todo_add",
        timeout: std::time::Duration::from_secs(1),
    };
    let held = writegate::loopx::lock::acquire(&req).expect("hold");
    let out = e.decide(&id, &APPLY, None).expect("decide");
    assert_eq!(out.status, Status::LockBusy);
    let lock = out.lock.expect("lock details");
    assert_eq!(lock["holder"]["agent_id"], "codex-x");
    assert_eq!(lock["incident_recorded"], true);
    drop(held);
    assert_eq!(e.decide(&id, &APPLY, None).expect("retry").status, Status::Applied);
}

#[test]
fn the_operator_allowlist_downgrades_by_fingerprint_and_bad_files_allow_nothing() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let id = item_with(&e, "demo-goal", "boundary_rejected");
    let p = e.prepare(&e.find_item(&id).expect("item"));
    let entries: Vec<serde_json::Value> = p
        .findings
        .iter()
        .filter(|f| f.severity == "block")
        .map(|f| serde_json::json!({"fingerprint": f.fingerprint, "who": "ops-lead", "why": "test fixture token, revoked"}))
        .collect();
    assert!(!entries.is_empty());
    let gate = e.gate("demo-goal").expect("gate");
    std::fs::write(gate.root().join("allowlist.json"), serde_json::to_vec(&entries).expect("json")).expect("write");
    let p = e.prepare(&e.find_item(&id).expect("item"));
    assert_ne!(p.predicted.name(), "boundary_rejected", "{:?}", p.checks);
    assert!(p.findings.iter().any(|f| f.severity == "info" && f.reason.contains("allowed by ops-lead")));
    std::fs::write(gate.root().join("allowlist.json"), "[{\"fingerprint\": \"x\"}]").expect("write");
    let p = e.prepare(&e.find_item(&id).expect("item"));
    assert_eq!(p.predicted.name(), "boundary_rejected", "a bad allowlist allows nothing");
}

#[test]
fn a_stale_item_shows_base_current_and_the_proposal_on_the_base() {
    use writegate::loopx::edit::{TodoArgs, TodoOp};
    use writegate::loopx::state::ActiveState;
    let (_d, reg) = demo();
    let e = engine(&reg);
    let path = e.goal("demo-goal").expect("goal").state_file.clone();
    let base = state(&e, "demo-goal");
    let todo = ActiveState::parse(&base).todos.iter().find(|t| t.status == "open").expect("open todo").clone();
    let op = TodoOp::TodoUpdate(TodoArgs {
        todo_id: Some(todo.todo_id.to_string()),
        agent_id: Some("codex-main-control".into()),
        note: Some("measured twice".into()),
        ..TodoArgs::default()
    });
    let id = e.propose("demo-goal", &op).expect("propose").item_id;

    // Someone else appends a line at the end: stale, but not overlapping, so recomputed.
    std::fs::write(&path, format!("{base}\nAn operator's note.\n")).expect("edit");
    let p = e.prepare(&e.find_item(&id).expect("item"));
    assert_eq!(p.predicted.name(), "ready");
    assert_eq!(p.recomputed.as_ref().map(|r| r.moved.clone()), Some(vec!["## Progress Ledger changed".to_owned()]));
    let view = p.three_way.as_ref().expect("base kept at propose");
    assert_eq!(view.base, base);
    assert!(view.proposed.as_ref().expect("applies to the base").contains("note=measured%20twice"));
    assert!(view.overlaps.is_empty(), "{:?}", view.overlaps);
    let c = p.conflict.as_ref().expect("conflict");
    assert_eq!(
        (c["base_known"].as_bool(), c["overlapping_base_lines"].as_array().map(Vec::len)),
        (Some(true), Some(0))
    );
    assert!(c["since_base_diff"].as_str().is_some_and(|d| d.contains("+An operator's note.")), "{c}");
    assert!(
        c["proposal_on_base_diff"]
            .as_str()
            .is_some_and(|d| d.contains("+  <!-- loopx:todo") && d.contains("measured%20twice"))
    );

    // Someone else edits the very todo the agent updates (`line` is 0-based): the ranges meet.
    let lines: Vec<&str> = base.lines().collect();
    let edited: String = lines
        .iter()
        .enumerate()
        .map(|(i, l)| if i == todo.line { format!("{l} (reworded)\n") } else { format!("{l}\n") })
        .collect();
    std::fs::write(&path, &edited).expect("edit");
    let p = e.prepare(&e.find_item(&id).expect("item"));
    assert_eq!(p.predicted.name(), "revision_conflict");
    let view = p.three_way.as_ref().expect("view");
    let line = todo.line + 1;
    assert!(
        view.overlaps.iter().any(|o| o.first <= line && line <= o.last),
        "todo line {} not in {:?}",
        todo.line,
        view.overlaps
    );

    // Without the snapshot the conflict says the base is unknown; a planted one is refused.
    let store = e.gate("demo-goal").expect("gate").revisions();
    let expected = e.find_item(&id).expect("item").intent.expect("intent").expected_revision;
    let file = store.dir().join(expected.trim_start_matches("sha256:"));
    std::fs::write(&file, "planted\n").expect("plant");
    let p = e.prepare(&e.find_item(&id).expect("item"));
    assert!(p.three_way.is_none());
    let c = p.conflict.expect("conflict");
    assert_eq!(c["base_known"], false);
    assert!(c["base_error"].as_str().is_some_and(|s| s.contains("does not match")), "{c}");
    std::fs::remove_file(&file).expect("rm");
    let c = e.prepare(&e.find_item(&id).expect("item")).conflict.expect("conflict");
    assert_eq!((c["base_known"].as_bool(), c.get("base_error")), (Some(false), None));
}

/// Proposes a `todo_update` on an open, unclaimed todo of demo-goal, then lets another
/// writer change another todo through the engine (or, with `other_same_todo`, reword this
/// todo's checkbox line in place): returns (dir guard, engine, item id).
fn stale_update(other_same_todo: bool) -> (tempfile::TempDir, writegate::engine::Engine, String) {
    use writegate::loopx::edit::{TodoArgs, TodoOp};
    use writegate::loopx::state::ActiveState;
    let (d, reg) = demo();
    let e = engine(&reg);
    let base = state(&e, "demo-goal");
    let parsed = ActiveState::parse(&base);
    let open: Vec<_> = parsed.todos.iter().filter(|t| t.status == "open" && t.claimed_by().is_none()).collect();
    let (mine, theirs) = (open[1].todo_id.to_string(), open[2].todo_id.to_string());
    let update = |todo: &str, note: &str| {
        TodoOp::TodoUpdate(TodoArgs {
            todo_id: Some(todo.into()),
            agent_id: Some("codex-main-control".into()),
            note: Some(note.into()),
            ..TodoArgs::default()
        })
    };
    let id = e.propose("demo-goal", &update(&mine, "rebase me")).expect("propose").item_id;
    if other_same_todo {
        let line = parsed.todos.iter().find(|t| t.todo_id == mine).expect("todo").line;
        let edited: String = base
            .lines()
            .enumerate()
            .map(|(i, l)| if i == line { format!("{l} (reworded)\n") } else { format!("{l}\n") })
            .collect();
        std::fs::write(&e.goal("demo-goal").expect("goal").state_file, edited).expect("edit");
    } else {
        let other_id = e.propose("demo-goal", &update(&theirs, "meanwhile")).expect("propose").item_id;
        let out = e.decide(&other_id, &APPLY, None).expect("apply other");
        assert_eq!(out.status, Status::Applied, "{}", out.message);
    }
    (d, e, id)
}

#[test]
fn a_stale_update_of_another_todo_is_recomputed_and_applied_with_the_normal_key() {
    use writegate::loopx::edit::{EditContext, apply_op};
    let (_d, e, id) = stale_update(false);
    let item = e.find_item(&id).expect("item");
    let p = e.prepare(&item);
    assert_eq!(p.predicted.name(), "ready", "{:?}", p.stale_reason);
    let r = p.recomputed.clone().expect("recomputed");
    let current = state(&e, "demo-goal");
    assert_eq!(r.onto, revision_of_text(&current));
    assert_eq!(r.moved.len(), 1, "{:?}", r.moved);
    assert!(r.moved[0].ends_with(" changed"), "{:?}", r.moved);
    assert_eq!(p.conflict.as_ref().map(|c| c["kind"].clone()), Some("recomputed".into()));
    assert!(p.to_wire().diff_notes.iter().any(|n| n.starts_with("recomputed on the current state")));
    // An apply pinned to the state the operator reviewed it on refuses once it moved.
    let stale_pin = Decision::Apply(Approval {
        on_revision: Some(item.intent.as_ref().expect("intent").expected_revision.clone()),
        ..Approval::default()
    });
    assert!(e.decide(&id, &stale_pin, None).is_err_and(|e| e.to_string().contains("review it again")));
    assert_eq!(state(&e, "demo-goal"), current, "nothing written");
    let pinned = Decision::Apply(Approval { on_revision: Some(r.onto.clone()), ..Approval::default() });
    let out = e.decide(&id, &pinned, None).expect("apply");
    assert_eq!(out.status, Status::Applied, "{}", out.message);
    // The bytes: exactly what LoopX's update does on the current state.
    let op = match &item.intent.as_ref().expect("intent").proposal {
        writegate::engine::Proposal::TodoOp(op) => op.clone(),
        other => panic!("{other:?}"),
    };
    let ctx = EditContext {
        goal_id: "demo-goal".into(),
        registered_agents: e.goal("demo-goal").expect("goal").registered_agents.clone(),
        now: e.clock.loopx_now(),
    };
    assert_eq!(state(&e, "demo-goal"), apply_op(&current, &op, &ctx).expect("op").text);
    assert!(state(&e, "demo-goal").contains("note=rebase%20me") && state(&e, "demo-goal").contains("note=meanwhile"));
    let rec = out.record.expect("record");
    assert_eq!(rec.reason_code.as_deref(), Some("rebased"));
    assert_eq!(rec.base_revision.as_deref(), Some(r.onto.as_str()));
    let intent = item.intent.expect("intent");
    assert_eq!(rec.expected_revision, Some(intent.expected_revision));
    assert_eq!(rec.idempotency_key, intent.idempotency_key);
}

#[test]
fn an_update_whose_todo_changed_since_the_base_stays_stale() {
    let (_d, e, id) = stale_update(true);
    let p = e.prepare(&e.find_item(&id).expect("item"));
    assert_eq!(p.predicted.name(), "revision_conflict");
    let why = p.stale_reason.clone().expect("why");
    assert!(why.contains("changed since the agent's base"), "{why}");
    let before = state(&e, "demo-goal");
    assert_eq!(e.decide(&id, &APPLY, None).expect("apply").status, Status::RevisionConflict);
    assert_eq!(state(&e, "demo-goal"), before);
    assert!(e.find_item(&id).is_ok(), "the item stays pending");
}

#[test]
fn replace_and_unknown_base_are_never_recomputed() {
    let (_d, e, id) = stale_update(false);
    let item = e.find_item(&id).expect("item");
    let expected = item.intent.as_ref().expect("intent").expected_revision.clone();
    let base = e.gate("demo-goal").expect("gate").revisions().load(&expected).expect("load").expect("kept");
    // The same stale item as a raw replace of the base.
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&item.path).expect("read")).expect("json");
    doc["proposal"] =
        serde_json::json!({"kind": "replace", "text": base.replace("Ship the demo", "Ship the raw demo")});
    std::fs::write(item.path.with_file_name("raw-stale.json"), serde_json::to_vec(&doc).expect("json")).expect("write");
    let p = e.prepare(&e.find_item("raw-stale").expect("item"));
    assert_eq!(p.predicted.name(), "revision_conflict");
    assert!(p.stale_reason.expect("raw").contains("never recomputed"));
    // Without the kept base the todo op is not rebased either.
    std::fs::remove_file(e.gate("demo-goal").expect("gate").revisions().dir().join(&expected[7..])).expect("rm");
    let p = e.prepare(&e.find_item(&id).expect("item"));
    assert!(p.stale_reason.expect("unknown base").contains("not kept"));
}

#[test]
fn conflict_diffs_never_show_a_full_secret() {
    use writegate::loopx::edit::{TodoArgs, TodoOp};
    let (_d, reg) = demo();
    let e = engine(&reg);
    let path = e.goal("demo-goal").expect("goal").state_file.clone();
    let secret = "ghp_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2gU8";
    let op = TodoOp::TodoUpdate(TodoArgs {
        todo_id: Some("todo_0384f4bcd660".into()),
        agent_id: Some("codex-main-control".into()),
        note: Some(format!("use {secret} now")),
        ..TodoArgs::default()
    });
    let id = e.propose("demo-goal", &op).expect("propose").item_id;
    // The state moves and now holds a secret of its own too.
    let current = state(&e, "demo-goal");
    std::fs::write(&path, format!("{current}\ntoken AKIAABCDEFGHIJKLMNOP\n")).expect("edit");
    let wire = e.prepare(&e.find_item(&id).expect("item")).to_wire();
    let shown = serde_json::to_string(&wire).expect("json");
    assert!(wire.conflict.as_ref().is_some_and(|c| c["base_known"] == true), "{shown}");
    assert!(!shown.contains(secret) && !shown.contains("AKIAABCDEFGHIJKLMNOP"), "a secret shown in full: {shown}");
}

#[test]
fn an_item_may_carry_its_base_text_which_must_be_its_expected_revision() {
    let (_d, e, id) = stale_update(false);
    let item = e.find_item(&id).expect("item");
    let expected = item.intent.as_ref().expect("intent").expected_revision.clone();
    let store = e.gate("demo-goal").expect("gate").revisions();
    let base = store.load(&expected).expect("load").expect("kept");
    std::fs::remove_file(store.dir().join(&expected[7..])).expect("rm");
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&item.path).expect("read")).expect("json");
    // The right text: the 3-way view and the rebase work from it; it is not scanned.
    doc["base_text"] = serde_json::json!(base.clone());
    std::fs::write(&item.path, serde_json::to_vec(&doc).expect("json")).expect("write");
    let p = e.prepare(&e.find_item(&id).expect("item"));
    let c = p.conflict.clone().expect("conflict");
    assert_eq!((c["base_known"].as_bool(), c["base_source"].as_str()), (Some(true), Some("item")), "{c}");
    assert!(p.recomputed.is_some(), "recomputed from the item's base: {:?}", p.stale_reason);
    // Text that is not the expected revision is refused.
    doc["base_text"] = serde_json::json!(format!("{base}tampered\n"));
    std::fs::write(&item.path, serde_json::to_vec(&doc).expect("json")).expect("write");
    let p = e.prepare(&e.find_item(&id).expect("item"));
    let c = p.conflict.clone().expect("conflict");
    assert_eq!(c["base_known"], false);
    assert!(c["base_error"].as_str().is_some_and(|s| s.contains("base_text")), "{c}");
    assert!(p.recomputed.is_none() && p.stale_reason.is_some());
    // A base_text that is not a string makes the item invalid (never guessed).
    doc["base_text"] = serde_json::json!(42);
    std::fs::write(&item.path, serde_json::to_vec(&doc).expect("json")).expect("write");
    assert_eq!(e.prepare(&e.find_item(&id).expect("item")).predicted.name(), "invalid");
}

#[test]
fn an_expired_hard_lease_is_released_only_explicitly_and_as_loopx_writes_it() {
    use writegate::loopx::lease::{LeaseRead, lease_path, read_lease};
    let (_d, reg) = demo();
    let e = engine(&reg);
    let dir = e.ws.goal_runtime_dir("demo-goal").expect("dir");
    let path = lease_path(&dir, "todo_c670645b588b");
    std::fs::write(&path, EXPIRED_LEASE).expect("pin lease");
    let held_up = |e: &writegate::engine::Engine| {
        e.items(Some("demo-goal")).into_iter().find(|i| {
            let c = e.prepare(i).conflict.unwrap_or_default();
            c["reason"] == "expired" && c["todo_id"] == "todo_c670645b588b"
        })
    };
    let item = held_up(&e).expect("an item held up by the expired lease");
    let LeaseRead::Present(seen) = read_lease(&dir, "todo_c670645b588b") else { panic!("lease") };
    let state_before = state(&e, "demo-goal");
    let refused = |r: Result<writegate::engine::Outcome, EngineError>, why: &str| match r {
        Err(EngineError::Refused(m)) => assert!(m.contains(why), "{why}: {m}"),
        other => panic!("{why}: expected a refusal, got {other:?}"),
    };

    // Apply stays a lease conflict; a release is refused for another todo, a changed lease,
    // and while LoopX's task-lease lock is held; none of these write.
    assert_eq!(e.decide(&item.id, &APPLY, None).expect("decide").status, Status::LeaseConflict);
    refused(e.release_expired_lease(&item, "todo_28ff25cccdd0", &seen, "x"), "not held up");
    let mut renewed = seen.clone();
    renewed.version += 1;
    refused(e.release_expired_lease(&item, "todo_c670645b588b", &renewed, "x"), "changed since");
    let effect_lock = dir.join("task-leases/.task-leases.ts-effect.lock");
    std::fs::write(&effect_lock, format!(r#"{{"pid":{},"token":"loopx-node"}}"#, std::process::id())).expect("lock");
    refused(e.release_expired_lease(&item, "todo_c670645b588b", &seen, "x"), "is held by pid");
    assert!(effect_lock.exists(), "a foreign lock is never removed");
    std::fs::remove_file(&effect_lock).expect("unlock");
    assert_eq!(std::fs::read_to_string(&path).expect("lease"), EXPIRED_LEASE);
    let records = || e.log(Some("demo-goal")).expect("log");
    assert!(records().iter().all(|r| r.decision != "release_lease"));

    // The confirmed release: LoopX's bytes, LoopX's lock gone, one record saying what was done.
    let out = e.release_expired_lease(&item, "todo_c670645b588b", &seen, "owner's run died\x1b[2J").expect("release");
    assert_eq!(out.status, Status::LeaseReleased);
    assert!(!out.item_moved);
    let expected = EXPIRED_LEASE
        .replace(r#""updated_at": "2026-11-29T12:00:00Z""#, r#""updated_at": "2026-11-29T14:00:00Z""#)
        .replace(r#""status": "active""#, "\"status\": \"released\",\n  \"released_at\": \"2026-11-29T14:00:00Z\"");
    assert_eq!(std::fs::read_to_string(&path).expect("lease"), expected);
    let left: Vec<String> = std::fs::read_dir(dir.join("task-leases"))
        .expect("dir")
        .filter_map(Result::ok)
        .map(|d| d.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "no lock, claim or temp file left: {left:?}");
    let rec = records().into_iter().find(|r| r.decision == "release_lease").expect("record");
    assert_eq!((rec.status, rec.reason_code.as_deref()), (Status::LeaseReleased, Some("expired_lease_released")));
    assert_eq!(rec.item_id, item.id);
    assert_eq!(rec.reason.as_deref(), Some("owner's run died"), "escape sequences are dropped");
    let lr = rec.lease_release.expect("lease fields");
    assert_eq!(lr["owner"], "codex-main-control");
    assert_eq!((lr["version"].as_i64(), lr["lease_epoch"].as_i64()), (Some(2), Some(1)));
    assert_eq!(lr["released_at"], "2026-11-29T14:00:00Z");
    assert_eq!(lr["after_sha256"], writegate::loopx::hash::sha256_hex(expected.as_bytes()));
    assert_eq!(state(&e, "demo-goal"), state_before, "a release never touches the state file");

    // The item is no longer held up and applies with the normal key; a second release is refused.
    assert!(held_up(&e).is_none());
    refused(e.release_expired_lease(&item, "todo_c670645b588b", &seen, "again"), "not held up");
    assert_eq!(e.decide(&item.id, &APPLY, None).expect("decide").status, Status::Applied);
}

#[test]
fn foreign_and_expired_hard_leases_each_give_lease_conflict_with_their_detail() {
    use writegate::loopx::lease::lease_path;
    let (_d, reg) = demo();
    let e = engine(&reg);
    let dir = e.ws.goal_runtime_dir("demo-goal").expect("dir");
    std::fs::write(lease_path(&dir, "todo_c670645b588b"), EXPIRED_LEASE).expect("pin expired");
    let foreign = EXPIRED_LEASE
        .replace("todo_c670645b588b", "todo_28ff25cccdd0")
        .replace("codex-main-control", "codex-peer-b")
        .replace("2026-11-29T13:00:00Z", "2026-11-29T16:00:00Z");
    std::fs::write(lease_path(&dir, "todo_28ff25cccdd0"), foreign).expect("pin foreign");
    let conflict_on = |todo: &str| {
        e.items(Some("demo-goal"))
            .into_iter()
            .map(|i| (i.id.clone(), e.prepare(&i)))
            .find(|(_, p)| p.conflict.as_ref().is_some_and(|c| c["todo_id"] == todo))
            .expect("an item on the todo")
    };
    let (id, p) = conflict_on("todo_28ff25cccdd0");
    let c = p.conflict.expect("conflict");
    assert_eq!((c["kind"].as_str(), c["reason"].as_str()), (Some("lease_conflict"), Some("foreign_holder")));
    assert_eq!(
        (c["hard_lease"]["owner"].as_str(), c["writer"].as_str()),
        (Some("codex-peer-b"), Some("codex-main-control"))
    );
    assert_eq!(c["hard_lease"]["expires_at"], "2026-11-29T16:00:00Z");
    let lease_check = p.checks.iter().find(|k| k.name == "lease").expect("lease check");
    assert!(lease_check.detail.contains("held by codex-peer-b until 2026-11-29T16:00:00Z"), "{}", lease_check.detail);
    let out = e.decide(&id, &APPLY, None).expect("decide");
    assert_eq!(out.status, Status::LeaseConflict);
    assert!(e.find_item(&id).is_ok(), "a lease conflict leaves the item pending");

    let (id, p) = conflict_on("todo_c670645b588b");
    let c = p.conflict.expect("conflict");
    assert_eq!((c["kind"].as_str(), c["reason"].as_str()), (Some("lease_conflict"), Some("expired")));
    assert_eq!((c["hard_lease"]["version"].as_i64(), c["hard_lease"]["status"].as_str()), (Some(2), Some("active")));
    assert!(p.checks.iter().any(|k| k.name == "lease" && k.detail.contains("expired at 2026-11-29T13:00:00Z")));
    assert_eq!(e.decide(&id, &APPLY, None).expect("decide").status, Status::LeaseConflict);
}

#[test]
fn an_override_answers_the_key_reuse_only_and_a_stale_item_keeps_its_lease_resolvable() {
    use writegate::loopx::lease::{LeaseRead, lease_path, read_lease};
    let (_d, reg) = demo();
    let e = engine(&reg);
    // docs-goal: another writer rewords the very todo the key-reuse item updates, so it is
    // stale too (and not recomputed); the override then reports the staleness, not the key
    // reuse it already answered.
    let reuse = item_with(&e, "docs-goal", "idempotency_conflict");
    let path = e.goal("docs-goal").expect("goal").state_file.clone();
    let text = state(&e, "docs-goal");
    std::fs::write(&path, text.replace("- [ ] [P1] Run the smoke suite", "- [ ] [P1] Run the smoke suite twice"))
        .expect("reword");
    let over = Decision::Apply(Approval { confirm_warnings: true, override_idempotency: true, ..Approval::default() });
    let out = e.decide(&reuse, &over, None).expect("override");
    assert_eq!(out.status, Status::RevisionConflict, "{}", out.message);

    // demo-goal: the item held up by the expired lease goes stale as well; the lease stays
    // visible beside the revision conflict and can still be released.
    let dir = e.ws.goal_runtime_dir("demo-goal").expect("dir");
    std::fs::write(lease_path(&dir, "todo_c670645b588b"), EXPIRED_LEASE).expect("pin lease");
    let held = e
        .items(Some("demo-goal"))
        .into_iter()
        .find(|i| e.prepare(i).conflict.is_some_and(|c| c["todo_id"] == "todo_c670645b588b"))
        .expect("held item");
    let ready = e
        .list(Some("demo-goal"))
        .into_iter()
        .find(|r| r.predicted_status == "ready" && r.kind == "write_intent")
        .expect("a ready write intent")
        .item_id;
    let confirmed = Decision::apply_confirmed();
    assert_eq!(e.decide(&ready, &confirmed, None).expect("apply").status, Status::Applied);
    // Recomputed on the new state, it is held up by the lease alone, which leads.
    let c = e.prepare(&e.find_item(&held.id).expect("item")).conflict.expect("conflict");
    assert_eq!(c["kind"], "lease_conflict", "{c}");
    assert_eq!((c["reason"].as_str(), c["todo_id"].as_str()), (Some("expired"), Some("todo_c670645b588b")));
    assert!(c["recomputed"]["recomputed_on"].as_str().is_some(), "{c}");
    let LeaseRead::Present(seen) = read_lease(&dir, "todo_c670645b588b") else { panic!("lease") };
    let item = e.find_item(&held.id).expect("item");
    let out = e.release_expired_lease(&item, "todo_c670645b588b", &seen, "").expect("release");
    assert_eq!(out.status, Status::LeaseReleased);
    let p = e.prepare(&e.find_item(&held.id).expect("item"));
    assert_eq!(p.predicted.name(), "ready", "released, the recomputed supersede applies");
    assert!(p.recomputed.is_some());
}

#[test]
fn no_secret_reaches_a_record_a_screen_or_a_json_document_in_full() {
    // Issue 12 case 3: a typed reject reason, a lock holder field and the reasons of invalid
    // items printed a secret whole.
    const SECRET: &str = "ghp_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2gU8";
    let (_d, reg) = demo();
    let e = engine(&reg);
    let b = item_with(&e, "demo-goal", "boundary_rejected");
    let out = e.decide(&b, &Decision::Reject { reason: format!("leaked {SECRET} here") }, None).expect("reject");
    let reason = out.record.expect("rec").reason.unwrap_or_default();
    assert!(!reason.contains(SECRET) && reason.contains("leaked"), "{reason}");
    let log = std::fs::read_to_string(e.gate("demo-goal").expect("gate").results().path()).expect("log");
    assert!(!log.contains(SECRET), "results.jsonl keeps the masked reason");

    // An invalid item whose reason quotes a duplicate key's text.
    let inbox = e.gate("docs-goal").expect("gate").inbox();
    std::fs::write(inbox.join("dup-key.json"), format!("{{\"{SECRET}\": 1, \"{SECRET}\": 2}}")).expect("write");
    let item = e.find_item("docs-goal/dup-key").expect("item");
    let why = item.intent.as_ref().expect_err("invalid");
    assert!(!why.contains(SECRET), "{why}");

    // A lock holder record with a secret in a field, shown by the lock check.
    let state_file = e.goal("docs-goal").expect("goal").state_file.clone();
    let holder = serde_json::json!({"schema_version": "file_lock_holder_v0", "pid": std::process::id(),
        "agent_id": SECRET, "operation": "todo_update", "acquired_at": "2026-11-29T13:00:00+00:00"});
    std::fs::write(format!("{}.lock", state_file.display()), holder.to_string()).expect("holder");
    let ready = item_with(&e, "docs-goal", "ready");
    let doc = serde_json::to_string(&e.prepare(&e.find_item(&ready).expect("item")).to_wire()).expect("json");
    assert!(!doc.contains(SECRET), "the preview document masks the holder field");
}

#[test]
fn a_held_gate_lock_refuses_within_its_bounded_wait_and_names_the_holder() {
    // Issue 12 case 12: any process holding gate/.gate.lock froze decisions and propose.
    let (_d, reg) = demo();
    let e = engine(&reg);
    let gate = e.gate("docs-goal").expect("gate");
    let path = gate.root().join(".gate.lock");
    let held =
        std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).expect("open");
    held.lock().expect("hold it");
    // Longer than the record writegate writes, so a taker that left its tail would show.
    let note = "x".repeat(120);
    std::fs::write(
        &path,
        format!("{{\"pid\": 4242, \"acquired_at\": \"2026-11-29T13:00:00Z\", \"note\": \"{note}\"}}\n"),
    )
    .expect("holder");
    let ready = item_with(&e, "docs-goal", "ready");
    let started = std::time::Instant::now();
    let err = e.decide(&ready, &Decision::Skip, None).expect_err("refused");
    assert!(started.elapsed() < std::time::Duration::from_secs(8), "bounded wait");
    assert!(err.to_string().contains("stayed held") && err.to_string().contains("pid 4242"), "{err}");
    assert!(e.find_item(&ready).is_ok(), "nothing was decided");
    held.unlock().expect("let go");
    assert_eq!(e.decide(&ready, &Decision::Skip, None).expect("skip").status, Status::Skipped);
    // The taker's record replaced the old one in place (padded, never truncated first): one
    // line of JSON naming this process, nothing of the old record left behind it.
    let record = std::fs::read_to_string(&path).expect("record");
    assert!(record.ends_with('\n') && record.lines().count() == 1, "{record:?}");
    let holder: serde_json::Value = serde_json::from_str(record.trim()).expect("JSON");
    assert_eq!(holder["pid"], std::process::id());
    assert!(holder["acquired_at"].as_str().is_some_and(|t| t.starts_with("20")), "{holder}");
}

#[test]
fn dead_writers_temp_files_are_removed_everywhere_the_gate_writes() {
    // Issue 12 case 10: orphan temps in gate/applying, revisions and inbox stayed forever,
    // and one in applying made `check` report an interrupted apply.
    let (_d, reg) = demo();
    let e = engine(&reg);
    let gate = e.gate("docs-goal").expect("gate");
    // A pid above the kernel's maximum is never running.
    let dead = 4_194_400u32;
    let temps = [
        gate.applying().join(format!(".x1.json.{dead}.0.tmp")),
        gate.revisions().dir().join(format!(".abc.{dead}.3.tmp")),
        gate.inbox().join(format!(".item.json.{dead}.1.tmp")),
    ];
    for t in &temps {
        std::fs::create_dir_all(t.parent().expect("dir")).expect("mkdir");
        std::fs::write(t, "half").expect("temp");
    }
    let live = gate.inbox().join(format!(".mine.json.{}.0.tmp", std::process::id()));
    std::fs::write(&live, "in flight").expect("live temp");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_writegate"))
        .args(["--registry", reg.to_str().expect("utf8"), "check", "--json"])
        .env("XDG_STATE_HOME", reg.parent().expect("dir").join("state"))
        .output()
        .expect("check");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(!doc["problems"].as_array().expect("problems").iter().any(|p| p["what"] == "applying"), "{doc}");
    let ready = item_with(&e, "docs-goal", "ready");
    e.decide(&ready, &Decision::Skip, None).expect("skip");
    for t in &temps {
        assert!(!t.exists(), "{} is left", t.display());
    }
    assert!(live.exists(), "a live writer's temp stays");
}

#[test]
fn a_decision_recorded_but_not_moved_is_finished_never_offered_again() {
    // Issue 12 case 7: a crash after the result of a skip / reject was recorded but before
    // the item moved left it pending and `ready`; a rejected then an applied record for one
    // item was reproduced.
    let (_d, reg) = demo();
    let e = engine(&reg);
    let ready = item_with(&e, "docs-goal", "ready");
    let item = e.find_item(&ready).expect("item");
    let before = state(&e, "docs-goal");
    let out = e.decide(&ready, &Decision::Reject { reason: "not now".into() }, None).expect("reject");
    assert_eq!(out.status, Status::Rejected);
    // The crash: the record is there, the move is undone.
    let gate = e.gate("docs-goal").expect("gate");
    let decided = std::fs::read_dir(gate.decided())
        .expect("decided")
        .filter_map(Result::ok)
        .find(|f| f.file_name().to_string_lossy().starts_with(&ready))
        .expect("decided file")
        .path();
    std::fs::rename(&decided, &item.path).expect("undo the move");
    let row = e.list(Some("docs-goal")).into_iter().find(|r| r.item_id == ready).expect("listed");
    assert_eq!(row.predicted_status, "rejected", "never offered as ready again");
    let err = e.decide(&ready, &Decision::apply_confirmed(), None);
    assert!(matches!(err, Err(EngineError::NoSuchItem(_))), "recovery finished the move first: {err:?}");
    assert!(!item.path.exists());
    assert_eq!(state(&e, "docs-goal"), before, "nothing applied");
    let records = gate.results().read_all(false).expect("log");
    assert_eq!(records.iter().filter(|r| r.item_id == ready).count(), 1, "one record for the item");
}

/// `writegate preview`'s path (the item read and its payload scanned on a second thread
/// while the goal's snapshot is read) gives every demo item the same preview, byte for
/// byte, as reading the item and then preparing it on one thread.
#[test]
fn a_preview_read_on_two_threads_is_the_one_read_on_one() {
    let (_d, reg) = demo();
    let e = engine(&reg);
    let items = e.prepared(None);
    assert!(items.len() > 10, "the demo has items of every kind");
    let as_json = |p: writegate::engine::Prepared| {
        let mut v = serde_json::to_value(p.to_wire()).expect("json");
        v["row"]["age_seconds"] = serde_json::Value::Null;
        v
    };
    // `replace` items take the line diff and revision the second thread works out.
    let replaces = items
        .iter()
        .filter(|p| {
            p.item.intent.as_ref().is_ok_and(|i| matches!(i.proposal, writegate::engine::item::Proposal::Replace(_)))
        })
        .count();
    assert!(replaces > 0, "the demo has replace items");
    for p in items {
        let reference = format!("{}/{}", p.item.goal_id, p.item.id);
        let named = e.prepare_named(&reference).expect("named");
        let found = e.prepare(&e.find_item(&reference).expect("found"));
        assert_eq!(as_json(named), as_json(found), "{reference}");
    }
    assert!(matches!(e.prepare_named("no-such-item"), Err(EngineError::NoSuchItem(_))));
}
