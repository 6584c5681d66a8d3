//! Private prose (issue 16): the body of a private document that has no marking, header or
//! section line of its own — a letter, minutes, a contract or lease extract, an appraisal,
//! an incident write-up — told by what such a body is made of rather than by a keyword:
//! people named with a title or a role, sums of money and dates, and personal or
//! undisclosed matters, all in one text. The seeds exclude "private document bodies" from
//! payloads; the table's document rules ([`super::rules`]) catch the shapes with a marking
//! or a structure, this catches the rest.
//!
//! It looks at one text (a JSON string, the added lines, a scanned file) of
//! [`MIN_BYTES`]..=[`MAX_BYTES`]: a document pasted into a payload is that size, and a
//! larger text is a state or a log, whose names and figures are spread over many unrelated
//! lines. A LoopX state's own lines (todo lines, their metadata, headings) do not count.

use super::rules::{Check, Rule};
use regex::Regex;
use std::sync::LazyLock;

/// The fewest bytes a text needs to be judged (a sentence with a name and a sum is not a
/// document).
pub const MIN_BYTES: usize = 160;

/// The most bytes a text may have to be judged.
pub const MAX_BYTES: usize = 64 * 1024;

/// The finding's rule: not in the rule table (it is not one regex), reported like its rows.
pub static PRIVATE_PROSE: Rule = Rule {
    id: "private_prose",
    category: "private_documents",
    public: "block",
    local: "warn",
    literals: &[],
    pattern: "",
    check: Check::Always,
    what: "a private document body without a marking or header: people named with a title or role, sums or dates, and a personal or undisclosed matter in one text",
    hit: "Dear Dr. Castellanos,\nRe: Mrs. Evelyn Marsh, DOB 14/07/1951, seen on 3 March 2024. She asked that her daughter not be told.",
    miss: "Dr. Castellanos reviewed the parser on 14 July 2024.",
};

/// People: a title before a capitalised name (`Mr. Yeo`, `Dr. Farah Nazari`, `Frau
/// Kessler`, `M. Julien Favre`), a full name with a role in brackets (`Kaisa Lehtonen
/// (Chair)`), a role label before a full name (`Lead auditor: Grace Liang`), a list of three
/// or more full names, or a CJK name with an honorific (`中村様`, `王晓红处`).
static PEOPLE: LazyLock<Regex> = LazyLock::new(|| {
    let name = r"[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ'’-]+";
    let full = format!(r"(?:{name}|[A-ZÀ-ÖØ-Þ]\.)(?: (?:de |van |von |da |di )?{name}){{1,2}}");
    Regex::new(&format!(
        r"(?-u:\b)(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Professor|Rev|Sir|Dame|Herr|Frau|Mme|Mlle|Sra|Srta|Sr|Dña|Don)\.? (?:[A-Z]\. )?{name}|(?-u:\b)M\. {name}|(?-u:\b)[A-Z]\. {name}(?-u:\b)|(?-u:\b)M\. {full}|(?-u:\b){full} \((?:[A-Z]{{2,5}}|Chair|Chairman|Chairwoman|Chairperson|Secretary|Treasurer|Director|Manager|counsel|notes|minutes)(?-u:\b)|(?:Name|Employee|Manager|Reviewer|Author|Prepared by|Lead auditor|Auditor|Chair|Attendees|Present|Participants|Guarantor|Mitarbeiter(?:in)?|Führungskraft|Verfasser(?:in)?|Asistentes|Présents|Interviewer|Candidate|Patient)[ \t]*:[ \t]*{full}(?:, {full})*|(?-u:\b){full}, {full}(?:, {full})+|\({full}\)|(?-u:\b){full} \((?:[^)\n]{{2,40}})\)|(?-u:\b){full} (?:had|has|have|will|was|is|[a-z]{{2,}}(?:ed|es|s))(?-u:\b)|[\p{{Han}}]{{1,4}}(?:様|さん|先生|課長|部長|社長|经理|女士|总监)"
    ))
    .expect("the people pattern compiles")
});

