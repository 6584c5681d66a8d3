//! What an item does, readable (issue 14 item 3): a one-line summary per item for the queue,
//! the dialogs and `list --json`, and the plan view of a todo change — one line per changed
//! todo field, old → new, values percent-decoded — that leads the Diff tab above the exact
//! raw diff. Every text is sanitised and masked like any other shown text.

use super::item::Proposal;
use super::preview::{Predicted, Prepared};
use crate::loopx::edit::{TodoArgs, TodoOp};
use crate::loopx::state::{ActiveState, Todo};
use std::collections::BTreeMap;

/// The longest summary, characters (an ellipsis ends a longer one).
pub const SUMMARY_CHARS: usize = 120;

/// `todo_cc1c…`: a todo id cut to 9 characters (the plan view gives it whole).
fn short_todo(id: &str) -> String {
    if id.chars().count() <= 10 { id.to_owned() } else { format!("{}…", id.chars().take(9).collect::<String>()) }
}

/// Shown text: secrets masked, then escapes and control characters made visible
/// ([`crate::scan::shown`]: masked while the line breaks are still there, so a private
/// key's body lines are masked with its marker), one line, bounded.
fn shown(text: &str, max: usize) -> String {
    let clean = crate::scan::shown(text, false);
    let one = crate::loopx::pytext::compact_whitespace(&clean);
    if one.chars().count() <= max { one } else { format!("{}…", one.chars().take(max - 1).collect::<String>()) }
}

/// The fields a todo op sets, by name (`note`, `evidence`, `status blocked`, …).
fn set_fields(a: &TodoArgs) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(s) = &a.status {
        out.push(format!("status {s}"));
    }
    let named: [(&str, bool); 9] = [
        ("text", a.text.is_some()),
        ("note", a.note.is_some()),
        ("evidence", a.evidence.is_some()),
        ("reason", a.reason.is_some()),
        ("claim", a.claimed_by.is_some()),
        ("claim cleared", a.clear_claim),
        ("task class", a.task_class.is_some()),
        ("resume when", a.resume_when.is_some()),
        ("resume when cleared", a.clear_resume_when),
    ];
    out.extend(named.iter().filter(|(_, set)| *set).map(|(n, _)| (*n).to_owned()));
    if !a.required_write_scopes.is_empty() {
        out.push("write scopes".into());
    }
    out
}

fn op_summary(op: &TodoOp, target: Option<&str>) -> String {
    let what = op_words(op);
    // What it does first; the targeted todo's text, when the state has it, after.
    match target {
        Some(text) => format!("{what} · {}", shown(text, 60)),
        None => what,
    }
}

fn op_words(op: &TodoOp) -> String {
    let a = op.args();
    let todo = || a.todo_id.as_deref().map_or_else(|| "?".to_owned(), short_todo);
    match op {
        TodoOp::TodoAdd(_) => {
            let role = a.role.as_deref().unwrap_or("agent");
            format!("add {role} todo {}", a.text.as_deref().unwrap_or(""))
        }
        TodoOp::TodoUpdate(_) => {
            let (verb, fields) = match a.status.as_deref() {
                Some("blocked") => ("block", set_fields(&TodoArgs { status: None, ..a.clone() })),
                Some("deferred") => ("defer", set_fields(&TodoArgs { status: None, ..a.clone() })),
                _ => ("update", set_fields(a)),
            };
            format!("{verb} {}: {}", todo(), fields.join(", "))
        }
        TodoOp::TodoClaim(_) => {
            format!("claim {} for {}", todo(), a.claimed_by.as_deref().or(a.agent_id.as_deref()).unwrap_or("?"))
        }
        TodoOp::TodoComplete(_) => match a.evidence.as_deref() {
            Some(e) => format!("complete {} (evidence: {e})", todo()),
            None => format!("complete {}", todo()),
        },
        TodoOp::TodoSupersede(_) => match a.next_agent_todo.as_deref() {
            Some(next) => format!("supersede {} by a new todo: {next}", todo()),
            None => format!("supersede {}", todo()),
        },
        TodoOp::TodoArchiveCompleted(_) => "archive completed todos".to_owned(),
        TodoOp::RefreshState(_) => format!("set Next Action: {}", a.next_action.as_deref().unwrap_or("")),
    }
}

/// The item's one-line summary, at most [`SUMMARY_CHARS`] characters:
/// `add agent todo [P1] Write the first smoke test`, `update todo_cc1c…: note, evidence`
/// (then ` · ` and the todo's text when the current state has it),
/// `complete todo_ab12… (evidence: …)`, `writeback handoff_packet_pointer → codex_cli_tui`,
/// `loopx todo add --text …`, `replace of the state (+3 −1)`, `revert <item> (+1 −2)`,
/// `invalid: …`.
#[must_use]
pub fn summary(p: &Prepared) -> String {
    let text = if let Some(wb) = &p.item.writeback {
        format!("writeback {} → {}", wb.write_class, wb.runtime_id.as_deref().unwrap_or("?"))
    } else if let Some(cmd) = &p.item.command {
        let texts = cmd.argv.texts();
        let what = cmd
            .argv
            .value("--todo-id")
            .map(|id| match &p.target_text {
                Some(text) => format!("{} · {}", short_todo(id), shown(text, 60)),
                None => short_todo(id),
            })
            .or_else(|| texts.first().map(|(_, t)| (*t).to_owned()));
        format!("loopx {} {}", cmd.argv.verb.words().join(" "), what.unwrap_or_default())
    } else {
        match &p.item.intent {
            Err(why) => format!("invalid: {why}"),
            Ok(intent) => match &intent.proposal {
                Proposal::TodoOp(op) => op_summary(op, p.target_text.as_deref()),
                _ if intent.reverts.is_some() => format!(
                    "revert {} (+{} −{})",
                    intent.reverts.as_deref().unwrap_or_default(),
                    p.added.len(),
                    p.removed
                ),
                raw => format!(
                    "{} of the state (+{} −{})",
                    if matches!(raw, Proposal::Replace(_)) { "replace" } else { "diff" },
                    p.added.len(),
                    p.removed
                ),
            },
        }
    };
    let text = if p.predicted == Predicted::Invalid && !text.starts_with("invalid") {
        format!("invalid: {}", p.invalid_reason.as_deref().unwrap_or(&text))
    } else {
        text
    };
    shown(text.trim_end_matches([' ', ':']), SUMMARY_CHARS)
}

