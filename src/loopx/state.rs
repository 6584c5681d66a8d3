//! Active-state Markdown (`ACTIVE_GOAL_STATE.md`) read model: frontmatter, `## ` sections
//! with their todo roles, todos with metadata and generated ids, Next Action entries
//! (FORMATS.md §1, `active_state_metadata.py`, `active_state_todo_parser.py`).

use super::hash::sha1_hex;
use super::metadata::{self, Metadata};
use super::pytext::{compact_whitespace, normalize_todo_text, py_strip, splitlines};
use regex::Regex;
use serde::Serialize;
use std::sync::LazyLock;

/// Checkbox line: `^\s*[-*]\s+\[([ xX-])\]\s+(.+?)\s*$` (`contract.py:19`).
pub static TODO_TASK_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*[-*]\s+\[([ xX-])\]\s+(.+?)\s*$").expect("static regex"));

/// [`TODO_TASK_RE`]'s captures (the checkbox mark, the text), without running the regex on
/// the lines where the answer is plain: a state of 350,000 todos spent a third of its parse
/// in the regex's backtracker. Lines the plain reading cannot settle (a line break inside,
/// nothing but whitespace after the checkbox) go to the regex itself; a proptest holds the
/// two equal.
#[must_use]
pub fn todo_task(line: &str) -> Option<(char, &str)> {
    if line.contains('\n') {
        return todo_task_by_regex(line);
    }
    let t = line.trim_start();
    let after = t.strip_prefix(['-', '*'])?;
    let after_ws = after.trim_start();
    if after_ws.len() == after.len() {
        return None;
    }
    let inner = after_ws.strip_prefix('[')?;
    let mark = inner.chars().next().filter(|c| matches!(c, ' ' | 'x' | 'X' | '-'))?;
    let rest = inner[mark.len_utf8()..].strip_prefix(']')?;
    let body = rest.trim_start();
    if body.len() == rest.len() {
        return None;
    }
    match body.trim_end() {
        "" => todo_task_by_regex(line),
        text => Some((mark, text)),
    }
}

fn todo_task_by_regex(line: &str) -> Option<(char, &str)> {
    let caps = TODO_TASK_RE.captures(line)?;
    Some((caps.get(1)?.as_str().chars().next()?, caps.get(2)?.as_str()))
}
static PRIORITY_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^\s*\[(P[0-4][^\]]*)\]\s*(.+)$").expect("static regex"));
static NEXT_ACTION_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:[-*]|\d+[.)])\s+(.+?)\s*$").expect("static regex"));

/// Heading substrings that mark archive sections (checked first; no role).
pub const ARCHIVE_MARKERS: &[&str] =
    &["todo archive", "work archive", "completed archive", "completed work", "完成归档", "待办归档"];
const USER_MARKERS: &[&str] = &["user todo", "owner review reading queue", "owner reading queue"];
const AGENT_MARKERS: &[&str] = &["agent todo", "codex todo", "project agent todo"];

/// A todo role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// `## User Todo / Owner Review Reading Queue` and similar.
    User,
    /// `## Agent Todo` and similar.
    Agent,
}

impl Role {
    /// `user` or `agent`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Agent => "agent",
        }
    }

    /// Parses `user` / `agent`.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "user" => Some(Self::User),
            "agent" => Some(Self::Agent),
            _ => None,
        }
    }

    /// The heading LoopX writers create for this role (`TODO_SECTION_HEADINGS`).
    #[must_use]
    pub fn canonical_heading(self) -> &'static str {
        match self {
            Self::User => "User Todo / Owner Review Reading Queue",
            Self::Agent => "Agent Todo",
        }
    }
}

/// True when a heading (text after `## `) names an archive section.
#[must_use]
pub fn is_archive_heading(heading: &str) -> bool {
    let h = py_strip(heading).to_lowercase();
    ARCHIVE_MARKERS.iter().any(|m| h.contains(m))
}

/// LoopX `todo_role_for_heading`: case-insensitive substring match, archives first.
#[must_use]
pub fn role_for_heading(heading: &str) -> Option<Role> {
    let h = py_strip(heading).to_lowercase();
    if ARCHIVE_MARKERS.iter().any(|m| h.contains(m)) {
        None
    } else if USER_MARKERS.iter().any(|m| h.contains(m)) {
        Some(Role::User)
    } else if AGENT_MARKERS.iter().any(|m| h.contains(m)) {
        Some(Role::Agent)
    } else {
        None
    }
}

