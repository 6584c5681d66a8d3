//! Where decisions run: one long-lived thread while it is free, else a thread of their own.
//!
//! A batch on a fresh thread paid extra for its first apply (about 5 ms against 3.3 for the
//! next ones, in a batch of ten `todo add`s in tmux): `strace` showed the thread's allocator
//! arena growing a page at a time (dozens of `mprotect` calls) and the time zone read again,
//! and the engine's per-thread memory of parsed texts (`loopx::state::parse_remembered`, the
//! recompute's parts) starts empty. On the warm thread a later batch's first apply skips the
//! arena's growth (2.6 against 4.8 ms from the state lock to the first kept text, under
//! `strace`); the first batch after start still pays it. A decision never waits behind
//! another: when the warm thread is busy (a LoopX 2.x apply can take seconds), the next one
//! gets its own thread, as every decision did before.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::thread::JoinHandle;

/// A decision to run: it reports its outcome itself (on the UI's channel).
pub(super) type Job = Box<dyn FnOnce() + Send>;

/// The warm thread and whether it is free.
pub(super) struct Decider {
    tx: Option<Sender<Job>>,
    free: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Decider {
    /// Starts the warm thread (free).
    pub(super) fn start() -> Self {
        let (tx, rx) = channel::<Job>();
        let free = Arc::new(AtomicBool::new(true));
        let flag = free.clone();
        let thread = std::thread::Builder::new()
            .name("writegate-decide".into())
            .spawn(move || {
                for job in rx {
                    job();
                    flag.store(true, Ordering::Release);
                }
            })
            .ok();
        Self { tx: thread.is_some().then_some(tx), free, thread }
    }

    /// Runs `job` on the warm thread when it is free, else on a new thread, whose handle is
    /// returned for the caller to join before it exits. A warm thread that died (a panic in
    /// a decision) is never free again: every job then gets its own thread.
    pub(super) fn run(&self, job: Job) -> Option<JoinHandle<()>> {
        let job = match &self.tx {
            Some(tx) if self.free.swap(false, Ordering::AcqRel) => match tx.send(job) {
                Ok(()) => return None,
                Err(back) => back.0,
            },
            _ => job,
        };
        Some(std::thread::spawn(job))
    }

    /// Lets the warm thread finish what it runs (never half an apply), then ends it.
    pub(super) fn finish(mut self) {
        drop(self.tx.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;
    use std::time::Duration;

    #[test]
    fn a_free_warm_thread_takes_the_job_and_a_busy_one_does_not() {
        let d = Decider::start();
        let (tx, rx) = channel();
        let (hold_tx, hold_rx) = channel::<()>();
        let t = tx.clone();
        // The first job holds the warm thread until told to go on.
        assert!(
            d.run(Box::new(move || {
                let _ = hold_rx.recv();
                let _ = t.send(std::thread::current().name().map(str::to_owned));
            }))
            .is_none()
        );
        let t = tx.clone();
        let own = d.run(Box::new(move || {
            let _ = t.send(std::thread::current().name().map(str::to_owned));
        }));
        let own = own.expect("the busy warm thread sends the next job to a thread of its own");
        own.join().expect("join");
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).expect("second"), None);
        hold_tx.send(()).expect("go on");
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).expect("first").as_deref(), Some("writegate-decide"));
        d.finish();
    }

    #[test]
    fn finish_waits_for_the_job_in_flight() {
        let d = Decider::start();
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        assert!(
            d.run(Box::new(move || {
                std::thread::sleep(Duration::from_millis(50));
                flag.store(true, Ordering::SeqCst);
            }))
            .is_none()
        );
        d.finish();
        assert!(done.load(Ordering::SeqCst));
    }

    #[test]
    fn a_warm_thread_that_panicked_leaves_jobs_to_threads_of_their_own() {
        let d = Decider::start();
        assert!(d.run(Box::new(|| panic!("a decision panicked"))).is_none());
        // Whether or not the panic has ended the thread yet, the job runs somewhere.
        let (tx, rx) = channel();
        let handle = d.run(Box::new(move || {
            let _ = tx.send(());
        }));
        assert!(handle.is_some(), "the warm thread is not free again after a panic");
        rx.recv_timeout(Duration::from_secs(5)).expect("the job ran");
        d.finish();
    }
}
