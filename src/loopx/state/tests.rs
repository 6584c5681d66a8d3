//! Tests of the state parse: golden ids, the regex-free readers against their regexes, blocks.

use super::*;

#[test]
fn every_block_at_once_is_each_block_in_turn() {
    let text = "## Agent Todo\n\n- [ ] one\n  more of one\n  <!-- loopx:todo todo_id=todo_a status=open -->\n\n- [x] two\n- [ ] three\n\tindented\n## Completed Work Archive\n- [x] old\n";
    let demo = include_str!("../../../assets/demo/demo-goal.ACTIVE_GOAL_STATE.md");
    for t in [text, demo] {
        let st = ActiveState::parse(t);
        assert!(st.todos.len() >= 3);
        let each: Vec<Vec<&str>> = st.todos.iter().map(|todo| st.todo_block(todo)).collect();
        assert_eq!(st.todo_blocks(), each);
    }
}

#[test]
fn golden_generated_id() {
    // FORMATS.md §1.6 verified value.
    assert_eq!(build_todo_id("agent", "Agent Todo", 5, "Plain legacy checkbox without metadata."), "todo_ac30e0a7e6b8");
    // The identity compacts whitespace first.
    assert_eq!(
        build_todo_id("agent", "Agent Todo", 5, " Plain\tlegacy  checkbox without\u{a0}metadata. "),
        "todo_ac30e0a7e6b8"
    );
}

#[test]
fn parses_minimal_example() {
    let text = "---\nstatus: active\nupdated_at: 2026-01-01T00:00:00+00:00\n---\n\n# Demo Goal\n\n## Agent Todo\n\n- [ ] [P1] Write the smoke.\n  <!-- loopx:todo todo_id=todo_demo001 status=open task_class=advancement_task claimed_by=codex-main-control -->\n- [x] Done thing\n- [-] Later\n  continued text\n\n## Completed Work Archive\n\n- [x] Old\n";
    let st = ActiveState::parse(text);
    assert_eq!(st.frontmatter_value("status"), Some("active"));
    assert_eq!(st.todos.len(), 4);
    let t = &st.todos[0];
    assert_eq!(t.todo_id, "todo_demo001");
    assert_eq!(t.priority().as_deref(), Some("P1"));
    assert_eq!(t.title(), "Write the smoke.");
    assert_eq!(t.claimed_by().as_deref(), Some("codex-main-control"));
    assert_eq!(st.todos[1].status, "done");
    assert_eq!(st.todos[2].status, "deferred");
    assert_eq!(st.todos[2].text, "Later continued text");
    assert!(st.todos[3].archived);
    assert_eq!(st.open_todos().count(), 1);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
    #[test]
    fn the_priority_split_matches_the_regex(t in "[ \u{a0}\n\\[\\]Pp0-59a.é]{0,10}") {
        let by_regex = PRIORITY_RE.captures(&t).and_then(|c| Some((c.get(1)?.as_str(), c.get(2)?.as_str())));
        proptest::prop_assert_eq!(priority_split(&t), by_regex, "text {:?}", t);
    }
}

#[test]
fn find_todo_takes_the_first_active_todo_of_an_id() {
    let text = "## Completed Work Archive\n\n- [x] Old\n  <!-- loopx:todo todo_id=todo_dup001 -->\n\n## Agent Todo\n\n- [ ] B\n  <!-- loopx:todo todo_id=todo_zzz001 -->\n- [ ] First\n  <!-- loopx:todo todo_id=todo_dup001 -->\n- [ ] Second\n  <!-- loopx:todo todo_id=todo_dup001 -->\n- [ ] Plain\n";
    let st = ActiveState::parse(text);
    assert_eq!(st.find_todo("todo_dup001").map(Todo::title), Some("First"));
    for t in &st.todos {
        let walk = st.todos.iter().find(|x| !x.archived && x.todo_id == t.todo_id).map(|x| x.line);
        assert_eq!(st.find_todo(&t.todo_id).map(|x| x.line), walk, "{}", t.todo_id);
    }
    assert!(st.find_todo("todo_absent1").is_none());
}

#[test]
fn bom_hides_frontmatter() {
    let st = ActiveState::parse("\u{feff}---\nstatus: active\n---\n");
    assert!(st.frontmatter.is_empty());
}

#[test]
fn generated_ids_hash_the_index_in_decimal() {
    use sha1::{Digest, Sha1};
    for index in [0usize, 1, 9, 10, 99, 100, 12_345, 987_654_321, usize::MAX] {
        let seed = format!("agent|Agent Todo|{index}|[P1] Write the smoke.");
        let want = format!("todo_{}", &hex::encode(Sha1::digest(seed.as_bytes()))[..12]);
        assert_eq!(build_todo_id("agent", "Agent Todo", index, "[P1] Write the smoke."), want, "{index}");
    }
}

/// Lines of small states: two todo sections and an archive (headings that change which
/// counter a todo takes), todos that repeat, continuations and explicit ids.
fn state_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let line = prop::sample::select(vec![
        "## Agent Todo",
        "## Agent Todo Queue",
        "## User Todo",
        "## Completed Work Archive",
        "- [ ] one",
        "- [ ] two",
        "- [x] [P1] one",
        "  more words",
        "  <!-- loopx:todo todo_id=todo_own001 -->",
        "",
    ]);
    prop::collection::vec(line, 0..20).prop_map(|l| l.join("\n") + "\n")
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
    /// Ids taken from another state are the ids the text's own parse generates.
    #[test]
    fn a_parse_like_another_state_is_the_plain_parse(text in state_text(), like in state_text()) {
        let like = ActiveState::parse(&like);
        let (plain, taken) = (ActiveState::parse(&text), ActiveState::parse_shared_like(&std::sync::Arc::new(text.clone()), Some(&like)));
        let ids = |s: &ActiveState| s.todos.iter().map(|t| (t.todo_id.to_string(), t.todo_id_source, t.index, t.line)).collect::<Vec<_>>();
        proptest::prop_assert_eq!(ids(&taken), ids(&plain));
        // And a state like itself takes every generated id.
        let itself = ActiveState::parse_shared_like(&std::sync::Arc::new(text.clone()), Some(&plain));
        proptest::prop_assert_eq!(ids(&itself), ids(&plain));
    }
}