/// The heading text of a `## ` line, as LoopX takes it (`line.lstrip("#").strip()`).
#[must_use]
pub fn heading_text(line: &str) -> &str {
    py_strip(line.trim_start_matches('#'))
}

/// LoopX `parse_state_frontmatter`: the text must start with `---`; it is split with
/// `split("---", 2)`; each line with `:` gives key (stripped) → value (stripped, then `"`
/// stripped). Returns pairs in file order (later duplicates win on lookup).
#[must_use]
pub fn parse_frontmatter(text: &str) -> Vec<(String, String)> {
    if !text.starts_with("---") {
        return Vec::new();
    }
    let mut parts = text.splitn(3, "---");
    parts.next();
    let (Some(body), Some(_)) = (parts.next(), parts.next()) else {
        return Vec::new();
    };
    splitlines(body)
        .into_iter()
        .filter_map(|line| {
            let (k, v) = line.split_once(':')?;
            Some((py_strip(k).to_owned(), py_strip(v).trim_matches('"').to_owned()))
        })
        .collect()
}

/// LoopX `build_todo_id`: `todo_` + sha1(`role|source_section|index|compact(text)`)[:12].
#[must_use]
pub fn build_todo_id(role: &str, source_section: &str, index: usize, text: &str) -> String {
    let identity = format!("{role}|{source_section}|{index}|{}", compact_whitespace(text));
    format!("todo_{}", &sha1_hex(identity.as_bytes())[..12])
}

/// Where a todo's id came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IdSource {
    /// A `todo_id=` in its metadata comment.
    Metadata,
    /// Computed with [`build_todo_id`].
    Generated,
}

/// One parsed todo. Line numbers are 0-based indexes into [`ActiveState::lines`].
#[derive(Debug, Clone, Serialize)]
pub struct Todo {
    /// The todo id (metadata or generated).
    pub todo_id: String,
    /// Metadata or generated.
    pub todo_id_source: IdSource,
    /// `None` for archived todos.
    pub role: Option<Role>,
    /// True under an archive heading.
    pub archived: bool,
    /// The role's first section heading (or the archive heading).
    pub source_section: String,
    /// 1-based position among the role's (or archive's) checkbox items.
    pub index: usize,
    /// The checkbox marker character (` `, `x`, `X`, `-`).
    pub marker: char,
    /// `open|done|blocked|deferred`: metadata status wins over the marker.
    pub status: String,
    /// LoopX `done` flag: done or deferred.
    pub done: bool,
    /// Normalised text including the `[Pn]` prefix and continuation lines.
    pub text: String,
    /// `P0`..`P4` from the text prefix.
    pub priority: Option<String>,
    /// The text without the priority prefix.
    pub title: String,
    /// Known metadata (merged over every metadata line of the block).
    #[serde(skip)]
    pub metadata: Metadata,
    /// Line of the checkbox.
    pub line: usize,
}

impl Todo {
    /// `claimed_by` from metadata.
    #[must_use]
    pub fn claimed_by(&self) -> Option<String> {
        self.metadata.text("claimed_by")
    }
}

/// A `## ` section.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    /// Heading text.
    pub heading: String,
    /// Line of the heading.
    pub line: usize,
    /// Role by LoopX's markers.
    pub role: Option<Role>,
    /// Archive section.
    pub archive: bool,
}

/// A parsed active state. `text` is the universal-newline text LoopX sees.
#[derive(Debug, Clone)]
pub struct ActiveState {
    /// The text after universal-newline translation (BOM kept).
    pub text: String,
    /// Frontmatter pairs in file order.
    pub frontmatter: Vec<(String, String)>,
    /// Every `## ` section.
    pub sections: Vec<Section>,
    /// Every todo: user, agent and archived.
    pub todos: Vec<Todo>,
}

