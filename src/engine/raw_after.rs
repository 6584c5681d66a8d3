//! A raw proposal's text on the current state ([`RawAfter`]), shared by the checks of one
//! preparation.

use super::checks::raw_text;
use super::item::Proposal;
use crate::loopx::state::ActiveState;

/// A `replace`'s or `unified_diff`'s text on the current state, worked out once per
/// preparation (the LoopX 2.x, lease and edit checks all read it), and its parse, built on
/// first use and shared.
pub(super) struct RawAfter {
    /// The text, or why the change does not apply ([`raw_text`]).
    pub(super) text: Result<std::sync::Arc<String>, String>,
    parsed: std::cell::OnceCell<ActiveState>,
}

impl RawAfter {
    /// `None` for a todo op.
    pub(super) fn of(proposal: &Proposal, current: &str) -> Option<Self> {
        if matches!(proposal, Proposal::TodoOp(_)) {
            return None;
        }
        Some(Self { text: raw_text(proposal, current), parsed: std::cell::OnceCell::new() })
    }

    /// The text's parse, its generated ids taken from `current` (the state the change is
    /// on) where the todos are the same; `None` when the change does not apply.
    pub(super) fn parsed(&self, current: &ActiveState) -> Option<&ActiveState> {
        let text = self.text.as_ref().ok()?;
        Some(self.parsed.get_or_init(|| ActiveState::parse_shared_like(text, Some(current))))
    }

    /// The text itself, still shared (a `replace`'s with its intent).
    pub(super) fn into_text(self) -> Result<std::sync::Arc<String>, String> {
        self.text
    }
}
