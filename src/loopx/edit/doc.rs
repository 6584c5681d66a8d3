//! The line model LoopX's todo writers edit: `splitlines()` of the universal-newline text,
//! rejoined with `\n` keeping the original final newline (spec §0.1), plus sections,
//! todo blocks, metadata upsert and the frontmatter `updated_at` bump (§0.2–0.4).

use crate::loopx::metadata::{self, Metadata};
use crate::loopx::pytext::{normalize_todo_text, py_strip, splitlines, universal_newlines};
use crate::loopx::state::{Role, build_todo_id, heading_text, role_for_heading, todo_task};
use regex::Regex;
use std::borrow::Cow;
use std::sync::LazyLock;

static UPDATED_AT_RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?m)^updated_at:\s*.+$").expect("static regex"));
static MARKER_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\s*[-*]\s+\[)[ xX-](\]\s+)").expect("static regex"));

/// Lines of a state file being edited: borrowed from the text until an edit replaces them
/// (a state of two million lines is not copied line by line to add one todo).
#[derive(Debug, Clone)]
pub struct Doc<'a> {
    /// The lines (no terminators).
    pub lines: Vec<Cow<'a, str>>,
    /// The original universal-newline text.
    pub original: Cow<'a, str>,
}

/// One todo block inside a section: from its checkbox line to the line before the next
/// checkbox line or the section end (trailing blank lines included).
#[derive(Debug, Clone)]
pub struct Block {
    /// First line (the checkbox).
    pub start: usize,
    /// One past the last line.
    pub end: usize,
    /// 1-based position in the section.
    pub index: usize,
    /// Checkbox marker.
    pub marker: char,
    /// Normalised text with continuations.
    pub text: String,
    /// Known metadata (merged).
    pub metadata: Metadata,
    /// First metadata comment line, if any.
    pub meta_line: Option<usize>,
    /// Metadata id or generated id.
    pub todo_id: String,
    /// Metadata status, else marker status.
    pub status: String,
}

impl Block {
    /// Done or deferred.
    #[must_use]
    pub fn is_terminal(&self) -> bool {
        matches!(self.status.as_str(), "done" | "deferred")
    }
}

/// The checkbox marker LoopX writes for a status.
#[must_use]
pub fn marker_for_status(status: &str) -> char {
    match status {
        "done" => 'x',
        "deferred" => '-',
        _ => ' ',
    }
}

impl<'a> Doc<'a> {
    /// Splits `text` (any newline style) as LoopX does. The lines borrow `text` unless its
    /// newlines had to be rewritten (`\r\n`, `\r`).
    #[must_use]
    pub fn new(text: &'a str) -> Self {
        match universal_newlines(text) {
            Cow::Borrowed(t) => {
                Self { lines: splitlines(t).into_iter().map(Cow::Borrowed).collect(), original: t.into() }
            }
            Cow::Owned(t) => Self {
                lines: splitlines(&t).into_iter().map(|l| Cow::Owned(l.to_owned())).collect(),
                original: t.into(),
            },
        }
    }

