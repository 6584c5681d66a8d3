//! Proposing a LoopX 2.x command: the agent's command line, checked ([`super::argv`]), an
//! operation id fixed for it, LoopX's own `--dry-run` run on the live workspace (a dry run
//! is LoopX's admission check and writes nothing), and the item dropped into the inbox.

use super::argv::LoopxArgv;
use super::predict::RUN_TIMEOUT;
use super::{Engine, SCHEMA};
use crate::engine::{EngineError, Item, ProposeError, Proposed};
use serde_json::{Value, json};

/// What `propose` did with a LoopX 2.x command.
#[derive(Debug, Clone)]
pub struct LoopxProposed {
    /// The item (new or already pending).
    pub proposed: Proposed,
    /// The operation id fixed for it, if the verb has one.
    pub operation_id: Option<String>,
}

/// An operation id writegate derives for a command that names none: `writegate-` and 32 hex
/// of the SHA-256 of the goal and the checked words, so the same command proposed twice
/// gets the same id (and LoopX replays instead of committing twice).
#[must_use]
pub fn derived_operation_id(argv: &LoopxArgv) -> String {
    let digest = crate::loopx::hash::sha256_hex(argv.words().join("\0").as_bytes());
    format!("writegate-{}", &digest[..32])
}

impl Engine {
    /// Proposes the LoopX 2.x command `words` (what follows `loopx`) on its goal, which must
    /// be canonical. Drops the item, or returns the identical pending one.
    ///
    /// # Errors
    /// [`ProposeError::Canonical`] with the reason when the words are refused or the goal is
    /// not a LoopX 2.x goal; [`ProposeError::Refused`]-like LoopX refusals come back as
    /// [`ProposeError::Loopx`] with LoopX's JSON; workspace / I/O errors.
    pub fn propose_loopx(&self, words: &[String]) -> Result<LoopxProposed, ProposeError> {
        let mut argv = LoopxArgv::parse(words).map_err(ProposeError::Canonical)?;
        let goal = self.goal(argv.goal_id())?.clone();
        let text = super::super::read_state(&goal.state_file)
            .map_err(|e| EngineError::Io { what: format!("read state: {e}"), source: std::io::Error::other(e) })?;
        let auth = crate::loopx2::GoalAuthority::read(self.goal_place(&goal), Some(&text));
        if !auth.is_canonical() {
            return Err(ProposeError::Canonical(format!(
                "goal {} is not a LoopX 2.x goal; propose its writes with writegate's LoopX 0.5.x arguments",
                goal.id
            )));
        }
        if let Some(flag) = argv.verb.operation_flag()
            && argv.value(flag).is_none()
        {
            let op = derived_operation_id(&argv);
            argv.set(flag, &op);
        }
        let head = auth.head().map(|h| h.provider_revision.clone()).unwrap_or_default();
        let mut dry = argv.words();
        dry.push("--dry-run".into());
        let answer =
            crate::loopx2::cli::run_json(&self.loopx, &self.ws.registry_path, &auth.authority_root, &dry, RUN_TIMEOUT)
                .map_err(ProposeError::Canonical)?;
        if answer.get("ok").and_then(Value::as_bool) != Some(true) && !is_committed_identity(&answer) {
            return Err(ProposeError::Loopx(answer));
        }
        // The change as predicted now, kept so a later preview at a moved head can show how
        // the change itself moved (the Conflict tab's diff of the diffs).
        // Never for a command that runs a validation command: that would act outside the copy.
        let proposed_change = (!super::runs_validation(&argv, &auth))
            .then(|| super::predict::predict(&self.loopx, &self.ws, &auth.authority_root, &goal, &argv).ok())
            .flatten()
            .map(|p| super::predict::change_text(&p));
        let doc = json!({
            "schema_version": SCHEMA,
            "proposed_change": proposed_change,
            "goal_id": goal.id,
            "argv": argv.words(),
            "operation_id": argv.operation_id(),
            "proposed_provider_revision": head,
            "proposed_state_revision": crate::loopx::hash::revision_of_text(&text),
            "dry_run": answer,
            "proposed_at": self.clock.utc_stamp(),
            "loopx_version": "2.1.1",
        });
        let existing =
            self.items(Some(&goal.id)).into_iter().find(|i: &Item| i.command.as_ref().is_some_and(|c| c.argv == argv));
        let proposed = self.drop_or_reuse(&goal.id, existing, &doc, &text, argv.verb.write_class())?;
        Ok(LoopxProposed { proposed, operation_id: argv.operation_id().map(str::to_owned) })
    }
}

/// LoopX's dry run refuses an operation id that is already committed, even for the same
/// intent (LOOPX2.md §3): that item is still dropped, and its preview asks the receipt.
fn is_committed_identity(answer: &Value) -> bool {
    answer.get("error_code").and_then(Value::as_str) == Some("coordination_operation_identity_mismatch")
}
