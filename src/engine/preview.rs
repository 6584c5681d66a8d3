//! Preview: every check of DESIGN.md §4 in order — schema, goal, idempotency, revision,
//! lease, edit, boundary, lock — computed from disk without writing anything.

use super::Engine;
use super::checks::{check_boundary, check_lock, consistent, raw_consistent};
use super::item::{Intent, Item, Proposal};
use super::premade::Premade;
use super::raw_after::RawAfter;
pub use super::snapshot::GoalSnapshot;
use crate::loopx::edit::{EditContext, EditOutcome, apply_op};
use crate::loopx::hash::revision_of_text;
use crate::loopx::state::ActiveState;
use crate::wire::{Check, Finding, ResultRecord, Status};
use serde_json::{Value, json};

/// What apply would return now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Predicted {
    /// Every check passes; apply would write.
    Ready,
    /// A final or conflict status.
    Status(Status),
    /// The item cannot be understood.
    Invalid,
}

impl Predicted {
    /// `ready`, `invalid` or the status name.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::Ready => "ready",
            Self::Invalid => "invalid",
            Self::Status(s) => s.as_str(),
        }
    }
}

/// True for predicted-status names that are conflicts.
#[must_use]
pub fn is_conflict_name(name: &str) -> bool {
    matches!(name, "lock_busy" | "revision_conflict" | "lease_conflict" | "idempotency_conflict")
}

/// An item with every check evaluated against the current disk state.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The item.
    pub item: Item,
    /// Checks in pipeline order.
    pub checks: Vec<Check>,
    /// Scan findings (packet and added lines).
    pub findings: Vec<Finding>,
    /// What apply would return.
    pub predicted: Predicted,
    /// Why the item is invalid (or why the edit fails).
    pub invalid_reason: Option<String>,
    /// Current state text (universal newlines not applied: the bytes as text), shared with
    /// the goal's snapshot and every other item of the goal.
    pub current_text: Option<std::sync::Arc<String>>,
    /// The revision of [`Self::current_text`] (`sha256:` of its bytes), where the checks
    /// worked it out (a write intent's), so the preview does not hash the text again.
    pub current_revision: Option<String>,
    /// The text apply would write (a `replace`'s shared with its intent, not copied).
    pub proposed_text: Option<std::sync::Arc<String>>,
    /// The revision of [`Self::proposed_text`] where `writegate preview` worked it out on
    /// its second thread ([`Engine::prepare_named`]), so the preview does not hash it again.
    pub(crate) proposed_revision: Option<String>,
    /// The diff the preview shows (the reader's notes, the masked unified text), where
    /// `writegate preview` worked it out on its second thread on exactly these texts.
    pub(crate) shown_diff: Option<(Vec<String>, String)>,
    /// Conflict details.
    pub conflict: Option<Value>,
    /// For an idempotency conflict: the effect digest of the earlier apply.
    pub prior_effect_digest: Option<String>,
    /// The edit's outcome (todo ops), but for its `text`, which is [`Self::proposed_text`]
    /// (left empty here).
    pub outcome: Option<EditOutcome>,
    /// Lines the change adds (1-based line number in the proposed text, text).
    pub added: Vec<(usize, String)>,
    /// How many lines the change removes.
    pub removed: usize,
    /// The line diff `added` and `removed` come from (current → proposed text), for the
    /// preview's unified diff; used only while it fingerprints equal to the two texts.
    pub kept_diff: Option<crate::diff::KeptOps>,
    /// Holder of the lease that conflicts, if the lease check failed (even when an earlier
    /// check decided the predicted status).
    pub lease_holder: Option<String>,
    /// For a revision conflict whose base is kept in `gate/revisions/`: base, current and
    /// the proposal applied to the base.
    pub three_way: Option<super::conflict::ThreeWay>,
    /// Every failed check with the status it would give, in order (the first decides
    /// `predicted`; an idempotency override looks past that one).
    pub failures: Vec<(String, Predicted)>,
    /// The reason code recorded with a non-applied outcome when a check names one
    /// (`canonical_authority`); else the status name is the code.
    pub reason_code: Option<&'static str>,
    /// The goal's authority (`markdown` | `canonical`), when the goal is known.
    pub authority: Option<&'static str>,
    /// For a LoopX 2.x command: the prediction the proposed text comes from.
    pub canonical: Option<std::sync::Arc<super::canonical::predict::Prediction>>,
    /// For a stale item recomputed on the current state (issue 14): the revisions and what
    /// moved since the agent's base. `proposed_text` is then the recomputed text.
    pub recomputed: Option<super::recompute::Recomputed>,
    /// For an item that stays `revision_conflict`: why it is not recomputed.
    pub stale_reason: Option<String>,
    /// For a LoopX 2.x command recomputed at the head: the command line apply runs (its
    /// expected revision set to the head); `None`: the item's own.
    pub loopx_argv: Option<super::canonical::argv::LoopxArgv>,
    /// The text of the existing todo the item targets, as the current state has it (for the
    /// summary), when there is one.
    pub target_text: Option<String>,
    /// An operator rejected this idempotency key or effect before (issue 14 item 4).
    pub rejected_before: Option<super::rejections::RejectedBefore>,
}

