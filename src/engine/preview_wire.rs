//! How a prepared item is shown: its list row, its idempotency key and effect digest, and
//! the `writegate preview` document — everything masked.

use super::item::Proposal;
use super::preview::Prepared;
use crate::loopx::hash::revision_of_text;
use crate::wire::{ListRow, PREVIEW_SCHEMA, Preview};

impl Prepared {
    /// The list row.
    #[must_use]
    pub fn row(&self) -> ListRow {
        if let Some(wb) = &self.item.writeback {
            let agent = wb.agent_id.clone().unwrap_or_default();
            return ListRow {
                item_id: self.item.id.clone(),
                goal_id: self.item.goal_id.clone(),
                kind: self.item.kind.into(),
                write_class: wb.write_class.clone(),
                agent_id: agent.clone(),
                writer_id: agent,
                predicted_status: self.predicted.name().into(),
                authority: self.authority.unwrap_or_default().into(),
                reason_code: self.reason_code.map(str::to_owned),
                age_seconds: self.item.age_seconds,
                summary: super::summary::summary(self),
            };
        }
        if let Some(cmd) = &self.item.command {
            let agent = cmd.agent_id.clone().unwrap_or_default();
            return ListRow {
                item_id: self.item.id.clone(),
                goal_id: self.item.goal_id.clone(),
                kind: self.item.kind.into(),
                write_class: cmd.argv.verb.write_class().into(),
                agent_id: agent.clone(),
                writer_id: agent,
                predicted_status: self.predicted.name().into(),
                authority: self.authority.unwrap_or_default().into(),
                reason_code: self.reason_code.map(str::to_owned),
                age_seconds: self.item.age_seconds,
                summary: super::summary::summary(self),
            };
        }
        let intent = self.item.intent.as_ref().ok();
        let agent = intent.and_then(|i| match &i.proposal {
            Proposal::TodoOp(op) => op.args().agent_id.clone().or_else(|| op.args().claimed_by.clone()),
            _ => None,
        });
        let writer = intent.map(|i| i.writer_id.clone()).unwrap_or_default();
        ListRow {
            item_id: self.item.id.clone(),
            goal_id: self.item.goal_id.clone(),
            kind: self.item.kind.into(),
            write_class: intent.map(|i| i.write_class.clone()).unwrap_or_default(),
            agent_id: agent.unwrap_or_else(|| writer.clone()),
            writer_id: writer,
            predicted_status: self.predicted.name().into(),
            authority: self.authority.unwrap_or_default().into(),
            reason_code: self.reason_code.map(str::to_owned),
            age_seconds: self.item.age_seconds,
            summary: super::summary::summary(self),
        }
    }

    /// The idempotency key and effect digest, whatever the item kind (a packet's, a
    /// writeback's, a LoopX command's).
    #[must_use]
    pub fn key_and_effect(&self) -> (Option<String>, Option<String>) {
        let intent = self.item.intent.as_ref().ok();
        let (wb, cmd) = (self.item.writeback.as_ref(), self.item.command.as_ref());
        let key = intent
            .map(|i| i.idempotency_key.clone())
            .or_else(|| wb.map(|w| w.idempotency_key.clone()))
            .or_else(|| cmd.map(super::canonical::LoopxCommand::idempotency_key));
        let effect = intent
            .map(|i| i.effect_digest.clone())
            .or_else(|| wb.map(|w| w.payload_digest.clone()))
            .or_else(|| cmd.map(super::canonical::LoopxCommand::effect_digest));
        (key, effect)
    }

    /// The `writegate preview` document.
    #[must_use]
    pub fn to_wire(&self) -> Preview {
        let intent = self.item.intent.as_ref().ok();
        let label = if self.item.writeback.is_some() { "reflection" } else { super::premade::STATE_LABEL };
        // Masked (`diff` below is as the reader sees it).
        let (diff_notes, diff) = match (&self.shown_diff, &self.current_text, &self.proposed_text) {
            (Some(shown), _, _) => shown.clone(),
            (None, Some(a), Some(b)) => {
                let (notes, text) = crate::diff::unified_for_reader_reusing(a, b, label, self.kept_diff.as_ref());
                (notes, crate::scan::mask_unified(&text, a, b))
            }
            _ => (Vec::new(), String::new()),
        };
        let diff_notes: Vec<String> = diff_notes.into_iter().chain(self.extra_diff_notes()).collect();
        let cmd = self.item.command.as_ref();
        let (idempotency_key, effect_digest) = self.key_and_effect();
        Preview {
            schema_version: PREVIEW_SCHEMA.into(),
            row: self.row(),
            invalid_reason: self.invalid_reason.as_deref().map(|r| crate::scan::mask_secrets(r).0),
            // For a LoopX 2.x command: the provider revision it was proposed at and the head.
            // Masked: the agent wrote it (a real revision is no credential and shows as is).
            expected_revision: intent
                .map(|i| i.expected_revision.clone())
                .or_else(|| cmd.map(|c| c.proposed_head.clone()))
                .map(|r| crate::scan::mask_secrets(&r).0),
            current_revision: self
                .current()
                .filter(|_| intent.is_some())
                .map(|text| self.current_revision.clone().unwrap_or_else(|| revision_of_text(text)))
                .or_else(|| self.canonical.as_ref().map(|p| p.head.clone())),
            proposed_revision: self
                .proposed_text
                .as_deref()
                .filter(|_| intent.is_some())
                .map(|t| self.proposed_revision.clone().unwrap_or_else(|| revision_of_text(t))),
            idempotency_key: idempotency_key.map(|k| crate::scan::mask_secrets(&k).0),
            effect_digest,
            loopx_command: cmd.map(|c| crate::scan::mask_secrets(&c.argv.command_line()).0),
            checks: self
                .checks
                .iter()
                .map(|c| crate::wire::Check { detail: crate::scan::mask_secrets(&c.detail).0, ..c.clone() })
                .collect(),
            findings: self.findings.clone(),
            diff,
            diff_notes,
            conflict: self.conflict.as_ref().map(crate::scan::mask_json),
        }
    }
}
