//! `U` in the Log tab (issue 14 item 5): proposes the inverse of the applied change under
//! the Log cursor as a new pending item (the engine builds it; see
//! [`crate::engine::revert`]). Nothing is written to the state: the revert is decided like
//! every other item.

use super::app::{App, Effect, FlashKind, Tab};
use crate::wire::Status;

/// Starts a revert of the Log record under the cursor, or says why not.
pub(super) fn start(app: &mut App) -> Vec<Effect> {
    if app.tab != Tab::History {
        app.flash = Some((
            "U works in the Log tab: pick an applied change with J / K, then press U".into(),
            FlashKind::Conflict,
        ));
        return Vec::new();
    }
    let Some(item) = app.current() else { return Vec::new() };
    // The Log lists the newest first; the history is kept oldest first.
    let Some(rec) = item.detail.history.iter().rev().nth(app.log_cursor) else {
        app.flash = Some(("no decision recorded for this goal yet".into(), FlashKind::Conflict));
        return Vec::new();
    };
    let why = match rec.kind.as_str() {
        _ if rec.status != Status::Applied => {
            Some(format!("only an applied change can be reverted; this record is {}", rec.status.as_str()))
        }
        "writeback" => Some("a writeback lives in the host runtime; writegate cannot take it back".to_owned()),
        "loopx_command" => {
            Some("a LoopX 2.x command is undone by another LoopX command; propose that instead".to_owned())
        }
        _ if rec.applied_revision.is_none() => Some("this record wrote no state revision to go back from".to_owned()),
        _ => None,
    };
    if let Some(why) = why {
        app.flash = Some((why, FlashKind::Conflict));
        return Vec::new();
    }
    let (goal, item_id) = (rec.goal_id.clone(), rec.item_id.clone());
    app.flash = Some((format!("proposing the revert of {item_id}…"), FlashKind::Info));
    vec![Effect::Revert { goal, item_id }]
}

/// Asks the engine for the revert item (off the UI thread): what to tell the operator, or why
/// not.
pub(super) fn propose(engine: &crate::engine::Engine, goal: &str, item_id: &str) -> Result<String, String> {
    let result = engine
        .propose_revert(goal, item_id, &engine.operator)
        .map(|(p, basis)| {
            let how = match basis {
                crate::engine::revert::RevertBasis::Exact => "the text before it, byte for byte",
                crate::engine::revert::RevertBasis::OnCurrent => "its change undone on the current state",
            };
            format!(
                "revert of {item_id} proposed as {}{} ({how}; {}): review and apply it like any item",
                p.item_id,
                if p.reused { " (already pending)" } else { "" },
                p.predicted_status
            )
        })
        .map_err(|e| crate::error_chain(&e));
    tracing::info!(goal, item_id, ?result, "revert proposed");
    result
}

/// The engine answered: the new item's id and how it was built, or why not.
pub(super) fn on_done(app: &mut App, goal: String, result: Result<String, String>) -> Vec<Effect> {
    app.flash = Some(match result {
        Ok(what) => (what, FlashKind::Success),
        Err(e) => (format!("no revert proposed: {}", crate::scan::shown(&e, false)), FlashKind::Error),
    });
    vec![Effect::Reload(Some(vec![goal]))]
}
