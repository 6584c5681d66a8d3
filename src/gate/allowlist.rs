//! The operator's allowlist, `gate/allowlist.json`: finding fingerprints that are known
//! and accepted, each with who accepted it and why. A listed finding is downgraded to
//! `info`; nothing inside a payload can add itself here. A file that cannot be parsed allows
//! nothing (and `writegate check` reports it).

use crate::wire::Finding;
use serde::{Deserialize, Serialize};

/// One accepted finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllowEntry {
    /// The finding's `fingerprint` (`<rule>:<16 hex>`).
    pub fingerprint: String,
    /// Who accepted it.
    pub who: String,
    /// Why it is acceptable.
    pub why: String,
}

/// Reads `gate/allowlist.json` (absent → empty).
///
/// # Errors
/// A message when the file exists but is not a JSON array of entries with `fingerprint`,
/// `who` and a non-empty `why`.
pub fn load(gate: &super::GateDir) -> Result<Vec<AllowEntry>, String> {
    let path = gate.root().join("allowlist.json");
    if !path.exists() {
        return Ok(Vec::new());
    }
    let bytes = super::fsutil::read_regular(&path, super::fsutil::limits::RECORD, false)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let value = crate::json::parse_strict(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let entries: Vec<AllowEntry> = serde_json::from_value(value).map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(bad) = entries.iter().find(|e| e.who.trim().is_empty() || e.why.trim().is_empty()) {
        return Err(format!("{}: entry {} needs who and why", path.display(), bad.fingerprint));
    }
    Ok(entries)
}

/// Downgrades listed findings to `info`, saying who allowed them and why.
pub fn apply(findings: &mut [Finding], allow: &[AllowEntry]) {
    for f in findings.iter_mut() {
        if let Some(e) = allow.iter().find(|e| e.fingerprint == f.fingerprint) {
            f.severity = "info".into();
            f.reason = format!(
                "{} (allowed by {}: {})",
                f.reason,
                crate::textsafe::sanitize(&e.who, false),
                crate::textsafe::sanitize(&e.why, false)
            );
        }
    }
}
