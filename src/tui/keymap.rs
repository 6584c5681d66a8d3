//! The one key table: (keys, mode, action, description). The footer and the `?` help are
//! generated from it, so they cannot drift; config overrides rebind actions by name.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::BTreeMap;

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Browsing the queue.
    Normal,
    /// A confirmation dialog (apply / skip).
    Confirm,
}

/// Everything a key can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Next item.
    SelectNext,
    /// Previous item.
    SelectPrev,
    /// First item.
    SelectFirst,
    /// Last item.
    SelectLast,
    /// Next detail tab.
    NextTab,
    /// Previous detail tab.
    PrevTab,
    /// Scroll the detail down.
    ScrollDown,
    /// Scroll the detail up.
    ScrollUp,
    /// Scroll the detail left.
    ScrollLeft,
    /// Scroll the detail right.
    ScrollRight,
    /// Unified / side-by-side diff.
    ToggleDiffMode,
    /// Edit the queue filter.
    StartFilter,
    /// All goals / only the selected item's goal.
    ToggleGoalScope,
    /// Apply the selected item (opens the confirmation).
    Apply,
    /// Skip the selected item (opens the confirmation).
    Skip,
    /// Reject the selected item (asks for a reason).
    Reject,
    /// Mark the expired hard lease holding the item up released (typed confirmation; issue 6).
    ReleaseLease,
    /// Mark or unmark the selected item for a batch decision (issue 14).
    ToggleMark,
    /// Mark every ready item of the filter (again: clear the marks).
    MarkAllReady,
    /// Apply the marked items (typed count).
    BatchApply,
    /// Skip the marked items (typed count).
    BatchSkip,
    /// Reject the marked items with one reason (typed count).
    BatchReject,
    /// In the History tab: propose the inverse of an applied change as a new item.
    Revert,
    /// For a read-only writeback: propose a blocker todo and close the writeback.
    RecordBlocker,
    /// Reload the item under review after it changed on disk.
    Reload,
    /// Show or hide the help.
    ToggleHelp,
    /// Quit.
    Quit,
    /// Confirm a dialog.
    Confirm,
    /// Cancel a dialog.
    Cancel,
}

impl Action {
    /// The name used in config files.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::SelectNext => "select_next",
            Self::SelectPrev => "select_prev",
            Self::SelectFirst => "select_first",
            Self::SelectLast => "select_last",
            Self::NextTab => "next_tab",
            Self::PrevTab => "prev_tab",
            Self::ScrollDown => "scroll_down",
            Self::ScrollUp => "scroll_up",
            Self::ScrollLeft => "scroll_left",
            Self::ScrollRight => "scroll_right",
            Self::ToggleDiffMode => "toggle_diff_mode",
            Self::StartFilter => "filter",
            Self::ToggleGoalScope => "toggle_goal_scope",
            Self::Apply => "apply",
            Self::Skip => "skip",
            Self::Reject => "reject",
            Self::ReleaseLease => "release_lease",
            Self::ToggleMark => "toggle_mark",
            Self::MarkAllReady => "mark_all_ready",
            Self::BatchApply => "batch_apply",
            Self::BatchSkip => "batch_skip",
            Self::BatchReject => "batch_reject",
            Self::Revert => "revert",
            Self::RecordBlocker => "record_blocker",
            Self::Reload => "reload",
            Self::ToggleHelp => "help",
            Self::Quit => "quit",
            Self::Confirm => "confirm",
            Self::Cancel => "cancel",
        }
    }

    /// True for decisions (absent in `--read-only`).
    #[must_use]
    pub fn is_decision(self) -> bool {
        matches!(
            self,
            Self::Apply
                | Self::Skip
                | Self::Reject
                | Self::ReleaseLease
                | Self::RecordBlocker
                | Self::ToggleMark
                | Self::MarkAllReady
                | Self::BatchApply
                | Self::BatchSkip
                | Self::BatchReject
                | Self::Revert
        )
    }
}

/// One binding.
#[derive(Debug, Clone)]
pub struct Binding {
    /// Keys, as written in config (`a`, `ctrl-c`, `down`, `pgdn`, `tab`, `?`).
    pub keys: Vec<String>,
    /// Scope.
    pub scope: Scope,
    /// Action.
    pub action: Action,
    /// Help text.
    pub desc: &'static str,
    /// Shown in the footer.
    pub footer: bool,
}

fn b(keys: &[&str], scope: Scope, action: Action, desc: &'static str, footer: bool) -> Binding {
    Binding { keys: keys.iter().map(|k| (*k).to_owned()).collect(), scope, action, desc, footer }
}

