//! The block test shared by the scan's byte screens ([`super::disguise`],
//! [`super::invisible`]): a byte-pair test run over whole 64-byte blocks held in fixed-size
//! arrays, so that a branch-free test compiles to vector code, and only the offsets where it
//! holds are visited one by one.

/// Bytes tested at once.
pub(super) const BLOCK: usize = 64;

/// Appends to `out`, in order, every offset `p` in `bytes[from..to]` where
/// `test(bytes[p], next)` holds, `next` being `bytes[p + 1]` (0 past the end; the byte after
/// `to` is read). `screen` is a cheaper test that holds wherever `test` does: a whole block
/// where it holds nowhere is passed over. Both should be branch-free (bitwise) for the block
/// loops to be vector code.
pub(super) fn offsets_where(
    bytes: &[u8],
    (from, to): (usize, usize),
    screen: impl Fn(u8, u8) -> bool,
    test: impl Fn(u8, u8) -> bool,
    out: &mut Vec<usize>,
) {
    let to = to.min(bytes.len());
    let block = |at: usize| bytes.get(at..at + BLOCK).and_then(|b| <&[u8; BLOCK]>::try_from(b).ok());
    let mut base = from;
    while base < to {
        let len = BLOCK.min(to - base);
        match (block(base), block(base + 1)) {
            (Some(here), Some(after)) if len == BLOCK => {
                let mut any = 0u8;
                for i in 0..BLOCK {
                    any |= u8::from(screen(here[i], after[i]));
                }
                if any == 0 {
                    base += len;
                    continue;
                }
                let mut flags = [0u8; BLOCK];
                for i in 0..BLOCK {
                    flags[i] = u8::from(test(here[i], after[i]));
                }
                // Each flag byte is 0 or 1: a word's lowest set bit is its first flag.
                for (j, word) in flags.chunks_exact(8).enumerate() {
                    let mut w = u64::from_le_bytes(<[u8; 8]>::try_from(word).unwrap_or_default());
                    while w != 0 {
                        out.push(base + j * 8 + (w.trailing_zeros() / 8) as usize);
                        w &= w - 1;
                    }
                }
            }
            _ => {
                let next = |i: usize| bytes.get(i + 1).copied().unwrap_or(0);
                out.extend((base..base + len).filter(|&p| test(bytes[p], next(p))));
            }
        }
        base += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The block loop finds exactly the offsets a byte-by-byte filter finds, for any range.
        #[test]
        fn finds_what_a_plain_filter_finds(
            bytes in proptest::collection::vec(proptest::prop_oneof![
                proptest::prelude::Just(b'"'), proptest::prelude::Just(b' '), proptest::prelude::Just(b'a'),
                proptest::prelude::Just(0xE2u8), proptest::prelude::Just(0x80u8), proptest::prelude::any::<u8>(),
            ], 0..400),
            from in 0usize..400,
            len in 0usize..400,
        ) {
            let test = |b: u8, n: u8| (u8::from(b == b'"') & u8::from(n == b' ')) | (u8::from(b == 0xE2) & u8::from(n == 0x80)) != 0;
            let from = from.min(bytes.len());
            let to = (from + len).min(bytes.len());
            let mut got = Vec::new();
            offsets_where(&bytes, (from, to), |b, _| b == b'"' || b == 0xE2, test, &mut got);
            let want: Vec<usize> = (from..to).filter(|&p| test(bytes[p], bytes.get(p + 1).copied().unwrap_or(0))).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}
