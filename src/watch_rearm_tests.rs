//! The watcher's re-arming: folders added, dropped, or asked for while it sets up.

use super::*;

#[test]
fn a_folder_added_by_update_is_watched_when_update_returns() -> Result<(), Box<dyn std::error::Error>> {
    for force_poll in [false, true] {
        let (a, b) = (tempfile::tempdir()?, tempfile::tempdir()?);
        let (tx, rx) = std::sync::mpsc::channel();
        let w = start(&[a.path().to_owned()], Duration::from_millis(30), force_poll, &tx);
        assert!(matches!(rx.recv_timeout(Duration::from_secs(2))?, WatchMsg::Mode(_)));
        std::fs::write(b.path().join("before.json"), "{}")?;
        w.update(&[a.path().to_owned(), b.path().to_owned()], &[b.path().to_owned()]);
        // What was there before is the baseline, not a change; what lands after is.
        std::fs::write(b.path().join("after.json"), "{}")?;
        let msg = rx.recv_timeout(Duration::from_secs(2))?;
        let WatchMsg::Changed(paths) = msg else { panic!("{msg:?}") };
        assert!(paths.iter().any(|p| p.ends_with("after.json")), "{paths:?} (polling: {force_poll})");
        assert!(!paths.iter().any(|p| p.ends_with("before.json")), "{paths:?} (polling: {force_poll})");
        // A folder dropped from the set is no longer reported.
        w.update(&[b.path().to_owned()], &[]);
        std::thread::sleep(Duration::from_millis(100));
        while rx.try_recv().is_ok() {}
        std::fs::write(a.path().join("ignored.json"), "{}")?;
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err(), "polling: {force_poll}");
    }
    Ok(())
}

#[test]
fn an_update_while_the_thread_sets_up_is_watched_when_it_returns() -> Result<(), Box<dyn std::error::Error>> {
    // The TUI starts its watcher with no folders and the loader arms it at once; the
    // folders must be watched when that returns, not whenever the thread gets to them.
    for force_poll in [false, true] {
        let dir = tempfile::tempdir()?;
        let (tx, rx) = std::sync::mpsc::channel();
        let w = start(&[], Duration::from_millis(30), force_poll, &tx);
        w.update(&[dir.path().to_owned()], &[dir.path().to_owned()]);
        let watching = w.backend.lock().map(|b| match &*b {
            Backend::Native { by_dir, .. } => by_dir.contains_key(dir.path()),
            Backend::Polling { dirs, .. } => dirs.iter().any(|d| d == dir.path()),
            Backend::Starting(_) => false,
        });
        assert_eq!(watching.ok(), Some(true), "polling: {force_poll}");
        std::fs::write(dir.path().join("landed.json"), "{}")?;
        let landed = |m: &WatchMsg| matches!(m, WatchMsg::Changed(p) if p.iter().any(|p| p.ends_with("landed.json")));
        let mut seen = Vec::new();
        while let Ok(m) = rx.recv_timeout(Duration::from_secs(2)) {
            if landed(&m) {
                break;
            }
            seen.push(m);
        }
        assert!(seen.iter().all(|m| matches!(m, WatchMsg::Mode(_))), "{seen:?} (polling: {force_poll})");
        assert!(seen.len() <= 1, "never reported: {seen:?} (polling: {force_poll})");
    }
    Ok(())
}

#[test]
fn polling_compares_listings_in_one_pass() {
    let t = SystemTime::UNIX_EPOCH;
    let last: Fingerprint = [("a".into(), (Some(t), 1)), ("b".into(), (Some(t), 1))].into_iter().collect();
    let now: Fingerprint = [("a".into(), (Some(t), 2)), ("c".into(), (Some(t), 1))].into_iter().collect();
    let changed = changed_between(&last, &now);
    assert_eq!(changed, vec![PathBuf::from("a"), PathBuf::from("b"), PathBuf::from("c")]);
    assert!(changed_between(&now, &now).is_empty());
}