/// The default table.
#[must_use]
pub fn default_table() -> Vec<Binding> {
    use Action as A;
    use Scope::{Confirm, Normal};
    vec![
        b(&["j", "down"], Normal, A::SelectNext, "next item", true),
        b(&["k", "up"], Normal, A::SelectPrev, "previous item", false),
        b(&["home"], Normal, A::SelectFirst, "first item", false),
        b(&["end"], Normal, A::SelectLast, "last item", false),
        b(&["tab"], Normal, A::NextTab, "next tab", true),
        b(&["backtab"], Normal, A::PrevTab, "previous tab", false),
        b(&["J", "pgdn"], Normal, A::ScrollDown, "scroll detail down", false),
        b(&["K", "pgup"], Normal, A::ScrollUp, "scroll detail up", false),
        b(&["h", "left"], Normal, A::ScrollLeft, "scroll detail left", false),
        b(&["l", "right"], Normal, A::ScrollRight, "scroll detail right", false),
        b(&["d"], Normal, A::ToggleDiffMode, "unified / side-by-side diff", true),
        b(&["/"], Normal, A::StartFilter, "filter the queue", true),
        b(&["g"], Normal, A::ToggleGoalScope, "all goals / this goal only", false),
        b(&["a"], Normal, A::Apply, "apply (asks to confirm)", true),
        b(&["s"], Normal, A::Skip, "skip (asks to confirm)", true),
        b(&["r"], Normal, A::Reject, "reject with a reason", true),
        b(&["space"], Normal, A::ToggleMark, "mark / unmark the item for a batch", false),
        b(&["*"], Normal, A::MarkAllReady, "mark every ready item of the filter (again: clear marks)", false),
        b(&["A"], Normal, A::BatchApply, "apply the marked items (typed count)", false),
        b(&["S"], Normal, A::BatchSkip, "skip the marked items (typed count)", false),
        b(&["X"], Normal, A::BatchReject, "reject the marked items, one reason (typed count)", false),
        b(&["U"], Normal, A::Revert, "in the Log tab: propose the inverse of the applied change under ▶", false),
        b(&["L"], Normal, A::ReleaseLease, "release an expired hard lease, as LoopX would (typed confirmation)", false),
        b(&["b"], Normal, A::RecordBlocker, "record a blocker todo for a read-only writeback (asks to confirm)", false),
        b(&["u"], Normal, A::Reload, "reload the item after it changed", false),
        b(&["?"], Normal, A::ToggleHelp, "help", true),
        b(&["q", "ctrl-c"], Normal, A::Quit, "quit", true),
        b(&["y"], Confirm, A::Confirm, "confirm", true),
        b(&["n", "esc"], Confirm, A::Cancel, "cancel", true),
    ]
}

/// Applies config overrides (`action name → keys`). Unknown action names are errors.
///
/// # Errors
/// The unknown name or key.
pub fn with_overrides(
    mut table: Vec<Binding>,
    overrides: &BTreeMap<String, Vec<String>>,
) -> Result<Vec<Binding>, String> {
    for (name, keys) in overrides {
        let Some(binding) = table.iter_mut().find(|bnd| bnd.action.name() == name) else {
            return Err(format!("unknown action {name:?} in [keys]"));
        };
        for k in keys {
            if parse_key(k).is_none() {
                return Err(format!("unknown key {k:?} for {name}"));
            }
        }
        binding.keys.clone_from(keys);
    }
    check_conflicts(&table)?;
    Ok(table)
}

/// Refuses a table where one key means two actions in one scope, or where a confirmation
/// key is also a decision's trigger key (a double press would then decide: issue 12 case 6).
fn check_conflicts(table: &[Binding]) -> Result<(), String> {
    let mut seen: Vec<(Scope, (KeyCode, KeyModifiers), Action, &str)> = Vec::new();
    for bnd in table {
        for k in &bnd.keys {
            let Some(parsed) = parse_key(k) else { continue };
            if let Some((_, _, other, _)) =
                seen.iter().find(|(s, p, a, _)| *s == bnd.scope && *p == parsed && *a != bnd.action)
            {
                return Err(format!("key {k:?} is bound to both {} and {} in [keys]", other.name(), bnd.action.name()));
            }
            seen.push((bnd.scope, parsed, bnd.action, k));
        }
    }
    for confirm in table.iter().filter(|bnd| bnd.scope == Scope::Confirm && bnd.action == Action::Confirm) {
        for k in &confirm.keys {
            let trigger =
                seen.iter().find(|(s, p, a, _)| *s == Scope::Normal && a.is_decision() && Some(*p) == parse_key(k));
            if let Some((_, _, a, _)) = trigger {
                return Err(format!(
                    "the confirm key {k:?} also triggers {}: a confirmation must use another key",
                    a.name()
                ));
            }
        }
    }
    Ok(())
}

