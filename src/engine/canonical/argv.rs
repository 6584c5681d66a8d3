//! The LoopX 2.1.1 command lines writegate gates on canonical goals, checked flag by flag
//! against `loopx todo <verb> --help` / `loopx refresh-state --help` of 2.1.1, and rebuilt
//! in one canonical form (`--flag=value`, in the agent's order) that is both what the
//! operator reviews and, byte for byte, what apply runs.
//!
//! Refused: flags LoopX 2.1.1 does not list for the verb (so no abbreviation reaches
//! argparse), positional words, a second value for a single-valued flag, writegate's own
//! globals inside the command (`--registry`, `--runtime-root`: writegate sets them), and
//! flags that name a local file or folder read at run time (`--project`, `--state-file`,
//! `--result-file`, `--delivery-workspace-path`, `--usage-codex-session`): what LoopX
//! would read there at apply is not what the operator reviewed. `--dry-run`, `--execute`
//! and `--format` are dropped (writegate adds what each run needs).

/// The commands, by their LoopX words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// `todo add`.
    TodoAdd,
    /// `todo update`.
    TodoUpdate,
    /// `todo claim`.
    TodoClaim,
    /// `todo complete`.
    TodoComplete,
    /// `todo supersede`.
    TodoSupersede,
    /// `todo archive-completed`.
    TodoArchiveCompleted,
    /// `refresh-state`.
    RefreshState,
}

impl Verb {
    /// The verb from LoopX's words (`["todo", "add"]`, `["refresh-state"]`).
    #[must_use]
    pub fn from_words(first: &str, second: Option<&str>) -> Option<Self> {
        Some(match (first, second) {
            ("todo", Some("add")) => Self::TodoAdd,
            ("todo", Some("update")) => Self::TodoUpdate,
            ("todo", Some("claim")) => Self::TodoClaim,
            ("todo", Some("complete")) => Self::TodoComplete,
            ("todo", Some("supersede")) => Self::TodoSupersede,
            ("todo", Some("archive-completed")) => Self::TodoArchiveCompleted,
            ("refresh-state", _) => Self::RefreshState,
            _ => return None,
        })
    }

    /// LoopX's words.
    #[must_use]
    pub fn words(self) -> &'static [&'static str] {
        match self {
            Self::TodoAdd => &["todo", "add"],
            Self::TodoUpdate => &["todo", "update"],
            Self::TodoClaim => &["todo", "claim"],
            Self::TodoComplete => &["todo", "complete"],
            Self::TodoSupersede => &["todo", "supersede"],
            Self::TodoArchiveCompleted => &["todo", "archive-completed"],
            Self::RefreshState => &["refresh-state"],
        }
    }

    /// writegate's write class for the verb (`todo_add`, …, `refresh_state`).
    #[must_use]
    pub fn write_class(self) -> &'static str {
        match self {
            Self::TodoAdd => "todo_add",
            Self::TodoUpdate => "todo_update",
            Self::TodoClaim => "todo_claim",
            Self::TodoComplete => "todo_complete",
            Self::TodoSupersede => "todo_supersede",
            Self::TodoArchiveCompleted => "todo_archive_completed",
            Self::RefreshState => "refresh_state",
        }
    }

    /// The flag carrying the verb's operation id (LOOPX2.md §3), where LoopX keeps a
    /// receipt for it: `--operation-id` (add), `--update-operation-id`,
    /// `--claim-operation-id`. Complete and supersede derive theirs; archive and
    /// refresh-state keep none.
    #[must_use]
    pub fn operation_flag(self) -> Option<&'static str> {
        match self {
            Self::TodoAdd => Some("--operation-id"),
            Self::TodoUpdate => Some("--update-operation-id"),
            Self::TodoClaim => Some("--claim-operation-id"),
            _ => None,
        }
    }

    fn flags(self) -> (&'static [&'static str], &'static [&'static str]) {
        match self {
            Self::TodoClaim => (CLAIM_VALUED, CLAIM_SWITCHES),
            Self::RefreshState => (REFRESH_VALUED, REFRESH_SWITCHES),
            _ => (TODO_VALUED, TODO_SWITCHES),
        }
    }
}

