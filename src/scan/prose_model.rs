//! Private prose by weight (issue 16): a linear model over the words and letter groups of
//! a text, for the private documents whose language or wording the counted shapes of
//! [`super::dossier`] do not know (a sick note in Finnish, a disciplinary letter in Thai).
//! It is consulted only where no private-document rule or threshold fired, on a text of
//! [`MIN_BYTES`]..=[`super::dossier::MAX_BYTES`], LoopX state lines left out.
//!
//! Features ([`features`]): each lower-cased word and each word pair, the letter trigrams
//! and four-letter groups of each word (with its ends marked), letter unigrams and bigrams
//! of scripts written without spaces (Han, kana, Thai and their neighbours), the first word
//! of every line, number shapes (`14.07.1951` → `00.00.0000`) and symbols (`€`, `§`, `>`);
//! and the dossier's counted shapes as named signals (`people>=2`, `secrecy`, `letter`:
//! [`with_signals`]). Each is hashed into one of [`BUCKETS`] slots; a text is the set of its
//! slots, each worth 1/√n.
//!
//! The weights (`prose_model.bin`) are learned by logistic regression on the labelled
//! cases of `fixtures/scan_corpus/` (every part but the ones held out for a blind score)
//! and the LoopX samples' files; the trainer is `prose_model_train.rs`, and a
//! test retrains and checks that the committed file is exactly what it gives.

use super::rules::{Check, Rule};

/// Hash slots: 2^19.
pub const BUCKETS: usize = 1 << 19;

/// The file: the bias (f32, little-endian), the weight unit (f32, LE), then one signed
/// byte per slot (weight = byte × unit).
const WEIGHTS: &[u8; 8 + BUCKETS] = include_bytes!("prose_model.bin");

/// The logit at or above which a text is a private document: set from the trainer's
/// leave-one-part-out runs, where 3 of 2,450 left-out negatives (short stories) reach it
/// (README, "Sixth round").
pub const THRESHOLD: f32 = 2.5;

/// The fewest distinct features a text needs to be judged (a few words are no document).
pub const MIN_FEATURES: usize = 40;

/// The fewest bytes a text needs to be judged (blanks around it not counted): shorter than
/// the counted shapes' [`super::dossier::MIN_BYTES`], as a sick note of two sentences is.
pub const MIN_BYTES: usize = 100;

/// The finding's rule: reported like the table's rows.
pub static PRIVATE_PROSE_WEIGHED: Rule = Rule {
    id: "private_prose_weighed",
    category: "private_documents",
    public: "block",
    local: "warn",
    literals: &[],
    pattern: "",
    check: Check::Always,
    what: "a private document body by the weight of its words (a linear model learned from labelled cases); the sample starts at its weightiest word",
    hit: "Hi Tom, quick heads-up before Friday: Priya's doctor signed her off for another four weeks (stress), so she won't be back for the launch. HR says her probation review is postponed, and please keep the reason to yourself, she asked us not to tell the team.",
    miss: "The parser now keeps the todo's metadata when a line is renamed; tests cover the Finnish and Thai fixtures too, and the snapshots were regenerated from LoopX 2.1.1 output before the release.",
};

/// One feature: its slot and the byte offset where it first occurs in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Feature {
    /// Slot in 0..[`BUCKETS`].
    pub slot: u32,
    /// Byte offset of its first occurrence (a character's start); `u32::MAX` for a counted
    /// signal, which has no place.
    pub at: u32,
}

/// Whether `c` belongs to a script written without spaces between words.
fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF | 0x1000..=0x109F | 0x1780..=0x17FF | 0x3040..=0x30FF | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF | 0xF900..=0xFAFF)
}

/// Whether `c` continues a word of a spaced script (letters, and the vowel signs and
/// viramas of Indic scripts that are not `alphabetic`).
fn word_char(c: char) -> bool {
    c.is_alphabetic() || matches!(c as u32, 0x0900..=0x0DFF | 0x0591..=0x05C7 | 0x064B..=0x065F)
}

/// FNV-1a over a kind byte then the feature's bytes, fed in pieces, with a final mix.
#[derive(Clone, Copy)]
struct Fnv(u32);

impl Fnv {
    fn new(kind: u8) -> Self {
        Fnv((0x811c_9dc5 ^ u32::from(kind)).wrapping_mul(0x0100_0193))
    }

