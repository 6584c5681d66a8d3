//! The `command` adapter's protocol: a configured program run in its own process group with
//! the reflection on stdin, its one-object JSON answer read strictly within the timeout.

use super::{Adapter, Answer, MAX_ANSWER};
use serde_json::Value;
use std::io::{Read as _, Write as _};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

impl Adapter {
    pub(super) fn call(&self, extra: &[&str], reflection: &Value) -> Answer {
        let v = match self.call_raw(extra, reflection) {
            Ok(v) => v,
            Err(e) => return Answer::failed(e),
        };
        if let Err(e) = only_keys(&v, &["status", "runtime_event_id", "reason"], "the answer") {
            return Answer::failed(e);
        }
        let status = v.get("status").and_then(Value::as_str).unwrap_or("");
        let allowed: &[&str] = if extra.first() == Some(&"--dry-run") {
            &["previewed", "skipped", "rejected"]
        } else {
            &["applied", "skipped", "rejected", "failed"]
        };
        if !allowed.contains(&status) {
            return Answer::failed(format!(
                "the runtime answered status {status:?}; expected one of {}",
                allowed.join(", ")
            ));
        }
        let text = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .map(|s| crate::scan::mask_secrets(&crate::textsafe::sanitize(s, false)).0.chars().take(200).collect())
        };
        let event_id = match v.get("runtime_event_id") {
            None | Some(Value::Null) => None,
            Some(Value::String(id)) if crate::engine::writeback::is_plain_id(id) => Some(id.clone()),
            Some(_) => {
                return Answer::failed(
                    "the runtime's runtime_event_id is not a public-safe id ([A-Za-z0-9._:@+-], at most 128)",
                );
            }
        };
        Answer { status: status.to_owned(), runtime_event_id: event_id, reason: text("reason") }
    }

    pub(super) fn call_raw(&self, extra: &[&str], reflection: &Value) -> Result<Value, String> {
        let Self::Command { program, args, timeout, .. } = self else {
            return Err("not a command adapter".into());
        };
        let exe = find_program(program).ok_or_else(|| format!("program {program:?} not found"))?;
        // Its own process group, so a timeout stops everything it started, not only itself.
        let mut child = std::process::Command::new(&exe)
            .args(args)
            .args(extra)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
        let group = child.id();
        let kill_group = || {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", "--", &format!("-{group}")])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
        };
        let mut stderr = child.stderr.take();
        let (etx, erx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(e) = stderr.as_mut() {
                let _ = e.take(MAX_ANSWER).read_to_end(&mut buf);
            }
            let _ = etx.send(buf);
        });
        let input = serde_json::to_vec(reflection).unwrap_or_default();
        if let Some(mut stdin) = child.stdin.take() {
            // A program that does not read its stdin is its own business; the answer decides.
            let _ = stdin.write_all(&input);
        }
        let mut stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = std::sync::mpsc::channel();
        // The reader is never joined: a background process the program left behind may hold
        // stdout open forever; the answer must then arrive within the timeout or not at all.
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = (&mut stdout).take(MAX_ANSWER).read_to_end(&mut buf);
            let _ = tx.send(buf);
        });
        let started = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break s,
                Ok(None) if started.elapsed() >= *timeout => {
                    kill_group();
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!(
                        "timed out after {} ms (stopped with everything it started; whether the runtime applied it is unknown — a new item with the same key asks again)",
                        timeout.as_millis()
                    ));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(e) => return Err(format!("waiting for the program: {e}")),
            }
        };
        let last_words = || {
            let e = erx.recv_timeout(Duration::from_millis(100)).unwrap_or_default();
            let text = crate::scan::mask_secrets(&crate::textsafe::sanitize(&String::from_utf8_lossy(&e), false)).0;
            let line = text.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_owned();
            if line.is_empty() { String::new() } else { format!(": {}", line.chars().take(160).collect::<String>()) }
        };
        if !status.success() {
            kill_group();
            return Err(format!("the program exited with {status}{}", last_words()));
        }
        let left = timeout.saturating_sub(started.elapsed()).max(Duration::from_millis(100));
        let out = rx.recv_timeout(left).map_err(|_| {
            kill_group();
            "the program exited but a process it started held its output open past the timeout (stopped; whether the runtime applied it is unknown — a new item with the same key asks again)".to_owned()
        })?;
        let v: Value =
            crate::json::parse_strict(&out).map_err(|e| format!("the program's answer is not one JSON object: {e}"))?;
        if !v.is_object() {
            return Err("the program's answer is not a JSON object".into());
        }
        Ok(v)
    }
}

/// An answer holds only the protocol's keys (an extra key is a different protocol: failed).
pub(super) fn only_keys(v: &Value, allowed: &[&str], what: &str) -> Result<(), String> {
    match v.as_object().and_then(|m| m.keys().find(|k| !allowed.contains(&k.as_str()))) {
        Some(k) => Err(format!("{what} holds {k:?}, which the protocol does not have ({})", allowed.join(", "))),
        None => Ok(()),
    }
}

pub(super) fn find_program(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let is_exe = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if program.contains('/') {
        let p = PathBuf::from(program);
        return is_exe(&p).then_some(p);
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|d| d.join(program))
        .find(|p| is_exe(p))
}
