//! The goal's gate lock (`gate/.gate.lock`): one decision, propose or recovery on a goal
//! at a time, across processes.

use super::EngineError;
use crate::gate::GateDir;

/// How long a decision, a propose or a recovery waits for a goal's gate lock (LoopX's own
/// mutation locks wait 5 s too).
pub const GATE_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The width the gate lock's holder record is padded to (bytes before its newline): every
/// record `{"pid":…,"acquired_at":…}` fits.
const GATE_LOCK_RECORD: usize = 96;

/// Takes the goal's gate lock (`gate/.gate.lock`, exclusive `flock`), serialising decisions
/// on one goal across processes. Waits at most [`GATE_LOCK_WAIT`], then refuses naming the
/// holder (the file holds `{"pid", "acquired_at"}` of the last taker), so no process can
/// freeze the console or a propose (issue 12 case 12).
///
/// # Errors
/// [`EngineError::Refused`] when the lock stays held; [`EngineError::Io`].
pub(super) fn gate_lock(gate: &GateDir) -> Result<std::fs::File, EngineError> {
    let path = gate.root().join(".gate.lock");
    let io = |source| EngineError::Io { what: format!("gate lock in {}", gate.root().display()), source };
    std::fs::create_dir_all(gate.root()).map_err(io)?;
    let f = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(io)?;
    let deadline = std::time::Instant::now() + GATE_LOCK_WAIT;
    loop {
        match f.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                let holder = std::fs::read_to_string(&path).unwrap_or_default();
                let holder = serde_json::from_str::<serde_json::Value>(holder.trim()).ok();
                let who = holder.as_ref().map_or_else(
                    || "a process that wrote no holder record".to_owned(),
                    |h| format!("pid {} since {}", h["pid"], h["acquired_at"].as_str().unwrap_or("?")),
                );
                return Err(EngineError::Refused(format!(
                    "the gate lock {} stayed held for {} s by {who}; nothing was done — retry when it lets go",
                    path.display(),
                    GATE_LOCK_WAIT.as_secs()
                )));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
    }
    // Best effort: the record only names the holder to whoever waits. It is written over the
    // old one in place, padded with spaces to a fixed width, in one call: truncating first
    // freed the file's block and allocated a new one at every decision.
    let record = serde_json::json!({"pid": std::process::id(), "acquired_at": chrono::Utc::now().to_rfc3339()});
    let mut line = format!("{record}");
    let width = line.len().max(GATE_LOCK_RECORD);
    line.extend(std::iter::repeat_n(' ', width - line.len()));
    line.push('\n');
    let _ =
        std::os::unix::fs::FileExt::write_all_at(&f, line.as_bytes(), 0).and_then(|()| f.set_len(line.len() as u64));
    Ok(f)
}