    fn write(mut self, bytes: &[u8]) -> Self {
        for &b in bytes {
            self.0 = (self.0 ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
        self
    }

    /// The slot: the mixed hash's low bits.
    fn slot(self) -> u32 {
        let mut h = self.0;
        h ^= h >> 15;
        h = h.wrapping_mul(0x2c1b_3c6d);
        h ^= h >> 12;
        h & (BUCKETS as u32 - 1)
    }
}

/// The slot of the feature `bytes` of `kind`.
fn slot(kind: u8, bytes: &[u8]) -> u32 {
    Fnv::new(kind).write(bytes).slot()
}

/// Feature kinds (the hash's first byte).
mod kind {
    pub const WORD: u8 = b'w';
    pub const PAIR: u8 = b'p';
    pub const TRIGRAM: u8 = b't';
    pub const FOURGRAM: u8 = b'q';
    pub const UNI: u8 = b'u';
    pub const BI: u8 = b'b';
    pub const LINE_HEAD: u8 = b'l';
    pub const NUMBER: u8 = b'n';
    pub const SYMBOL: u8 = b's';
    pub const SIGNAL: u8 = b'x';
}

/// Collects the features of one text, each slot once (at its first occurrence).
struct Collector<'a> {
    out: Vec<Feature>,
    /// One bit per slot: already collected.
    seen: &'a mut [u64],
    /// The current word, lower-cased, and its start.
    word: String,
    word_at: usize,
    /// The previous word of the same clause, for pairs.
    previous: String,
    /// The current word with its ends marked (`<word>`) and its characters' starts.
    marked: String,
    starts: Vec<usize>,
    /// The previous unspaced letter and its offset.
    last_unspaced: Option<(char, usize)>,
    /// The current number's shape and start.
    number: String,
    number_at: usize,
    /// Whether the next word opens its line.
    line_head: bool,
}

/// Adds `slot` at `at` to `out` unless `seen` has it already, and marks it seen.
fn add(seen: &mut [u64], out: &mut Vec<Feature>, slot: u32, at: usize) {
    let (word, bit) = ((slot >> 6) as usize, 1u64 << (slot & 63));
    if seen[word] & bit == 0 {
        seen[word] |= bit;
        out.push(Feature { slot, at: at.min(u32::MAX as usize) as u32 });
    }
}

impl Collector<'_> {
    fn push_slot(&mut self, slot: u32, at: usize) {
        add(self.seen, &mut self.out, slot, at);
    }

    fn push(&mut self, kind: u8, bytes: &[u8], at: usize) {
        self.push_slot(slot(kind, bytes), at);
    }

    fn end_word(&mut self) {
        if self.word.is_empty() {
            return;
        }
        let at = self.word_at;
        if self.word.len() <= 48 {
            let word = Fnv::new(kind::WORD).write(self.word.as_bytes()).slot();
            self.push_slot(word, at);
            if self.line_head {
                let head = Fnv::new(kind::LINE_HEAD).write(self.word.as_bytes()).slot();
                self.push_slot(head, at);
            }
            if !self.previous.is_empty() {
                let pair = Fnv::new(kind::PAIR).write(self.previous.as_bytes()).write(b" ").write(self.word.as_bytes());
                self.push_slot(pair.slot(), at);
            }
        }
        self.marked.clear();
        self.marked.push('<');
        self.marked.push_str(&self.word);
        self.marked.push('>');
        self.starts.clear();
        self.starts.extend(self.marked.char_indices().map(|(i, _)| i));
        self.starts.push(self.marked.len());
        for (kind, n) in [(kind::TRIGRAM, 3), (kind::FOURGRAM, 4)] {
            for i in 0..self.starts.len().saturating_sub(n) {
                let gram = &self.marked.as_bytes()[self.starts[i]..self.starts[i + n]];
                add(self.seen, &mut self.out, slot(kind, gram), at);
            }
        }
        self.line_head = false;
        std::mem::swap(&mut self.previous, &mut self.word);
        self.word.clear();
    }

    fn end_number(&mut self) {
        if self.number.is_empty() {
            return;
        }
        let shape = self.number.trim_end_matches(['.', ',', '/', ':', '-']);
        if shape.len() <= 16 {
            let slot = slot(kind::NUMBER, shape.as_bytes());
            self.push_slot(slot, self.number_at);
        }
        self.number.clear();
        self.line_head = false;
    }

    fn unspaced_letter(&mut self, c: char, at: usize) {
        let mut buf = [0u8; 8];
        let n = c.encode_utf8(&mut buf).len();
        self.push(kind::UNI, &buf[..n], at);
        if let Some((p, p_at)) = self.last_unspaced {
            let m = p.encode_utf8(&mut buf).len();
            let n = c.encode_utf8(&mut buf[m..]).len();
            self.push(kind::BI, &buf[..m + n], p_at);
        }
        self.last_unspaced = Some((c, at));
        self.line_head = false;
    }
}

/// The word features of `text` (all but the counted signals) without its LoopX state
/// lines, each slot once, in the order first met. Linear in the text; a thread's bitmap of
/// slots (64 KiB) is kept between calls and cleared of what one call set.
#[must_use]
pub fn features(text: &str) -> Vec<Feature> {
    thread_local! {
        static SEEN: std::cell::RefCell<Vec<u64>> = std::cell::RefCell::new(vec![0; BUCKETS / 64]);
    }
    SEEN.with_borrow_mut(|seen| {
        let out = collect(text, seen);
        for f in &out {
            seen[(f.slot >> 6) as usize] = 0;
        }
        out
    })
}

