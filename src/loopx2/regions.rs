//! The generated todo regions of a LoopX 2.x state Markdown (LOOPX2.md §2), found as
//! LoopX 2.1.1 finds them (`control_plane/todos/machine_region.py`: `visible_markdown_lines`,
//! `find_todo_regions`): a region runs from its `## ` heading through
//! `<!-- loopx:todo-region-v0 role=R end -->` (marked) or through the last generated line
//! (an unmarked heading, as a fresh bootstrap writes it). Inside a marked region only blank
//! lines, checkbox lines, todo metadata lines and the section-projection marker may appear.

use crate::loopx::pytext::py_strip;
use regex::Regex;
use std::sync::LazyLock;

/// `TODO_REGION_PREFIX`.
pub const REGION_PREFIX: &str = "<!-- loopx:todo-region-v0 ";
/// The section-projection marker's prefix.
pub const PROJECTION_PREFIX: &str = "<!-- loopx:todo-section-projection-v0 ";

// Python's `\s` on `str` is `str.isspace()`: Unicode White_Space plus U+001C..U+001F, which
// Rust's `\s` lacks. Every pattern here spells it `[\s\x1c-\x1f]` so a line is a todo, a
// comment or a blank exactly when it is one to LoopX.

/// `TODO_TASK_PATTERN` of `contract.py`, with Python's whitespace.
static TASK_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[\s\x1c-\x1f]*[-*][\s\x1c-\x1f]+\[([ xX-])\][\s\x1c-\x1f]+(.+?)[\s\x1c-\x1f]*$")
        .expect("static regex")
});
/// `TODO_METADATA_PATTERN` of `contract.py`.
static METADATA_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[\s\x1c-\x1f]*<!--[\s\x1c-\x1f]*loopx:(?:todo[\s\x1c-\x1f]+)?(.*?)[\s\x1c-\x1f]*-->[\s\x1c-\x1f]*$")
        .expect("static regex")
});
/// `TODO_METADATA_TOKEN_PATTERN` (the key part; a value runs to whitespace or `<>`).
static TOKEN_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:^|[\s\x1c-\x1f])([a-z_][a-z0-9_]*)=[^\s\x1c-\x1f<>]+").expect("static regex"));
/// `_MARKER_PATTERN` of `machine_section_projection.py`.
static MARKER_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^<!-- loopx:todo-section-projection-v0 role=(user|agent|archive) provider_revision=([A-Za-z0-9_.:-]+) records_sha256=([a-f0-9]{64}) -->\r?$",
    )
    .expect("static regex")
});
static FENCE_RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^ {0,3}(`{3,}|~{3,})(.*)$").expect("static regex"));

/// Headings LoopX 2.x treats as todo regions (`_ROLE_HEADINGS`, compared lower-cased).
const ROLE_HEADINGS: &[(&str, &str)] = &[
    ("user todo", "user"),
    ("user todo / owner review reading queue", "user"),
    ("owner review reading queue", "user"),
    ("owner reading queue", "user"),
    ("agent todo", "agent"),
    ("codex todo", "agent"),
    ("project agent todo", "agent"),
    ("completed work archive", "archive"),
];

/// Todo metadata keys LoopX 2.1.1 reads (`TODO_METADATA_FIELDS` plus the 2.x additions). A
/// metadata comment holding none of them is not generated content.
const KNOWN_KEYS: &[&str] = &[
    "todo_id",
    "status",
    "role",
    "priority",
    "task_class",
    "action_kind",
    "task_domain",
    "claimed_by",
    "created_by",
    "last_actor_agent_id",
    "bound_agent",
    "goal_bound",
    "blocks_agent",
    "excluded_agents",
    "excluded_agent",
    "global_gate",
    "unblocks_todo_id",
    "resume_when",
    "note",
    "evidence",
    "reason",
    "completed_at",
    "updated_at",
    "superseded_by",
    "required_write_scopes",
    "required_capabilities",
    "target_capabilities",
    "decision_scope",
    "required_decision_scopes",
    "decision_outcome",
    "no_followup",
    "successor_todo_ids",
    "archive_state",
    "continuation_policy",
    "handoff_note",
    "completion_receipt_id",
    "capability_binding_ref",
    "task_repository",
    "explore_result_node_refs",
    "resume_condition",
    "completion_validation_required",
    "completion_validation_sha256",
    "completion_validation_revision",
    "replan_obligation_id",
    "target_key",
    "cadence",
    "next_due_at",
    "expires_at",
    "watch_only",
    "last_checked_at",
    "result_hash",
    "consecutive_no_change",
    "material_change",
    "monitor_effect_id",
    "completion_turn_key",
    "completion_result",
    "title",
];

/// One todo region: 0-based line indices into the text's lines (ends kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// `user`, `agent` or `archive`.
    pub role: String,
    /// The heading line.
    pub start: usize,
    /// One past the region's last line (past the end marker when marked).
    pub end: usize,
    /// One past the body (the end marker's line when marked).
    pub body_end: usize,
    /// True when the region has begin / end markers.
    pub marked: bool,
}

/// The section-projection marker of one region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectionMarker {
    /// `user`, `agent` or `archive`.
    pub role: String,
    /// `provider_revision=` (`sqlite:<store_identity>:<cursor>`).
    pub provider_revision: String,
    /// `records_sha256=`.
    pub records_sha256: String,
}

/// A state text split into lines (terminators kept) with its todo regions.
#[derive(Debug, Clone)]
pub struct RegionDoc<'a> {
    /// Lines with their terminators (Python `splitlines(keepends=True)`).
    pub lines: Vec<&'a str>,
    /// The regions in file order.
    pub regions: Vec<Region>,
    /// Per line: outside the frontmatter, fenced code and HTML comments.
    pub visible: Vec<bool>,
}

/// Why LoopX cannot project into a text: LoopX's own words and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionError {
    /// LoopX's message, word for word (`non-generated content inside marked Todo region`, …).
    pub message: String,
    /// The 1-based line it concerns.
    pub line: usize,
    /// The region's role, when the line is inside one.
    pub role: Option<String>,
}

impl std::fmt::Display for RegionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.role {
            Some(role) => write!(f, "{} (line {}, in the {role} region)", self.message, self.line),
            None => write!(f, "{} (line {})", self.message, self.line),
        }
    }
}

fn region_error(message: impl Into<String>, index: usize, role: Option<&str>) -> RegionError {
    RegionError { message: message.into(), line: index + 1, role: role.map(str::to_owned) }
}

/// Python `str.splitlines(keepends=True)`.
#[must_use]
pub fn lines_with_ends(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if crate::loopx::pytext::is_line_boundary(c) {
            let mut end = i + c.len_utf8();
            if c == '\r' && chars.peek().is_some_and(|&(_, n)| n == '\n') {
                chars.next();
                end += 1;
            }
            out.push(&text[start..end]);
            start = end;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

fn content(line: &str) -> &str {
    line.trim_end_matches(['\r', '\n'])
}

/// `todo_region_marker(role, edge)`.
#[must_use]
pub fn region_marker(role: &str, edge: &str) -> String {
    format!("{REGION_PREFIX}role={role} {edge} -->")
}

/// True for a todo metadata comment LoopX parses (`parse_todo_metadata_line` is not None).
#[must_use]
pub fn is_metadata_line(line: &str) -> bool {
    METADATA_RE.captures(line).is_some_and(|c| TOKEN_RE.captures_iter(&c[1]).any(|t| KNOWN_KEYS.contains(&&t[1])))
}

/// Lines outside fenced code, HTML comments and the frontmatter (`visible_markdown_lines`).
///
/// # Errors
/// `unterminated Goal frontmatter`, as LoopX says it.
pub fn visible_lines(lines: &[&str]) -> Result<Vec<bool>, RegionError> {
    let mut visible = vec![false; lines.len()];
    let mut index = 0;
    if lines.first().is_some_and(|l| py_strip(l) == "---") {
        let end = (1..lines.len()).find(|&i| matches!(py_strip(lines[i]), "---" | "..."));
        index = end.ok_or_else(|| region_error("unterminated Goal frontmatter", 0, None))? + 1;
    }
    let mut fence: Option<(char, usize)> = None;
    let mut in_comment = false;
    while index < lines.len() {
        let line = content(lines[index]);
        if let Some((ch, n)) = fence {
            let indent = line.len() - line.trim_start_matches(' ').len();
            let rest = &line[indent..];
            let run = rest.len() - rest.trim_start_matches(ch).len();
            if indent <= 3 && run >= n && rest[run..].trim_matches([' ', '\t']).is_empty() {
                fence = None;
            }
        } else if in_comment {
            in_comment = !line.contains("-->");
        } else if let Some(c) = FENCE_RE.captures(line) {
            let run = &c[1];
            fence = Some((run.chars().next().unwrap_or('`'), run.len()));
        } else if line.trim_start_matches(crate::loopx::pytext::is_py_space).starts_with("<!--")
            && !line.contains("-->")
        {
            in_comment = true;
        } else {
            visible[index] = true;
        }
        index += 1;
    }
    Ok(visible)
}

