//! What a load brings into the [`App`]: a goal's items merged into the queue, the queue
//! rebuilt around the item under review, arrivals announced.

use super::app::{App, Effect, FlashKind};
use super::model::{GoalRow, QueueItem};
use std::collections::BTreeSet;
use std::sync::Arc;

/// One goal's items read again (`Msg::ItemsLoaded`): `items` as read, `gone` the files that
/// left; the goal's other items stay as they were.
pub(super) fn on_items_loaded(
    app: &mut App,
    row: GoalRow,
    items: Vec<QueueItem>,
    gone: &[std::path::PathBuf],
) -> Vec<Effect> {
    // The goal's list as it is now: its other items as they were, these as read.
    let paths: BTreeSet<&std::path::Path> =
        items.iter().map(|i| i.detail.path.as_path()).chain(gone.iter().map(std::path::PathBuf::as_path)).collect();
    let keys: BTreeSet<&str> = items.iter().map(|i| i.key.as_str()).collect();
    let mut merged: Vec<QueueItem> = app
        .items
        .iter()
        .filter(|i| i.goal_id == row.id && !paths.contains(i.detail.path.as_path()) && !keys.contains(i.key.as_str()))
        .cloned()
        .collect();
    merged.extend(items);
    let quiet = app.loading;
    on_loaded(app, false, quiet, false, vec![(row, merged)])
}

/// True when `item`'s current state is the one this console's own last apply on its goal
/// wrote.
fn own_write_explains(app: &App, item: &QueueItem) -> bool {
    let Some(own) = app.own_revisions.get(&item.goal_id) else { return false };
    item.detail.current.as_deref().is_some_and(|t| crate::loopx::hash::revision_of_text(t) == *own)
}

pub(super) fn on_loaded(
    app: &mut App,
    full: bool,
    quiet: bool,
    last: bool,
    loaded: Vec<(GoalRow, Vec<QueueItem>)>,
) -> Vec<Effect> {
    let touched: BTreeSet<String> = loaded.iter().map(|(g, _)| g.id.clone()).collect();
    // Only the loaded goals can bring new items: the keys they had are enough.
    let before: BTreeSet<String> =
        app.items.iter().filter(|i| touched.contains(&i.goal_id)).map(|i| i.key.clone()).collect();
    let reviewing = app.current().cloned();
    if full {
        app.goals.clear();
        app.items.clear();
    } else {
        app.goals.retain(|g| !touched.contains(&g.id));
        app.items.retain(|i| !touched.contains(&i.goal_id));
    }
    for (g, items) in loaded {
        let listed: BTreeSet<&str> = items.iter().map(|i| i.key.as_str()).collect();
        app.just_decided.retain(|k| !k.starts_with(&format!("{}/", g.id)) || listed.contains(k.as_str()));
        app.goals.push(g);
        app.items.extend(items.into_iter().filter(|i| !app.just_decided.contains(&i.key)));
    }
    app.goals.sort_by(|a, b| a.id.cmp(&b.id));
    app.items.sort_by(|a, b| (&a.goal_id, a.arrived, &a.item_id).cmp(&(&b.goal_id, b.arrived, &b.item_id)));
    let arrived = app.items.iter().filter(|i| touched.contains(&i.goal_id) && !before.contains(&i.key)).count();
    if last {
        app.loading = false;
    }
    // A lock_busy view ends when the item's fresh lock check passes (the holder let go).
    if let Some((key, _)) = &app.lock_busy
        && app
            .items
            .iter()
            .any(|i| &i.key == key && !i.checking && i.detail.checks.iter().any(|c| c.name == "lock" && c.ok))
    {
        app.lock_busy = None;
    }
    app.recount();
    app.refilter();
    let mut fx = Vec::new();
    let own = app.own_write.take();
    if let Some(old) = reviewing.filter(|r| app.pinned.is_none() && own.as_ref() != Some(&r.goal_id)) {
        let now = app.items.iter().find(|i| i.key == old.key);
        let moved = match now {
            _ if old.checking => None,
            None => Some("this item left the inbox (decided elsewhere or removed)"),
            Some(n) if n.payload_digest != old.payload_digest => Some("this item changed on disk"),
            // writegate's own apply moved it (issue 12 case 14): not a change to warn of.
            Some(n) if n.detail.current != old.detail.current && !own_write_explains(app, n) => {
                Some("this goal's state moved since you opened the item")
            }
            Some(_) => None,
        };
        if let Some(why) = moved.filter(|_| app.busy.is_none()) {
            app.banner = Some(format!("{why} — showing the version you were reading; press u to reload"));
            app.pinned = Some(old);
        }
    }
    fx.extend(app.ensure_selection());
    if arrived > 0 && !quiet {
        // A decision's outcome stays readable: the arrival is added to it, not put over it.
        app.flash = Some(match app.flash.take() {
            Some((text, kind)) if kind != FlashKind::Info && !text.contains("new item(s) arrived") => {
                (format!("{text} · {arrived} new item(s) arrived"), kind)
            }
            _ => (format!("{arrived} new item(s) arrived"), FlashKind::Info),
        });
    }
    fx.extend(super::attention::on_arrivals(app, quiet));
    let stale = app
        .current()
        .is_some_and(|c| app.view.as_ref().is_none_or(|v| v.key != c.key || !Arc::ptr_eq(&v.detail, &c.detail)));
    if stale && let Some(c) = app.current() {
        fx.push(Effect::ComputeView { key: c.key.clone() });
    }
    fx
}
