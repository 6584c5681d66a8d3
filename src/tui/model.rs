//! What the UI shows, loaded off the UI thread from the engine: goal rows and queue items
//! with their preview details. Loading a goal reads its state and results once and prepares
//! every pending item against that snapshot.

use crate::engine::{Engine, Predicted, Prepared};
use crate::loopx::lease::{LeaseRead, read_lease};
use crate::loopx::state::ActiveState;
use crate::wire::{Check, Finding};
use chrono::{DateTime, Utc};
use serde_json::Value;
use std::sync::Arc;

/// A lease shown in the goals pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseView {
    /// Todo id.
    pub todo_id: String,
    /// Holder.
    pub holder: String,
    /// `None` for a soft claim (never expires).
    pub expires_at: Option<DateTime<Utc>>,
}

/// One goal row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoalRow {
    /// Goal id.
    pub id: String,
    /// Frontmatter `status`.
    pub status: String,
    /// First Next Action entry.
    pub next_action: String,
    /// Open todos.
    pub open_todos: usize,
    /// Soft claims and hard leases.
    pub leases: Vec<LeaseView>,
    /// `markdown` or `canonical` (LOOPX2.md §1).
    pub authority: crate::loopx2::AuthorityKind,
    /// Projection health of a canonical goal (`None`: markdown, or not judged).
    pub projection: Option<crate::loopx2::Projection>,
    /// Ghost todos of a canonical goal (todo lines outside the regions LoopX never imports).
    pub ghosts: usize,
    /// Why the goal cannot be read.
    pub error: Option<String>,
}

/// Scan marker of an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanMark {
    /// No finding.
    Clean,
    /// `warn` findings: typed confirmation.
    Warn,
    /// `block` findings: apply unavailable.
    Block,
}

/// Everything the detail tabs show for an item.
#[derive(Debug, Clone, Default)]
pub struct Detail {
    /// Checks in order, each shared with the items of its goal load that have the same one
    /// ([`CheckPool`]).
    pub checks: Vec<Arc<Check>>,
    /// Findings.
    pub findings: Vec<Finding>,
    /// The item file (the Packet tab reads it off the UI thread).
    pub path: std::path::PathBuf,
    /// Current state text.
    pub current: Option<Arc<String>>,
    /// Proposed state text, kept as what it changes in `current`.
    pub proposed: Option<ProposedText>,
    /// Conflict details.
    pub conflict: Option<Value>,
    /// Why invalid.
    pub invalid_reason: Option<String>,
    /// Diff notes beyond line endings (a LoopX 2.x prediction's stamped lines).
    pub notes: Vec<String>,
    /// For a LoopX 2.x command item: the command line apply runs (`loopx todo add …`).
    pub command_line: Option<String>,
    /// Results of this goal, oldest first (the log's own order, shared with the snapshot it
    /// was read in: never copied per item or per reload).
    pub history: crate::gate::results::Records,
    /// For a stale item recomputed on the current state: what moved and on what.
    pub recomputed: Option<crate::engine::recompute::Recomputed>,
    /// For an item that stays stale: why it is not recomputed.
    pub stale_reason: Option<String>,
    /// An earlier operator rejection of the same key or effect.
    pub rejected_before: Option<crate::engine::rejections::RejectedBefore>,
}

impl Detail {
    /// The whole proposed state text (rebuilt from what it changes in `current`).
    #[must_use]
    pub fn proposed_text(&self) -> Option<String> {
        self.proposed.as_ref().map(|p| p.text(self.current.as_deref().map(String::as_str)))
    }
}

/// A proposed state text kept as its change to the current text: the byte ranges of the
/// current text it replaces, each with its replacement (from the line diff), so 10,000
/// queued items over states of a few KB (or ten over a 1 MB one) do not each keep a copy of
/// the whole state. Rebuilt exactly: `text(current) == proposed` for the `current` it was
/// made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposedText {
    splices: Vec<(std::ops::Range<usize>, String)>,
}

