//! The last step of parsing a todo ([`finish_todo`]), and the generated ids a parse can take
//! from the state its text was made from ([`KnownIds`]).

use super::{IdSource, Role, Todo, build_todo_id, priority_split, span_in};
use crate::loopx::pytext::py_strip;

/// The todos of a state by (slot, index): slot 0 user, 1 agent, 2 archive (the counters
/// [`build_todo_id`]'s index comes from), each slot's todos in order.
pub(super) struct KnownIds<'a> {
    slots: [Vec<&'a Todo>; 3],
}

impl<'a> KnownIds<'a> {
    /// The generated-id todos of `state`, by slot and index.
    pub(super) fn of(state: &'a super::ActiveState) -> Self {
        let mut slots: [Vec<&Todo>; 3] = [Vec::new(), Vec::new(), Vec::new()];
        for t in &state.todos {
            slots[slot(t)].push(t);
        }
        Self { slots }
    }

    /// The id `todo` would get from [`build_todo_id`], when a known todo had the same
    /// inputs (role, source section, index, text) and a generated id.
    fn id_for(&self, todo: &Todo) -> Option<&'a compact_str::CompactString> {
        let k = self.slots[slot(todo)].get(todo.index.checked_sub(1)?)?;
        let same = k.todo_id_source == IdSource::Generated
            && k.index == todo.index
            && k.role == todo.role
            && k.source_section == todo.source_section
            && k.text == todo.text;
        same.then_some(&k.todo_id)
    }
}

/// The counter a todo's index is taken from (as the parse counts them).
fn slot(t: &Todo) -> usize {
    if t.archived { 2 } else { t.role.map_or(2, |r| r as usize) }
}

/// Works out what a todo's lines leave open: status, done, title span and id.
pub(super) fn finish_todo(todo: &mut Todo, known: Option<&KnownIds<'_>>) {
    let explicit = todo.metadata.text_ref("status");
    let marker_status = match todo.marker {
        'x' | 'X' => "done",
        '-' => "deferred",
        _ => "open",
    };
    todo.status = match explicit {
        Some("done") => "done",
        Some("blocked") => "blocked",
        Some("deferred") => "deferred",
        // `normalize_status` keeps only the four; "open" is the fourth.
        Some(_) => "open",
        None => marker_status,
    };
    todo.done = if explicit.is_some() { matches!(todo.status, "done" | "deferred") } else { marker_status != "open" };
    if let Some((_, title)) = priority_split(&todo.text) {
        todo.title_at = span_in(&todo.text, py_strip(title));
    } else {
        todo.title_at = span_in(&todo.text, &todo.text);
    }
    if let Some(id) = todo.metadata.text_ref("todo_id") {
        todo.todo_id = id.into();
        todo.todo_id_source = IdSource::Metadata;
    } else {
        todo.todo_id = if let Some(id) = known.and_then(|k| k.id_for(todo)) {
            id.clone()
        } else {
            let role = todo.role.map_or("", Role::as_str);
            build_todo_id(role, &todo.source_section, todo.index, &todo.text).into()
        };
    }
}
