//! The byte layout [`super::Metadata`] keeps its fields in: one allocation per todo instead of
//! a vector of values each in its own allocation (a state of 350,000 todos held its metadata
//! in about 220 bytes per todo, three times the comment line it came from).
//!
//! Entries follow one another sorted by key position (in [`super::FIELD_ORDER`]), each
//! `[key: u8][kind: u8][length: LEB128][value bytes]`; a kind is [`TEXT`], [`LIST`] (items
//! joined by `,`, which no item holds: they come from splitting on it) or a boolean with no
//! value bytes. The layout has one form per set of fields, so equal metadata is equal bytes.

/// A text value.
pub(super) const TEXT: u8 = 0;
/// A list value, its items joined by `,`.
pub(super) const LIST: u8 = 1;
/// `false`.
pub(super) const FALSE: u8 = 2;
/// `true`.
pub(super) const TRUE: u8 = 3;

/// One entry: key position, kind, value bytes (UTF-8 for text and lists, empty for booleans).
pub(super) type Entry<'a> = (u8, u8, &'a str);

/// The entries of `packed`, in order. Bytes that are not a whole entry (never written by
/// [`encode`]) end the walk.
pub(super) fn entries(packed: &[u8]) -> impl Iterator<Item = Entry<'_>> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let (&key, &kind) = (packed.get(at)?, packed.get(at + 1)?);
        let (len, used) = read_len(packed.get(at + 2..)?)?;
        let start = at + 2 + used;
        let value = std::str::from_utf8(packed.get(start..start.checked_add(len)?)?).ok()?;
        at = start + len;
        Some((key, kind, value))
    })
}

/// The bytes of `entries` (sorted by key, each key once).
pub(super) fn encode<'a>(entries: impl IntoIterator<Item = Entry<'a>>) -> Box<[u8]> {
    let mut out = Vec::new();
    for (key, kind, value) in entries {
        out.extend_from_slice(&[key, kind]);
        let mut len = value.len();
        loop {
            let low = (len & 0x7f) as u8;
            len >>= 7;
            if len == 0 {
                out.push(low);
                break;
            }
            out.push(low | 0x80);
        }
        out.extend_from_slice(value.as_bytes());
    }
    out.into_boxed_slice()
}

/// A LEB128 length and the bytes it took; `None` when cut short or past a `usize`.
fn read_len(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut len = 0usize;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        len |= usize::from(b & 0x7f).checked_shl(7 * u32::try_from(i).ok()?)?;
        if b & 0x80 == 0 {
            return Some((len, i + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest::proptest! {
        #[test]
        fn entries_read_back_what_was_encoded(values in proptest::collection::vec(("[a-z,é ]{0,200}", 0u8..4), 0..6)) {
            let list: Vec<Entry<'_>> =
                values.iter().enumerate().map(|(i, (v, kind))| (i as u8 * 3, *kind, v.as_str())).collect();
            let packed = encode(list.iter().copied());
            prop_assert_eq!(entries(&packed).collect::<Vec<_>>(), list);
        }
    }

    #[test]
    fn a_cut_entry_ends_the_walk() {
        let packed = encode([(0, TEXT, "todo_abc"), (1, TEXT, "open")]);
        assert_eq!(entries(&packed[..packed.len() - 1]).count(), 1);
        assert_eq!(entries(&[]).count(), 0);
    }
}