impl<'a> RegionDoc<'a> {
    /// Finds the regions of `text` as LoopX 2.1.1 does.
    ///
    /// # Errors
    /// LoopX's own words for a text it cannot project into: `orphan or malformed Todo region
    /// marker`, `nested, mismatched, or malformed Todo region marker`, `non-generated content
    /// inside marked Todo region`, `unterminated Todo region`, `active Markdown contains
    /// multiple R Todo sections`, `unterminated Goal frontmatter`.
    pub fn parse(text: &'a str) -> Result<Self, RegionError> {
        let lines = lines_with_ends(text);
        let visible = visible_lines(&lines)?;
        let mut regions: Vec<Region> = Vec::new();
        let mut index = 0;
        while index < lines.len() {
            if !visible[index] {
                index += 1;
                continue;
            }
            let line = content(lines[index]);
            if line.contains(REGION_PREFIX) {
                return Err(region_error("orphan or malformed Todo region marker", index, None));
            }
            let heading = line.strip_prefix("## ").map(|h| py_strip(h).to_lowercase()).unwrap_or_default();
            let Some(&(_, role)) = ROLE_HEADINGS.iter().find(|(h, _)| *h == heading) else {
                index += 1;
                continue;
            };
            let region = Self::region_at(&lines, &visible, index, role)?;
            index = region.end;
            regions.push(region);
        }
        // Checked after the whole scan, as `TodoProjectionDocument.parse` does: a marker error
        // further down wins over a duplicate section.
        for (i, r) in regions.iter().enumerate() {
            if regions[..i].iter().any(|o| o.role == r.role) {
                let message = format!("active Markdown contains multiple {} Todo sections", r.role);
                return Err(region_error(message, r.start, Some(&r.role)));
            }
        }
        Ok(Self { lines, regions, visible })
    }

