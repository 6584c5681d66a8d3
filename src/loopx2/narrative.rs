//! The narrative-edit rule for LoopX 2.x goals (issue 11): a `replace` / `unified_diff`
//! writegate applies itself must leave every generated todo region byte-identical, add no
//! visible todo line outside them, and keep the frontmatter LoopX 2.x reads (but
//! `updated_at`), so LoopX's next commit neither loses nor trips over it.

use super::regions::RegionDoc;
use regex::Regex;
use std::sync::LazyLock;

/// Why a narrative edit of a canonical goal would put it out of step with LoopX, or `None`
/// when every region is byte-identical before and after and no checkbox line appears outside
/// the regions that was not there before (the issue-11 rule for `replace` / `unified_diff`).
#[must_use]
pub fn narrative_edit_problem(before: &str, after: &str) -> Option<String> {
    let old = match RegionDoc::parse(before) {
        Ok(d) => d,
        Err(e) => return Some(format!("the current Markdown is not a valid LoopX projection ({e})")),
    };
    let new = match RegionDoc::parse(after) {
        Ok(d) => d,
        Err(e) => return Some(format!("the change breaks LoopX's todo regions ({e})")),
    };
    if let Some(key) = frontmatter_change(before, after) {
        return Some(format!(
            "the change edits the frontmatter ({key}); it carries goal settings LoopX 2.x changes through its own commands"
        ));
    }
    let texts = |d: &RegionDoc| d.regions.iter().map(|r| (r.role.clone(), d.region_text(r))).collect::<Vec<_>>();
    if texts(&old) != texts(&new) {
        return Some("the change writes inside a generated todo region".into());
    }
    let mut before_lines: Vec<&str> = old.todo_lines_outside().into_iter().map(|(_, l)| l).collect();
    for (n, line) in new.todo_lines_outside() {
        if let Some(i) = before_lines.iter().position(|l| *l == line) {
            before_lines.swap_remove(i);
        } else {
            return Some(format!(
                "the change adds a todo line outside the todo regions (line {}); LoopX would never import it",
                n + 1
            ));
        }
    }
    None
}

/// LoopX 2.x's frontmatter block (`split_state_frontmatter` of `active_state_metadata.py`):
/// from a first line `---` to the next line that is `---`, both with optional blanks.
static FRONTMATTER_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?ms)\A---[ \t]*\r?\n(.*?)^---[ \t]*(?:\r?\n|\z)").expect("static regex"));

/// The frontmatter block LoopX 2.x reads, its `updated_at:` fields left out (writers restamp
/// it); `None` when LoopX sees no frontmatter.
fn frontmatter_without_stamp(text: &str) -> Option<Vec<&str>> {
    let block = FRONTMATTER_RE.find(text)?.as_str();
    Some(block.split('\n').filter(|l| l.split_once(':').is_none_or(|(k, _)| k.trim() != "updated_at")).collect())
}

/// Where the frontmatter LoopX 2.x reads differs between `before` and `after` (anything but
/// `updated_at`), or `None` when it is the same.
fn frontmatter_change(before: &str, after: &str) -> Option<String> {
    let (old, new) = (frontmatter_without_stamp(before), frontmatter_without_stamp(after));
    match (&old, &new) {
        (Some(_), None) => Some("it would no longer be read as frontmatter".into()),
        (None, Some(_)) => Some("it adds one".into()),
        _ if old != new => Some("a goal setting changes".into()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loopx2::regions::tests::DOC;

    #[test]
    fn narrative_edits_pass_region_edits_and_ghosts_fail() {
        assert_eq!(narrative_edit_problem(DOC, &DOC.replace("- Ship", "- Ship it")), None);
        assert!(narrative_edit_problem(DOC, &DOC.replace("Write docs", "Write more docs")).is_some());
        let ghost = DOC.replace("- Ship\n", "- Ship\n- [ ] A ghost\n");
        assert!(narrative_edit_problem(DOC, &ghost).expect("refused").contains("outside the todo regions"));
        let broken = DOC.replace("\n- [ ] Write", "\nprose\n- [ ] Write");
        assert!(narrative_edit_problem(DOC, &broken).expect("refused").contains("breaks"));
        let handoff = DOC.replace("status: active", "status: active\nhandoff_mode: soft_claim");
        assert!(narrative_edit_problem(DOC, &handoff).expect("refused").contains("frontmatter"));
        let stamp = DOC.replace("status: active", "status: active\nupdated_at: 2026-12-01T09:00:00+00:00");
        let restamped = stamp.replace("09:00:00", "09:05:00");
        assert!(narrative_edit_problem(&stamp, &restamped).is_none(), "a restamp alone is no change");
        // LoopX 2.x needs a whole `---` line: a broken opener or a `---x` line inside changes
        // what it reads, whatever a looser parser says.
        for edit in [
            DOC.replacen("---\n", "----\n", 1),
            DOC.replace("status: active\n", "status: active\n---x\nhandoff_mode: x\n"),
        ] {
            assert!(narrative_edit_problem(DOC, &edit).is_some(), "{edit:?}");
        }
        let fenced = DOC.replace("- Ship\n", "- Ship\n```\n- [ ] an example in code\n```\n");
        assert_eq!(narrative_edit_problem(DOC, &fenced), None, "a checkbox in fenced code is no todo");
        let hidden = DOC.replace("## Agent Todo\n", "<!--\n## Agent Todo\n");
        assert!(narrative_edit_problem(DOC, &hidden).is_some(), "hiding a region is a region change");
    }
}
