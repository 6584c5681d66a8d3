//! Recompute at the head (issue 14): a `todo update` LoopX refuses as stale is predicted
//! again with its `--update-expected-provider-revision` set to the head, and taken when LoopX
//! would make the same change there.

use super::{LoopxCommand, predict};
use crate::engine::preview::{GoalSnapshot, Predicted, Prepared};
use crate::engine::{Engine, Item};
use crate::wire::Status;

impl Engine {
    /// [`Engine::prepare_canonical`] at the head for a stale `cmd`, or why not.
    pub(super) fn recompute_command(
        &self,
        item: &Item,
        cmd: &LoopxCommand,
        snap: &GoalSnapshot,
    ) -> Result<Prepared, String> {
        const FLAG: &str = "--update-expected-provider-revision";
        let head = snap.authority.as_deref().and_then(|a| a.head()).map(|h| h.provider_revision.clone());
        let (Some(old), Some(head)) = (cmd.argv.value(FLAG), head) else {
            return Err("LoopX refused it at the head; reject it so the agent proposes it again".into());
        };
        if old == head {
            return Err("LoopX refused it at the very revision it names".into());
        }
        let Some(then) = cmd.proposed_change.as_deref() else {
            return Err(
                "its change was not predicted when it was proposed, so the same change cannot be checked".into()
            );
        };
        let mut rebased = cmd.clone();
        rebased.argv.set(FLAG, &head);
        let mut p = self.prepare_command(item, &rebased, snap, true);
        if p.predicted == Predicted::Status(Status::RevisionConflict) {
            return Err("LoopX refuses it at the head too".into());
        }
        let Some(pr) = p.canonical.clone().filter(|pr| pr.exact) else {
            return Err("its change at the head is not predicted".into());
        };
        if !same_change(then, &predict::change_text(&pr)) {
            return Err(
                "at the head it would make another change than the one proposed (its todo changed since)".into()
            );
        }
        let r = crate::engine::recompute::Recomputed {
            base_revision: cmd.proposed_head.clone(),
            onto: head.clone(),
            moved: vec![format!("the head {} → {head}", cmd.proposed_head)],
            diff_of_diffs: String::new(),
            base_from_item: false,
        };
        if let Some(c) = p.checks.iter_mut().find(|c| c.name == "revision") {
            c.detail = format!("{}; {FLAG} {old} → the head: the same change", r.line());
        }
        p.recomputed = Some(r);
        p.loopx_argv = Some(rebased.argv);
        Ok(p)
    }
}

/// Whether two predicted changes (unified diffs, stamps blanked) change the same lines the
/// same way, wherever they land. The region headers LoopX rewrites on every commit
/// (`<!-- loopx:todo-section-projection-v0 … provider_revision=… records_sha256=… -->`,
/// LOOPX2.md §2) are left out: they move with the head whatever the command does.
fn same_change(then: &str, now: &str) -> bool {
    let keep = |d: &str| -> String {
        let mut out = String::new();
        for l in
            d.lines().filter(|l| !l.get(1..).is_some_and(|b| b.starts_with("<!-- loopx:todo-section-projection-v0 ")))
        {
            out.push_str(l);
            out.push('\n');
        }
        out
    };
    crate::engine::conflict::diff_of_diffs(&keep(then), &keep(now)).is_empty()
}
