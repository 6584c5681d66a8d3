//! `writegate status` rows: per goal its authority (LOOPX2.md §1), revision, frontmatter
//! status, open todos and hard leases as the authority holds them, provider revision and
//! projection health (canonical goals), pending items and conflicts.

use super::Engine;
use crate::loopx::registry::Goal;
use crate::loopx2::GoalAuthority;
use crate::wire::{GoalStatus, LeaseRow};

impl Engine {
    /// `writegate status` rows, registry order, then the goals that could not be resolved.
    #[must_use]
    pub fn status(&self) -> Vec<GoalStatus> {
        let mut plain = crate::loopx::registry::PlainDirs::default();
        let mut rows: Vec<GoalStatus> = self.ws.goals.iter().map(|g| self.goal_status(g, &mut plain)).collect();
        rows.extend(self.ws.broken_goals.iter().map(|(id, err)| GoalStatus {
            goal_id: id.clone(),
            state_file: String::new(),
            revision: None,
            frontmatter_status: None,
            open_todos: 0,
            pending: 0,
            conflicts: 0,
            authority: String::new(),
            provider_revision: None,
            leases: Vec::new(),
            projection: None,
            error: Some(err.clone()),
        }));
        rows
    }

    fn goal_status(&self, g: &Goal, plain: &mut crate::loopx::registry::PlainDirs) -> GoalStatus {
        let snap = self.goal_snapshot_in(&g.id, self.gate_in(&g.id, plain).map_err(|e| crate::error_chain(&e)));
        let files = snap.gate.as_ref().map(crate::gate::GateDir::pending_files).unwrap_or_default();
        let mut rows = Vec::with_capacity(files.len());
        self.for_each_prepared(&files, &g.id, &snap, |_, p| rows.push(p.row()));
        let auth = snap.authority.clone();
        let mut errors: Vec<String> = Vec::new();
        if let Err(e) = &snap.state {
            errors.push(e.clone());
        }
        if let Err(e) = &snap.results {
            errors.push(e.clone());
        }
        let markdown_open = snap.parsed.as_ref().map_or(0, |st| st.open_todos().count());
        let (open_todos, provider_revision) = match auth.as_deref() {
            Some(a) if a.is_canonical() => match a.head_read() {
                Some(Ok(h)) => (h.todos.iter().filter(|t| t.is_open()).count(), Some(h.provider_revision.clone())),
                Some(Err(e)) => {
                    errors.push(format!("canonical authority unreadable: {e}"));
                    (0, None)
                }
                None => (0, None),
            },
            _ => (markdown_open, None),
        };
        GoalStatus {
            goal_id: g.id.clone(),
            state_file: g.state_file_rel.clone(),
            revision: snap.revision.clone(),
            frontmatter_status: snap.parsed.as_ref().and_then(|st| st.frontmatter_value("status").map(str::to_owned)),
            open_todos,
            pending: rows.len(),
            conflicts: rows.iter().filter(|r| super::is_conflict_name(&r.predicted_status)).count(),
            authority: auth.as_deref().map_or("markdown", |a| a.kind.as_str()).to_owned(),
            provider_revision,
            leases: self.lease_rows(auth.as_deref(), snap.gate.as_ref().ok()),
            projection: auth.as_deref().and_then(|a| a.projection.as_ref()).map(|(p, _)| p.as_str().to_owned()),
            error: (!errors.is_empty()).then(|| errors.join("; ")),
        }
    }

    /// Hard leases whose stored status is `active`: a canonical goal's from its authority, a
    /// markdown goal's from `task-leases/*.json` of the runtime folder that holds `gate`.
    fn lease_rows(&self, auth: Option<&GoalAuthority>, gate: Option<&crate::gate::GateDir>) -> Vec<LeaseRow> {
        let now = self.clock.now().with_timezone(&chrono::Utc);
        if let Some(a) = auth.filter(|a| a.is_canonical()) {
            return a
                .active_leases(now)
                .into_iter()
                .map(|(l, expired)| LeaseRow {
                    todo_id: l.todo_id,
                    owner: l.owner,
                    version: l.version,
                    epoch: l.epoch,
                    idempotency_key: l.idempotency_key,
                    expires_at: l.expires_at,
                    expired,
                })
                .collect();
        }
        let Some(dir) = gate.and_then(|g| g.root().parent()) else { return Vec::new() };
        let Ok(entries) = std::fs::read_dir(dir.join("task-leases")) else { return Vec::new() };
        let mut ids: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".json")).map(str::to_owned))
            .collect();
        ids.sort();
        ids.iter()
            .filter_map(|id| match crate::loopx::lease::read_lease(dir, id) {
                crate::loopx::lease::LeaseRead::Present(l) if l.status == "active" => Some(LeaseRow {
                    expired: l.is_expired_at(now),
                    todo_id: l.todo_id,
                    owner: l.owner,
                    version: l.version,
                    epoch: l.lease_epoch,
                    idempotency_key: l.idempotency_key,
                    expires_at: l.expires_at,
                }),
                _ => None,
            })
            .collect()
    }
}
