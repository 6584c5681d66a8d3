//! Judging the value of a secret named only generically (issue 16): whether the words or
//! the token after `passphrase:`, `salt`, `master key`, `seed` are a secret's value or
//! prose ([`is_secret_value`], [`describes_its_label`]), and whether a seed's words are a
//! wallet's ([`is_seed_words`]).

use super::values::{is_documentation_example, is_our_id, is_reference_or_placeholder, is_sequential, looks_random};

/// Small words of English prose that a generated passphrase does not hold: a value of
/// blank-separated words with one of them is a sentence ([`is_secret_value`]).
const PROSE_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "for", "to", "of", "in", "on", "at", "by", "with", "from", "into", "then",
    "than", "we", "you", "they", "it", "is", "are", "was", "be", "been", "this", "that", "these", "every", "each",
    "all", "per", "not", "no", "our", "your", "their", "before", "after", "when", "if", "as", "so",
];

/// Whether `v` runs on as CJK prose (written without blanks, so a whole clause reads as
/// one value after `パスワードは`): it holds a full stop, a comma or a bracket of CJK text
/// (`。` `、` `，` `「` `（`).
fn is_cjk_sentence(v: &str) -> bool {
    v.contains(['。', '、', '，', '「', '」', '（', '）'])
}

/// [`super::rules::Check::SecretValue`]: whether `v`, given as a generically named secret's
/// value, is one: random-looking, one token of 8 or more letters and digits
/// ([`is_letters_and_digits`]), 12 or more hex digits (blanks and dashes between groups
/// allowed), or three or more words of two or more lower-case letters or digits joined by
/// `-`, `_`, `.` or blanks, 12 characters or more in all (`such as Mr` is prose; blanks
/// between words none of which is a small word of prose, `PROSE_WORDS`), or four or
/// more capitalised words or numbers apart by blanks, none of them a title's small word
/// (`Lumen Fjord Otter 2291`, not `Managed By The Platform Team`); never a reference or
/// placeholder, nor a small hex number (`0x5EED1234`), nor CJK prose ([`is_cjk_sentence`]);
/// or three or more words in quotes (12 characters or more), as `generic_secret` captures
/// them after `passphrase is` or `passphrase:`.
#[must_use]
pub fn is_secret_value(v: &str) -> bool {
    const SMALL: &[&str] =
        &["A", "An", "And", "As", "At", "By", "For", "From", "In", "Is", "Of", "On", "Or", "The", "To", "With"];
    // Three or more lower-case words in quotes right after `passphrase is` or `passphrase:`
    // (`generic_secret` captures the quotes only there): a passphrase quoted as one, small
    // words of prose and all (`"copper mill at dusk"`, `“…”`, `„…“`, `'…'`, `«…»`).
    const OPEN: &[char] = &['"', '\'', '“', '„', '`', '«'];
    const CLOSE: &[char] = &['"', '\'', '”', '“', '`', '»'];
    if let Some(quoted) = v.strip_prefix(OPEN).and_then(|q| q.strip_suffix(CLOSE)).map(str::trim) {
        let words = quoted.split([' ', '\t']).filter(|w| !w.is_empty()).count();
        if words >= 3 && quoted.len() >= 12 && !is_reference_or_placeholder(quoted) {
            return true;
        }
    }
    let v = v.trim_matches(|c| c == '\'' || c == '"');
    if is_reference_or_placeholder(v) || is_small_hex_number(v) || is_cjk_sentence(v) {
        return false;
    }
    let hex: String = v.chars().filter(|c| !matches!(c, ' ' | '-')).collect();
    if hex.len() >= 12 && hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return true;
    }
    let words: Vec<&str> = v.split(['-', '_', '.', ' ']).filter(|w| !w.is_empty()).collect();
    let passphrase = words.len() >= 3
        && v.chars().count() >= 12
        && words.iter().all(|w| w.len() >= 2 && w.chars().all(|c| c.is_ascii_alphanumeric()))
        // Words apart by blanks are prose unless all lower case (`such as Mr` is prose) and
        // free of prose's small words (`required for every export`, `we load the fixtures`);
        // joined by `-`, `_` or `.` they are one token (`tundra-Maple-88-lantern`).
        && (!v.contains(' ')
            || (v.chars().all(|c| c == ' ' || c.is_ascii_lowercase() || c.is_ascii_digit())
                && !words.iter().any(|w| PROSE_WORDS.contains(w))));
    // Four or more capitalised words or numbers apart by blanks (`Lumen Fjord Otter 2291`):
    // prose after `is` goes on in lower case, and a title (`Managed By The Platform Team`)
    // holds the small words a generated passphrase does not.
    let title_words = words.len() >= 4
        && !v.contains(['-', '_', '.'])
        && words.iter().all(|w| {
            w.chars().all(|c| c.is_ascii_alphanumeric())
                && w.chars().next().is_some_and(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
                && !SMALL.contains(w)
        });
    // Words apart by blanks are judged as words only: a sentence has the letter classes
    // and the entropy of a random token.
    passphrase || title_words || (!v.contains([' ', '\t']) && (looks_random(v) || is_letters_and_digits(v)))
}

