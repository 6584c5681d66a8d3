//! The public texts that wear a private document's shape (issue 16, fourteenth and
//! fifteenth rounds): a public body's minutes, a message to a crowd, a published
//! postmortem, a classification guide, fiction's and a column's letters. Their shapes are
//! dropped before the text's content is judged ([`drop_public_shapes`]).

use super::{MAX_BYTES, roles, secret_kept, words};
use crate::scan::Hit;

/// Whether `text` is a passage of fiction or a published readers' letter: its last line
/// gives its source in a novel, story collection or advice column
/// ([`words::FICTION_SOURCE`]), or it holds two of a screenplay's scene headings or a
/// heading and a transition ([`words::SCENE_HEADING`], [`words::SCENE_TRANSITION`]).
fn is_fiction(text: &str) -> bool {
    let last_line = text.trim_end().rsplit('\n').next().unwrap_or_default();
    let scenes = words::SCENE_HEADING.find_iter(text).take(2).count();
    text.len() <= MAX_BYTES
        && (words::FICTION_SOURCE.is_match(last_line)
            || scenes >= 2
            || (scenes == 1 && words::SCENE_TRANSITION.is_match(text)))
}

/// Whether `text` is the minutes of a public body's meeting ([`roles::PUBLIC_BODY`]) with no
/// words keeping it from others: the minutes' shape then marks no private document.
#[must_use]
pub(super) fn is_public_minutes(text: &str) -> bool {
    text.len() <= MAX_BYTES && roles::PUBLIC_BODY.is_match(text) && !secret_kept(text)
}

/// Drops from `hits` the document shapes that a public text wears too: a public body's
/// minutes ([`is_public_minutes`]: `meeting_minutes`, `document_title`), and a message to a
/// crowd or a published postmortem ([`roles::BROADCAST`]: `email_headers`,
/// `email_reply_quote`, `postmortem_sections`) with no words keeping it from others, and the
/// `confidential_marking` of a guide defining three classification levels or more
/// ([`roles::LEVEL_DEFINED`]), and the letter and e-mail shapes of fiction or a column's
/// readers' letters ([`is_fiction`]). The text's content is then judged as any text's is.
pub(in crate::scan) fn drop_public_shapes(text: &str, hits: &mut Vec<Hit>) {
    let minutes = |h: &Hit| matches!(h.rule.id, "meeting_minutes" | "document_title");
    if hits.iter().any(minutes) && is_public_minutes(text) {
        hits.retain(|h| !minutes(h));
    }
    let sent = |h: &Hit| matches!(h.rule.id, "email_headers" | "email_reply_quote" | "postmortem_sections");
    if hits.iter().any(sent) && text.len() <= MAX_BYTES && roles::BROADCAST.is_match(text) && !secret_kept(text) {
        hits.retain(|h| !sent(h));
    }
    // Fiction's letters and e-mails, and a column's readers' letters ([`is_fiction`]): their
    // shapes mark no private document; markings, identifiers and the content are still
    // judged (a citation added under a real memo quiets its letter shape, nothing else).
    let letter = |h: &Hit| matches!(h.rule.id, "email_headers" | "email_reply_quote" | "letter_shape" | "hr_review");
    if hits.iter().any(letter) && is_fiction(text) {
        hits.retain(|h| !letter(h));
    }
    let marking = |h: &Hit| h.rule.id == "confidential_marking";
    if hits.iter().any(marking) && text.len() <= MAX_BYTES && roles::LEVEL_DEFINED.find_iter(text).nth(2).is_some() {
        hits.retain(|h| !marking(h));
    }
}