/// Valued flags of `loopx todo add|update|complete|supersede|archive-completed --help`
/// (2.1.1; one parser serves them all). A trailing `*` marks a repeatable (append) flag.
const TODO_VALUED: &[&str] = &[
    "--goal-id",
    "--role",
    "--text",
    "--priority",
    "--todo-id",
    "--operation-id",
    "--update-operation-id",
    "--update-expected-provider-revision",
    "--claim-operation-id",
    "--turn-instance-id",
    "--completion-identity-key",
    "--replan-obligation-id",
    "--status",
    "--note",
    "--evidence",
    "--validation-command",
    "--validation-label",
    "--validation-command-json",
    "--validation-timeout-seconds",
    "--reason",
    "--authority-reason",
    "--task-class",
    "--action-kind",
    "--task-domain",
    "--capability-binding-ref",
    "--task-repository",
    "--continuation-policy",
    "--required-write-scope*",
    "--required-capability*",
    "--target-capability*",
    "--capability-gap-status",
    "--explore-result-node-ref*",
    "--decision-scope",
    "--required-decision-scope*",
    "--decision-outcome",
    "--claimed-by",
    "--task-lease-idempotency-key",
    "--task-lease-expected-version",
    "--bound-agent",
    "--blocks-agent",
    "--excluded-agent*",
    "--unblocks-todo-id",
    "--successor-todo-id*",
    "--resume-when",
    "--target-key",
    "--cadence",
    "--next-due-at",
    "--expires-at",
    "--next-agent-todo",
    "--next-user-todo",
    "--next-user-task-class",
    "--next-claimed-by",
    "--next-task-class",
    "--next-action-kind",
    "--next-task-repository",
    "--next-required-capability*",
    "--next-continuation-policy",
    "--next-excluded-agent*",
    "--max-active-done",
    "--agent-id",
    "--provider-revision",
];
const TODO_SWITCHES: &[&str] = &[
    "--clear-priority",
    "--clear-explore-result-node-refs",
    "--goal-bound",
    "--clear-blocks-agent",
    "--clear-excluded-agents",
    "--global-gate",
    "--clear-global-gate",
    "--clear-resume-when",
    "--watch-only",
    "--clear-claim",
    "--no-follow-up",
    "--self-merged",
];
/// `loopx todo claim --help` (2.1.1).
const CLAIM_VALUED: &[&str] = &[
    "--goal-id",
    "--role",
    "--todo-id",
    "--claim-operation-id",
    "--claimed-by",
    "--task-lease-idempotency-key",
    "--task-lease-expected-version",
    "--agent-id",
];
const CLAIM_SWITCHES: &[&str] = &[];
/// `loopx refresh-state --help` (2.1.1).
const REFRESH_VALUED: &[&str] = &[
    "--goal-outcome-update-json",
    "--goal-id",
    "--classification",
    "--recommended-action",
    "--next-action",
    "--next-action-basis",
    "--delivery-batch-scale",
    "--delivery-outcome",
    "--delivery-boundary",
    "--todo-id",
    "--replan-obligation-id",
    "--turn-instance-id",
    "--progress-result-class",
    "--progress-surface-id",
    "--progress-work-item-id",
    "--progress-hypothesis-id",
    "--progress-probe-kind",
    "--progress-blocker-id",
    "--progress-coverage-scope-id",
    "--progress-evidence-id*",
    "--explore-result-json",
    "--reward-memory-reflection-json",
    "--repair-delta-kind",
    "--agent-vision-json",
    "--vision-state",
    "--vision-summary",
    "--vision-role-scope",
    "--vision-acceptance",
    "--vision-advancement-policy",
    "--vision-replan-trigger",
    "--vision-dreaming-policy",
    "--vision-last-patch",
    "--vision-todo-delta",
    "--vision-unchanged-reason",
    "--checkpoint-read-context",
    "--agent-id",
    "--available-capability*",
    "--agent-lane",
    "--progress-scope",
    "--usage-json",
    "--resume-external-sinks",
];
const REFRESH_SWITCHES: &[&str] =
    &["--autonomous-replan-recorded", "--progress-coverage-complete", "--no-global-sync", "--suppress-external-sinks"];