impl Prepared {
    /// [`Self::current_text`] as text.
    #[must_use]
    pub fn current(&self) -> Option<&str> {
        self.current_text.as_deref().map(String::as_str)
    }

    /// The revision of [`Self::current_text`] (`sha256:<hex>`): the one the checks worked
    /// out, else hashed here; `None` without a current text.
    #[must_use]
    pub fn current_rev(&self) -> Option<String> {
        self.current_revision.clone().or_else(|| self.current().map(revision_of_text))
    }

    /// An item with no check run yet (for listing before the checks finish).
    #[must_use]
    pub fn unchecked(item: &Item) -> Self {
        let mut p = Self::new(item);
        if let (Err(reason), None, None) = (&item.intent, &item.writeback, &item.command) {
            p.invalid_reason = Some(reason.clone());
        }
        p
    }

    pub(super) fn new(item: &Item) -> Self {
        Self {
            item: item.clone(),
            checks: Vec::new(),
            findings: Vec::new(),
            predicted: Predicted::Ready,
            invalid_reason: None,
            current_text: None,
            current_revision: None,
            proposed_text: None,
            proposed_revision: None,
            shown_diff: None,
            conflict: None,
            prior_effect_digest: None,
            outcome: None,
            added: Vec::new(),
            removed: 0,
            kept_diff: None,
            lease_holder: None,
            three_way: None,
            failures: Vec::new(),
            reason_code: None,
            authority: None,
            canonical: None,
            recomputed: None,
            stale_reason: None,
            rejected_before: None,
            loopx_argv: None,
            target_text: None,
        }
    }

    /// Sets [`Self::added`], [`Self::removed`] and [`Self::kept_diff`] from one line diff of
    /// the current text and the text apply would write.
    pub(super) fn diff_lines(&mut self, current: &std::sync::Arc<String>, proposed: &std::sync::Arc<String>) {
        let kept;
        ((self.added, self.removed), kept) = crate::diff::added_and_removed_keeping(current, proposed);
        self.kept_diff = Some(kept);
    }

    pub(super) fn check(&mut self, name: &str, ok: bool, detail: impl Into<String>, fail: Option<Predicted>) {
        self.checks.push(Check { name: name.into(), ok, detail: detail.into() });
        if !ok && let Some(p) = fail {
            if self.predicted == Predicted::Ready {
                self.predicted = p.clone();
            }
            self.failures.push((name.to_owned(), p));
        }
    }

    /// Notes for the Diff tab beyond line endings: for a recomputed item, what moved since the
    /// agent's base; for a LoopX 2.x command, which lines of the predicted text hold stamps
    /// LoopX sets when it commits (commit times, region digests).
    #[must_use]
    pub fn extra_diff_notes(&self) -> Vec<String> {
        if let Some(r) = &self.recomputed {
            return vec![r.line()];
        }
        let Some(pr) = &self.canonical else { return Vec::new() };
        let ranges = super::canonical::predict::stamps(&pr.after, &pr.before, pr.window);
        if ranges.is_empty() {
            return Vec::new();
        }
        let named: Vec<String> = ranges
            .iter()
            .map(|r| {
                let line = pr.after[..r.start].matches('\n').count() + 1;
                let before = &pr.after[..r.start];
                let name = before.rsplit([' ', '\n']).next().unwrap_or("").trim_end_matches(['=', ':', ' ']);
                if name.is_empty() { format!("line {line}") } else { format!("line {line} {name}") }
            })
            .collect();
        let shown = named.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
        let more = if named.len() > 8 { format!(" and {} more", named.len() - 8) } else { String::new() };
        vec![format!("stamped at apply (LoopX sets these when it commits): {shown}{more}")]
    }

