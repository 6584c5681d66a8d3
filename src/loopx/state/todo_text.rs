//! [`TodoText`]: a todo's normalised text, shared with the state's text where normalising
//! leaves it as the checkbox line has it.

use std::sync::Arc;

/// A todo's normalised text (LoopX's `normalize_todo_text` of its checkbox text and
/// continuation lines). Reads as a `str`. Where the normalised text is a part of the state's
/// own text (a todo without continuation lines whose text is already compact: most todos),
/// it is that part, held by a reference to the shared text and a byte span, not a copy: a
/// state of 350,000 todos held 27 MiB of copies of its own lines. Otherwise it owns its text.
#[derive(Clone)]
pub struct TodoText(Repr);

#[derive(Clone)]
enum Repr {
    /// `src[start..start + len]`.
    Shared {
        src: Arc<String>,
        start: u32,
        len: u32,
    },
    Owned(Box<str>),
}

impl TodoText {
    /// The text `part`, a subslice of `src` (checked: anything else, or an offset past a
    /// `u32`, is copied instead).
    #[must_use]
    pub fn shared(src: &Arc<String>, part: &str) -> Self {
        let start = (part.as_ptr() as usize).wrapping_sub(src.as_ptr() as usize);
        let inside = start.checked_add(part.len()).is_some_and(|end| end <= src.len())
            && src.get(start..start + part.len()).is_some_and(|s| std::ptr::eq(s.as_ptr(), part.as_ptr()));
        match (inside, u32::try_from(start), u32::try_from(part.len())) {
            (true, Ok(start), Ok(len)) => Self(Repr::Shared { src: Arc::clone(src), start, len }),
            _ => Self::from(part),
        }
    }

    /// The text as a `str`.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Shared { src, start, len } => {
                let (start, len) = (*start as usize, *len as usize);
                // Built from a checked subslice, so always in bounds; an empty text otherwise.
                src.get(start..start + len).unwrap_or_default()
            }
            Repr::Owned(text) => text,
        }
    }
}

impl From<String> for TodoText {
    fn from(text: String) -> Self {
        Self(Repr::Owned(text.into_boxed_str()))
    }
}

impl From<&str> for TodoText {
    fn from(text: &str) -> Self {
        Self(Repr::Owned(text.into()))
    }
}

impl std::ops::Deref for TodoText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for TodoText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Display for TodoText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for TodoText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for TodoText {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for TodoText {}

impl PartialEq<str> for TodoText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for TodoText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for TodoText {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_of_the_text_is_shared_and_anything_else_copied() {
        let src = Arc::new("- [ ] Write the report\n".to_owned());
        let shared = TodoText::shared(&src, &src[6..22]);
        assert_eq!(shared, "Write the report");
        assert!(matches!(shared.0, Repr::Shared { .. }));
        assert_eq!(Arc::strong_count(&src), 2);
        let elsewhere = String::from("Write the report");
        let copied = TodoText::shared(&src, &elsewhere);
        assert!(matches!(copied.0, Repr::Owned(_)));
        assert_eq!(copied, shared);
        assert_eq!(format!("{shared} {shared:?}"), "Write the report \"Write the report\"");
    }
}