/// How long the line diff behind a [`ProposedText`] may take; past it the splices are
/// larger (still exact).
const SPLICE_DEADLINE: std::time::Duration = std::time::Duration::from_millis(20);

impl ProposedText {
    /// `proposed` against `current` (`None`: kept whole).
    #[must_use]
    pub fn new(current: Option<&str>, proposed: &str) -> ProposedText {
        let splices = match current {
            Some(c) => crate::diff::splices(c, proposed, SPLICE_DEADLINE),
            None => vec![(0..0, proposed.to_owned())],
        };
        ProposedText { splices }
    }

    /// The whole text, given the `current` it was made against.
    #[must_use]
    pub fn text(&self, current: Option<&str>) -> String {
        let base = current.unwrap_or("");
        let mut out = String::with_capacity(base.len() + self.splices.iter().map(|s| s.1.len()).sum::<usize>());
        let mut at = 0;
        for (range, with) in &self.splices {
            out.push_str(base.get(at..range.start).unwrap_or(""));
            out.push_str(with);
            at = range.end;
        }
        out.push_str(base.get(at..).unwrap_or(""));
        out
    }
}

/// One queue row.
#[derive(Debug, Clone)]
pub struct QueueItem {
    /// `goal/item`.
    pub key: String,
    /// Item id.
    pub item_id: String,
    /// Goal id.
    pub goal_id: String,
    /// `write_intent` / `writeback` / `unknown`.
    pub kind: String,
    /// Write class.
    pub write_class: String,
    /// Acting agent.
    pub agent: String,
    /// When the file was written (its mtime), for the age column.
    pub arrived: DateTime<Utc>,
    /// Predicted status.
    pub predicted: Predicted,
    /// Scan marker.
    pub scan: ScanMark,
    /// What the item does, one line (engine-computed, masked).
    pub summary: String,
    /// Lines the change adds and removes (`(0, 0)` when nothing is written or not known).
    pub lines: (usize, usize),
    /// Lease conflict holder, if any.
    pub lease: Option<String>,
    /// Digest of the file as loaded (decisions are refused if it changed since).
    pub payload_digest: String,
    /// Details.
    pub detail: Arc<Detail>,
    /// Listed but not yet checked (the first pass of a load); apply waits for the check.
    pub checking: bool,
}

impl QueueItem {
    /// A writeback with a failed entry criterion: only reject or "record a blocker" apply.
    #[must_use]
    pub fn is_read_only_writeback(&self) -> bool {
        self.kind == "writeback" && self.predicted == Predicted::Status(crate::wire::Status::PreviewOnly)
    }

    /// Age at `now`, seconds.
    #[must_use]
    pub fn age(&self, now: DateTime<Utc>) -> u64 {
        u64::try_from((now - self.arrived).num_seconds()).unwrap_or(0)
    }

    /// True with `warn` findings, or when an operator rejected this key or effect before.
    #[must_use]
    pub fn needs_typed_confirmation(&self) -> bool {
        self.scan == ScanMark::Warn || self.detail.rejected_before.is_some()
    }
}

/// The checks of one goal load, each distinct one kept once: most check lines repeat from
/// item to item (the goal, the authority, `lock: free`, an unapplied key), and 10,000
/// queued items kept a kilobyte of them each.
#[derive(Default)]
pub struct CheckPool(std::collections::HashSet<Arc<Check>>);

impl CheckPool {
    /// `checks`, each the pool's shared copy (added when new).
    pub fn share(&mut self, checks: &[Check]) -> Vec<Arc<Check>> {
        checks
            .iter()
            .map(|c| {
                if let Some(shared) = self.0.get(c) {
                    return Arc::clone(shared);
                }
                let shared = Arc::new(c.clone());
                self.0.insert(Arc::clone(&shared));
                shared
            })
            .collect()
    }
}

