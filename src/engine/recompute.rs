//! Recompute instead of going stale (issue 14 item 1; seed "local state write
//! correctness", `expected_revision` mismatch: "fail closed with revision_conflict, unless
//! the writer can recompute a non-overlapping patch from the fresh revision").
//!
//! A stale todo op whose effect does not depend on order is recomputed on the current state
//! and judged by what it changes, not by line numbers: the todo blocks and the non-todo
//! sections it changes on the current state must be exactly those it changes on the base
//! the agent read, changed to the same text, and none of them may be something the base →
//! current change touched. Pure over the texts of a [`Prepared`]; nothing here writes.

use super::item::Proposal;
use super::preview::{Detail, Predicted, Prepared};
use crate::loopx::edit::TodoOp;
use crate::loopx::hash::revision_of_text;
use crate::loopx::pytext::py_strip;
use crate::loopx::state::ActiveState;
use crate::wire::Status;
use std::collections::{BTreeMap, BTreeSet};

/// A stale item recomputed on the current state: what the operator reviews and apply
/// records (`reason_code` `rebased`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recomputed {
    /// `sha256:<hex>` the agent read (its `expected_revision`).
    pub base_revision: String,
    /// `sha256:<hex>` of the current state the change was recomputed on.
    pub onto: String,
    /// What moved since the agent's base, one phrase per todo or section
    /// (`todo_ab12… added`, `## Progress Ledger changed`).
    pub moved: Vec<String>,
    /// The "diff of the diffs" ([`super::conflict::diff_of_diffs`]): empty when the
    /// recomputed change has the same changed lines as the one on the base.
    pub diff_of_diffs: String,
    /// The base came from the item's own `base_text`, not from `gate/revisions/`: what moved
    /// since is then as the agent tells it (the write itself is LoopX's op on the real state).
    pub base_from_item: bool,
}

impl Recomputed {
    /// One line for the Diff tab and the checks: `recomputed on the current state; moved
    /// since the agent's base: …`.
    #[must_use]
    pub fn line(&self) -> String {
        let shown: Vec<&str> = self.moved.iter().take(6).map(String::as_str).collect();
        let more = self.moved.len().saturating_sub(shown.len());
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        let whose = if self.base_from_item { " (the base as the item's own base_text gives it)" } else { "" };
        format!("recomputed on the current state; moved since the agent's base{whose}: {}{more}", shown.join(", "))
    }
}

/// What one change does, keyed by todo (`<id>` active, `archive:<id>` archived) and by
/// section (`## <heading>`, numbered when a heading repeats; `(frontmatter)` for what comes
/// before the first heading): the new block or section text, `None` when it is gone.
#[derive(Debug, Default, PartialEq, Eq)]
struct Changes {
    todos: BTreeMap<String, Option<String>>,
    sections: BTreeMap<String, Option<String>>,
}

impl Changes {
    fn keys(&self) -> BTreeSet<&String> {
        self.todos.keys().chain(self.sections.keys()).collect()
    }
}

/// A state cut into its todo blocks and its non-todo sections.
struct Parts {
    todos: BTreeMap<String, String>,
    sections: BTreeMap<String, String>,
    /// Keys of todos without a `todo_id` of their own: LoopX computes theirs from their role,
    /// section, position and text (`build_todo_id`), so such an id names another block once
    /// todos above it move.
    positional: BTreeSet<String>,
}

/// Cuts `text` into parts; `Err` when a todo id repeats (no safe key for it).
///
/// Non-todo lines are kept per section without blank lines (LoopX adds or drops blank lines
/// around an inserted block depending on what is there) and without the frontmatter
/// `updated_at:` (every LoopX write restamps it).
fn parts(text: &str) -> Result<Parts, String> {
    parts_of(&ActiveState::parse(text))
}