/// [`features`] with `seen` as the bitmap of slots collected (all clear on entry).
fn collect(text: &str, seen: &mut [u64]) -> Vec<Feature> {
    let mut c = Collector {
        out: Vec::with_capacity(text.len()),
        seen,
        word: String::new(),
        word_at: 0,
        previous: String::new(),
        marked: String::new(),
        starts: Vec::new(),
        last_unspaced: None,
        number: String::new(),
        number_at: 0,
        line_head: true,
    };
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let base = line_start;
        line_start += line.len();
        if super::dossier::state_line(line) {
            continue;
        }
        c.line_head = true;
        c.previous.clear();
        for (i, ch) in line.char_indices() {
            let at = base + i;
            let digit = ch.is_ascii_digit();
            let in_number = !c.number.is_empty() && matches!(ch, '.' | ',' | '/' | ':' | '-');
            if !digit && !in_number {
                c.end_number();
            }
            if unspaced(ch) {
                c.end_word();
                c.unspaced_letter(ch, at);
                continue;
            }
            c.last_unspaced = None;
            if word_char(ch) {
                if c.word.is_empty() {
                    c.word_at = at;
                }
                if ch.is_ascii() {
                    c.word.push(ch.to_ascii_lowercase());
                } else {
                    c.word.extend(ch.to_lowercase());
                }
                continue;
            }
            c.end_word();
            if digit || in_number {
                if c.number.is_empty() {
                    c.number_at = at;
                }
                c.number.push(if digit { '0' } else { ch });
            } else if !ch.is_whitespace() {
                let mut buf = [0u8; 4];
                c.push(kind::SYMBOL, ch.encode_utf8(&mut buf).as_bytes(), at);
                if !matches!(ch, '-' | '(' | ')' | '"' | '\'' | '’' | '«' | '»' | '“' | '”') {
                    c.previous.clear();
                }
            }
        }
        c.end_word();
        c.end_number();
    }
    c.out
}

/// The slot of a counted signal ([`super::dossier::SIGNALS`]).
fn signal_slot(name: &str) -> u32 {
    slot(kind::SIGNAL, name.as_bytes())
}

/// `words` ([`features`]) with the counted signals of `text` ([`super::dossier::signals`])
/// added, each at offset `u32::MAX` and only when its slot is not taken. What the model
/// reads.
#[must_use]
pub fn with_signals(text: &str, words: &[Feature]) -> Vec<Feature> {
    let mut out = words.to_vec();
    for name in super::dossier::signals(text) {
        let slot = signal_slot(name);
        if !out.iter().any(|f| f.slot == slot) {
            out.push(Feature { slot, at: u32::MAX });
        }
    }
    out
}

/// The committed model's bias and weight unit.
fn header() -> (f32, f32) {
    let f = |i: usize| f32::from_le_bytes([WEIGHTS[i], WEIGHTS[i + 1], WEIGHTS[i + 2], WEIGHTS[i + 3]]);
    (f(0), f(4))
}

/// A slot's weight in units.
fn weight(slot: u32) -> i32 {
    i32::from(WEIGHTS[8 + slot as usize] as i8)
}

/// The logit of `features` under the committed model: bias + unit × Σ weight / √n.
#[must_use]
pub fn logit(features: &[Feature]) -> f32 {
    let (bias, unit) = header();
    let sum: i32 = features.iter().map(|f| weight(f.slot)).sum();
    bias + unit * sum as f32 / (features.len().max(1) as f32).sqrt()
}

/// A private document by weight: the byte offset of its weightiest word feature and the
/// text there (up to 24 characters), or `None` for a text outside the dossier's size range, with
/// fewer than [`MIN_FEATURES`] word features, under [`THRESHOLD`], or reading as a public
/// text ([`super::dossier::reads_public`], as the counted thresholds ask).
#[must_use]
pub(super) fn find(text: &str) -> Option<(usize, String)> {
    if !(MIN_BYTES..=super::dossier::MAX_BYTES).contains(&text.trim().len()) {
        return None;
    }
    let words = features(text);
    if words.len() < MIN_FEATURES {
        return None;
    }
    // The signals are counted only when they could lift the text over the threshold: with
    // every positive one added, the sum is at most `sum + best` over at least n features.
    let (bias, unit) = header();
    let sum: i32 = words.iter().map(|f| weight(f.slot)).sum();
    let best: i32 = super::dossier::SIGNALS.iter().map(|n| weight(signal_slot(n)).max(0)).sum();
    if bias + unit * (sum + best).max(0) as f32 / (words.len() as f32).sqrt() < THRESHOLD {
        return None;
    }
    if logit(&with_signals(text, &words)) < THRESHOLD || super::dossier::reads_public(text) {
        return None;
    }
    let top = words.iter().max_by_key(|f| (weight(f.slot), std::cmp::Reverse(f.at)))?;
    // A word feature's offset is a character's start (`features`).
    let at = top.at as usize;
    let sample: String = text.get(at..)?.chars().take(24).collect();
    Some((at, sample))
}

#[cfg(test)]
#[path = "prose_model_train.rs"]
mod train;