/// Sums of money (`USD 2,180`, `£2.84m`, `SEK 3,450,000`, `48億円`, `860万元`) and dates
/// (`14 November 2023`, `March 20, 2024`, `2024-02-19`, `14/07/1951`, `12.02.2024`,
/// `2024年5月10日`).
static FIGURES: LazyLock<Regex> = LazyLock::new(|| {
    let month = "(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|Januar|Februar|März|Juni|Juli|Oktober|Dezember)";
    Regex::new(&format!(
        r"(?:(?-u:\b)(?:USD|EUR|GBP|CHF|SEK|NOK|DKK|AUD|CAD|NZD|SGD|HKD|JPY|CNY|RMB|INR|ZAR|BRL|MXN|PLN|AED)|[£$€¥₹])[ \t]?\d[\d,.]*(?:[ \t]?(?:k|K|m|M|bn|BN|million|billion|Mio\.?|Mrd\.?))?(?-u:\b)|(?-u:\b)\d[\d,.]*[ \t]?(?:k|m|bn|million|billion)?[ \t]?(?:USD|EUR|GBP|CHF|SEK|NOK|AUD|CAD|SGD|ZAR|€|£)(?:(?-u:\b)|\s|$)|\d[\d,.]*(?:万|億|亿)?(?:円|元|ウォン|원)|(?-u:\b)\d{{1,3}}(?:[ \u{{a0}}\u{{202f}}]\d{{3}})+(?:,\d+)?[ \u{{a0}}\u{{202f}}]?(?:€|£|\$|EUR|CHF)|(?-u:\b)\d[\d,.]*[ \t]?(?:millones de |millions d'|million |Millionen |mil )?(?:euros?|dollars?|livres|francs?|pesos|yens?)(?-u:\b)|(?-u:\b)\d{{1,2}}(?:st|nd|rd|th)?\.? (?:de )?{month}(?: de)? \d{{4}}(?-u:\b)|(?-u:\b){month} \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}(?-u:\b)|(?-u:\b)(?:19|20)\d\d-[01]\d-[0-3]\d(?-u:\b)|(?-u:\b)[0-3]?\d[/.][01]?\d[/.](?:19|20)\d\d(?-u:\b)|(?:19|20)\d\d年\d{{1,2}}月(?:\d{{1,2}}日)?"
    ))
    .expect("the figures pattern compiles")
});

/// Personal or undisclosed matters: pay, health, discipline, departures, disputes, deals,
/// and the words that keep a text from others (`don't tell the team yet`, `not yet
/// announced`, `for the Audit Committee only`), in English, German, French, Spanish,
/// Japanese and Chinese.
static MATTERS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?im)^(?:Dear|Hi|Hello|Hallo|Liebe|Lieber|Sehr geehrte[rs]?|Bonjour|Madame|Monsieur|Hola|Estimad[oa]) [^\n,:]{2,40}[,:]|(?i)(?-u:\b)(?:salary|salaries|pay rise|bonus|compensation|equity|severance|settlement|redundanc\w*|layoffs?|dismiss\w*|disciplinary|grievance|misconduct|harass\w*|complaint|maternity|paternity|pregnan\w*|sick leave|illness|diagnos\w*|referral|patient|medication|DOB|date of birth|performance improvement|underperform\w*|partially meets|rating|appraisal|resign\w*|terminat\w*|step down|stepping down|acquisition|takeover|divest\w*|term sheet|pre-money|valuation|runway|burn|deficit|lawsuit|litigation|liabilit\w*|indemnit\w*|guarantor|rent|premises|tenant|landlord|licensee|licensor|confidential\w*|contract|penalt\w*|insurance|incident|lender|debt|owes|shares|family|lawyer|health|divorce|custody|fine|regulator|GDPR|IBAN|exposed|leak\w*|breach\w*|retention risk|external offer|rehire|exit interview|promot\w*|PIP|privately|off the record|not been told|not informed|has not been told|keep (?:it|this) (?:that way|quiet|private)|not yet announced|not yet informed|don't tell|do not tell|do not share|don't share|not to be shared|keep (?:it|this) between us|for the [a-z ]{3,30} only|not for release|before (?:it is|it's) announced|Gehalt|Abmahnung|Kündigung|vertraulich|confidencial\w*|confidentiel\w*|discreción|discrétion|Elternzeit|salaire|licenciement|rémunération|salario|despido|indemnización)(?-u:\b)|人事評価|給与|賞与|退職|解雇|内密|口外|薪酬|工资|辞退|不得转发|保密",
    )
    .expect("the matters pattern compiles")
});

