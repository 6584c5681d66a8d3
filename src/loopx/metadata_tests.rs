//! Tests of [`super`]: the metadata comment line, its fields and their round trip.

use super::*;

#[test]
fn equality_is_byte_equality_of_the_fields() {
    let one = parse_line("  <!-- loopx:todo status=done -->").expect("parses");
    let other = parse_line("  <!-- loopx:todo status=open -->").expect("parses");
    let empty = Metadata::default();
    assert!(empty == Metadata::default() && one == one.clone());
    assert_ne!(one, other);
    assert_ne!(one, empty, "one way");
    assert_ne!(empty, one, "and the other");
}

#[test]
fn verified_round_trip_from_formats() {
    // FORMATS.md §1.5 verified round trip.
    let line = "  <!-- loopx:todo todo_id=todo_abc123 status=done task_class=advancement_task required_capabilities=shell%2Cbenchmark_runner decision_scope=private_read:project:authority claimed_by=codex-main-control excluded_agents=codex-a%2Ccodex-b global_gate=true resume_when=pr_merged:%23532 note=superseded evidence=smoke%20passed:%203%2F3%20ok completed_at=2026-01-01T00:00:00%2B00:00 updated_at=2026-01-01T00:00:00%2B00:00 superseded_by=todo_next001 -->";
    let meta = parse_line(line).expect("parses");
    assert_eq!(meta.list("excluded_agents"), vec!["codex-a", "codex-b"]);
    assert_eq!(meta.text("evidence").as_deref(), Some("smoke passed: 3/3 ok"));
    assert_eq!(meta.text("completed_at").as_deref(), Some("2026-01-01T00:00:00+00:00"));
    assert_eq!(meta.format_line().as_deref(), Some(line));
}

#[test]
fn encoding_matches_python_quote() {
    assert_eq!(
        encode_value("halfway: 2/3 done, see #12 @ci + retry"),
        "halfway:%202%2F3%20done%2C%20see%20%2312%20%40ci%20%2B%20retry"
    );
    assert_eq!(encode_value("a~b|c*d"), "a~b%7Cc%2Ad");
    assert_eq!(decode_value("a+b%20c"), "a+b c");
}

#[test]
fn unknown_and_invalid_keys_are_dropped() {
    let meta = parse_line("  <!-- loopx:todo todo_id=todo_x12 frobnicate=1 status=bogus -->").expect("parses");
    assert_eq!(meta.format_line().as_deref(), Some("  <!-- loopx:todo todo_id=todo_x12 -->"));
    assert!(parse_line("  <!-- loopx: todo_id=todo_short -->").is_some());
    assert!(parse_line("  <!-- loopx:todo x-todo_id=todo_abc -->").is_none());
}
