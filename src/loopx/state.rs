//! Active-state Markdown (`ACTIVE_GOAL_STATE.md`) read model: frontmatter, `## ` sections
//! with their todo roles, todos with metadata and generated ids, Next Action entries
//! (FORMATS.md §1, `active_state_metadata.py`, `active_state_todo_parser.py`).

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
    // (memchr's search: `str::contains` was a tenth of a large state's parse.)
    if memchr::memchr(b'\n', line.as_bytes()).is_some() {
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

/// The hash [`ActiveState::find_todo`]'s table keys a todo id by.
fn id_hash(id: &str) -> u64 {
    super::hash::process_hash(id)
}

/// LoopX `build_todo_id`: `todo_` + sha1(`role|source_section|index|compact(text)`)[:12].
#[must_use]
pub fn build_todo_id(role: &str, source_section: &str, index: usize, text: &str) -> String {
    use sha1::{Digest, Sha1};
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut h = Sha1::new();
    for part in [role, "|", source_section, "|"] {
        h.update(part.as_bytes());
    }
    // The index in decimal, without a String per todo.
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = index;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    h.update(&digits[at..]);
    h.update(b"|");
    match super::pytext::compact_borrowed(text) {
        Some(compact) => h.update(compact.as_bytes()),
        None => h.update(compact_whitespace(text).as_bytes()),
    }
    let mut id = String::with_capacity(17);
    id.push_str("todo_");
    for b in &h.finalize()[..6] {
        id.push(char::from(HEX[usize::from(b >> 4)]));
        id.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    id
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
#[derive(Debug, Clone)]
pub struct Todo {
    /// The todo id (metadata or generated); held inline up to 24 bytes (a generated id is
    /// 17), so a state of 350,000 todos makes no allocation per id.
    pub todo_id: compact_str::CompactString,
    /// Metadata or generated.
    pub todo_id_source: IdSource,
    /// `None` for archived todos.
    pub role: Option<Role>,
    /// True under an archive heading.
    pub archived: bool,
    /// The role's first section heading (or the archive heading).
    pub source_section: std::sync::Arc<str>,
    /// 1-based position among the role's (or archive's) checkbox items.
    pub index: usize,
    /// The checkbox marker character (` `, `x`, `X`, `-`).
    pub marker: char,
    /// `open|done|blocked|deferred`: metadata status wins over the marker.
    pub status: &'static str,
    /// LoopX `done` flag: done or deferred.
    pub done: bool,
    /// Normalised text including the `[Pn]` prefix and continuation lines (shared with the
    /// state's text where it is a part of it).
    pub text: TodoText,
    /// Where [`Self::title`] lies in `text` (byte offsets): it is always a part of it.
    title_at: (u32, u32),
    /// Known metadata (merged over every metadata line of the block).
    pub metadata: Metadata,
    /// Line of the checkbox.
    pub line: usize,
}

impl Todo {
    /// A todo as its checkbox line opens it: `(marker, task text)` from [`todo_task`], the
    /// `(role, archived)` of its section (an archived todo has no role), its source section
    /// and `(index, line)`; what later lines add and `finish_todo` works out (id, status,
    /// title) is left empty.
    fn opened(
        state: &std::sync::Arc<String>,
        (marker, task_text): (char, &str),
        (role, archived): (Option<Role>, bool),
        source_section: std::sync::Arc<str>,
        (index, line): (usize, usize),
    ) -> Self {
        Self {
            todo_id: compact_str::CompactString::default(),
            todo_id_source: IdSource::Generated,
            role: if archived { None } else { role },
            archived,
            source_section,
            index,
            marker,
            status: "",
            done: false,
            // A compact text of at most 500 bytes (so code points) is its own normalised form.
            text: match super::pytext::compact_borrowed(task_text).filter(|t| t.len() <= 500) {
                Some(t) => TodoText::shared(state, t),
                None => TodoText::from(normalize_todo_text(task_text)),
            },
            title_at: (0, 0),
            metadata: Metadata::default(),
            line,
        }
    }

    /// `P0`..`P4` (and what follows inside the brackets, uppercased) from the text's
    /// `[Pn…]` prefix (`PRIORITY_RE`); the plain five are not allocated.
    #[must_use]
    pub fn priority(&self) -> Option<std::borrow::Cow<'static, str>> {
        let (priority, _) = priority_split(&self.text)?;
        Some(match py_strip(priority) {
            "P0" | "p0" => "P0".into(),
            "P1" | "p1" => "P1".into(),
            "P2" | "p2" => "P2".into(),
            "P3" | "p3" => "P3".into(),
            "P4" | "p4" => "P4".into(),
            other => other.to_uppercase().into(),
        })
    }

    /// The text without the priority prefix (LoopX's `title`).
    #[must_use]
    pub fn title(&self) -> &str {
        let (start, end) = self.title_at;
        self.text.get(start as usize..end as usize).unwrap_or(&self.text)
    }

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
    /// The text after universal-newline translation (BOM kept); the file's own text when it
    /// has no `\r` (see [`Self::parse_shared`]). An `Arc<String>`, not `Arc<str>`: a text
    /// read from disk becomes shared without a copy.
    pub text: std::sync::Arc<String>,
    /// Frontmatter pairs in file order.
    pub frontmatter: Vec<(String, String)>,
    /// Every `## ` section.
    pub sections: Vec<Section>,
    /// Every todo: user, agent and archived. Read it, never change it: [`Self::find_todo`]
    /// keeps an index of it.
    pub todos: Vec<Todo>,
    /// For each todo id, the index in `todos` of its first active todo, in a table keyed by
    /// the id's hash, built on the first [`Self::find_todo`]: a change touching hundreds of
    /// todos of a large state looked each up by a walk over all of them (and sorting the ids
    /// instead cost more than the table).
    by_id: std::sync::OnceLock<hashbrown::HashTable<u32>>,
}

impl ActiveState {
    /// Parses `text` (any newline style) exactly as LoopX's canonical todo parser does.
    #[must_use]
    pub fn parse(text: &str) -> Self {
        Self::parse_shared(&std::sync::Arc::new(text.to_owned()))
    }

    /// [`Self::parse`] of a shared text, kept as `text` without a copy when it has no `\r`
    /// (a state of 60 MiB was held three times over).
    #[must_use]
    pub fn parse_shared(raw: &std::sync::Arc<String>) -> Self {
        Self::parse_shared_like(raw, None)
    }

    /// [`Self::parse_shared`], taking each generated todo id from `like` (the state this text
    /// was made from) where `like` has a todo of the same role, section, index and text, whose
    /// id is then the same: an edit of a large state leaves most todos as they were, and
    /// their SHA-1 ids were the largest single cost of parsing the proposed text.
    #[must_use]
    pub fn parse_shared_like(raw: &std::sync::Arc<String>, like: Option<&ActiveState>) -> Self {
        let text = match super::pytext::universal_newlines(raw) {
            std::borrow::Cow::Borrowed(_) => std::sync::Arc::clone(raw),
            std::borrow::Cow::Owned(t) => std::sync::Arc::new(t),
        };
        let mut sections = Vec::new();
        // Sized once from the usual checkbox's count (`- [`), not grown by doubling: a large
        // state's todos were copied several times over as the list grew.
        let mut todos: Vec<Todo> = Vec::with_capacity(memchr::memmem::find_iter(text.as_bytes(), b"- [").count());
        let mut role: Option<Role> = None;
        let mut archive = false;
        // Shared by every todo under them: a state of 350,000 todos held as many copies.
        let mut archive_heading: std::sync::Arc<str> = std::sync::Arc::from("");
        let mut source = [None::<std::sync::Arc<str>>, None::<std::sync::Arc<str>>];
        let mut counts = [0usize; 3];
        let mut current: Option<usize> = None;
        for (n, line) in super::pytext::lines_of(&text).enumerate() {
            if line.starts_with("## ") {
                let heading = heading_text(line).to_owned();
                archive = is_archive_heading(&heading);
                role = role_for_heading(&heading);
                if archive {
                    archive_heading = std::sync::Arc::from(heading.as_str());
                }
                if let Some(r) = role {
                    source[r as usize].get_or_insert_with(|| std::sync::Arc::from(heading.as_str()));
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
                    std::sync::Arc::clone(&archive_heading)
                } else {
                    role.and_then(|r| source[r as usize].clone()).unwrap_or_else(|| std::sync::Arc::from(""))
                };
                todos.push(Todo::opened(
                    &text,
                    (marker, task_text),
                    (role, archive),
                    source_section,
                    (counts[slot], n),
                ));
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
                todos[cur].text = TodoText::from(normalize_todo_text(&joined));
            }
        }
        let known = like.map(KnownIds::of);
        for todo in &mut todos {
            finish_todo(todo, known.as_ref());
        }
        todos.shrink_to_fit();
        Self { frontmatter: parse_frontmatter(&text), sections, todos, text, by_id: std::sync::OnceLock::new() }
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
        let Some(index) = self.id_index() else {
            return self.todos.iter().find(|t| !t.archived && t.todo_id == todo_id);
        };
        index.find(id_hash(todo_id), |&i| self.todos[i as usize].todo_id == todo_id).map(|&i| &self.todos[i as usize])
    }

    /// See [`Self::by_id`]; `None` for a state of more todos than a `u32` counts.
    fn id_index(&self) -> Option<&hashbrown::HashTable<u32>> {
        u32::try_from(self.todos.len()).ok()?;
        Some(self.by_id.get_or_init(|| {
            let todos = &self.todos;
            let mut table = hashbrown::HashTable::with_capacity(todos.len());
            for (i, t) in todos.iter().enumerate().filter(|(_, t)| !t.archived) {
                let entry = table.entry(
                    id_hash(&t.todo_id),
                    |&j: &u32| todos[j as usize].todo_id == t.todo_id,
                    |&j: &u32| id_hash(&todos[j as usize].todo_id),
                );
                // The first in the file wins, as a walk finds it.
                if let hashbrown::hash_table::Entry::Vacant(e) = entry {
                    e.insert(u32::try_from(i).unwrap_or(u32::MAX));
                }
            }
            table
        }))
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

    /// The lines outside every todo block (a block: a checkbox line and the indented lines,
    /// continuations and metadata, directly under it), in order.
    #[must_use]
    pub fn lines_outside_todo_blocks(&self) -> Vec<&str> {
        let lines = self.lines();
        let mut inside = vec![false; lines.len()];
        for t in &self.todos {
            for i in block_range(&lines, t.line) {
                inside[i] = true;
            }
        }
        lines.into_iter().zip(inside).filter(|(_, inside)| !inside).map(|(l, _)| l).collect()
    }

    /// The lines of `todo`'s block: its checkbox line and the indented lines (continuations,
    /// metadata) directly under it, exactly as they are in the text (`todo` is one of
    /// `self.todos`).
    #[must_use]
    pub fn todo_block<'a>(&'a self, todo: &Todo) -> Vec<&'a str> {
        block_lines(&self.lines(), todo.line)
    }

    /// [`Self::todo_block`] of every todo, in the order of [`Self::todos`], from one split
    /// of the text (asking for each block in turn splits it once per todo).
    #[must_use]
    pub fn todo_blocks(&self) -> Vec<Vec<&str>> {
        let lines = self.lines();
        self.todos.iter().map(|t| block_lines(&lines, t.line)).collect()
    }

    /// The text's lines ([`Self::lines`]) and, for each of [`Self::todos`] in order, the
    /// range of its block ([`Self::todo_block`]) among them, from one split of the text.
    #[must_use]
    pub fn lines_and_todo_blocks(&self) -> (Vec<&str>, Vec<std::ops::Range<usize>>) {
        let lines = self.lines();
        let end = lines.len();
        let blocks = self.todos.iter().map(|t| block_range(&lines, t.line)).map(|r| r.start.min(end)..r.end.min(end));
        let blocks = blocks.collect();
        (lines, blocks)
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

/// The lines of the block starting at `first` ([`block_range`]).
fn block_lines<'a>(lines: &[&'a str], first: usize) -> Vec<&'a str> {
    block_range(lines, first).filter_map(|i| lines.get(i).copied()).collect()
}

