//! What `writegate preview` works out on its second thread while the first runs the checks
//! ([`super::Engine::prepare_named`]): a `replace`'s line diff against the current state,
//! the unified diff the preview shows (masked), and the proposed text's revision. Each is
//! taken only when it was worked out on exactly the texts the checks hold (the same shared
//! buffers) and is ready; otherwise the first thread works it out itself.

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
    diff: Mutex<Option<LineDiff>>,
    /// Who works out the line diff: [`UNCLAIMED`], [`SECOND`] (the second thread, which
    /// then also builds the shown diff) or [`FIRST`] (the checks got there first).
    claim: std::sync::atomic::AtomicU8,
    /// Raised when the edit check took [`Self::diff`]: the shown diff below is then the one
    /// of the line diff the preparation holds.
    taken: std::sync::atomic::AtomicBool,
    /// The unified diff as the preview shows it: the reader's notes and the text, masked.
    shown: OnceLock<(Vec<String>, String)>,
    revision: OnceLock<String>,
    /// Raised when the second thread is through with it.
    done: std::sync::atomic::AtomicBool,
}

/// [`Premade::claim`]: nobody has begun the line diff yet.
const UNCLAIMED: u8 = 0;
/// [`Premade::claim`]: the second thread works out the line diff.
const SECOND: u8 = 1;
/// [`Premade::claim`]: the checks work out the line diff themselves.
const FIRST: u8 = 2;

/// The label of a write intent's diff (`--- a/ACTIVE_GOAL_STATE.md`), as
/// [`super::Prepared::to_wire`] names it.
pub(super) const STATE_LABEL: &str = "ACTIVE_GOAL_STATE.md";

/// The value of `cell` once the other thread (which raised `started` before it began on
/// it) has set it, spinning for it up to 100 ms (a read of the largest item takes tens of
/// milliseconds) rather than sleeping: on this kind of machine a thread woken from a wait
/// took a millisecond or more to run again. When the other thread has not begun, or past
/// those 100 ms, it is worked out here with `init` (or waited for, when the other thread is
/// at it: the cell is a `OnceLock`).
pub(super) fn ready_or_own<'a, T>(
    cell: &'a OnceLock<T>,
    started: &std::sync::atomic::AtomicBool,
    init: impl FnOnce() -> T,
) -> &'a T {
    if started.load(std::sync::atomic::Ordering::Acquire) {
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_millis(100) {
            if let Some(v) = cell.get() {
                return v;
            }
            std::hint::spin_loop();
        }
    }
    cell.get_or_init(init)
}

/// Publishes what the second thread waits for ([`std::sync::OnceLock::wait`]) on every way
/// out of the first, a panic included (then `None`): an unpublished cell would leave the
/// scope waiting for a thread that waits for it.
pub(super) struct Publish<'a>(pub(super) &'a OnceLock<Option<Premade>>);

impl Publish<'_> {
    /// Publishes `premade` (a second call changes nothing).
    pub(super) fn set(&self, premade: Option<Premade>) {
        let _ = self.0.set(premade);
    }
}

impl Drop for Publish<'_> {
    fn drop(&mut self) {
        let _ = self.0.set(None);
    }
}

impl Premade {
    /// For an item whose write intent is a `replace` on a goal whose state was read; `None`
    /// for anything else (the checks then work everything out as `prepare` does).
    pub(super) fn of(item: &Item, snap: &GoalSnapshot) -> Option<Self> {
        let Ok(intent) = &item.intent else { return None };
        let Proposal::Replace(proposed) = &intent.proposal else { return None };
        Some(Self::on(snap.state.as_ref().ok()?, proposed))
    }

