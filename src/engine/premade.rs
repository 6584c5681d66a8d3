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
    diff: Mutex<Option<LineDiff>>,
    revision: OnceLock<String>,
}

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
        let current = snap.state.as_ref().ok()?;
        Some(Self {
            current: Arc::clone(current),
            proposed: Arc::clone(proposed),
            diff: Mutex::new(None),
            revision: OnceLock::new(),
        })
    }

    /// Works out the line diff (first: the edit check needs it sooner), then the revision;
    /// for the second thread, after the payload scan it also runs.
    pub(super) fn work_out(&self) {
        let diff = crate::diff::added_and_removed_keeping(&self.current, &self.proposed);
        if let Ok(mut slot) = self.diff.lock() {
            *slot = Some(diff);
        }
        self.revision.get_or_init(|| crate::loopx::hash::revision_of_text(&self.proposed));
    }

    /// The line diff of `current` → `proposed` when those are the very buffers it was
    /// worked out on and the second thread has it ready; `None` otherwise (the checks then
    /// work it out themselves rather than wait: on this kind of machine a thread woken from
    /// a wait took a millisecond or more to run again).
    pub(super) fn take_line_diff(&self, current: &Arc<String>, proposed: &Arc<String>) -> Option<LineDiff> {
        if !Arc::ptr_eq(current, &self.current) || !Arc::ptr_eq(proposed, &self.proposed) {
            return None;
        }
        self.diff.lock().ok()?.take()
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
            diff: Mutex::new(None),
            revision: OnceLock::new(),
        }
    }

    /// Taken only for the very buffers it was worked out on, once; an equal text in another
    /// buffer (which could have been changed since) is worked out by the checks instead.
    #[test]
    fn taken_only_for_its_own_texts_and_once() {
        let (current, proposed) = (Arc::new("a\nb\n".to_owned()), Arc::new("a\nc\n".to_owned()));
        let pre = premade(&current, &proposed);
        pre.work_out();
        let copy = Arc::new(proposed.as_str().to_owned());
        assert!(pre.take_line_diff(&current, &copy).is_none());
        assert!(pre.take_line_diff(&copy, &proposed).is_none());
        assert_eq!(pre.revision_of(&copy), None);
        assert_eq!(pre.revision_of(&proposed), Some(crate::loopx::hash::revision_of_text("a\nc\n")));
        let ((added, removed), _) = pre.take_line_diff(&current, &proposed).expect("its own texts");
        assert_eq!((added, removed), (vec![(2, "c".to_owned())], 1));
        assert!(pre.take_line_diff(&current, &proposed).is_none(), "taken once");
    }

    /// Asked before the second thread got to it: nothing is given (the checks work it out
    /// themselves), and no revision is guessed.
    #[test]
    fn asked_first_nothing_is_given() {
        let (current, proposed) = (Arc::new("x\n".to_owned()), Arc::new("y\n".to_owned()));
        let pre = premade(&current, &proposed);
        assert_eq!(pre.revision_of(&proposed), None);
        assert!(pre.take_line_diff(&current, &proposed).is_none());
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
