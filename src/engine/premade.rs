//! What `writegate preview` works out on its second thread while the first runs the checks
//! ([`super::Engine::prepare_named`]): a `replace`'s line diff against the current state
//! and its revision. Each is taken by the checks only when it was worked out on exactly the
//! texts they hold (the same shared buffers); otherwise they work it out themselves.

use super::GoalSnapshot;
use super::item::{Item, Proposal};
use crate::diff::KeptOps;
use std::sync::{Arc, Mutex, OnceLock};

/// [`crate::diff::added_and_removed_keeping`]'s answer: the added lines with their 1-based
/// numbers, the count of removed lines, and the kept line diff.
pub(super) type LineDiff = ((Vec<(usize, String)>, usize), KeptOps);

/// A `replace`'s text and the current state it would be written on, with the work the
/// second thread does on them; see the module docs.
pub(super) struct Premade {
    current: Arc<String>,
    proposed: Arc<String>,
    /// Taken (not cloned) by the edit check: a near-disjoint rewrite adds every line.
    diff: OnceLock<Mutex<Option<LineDiff>>>,
    revision: OnceLock<String>,
}

impl Premade {
    /// For an item whose write intent is a `replace` on a goal whose state was read; `None`
    /// for anything else (the checks then work everything out as `prepare` does).
    pub(super) fn of(item: &Item, snap: &GoalSnapshot) -> Option<Self> {
        let Ok(intent) = &item.intent else { return None };
        let Proposal::Replace(proposed) = &intent.proposal else { return None };
        let current = snap.state.as_ref().ok()?;
        Some(Self {
            current: Arc::clone(current),
            proposed: Arc::clone(proposed),
            diff: OnceLock::new(),
            revision: OnceLock::new(),
        })
    }

    /// Works out the line diff (first: the edit check needs it soonest), then the
    /// revision; meant for the second thread, after the payload scan it also runs.
    pub(super) fn work_out_diff(&self) {
        self.line_diff_cell();
    }

    /// See [`Self::work_out_diff`].
    pub(super) fn work_out_revision(&self) {
        self.revision.get_or_init(|| crate::loopx::hash::revision_of_text(&self.proposed));
    }

    fn line_diff_cell(&self) -> &Mutex<Option<LineDiff>> {
        self.diff
            .get_or_init(|| Mutex::new(Some(crate::diff::added_and_removed_keeping(&self.current, &self.proposed))))
    }

    /// The line diff of `current` → `proposed` when those are the very buffers it was
    /// worked out on (waiting for the second thread if it is on it); `None` otherwise, or
    /// when it was already taken.
    pub(super) fn take_line_diff(&self, current: &Arc<String>, proposed: &Arc<String>) -> Option<LineDiff> {
        if !Arc::ptr_eq(current, &self.current) || !Arc::ptr_eq(proposed, &self.proposed) {
            return None;
        }
        self.line_diff_cell().lock().ok()?.take()
    }

    /// The revision of `proposed` when it is the very buffer this holds and the second
    /// thread worked it out.
    pub(super) fn revision_of(&self, proposed: &Arc<String>) -> Option<String> {
        Arc::ptr_eq(proposed, &self.proposed).then(|| self.revision.get().cloned()).flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn premade(current: &Arc<String>, proposed: &Arc<String>) -> Premade {
        Premade {
            current: Arc::clone(current),
            proposed: Arc::clone(proposed),
            diff: OnceLock::new(),
            revision: OnceLock::new(),
        }
    }

    /// Taken only for the very buffers it was worked out on, once; an equal text in another
    /// buffer (which could have been changed since) is worked out by the checks instead.
    #[test]
    fn taken_only_for_its_own_texts_and_once() {
        let (current, proposed) = (Arc::new("a\nb\n".to_owned()), Arc::new("a\nc\n".to_owned()));
        let pre = premade(&current, &proposed);
        pre.work_out_diff();
        pre.work_out_revision();
        let copy = Arc::new(proposed.as_str().to_owned());
        assert!(pre.take_line_diff(&current, &copy).is_none());
        assert!(pre.take_line_diff(&copy, &proposed).is_none());
        assert_eq!(pre.revision_of(&copy), None);
        assert_eq!(pre.revision_of(&proposed), Some(crate::loopx::hash::revision_of_text("a\nc\n")));
        let ((added, removed), _) = pre.take_line_diff(&current, &proposed).expect("its own texts");
        assert_eq!((added, removed), (vec![(2, "c".to_owned())], 1));
        assert!(pre.take_line_diff(&current, &proposed).is_none(), "taken once");
    }

    /// The checks ask before the second thread got to it: they work it out themselves, and
    /// the revision not worked out yet is not guessed.
    #[test]
    fn asked_first_it_is_worked_out_on_the_spot() {
        let (current, proposed) = (Arc::new("x\n".to_owned()), Arc::new("y\n".to_owned()));
        let pre = premade(&current, &proposed);
        assert_eq!(pre.revision_of(&proposed), None);
        assert!(pre.take_line_diff(&current, &proposed).is_some());
    }
}