/// [`parts`] of a parsed state.
fn parts_of(state: &ActiveState) -> Result<Parts, String> {
    let mut todos = BTreeMap::new();
    let mut positional = BTreeSet::new();
    let (lines, blocks) = state.lines_and_todo_blocks();
    let mut in_block = vec![false; lines.len()];
    for (t, block) in state.todos.iter().zip(blocks) {
        let key = if t.archived { format!("archive:{}", t.todo_id) } else { t.todo_id.to_string() };
        if t.todo_id_source == crate::loopx::state::IdSource::Generated {
            positional.insert(key.clone());
        }
        in_block[block.clone()].fill(true);
        if todos.insert(key.clone(), lines[block].join("\n")).is_some() {
            return Err(format!("todo id {key} appears twice"));
        }
    }
    let mut sections: BTreeMap<String, String> = BTreeMap::new();
    let mut heading = "(frontmatter)".to_owned();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (line, in_block) in lines.iter().zip(in_block) {
        if line.starts_with("## ") {
            let n = seen.entry(py_strip(line).to_owned()).or_default();
            *n += 1;
            heading = if *n == 1 { py_strip(line).to_owned() } else { format!("{} ({n})", py_strip(line)) };
            sections.entry(heading.clone()).or_default();
            continue;
        }
        let stamp = heading == "(frontmatter)" && line.starts_with("updated_at:");
        if in_block || py_strip(line).is_empty() || stamp {
            continue;
        }
        let s = sections.entry(heading.clone()).or_default();
        s.push_str(line);
        s.push('\n');
    }
    Ok(Parts { todos, sections, positional })
}

/// Texts whose [`Parts`] this thread remembers, at most (the oldest is forgotten first),
/// and the largest text remembered: at most 4 MiB of texts per thread.
const PARTS_KEPT: usize = 4;
const PARTS_TEXT_MAX: usize = 1 << 20;

thread_local! {
    /// The last few texts cut into parts, each with its text (compared whole on a hit): the
    /// items of one goal share its base and current state, and in a batch each apply's
    /// recomputed text is the next one's current state.
    static REMEMBERED: std::cell::RefCell<std::collections::VecDeque<(std::rc::Rc<str>, std::rc::Rc<Parts>)>> =
        const { std::cell::RefCell::new(std::collections::VecDeque::new()) };
}

/// [`parts`] of `text`, from [`REMEMBERED`] when this thread cut the very same text lately
/// (a hit becomes the newest: a goal's base, used by every item of a batch, stays while
/// each apply's texts pass through). An `Err` and a text over [`PARTS_TEXT_MAX`] are not
/// remembered.
fn parts_remembered(text: &str) -> Result<std::rc::Rc<Parts>, String> {
    let hit = REMEMBERED.with_borrow_mut(|m| {
        let at = m.iter().position(|(t, _)| **t == *text)?;
        let entry = m.remove(at)?;
        let p = entry.1.clone();
        m.push_back(entry);
        Some(p)
    });
    if let Some(p) = hit {
        return Ok(p);
    }
    // The parse is kept too: the recomputed text is the next apply's current state, which
    // its snapshot parses.
    let p = std::rc::Rc::new(parts_of(&crate::loopx::state::parse_remembered(text))?);
    if text.len() <= PARTS_TEXT_MAX {
        REMEMBERED.with_borrow_mut(|m| {
            if m.len() >= PARTS_KEPT {
                m.pop_front();
            }
            m.push_back((std::rc::Rc::from(text), p.clone()));
        });
    }
    Ok(p)
}

/// `ch` with the todos it adds (absent from `before`) keyed by their blocks rather than their
/// ids, and those ids blanked wherever they appear (a superseded todo's successor, the Next
/// Action naming a new todo): LoopX derives a new todo's id from its position in the section
/// (`build_todo_id`), so the same add gets another id when other todos were added before it.
fn by_content(ch: &Changes, before: &Parts) -> Changes {
    let new: Vec<&String> = ch.todos.keys().filter(|k| !before.todos.contains_key(*k)).collect();
    let blank = |text: &str| new.iter().fold(text.to_owned(), |t, id| t.replace(id.as_str(), "todo_<new>"));
    let todos = ch
        .todos
        .iter()
        .map(|(k, v)| {
            let v = v.as_deref().map(blank);
            match &v {
                Some(block) if new.contains(&k) => (format!("new todo: {block}"), v),
                _ => (k.clone(), v),
            }
        })
        .collect();
    let sections = ch.sections.iter().map(|(k, v)| (k.clone(), v.as_deref().map(blank))).collect();
    Changes { todos, sections }
}

