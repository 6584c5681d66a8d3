//! The Conflict tab: what stands in the way of an apply, readable. A revision conflict whose
//! base is kept (`gate/revisions/`) shows the 3-way view — what changed since the agent read
//! the state, what the agent wants, both from the base — with the lines of base ranges both
//! sides change marked `!`. Other conflicts show their details as `key: value` lines.

use crate::tui::model::QueueItem;
use crate::tui::theme::Theme;
use ratatui::style::Style;
use serde_json::Value;

/// `(first, last)` base line ranges from `overlapping_base_lines`.
fn overlap_ranges(c: &Value) -> Vec<(usize, usize)> {
    c["overlapping_base_lines"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|o| {
                    let n = |k: &str| o[k].as_u64().and_then(|v| usize::try_from(v).ok());
                    Some((n("first")?, n("last")?))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The old start line of a `@@ -a,b +c,d @@` header.
fn hunk_old_start(header: &str) -> Option<usize> {
    let rest = header.strip_prefix("@@ -")?;
    rest.split([',', ' ']).next()?.parse().ok()
}

/// A unified diff (from base) as styled lines; lines whose base position falls in an
/// overlapping range get a `!` in front, others two spaces.
fn diff_lines(diff: &str, overlaps: &[(usize, usize)], theme: Theme) -> Vec<(Style, String)> {
    let mut out = Vec::new();
    let mut old = 0usize;
    // Base line of the last `-` in the current run: the `+` lines after it replace it.
    let mut replaced: Option<usize> = None;
    let hit = |n: usize| overlaps.iter().any(|&(a, b)| a <= n && n <= b);
    for l in diff.lines() {
        if l.starts_with("--- ") || l.starts_with("+++ ") {
            continue;
        }
        if l.starts_with("@@") {
            old = hunk_old_start(l).unwrap_or(0);
            replaced = None;
            out.push((theme.dim(), format!("  {l}")));
            continue;
        }
        let (style, marked) = match l.chars().next() {
            Some('+') => (theme.added(), hit(old) || replaced.is_some_and(hit)),
            Some('-') => {
                replaced = Some(old);
                old += 1;
                (theme.removed(), hit(old - 1))
            }
            _ => {
                replaced = None;
                old += 1;
                (Style::new(), false)
            }
        };
        let style = if marked { style.patch(theme.warn()) } else { style };
        out.push((style, format!("{}{l}", if marked { "! " } else { "  " })));
    }
    if out.is_empty() {
        out.push((theme.dim(), "  (no change)".into()));
    }
    out
}

/// `key: value` lines; objects one level deeper as indented `key:` blocks, `null` as "none".
fn push_field(out: &mut Vec<(Style, String)>, key: &str, v: &Value, depth: usize) {
    let pad = "  ".repeat(depth);
    match v {
        Value::Object(o) if depth < 3 => {
            out.push((Style::new(), format!("{pad}{key}:")));
            for (k, v) in o {
                push_field(out, k, v, depth + 1);
            }
        }
        Value::Null => out.push((Style::new(), format!("{pad}{key}: none"))),
        Value::String(s) => out.push((Style::new(), format!("{pad}{key}: {s}"))),
        other => out.push((Style::new(), format!("{pad}{key}: {other}"))),
    }
}

fn short(rev: &Value) -> String {
    let s = rev.as_str().unwrap_or("?");
    s.chars().take("sha256:".len() + 12).collect()
}

/// The lock-holder view after a `lock_busy` apply of this item: LoopX's holder record, the
/// incident row written, and the retry key.
fn lock_lines(lock: &Value, theme: Theme) -> Vec<(Style, String)> {
    let mut out = vec![(theme.warn(), "lock busy: LoopX's state-file lock stayed held for 5 s".into())];
    if lock["holder"].get("released_at").is_some() {
        out.push((
            theme.warn(),
            "the holder record below is the last one written and says it released: the current holder wrote none"
                .into(),
        ));
    }
    if let Some(v) = lock.get("holder") {
        push_field(&mut out, "holder", v, 1);
    }
    if let Some(Value::Object(incident)) = lock.get("incident") {
        // The row repeats the holder shown above and LoopX's generic operator steps.
        let mut brief = incident.clone();
        brief.retain(|k, _| !matches!(k.as_str(), "holder" | "operator_action" | "lock_id" | "policy"));
        push_field(&mut out, "incident", &Value::Object(brief), 1);
    }
    let recorded = lock["incident_recorded"].as_bool().unwrap_or(false);
    out.push((
        Style::new(),
        format!("  incident row: {}", if recorded { "written to <state>.lock.incidents.jsonl" } else { "not written" }),
    ));
    out.push((
        theme.dim(),
        "a retries the apply (every check runs again); the lock file is never deleted — if the holder is gone, LoopX's next locker takes over"
            .into(),
    ));
    out
}

/// The tab's lines.
pub(super) fn lines(app: &crate::tui::app::App, item: &QueueItem, theme: Theme) -> Vec<(Style, String)> {
    let mut out = match app.lock_busy.as_ref().filter(|(k, _)| *k == item.key) {
        Some((_, lock)) => lock_lines(lock, theme),
        None => Vec::new(),
    };
    if let Some(r) = &item.detail.rejected_before {
        out.push((theme.error(), format!("rejected before: {}", crate::tui::view::safe(&r.line()))));
        out.push((theme.dim(), "applying it needs the typed id: make sure what changed since the rejection".into()));
    }
    let Some(c) = &item.detail.conflict else {
        let failed = item.predicted == crate::engine::Predicted::Status(crate::wire::Status::Failed);
        if out.is_empty() && failed {
            // Nothing to resolve: the write itself is refused (e.g. a 0.5.x todo edit on a
            // LoopX 2.x goal). Say so, and what is left to do.
            let why = item.detail.invalid_reason.as_deref().unwrap_or("see Checks");
            out.push((
                theme.warn(),
                format!("apply would fail, whatever you resolve: {}", crate::tui::view::safe(why)),
            ));
            out.push((theme.dim(), "what is left: reject it with a reason the agent can act on, or skip it".into()));
        } else if item.detail.rejected_before.is_none() && out.is_empty() {
            out.push((
                theme.dim(),
                "no conflict: no stale revision, foreign lease, busy lock or reused idempotency key stands in the way"
                    .into(),
            ));
        }
        return out;
    };
    let kind = c["kind"].as_str().unwrap_or("conflict");
    out.push((theme.warn(), kind.replace('_', " ")));
    // A LoopX 2.x command's conflicts are LoopX's answers: shown field by field.
    if !matches!(kind, "revision_conflict" | "recomputed") || c.get("loopx_error_code").is_some() {
        for (k, v) in c.as_object().into_iter().flatten().filter(|(k, _)| k.as_str() != "kind" && !k.ends_with("_diff"))
        {
            push_field(&mut out, k, v, 1);
        }
        if let Some(exp) = c["hard_lease"]["expires_at"].as_str()
            && let Ok(t) = chrono::DateTime::parse_from_rfc3339(exp)
        {
            let left = super::goals::countdown(t.with_timezone(&chrono::Utc), app.now);
            out.push((theme.warn(), format!("  hard lease: {left}")));
        }
        if kind == "lease_conflict" {
            let next = if c["reason"] == "expired" {
                "next: L marks the expired lease released, written as `loopx task-lease release` writes it and recorded (typed confirmation); then apply. Or skip / reject"
            } else {
                "nothing here transfers or clears another agent's lease: skip or reject, or wait for the holder"
            };
            out.push((theme.dim(), next.into()));
        }
        if kind == "idempotency_conflict" {
            // Offer the override only where it can succeed (issue 12 case 6).
            let next = match crate::tui::app::apply_unavailable(item) {
                None => "next: a applies it anyway after the typed id, recording an override with both effect digests; or skip / reject".to_owned(),
                Some(why) => format!("no override here: {}", crate::tui::view::safe(&why)),
            };
            out.push((theme.dim(), next));
        }
        if kind == "moved_since" {
            let note = match c["same_change"].as_bool() {
                Some(true) => "the head moved since the agent proposed this, but the change LoopX would make is the same".to_owned(),
                Some(false) => "the head moved since the agent proposed this, and the change LoopX would make now differs (below); a applies the change as it is predicted now".to_owned(),
                None => "the head moved since the agent proposed this; the Diff tab shows the change as it is predicted now".to_owned(),
            };
            out.push((theme.dim(), note));
        }
        if let Some(d) = c["moved_diff"].as_str().filter(|d| !d.is_empty()) {
            out.push((theme.title(), "── the change as proposed → as predicted at the head now".into()));
            out.extend(diff_lines(d, &[], theme));
        }
        if let Some(d) = c["proposal_diff"].as_str() {
            out.push((theme.title(), "── the earlier applied proposal → this one (same key, different effect)".into()));
            out.extend(diff_lines(d, &[], theme));
        }
        return out;
    }
    out.push((
        Style::new(),
        format!(
            "the agent read {}; the state is now at {}",
            short(&c["expected_revision"]),
            short(&c["current_revision"])
        ),
    ));
    if let Some(lease) = c.get("lease_conflict").filter(|l| l.is_object()) {
        let reason = lease["reason"].as_str().unwrap_or("?");
        out.push((theme.warn(), format!("it is also held up by a lease ({reason}):")));
        for k in ["todo_id", "hard_lease"] {
            if let Some(v) = lease.get(k).filter(|v| !v.is_null()) {
                push_field(&mut out, k, v, 1);
            }
        }
        if let Some(exp) = lease["hard_lease"]["expires_at"].as_str()
            && let Ok(t) = chrono::DateTime::parse_from_rfc3339(exp)
        {
            out.push((
                theme.warn(),
                format!("  hard lease: {}", super::goals::countdown(t.with_timezone(&chrono::Utc), app.now)),
            ));
        }
        if reason == "expired" {
            out.push((
                theme.dim(),
                "L marks the expired lease released (typed confirmation); the staleness stays to resolve".into(),
            ));
        }
    }
    if c["base_known"] != Value::Bool(true) {
        let why = c["base_error"].as_str().map_or_else(
            || "the base is not kept in gate/revisions/ (proposed elsewhere without base_text, or pruned)".to_owned(),
            |e| format!("the kept base is unusable: {e}"),
        );
        out.push((theme.warn(), why));
        out.push((theme.dim(), "the Diff tab shows current → the proposal applied to the current state".into()));
        out.push((theme.dim(), "not recomputed without the base: skip or reject, and the agent proposes again".into()));
        return out;
    }
    if c["base_source"] == "item" {
        out.push((theme.dim(), "base: the item's own base_text (its revision checked)".into()));
    }
    let overlaps = overlap_ranges(c);
    if overlaps.is_empty() {
        out.push((theme.ok(), "no overlap: the two changes touch different lines of the base".into()));
    } else {
        let list: Vec<String> =
            overlaps.iter().map(|&(a, b)| if a == b { format!("{a}") } else { format!("{a}–{b}") }).collect();
        out.push((theme.error(), format!("both sides change base line(s) {} (marked !)", list.join(", "))));
    }
    if let Some(r) = &item.detail.recomputed {
        out.push((
            theme.ok(),
            "recomputed: the change does not depend on order and touches nothing that moved since; a applies it as the Diff tab shows (recorded as rebased)".into(),
        ));
        out.push((
            theme.dim(),
            format!("moved since the agent's base: {}", crate::tui::view::safe(&r.moved.join(", "))),
        ));
        if !r.diff_of_diffs.is_empty() {
            out.push((theme.warn(), "its changed lines differ from the preview the agent saw:".into()));
            out.extend(diff_lines(&r.diff_of_diffs, &[], theme));
        }
    } else if let Some(why) = &item.detail.stale_reason {
        out.push((
            theme.warn(),
            format!("not recomputed — {}; skip or reject, and the agent proposes again", crate::tui::view::safe(why)),
        ));
    }
    out.push((theme.title(), "── changed since the agent read it (base → current)".into()));
    out.extend(diff_lines(c["since_base_diff"].as_str().unwrap_or(""), &overlaps, theme));
    out.push((theme.title(), "── what the agent wants (base → proposal on the base)".into()));
    match c["proposal_on_base_error"].as_str() {
        Some(e) => out.push((theme.error(), format!("  {e}"))),
        None => out.extend(diff_lines(c["proposal_on_base_diff"].as_str().unwrap_or(""), &overlaps, theme)),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_lines_in_overlapping_base_ranges_only() {
        let diff = "--- a/s\n+++ b/s\n@@ -3,3 +3,3 @@\n c\n-d\n+D\n e\n";
        let lines = diff_lines(diff, &[(4, 4)], Theme::new(false));
        let text: Vec<&str> = lines.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(text, ["  @@ -3,3 +3,3 @@", "   c", "! -d", "! +D", "   e"]);
        let lines = diff_lines(diff, &[(7, 9)], Theme::new(false));
        assert!(lines.iter().all(|(_, t)| !t.starts_with('!')));
    }

    #[test]
    fn an_idempotency_conflict_shows_where_the_two_proposals_differ() {
        let c = serde_json::json!({"kind": "idempotency_conflict", "prior_item_id": "a1", "prior_proposal_found": true,
            "proposal_diff": "--- a/proposal\n+++ b/proposal\n@@ -1,3 +1,3 @@\n {\n-  \"note\": \"old\"\n+  \"note\": \"new\"\n }\n"});
        let mut it = crate::tui::app::tests::item(
            "g",
            "b2",
            crate::engine::Predicted::Status(crate::wire::Status::IdempotencyConflict),
            crate::tui::model::ScanMark::Clean,
        );
        let mut d = (*it.detail).clone();
        d.conflict = Some(c);
        it.detail = std::sync::Arc::new(d);
        let app = crate::tui::app::tests::loaded_app(vec![it.clone()]);
        let text: Vec<String> = lines(&app, &it, Theme::new(false)).into_iter().map(|(_, t)| t).collect();
        assert!(text.iter().any(|t| t == "  prior_item_id: a1"), "{text:?}");
        assert!(
            text.iter().any(|t| t.contains("-  \"note\": \"old\""))
                && text.iter().any(|t| t.contains("+  \"note\": \"new\""))
        );
        assert!(!text.iter().any(|t| t.starts_with("  proposal_diff")), "the diff is drawn, not dumped: {text:?}");
    }

    #[test]
    fn a_lock_busy_apply_shows_the_holder_and_incident_with_the_retry_key() {
        let it = crate::tui::app::tests::item(
            "g",
            "c3",
            crate::engine::Predicted::Ready,
            crate::tui::model::ScanMark::Clean,
        );
        let mut app = crate::tui::app::tests::loaded_app(vec![it.clone()]);
        app.lock_busy = Some((
            it.key.clone(),
            serde_json::json!({
            "holder": {"pid": 4242, "agent_id": "codex-peer-b", "operation": "todo_update", "acquired_at": "2026-11-29T14:00:00+00:00", "host": "build-1"},
            "incident": {"schema_version": "file_lock_incident_v0", "waited_ms": 5003},
            "incident_recorded": true}),
        ));
        let text: Vec<String> = lines(&app, &it, Theme::new(false)).into_iter().map(|(_, t)| t).collect();
        for want in ["    pid: 4242", "    agent_id: codex-peer-b", "    host: build-1", "    waited_ms: 5003"] {
            assert!(text.iter().any(|t| t == want), "{want} missing: {text:?}");
        }
        assert!(text.iter().any(|t| t.contains("written to <state>.lock.incidents.jsonl")));
        assert!(text.iter().any(|t| t.starts_with("a retries the apply")));
    }

    #[test]
    fn a_lease_conflict_counts_down_the_hard_lease() {
        let mut it = crate::tui::app::tests::item(
            "g",
            "d4",
            crate::engine::Predicted::Status(crate::wire::Status::LeaseConflict),
            crate::tui::model::ScanMark::Clean,
        );
        let mut d = (*it.detail).clone();
        d.conflict =
            Some(serde_json::json!({"kind": "lease_conflict", "reason": "foreign_holder", "todo_id": "todo_a",
            "hard_lease": {"owner": "codex-peer-b", "version": 1, "expires_at": "2026-11-29T16:00:00Z"}}));
        it.detail = std::sync::Arc::new(d);
        let mut app = crate::tui::app::tests::loaded_app(vec![it.clone()]);
        app.now = chrono::DateTime::parse_from_rfc3339("2026-11-29T14:00:30Z").expect("t").with_timezone(&chrono::Utc);
        let text: Vec<String> = lines(&app, &it, Theme::new(false)).into_iter().map(|(_, t)| t).collect();
        assert!(text.iter().any(|t| t == "  hard lease: 1h59m"), "{text:?}");
        assert!(text.iter().any(|t| t == "  reason: foreign_holder"));
        app.now = chrono::DateTime::parse_from_rfc3339("2026-11-29T16:03:00Z").expect("t").with_timezone(&chrono::Utc);
        let text: Vec<String> = lines(&app, &it, Theme::new(false)).into_iter().map(|(_, t)| t).collect();
        assert!(text.iter().any(|t| t == "  hard lease: expired 3m00s ago"), "{text:?}");
    }

    #[test]
    fn other_conflicts_show_nested_details_as_indented_fields() {
        let mut out = Vec::new();
        let v = serde_json::json!({"owner": "codex-peer-b", "expires_at": null, "version": 1});
        push_field(&mut out, "hard_lease", &v, 1);
        let text: Vec<&str> = out.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(text, ["  hard_lease:", "    owner: codex-peer-b", "    expires_at: none", "    version: 1"]);
    }
}
