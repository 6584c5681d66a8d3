//! Unit tests of the write-class table, payload and boundary judgement.

use super::*;

#[allow(clippy::needless_pass_by_value)] // json! literals read better inline
fn doc(class: &str, payload: Value) -> Value {
    json!({"schema_version": SCHEMA, "goal_id": "g", "agent_id": "codex-a",
        "runtime": {"runtime_id": "codex_cli_tui", "session_id": "s1"},
        "loopx_source": {"source_run_id": "r1", "source_event_class": "handoff_packet"},
        "writeback": {"write_class": class, "mode": "dry_run", "idempotency_key": "k1", "payload": payload},
        "boundary": {"raw_transcripts_copied": false, "raw_tool_outputs_copied": false, "credentials_copied": false,
            "private_paths_copied": false, "launch_authority_granted": false}})
}

#[test]
fn each_class_has_an_allowed_and_a_forbidden_payload() {
    let cases = [
        (
            "operator_gate_decision",
            json!({"decision_id": "gate-1", "decision_label": "approve", "actor_class": "operator", "reason_summary": "safe", "source_run_id": "2026-11-29T13-04-00-00-00-operator-gate"}),
            json!({"decision_label": "approve", "production_authorized": true}),
            "production authorization",
        ),
        (
            "human_reward_overlay",
            json!({"reward_id": "rw-1", "judged_run_id": "2026-11-29T13-03-29-00-00", "decision_label": "accepted", "reason_summary": "clear"}),
            json!({"reward_id": "rw-1", "score": 0.9}),
            "model or benchmark score",
        ),
        (
            "quota_scheduler_hint",
            json!({"hint": "throttled", "window_id": "w-2026-11-29", "reason_code": "daily_cap"}),
            json!({"hint": "eligible", "launch_now": true}),
            "launch authority",
        ),
        (
            "handoff_packet_pointer",
            json!({"decision_label": "approved_next_action", "summary": "continue", "evidence_pointer_count": 2}),
            json!({"summary": "go", "transcript": "user: hi"}),
            "raw transcript copy",
        ),
        (
            "artifact_run_pointer",
            json!({"artifact_id": "a-1", "validation_label": "smoke_ok", "outcome_class": "success"}),
            json!({"artifact_id": "a-1", "artifact_path": "x"}),
            "local path exposure",
        ),
    ];
    for (class, good, bad, why) in cases {
        let wb = parse(&doc(class, good)).expect("parse");
        assert!(judge_payload(&wb).is_ok(), "{class}: {:?}", judge_payload(&wb));
        let wb = parse(&doc(class, bad)).expect("parse");
        let err = judge_payload(&wb).expect_err(class);
        assert!(err.contains(why), "{class}: {err}");
    }
}

#[test]
fn credential_prose_is_refused_but_facts_about_credentials_are_not() {
    for (text, refused) in [
        ("db password is hunter2-Xy9!q", true),
        ("token: 9xQe7Lk2Vb8Nw3Rt6Yh1Uj4", true),
        ("the API token is expired; renew it", false),
        ("password was rotated yesterday", false),
        ("continue the validated next action", false),
    ] {
        let wb = parse(&doc("handoff_packet_pointer", json!({"summary": text}))).expect("parse");
        assert_eq!(judge_payload(&wb).is_err(), refused, "{text}: {:?}", judge_payload(&wb));
    }
    // No allowed field is ever a forbidden word of its own class.
    for c in &CLASSES {
        for (f, _) in c.fields {
            assert!(!c.forbidden.iter().any(|(frag, _)| f.contains(frag)), "{}: {f}", c.name);
        }
    }
}

#[test]
fn types_sizes_unknown_fields_and_modes() {
    let wb = parse(&doc("quota_scheduler_hint", json!({"hint": "go", "extra": 1}))).expect("parse");
    let err = judge_payload(&wb).expect_err("bad");
    assert!(err.contains("hint: must be one of eligible") && err.contains("extra: not a field"), "{err}");
    let long = "x".repeat(MAX_TEXT_CHARS + 1);
    let wb = parse(&doc("handoff_packet_pointer", json!({"summary": long}))).expect("parse");
    assert!(judge_payload(&wb).is_err());
    let wb = parse(&doc("no_such_class", json!({"a": "b"}))).expect("parse");
    assert!(judge_payload(&wb).expect_err("unknown").contains("not in the seed's table"));
    let mut applied = doc("handoff_packet_pointer", json!({"summary": "s"}));
    applied["writeback"]["mode"] = json!("apply");
    assert!(parse(&applied).expect_err("mode").contains("only dry_run"));
    let mut flags = doc("handoff_packet_pointer", json!({"summary": "s"}));
    assert!(judge_boundary(&flags["boundary"]).is_ok());
    flags["boundary"]["credentials_copied"] = json!(true);
    flags["boundary"].as_object_mut().map(|m| m.remove("private_paths_copied"));
    let err = judge_boundary(&flags["boundary"]).expect_err("flags");
    assert!(err.contains("credentials_copied is true") && err.contains("private_paths_copied missing"), "{err}");
}