/// Parses `a`, `A`, `?`, `ctrl-c`, `down`, `up`, `left`, `right`, `pgdn`, `pgup`, `home`,
/// `end`, `tab`, `backtab`, `enter`, `esc`, `backspace`.
#[must_use]
pub fn parse_key(text: &str) -> Option<(KeyCode, KeyModifiers)> {
    if let Some(rest) = text.strip_prefix("ctrl-") {
        let c = rest.chars().next()?;
        return (rest.chars().count() == 1).then_some((KeyCode::Char(c), KeyModifiers::CONTROL));
    }
    let code = match text {
        "down" => KeyCode::Down,
        "up" => KeyCode::Up,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "pgdn" => KeyCode::PageDown,
        "pgup" => KeyCode::PageUp,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "tab" => KeyCode::Tab,
        "space" => KeyCode::Char(' '),
        "backtab" => KeyCode::BackTab,
        "enter" => KeyCode::Enter,
        "esc" => KeyCode::Esc,
        "backspace" => KeyCode::Backspace,
        t if t.chars().count() == 1 => KeyCode::Char(t.chars().next()?),
        _ => return None,
    };
    Some((code, KeyModifiers::NONE))
}

/// The action bound to `key` in `scope`, if any. Shift is ignored for characters (the
/// character already says it); other modifiers must match.
#[must_use]
pub fn resolve(table: &[Binding], scope: Scope, key: &KeyEvent) -> Option<Action> {
    let mods = key.modifiers - KeyModifiers::SHIFT;
    table.iter().filter(|bnd| bnd.scope == scope).find_map(|bnd| {
        bnd.keys.iter().find_map(|k| {
            let (code, m) = parse_key(k)?;
            let code_eq = match (code, key.code) {
                (KeyCode::Char(a), KeyCode::Char(b)) => a == b,
                (a, b) => a == b,
            };
            (code_eq && m == mods).then_some(bnd.action)
        })
    })
}

/// `key1/key2 desc` entries for the footer of `scope` (decisions dropped when read-only).
#[must_use]
pub fn footer(table: &[Binding], scope: Scope, read_only: bool) -> Vec<(String, &'static str)> {
    table
        .iter()
        .filter(|bnd| bnd.scope == scope && bnd.footer && !(read_only && bnd.action.is_decision()))
        .map(|bnd| (bnd.keys.first().cloned().unwrap_or_default(), short_desc(bnd.action)))
        .collect()
}

/// The first key bound to `action` in normal mode, as written in config.
#[must_use]
pub fn first_key(table: &[Binding], action: Action) -> Option<String> {
    table.iter().find(|bnd| bnd.scope == Scope::Normal && bnd.action == action).and_then(|b| b.keys.first().cloned())
}

fn short_desc(a: Action) -> &'static str {
    match a {
        Action::SelectNext => "move",
        Action::NextTab => "detail tabs",
        Action::ToggleDiffMode => "diff",
        Action::StartFilter => "filter",
        Action::Apply => "apply",
        Action::Skip => "skip",
        Action::Reject => "reject",
        Action::ToggleHelp => "help",
        Action::Quit => "quit",
        Action::Confirm => "yes",
        Action::Cancel => "no",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEventKind;

    fn key(code: KeyCode, m: KeyModifiers) -> KeyEvent {
        KeyEvent {
            code,
            modifiers: m,
            kind: KeyEventKind::Press,
            state: ratatui::crossterm::event::KeyEventState::NONE,
        }
    }

    #[test]
    fn every_binding_key_parses_and_resolves() {
        let t = default_table();
        for bnd in &t {
            for k in &bnd.keys {
                let (code, m) = parse_key(k).expect(k);
                assert_eq!(resolve(&t, bnd.scope, &key(code, m)), Some(bnd.action), "{k}");
            }
        }
        assert_eq!(resolve(&t, Scope::Normal, &key(KeyCode::Char('J'), KeyModifiers::SHIFT)), Some(Action::ScrollDown));
        assert_eq!(resolve(&t, Scope::Normal, &key(KeyCode::Char('a'), KeyModifiers::CONTROL)), None);
    }

    #[test]
    fn overrides_and_read_only_footer() {
        let mut o = BTreeMap::new();
        o.insert("apply".to_owned(), vec!["Y".to_owned()]);
        let t = with_overrides(default_table(), &o).expect("valid");
        assert_eq!(resolve(&t, Scope::Normal, &key(KeyCode::Char('Y'), KeyModifiers::SHIFT)), Some(Action::Apply));
        assert_eq!(resolve(&t, Scope::Normal, &key(KeyCode::Char('a'), KeyModifiers::NONE)), None);
        o.insert("launch".to_owned(), vec!["x".to_owned()]);
        assert!(with_overrides(default_table(), &o).is_err());
        assert!(check_conflicts(&default_table()).is_ok(), "the defaults bind each key once");
        let two: BTreeMap<String, Vec<String>> = [("skip".to_owned(), vec!["a".to_owned()])].into();
        let err = with_overrides(default_table(), &two).expect_err("a is apply and skip");
        assert!(err.contains("both apply and skip") || err.contains("both skip and apply"), "{err}");
        let same: BTreeMap<String, Vec<String>> = [("confirm".to_owned(), vec!["a".to_owned()])].into();
        assert!(with_overrides(default_table(), &same).expect_err("aa would apply").contains("confirm key"));
        assert!(
            footer(&default_table(), Scope::Normal, true)
                .iter()
                .all(|(_, d)| !matches!(*d, "apply" | "skip" | "reject"))
        );
    }
}