/// Words that keep a text from others (`don't tell the team yet`, `not yet announced`,
/// `confidential`, `for the Audit Committee only`, `内密`).
static SECRECY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?-u:\b)(?:confidential\w*|privately|off the record|not been told|not informed|keep (?:it|this) (?:that way|quiet|private|between us)|not yet announced|not yet informed|don't tell|do not tell|do not share|don't share|not to be shared|for the [a-z ]{3,30} only|not for release|before (?:it is|it's) announced|vertraulich|confidencial\w*|confidentiel\w*|riservat[oa]|máxima discreción|discreción|discrétion|Verschwiegenheit|keep (?:the |this |it |that )?[a-z ]{0,30}(?:quiet|under wraps|to yourself)|under wraps|need-to-know|(?:is|are|isn't|aren't|is not|are not) (?:public|announced) yet|(?:not|isn't|hasn't been) (?:yet )?(?:public|announced)|(?:don't|do not|please don't) forward)(?-u:\b)|内密|口外|不得转发|保密",
    )
    .expect("the secrecy pattern compiles")
});

/// Words of a public or made-up text: release notes and credits, a press release, demo,
/// sample or fixture data. Such a text needs words of secrecy ([`SECRECY`]) as well to be
/// judged private: names, sums and matters are what they are made of too.
static PUBLIC_CONTEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?-u:\b)(?:release notes?|changelog|press release|thanks to|contributors?|bug|crash|demo|sample|fixtures?|seed(?:ed)? data|examples?|test data|fictional|synthetic|placeholders?|lorem ipsum|benchmark)(?-u:\b)",
    )
    .expect("the public-context pattern compiles")
});

/// A line of a LoopX state that is not prose: a heading, a todo line, a todo's metadata,
/// frontmatter.
fn state_line(line: &str) -> bool {
    let l = line.trim_start();
    l.starts_with("## ")
        || l.starts_with("- [")
        || l.starts_with("<!-- loopx:")
        || l.starts_with("updated_at:")
        || l.starts_with("goal_id:")
}

/// The salutations [`MATTERS`] reads at a line's start, lower-cased.
const SALUTATIONS: &[&str] = &[
    "dear ",
    "hi ",
    "hello ",
    "hallo ",
    "liebe",
    "sehr geehrte",
    "bonjour ",
    "madame ",
    "monsieur ",
    "hola ",
    "estimad",
];

/// Capitalised words that open a sentence, not a name (`This Agreement is`, `The Supplier
/// shall`): a match of [`PEOPLE`] opening with one names nobody.
fn opens_with_a_function_word(name: &str) -> bool {
    const WORDS: &[&str] = &[
        "This", "The", "That", "These", "Those", "Our", "Your", "Their", "Each", "Every", "Any", "All", "No", "Its",
        "His", "Her", "My", "We", "It", "In", "On", "At", "For", "If", "When", "After", "Before", "A", "An", "Such",
        "Both", "Either", "Neither", "Some", "Other", "Another", "Please", "Next", "Last",
    ];
    let first = name.trim_start_matches('(').split(' ').next().unwrap_or_default();
    WORDS.contains(&first)
}

