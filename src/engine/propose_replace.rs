//! `propose replace`: a whole new state text proposed against the current one — the way to
//! propose a narrative edit (Progress Ledger, Objective, …), and on a LoopX 2.x goal the only
//! edit writegate applies itself (every todo region byte-identical, issue 11). Never touches
//! the state.

use super::{Engine, EngineError, ProposeError, Proposed, read_state};
use crate::loopx::hash::{revision_of_text, sha256_hex};
use serde_json::json;

impl Engine {
    /// Drops a `replace` item for `goal_id`: `text` against `expected_revision` (the state
    /// the text was edited from; the current state's revision when `None`), written by
    /// `writer_id`. On a LoopX 2.x goal the text must keep the narrative-edit rule. The packet is the seed's
    /// shape with `write_class` `replace`; `write_id` and `idempotency_key` are derived from
    /// the goal, the base revision and the new text (`sha256` of `goal_id`, `\n`, base, `\n`,
    /// the new text's revision), so proposing the same edit twice reuses the pending item.
    ///
    /// # Errors
    /// [`ProposeError::Refused`] when the text equals the state, is larger than
    /// [`super::MAX_REPLACE_BYTES`] or the revision is malformed; [`ProposeError::Canonical`]
    /// when it breaks the narrative-edit rule of a LoopX 2.x goal; workspace / I/O errors.
    pub fn propose_replace(
        &self,
        goal_id: &str,
        text: &str,
        writer_id: &str,
        expected_revision: Option<&str>,
    ) -> Result<Proposed, ProposeError> {
        self.propose_text(goal_id, text, writer_id, expected_revision, None)
    }

    /// [`Engine::propose_replace`], or with `reverts` (an applied item's id and the
    /// `lease_ref` it was applied under) the revert of that item: `write_class` `revert`, the
    /// item's top-level `reverts` naming it, made under the same lease (a lease that changed
    /// hands since is a lease conflict, as for any write).
    pub(super) fn propose_text(
        &self,
        goal_id: &str,
        text: &str,
        writer_id: &str,
        expected_revision: Option<&str>,
        reverts: Option<(&str, Option<serde_json::Value>)>,
    ) -> Result<Proposed, ProposeError> {
        let refuse = |why: String| ProposeError::Refused(crate::loopx::edit::EditRefused(why));
        let goal = self.goal(goal_id)?;
        let current = read_state(&goal.state_file)
            .map_err(|e| EngineError::Io { what: format!("read state: {e}"), source: std::io::Error::other(e) })?;
        if current == text {
            return Err(refuse("the proposed text is the current state; nothing to propose".into()));
        }
        if text.len() as u64 > super::MAX_REPLACE_BYTES {
            return Err(refuse(format!("the proposed text is larger than {} bytes", super::MAX_REPLACE_BYTES)));
        }
        // On a LoopX 2.x goal a text that breaks the narrative-edit rule could never apply:
        // refuse it now, as a 0.5.x todo edit is refused.
        let current_rev = revision_of_text(&current);
        if expected_revision.is_none_or(|r| r == current_rev)
            && crate::loopx2::is_canonical_goal(self.goal_place(goal), Some(&current))
            && let Some(why) = crate::loopx2::narrative::narrative_edit_problem(&current, text)
        {
            return Err(ProposeError::Canonical(format!(
                "canonical authority: {why}; {}",
                crate::loopx2::CANONICAL_REFUSAL
            )));
        }
        let base = match expected_revision {
            Some(rev) if rev.starts_with("sha256:") && rev.len() == 71 => rev.to_owned(),
            Some(rev) => return Err(refuse(format!("--expected-revision {rev:?} is not a sha256: revision"))),
            None => current_rev,
        };
        let seed = sha256_hex(format!("{goal_id}\n{base}\n{}", revision_of_text(text)).as_bytes());
        let (class, summary, lease_ref) = match &reverts {
            Some((id, lease)) => ("revert", format!("revert the change item {id} applied"), lease.clone()),
            None => ("replace", "replace the state text (narrative edit)".to_owned(), None),
        };
        let mut doc = json!({
            "local_state_write_correctness": {
                "schema_version": "local_state_write_correctness_v0",
                "write_intent": {
                    "write_id": format!("write_{class}_{}", &seed[..16]),
                    "goal_id": goal_id,
                    "writer_id": writer_id,
                    "write_class": class,
                    "target_refs": {"state_file_ref": "registry.goal.state_file"},
                    "idempotency_key": format!("{goal_id}:{class}:{}", &seed[..32]),
                    "expected_revision": {"kind": "active_state_revision", "value": base},
                    "lease_ref": lease_ref
                },
                "lock_boundary": {"kind": "per_goal", "lock_key": format!("goal:{goal_id}"),
                    "narrower_lock_allowed": "none"},
                "preview": {"mode": "dry_run", "patch_summary": summary,
                    "non_destructive": true, "expected_write_scopes": ["active_state"]},
                "apply_result": {"status": "preview_only", "applied_revision": null, "duplicate_of": null, "conflict": null}
            },
            "proposal": {"kind": "replace", "text": text}
        });
        if let (Some((id, _)), Some(map)) = (reverts, doc.as_object_mut()) {
            map.insert("reverts".into(), json!(id));
        }
        let size = serde_json::to_vec_pretty(&doc).map_or(u64::MAX, |b| b.len() as u64);
        if size > super::item::MAX_ITEM_BYTES {
            return Err(refuse(format!(
                "the item would be {size} bytes, over the {} an item may hold",
                super::item::MAX_ITEM_BYTES
            )));
        }
        let key = doc.pointer("/local_state_write_correctness/write_intent/idempotency_key").cloned();
        let existing = self.items(Some(goal_id)).into_iter().find(|i| {
            i.intent.as_ref().is_ok_and(|it| Some(json!(it.idempotency_key)) == key && it.expected_revision == base)
        });
        self.drop_or_reuse(goal_id, existing, &doc, &current, class)
    }
}