impl ActiveState {
    /// Parses `text` (any newline style) exactly as LoopX's canonical todo parser does.
    #[must_use]
    pub fn parse(text: &str) -> Self {
        let text = super::pytext::universal_newlines(text);
        let lines = splitlines(&text);
        let mut sections = Vec::new();
        let mut todos: Vec<Todo> = Vec::new();
        let mut role: Option<Role> = None;
        let mut archive = false;
        let mut archive_heading = String::new();
        let mut source = [None::<String>, None::<String>];
        let mut counts = [0usize; 3];
        let mut current: Option<usize> = None;
        for (n, line) in lines.iter().enumerate() {
            if line.starts_with("## ") {
                let heading = heading_text(line).to_owned();
                archive = is_archive_heading(&heading);
                role = role_for_heading(&heading);
                if archive {
                    archive_heading.clone_from(&heading);
                }
                if let Some(r) = role {
                    source[r as usize].get_or_insert_with(|| heading.clone());
                }
                sections.push(Section { heading, line: n, role, archive });
                current = None;
                continue;
            }
            if role.is_none() && !archive {
                continue;
            }
            if let Some((marker, task_text)) = todo_task(line) {
                let slot = if archive { 2 } else { role.map_or(2, |r| r as usize) };
                counts[slot] += 1;
                let source_section = if archive {
                    archive_heading.clone()
                } else {
                    role.and_then(|r| source[r as usize].clone()).unwrap_or_default()
                };
                todos.push(Todo {
                    todo_id: String::new(),
                    todo_id_source: IdSource::Generated,
                    role: if archive { None } else { role },
                    archived: archive,
                    source_section,
                    index: counts[slot],
                    marker,
                    status: String::new(),
                    done: false,
                    text: normalize_todo_text(task_text),
                    priority: None,
                    title: String::new(),
                    metadata: Metadata::default(),
                    line: n,
                });
                current = Some(todos.len() - 1);
                continue;
            }
            let Some(cur) = current else { continue };
            if !line.starts_with([' ', '\t']) {
                continue;
            }
            if let Some(meta) = metadata::parse_line(line) {
                todos[cur].metadata.extend(meta);
                continue;
            }
            let cont = py_strip(line);
            if !cont.is_empty() {
                let joined = format!("{} {cont}", todos[cur].text);
                todos[cur].text = normalize_todo_text(&joined);
            }
        }
        for todo in &mut todos {
            finish_todo(todo);
        }
        Self { frontmatter: parse_frontmatter(&text), sections, todos, text }
    }

    /// The lines of the text (Python `splitlines`).
    #[must_use]
    pub fn lines(&self) -> Vec<&str> {
        splitlines(&self.text)
    }

    /// The last value of frontmatter `key`.
    #[must_use]
    pub fn frontmatter_value(&self, key: &str) -> Option<&str> {
        self.frontmatter.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Active (not archived) todos with `todo_id`.
    #[must_use]
    pub fn find_todo(&self, todo_id: &str) -> Option<&Todo> {
        self.todos.iter().find(|t| !t.archived && t.todo_id == todo_id)
    }

    /// Open (status open or blocked) active todos.
    pub fn open_todos(&self) -> impl Iterator<Item = &Todo> {
        self.todos.iter().filter(|t| !t.archived && !t.done)
    }

    /// The `## Next Action` bullet entries (continuations joined), as status shows them.
    #[must_use]
    pub fn next_action_entries(&self) -> Vec<String> {
        let lines = self.lines();
        let Some(sec) = self.sections.iter().find(|s| s.heading == "Next Action") else {
            return Vec::new();
        };
        let mut entries: Vec<String> = Vec::new();
        for line in lines.iter().skip(sec.line + 1) {
            if line.starts_with("## ") {
                break;
            }
            if let Some(c) = NEXT_ACTION_RE.captures(line) {
                entries.push(c[1].to_owned());
            } else if line.starts_with([' ', '\t'])
                && !py_strip(line).is_empty()
                && let Some(last) = entries.last_mut()
            {
                last.push(' ');
                last.push_str(py_strip(line));
            }
        }
        entries
    }

    /// Line indexes that belong to todo blocks: each checkbox line and the indented lines
    /// (continuations, metadata) directly under it.
    #[must_use]
    pub fn todo_block_lines(&self) -> std::collections::BTreeSet<usize> {
        let lines = self.lines();
        self.todos.iter().flat_map(|t| block_range(&lines, t.line)).collect()
    }

    /// The lines of `todo`'s block: its checkbox line and the indented lines (continuations,
    /// metadata) directly under it, exactly as they are in the text (`todo` is one of
    /// `self.todos`).
    #[must_use]
    pub fn todo_block<'a>(&'a self, todo: &Todo) -> Vec<&'a str> {
        let lines = self.lines();
        block_range(&lines, todo.line).filter_map(|i| lines.get(i).copied()).collect()
    }

    /// Ids that appear on more than one active todo (an error in LoopX's projection).
    #[must_use]
    pub fn duplicate_todo_ids(&self) -> Vec<String> {
        let mut seen = std::collections::BTreeMap::<&str, usize>::new();
        for t in self.todos.iter().filter(|t| !t.archived) {
            *seen.entry(t.todo_id.as_str()).or_default() += 1;
        }
        seen.into_iter().filter(|(_, n)| *n > 1).map(|(k, _)| k.to_owned()).collect()
    }
}