/// The first pass of a load: goal rows and items listed from their files, without the
/// checks (cheap), so the queue shows at once; [`load_goal`] follows with the checks.
#[must_use]
pub fn quick_goal(engine: &Engine, goal_id: &str) -> (GoalRow, Vec<QueueItem>) {
    let goal = engine.goal(goal_id).map_err(|e| crate::error_chain(&e));
    let state = goal.as_ref().map_err(Clone::clone).and_then(|g| crate::engine::read_state(&g.state_file));
    let auth = goal.as_ref().ok().map(|g| engine.goal_authority(g, state.as_deref().ok()));
    let row = goal_row(engine, goal_id, state.as_ref().map(String::as_str), auth.as_ref());
    let history = Arc::new(Vec::new());
    let files = engine.gate(goal_id).map(|g| g.pending_files()).unwrap_or_default();
    let items = files
        .iter()
        .map(|p| {
            let item = crate::engine::Item::read(p, goal_id);
            let mut prepared = crate::engine::Prepared::unchecked(&item);
            let understood = item.intent.is_ok() || item.writeback.is_some() || item.command.is_some();
            prepared.predicted = if understood { Predicted::Ready } else { Predicted::Invalid };
            let mut q = queue_item(&prepared, &history, &mut CheckPool::default());
            q.checking = understood;
            q
        })
        .collect();
    (row, items)
}

/// Goals in the loader's first batch: the first filled frame comes after these, the rest
/// follow in later batches.
pub const FIRST_BATCH: usize = 40;

/// Loads one goal: its row and its queue items.
#[must_use]
pub fn load_goal(engine: &Engine, goal_id: &str) -> (GoalRow, Vec<QueueItem>) {
    let snap = engine.goal_snapshot(goal_id);
    let history: crate::gate::results::Records =
        snap.results.as_ref().map_or_else(|_| Arc::new(Vec::new()), Arc::clone);
    let row = goal_row(engine, goal_id, snap.state.as_ref().map(|t| t.as_str()), snap.authority.as_deref());
    let files = engine.gate(goal_id).map(|g| g.pending_files()).unwrap_or_default();
    (row, queue_items(engine, goal_id, &files, &snap, &history))
}

/// Some inbox files of one goal, against a fresh read of the goal (its state, results,
/// leases): the goal's row, the items among `paths` that are pending now, prepared, and the
/// paths that are not (renamed out, removed, not an item name). The rest of the goal's
/// items are not read: a state or results change reloads the whole goal instead.
#[must_use]
pub fn load_items(
    engine: &Engine,
    goal_id: &str,
    paths: &std::collections::BTreeSet<std::path::PathBuf>,
) -> (GoalRow, Vec<QueueItem>, Vec<std::path::PathBuf>) {
    let snap = engine.goal_snapshot(goal_id);
    let history: crate::gate::results::Records =
        snap.results.as_ref().map_or_else(|_| Arc::new(Vec::new()), Arc::clone);
    let row = goal_row(engine, goal_id, snap.state.as_ref().map(|t| t.as_str()), snap.authority.as_deref());
    let pending: std::collections::BTreeSet<std::path::PathBuf> =
        engine.gate(goal_id).map(|g| g.pending_files()).unwrap_or_default().into_iter().collect();
    let (here, gone): (Vec<_>, Vec<_>) = paths.iter().cloned().partition(|p| pending.contains(p));
    (row, queue_items(engine, goal_id, &here, &snap, &history), gone)
}

/// The queue rows of item files, each item read, prepared and turned into its row before
/// the next is read ([`Engine::for_each_prepared`]): a goal of 1,000 items never holds
/// 1,000 prepared items at once.
fn queue_items(
    engine: &Engine,
    goal_id: &str,
    files: &[std::path::PathBuf],
    snap: &crate::engine::GoalSnapshot,
    history: &crate::gate::results::Records,
) -> Vec<QueueItem> {
    let mut out = Vec::with_capacity(files.len());
    let mut pool = CheckPool::default();
    engine.for_each_prepared(files, goal_id, snap, |_, p| out.push(queue_item(&p, history, &mut pool)));
    out
}