/// Flags that name a local path LoopX reads when it runs.
const PATH_FLAGS: &[&str] =
    &["--project", "--state-file", "--result-file", "--delivery-workspace-path", "--usage-codex-session"];
/// Flags writegate drops: it adds what each run needs.
const DROPPED: &[&str] = &["--dry-run", "--execute"];

/// A checked command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopxArgv {
    /// The verb.
    pub verb: Verb,
    /// `(flag, value)` pairs in the agent's order; `None` for a switch.
    pub flags: Vec<(String, Option<String>)>,
}

impl LoopxArgv {
    /// Checks `words` (what follows `loopx`: the verb's words, then flags).
    ///
    /// # Errors
    /// A message naming the word that is refused and why.
    pub fn parse(words: &[String]) -> Result<Self, String> {
        let first = words.first().map(String::as_str).unwrap_or_default();
        let verb = Verb::from_words(first, words.get(1).map(String::as_str)).ok_or_else(|| {
            format!(
                "not a LoopX 2.x todo command or refresh-state: {:?} (todo add|update|claim|complete|supersede|archive-completed, refresh-state)",
                words.iter().take(2).cloned().collect::<Vec<_>>().join(" ")
            )
        })?;
        let (valued, switches) = verb.flags();
        let mut flags: Vec<(String, Option<String>)> = Vec::new();
        let mut rest = words[verb.words().len()..].iter();
        while let Some(word) = rest.next() {
            let (name, inline) = match word.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
                _ => (word.as_str(), None),
            };
            if !name.starts_with("--") {
                return Err(format!("{word:?}: LoopX takes no positional argument here"));
            }
            if name == "--format" {
                if inline.is_none() {
                    rest.next();
                }
                continue;
            }
            if DROPPED.contains(&name) {
                continue;
            }
            if PATH_FLAGS.contains(&name) {
                return Err(format!(
                    "{name} names a local path LoopX reads when it runs: what it holds at apply would not be what the operator reviewed; put the text in the command instead"
                ));
            }
            if matches!(name, "--registry" | "--runtime-root") {
                return Err(format!("{name}: writegate runs LoopX on the goal's own workspace; leave it out"));
            }
            if switches.contains(&name) {
                if inline.is_some() {
                    return Err(format!("{name} takes no value"));
                }
                flags.push((name.to_owned(), None));
                continue;
            }
            let spec = valued
                .iter()
                .find(|f| f.trim_end_matches('*') == name)
                .ok_or_else(|| format!("{name}: not a flag of `loopx {}` in LoopX 2.1.1", verb.words().join(" ")))?;
            let value = match inline {
                Some(v) => v,
                None => rest.next().cloned().ok_or_else(|| format!("{name} needs a value"))?,
            };
            if !spec.ends_with('*') && flags.iter().any(|(n, _)| n == name) {
                return Err(format!("{name} is given twice"));
            }
            flags.push((name.to_owned(), Some(value)));
        }
        let argv = Self { verb, flags };
        if argv.value("--goal-id").is_none_or(str::is_empty) {
            return Err("--goal-id is required".into());
        }
        Ok(argv)
    }

    /// The first value of `flag`.
    #[must_use]
    pub fn value(&self, flag: &str) -> Option<&str> {
        self.flags.iter().find(|(n, _)| n == flag).and_then(|(_, v)| v.as_deref())
    }

    /// Sets `flag` to `value` (replacing a value, else appending).
    pub fn set(&mut self, flag: &str, value: &str) {
        match self.flags.iter_mut().find(|(n, _)| n == flag) {
            Some(slot) => slot.1 = Some(value.to_owned()),
            None => self.flags.push((flag.to_owned(), Some(value.to_owned()))),
        }
    }

    /// The goal.
    #[must_use]
    pub fn goal_id(&self) -> &str {
        self.value("--goal-id").unwrap_or_default()
    }

    /// The verb's operation id, if it has a flag for one and it is set.
    #[must_use]
    pub fn operation_id(&self) -> Option<&str> {
        self.verb.operation_flag().and_then(|f| self.value(f))
    }

    /// The words after `loopx`: the verb, then `--flag=value` / `--switch`.
    #[must_use]
    pub fn words(&self) -> Vec<String> {
        let mut out: Vec<String> = self.verb.words().iter().map(|w| (*w).to_owned()).collect();
        out.extend(self.flags.iter().map(|(n, v)| match v {
            Some(v) => format!("{n}={v}"),
            None => n.clone(),
        }));
        out
    }

    /// The command line as a person would type it: `loopx todo add --goal-id=g1 '--text=…'`
    /// (words with spaces or shell characters single-quoted). For display; apply runs
    /// [`LoopxArgv::words`] without a shell.
    #[must_use]
    pub fn command_line(&self) -> String {
        let quote = |w: &str| {
            if !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "-_=.:/@,+".contains(c)) {
                w.to_owned()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        };
        std::iter::once("loopx".to_owned()).chain(self.words().iter().map(|w| quote(w))).collect::<Vec<_>>().join(" ")
    }

    /// The free texts the command writes (`--text`, `--note`, `--evidence`, `--reason`,
    /// next-todo texts, Next Action, JSON payloads …): what the boundary scan reads.
    #[must_use]
    pub fn texts(&self) -> Vec<(&str, &str)> {
        const IDS: &[&str] = &[
            "--goal-id",
            "--role",
            "--priority",
            "--todo-id",
            "--operation-id",
            "--update-operation-id",
            "--update-expected-provider-revision",
            "--claim-operation-id",
            "--status",
            "--task-class",
            "--agent-id",
            "--claimed-by",
            "--task-lease-idempotency-key",
            "--task-lease-expected-version",
            "--provider-revision",
        ];
        self.flags
            .iter()
            .filter_map(|(n, v)| Some((n.as_str(), v.as_deref()?)))
            .filter(|(n, _)| !IDS.contains(n))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &[&str]) -> Vec<String> {
        s.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn parses_rebuilds_and_refuses() {
        let a = LoopxArgv::parse(&words(&[
            "todo",
            "add",
            "--goal-id",
            "g1",
            "--role",
            "agent",
            "--text=-rf is a flag-looking text",
            "--priority",
            "P1",
            "--dry-run",
            "--format",
            "json",
            "--required-write-scope",
            "a",
            "--required-write-scope",
            "b",
        ]))
        .expect("valid");
        assert_eq!(a.verb, Verb::TodoAdd);
        assert_eq!(
            a.words(),
            words(&[
                "todo",
                "add",
                "--goal-id=g1",
                "--role=agent",
                "--text=-rf is a flag-looking text",
                "--priority=P1",
                "--required-write-scope=a",
                "--required-write-scope=b"
            ])
        );
        assert_eq!(a.operation_id(), None);
        for (bad, why) in [
            (&["todo", "add", "--goal-id", "g", "--oper", "x"][..], "not a flag"),
            (&["todo", "add", "--goal-id", "g", "--result-file", "/etc/passwd"][..], "local path"),
            (&["todo", "add", "--goal-id", "g", "--registry", "r"][..], "leave it out"),
            (&["todo", "add", "--goal-id", "g", "--text", "a", "--text", "b"][..], "twice"),
            (&["todo", "add", "--goal-id", "g", "stray"][..], "positional"),
            (&["todo", "add", "--text", "a"][..], "--goal-id is required"),
            (&["todo", "claim", "--goal-id", "g", "--note", "x"][..], "not a flag"),
            (&["todo", "remove", "--goal-id", "g"][..], "not a LoopX 2.x todo command"),
            (&["todo", "add", "--goal-id", "g", "--global-gate=yes"][..], "takes no value"),
        ] {
            let err = LoopxArgv::parse(&words(bad)).expect_err(why);
            assert!(err.contains(why), "{bad:?}: {err}");
        }
    }

    #[test]
    fn texts_are_the_written_values_not_the_ids() {
        let a = LoopxArgv::parse(&words(&[
            "todo",
            "update",
            "--goal-id",
            "g",
            "--todo-id",
            "todo_1",
            "--agent-id",
            "a",
            "--note",
            "drafted",
        ]))
        .expect("valid");
        assert_eq!(a.texts(), vec![("--note", "drafted")]);
    }
}