    /// `"\n".join(lines)` plus a final `\n` when the original had one, in one allocation of
    /// the exact size.
    #[must_use]
    pub fn joined(&self) -> String {
        let newline = self.original.ends_with('\n');
        let len = self.lines.iter().map(|l| l.len() + 1).sum::<usize>().saturating_sub(1) + usize::from(newline);
        let mut out = String::with_capacity(len);
        for (i, line) in self.lines.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(line);
        }
        if newline {
            out.push('\n');
        }
        out
    }

    /// The first section whose heading maps to `role`: `(heading line, end, heading text)`.
    #[must_use]
    pub fn section_bounds(&self, role: Role) -> Option<(usize, usize, String)> {
        let start =
            self.lines.iter().position(|l| l.starts_with("## ") && role_for_heading(heading_text(l)) == Some(role))?;
        Some((start, self.section_end(start), heading_text(&self.lines[start]).to_owned()))
    }

    /// The first archive section (`## Completed Work Archive` and similar).
    #[must_use]
    pub fn archive_bounds(&self) -> Option<(usize, usize)> {
        let start = self.lines.iter().position(|l| py_strip(l) == "## Completed Work Archive")?;
        Some((start, self.section_end(start)))
    }

    /// The line index after a section heading at `start` where the next `## ` begins.
    #[must_use]
    pub fn section_end(&self, start: usize) -> usize {
        self.lines
            .iter()
            .enumerate()
            .skip(start + 1)
            .find(|(_, l)| l.starts_with("## "))
            .map_or(self.lines.len(), |(i, _)| i)
    }

    /// The todo blocks of the section `[start, end)` with role `role` and `heading`.
    #[must_use]
    pub fn blocks(&self, start: usize, end: usize, role: Option<Role>, heading: &str) -> Vec<Block> {
        let starts = self.block_starts(start, end);
        let mut out = Vec::with_capacity(starts.len());
        for (n, &s) in starts.iter().enumerate() {
            let e = starts.get(n + 1).copied().unwrap_or(end);
            out.push(self.block_at(s, e, n + 1, role, heading));
        }
        out
    }

    /// The checkbox lines of the section `[start, end)`: where its blocks start.
    #[must_use]
    pub fn block_starts(&self, start: usize, end: usize) -> Vec<usize> {
        (start + 1..end).filter(|&i| todo_task(&self.lines[i]).is_some()).collect()
    }

    /// The first block of the section `[start, end)` whose text is `text` and whose status
    /// is not terminal (what [`Self::blocks`] then a `find` gives), reading only the text of
    /// the others: a state of 350,000 todos built them all to find none.
    #[must_use]
    pub fn open_block_with_text(
        &self,
        start: usize,
        end: usize,
        role: Option<Role>,
        heading: &str,
        text: &str,
    ) -> Option<Block> {
        let starts = self.block_starts(start, end);
        starts.iter().enumerate().find_map(|(n, &s)| {
            let e = starts.get(n + 1).copied().unwrap_or(end);
            if self.block_text(s, e) != text {
                return None;
            }
            Some(self.block_at(s, e, n + 1, role, heading)).filter(|b| !b.is_terminal())
        })
    }

    /// A block's text as [`Self::block_at`] reads it: the checkbox text and its continuation
    /// lines (metadata comments left out), normalised.
    fn block_text(&self, s: usize, e: usize) -> String {
        let mut text = todo_task(&self.lines[s]).map(|(_, text)| normalize_todo_text(text)).unwrap_or_default();
        for line in &self.lines[s + 1..e] {
            if !line.starts_with([' ', '\t']) || metadata::is_metadata_comment(line) {
                continue;
            }
            let cont = py_strip(line);
            if !cont.is_empty() {
                text = normalize_todo_text(&format!("{text} {cont}"));
            }
        }
        text
    }

    fn block_at(&self, s: usize, e: usize, index: usize, role: Option<Role>, heading: &str) -> Block {
        let marker = todo_task(&self.lines[s]).map_or(' ', |(marker, _)| marker);
        let text = self.block_text(s, e);
        let mut meta = Metadata::default();
        let mut meta_line = None;
        for i in s + 1..e {
            let line = &self.lines[i];
            if line.starts_with([' ', '\t']) && metadata::is_metadata_comment(line) {
                meta_line.get_or_insert(i);
                if let Some(m) = metadata::parse_line(line) {
                    meta.extend(m);
                }
            }
        }
        let status = meta.text("status").unwrap_or_else(|| match marker {
            'x' | 'X' => "done".into(),
            '-' => "deferred".into(),
            _ => "open".into(),
        });
        let todo_id =
            meta.text("todo_id").unwrap_or_else(|| build_todo_id(role.map_or("", Role::as_str), heading, index, &text));
        Block { start: s, end: e, index, marker, text, metadata: meta, meta_line, todo_id, status }
    }

    /// Finds an active todo by exact id in the first user section, then the first agent
    /// section (or only `role`'s): `(role, heading, block)`.
    #[must_use]
    pub fn find_todo(&self, todo_id: &str, role: Option<Role>) -> Option<(Role, String, Block)> {
        let roles: &[Role] = match role {
            Some(Role::User) => &[Role::User],
            Some(Role::Agent) => &[Role::Agent],
            None => &[Role::User, Role::Agent],
        };
        for &r in roles {
            let Some((s, e, heading)) = self.section_bounds(r) else { continue };
            if let Some(b) = self.block_by_metadata_id(s, e, r, &heading, todo_id) {
                return Some((r, heading, b));
            }
            if let Some(b) = self.blocks(s, e, Some(r), &heading).into_iter().find(|b| b.todo_id == todo_id) {
                return Some((r, heading, b));
            }
        }
        None
    }

    /// Fast path for large states: a block whose metadata says `todo_id=<id>` is found by a
    /// substring search and parsed alone (the full scan still decides generated ids).
    fn block_by_metadata_id(&self, s: usize, e: usize, role: Role, heading: &str, todo_id: &str) -> Option<Block> {
        let needle = format!("todo_id={todo_id}");
        let meta =
            (s + 1..e).find(|&i| self.lines[i].contains(&needle) && metadata::is_metadata_comment(&self.lines[i]))?;
        let starts = self.block_starts(s, e);
        let n = starts.iter().rposition(|&st| st < meta)?;
        let end = starts.get(n + 1).copied().unwrap_or(e);
        let block = self.block_at(starts[n], end, n + 1, Some(role), heading);
        (block.todo_id == todo_id).then_some(block)
    }

    /// Sets the checkbox marker of the line at `line`, keeping indentation and bullet.
    pub fn set_marker(&mut self, line: usize, marker: char) {
        let replaced = MARKER_RE.replace(&self.lines[line], format!("${{1}}{marker}${{2}}").as_str()).into_owned();
        self.lines[line] = replaced.into();
    }

    /// Replaces the block's first metadata line with `line`, or inserts it after the last
    /// non-blank line of the block (LoopX `upsert_todo_metadata`). Returns the shift in
    /// line count (0 or 1).
    pub fn upsert_metadata(&mut self, block: &Block, line: String) -> usize {
        if let Some(i) = block.meta_line {
            self.lines[i] = line.into();
            return 0;
        }
        let mut at = block.end;
        while at > block.start + 1 && py_strip(&self.lines[at - 1]).is_empty() {
            at -= 1;
        }
        self.lines.insert(at, line.into());
        1
    }

    /// Where a new block goes in section `[start, end)` (spec §1.4): after the section's
    /// last non-blank line; returns the lines to insert around `item` lines.
    pub fn insert_in_section<S: Into<Cow<'a, str>>>(&mut self, start: usize, end: usize, item: Vec<S>) {
        let mut at = end;
        while at > start + 1 && py_strip(&self.lines[at - 1]).is_empty() {
            at -= 1;
        }
        let mut block: Vec<Cow<'a, str>> = Vec::new();
        if at == start + 1 {
            block.push(Cow::Borrowed(""));
        }
        block.extend(item.into_iter().map(Into::into));
        if at == end && end < self.lines.len() && self.lines[end].starts_with("## ") {
            block.push(Cow::Borrowed(""));
        }
        self.lines.splice(at..at, block);
    }

    /// Inserts a whole new section `## <heading>` (spec §1.4 "missing section").
    pub fn insert_new_section(&mut self, role: Role, item: Vec<String>) -> usize {
        let agent = self.section_bounds(Role::Agent).map(|b| b.0);
        let anchor = match (role, agent) {
            (Role::User, Some(a)) => a,
            _ => self.lines.iter().position(|l| py_strip(l) == "## Next Action").unwrap_or(self.lines.len()),
        };
        let mut block = Vec::new();
        if anchor > 0 && !py_strip(&self.lines[anchor - 1]).is_empty() {
            block.push(String::new());
        }
        let heading_at = anchor + block.len();
        block.push(format!("## {}", role.canonical_heading()));
        block.push(String::new());
        block.extend(item);
        block.push(String::new());
        self.lines.splice(anchor..anchor, block.into_iter().map(Cow::Owned));
        heading_at
    }
}