fn goal_row(
    engine: &Engine,
    goal_id: &str,
    state: Result<&str, &String>,
    auth: Option<&crate::loopx2::GoalAuthority>,
) -> GoalRow {
    let mut row = GoalRow {
        id: goal_id.to_owned(),
        status: String::new(),
        next_action: String::new(),
        open_todos: 0,
        leases: Vec::new(),
        authority: auth.map_or(crate::loopx2::AuthorityKind::Markdown, |a| a.kind),
        projection: auth.and_then(|a| a.projection.as_ref()).map(|(p, _)| *p),
        ghosts: auth.map_or(0, |a| a.ghosts().len()),
        error: None,
    };
    match state {
        Err(e) => row.error = Some(e.clone()),
        Ok(text) if auth.is_some_and(crate::loopx2::GoalAuthority::is_canonical) => {
            let st = ActiveState::parse(text);
            st.frontmatter_value("status").unwrap_or("-").clone_into(&mut row.status);
            row.next_action = st.next_action_entries().into_iter().next().unwrap_or_default();
            canonical_counts(&mut row, auth.and_then(crate::loopx2::GoalAuthority::head_read));
        }
        Ok(text) => {
            let st = ActiveState::parse(text);
            st.frontmatter_value("status").unwrap_or("-").clone_into(&mut row.status);
            row.next_action = st.next_action_entries().into_iter().next().unwrap_or_default();
            row.open_todos = st.open_todos().count();
            let dir = engine.ws.goal_runtime_dir(goal_id).ok();
            for t in st.open_todos() {
                let hard = dir.as_ref().map_or(LeaseRead::Absent, |d| read_lease(d, &t.todo_id));
                match hard {
                    LeaseRead::Present(l) if l.status == "active" => row.leases.push(LeaseView {
                        todo_id: t.todo_id.to_string(),
                        holder: l.owner.clone(),
                        expires_at: l.expiry(),
                    }),
                    _ => {
                        if let Some(c) = t.claimed_by() {
                            row.leases.push(LeaseView { todo_id: t.todo_id.to_string(), holder: c, expires_at: None });
                        }
                    }
                }
            }
        }
    }
    sort_leases(&mut row.leases);
    row
}

/// A canonical goal's open todos and leases, as its authority holds them: hard leases whose
/// stored status is `active` (with their expiry, so an expired one shows `expired … ago`),
/// then soft claims of open todos without one.
fn canonical_counts(row: &mut GoalRow, head: Option<&Result<crate::loopx2::store::CanonicalHead, String>>) {
    match head {
        Some(Ok(h)) => {
            row.open_todos = h.todos.iter().filter(|t| t.is_open()).count();
            for l in h.leases.iter().filter(|l| l.status == "active") {
                row.leases.push(LeaseView {
                    todo_id: l.todo_id.clone(),
                    holder: l.owner.clone(),
                    expires_at: DateTime::parse_from_rfc3339(&l.expires_at).ok().map(|d| d.with_timezone(&Utc)),
                });
            }
            for t in h.todos.iter().filter(|t| t.is_open()) {
                if let Some(c) = &t.claimed_by
                    && !row.leases.iter().any(|l| l.todo_id == t.todo_id)
                {
                    row.leases.push(LeaseView { todo_id: t.todo_id.clone(), holder: c.clone(), expires_at: None });
                }
            }
        }
        Some(Err(e)) => row.error = Some(format!("canonical authority unreadable: {e}")),
        None => {}
    }
}

/// Hard leases first, soonest expiry first; soft claims after.
fn sort_leases(leases: &mut [LeaseView]) {
    leases.sort_by_key(|l| (l.expires_at.is_none(), l.expires_at));
}