/// What one text holds: distinct people, figures, matters; and where the first person is.
struct Counts {
    people: usize,
    figures: usize,
    matters: usize,
    /// A letter's salutation opens a line (`Dear Aisha,`, `Madame Lefèvre,`).
    letter: bool,
    first: Option<(usize, String)>,
}

fn count(text: &str) -> Counts {
    let mut people = std::collections::BTreeSet::new();
    let mut figures = std::collections::BTreeSet::new();
    let mut matters = std::collections::BTreeSet::new();
    let mut given = std::collections::BTreeSet::new();
    let mut first = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if !state_line(line) {
            for m in PEOPLE.find_iter(line) {
                first.get_or_insert((at + m.start(), m.as_str().to_owned()));
                // A list (`Present: A B, C D, E F`) names each of its people.
                let names = m.as_str().rsplit_once(':').map_or(m.as_str(), |(_, names)| names);
                people.extend(names.split(", ").map(str::trim).filter(|n| !opens_with_a_function_word(n)));
            }
            given.extend(super::names::given_names(line));
            figures.extend(FIGURES.find_iter(line).map(|m| m.as_str()));
            matters.extend(MATTERS.find_iter(line).map(|m| m.as_str().to_lowercase()));
        }
        at += line.len();
    }
    let letter = matters.iter().any(|m| SALUTATIONS.iter().any(|s| m.starts_with(s)));
    // A given name that starts a person already counted (`Marcus` of `Marcus Feld`) is that
    // person; the others are people of their own.
    let named_apart = given.iter().filter(|g| !people.iter().any(|p: &&str| p.split(' ').next() == Some(**g))).count();
    Counts { people: people.len() + named_apart, figures: figures.len(), matters: matters.len(), letter, first }
}

/// Whether `text` is a fill-in template of a document rather than one: three or more
/// placeholders (`[PARTY A NAME]`, `<name>`, `{{date}}`, `YYYY-MM-DD`, `____`) and no named
/// person, sum or date of its own. The document rules' findings on such a text are dropped
/// (a template with a real name or figure in it is judged as a document).
#[must_use]
pub(super) fn is_template(text: &str) -> bool {
    static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\[[A-Z][A-Z0-9 _/-]{1,30}\]|<[a-z][a-z _-]{1,20}>|\{\{?[A-Za-z_][A-Za-z0-9_ .-]{0,30}\}\}?|(?-u:\b)YYYY-MM-DD(?-u:\b)|_{4,}")
            .expect("the placeholder pattern compiles")
    });
    if text.len() > MAX_BYTES || PLACEHOLDER.find_iter(text).nth(2).is_none() {
        return false;
    }
    let c = count(text);
    c.people == 0 && c.figures == 0
}

/// The private-prose finding of `text`, at its first named person: two or more people, two
/// or more sums or dates and at least one personal or undisclosed matter; or, without sums
/// or dates (a review, a postmortem's timeline), three or more people and three or more
/// distinct matters; or a letter (a salutation opens a line) with two or more sums or dates
/// and two or more matters besides its salutation; or two or more people and words of
/// secrecy ([`SECRECY`]: `keep this between us`, `privately`) with a sum or date or two
/// matters. People are named with a title or a role, as full names in the shapes of
/// [`PEOPLE`], by an initial and a surname, or by a given name alone
/// ([`super::names`]). A text with words of a public or made-up text ([`PUBLIC_CONTEXT`])
/// also needs words of secrecy. `None` for a text outside [`MIN_BYTES`]..=[`MAX_BYTES`] or
/// short of these.
#[must_use]
pub(super) fn find(text: &str) -> Option<(usize, String)> {
    // Blanks around the text do not make it a larger one (padding past the limit).
    if !(MIN_BYTES..=MAX_BYTES).contains(&text.trim().len()) {
        return None;
    }
    let c = count(text);
    // Words of secrecy are looked for only when they decide.
    let secrecy = || SECRECY.is_match(text);
    let found = (c.people >= 2 && c.figures >= 2 && c.matters >= 2)
        || (c.people >= 3 && c.matters >= 3)
        || (c.letter && c.figures >= 2 && c.matters >= 3)
        || (c.people >= 2 && (c.figures >= 1 || c.matters >= 2) && secrecy());
    let found = found && (!PUBLIC_CONTEXT.is_match(text) || secrecy());
    // A letter may name nobody with a title: its finding is then at the text's start.
    found.then(|| c.first.unwrap_or_else(|| (0, text.trim_start().chars().take(24).collect())))
}