/// Whether a generically named secret's `value` of blank-separated words repeats a word
/// of 4 letters or more from its label (`matched`, the whole match): it describes the
/// thing named (`Pepper: freshly ground black pepper`, `Salt: coarse sea salt`) rather than
/// being a passphrase (`GPG key passphrase: pepper drama sunset crater` repeats none).
#[must_use]
pub fn describes_its_label(matched: &str, value: &str) -> bool {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() >= 4).map(str::to_lowercase).collect()
    };
    let label = matched.replacen(value, " ", 1);
    let label = words(&label);
    value.contains([' ', '\t']) && words(value).iter().any(|w| label.contains(w))
}

/// An integer literal of code written in hex, `0x` and 1 to 16 digits (`random seed:
/// 0x5EED1234`): a number of 64 bits at most, not a key (a key in hex is longer, and 12 or
/// more bare hex digits still count).
fn is_small_hex_number(v: &str) -> bool {
    v.strip_prefix("0x")
        .or_else(|| v.strip_prefix("0X"))
        .is_some_and(|h| (1..=16).contains(&h.len()) && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A named secret's single-token value of 8 or more characters mixing letters and digits
/// (`ywfdjw297tilw`, `harbor-9808`): a typed passphrase is rarely random enough for
/// [`looks_random`] and often shaped like a name with a number, which is why this holds only
/// after a secret's name. Not an id of ours, a published example or a run of characters in
/// order; no `/` or `:` (a path or URL), no letters-only or digits-only word.
fn is_letters_and_digits(v: &str) -> bool {
    v.chars().count() >= 8
        // `0x5EED1234`: a number in hex (a random generator's seed), not a typed secret.
        && !v.starts_with("0x")
        && v.bytes().any(|b| b.is_ascii_alphabetic())
        && v.bytes().any(|b| b.is_ascii_digit())
        && v.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.!#$%&*+=?@^~".contains(&b))
        && !is_our_id(v)
        && !is_documentation_example(v)
        && !is_sequential(v)
}

/// [`super::rules::Check::SeedWords`]: whether `matched` (a `seed_phrase` match) with its
/// captured `value` is a wallet seed. Under an English label (the match opens with `cipher`,
/// `seed`, `recovery`, `mnemonic`, `backup` or `wallet`, case ignored) the value must be 12 to 24 words,
/// at most one in six outside BIP-39's English list (the `bip39` crate's copy; numbers and
/// separators between them are skipped; a seed copied by hand may carry a misspelt word),
/// or one in three under a label that names a seed (`cipher`, `seed`, `mnemonic`, or a
/// label holding `phrase`, `words` or `wallet`: a seed written out from memory or in another
/// wallet's list; one in two when none of the words is one prose needs, `PROSE_WORDS`),
/// at least half of them different
/// (not the test vector `abandon … about`): prose after `Backup plan:` uses words such as
/// `the` and `we` that the list leaves out. Any other match (a label in another language,
/// LND's `BEGIN LND CIPHER SEED` banner) is judged by its pattern alone.
#[must_use]
pub fn is_seed_words(matched: &str, value: &str) -> bool {
    /// Words an English sentence of a dozen words seldom goes without.
    #[rustfmt::skip]
    const PROSE_WORDS: &[&str] = &[
        "the", "and", "for", "with", "that", "this", "from", "into", "then", "than", "are", "was", "were", "have",
        "has", "not", "but", "you", "your", "our", "its", "will", "can", "should", "must", "when", "which", "each",
        "only", "also", "use", "after", "before", "there", "they", "them", "what",
    ];
    const ENGLISH_LABELS: &[&str] = &["cipher", "seed", "recovery", "mnemonic", "backup", "wallet"];
    let head = matched.get(..8.min(matched.len())).unwrap_or_default().to_ascii_lowercase();
    if !ENGLISH_LABELS.iter().any(|l| head.starts_with(l)) {
        return true;
    }
    let words: Vec<String> = value
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let outside = words.iter().filter(|w| bip39::Language::English.find_word(w).is_none()).count();
    // BIP-39's published test vectors repeat a word (`abandon` eleven times, then `about`);
    // a generated seed seldom repeats one.
    let mut distinct = words.clone();
    distinct.sort_unstable();
    distinct.dedup();
    // A label naming a seed (`cipher seed`, `mnemonic`, a `recovery phrase`, a wallet's
    // `recovery words`) vouches for more words outside the list than a bare `recovery:`.
    let label = matched.find(value).map_or(matched, |i| &matched[..i]).to_ascii_lowercase();
    let named = ["cipher", "seed", "mnemonic"].iter().any(|l| head.starts_with(l))
        || ["phrase", "words", "wallet"].iter().any(|w| label.contains(w));
    // Under such a label, a list with no word prose cannot do without (`the`, `and`, …)
    // is read as a seed from another list (Monero's, Electrum's old one) when half its
    // words are BIP-39's.
    let allowed = match (named, words.iter().any(|w| PROSE_WORDS.contains(&w.as_str()))) {
        (true, false) => words.len() / 2,
        (true, true) => words.len() / 3,
        (false, _) => words.len() / 6,
    };
    (12..=24).contains(&words.len()) && outside <= allowed && distinct.len() * 2 >= words.len()
}
