//! The last few parses of this thread, kept for the next caller that parses the same text:
//! in a batch of applies each apply's recomputed text is the state the next one reads, and
//! the items of one goal share its base and current state.

use super::ActiveState;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::Arc;

/// Parses kept per thread (the oldest is forgotten first).
const KEPT: usize = 4;
/// The largest text whose parse is kept (256 KiB: with its todo model, a few MB per thread
/// at most). A larger text is parsed each time.
const TEXT_MAX: usize = 256 * 1024;

thread_local! {
    /// Each kept parse with the text it was parsed from (compared whole on a lookup).
    static PARSED: RefCell<VecDeque<(Arc<String>, Arc<ActiveState>)>> = const { RefCell::new(VecDeque::new()) };
}

/// The kept parse of `text`, moved to the newest place; `None` when none is kept.
fn lookup(text: &str) -> Option<Arc<ActiveState>> {
    PARSED.with_borrow_mut(|kept| {
        let at = kept.iter().position(|(t, _)| t.as_str() == text)?;
        let entry = kept.remove(at)?;
        let parsed = Arc::clone(&entry.1);
        kept.push_back(entry);
        Some(parsed)
    })
}

fn keep(raw: Arc<String>, parsed: &Arc<ActiveState>) {
    if raw.len() > TEXT_MAX {
        return;
    }
    PARSED.with_borrow_mut(|kept| {
        if kept.len() >= KEPT {
            kept.pop_front();
        }
        kept.push_back((raw, Arc::clone(parsed)));
    });
}

/// [`ActiveState::parse_shared`] of `raw`, or the parse this thread kept of the same text;
/// the result is kept for the next caller. Same value either way: a parse depends on the
/// text alone.
#[must_use]
pub fn parse_shared_remembered(raw: &Arc<String>) -> Arc<ActiveState> {
    lookup(raw).unwrap_or_else(|| parse_and_keep(Arc::clone(raw)))
}

/// [`parse_shared_remembered`] of a borrowed text (copied only when it is not kept).
#[must_use]
pub fn parse_remembered(text: &str) -> Arc<ActiveState> {
    lookup(text).unwrap_or_else(|| parse_and_keep(Arc::new(text.to_owned())))
}

fn parse_and_keep(raw: Arc<String>) -> Arc<ActiveState> {
    let parsed = Arc::new(ActiveState::parse_shared(&raw));
    keep(raw, &parsed);
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATE: &str = "---\nstatus: active\n---\n# Goal\n\n## Agent Todos\n\n- [ ] [P1] one\n";

    #[test]
    fn a_text_parsed_again_gets_the_kept_parse_and_another_text_its_own() {
        let first = parse_remembered(STATE);
        assert!(Arc::ptr_eq(&first, &parse_remembered(STATE)));
        assert!(Arc::ptr_eq(&first, &parse_shared_remembered(&Arc::new(STATE.to_owned()))));
        let other = STATE.replace("one", "two");
        let second = parse_remembered(&other);
        assert!(!Arc::ptr_eq(&first, &second));
        assert_eq!(second.todos[0].text, ActiveState::parse(&other).todos[0].text);
        assert_eq!(first.todos[0].text, ActiveState::parse(STATE).todos[0].text);
    }

    #[test]
    fn the_oldest_parse_is_forgotten_first_and_a_large_text_is_not_kept() {
        let texts: Vec<String> = (0..=KEPT).map(|i| STATE.replace("one", &format!("todo {i}"))).collect();
        let kept: Vec<Arc<ActiveState>> = texts.iter().map(|t| parse_remembered(t)).collect();
        assert!(!Arc::ptr_eq(&kept[0], &parse_remembered(&texts[0])), "the oldest was forgotten");
        assert!(Arc::ptr_eq(&kept[KEPT], &parse_remembered(&texts[KEPT])));
        let large = format!("{STATE}{}", "- [ ] [P2] filler\n".repeat(TEXT_MAX / 18 + 1));
        assert!(!Arc::ptr_eq(&parse_remembered(&large), &parse_remembered(&large)));
    }
}
