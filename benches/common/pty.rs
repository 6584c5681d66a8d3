//! A program in a pseudo-terminal (portable-pty), its output parsed into a screen (vt100):
//! what the benches that run the TUI as users run it read.

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// Terminal size the benches use.
pub const ROWS: u16 = 50;
/// Terminal width.
pub const COLS: u16 = 160;

/// A program running in a pseudo-terminal, its output parsed into a screen.
pub struct Pty {
    pub child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    chunks: Receiver<(Instant, Vec<u8>)>,
    parser: vt100::Parser,
    pub started: Instant,
}

impl Pty {
    pub fn spawn(cmd: CommandBuilder) -> Pty {
        let pair = native_pty_system()
            .openpty(PtySize { rows: ROWS, cols: COLS, pixel_width: 0, pixel_height: 0 })
            .expect("openpty");
        let started = Instant::now();
        let child = pair.slave.spawn_command(cmd).expect("spawn");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let writer = pair.master.take_writer().expect("writer");
        let (tx, chunks) = channel();
        std::thread::spawn(move || {
            let _master = pair.master;
            let mut buf = vec![0u8; 1 << 16];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send((Instant::now(), buf[..n].to_vec())).is_err() {
                    return;
                }
            }
        });
        Pty { child, writer, chunks, parser: vt100::Parser::new(ROWS, COLS, 0), started }
    }

    pub fn screen(&self) -> String {
        self.parser.screen().contents()
    }

    /// The time the screen first satisfied `cond` (now, if it already does), or `None`
    /// after `timeout`.
    pub fn wait(&mut self, timeout: Duration, cond: impl Fn(&str) -> bool) -> Option<Instant> {
        if cond(&self.screen()) {
            return Some(Instant::now());
        }
        let until = Instant::now() + timeout;
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            let Ok((at, bytes)) = self.chunks.recv_timeout(left) else { return None };
            self.parser.process(&bytes);
            // Everything already read belongs to the same moment's screen.
            while let Ok((_, more)) = self.chunks.try_recv() {
                self.parser.process(&more);
            }
            if cond(&self.screen()) {
                return Some(at);
            }
        }
        None
    }

    /// Writes `bytes` to the terminal; the time they were written.
    pub fn send(&mut self, bytes: &[u8]) -> Instant {
        self.writer.write_all(bytes).expect("write");
        self.writer.flush().expect("flush");
        Instant::now()
    }

    /// `VmRSS` and `VmHWM` of the child, in MiB.
    pub fn memory(&self) -> (f64, f64) {
        let pid = self.child.process_id().unwrap_or(0);
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let kb = |key: &str| {
            status
                .lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        (kb("VmRSS:") / 1024.0, kb("VmHWM:") / 1024.0)
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The release TUI on `registry`, its config and state under `home`.
pub fn tui(registry: &std::path::Path, home: &std::path::Path) -> Pty {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_writegate"));
    cmd.arg("--registry");
    cmd.arg(registry);
    cmd.env("XDG_CONFIG_HOME", home.join("config"));
    cmd.env("XDG_STATE_HOME", home.join("state"));
    cmd.env("TERM", "xterm-256color");
    Pty::spawn(cmd)
}