fn changes(before: &Parts, after: &Parts) -> Changes {
    fn diff(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) -> BTreeMap<String, Option<String>> {
        let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        keys.into_iter().filter(|k| a.get(*k) != b.get(*k)).map(|k| (k.clone(), b.get(k).cloned())).collect()
    }
    Changes { todos: diff(&before.todos, &after.todos), sections: diff(&before.sections, &after.sections) }
}

/// Phrases for what moved: `todo_x added`, `todo_y changed`, `todo_z removed`,
/// `## Next Action changed`.
fn moved_phrases(before: &Parts, since: &Changes) -> Vec<String> {
    let todo = |k: &String, v: &Option<String>| {
        let what = match (before.todos.contains_key(k), v) {
            (false, _) => "added",
            (true, None) => "removed",
            (true, Some(_)) => "changed",
        };
        format!("{k} {what}")
    };
    let section = |k: &String, v: &Option<String>| {
        let what = if v.is_none() {
            "removed"
        } else if before.sections.contains_key(k) {
            "changed"
        } else {
            "added"
        };
        format!("{k} {what}")
    };
    since.todos.iter().map(|(k, v)| todo(k, v)).chain(since.sections.iter().map(|(k, v)| section(k, v))).collect()
}

/// Whether the stale item `p` may be recomputed on the current state. The rule, in order:
/// - the revision check fails, and no check fails but a lease, the boundary scan or a
///   reused idempotency key with another effect (these then decide the status, judged on
///   the recomputed change; a busy lock is no failure: apply waits it out);
/// - the proposal is a todo op whose effect does not depend on order: `todo_add`,
///   `todo_update` / `todo_claim` (block and defer are updates), `todo_complete`,
///   `todo_supersede`, `refresh_state` — never `todo_archive_completed`, `replace` or
///   `unified_diff`;
/// - the base the agent read is kept, and the proposal applies there with its own packet;
/// - on the current state it changes exactly the todo blocks and sections it changes on the
///   base, to the same text, and none of them changed between the base and now.
///
/// # Errors
/// Why not, in one sentence for the operator (the item then stays `revision_conflict`).
pub fn recompute_check(p: &Prepared) -> Result<Recomputed, String> {
    recompute_check_with(p, Detail::Full)
}