/// One todo's fields for the plan: text, status and every known metadata key, values as
/// LoopX decodes them (its HTML comment holds them percent-encoded).
fn fields(t: &Todo) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    out.insert("text".to_owned(), t.text.to_string());
    out.insert("status".to_owned(), t.status.to_owned());
    for (k, v) in t.metadata.iter().filter(|(k, _)| !matches!(*k, "status" | "todo_id")) {
        out.insert(k.to_owned(), v.as_text());
    }
    out
}

/// The plan of a change from `before` to `after`: for each todo added, removed or changed,
/// a heading line (`~ todo_ab12cd34ef56 [P1] Write …`, `+` added, `-` removed) and one
/// indented line per changed field (`status: open → done`), then one line per non-todo
/// section whose Next Action entries changed. Values are shown decoded and masked, each at
/// most 100 characters. Empty when no todo or Next Action changed.
#[must_use]
pub fn plan(before: &str, after: &str) -> Vec<String> {
    let (a, b) = (ActiveState::parse(before), ActiveState::parse(after));
    let key = |t: &Todo| if t.archived { format!("archive:{}", t.todo_id) } else { t.todo_id.to_string() };
    let map = |s: &ActiveState| s.todos.iter().map(|t| (key(t), fields(t))).collect::<BTreeMap<_, _>>();
    let (ma, mb) = (map(&a), map(&b));
    let mut out = Vec::new();
    let empty = BTreeMap::new();
    let ids: std::collections::BTreeSet<&String> = ma.keys().chain(mb.keys()).collect();
    for id in ids {
        let (old, new) = (ma.get(id), mb.get(id));
        if old == new {
            continue;
        }
        let sign = match (old, new) {
            (None, _) => '+',
            (_, None) => '-',
            _ => '~',
        };
        let title = new.or(old).and_then(|f| f.get("text")).map_or("", String::as_str);
        out.push(format!("{sign} {} {}", shown(id, 40), shown(title, 80)));
        let (old, new) = (old.unwrap_or(&empty), new.unwrap_or(&empty));
        let names: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
        for name in names.into_iter().filter(|n| old.get(*n) != new.get(*n)) {
            let v = |m: &BTreeMap<String, String>| m.get(name).map_or_else(|| "—".to_owned(), |s| shown(s, 100));
            if sign == '~' || name != "text" {
                out.push(format!("    {name}: {} → {}", v(old), v(new)));
            }
        }
    }
    let (na, nb) = (a.next_action_entries(), b.next_action_entries());
    if na != nb {
        let first = |v: &[String]| v.first().map_or_else(|| "—".to_owned(), |s| shown(s, 100));
        out.push(format!("~ Next Action: {} → {}", first(&na), first(&nb)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_names_each_changed_field_decoded() {
        let before =
            "## Agent Todos\n\n- [ ] [P1] one\n  <!-- loopx:todo todo_id=todo_aaaaaaaaaaaa status=open note=old -->\n";
        let after = "## Agent Todos\n\n- [x] [P1] one\n  <!-- loopx:todo todo_id=todo_aaaaaaaaaaaa status=done note=new%20words -->\n- [ ] [P2] two\n  <!-- loopx:todo todo_id=todo_bbbbbbbbbbbb -->\n";
        let shown = plan(before, after);
        assert_eq!(shown[0], "~ todo_aaaaaaaaaaaa [P1] one", "{shown:?}");
        assert!(shown.contains(&"    note: old → new words".to_owned()), "{shown:?}");
        assert!(shown.contains(&"    status: open → done".to_owned()), "{shown:?}");
        assert!(shown.iter().any(|l| l == "+ todo_bbbbbbbbbbbb [P2] two"), "{shown:?}");
        assert!(plan(before, before).is_empty());
    }

    #[test]
    fn short_todo_ids_keep_their_start() {
        assert_eq!(short_todo("todo_cc1c0384f4bc"), "todo_cc1c…");
        assert_eq!(short_todo("todo_1"), "todo_1");
    }

    /// A private key given as an op's text is masked in the one-line summary, body and all
    /// (line breaks became `␊` before masking, and the body was shown).
    #[test]
    fn a_summary_masks_a_keys_body() {
        let body = "MIIEpAIBAAKCAQEAx3fakeFAKEfakeKEYbody01Qm9keUxpbmVUd29GYWtlS2V5";
        let text = format!("-----BEGIN RSA PRIVATE KEY-----\n{body}\nQm9keUxpbmVUd28=\n-----END RSA PRIVATE KEY-----");
        let one = shown(&text, 400);
        assert!(!one.contains(&body[10..30]) && !one.contains("Qm9keUxpbmVUd28"), "{one}");
    }
}