    /// True when some finding has severity `warn` (apply then needs a typed confirmation).
    #[must_use]
    pub fn has_warnings(&self) -> bool {
        self.findings.iter().any(|f| f.severity == "warn")
    }
}

/// The results log for the idempotency check, or `None` after recording the check failed
/// (an unreadable log decides nothing about keys: `failed`).
pub(super) fn readable_results<'a>(
    p: &mut Prepared,
    results: &'a Result<crate::gate::results::Records, String>,
) -> Option<&'a [std::sync::Arc<ResultRecord>]> {
    match results {
        Ok(r) => Some(r),
        Err(e) => {
            p.check(
                "idempotency",
                false,
                format!("results log unreadable: {e}"),
                Some(Predicted::Status(Status::Failed)),
            );
            None
        }
    }
}

/// How much of a stale item's 3-way view a preparation builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Detail {
    /// Everything: the view's diffs and overlapping lines, the conflict's diff details and a
    /// recompute's diff of diffs (the TUI, `preview`, `list`).
    Full,
    /// What a decision reads: the base, the proposal on it and every check; the diffs, the
    /// overlapping lines and the diff of diffs stay empty (they decide nothing).
    Decision,
}

impl Engine {
    /// Evaluates every check for `item` against the current disk state. Writes nothing.
    #[must_use]
    pub fn prepare(&self, item: &Item) -> Prepared {
        self.prepare_in(item, &self.goal_snapshot(&item.goal_id))
    }

    /// [`Engine::prepare`] against an already read [`GoalSnapshot`] of the item's goal.
    #[must_use]
    pub fn prepare_in(&self, item: &Item, snap: &GoalSnapshot) -> Prepared {
        self.prepare_with(item, snap, Detail::Full, None)
    }

    /// [`Engine::prepare_in`] for the apply that follows at once under the locks: the same
    /// checks, status and texts, without what only the operator reads ([`Detail::Decision`]).
    /// Apply keeps it only when it says `ready`; any other status is prepared again in full
    /// for the record and the outcome's details.
    pub(super) fn prepare_for_apply(&self, item: &Item, snap: &GoalSnapshot) -> Prepared {
        self.prepare_with(item, snap, Detail::Decision, None)
    }

    /// [`Self::prepare_in`] at `detail`, taking what `pre` worked out where it fits.
    pub(super) fn prepare_with(
        &self,
        item: &Item,
        snap: &GoalSnapshot,
        detail: Detail,
        pre: Option<&Premade>,
    ) -> Prepared {
        if let Some(p) = decided_preview(item, snap) {
            return p;
        }
        let mut p = if let Some(wb) = &item.writeback {
            self.prepare_writeback(item, wb, snap)
        } else if let Some(cmd) = &item.command {
            self.prepare_canonical(item, cmd, snap)
        } else {
            self.prepare_intent(item, snap, detail, pre)
        };
        super::rejections::mark(&mut p, &snap.results);
        if let (Some(why), Some(Value::Object(c))) = (&p.stale_reason, p.conflict.as_mut()) {
            c.insert("not_recomputed_because".into(), json!(why));
        }
        p
    }