/// The queue row of a prepared item. Its current text is the goal snapshot's, shared by
/// every item of the goal, never a copy.
fn queue_item(p: &Prepared, history: &crate::gate::results::Records, pool: &mut CheckPool) -> QueueItem {
    let row = p.row();
    let scan = if p.findings.iter().any(|f| f.severity == "block") {
        ScanMark::Block
    } else if p.has_warnings() {
        ScanMark::Warn
    } else {
        ScanMark::Clean
    };
    let lease = p.lease_holder.clone();
    let current = p.current_text.clone();
    QueueItem {
        key: format!("{}/{}", row.goal_id, row.item_id),
        item_id: row.item_id.clone(),
        goal_id: row.goal_id.clone(),
        kind: row.kind.clone(),
        write_class: row.write_class.clone(),
        agent: row.agent_id.clone(),
        // The file's own mtime: stable across reloads, so the queue order does not shuffle.
        arrived: p.item.modified.map_or_else(
            || Utc::now() - chrono::Duration::seconds(i64::try_from(row.age_seconds).unwrap_or(0)),
            DateTime::<Utc>::from,
        ),
        predicted: p.predicted.clone(),
        scan,
        summary: row.summary.clone(),
        lines: (p.added.len(), p.removed),
        lease,
        payload_digest: p.item.payload_digest.clone(),
        detail: Arc::new(Detail {
            checks: pool.share(&p.checks),
            findings: p.findings.clone(),
            path: p.item.path.clone(),
            current: current.clone(),
            proposed: p.proposed_text.as_deref().map(|t| ProposedText::new(current.as_deref().map(String::as_str), t)),
            conflict: p.conflict.clone(),
            invalid_reason: p.invalid_reason.clone(),
            notes: p.extra_diff_notes(),
            command_line: p.item.command.as_ref().map(|c| c.argv.command_line()),
            history: history.clone(),
            recomputed: p.recomputed.clone(),
            stale_reason: p.stale_reason.clone(),
            rejected_before: p.rejected_before.clone(),
        }),
        checking: false,
    }
}

/// The Packet tab's lines: the item file pretty-printed, sanitised, secrets masked; or why
/// it cannot be shown.
#[must_use]
pub fn packet_lines(detail: &Detail) -> Vec<String> {
    let bytes = match crate::gate::fsutil::read_regular(&detail.path, crate::engine::item::MAX_ITEM_BYTES, false) {
        Ok(b) => b,
        Err(e) => return vec![format!("cannot show the item file: {e}")],
    };
    let text = match crate::json::parse_strict(&bytes) {
        Ok(v) => serde_json::to_string_pretty(&v).unwrap_or_default(),
        Err(e) => format!("not valid JSON: {e}\n\n{}", String::from_utf8_lossy(&bytes)),
    };
    let mut masker = crate::scan::Masker::new();
    text.lines().map(|l| masker.line(&crate::textsafe::sanitize(l, false)).0).collect()
}

#[cfg(test)]
mod proposed_tests {
    use super::ProposedText;
    use proptest::prelude::*;

    proptest::proptest! {
        /// Kept as its change to the current text, a proposal rebuilds byte for byte, UTF-8
        /// that shares leading or trailing bytes across different characters included.
        #[test]
        fn a_proposal_rebuilds_exactly(current in "[aéêë©€₤\n\r-]{0,40}", proposed in "[aéêë©€₤\n\r-]{0,40}", none in any::<bool>()) {
            let base = (!none).then_some(current.as_str());
            let p = ProposedText::new(base, &proposed);
            prop_assert_eq!(p.text(base), proposed);
        }
    }

    #[test]
    fn a_small_change_to_a_large_state_keeps_only_the_change() {
        let current = "x".repeat(100_000) + "\nold\n" + &"y".repeat(100_000);
        let proposed = current.replace("old", "new!");
        let p = ProposedText::new(Some(&current), &proposed);
        assert_eq!(p.splices, vec![(100_001..100_005, "new!\n".to_owned())]);
        assert_eq!(p.text(Some(&current)), proposed);
    }
}
