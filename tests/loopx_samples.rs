//! Replays the real LoopX 0.5.4 runs in `fixtures/samples/`: every todo / refresh-state
//! command is re-parsed by `writegate propose`'s parser, its dry-run packet is compared
//! with the one LoopX printed, its edit with the state LoopX wrote, and its refusals with
//! LoopX's error text.

use clap::Parser;
use serde_json::Value;
use std::path::{Path, PathBuf};
use writegate::cli::propose_args::ProposeOnly;
use writegate::loopx::edit::{EditContext, apply_op};
use writegate::loopx::packet::build_packet;
use writegate::loopx::state::ActiveState;

fn sample_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples").join(name)
}

fn registered_agents(dir: &Path) -> Vec<String> {
    let reg: Value =
        serde_json::from_slice(&std::fs::read(dir.join("files/project/.loopx/registry.json")).expect("registry"))
            .expect("json");
    reg["goals"][0]["coordination"]["registered_agents"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

#[derive(Default, Debug)]
struct Tally {
    packets: usize,
    states: usize,
    refusals: usize,
    unsupported: Vec<String>,
}

fn replay(name: &str) -> Tally {
    let dir = sample_dir(name);
    let agents = registered_agents(&dir);
    let script = std::fs::read_to_string(dir.join("commands.sh")).expect("commands.sh");
    let lines: Vec<&str> = script.lines().collect();
    let mut last: Option<PathBuf> = None;
    let mut tally = Tally::default();
    for (i, line) in lines.iter().enumerate() {
        if let Some(snap) = line.split("snapshot state file -> ").nth(1) {
            last = Some(dir.join(snap.trim()));
            continue;
        }
        if !line.starts_with("loopx ") {
            continue;
        }
        let words = shell_words::split(line).expect("shell words");
        let Some(pos) = words.iter().position(|w| w == "todo" || w == "refresh-state") else {
            continue;
        };
        let end = words.iter().position(|w| w == ">").unwrap_or(words.len());
        let out_name = words.get(end + 1).cloned().unwrap_or_default();
        if words[pos] == "todo" && matches!(words.get(pos + 1).map(String::as_str), Some("list")) {
            continue;
        }
        let exit: i32 =
            lines.get(i + 1).and_then(|l| l.strip_prefix("# exit=")).and_then(|c| c.trim().parse().ok()).unwrap_or(-1);
        let dry = words[pos..end].iter().any(|w| w == "--dry-run");
        let Some(pre) = last.clone() else { continue };
        if !dry {
            last = None;
        }
        if words[pos] == "refresh-state" && !words[pos..end].iter().any(|w| w == "--next-action") {
            continue; // no Markdown effect: nothing for writegate to gate
        }
        if std::path::Path::new(&out_name).extension().is_some_and(|e| e == "md") {
            continue; // Markdown rendering of a dry run, not a packet
        }
        let parsed = match ProposeOnly::try_parse_from(&words[pos..end]) {
            Ok(p) => p,
            Err(e) => {
                tally.unsupported.push(format!("{out_name}: {}", e.to_string().lines().next().unwrap_or("")));
                continue;
            }
        };
        let (goal, op) = parsed.cmd.into_op().expect("a LoopX op");
        let pre_text = std::fs::read_to_string(&pre).expect("pre state");
        let output: Value =
            serde_json::from_slice(&std::fs::read(dir.join(&out_name)).expect("output")).unwrap_or(Value::Null);
        // The clock: the timestamp LoopX wrote in the state snapshot that follows.
        let expected_after = lines[i + 1..]
            .iter()
            .take_while(|l| !l.starts_with("loopx "))
            .find_map(|l| l.split("snapshot state file -> ").nth(1))
            .map(|p| dir.join(p.trim()));
        let now = expected_after
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|t| ActiveState::parse(&t).frontmatter_value("updated_at").map(str::to_owned))
            .unwrap_or_else(|| "2026-11-29T00:00:00+00:00".into());
        let ctx = EditContext { goal_id: goal.clone(), registered_agents: agents.clone(), now };
        let result = apply_op(&pre_text, &op, &ctx);
        if exit != 0 {
            let err = result.expect_err(&format!("{out_name}: LoopX refused, writegate accepted"));
            let loopx_err = output["error"].as_str().unwrap_or_default();
            assert_eq!(err.0, loopx_err, "{out_name}: refusal text");
            tally.refusals += 1;
            continue;
        }
        let outcome = result.unwrap_or_else(|e| panic!("{out_name}: writegate refused: {e}"));
        if dry {
            if let Some(expected) = output.get("local_state_write_correctness") {
                let ours = build_packet(&goal, &op, &pre_text, &outcome);
                assert_eq!(&ours, expected, "{out_name}: packet differs");
                assert_eq!(
                    serde_json::to_string_pretty(&ours).ok(),
                    serde_json::to_string_pretty(expected).ok(),
                    "{out_name}: key order"
                );
                tally.packets += 1;
            }
        } else if let Some(after) = expected_after {
            let expected = std::fs::read_to_string(&after).expect("after state");
            assert_eq!(outcome.text, expected, "{out_name}: state bytes differ from {}", after.display());
            assert_eq!(outcome.changed, expected != pre_text, "{out_name}: changed flag");
            tally.states += 1;
        }
    }
    tally
}

#[test]
fn todo_add_sample_matches_loopx() {
    let t = replay("02-todo-add");
    eprintln!("02: {t:?}");
    assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
    assert_eq!((t.packets, t.states), (6, 6));
}

#[test]
fn todo_lifecycle_sample_matches_loopx() {
    let t = replay("03-todo-lifecycle");
    eprintln!("03: {t:?}");
    assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
    assert!(t.packets >= 5 && t.states >= 10 && t.refusals >= 2, "{t:?}");
}

#[test]
fn refresh_state_sample_matches_loopx() {
    let t = replay("04-refresh-state");
    eprintln!("04: {t:?}");
    assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
    assert!(t.packets >= 2 && t.states >= 2, "{t:?}");
}