/// Line indexes `[checkbox, last indented line]` of the block starting at `first`.
fn block_range(lines: &[&str], first: usize) -> std::ops::Range<usize> {
    let len = lines.iter().skip(first + 1).take_while(|l| l.starts_with([' ', '\t']) && todo_task(l).is_none()).count();
    first..first + 1 + len
}

/// [`PRIORITY_RE`]'s two captures (the `Pn...` inside the brackets, the rest), read without
/// the regex on a text with no line break (a proptest holds the two equal). `[^\]]*` cannot
/// pass a `]`, so the priority ends at the first one; `\s*(.+)$` takes the rest but for its
/// leading whitespace, or, when the rest is all whitespace, its last character.
fn priority_split(text: &str) -> Option<(&str, &str)> {
    if memchr::memchr(b'\n', text.as_bytes()).is_some() {
        let caps = PRIORITY_RE.captures(text)?;
        return Some((caps.get(1)?.as_str(), caps.get(2)?.as_str()));
    }
    let inner = text.trim_start_matches(char::is_whitespace).strip_prefix('[')?;
    let mut chars = inner.chars();
    if !matches!(chars.next(), Some('P' | 'p')) || !matches!(chars.next(), Some('0'..='4')) {
        return None;
    }
    let close = memchr::memchr(b']', inner.as_bytes())?;
    let rest = &inner[close + 1..];
    let title = match rest.trim_start_matches(char::is_whitespace) {
        "" => &rest[rest.char_indices().next_back()?.0..],
        title => title,
    };
    Some((&inner[..close], title))
}

/// The byte span of `part`, a subslice of `text`; the whole text when an offset would not
/// fit a `u32` (a todo text is cut at 500 code points, so it never is).
fn span_in(text: &str, part: &str) -> (u32, u32) {
    let start = (part.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    match (u32::try_from(start), u32::try_from(start + part.len())) {
        (Ok(s), Ok(e)) if start + part.len() <= text.len() => (s, e),
        _ => (0, u32::try_from(text.len()).unwrap_or(0)),
    }
}

mod finish;
mod remembered;
mod todo_text;
use finish::{KnownIds, finish_todo};
pub use remembered::{parse_remembered, parse_shared_remembered};
pub use todo_text::TodoText;

#[cfg(test)]
mod tests;