/// [`find`] on every string of a JSON document read together, one per line (a document
/// split over `summary`, `evidence` and `next_action`, or over an array of sentences): the
/// hit, at the document's root. `None` when the strings hold more than [`MAX_BYTES`].
pub(super) fn find_in_strings(value: &serde_json::Value) -> Option<super::Hit> {
    let mut joined = String::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::String(s) => {
                if joined.len() + s.len() > MAX_BYTES {
                    return None;
                }
                joined.push_str(s);
                joined.push('\n');
            }
            serde_json::Value::Array(items) => stack.extend(items.iter().rev()),
            serde_json::Value::Object(map) => stack.extend(map.values().rev()),
            _ => {}
        }
    }
    let (_, matched) = find(&joined)?;
    Some(super::Hit { rule: &PRIVATE_PROSE, start: 0, matched, note: " (across the document's strings)" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_hit_is_found_and_its_miss_is_not() {
        let padded = |t: &str| format!("{t}\n{}", "The visit went as planned and nothing else was said. ".repeat(3));
        assert!(find(&padded(PRIVATE_PROSE.hit)).is_some());
        assert!(find(&padded(PRIVATE_PROSE.miss)).is_none());
    }

    #[test]
    fn minutes_with_named_members_sums_and_a_departure_are_private() {
        let t = "Present: Kaisa Lehtonen (Chair), Mikael Virtanen (CEO), Jonas Berg\n\
                 The CFO reported runway of 7.5 months (EUR 1.1m/month) as of 14 November 2023.\n\
                 Ilona Mäkinen will step down from the board at the AGM.";
        let (at, who) = find(t).expect("found");
        assert_eq!((at, who.as_str()), (0, "Present: Kaisa Lehtonen"));
    }

    /// Findings of the document rules and of this one, public policy.
    fn document_rules(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        crate::scan::scan_text(text, "/", crate::scan::Policy::Public, &mut out);
        out.into_iter().filter(|f| f.category == "private_documents").map(|f| f.rule_id).collect()
    }

    #[test]
    fn a_template_of_placeholders_is_not_a_document_but_a_filled_one_is() {
        let template = "MUTUAL NON-DISCLOSURE AGREEMENT\n\nThis Agreement is made on [DATE] between \
                        [PARTY A NAME] (\"Party A\") and [PARTY B NAME] (\"Party B\").\n1.1 The term is [NUMBER] years.";
        assert!(is_template(template));
        assert_eq!(document_rules(template), Vec::<String>::new());
        let filled = template.replace("[DATE]", "3 March 2024").replace("[PARTY A NAME]", "Helix Genomics Inc.");
        assert!(!is_template(&filled), "a real date is no placeholder");
        assert_eq!(document_rules(&filled), ["document_title", "contract_parties"]);
    }

    #[test]
    fn a_policy_naming_a_marking_is_not_a_marked_document() {
        let policy = "Documents marked CONFIDENTIAL or INTERNAL must not be pasted into external tools; ask the owner.";
        assert_eq!(document_rules(policy), Vec::<String>::new());
        let marked = "CONFIDENTIAL\nThe board approved closing the Leeds office by 30 June; 214 roles go.";
        assert_eq!(document_rules(marked), ["confidential_marking"]);
    }

    #[test]
    fn a_document_split_over_a_payload_s_strings_is_read_together() {
        let v = serde_json::json!({
            "summary": "Board call: Dr. Farah Nazari and Mr. Kenneth Yeo agreed the severance terms.",
            "evidence": ["The settlement is EUR 240,000, paid on 30 April 2024.", "Do not share before it is announced."],
            "next_action": "file it"
        });
        let mut out = Vec::new();
        crate::scan::scan_json(&v, "", crate::scan::Policy::Public, &mut out);
        let prose: Vec<_> = out.iter().filter(|f| f.rule_id == "private_prose").collect();
        assert_eq!(prose.len(), 1, "{out:?}");
        assert_eq!((prose[0].location.as_str(), prose[0].severity.as_str()), ("", "block"));
        let body = "Dr. Nazari and Mr. Yeo agreed the EUR 1.1m salary and severance budget on 2024-03-01.\n";
        let padded = format!("{}{}", body.repeat(2), " ".repeat(MAX_BYTES));
        assert!(find(&padded).is_some(), "blanks do not carry a text past the limit");
    }

    #[test]
    fn a_letter_with_sums_and_matters_is_private_though_it_names_nobody_with_a_title() {
        let letter = "Dear Aisha,\n\nWe are pleased to offer you the role from 7 April 2025 at a base salary \
                      of USD 168,000 and a signing bonus of USD 20,000.\n\nKind regards,\nTalent team";
        let (at, _) = find(letter).expect("a letter");
        assert_eq!(at, 0);
        assert!(find(&letter.replace("salary", "budget").replace("bonus", "voucher")).is_none(), "matters needed");
    }

    #[test]
    fn a_state_s_own_lines_and_an_oversized_text_are_not_judged() {
        let todo =
            "- [ ] [P1] Ask Dr. Nazari and Mr. Yeo about the EUR 1.1m salary budget by 2024-03-01 and 2024-04-01\n";
        assert!(find(&todo.repeat(3)).is_none(), "todo lines are not prose");
        let prose =
            "Dr. Nazari and Mr. Yeo agreed the EUR 1.1m salary and severance budget on 2024-03-01 and 2024-04-01.\n";
        assert!(find(&prose.repeat(3)).is_some());
        assert!(find(&prose.repeat(MAX_BYTES / prose.len() + 1)).is_none(), "too large to be one document");
    }
}

#[cfg(test)]
mod given_name_tests {
    use super::*;

    /// People named by a given name alone or by an initial and a surname count, and two of
    /// them with words of secrecy and a sum make a private text; the same names in a
    /// progress note with no secrecy, sum or matter do not.
    #[test]
    fn first_names_with_secrecy_and_a_sum_are_private_and_a_plain_note_is_not() {
        let email = "Hi Marcus,\n\nThanks for the revised numbers. I spoke with Priya this morning and she is \
                     not comfortable signing off until we reconcile the account, 94 days past due on $412,000.\n\n\
                     Can we keep this between us until the board call?\n\nBest,\nDana";
        assert!(find(email).is_some(), "first names, secrecy and a sum");
        let minutes = "Attendees: R. Okafor, L. Brandt and S. Yamamoto discussed the acquisition at $84M, \
                       the severance budget and the settlement; nothing is to be shared before signing, \
                       which is planned for the spring.";
        let c = count(minutes);
        assert!(c.people >= 3, "initials and surnames are people: {}", c.people);
        let note = "Priya and Marcus paired on the parser today; Dana reviewed the change and merged it. \
                    Next: the cache layer, then the docs for the release that comes after the freeze.";
        assert!(find(note).is_none(), "names alone are not a document");
    }

    /// `M. Girard` is a person; `7 842 €` and `14,5 millones de euros` are sums.
    #[test]
    fn french_titles_and_sums_written_in_other_ways_are_read() {
        assert_eq!(count("en présence de M. Girard, le directeur").people, 1);
        assert_eq!(count("une indemnité de 7 842 € et 14,5 millones de euros").figures, 2);
    }
}