    fn region_at(lines: &[&str], visible: &[bool], start: usize, role: &str) -> Result<Region, RegionError> {
        let mut index = start + 1;
        let marked = lines.get(index).is_some_and(|l| content(l) == region_marker(role, "begin"));
        if marked {
            index += 1;
        }
        let end_marker = region_marker(role, "end");
        let mut legacy_task_open = false;
        while index < lines.len() {
            let line = content(lines[index]);
            if marked && line == end_marker {
                break;
            }
            if line.contains(REGION_PREFIX) {
                return Err(region_error("nested, mismatched, or malformed Todo region marker", index, Some(role)));
            }
            let task = TASK_RE.is_match(line);
            let continuation = !marked && legacy_task_open && line.starts_with([' ', '\t']);
            let generated = visible[index]
                && (py_strip(line).is_empty()
                    || task
                    || is_metadata_line(line)
                    || line.starts_with(PROJECTION_PREFIX)
                    || continuation);
            if !generated {
                if marked {
                    return Err(region_error("non-generated content inside marked Todo region", index, Some(role)));
                }
                break;
            }
            if task {
                legacy_task_open = true;
            } else if py_strip(line).is_empty() {
                legacy_task_open = false;
            }
            index += 1;
        }
        if marked && index == lines.len() {
            return Err(region_error("unterminated Todo region", start, Some(role)));
        }
        let body_end = index;
        let end = if marked { index + 1 } else { index };
        Ok(Region { role: role.to_owned(), start, end, body_end, marked })
    }

    /// The bytes of `region` (heading through end marker).
    #[must_use]
    pub fn region_text(&self, region: &Region) -> String {
        self.lines[region.start..region.end].concat()
    }

    /// The projection markers inside marked regions (`inspect_todo_section_projection`).
    #[must_use]
    pub fn markers(&self) -> Vec<ProjectionMarker> {
        let mut out = Vec::new();
        for r in &self.regions {
            for line in &self.lines[r.start..r.body_end] {
                if let Some(c) = MARKER_RE.captures(content(line)).filter(|c| c[1] == r.role) {
                    out.push(ProjectionMarker {
                        role: c[1].to_owned(),
                        provider_revision: c[2].to_owned(),
                        records_sha256: c[3].to_owned(),
                    });
                }
            }
        }
        out
    }

    /// True when line `n` lies inside some region.
    #[must_use]
    pub fn in_region(&self, n: usize) -> bool {
        self.regions.iter().any(|r| (r.start..r.end).contains(&n))
    }

    /// Visible checkbox lines outside every region (0-based index, the line without its
    /// terminator); a checkbox in fenced code or a comment is no todo to LoopX.
    #[must_use]
    pub fn todo_lines_outside(&self) -> Vec<(usize, &'a str)> {
        (0..self.lines.len())
            .filter(|&n| self.visible[n] && !self.in_region(n) && TASK_RE.is_match(content(self.lines[n])))
            .map(|n| (n, content(self.lines[n])))
            .collect()
    }