/// [`recompute_check`]; with [`Detail::Decision`] the same verdict without the diff of
/// diffs (left empty: it is for the operator's eyes and decides nothing).
fn recompute_check_with(p: &Prepared, detail: Detail) -> Result<Recomputed, String> {
    if !p.failures.iter().any(|(name, _)| name == "revision") {
        return Err(format!("only a stale item is recomputed; this one is {}", p.predicted.name()));
    }
    // A lease, the boundary scan and a reused key (the operator may override it) are judged
    // on the recomputed change like on any other: such an item stays leased, blocked or a
    // key reuse, recomputed or not, and says so rather than "stale". A duplicate, an invalid
    // packet or a failing edit are not recomputed.
    let judged_after = |name: &str, status: &Predicted| {
        matches!(name, "revision" | "lease" | "boundary")
            || (name == "idempotency" && *status == Predicted::Status(Status::IdempotencyConflict))
    };
    if let Some((name, _)) = p.failures.iter().find(|(name, status)| !judged_after(name, status)) {
        let detail = p.checks.iter().find(|c| c.name == *name && !c.ok).map_or("", |c| c.detail.as_str());
        return Err(format!("the {name} check fails too: {detail}"));
    }
    let Ok(intent) = &p.item.intent else { return Err("the item is invalid".into()) };
    match &intent.proposal {
        Proposal::TodoOp(TodoOp::TodoArchiveCompleted(_)) => {
            return Err("archive-completed moves every completed todo, so its effect depends on order".into());
        }
        Proposal::TodoOp(_) => {}
        _ => return Err("raw replace and diff proposals are never recomputed".into()),
    }
    let Some(view) = &p.three_way else {
        return Err("the base the agent read is not kept, so what changed since cannot be judged".into());
    };
    let proposed_on_base = view.proposed.as_ref().map_err(Clone::clone)?;
    let (Some(current), Some(recomputed)) = (&p.current_text, &p.proposed_text) else {
        return Err("LoopX would not make this change on the current state".into());
    };
    let (base, now) = (parts_remembered(&view.base)?, parts_remembered(current)?);
    let (agent, since) = (changes(&base, &parts(proposed_on_base)?), changes(&base, &now));
    let redone = changes(&now, &*parts_remembered(recomputed)?);
    let touched: BTreeSet<&String> = agent.keys().union(&redone.keys()).copied().collect();
    if let Some(k) = touched.iter().find(|k| base.positional.contains(**k) || now.positional.contains(**k)) {
        return Err(format!(
            "{k} has no todo_id of its own (LoopX computes it from its position), so once todos moved it may name another todo"
        ));
    }
    let both: Vec<&String> = touched.intersection(&since.keys()).copied().collect();
    if !both.is_empty() {
        return Err(format!(
            "{} changed since the agent's base, and the item changes it too",
            both.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    let (agent, redone) = (by_content(&agent, &base), by_content(&redone, &now));
    if redone != agent {
        let differ: Vec<&String> = agent.keys().symmetric_difference(&redone.keys()).copied().collect();
        return Err(if differ.is_empty() {
            "on the current state it would write different text than on the agent's base".into()
        } else {
            format!(
                "on the current state it would change {} differently than on the agent's base",
                differ.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            )
        });
    }
    let diff_of_diffs = match detail {
        Detail::Full => {
            super::conflict::diff_of_diffs(&view.proposal_diff, &crate::diff::unified(current, recomputed, "state"))
        }
        Detail::Decision => String::new(),
    };
    Ok(Recomputed {
        base_revision: intent.expected_revision.clone(),
        onto: p.current_revision.clone().unwrap_or_else(|| revision_of_text(current)),
        moved: moved_phrases(&base, &since),
        diff_of_diffs,
        base_from_item: p.conflict.as_ref().is_some_and(|c| c["base_source"] == "item"),
    })
}

/// After every check: a stale item that passes [`recompute_check`] becomes what its
/// recomputed change gives — the revision check passes with the [`Recomputed::line`], the
/// conflict details become kind `recomputed` (the 3-way view kept, plus `recomputed_on`,
/// `moved_since_base` and `diff_of_diffs`; beside a lease or key-reuse conflict, which then
/// leads, a `recomputed` note), and the next failing check or `ready` decides.
/// Any other item is left as it is; for a stale one the reason it stays stale is returned.
pub(super) fn recompute_if_eligible(p: &mut Prepared, detail: Detail) -> Option<String> {
    if !p.failures.iter().any(|(name, _)| name == "revision") {
        return None;
    }
    let r = match recompute_check_with(p, detail) {
        Ok(r) => r,
        Err(why) => return Some(why),
    };
    if let Some(c) = p.checks.iter_mut().find(|c| c.name == "revision") {
        c.ok = true;
        c.detail = format!("{}; {}", c.detail, r.line());
    }
    p.failures.retain(|(name, _)| name != "revision");
    p.predicted = p.failures.first().map_or(Predicted::Ready, |(_, s)| s.clone());
    // The 3-way details stay for the Conflict tab and `preview --json`, under their own kind.
    if let Some(serde_json::Value::Object(c)) = p.conflict.as_mut()
        && c.get("kind").is_some_and(|k| k == "revision_conflict")
    {
        c.insert("kind".into(), "recomputed".into());
        c.insert("recomputed_on".into(), r.onto.clone().into());
        c.insert("moved_since_base".into(), r.moved.clone().into());
        c.insert("diff_of_diffs".into(), r.diff_of_diffs.clone().into());
        // A lease that still holds the item up is what stands in the way now: it leads, and
        // the recompute is noted beside it.
        if let Some(serde_json::Value::Object(mut lease)) = c.remove("lease_conflict") {
            lease
                .insert("recomputed".into(), serde_json::json!({"recomputed_on": r.onto, "moved_since_base": r.moved}));
            p.conflict = Some(serde_json::Value::Object(lease));
        }
    } else if let Some(serde_json::Value::Object(c)) = p.conflict.as_mut() {
        // Another conflict leads (a reused key): the recompute is noted beside it.
        c.insert("recomputed".into(), serde_json::json!({"recomputed_on": r.onto, "moved_since_base": r.moved}));
    }
    p.recomputed = Some(r);
    None
}

/// Undoes the change `before` → `after` on `current` block by block, when it changed todo
/// blocks alone (the frontmatter stamp aside): each block it changed must be as it left it
/// in `current`; a block it changed gets its text from `before` back, one it added is taken
/// out. `Ok(None)` when the change is not of that kind (it removed a todo or changed other
/// text); `Err` naming the todo that changed since.
///
/// # Errors
/// A todo the change touched changed since, or a todo id repeats.
pub fn undo_blocks(before: &str, after: &str, current: &str) -> Result<Option<String>, String> {
    let state = ActiveState::parse(current);
    let (b, a, c) = (parts(before)?, parts(after)?, parts_of(&state)?);
    let change = changes(&b, &a);
    if !change.sections.is_empty() || change.todos.is_empty() || change.todos.values().any(Option::is_none) {
        return Ok(None);
    }
    let lines = state.lines();
    // (first line, line count, replacement) per touched block, bottom first.
    let mut edits: Vec<(usize, usize, Option<&String>)> = Vec::new();
    for key in change.todos.keys() {
        if c.todos.get(key) != a.todos.get(key) {
            return Err(format!("{key} changed since the change was applied"));
        }
        let Some(t) = state
            .todos
            .iter()
            .find(|t| (if t.archived { format!("archive:{}", t.todo_id) } else { t.todo_id.to_string() }) == *key)
        else {
            return Err(format!("{key} is not in the current state"));
        };
        edits.push((t.line, state.todo_block(t).len(), b.todos.get(key)));
    }
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    for (first, n, old) in edits {
        let with: Vec<String> = old.map(|t| t.lines().map(str::to_owned).collect()).unwrap_or_default();
        out.splice(first..first + n, with);
    }
    let eol = if current.contains("\r\n") { "\r\n" } else { "\n" };
    let mut text = out.join(eol);
    if current.ends_with('\n') {
        text.push_str(eol);
    }
    Ok(Some(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATE: &str = "---\nstatus: active\nupdated_at: 1\n---\n# Goal\n\n## Agent Todos\n\n- [ ] [P1] one\n  <!-- loopx:todo todo_id=todo_aaaaaaaaaaaa -->\n- [ ] [P2] two\n\n## Next Action\n\n- do one\n";

    #[test]
    fn parts_key_blocks_and_sections_without_blank_lines_or_the_stamp() {
        let p = parts(STATE).expect("parts");
        assert_eq!(p.todos.len(), 2);
        assert!(p.todos["todo_aaaaaaaaaaaa"].starts_with("- [ ] [P1] one\n  <!-- loopx:todo"), "{:?}", p.todos);
        assert_eq!(p.sections["(frontmatter)"], "---\nstatus: active\n---\n# Goal\n");
        assert_eq!(p.sections["## Agent Todos"], "");
        assert_eq!(p.sections["## Next Action"], "- do one\n");
        let restamped = STATE.replace("updated_at: 1", "updated_at: 2").replace("two\n", "two\n\n\n");
        assert_eq!(changes(&p, &parts(&restamped).expect("parts")), Changes::default());
    }

    #[test]
    fn a_repeated_todo_id_has_no_safe_key() {
        let twice = STATE.replace("- [ ] [P2] two", "- [ ] [P1] one\n  <!-- loopx:todo todo_id=todo_aaaaaaaaaaaa -->");
        assert!(parts(&twice).is_err_and(|e| e.contains("todo_aaaaaaaaaaaa")));
    }

    #[test]
    fn moved_names_what_was_added_changed_and_removed() {
        let base = parts(STATE).expect("parts");
        let now = STATE.replace("- do one", "- do two").replace("- [ ] [P2] two\n", "- [ ] [P3] three\n");
        let since = changes(&base, &parts(&now).expect("parts"));
        let moved = moved_phrases(&base, &since);
        assert_eq!(moved.len(), 3, "{moved:?}");
        assert!(moved.iter().any(|m| m == "## Next Action changed"), "{moved:?}");
        assert!(moved.iter().any(|m| m.ends_with(" added")) && moved.iter().any(|m| m.ends_with(" removed")));
    }
}