/// Line indexes `[checkbox, last indented line]` of the block starting at `first`.
fn block_range(lines: &[&str], first: usize) -> std::ops::Range<usize> {
    let len =
        lines.iter().skip(first + 1).take_while(|l| l.starts_with([' ', '\t']) && !TODO_TASK_RE.is_match(l)).count();
    first..first + 1 + len
}

fn finish_todo(todo: &mut Todo) {
    let explicit = todo.metadata.text("status");
    let marker_status = match todo.marker {
        'x' | 'X' => "done",
        '-' => "deferred",
        _ => "open",
    };
    todo.status = explicit.clone().unwrap_or_else(|| marker_status.to_owned());
    todo.done =
        if explicit.is_some() { matches!(todo.status.as_str(), "done" | "deferred") } else { marker_status != "open" };
    if let Some(caps) = PRIORITY_RE.captures(&todo.text) {
        todo.priority = Some(py_strip(&caps[1]).to_uppercase());
        todo.title = py_strip(&caps[2]).to_owned();
    } else {
        todo.title.clone_from(&todo.text);
    }
    if let Some(id) = todo.metadata.text("todo_id") {
        todo.todo_id = id;
        todo.todo_id_source = IdSource::Metadata;
    } else {
        let role = todo.role.map_or("", Role::as_str);
        todo.todo_id = build_todo_id(role, &todo.source_section, todo.index, &todo.text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_generated_id() {
        // FORMATS.md §1.6 verified value.
        assert_eq!(
            build_todo_id("agent", "Agent Todo", 5, "Plain legacy checkbox without metadata."),
            "todo_ac30e0a7e6b8"
        );
    }

    #[test]
    fn parses_minimal_example() {
        let text = "---\nstatus: active\nupdated_at: 2026-01-01T00:00:00+00:00\n---\n\n# Demo Goal\n\n## Agent Todo\n\n- [ ] [P1] Write the smoke.\n  <!-- loopx:todo todo_id=todo_demo001 status=open task_class=advancement_task claimed_by=codex-main-control -->\n- [x] Done thing\n- [-] Later\n  continued text\n\n## Completed Work Archive\n\n- [x] Old\n";
        let st = ActiveState::parse(text);
        assert_eq!(st.frontmatter_value("status"), Some("active"));
        assert_eq!(st.todos.len(), 4);
        let t = &st.todos[0];
        assert_eq!(t.todo_id, "todo_demo001");
        assert_eq!(t.priority.as_deref(), Some("P1"));
        assert_eq!(t.title, "Write the smoke.");
        assert_eq!(t.claimed_by().as_deref(), Some("codex-main-control"));
        assert_eq!(st.todos[1].status, "done");
        assert_eq!(st.todos[2].status, "deferred");
        assert_eq!(st.todos[2].text, "Later continued text");
        assert!(st.todos[3].archived);
        assert_eq!(st.open_todos().count(), 1);
    }

    #[test]
    fn bom_hides_frontmatter() {
        let st = ActiveState::parse("\u{feff}---\nstatus: active\n---\n");
        assert!(st.frontmatter.is_empty());
    }
}