    /// Todo ids named by metadata lines outside every region that follow a checkbox line
    /// (`(line of the checkbox, todo_id)`): what `check` reports as ghosts when the authority
    /// does not hold the id.
    #[must_use]
    pub fn todo_ids_outside(&self) -> Vec<(usize, String)> {
        static ID_RE: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"(?:^|[\s\x1c-\x1f])todo_id=([^\s\x1c-\x1f<>]+)").expect("static regex"));
        let mut out = Vec::new();
        let mut last_task: Option<usize> = None;
        for (n, raw) in self.lines.iter().enumerate() {
            let line = content(raw);
            if self.in_region(n) || !self.visible[n] {
                last_task = None;
                continue;
            }
            if TASK_RE.is_match(line) {
                last_task = Some(n);
            } else if let Some(task) = last_task
                && let Some(meta) = METADATA_RE.captures(line)
                && let Some(id) = ID_RE.captures(&meta[1])
            {
                out.push((task, crate::loopx::metadata::decode_value(&id[1])));
                last_task = None;
            } else if !line.starts_with([' ', '\t']) {
                last_task = None;
            }
        }
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const DOC: &str = "---\nstatus: active\n---\n\n## Agent Todo\n<!-- loopx:todo-region-v0 role=agent begin -->\n<!-- loopx:todo-section-projection-v0 role=agent provider_revision=sqlite:abc:3 records_sha256=4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945 -->\n\n- [ ] Write docs\n  <!-- loopx:todo todo_id=todo_1 status=open -->\n<!-- loopx:todo-region-v0 role=agent end -->\n## Next Action\n\n- Ship\n";

    #[test]
    fn finds_a_marked_region_and_its_marker() {
        let d = RegionDoc::parse(DOC).expect("parse");
        assert_eq!(d.regions, vec![Region { role: "agent".into(), start: 4, end: 11, body_end: 10, marked: true }]);
        assert_eq!(d.markers()[0].provider_revision, "sqlite:abc:3");
    }

    #[test]
    fn prose_inside_a_marked_region_is_loopxs_error() {
        let broken = DOC.replace(
            "<!-- loopx:todo-region-v0 role=agent end",
            "typed by hand\n<!-- loopx:todo-region-v0 role=agent end",
        );
        let err = RegionDoc::parse(&broken).expect_err("broken");
        assert_eq!((err.message.as_str(), err.line), ("non-generated content inside marked Todo region", 11));
        let unknown = DOC.replace("todo_id=todo_1 status=open", "mystery=1");
        assert!(RegionDoc::parse(&unknown).is_err(), "a metadata comment with no known key is not generated");
        let unterminated = DOC.replace("<!-- loopx:todo-region-v0 role=agent end -->\n", "");
        assert!(RegionDoc::parse(&unterminated).is_err());
    }

    #[test]
    fn an_unmarked_bootstrap_heading_is_a_region_up_to_the_first_prose() {
        let d = RegionDoc::parse("# T\n\n## Agent Todo\n\n## Next Action\n").expect("parse");
        assert_eq!(d.regions[0], Region { role: "agent".into(), start: 2, end: 4, body_end: 4, marked: false });
    }

    #[test]
    fn whitespace_is_pythons() {
        // U+001F is whitespace to Python's strip() and \s, not to Rust's.
        let extra = DOC.replace("## Next Action\n", "## Agent Todo\u{1f}\n## Next Action\n");
        assert_eq!(
            RegionDoc::parse(&extra).expect_err("dup").message,
            "active Markdown contains multiple agent Todo sections"
        );
        let ghost = DOC.replace("- Ship\n", "- Ship\n- [ ]\u{1f}ghost\n");
        assert_eq!(RegionDoc::parse(&ghost).expect("parse").todo_lines_outside().len(), 1);
    }

    #[test]
    fn fenced_code_hides_headings() {
        let d = RegionDoc::parse("```\n## Agent Todo\n```\n").expect("parse");
        assert!(d.regions.is_empty());
    }

    #[test]
    fn ghost_ids_are_read_outside_regions_only() {
        let text = format!("{DOC}- [ ] Ghost\n  <!-- loopx:todo todo_id=todo_ghost status=open -->\n");
        let d = RegionDoc::parse(&text).expect("parse");
        assert_eq!(d.todo_ids_outside(), vec![(14, "todo_ghost".to_owned())]);
    }
}