/// LoopX `replace_updated_at`: rewrites (or appends) frontmatter `updated_at`; a text that
/// does not start with `---` (e.g. one starting with a BOM) is returned unchanged.
#[must_use]
pub fn bump_updated_at(text: &str, now: &str) -> String {
    bumped(text.to_owned(), now)
}

/// `text` with [`bump_updated_at_in`] applied.
#[must_use]
pub fn bumped(mut text: String, now: &str) -> String {
    bump_updated_at_in(&mut text, now);
    text
}

/// [`bump_updated_at`] in place: only the frontmatter's bytes are replaced, so a 60 MiB
/// state is not copied again to change one line. The frontmatter is what lies between the
/// first two `---` (LoopX's `split("---", 2)`); the first `updated_at:` line in it is
/// rewritten, else one is appended to it.
pub fn bump_updated_at_in(text: &mut String, now: &str) {
    if !text.starts_with("---") {
        return;
    }
    let Some(end) = text[3..].find("---").map(|i| i + 3) else { return };
    let front = &text[3..end];
    if let Some(m) = UPDATED_AT_RE.find(front) {
        let range = 3 + m.start()..3 + m.end();
        text.replace_range(range, &format!("updated_at: {now}"));
    } else {
        let kept = front.trim_end_matches('\n').len();
        text.replace_range(3 + kept..end, &format!("\nupdated_at: {now}\n"));
    }
}