    /// The checks of a write intent (a LoopX 0.5.x packet with writegate's proposal).
    fn prepare_intent(&self, item: &Item, snap: &GoalSnapshot, detail: Detail, pre: Option<&Premade>) -> Prepared {
        let mut p = Prepared::new(item);
        p.authority = snap.authority.as_deref().map(|a| a.kind.as_str());
        let intent = match &item.intent {
            Ok(i) => i.clone(),
            Err(reason) => {
                p.check("schema", false, reason.clone(), Some(Predicted::Invalid));
                p.invalid_reason = Some(reason.clone());
                return p;
            }
        };
        p.check("schema", true, format!("local_state_write_correctness_v0, proposal {}", intent.proposal.kind()), None);
        let goal = match &snap.goal {
            Ok(g) if intent.goal_id == item.goal_id => g.clone(),
            Ok(_) => {
                let why = format!(
                    "packet goal_id {} is not the goal whose inbox holds it ({})",
                    intent.goal_id, item.goal_id
                );
                p.check("goal", false, why.clone(), Some(Predicted::Invalid));
                p.invalid_reason = Some(why);
                return p;
            }
            Err(e) => {
                p.check("goal", false, e.clone(), Some(Predicted::Invalid));
                p.invalid_reason = Some(e.clone());
                return p;
            }
        };
        let current = match &snap.state {
            Ok(t) => t.clone(),
            Err(e) => {
                p.check("goal", false, e.clone(), Some(Predicted::Status(Status::Failed)));
                p.invalid_reason = Some(e.clone());
                return p;
            }
        };
        p.check("goal", true, format!("{} → {}", goal.id, goal.state_file_rel), None);
        if let Some(auth) = snap.authority.as_deref()
            && !super::authority_check::check_authority(&mut p, &intent, auth, &current)
        {
            p.current_text = Some(current);
            check_boundary(&mut p, &intent, snap.allowlist.as_deref().unwrap_or_default());
            return p;
        }
        let raw = RawAfter::of(&intent.proposal, &current);
        if let Some(auth) = snap.authority.as_deref().filter(|a| a.is_canonical())
            && let Some(Ok(after)) = raw.as_ref().map(|r| &r.text)
            && revision_of_text(&current) == intent.expected_revision
            && p.failures.is_empty()
        {
            self.check_loopx_keeps(&mut p, &goal, auth, after);
        }
        Self::check_idempotency(&mut p, &intent, &snap.results);
        self.add_prior_proposal(&mut p, &intent);
        let current_rev = snap.revision.clone().unwrap_or_else(|| revision_of_text(&current));
        let rev_ok = check_revision(&mut p, intent.expected_revision.as_str(), &current_rev);
        p.current_revision = Some(current_rev);
        let state = snap.parsed.clone().unwrap_or_else(|| std::sync::Arc::new(ActiveState::parse(&current)));
        if let Proposal::TodoOp(op) = &intent.proposal {
            p.target_text = op.todo_id().and_then(|id| state.find_todo(id)).map(|t| t.text.to_string());
        }
        self.check_lease(&mut p, &intent, &state, raw.as_ref(), &goal.id);
        // One clock reading for the edit and its 3-way base: two could straddle a second,
        // stamp the same add differently, and refuse a recompute that should pass.
        let ctx = EditContext {
            goal_id: intent.goal_id.clone(),
            registered_agents: goal.registered_agents.clone(),
            now: self.clock.loopx_now(),
        };
        Self::check_edit(&mut p, &intent, (&current, &state), raw, (&ctx, pre), rev_ok);
        if !rev_ok {
            Self::add_three_way(&mut p, &intent, (&current, &snap.gate), &ctx, detail);
        }
        p.current_text = Some(current);
        check_boundary(&mut p, &intent, snap.allowlist.as_deref().unwrap_or_default());
        check_lock(&mut p, &goal.state_file);
        p.stale_reason = super::recompute::recompute_if_eligible(&mut p, detail);
        p
    }

    /// The edit check; `before` is the current text and its parse, `raw` a raw proposal's
    /// text on it (`None` for a todo op).
    fn check_edit(
        p: &mut Prepared,
        intent: &Intent,
        before: (&std::sync::Arc<String>, &ActiveState),
        raw: Option<RawAfter>,
        (ctx, pre): (&EditContext, Option<&Premade>),
        rev_ok: bool,
    ) {
        let current = before.0;
        let proposed = match &intent.proposal {
            Proposal::Replace(_) | Proposal::UnifiedDiff(_) => {
                let Some(raw) = raw else {
                    // Not reached: every raw proposal comes with its text.
                    p.check("edit", false, "the proposed text was not worked out", Some(Predicted::Invalid));
                    return;
                };
                if let (Some(after), true) = (raw.parsed(before.1), rev_ok)
                    && let Err(why) = raw_consistent(intent, before.1, after)
                {
                    p.check("edit", false, why.clone(), Some(Predicted::Invalid));
                    p.invalid_reason = Some(why);
                    return;
                }
                raw.into_text()
            }
            Proposal::TodoOp(op) => {
                match apply_op(current, op, ctx) {
                    Ok(mut outcome) => {
                        if rev_ok && let Err(why) = consistent(intent, op, &outcome) {
                            p.check("edit", false, why.clone(), Some(Predicted::Invalid));
                            p.invalid_reason = Some(why);
                            return;
                        }
                        // The text moves to `proposed_text` (a large state is not held twice).
                        let text = std::mem::take(&mut outcome.text);
                        p.outcome = Some(outcome);
                        Ok(std::sync::Arc::new(text))
                    }
                    Err(e) => Err(format!("LoopX would refuse: {e}")),
                }
            }
        };
        Self::judge_edit(p, intent.proposal.kind(), current, proposed, pre);
    }

