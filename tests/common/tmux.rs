//! Driving the real TUI in a private tmux server, as a person does.
#![allow(dead_code)]

use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A private tmux server (`tmux -L <socket>`) with one session `wg`; killed on drop.
pub struct Tmux {
    /// The socket name.
    pub socket: String,
}

impl Tmux {
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux").arg("-L").arg(&self.socket).args(args).output().expect("run tmux")
    }
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "wg"]).stdout).into_owned()
    }
    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.run(&["send-keys", "-t", "wg", k]);
            std::thread::sleep(Duration::from_millis(60));
        }
    }
    /// Presses a confirming key as a person does: after reading the dialog for longer than
    /// the arming delay (400 ms), so the key counts.
    pub fn confirm(&self, keys: &[&str]) {
        std::thread::sleep(Duration::from_millis(600));
        self.keys(keys);
    }
    pub fn wait_for(&self, what: &str, secs: u64) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if s.contains(what) {
                return s;
            }
            assert!(start.elapsed() < Duration::from_secs(secs), "timed out waiting for {what:?}; screen:\n{s}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}
