//! The read fallback for canonical goals whose store writegate does not read directly (a
//! store schema other than [`super::store::KNOWN_SCHEMA`], or the `file` provider): LoopX's
//! own supported reads, `loopx todo list --format json` (todos, `authority_read.provider_revision`)
//! and `loopx status --format json` (`goal_channel_projection.active_leases`). The `loopx`
//! program is `$WRITEGATE_LOOPX`, else `loopx` on `PATH`. Read-only commands only.

use super::store::{CanonicalHead, CanonicalLease, todo_from};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one `loopx` read may take (a cold start plus a held lock is ~7 s).
const TIMEOUT: Duration = Duration::from_secs(30);

/// Reads the head through `loopx` (see the module docs).
///
/// # Errors
/// A message when `loopx` cannot be run, fails, times out or prints something else.
pub fn read_via_cli(registry: &Path, runtime_root: &Path, goal_id: &str) -> Result<CanonicalHead, String> {
    let list = run(registry, runtime_root, &["todo", "list", "--goal-id", goal_id])?;
    let revision = list
        .pointer("/authority_read/provider_revision")
        .and_then(Value::as_str)
        .ok_or("`loopx todo list` printed no authority_read.provider_revision")?
        .to_owned();
    let todos = list
        .get("todos")
        .and_then(Value::as_array)
        .ok_or("`loopx todo list` printed no todos[]")?
        .iter()
        .map(todo_from)
        .collect::<Result<Vec<_>, _>>()?;
    let status = run(registry, runtime_root, &["status", "--goal-id", goal_id])?;
    let (store_identity, cursor) = split_revision(&revision);
    Ok(CanonicalHead {
        store_identity,
        cursor,
        provider_revision: revision,
        todos,
        leases: leases_from_status(&status, goal_id),
        read_via: "loopx_cli",
    })
}

/// `sqlite:<id>:<cursor>` → (`sqlite:<id>`, cursor); other shapes keep the whole revision as
/// the identity and cursor 0.
fn split_revision(revision: &str) -> (String, u64) {
    match revision.rsplit_once(':').and_then(|(id, c)| c.parse().ok().map(|c| (id.to_owned(), c))) {
        Some((id, c)) if id.starts_with("sqlite:") => (id, c),
        _ => (revision.to_owned(), 0),
    }
}

/// The hard leases `loopx status` lists for `goal_id` (unexpired, stored `active`). The CLI
/// does not print their idempotency keys.
#[must_use]
pub fn leases_from_status(status: &Value, goal_id: &str) -> Vec<CanonicalLease> {
    let items = status.pointer("/attention_queue/items").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut out = Vec::new();
    for item in items.iter().filter(|i| i.get("goal_id").and_then(Value::as_str) == Some(goal_id)) {
        let leases = item.pointer("/goal_channel_projection/active_leases").and_then(Value::as_array);
        for l in leases.into_iter().flatten().filter(|l| l.get("status").and_then(Value::as_str) == Some("hard_lease"))
        {
            let s = |k: &str| l.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
            out.push(CanonicalLease {
                todo_id: s("todo_id"),
                owner: s("owner_agent"),
                version: l.get("lease_version").and_then(Value::as_i64).unwrap_or(0),
                epoch: l.get("lease_epoch").and_then(Value::as_i64).unwrap_or(1),
                idempotency_key: None,
                expires_at: s("expires_at"),
                status: "active".into(),
            });
        }
    }
    out
}

fn run(registry: &Path, runtime_root: &Path, args: &[&str]) -> Result<Value, String> {
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    let value = run_json(&Runner::default(), registry, runtime_root, &args, TIMEOUT)?;
    if value.get("ok").and_then(Value::as_bool) == Some(false) {
        let why = value.get("error").and_then(Value::as_str).unwrap_or("failed");
        return Err(format!("`loopx {}`: {why}", args.join(" ")));
    }
    Ok(value)
}

/// The `loopx` program: `$WRITEGATE_LOOPX`, else `loopx` on `PATH`.
#[must_use]
pub fn program() -> std::ffi::OsString {
    std::env::var_os("WRITEGATE_LOOPX").filter(|v| !v.is_empty()).unwrap_or_else(|| "loopx".into())
}

/// How `loopx` is run: the program and, when set, the whole environment it gets (else the
/// operator's own). The engine carries one, so an embedding (a test, a service) can point it
/// at a LoopX install without touching the process environment.
#[derive(Debug, Clone)]
pub struct Runner {
    /// The program.
    pub program: std::ffi::OsString,
    /// `Some`: the child's environment is exactly these variables.
    pub env: Option<Vec<(std::ffi::OsString, std::ffi::OsString)>>,
}

impl Default for Runner {
    /// [`program`] with the operator's environment.
    fn default() -> Self {
        Self { program: program(), env: None }
    }
}

/// Runs `loopx --registry R --runtime-root RT --format json ARGS` with `runner` (stdin closed, in the
/// registry's project folder) and returns the JSON it printed, whether it says `ok: true`
/// or not: LoopX prints its refusals as JSON too (`error`, `error_code`). Waits at most
/// `timeout`, then kills it.
///
/// # Errors
/// A message when `loopx` cannot be started, times out, or prints no JSON object (with the
/// first line of its standard error).
pub fn run_json(
    runner: &Runner,
    registry: &Path,
    runtime_root: &Path,
    args: &[String],
    timeout: Duration,
) -> Result<Value, String> {
    let program = &runner.program;
    let cwd = crate::loopx::registry::registry_project_root(registry);
    let mut cmd = Command::new(program);
    if let Some(env) = &runner.env {
        cmd.env_clear().envs(env.iter().cloned());
    }
    let mut child = cmd
        .arg("--registry")
        .arg(registry)
        .arg("--runtime-root")
        .arg(runtime_root)
        .args(["--format", "json"])
        .args(args)
        .current_dir(if cwd.is_dir() { cwd.as_path() } else { Path::new("/") })
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {} (set WRITEGATE_LOOPX): {e}", program.to_string_lossy()))?;
    // Drain both pipes while waiting: a status document is larger than a pipe buffer.
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let started = Instant::now();
    let shown = args.first().map_or(String::new(), |a| format!("{a} {}", args.get(1).map_or("", String::as_str)));
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("`loopx {}` took longer than {} s", shown.trim(), timeout.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(e.to_string()),
        }
    }
    let out = stdout.join().map_err(|_| "stdout reader failed")?;
    let err = stderr.join().map_err(|_| "stderr reader failed")?;
    match serde_json::from_slice::<Value>(&out) {
        Ok(v) if v.is_object() => Ok(v),
        _ => {
            let first = String::from_utf8_lossy(&err).lines().find(|l| !l.trim().is_empty()).unwrap_or("").to_owned();
            Err(format!(
                "`loopx {}` printed no JSON{}",
                shown.trim(),
                if first.is_empty() {
                    String::new()
                } else {
                    format!(": {}", crate::textsafe::sanitize(&first, false))
                }
            ))
        }
    }
}