    /// The edit check's verdict on the proposed text (`Err`: why it cannot be worked out):
    /// already held, emptying the state (invalid), or a change of so many lines, whose line
    /// diff the second thread may have made already (`pre`).
    fn judge_edit(
        p: &mut Prepared,
        kind: &str,
        current: &std::sync::Arc<String>,
        proposed: Result<std::sync::Arc<String>, String>,
        pre: Option<&Premade>,
    ) {
        match proposed {
            Err(e) => {
                p.check("edit", false, e.clone(), Some(Predicted::Status(Status::Failed)));
                p.invalid_reason = Some(e);
            }
            Ok(text) if text.as_str() == current.as_str() => {
                p.check(
                    "edit",
                    false,
                    "the state already holds this change",
                    Some(Predicted::Status(Status::AlreadyApplied)),
                );
                p.proposed_text = Some(text);
            }
            Ok(text) if text.trim().is_empty() => {
                // Never a state LoopX can read as the goal: its frontmatter and todos go too.
                let why = format!("{kind} would empty the state file");
                p.check("edit", false, why.clone(), Some(Predicted::Invalid));
                p.invalid_reason = Some(why);
            }
            Ok(text) => {
                match pre.and_then(|pre| pre.take_line_diff(current, &text)) {
                    Some(((added, removed), kept)) => (p.added, p.removed, p.kept_diff) = (added, removed, Some(kept)),
                    None => p.diff_lines(current, &text),
                }
                let (added, removed) = (p.added.len(), p.removed);
                p.check(
                    "edit",
                    true,
                    format!("{kind}: {added} line(s) added, {removed} removed (a changed line counts as both)"),
                    None,
                );
                p.proposed_text = Some(text);
            }
        }
    }
}

/// An item already decided (its final result recorded) whose move to `decided/` was
/// interrupted: shown with its recorded status, never offered again (issue 12 case 7).
fn decided_preview(item: &Item, snap: &GoalSnapshot) -> Option<Prepared> {
    let rec = super::recover::decided_by(snap.results.as_ref().ok()?, item)?;
    let mut p = Prepared::new(item);
    p.authority = snap.authority.as_deref().map(|a| a.kind.as_str());
    p.check(
        "decided",
        false,
        format!(
            "already {} at {}; the move to decided/ was interrupted and finishes with the next decision",
            rec.status.as_str(),
            rec.recorded_at
        ),
        Some(Predicted::Status(rec.status)),
    );
    Some(p)
}

/// The revision check: the packet's `expected` revision against the state's `current` one;
/// on a mismatch a `revision_conflict` unless another conflict came first. True when equal.
fn check_revision(p: &mut Prepared, expected: &str, current: &str) -> bool {
    let ok = current == expected;
    let detail = if ok {
        format!("expected {} is current", short(current))
    } else {
        format!("expected {} but the state is at {}", short(expected), short(current))
    };
    p.check("revision", ok, detail, Some(Predicted::Status(Status::RevisionConflict)));
    if !ok && p.conflict.is_none() {
        p.conflict =
            Some(json!({"kind": "revision_conflict", "expected_revision": expected, "current_revision": current}));
    }
    ok
}

/// A revision cut to 19 characters for a check's detail, masked before the cut (the agent
/// wrote the expected one: a token cut short no longer reads as one, and was shown).
fn short(rev: &str) -> String {
    crate::scan::mask_secrets(rev).0.chars().take(19).collect()
}