    /// `proposed` on `current`, nothing worked out yet.
    fn on(current: &Arc<String>, proposed: &Arc<String>) -> Self {
        Self {
            current: Arc::clone(current),
            proposed: Arc::clone(proposed),
            diff: Mutex::new(None),
            claim: std::sync::atomic::AtomicU8::new(UNCLAIMED),
            taken: std::sync::atomic::AtomicBool::new(false),
            shown: OnceLock::new(),
            revision: OnceLock::new(),
            done: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Works out the line diff (first: the edit check needs it soonest) and the shown diff,
    /// unless the checks began the line diff themselves, then the revision; for the second
    /// thread, after the payload scan it also runs.
    pub(super) fn work_out(&self) {
        use std::sync::atomic::Ordering;
        if self.claim.compare_exchange(UNCLAIMED, SECOND, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            let diff = crate::diff::added_and_removed_keeping(&self.current, &self.proposed);
            let kept = diff.1.clone();
            if let Ok(mut slot) = self.diff.lock() {
                *slot = Some(diff);
            }
            self.shown.get_or_init(|| {
                let (notes, text) =
                    crate::diff::unified_for_reader_reusing(&self.current, &self.proposed, STATE_LABEL, Some(&kept));
                (notes, crate::scan::mask_unified(&text, &self.current, &self.proposed))
            });
        }
        self.revision.get_or_init(|| crate::loopx::hash::revision_of_text(&self.proposed));
        self.done.store(true, Ordering::Release);
    }

    /// Waits (spinning, up to 100 ms) for the second thread to be through, so that leaving
    /// the scope does not put this thread to sleep on its join.
    pub(super) fn wait_done(&self) {
        let start = std::time::Instant::now();
        while !self.done.load(std::sync::atomic::Ordering::Acquire)
            && start.elapsed() < std::time::Duration::from_millis(100)
        {
            std::hint::spin_loop();
        }
    }

    /// The shown diff (notes, masked text) of `current` → `proposed`, when those are the
    /// very buffers it was worked out on and the preparation took this line diff.
    pub(super) fn shown_of(&self, current: &Arc<String>, proposed: &Arc<String>) -> Option<(Vec<String>, String)> {
        let ours = Arc::ptr_eq(current, &self.current) && Arc::ptr_eq(proposed, &self.proposed);
        (ours && self.taken.load(std::sync::atomic::Ordering::Acquire)).then(|| self.shown.get().cloned()).flatten()
    }

    /// The line diff of `current` → `proposed` when those are the very buffers it was
    /// worked out on: waited for (spinning, up to 2 s) when the second thread is on it,
    /// `None` when it has not begun (it is then left to the checks, which work it out now),
    /// when the texts are others, or past those 2 s.
    pub(super) fn take_line_diff(&self, current: &Arc<String>, proposed: &Arc<String>) -> Option<LineDiff> {
        use std::sync::atomic::Ordering;
        if !Arc::ptr_eq(current, &self.current) || !Arc::ptr_eq(proposed, &self.proposed) {
            return None;
        }
        if self.claim.compare_exchange(UNCLAIMED, FIRST, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            return None;
        }
        // Bounded: the line diff has its own deadline, so past this the second thread is
        // stuck or gone (a panic), and the checks work it out themselves.
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_secs(2) {
            match self.diff.lock() {
                Ok(mut slot) if slot.is_some() => {
                    self.taken.store(true, Ordering::Release);
                    return slot.take();
                }
                Ok(_) if !self.done.load(Ordering::Acquire) => {}
                // Taken already, or the second thread is through without it.
                _ => return None,
            }
            std::hint::spin_loop();
        }
        None
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
        Premade::on(current, proposed)
    }

    /// Taken only for the very buffers it was worked out on, once; an equal text in another
    /// buffer (which could have been changed since) is worked out by the checks instead.
    #[test]
    fn taken_only_for_its_own_texts_and_once() {
        let (current, proposed) = (Arc::new("a\nb\n".to_owned()), Arc::new("a\nc\n".to_owned()));
        let pre = premade(&current, &proposed);
        pre.work_out();
        assert_eq!(pre.shown_of(&current, &proposed), None, "not before the line diff is taken");
        let copy = Arc::new(proposed.as_str().to_owned());
        assert!(pre.take_line_diff(&current, &copy).is_none());
        assert!(pre.take_line_diff(&copy, &proposed).is_none());
        assert_eq!(pre.revision_of(&copy), None);
        assert_eq!(pre.revision_of(&proposed), Some(crate::loopx::hash::revision_of_text("a\nc\n")));
        let ((added, removed), _) = pre.take_line_diff(&current, &proposed).expect("its own texts");
        assert_eq!((added, removed), (vec![(2, "c".to_owned())], 1));
        assert!(pre.take_line_diff(&current, &proposed).is_none(), "taken once");
        let shown = crate::diff::unified_for_reader(&current, &proposed, STATE_LABEL);
        assert_eq!(pre.shown_of(&current, &proposed), Some(shown));
        assert_eq!(pre.shown_of(&current, &copy), None);
    }

    /// Asked before the second thread got to it: nothing is given (the checks work it out
    /// themselves), the second thread then leaves the diffs alone, and no revision is
    /// guessed before it is worked out.
    #[test]
    fn asked_first_nothing_is_given() {
        let (current, proposed) = (Arc::new("x\n".to_owned()), Arc::new("y\n".to_owned()));
        let pre = premade(&current, &proposed);
        assert_eq!(pre.revision_of(&proposed), None);
        assert!(pre.take_line_diff(&current, &proposed).is_none());
        pre.work_out();
        assert!(pre.take_line_diff(&current, &proposed).is_none(), "left to the checks");
        assert!(pre.shown.get().is_none());
        assert!(pre.revision_of(&proposed).is_some());
    }

    /// Asked while the second thread is on it: waited for, not worked out twice.
    #[test]
    fn asked_while_it_is_worked_out_it_is_waited_for() {
        let (current, proposed) = (Arc::new("a\n".repeat(20_000)), Arc::new("b\n".repeat(20_000)));
        let pre = premade(&current, &proposed);
        std::thread::scope(|s| {
            // As `work_out` does once it has claimed the diff, a little later.
            pre.claim.store(SECOND, std::sync::atomic::Ordering::Release);
            s.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(20));
                let diff = crate::diff::added_and_removed_keeping(&pre.current, &pre.proposed);
                *pre.diff.lock().expect("slot") = Some(diff);
            });
            let ((added, removed), _) = pre.take_line_diff(&current, &proposed).expect("waited for");
            assert_eq!((added.len(), removed), (20_000, 20_000));
        });
    }

    /// A waiting second thread is always let go: left unset (a panic on the first thread),
    /// the guard publishes `None`; set, it keeps what was set.
    #[test]
    fn the_guard_always_publishes() {
        let cell: OnceLock<Option<Premade>> = OnceLock::new();
        std::thread::scope(|s| {
            let waiter = s.spawn(|| cell.wait().is_none());
            drop(Publish(&cell));
            assert!(waiter.join().expect("waiter"));
        });
        let (current, proposed) = (Arc::new("x\n".to_owned()), Arc::new("y\n".to_owned()));
        let set: OnceLock<Option<Premade>> = OnceLock::new();
        {
            let publish = Publish(&set);
            publish.set(Some(premade(&current, &proposed)));
        }
        assert!(set.get().is_some_and(Option::is_some));
    }

    /// Spun for when the other thread began; worked out here when it did not.
    #[test]
    fn ready_or_own_takes_the_other_threads_value() {
        let cell = OnceLock::new();
        let started = std::sync::atomic::AtomicBool::new(true);
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(5));
                cell.get_or_init(|| "theirs");
            });
            assert_eq!(*ready_or_own(&cell, &started, || "ours"), "theirs");
        });
        let fresh = OnceLock::new();
        started.store(false, std::sync::atomic::Ordering::Release);
        assert_eq!(*ready_or_own(&fresh, &started, || "ours"), "ours");
    }
}