/// LoopX `lease_id`: `lease_<todo>_<agent>` with non-`[A-Za-z0-9_]` runs as `_`, trimmed.
#[must_use]
pub fn lease_id(todo_id: &str, claimed_by: &str) -> String {
    let clean = |s: &str| {
        let mut out = String::new();
        let mut bad = false;
        for c in s.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                out.push(c);
                bad = false;
            } else if !bad {
                out.push('_');
                bad = true;
            }
        }
        out.trim_matches('_').to_owned()
    };
    format!("lease_{}_{}", clean(todo_id), clean(claimed_by))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bump_rules() {
        assert_eq!(
            bump_updated_at("---\nstatus: a\nupdated_at: x\n---\nbody", "N"),
            "---\nstatus: a\nupdated_at: N\n---\nbody"
        );
        assert_eq!(bump_updated_at("---\nstatus: a\n---\nbody", "N"), "---\nstatus: a\nupdated_at: N\n---\nbody");
        assert_eq!(bump_updated_at("\u{feff}---\nupdated_at: x\n---\n", "N"), "\u{feff}---\nupdated_at: x\n---\n");
        assert_eq!(lease_id("todo_existing", "codex-main-control"), "lease_todo_existing_codex_main_control");
    }

    /// The copying definition [`bump_updated_at_in`] replaced.
    fn bump_reference(text: &str, now: &str) -> String {
        if !text.starts_with("---") {
            return text.to_owned();
        }
        let mut parts = text.splitn(3, "---");
        parts.next();
        let (Some(front), Some(body)) = (parts.next(), parts.next()) else {
            return text.to_owned();
        };
        let front = if UPDATED_AT_RE.is_match(front) {
            UPDATED_AT_RE.replace(front, regex::NoExpand(&format!("updated_at: {now}"))).into_owned()
        } else {
            format!("{}\nupdated_at: {now}\n", front.trim_end_matches('\n'))
        };
        format!("---{front}---{body}")
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        #[test]
        fn the_bump_in_place_is_the_copying_bump(
            parts in proptest::collection::vec(
                proptest::sample::select(vec!["---", "--", "\n", "updated_at:", "updated_at: x", " ", "\t", "é",
                    "status: a", "updated_at:\n", "x", "\u{feff}", "\r\n"]),
                0..14,
            ),
            now in "[0-9T:+-]{0,6}",
        ) {
            let text: String = parts.concat();
            proptest::prop_assert_eq!(bump_updated_at(&text, &now), bump_reference(&text, &now), "on {:?}", text);
        }
    }

    #[test]
    fn join_keeps_final_newline_state() {
        assert_eq!(Doc::new("a\r\nb").joined(), "a\nb");
        assert_eq!(Doc::new("a\nb\n\n").joined(), "a\nb\n\n");
    }
}
