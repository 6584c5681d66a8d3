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
        r"(?-u:\b)(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Professor|Rev|Sir|Dame|Herr|Frau|Mme|Mlle|Sra|Srta|Sr|Dña|Don|Sig|Sig\.ra|Dott|Dott\.ssa|Avv|Pan|Pani|Pana|Dhr|Mevr|Eng|Dra|Me|Maître)\.? (?:[A-Z]\. )?{name}|(?-u:\b)M\. {name}|(?-u:\b)[A-Z]\. {name}(?-u:\b)|(?-u:\b)M\. {full}|(?-u:\b){full} \((?:[A-Z]{{2,5}}|Chair|Chairman|Chairwoman|Chairperson|Secretary|Treasurer|Director|Manager|counsel|notes|minutes)(?-u:\b)|(?:Name|Employee|Manager|Reviewer|Author|Prepared by|Lead auditor|Auditor|Chair|Attendees|Present|Participants|Guarantor|Mitarbeiter(?:in)?|Führungskraft|Verfasser(?:in)?|Asistentes|Présents|Interviewer|Candidate|Patient|Colaborador(?:a)?|Evaluador(?:a)?|Valutatore|Valutatrice|Medewerker|Leidinggevende|Beoordelaar|Employé(?:e)?|Évaluateur|Evaluator|Pracownik|Medarbetare|Çalışan|Funcionári[oa]|Avaliador(?:a)?|Responsável)[ \t]*:[ \t]*{full}(?:, {full})*|(?-u:\b){full}, {full}(?:, {full})+|\({full}\)|(?-u:\b){full} \((?:[^)\n]{{2,40}})\)|(?-u:\b){full} (?:had|has|have|will|was|is|[a-z]{{2,}}(?:ed|es|s))(?-u:\b)|[\p{{Han}}]{{1,4}}(?:様|さん|先生|課長|部長|社長|经理|女士|总监|取締役|専務|常務|会長|係長|主任|氏)|[王李张刘陈杨赵吴徐孙胡郭罗梁宋郑谢韩唐冯董萧曹袁邓傅沈彭吕卢蒋蔡贾魏薛叶潘杜戴汪姜姚谭廖邹熊郝崔邱邵尹黎赖龚](?:总|总监|主任|老师|律师|医生|主管|[\p{{Han}}]{{1,2}}(?:、|，)[王李张刘陈杨赵吴徐孙胡郭罗梁宋郑谢韩唐冯董萧曹袁邓傅沈彭吕卢蒋蔡贾魏薛叶潘杜戴汪姜姚谭廖邹熊郝崔邱邵尹黎赖龚][\p{{Han}}]{{1,2}})|(?:^|[^\p{{Hangul}}])[\p{{Hangul}}]{{3}} ?(?:님|씨|팀장|과장|대리|부장|차장|사장|이사|의장|감사|대표|상무|전무|실장|본부장|변호사|매니저)(?:[^\p{{Hangul}}]|$|께|은|는|이|가|을|를|의|과|와|도)|(?-u:\b){name} [A-Z]\.(?:\s|,|;|$)"
    ))
    .expect("the people pattern compiles")
});

/// Sums of money (`USD 2,180`, `£2.84m`, `SEK 3,450,000`, `48億円`, `860万元`) and dates
/// (`14 November 2023`, `March 20, 2024`, `2024-02-19`, `14/07/1951`, `12.02.2024`,
/// `2024年5月10日`).
static FIGURES: LazyLock<Regex> = LazyLock::new(|| {
    let month = "(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|Januar|Februar|März|Juni|Juli|Oktober|Dezember|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|dezembro|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre|januari|februari|maart|mei|augustus|oktober)";
    Regex::new(&format!(
        r"(?:(?-u:\b)(?:USD|EUR|GBP|CHF|SEK|NOK|DKK|AUD|CAD|NZD|SGD|HKD|JPY|CNY|RMB|INR|ZAR|BRL|MXN|PLN|AED|COP|CLP|ARS|PEN|TRY|VND|IDR|KRW|CZK|HUF|RON|UAH|RUB|SAR|QAR|EGP|MYR|THB|PHP|Rs\.?|Rp|RM)|R\$|[£$€¥₹₺₫₱₽₩])[ \t]?\d[\d,.]*(?:[ \t]?(?:k|K|m|M|bn|BN|million|billion|millioner|miljoner|milhões|millones|milioni|milyon|Mio\.?|Mrd\.?|mln|млн))?(?-u:\b)|(?-u:\b)\d[\d,.]*[ \t]?(?:k|m|M|bn|million|billion|Mio\.?|Mrd\.?|mln\.?|mld\.?|mil\.|miljoonaa|milyon|млн\.?|млрд\.?)?[ \t]?(?:USD|EUR|GBP|CHF|SEK|NOK|AUD|CAD|SGD|ZAR|MSEK|MNOK|MDKK|€|£|kr|zł|PLN|TL|TRY|₺|COP|MXN|BRL|VND|₫|đồng|triệu(?: đồng)?|tỷ|INR|lakh|crore|AED|SAR|EGP|CZK|Kč|HUF|Ft|RON|lei|UAH|RUB|₽|руб|euroa)(?:(?-u:\b)|\s|$)|\d[\d,.]*[ ]?(?:万|億|亿)?(?:円|元|ウォン|원)|(?-u:\b)\d{{1,3}}(?:[ \u{{a0}}\u{{202f}}]\d{{3}})+(?:,\d+)?[ \u{{a0}}\u{{202f}}]?(?:€|£|\$|EUR|CHF)|(?-u:\b)\d[\d,.]*[ \t]?(?:millones de |millions d'|million |Millionen |mil )?(?:euros?|dollars?|livres|francs?|pesos|yens?)(?-u:\b)|(?-u:\b)\d{{1,2}}(?:st|nd|rd|th)?\.? (?:de )?{month}(?: de)? \d{{4}}(?-u:\b)|(?-u:\b){month} \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}(?-u:\b)|(?-u:\b)(?:19|20)\d\d-[01]\d-[0-3]\d(?-u:\b)|(?-u:\b)[0-3]?\d[/.][01]?\d[/.](?:19|20)\d\d(?-u:\b)|(?:19|20)\d\d年\d{{1,2}}月(?:\d{{1,2}}日)?|\d[\d,.]*(?:억|천만|만)? ?원|\d[\d,.]*\s?(?:ريال|درهم|جنيه|دينار|रुपये|रु\.?)|(?:19|20)\d\d년 ?\d{{1,2}}월|\d{{1,2}}月\d{{1,2}}日|(?-u:\b)\d{{1,2}}(?:st|nd|rd|th)? {month}(?-u:\b)|(?-u:\b){month} \d{{1,2}}(?:st|nd|rd|th)?(?-u:\b)"
    ))
    .expect("the figures pattern compiles")
});

/// Sums written with a multiplier and no currency (`420k`, `2.7M`, `1.2bn`), with the word
/// after them: `380k ARR` is money, `32k tokens` is not ([`words::NOT_MONEY`]).
static MULTIPLIED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)\d+(?:[.,]\d+)?(?:k|K|M|bn|mn)(?-u:\b)(?:[ \t]+([A-Za-z]+))?")
        .expect("the multiplied pattern compiles")
});

/// People named by initials in minutes (`JK opened`, `RB disagreed`, `MT to send`): two or
/// three capitals before a verb of speech or an action. Common abbreviations are not people
/// ([`words::NOT_INITIALS`]).
static INITIALS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)([A-Z]{2,3}) (?:said|says|opened|closed|noted|raised|agreed|disagreed|thinks|pointed out|asked|reported|suggested|proposed|confirmed|presented|explained|mentioned|flagged|shared|wants|objected|argued|questioned|will|to (?:follow|send|call|draft|check|review|confirm|share|update|speak|talk|email|contact|own|lead|chase))(?-u:\b)")
        .expect("the initials pattern compiles")
});

/// The word lists below fold case for ASCII letters only (`(?i-u)`): with Unicode case
/// folding, the lazy DFA of a list this long thrashed its cache and fell back to a slower
/// engine, 0.4–1.5 ms per scanned packet (`status` over 1,000 goals took 1.1 s instead of
/// 0.18 s); ASCII folding keeps it at microseconds. Non-ASCII words match as written.
///
/// Personal or undisclosed matters: pay, health, discipline, departures, disputes, deals,
/// and the words that keep a text from others (`don't tell the team yet`, `not yet
/// announced`, `for the Audit Committee only`), in English, German, French, Spanish,
/// Japanese and Chinese; and the fifth round's languages ([`roles::MORE_MATTERS_SRC`]).
static MATTERS: LazyLock<Regex> = LazyLock::new(|| {
    // The words of `roles` follow, with Unicode on for their other scripts' letter classes;
    // then the stems of `matters` in the other languages.
    Regex::new(&format!("{}|(?u-i:{})", words::MATTERS_SRC, roles::MORE_MATTERS_SRC))
        .expect("the matters pattern compiles")
});

/// Matters in about 60 more languages by their stems ([`matters`]): counted for the
/// private-prose model's signals only ([`signals`]), not by the thresholds of [`find`]
/// (public minutes, job adverts and news in those languages name the same matters, and
/// the thresholds were set without them).
static WORLD_MATTERS: LazyLock<Regex> = LazyLock::new(|| {
    let stems =
        |groups: &[&str]| groups.iter().flat_map(|g| g.split('|')).map(regex::escape).collect::<Vec<_>>().join("|");
    Regex::new(&format!("(?i-u:\\b(?:{}))|(?-u:{})", stems(matters::ASCII_STEMS), stems(matters::OTHER_STEMS)))
        .expect("the stems pattern compiles")
});

/// The distinct stems of [`WORLD_MATTERS`] in `text`, LoopX state lines left out (as
/// [`count`] leaves them out): read for [`signals`] only, so the thresholds' path pays
/// nothing for them.
fn world_matters(text: &str) -> usize {
    let mut stems = std::collections::BTreeSet::new();
    for line in text.split_inclusive('\n').filter(|l| !state_line(l)) {
        stems.extend(WORLD_MATTERS.find_iter(line).map(|m| m.as_str().to_lowercase()));
    }
    stems.len()
}

/// Whether `text` holds words of secrecy ([`words::SECRECY`], [`roles::MORE_SECRECY`]) that keep
/// it from others: a `confidential` that names a service or a duty of any employee
/// (`a confidential employee assistance helpline`, `kunt vertrouwelijk omgaan met
/// gegevens`, `reports are handled confidentially`: [`roles::SERVICE`], read within 40
/// bytes of the word) keeps nothing.
pub(super) fn secret_kept(text: &str) -> bool {
    let kept = |m: regex::Match<'_>| {
        // `floor_char_boundary` is newer than the crate's MSRV (1.89).
        let mut from = m.start().saturating_sub(40);
        while !text.is_char_boundary(from) {
            from -= 1;
        }
        let mut to = (m.end() + 40).min(text.len());
        while !text.is_char_boundary(to) {
            to += 1;
        }
        !roles::SERVICE.is_match(&text[from..to])
    };
    words::SECRECY.find_iter(text).any(kept) || roles::MORE_SECRECY.find_iter(text).any(kept)
}

/// A line of a LoopX state that is not prose: a heading, a todo line, a todo's metadata,
/// frontmatter.
pub(super) fn state_line(line: &str) -> bool {
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
    "egregi",
    "gentil",
    "geachte ",
    "szanown",
    "sayın ",
    "cher ",
    "chère ",
    "oi ",
    "olá ",
    "hoi ",
    "beste ",
    "caro ",
    "cara ",
    "querid",
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
    /// Distinct offices naming a person (`the CFO`, `Prezes Zarządu`: [`roles::ROLES_SRC`]).
    roles: usize,
    figures: usize,
    /// Jobs are counted (`85 postes`, `120명`: [`roles::HEADCOUNT_SRC`]).
    headcount: bool,
    /// A private document's kind stands in the first three lines ([`roles::KINDS`]).
    kind: bool,
    /// Lines opening with a clause's number: `§ 3`, `Art. 7`, `第五条` (strong), `7.1`,
    /// `2. Rabat` (weak) ([`roles::CLAUSE`]).
    clauses: (usize, usize),
    /// A letter's salutation opens a line (`Dear Aisha,`, `Madame Lefèvre,`).
    letter: bool,
    /// The distinct matters, lower-cased.
    matter_words: std::collections::BTreeSet<String>,
    first: Option<(usize, String)>,
}

fn count(text: &str) -> Counts {
    let mut people = std::collections::BTreeSet::new();
    let mut figures = std::collections::BTreeSet::new();
    let mut matters = std::collections::BTreeSet::new();
    let mut given = std::collections::BTreeSet::new();
    let mut roles = std::collections::BTreeSet::new();
    let mut headcount = false;
    let mut kind = false;
    let mut clauses = (0, 0);
    let mut first = None;
    let mut at = 0;
    let mut titles = 0;
    for line in text.split_inclusive('\n') {
        if !state_line(line) {
            for m in roles::OFFICES_AND_JOBS.find_iter(line) {
                if m.as_str().starts_with(|c: char| c.is_ascii_digit()) {
                    headcount = true;
                } else {
                    roles.insert(m.as_str().to_lowercase());
                }
            }
            if titles < 3 && !line.trim().is_empty() {
                titles += 1;
                kind = kind || roles::KINDS.is_match(line);
            }
            if let Some(c) = roles::CLAUSE.captures(line) {
                if c.get(1).is_some() {
                    clauses.0 += 1;
                } else {
                    clauses.1 += 1;
                }
            }
            // A contract's defined term (`Disclosure Agreement (the "Agreement")`) names nobody.
            let defined_term = |m: &str| ["(\"", "(the \"", "(“", "(the “", "(each"].iter().any(|d| m.contains(d));
            // Nor does a heading standing alone on its line (`Disciplinary Procedure (UK)`): two
            // capitalised words and a bracket, and nothing else but the bracket's end.
            let heading = |m: &str| m.contains('(') && line.trim().starts_with(m) && line.trim().len() <= m.len() + 2;
            for m in PEOPLE.find_iter(line).filter(|m| !defined_term(m.as_str()) && !heading(m.as_str())) {
                first.get_or_insert((at + m.start(), m.as_str().to_owned()));
                // A list (`Present: A B, C D, E F`) names each of its people.
                let names = m.as_str().rsplit_once(':').map_or(m.as_str(), |(_, names)| names);
                people.extend(names.split(", ").map(str::trim).filter(|n| !opens_with_a_function_word(n)));
            }
            given.extend(super::names::given_names(line));
            people.extend(
                INITIALS
                    .captures_iter(line)
                    .filter_map(|c| c.get(1))
                    .map(|m| m.as_str())
                    .filter(|i| !words::NOT_INITIALS.contains(i)),
            );
            figures.extend(FIGURES.find_iter(line).map(|m| m.as_str()));
            figures.extend(
                MULTIPLIED
                    .captures_iter(line)
                    .filter(|c| !c.get(1).is_some_and(|w| words::NOT_MONEY.contains(&w.as_str())))
                    .filter_map(|c| c.get(0))
                    .map(|m| m.as_str()),
            );
            matters.extend(MATTERS.find_iter(line).map(|m| m.as_str().to_lowercase()));
        }
        at += line.len();
    }
    let letter = matters.iter().any(|m| SALUTATIONS.iter().any(|s| m.starts_with(s)));
    // A given name that starts a person already counted (`Marcus` of `Marcus Feld`) is that
    // person; the others are people of their own.
    let named_apart = given.iter().filter(|g| !people.iter().any(|p: &&str| p.split(' ').next() == Some(**g))).count();
    Counts {
        people: people.len() + named_apart,
        roles: roles.len(),
        figures: figures.len(),
        headcount,
        kind,
        clauses,
        letter,
        matter_words: matters,
        first,
    }
}

/// Whether `text` is a fill-in template of a document rather than one: three or more
/// placeholders (`[PARTY A NAME]`, `[Raison sociale]` but not a link's `[text](…)`,
/// `<name>`, `{{date}}`, `YYYY-MM-DD`, `____`, fullwidth `＿＿`, a Japanese form's fullwidth
/// brackets `［　］`, `［労働者氏名］`) and no named
/// person, sum or date of its own (one name, with [`TEMPLATE_MANY`] placeholders or more).
/// The document rules' findings on such a text are dropped
/// (a template with a real name or figure in it is judged as a document).
#[must_use]
pub(super) fn is_template(text: &str) -> bool {
    static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\[[A-Z][A-Z0-9 _/-]{1,30}\]|\[\p{L}[\p{L} ,'’/-]{1,30}\](?:[^(\[:]|$)|<[a-z][a-z _-]{1,20}>|\{\{?[A-Za-z_][A-Za-z0-9_ .-]{0,30}\}\}?|(?-u:\b)YYYY-MM-DD(?-u:\b)|_{4,}|＿{2,}|［[^］\n]{1,20}］")
            .expect("the placeholder pattern compiles")
    });
    if text.len() > MAX_BYTES || PLACEHOLDER.find_iter(text).nth(2).is_none() {
        return false;
    }
    // People and figures are counted outside the placeholders (`［労働者氏名］殿` names no one).
    let c = count(&PLACEHOLDER.replace_all(text, " "));
    // Six or more placeholders leave a template one name read into its own words (`People
    // Team` beside `[HR Manager name]`).
    let many = PLACEHOLDER.find_iter(text).nth(TEMPLATE_MANY - 1).is_some();
    c.figures == 0 && (c.people == 0 || (many && c.people <= 1))
}

/// Placeholders from which a template may hold one name of its own ([`is_template`]).
const TEMPLATE_MANY: usize = 6;

/// The private-prose finding of `text`, at its first named person, when the text holds
/// (people, sums or dates, matters; secrecy: words of [`words::SECRECY`] such as `keep this between
/// us`, `in confidence`):
/// - a confidentiality marking opening one of its first lines ([`marked`]), alone;
/// - 2+ people, 2+ sums or dates and 2+ matters;
/// - 3+ people and 3+ matters (a review, a postmortem's timeline);
/// - 3+ people, 2+ sums or dates and a matter;
/// - a letter (a salutation opens a line) with 2+ sums or dates and 3+ matters;
/// - secrecy with 2+ people and a sum, date or 2+ matters; with 2+ sums or dates and 3+
///   matters; or with a person, a sum or date and 2+ matters besides the words of secrecy;
/// - a person, 3+ sums or dates and 3+ matters; 3+ sums or dates and 5+ matters (a due
///   diligence note); 4+ people and 2+ matters; a person and 6+ matters.
///
/// People are named with a title or a role, as full names in the shapes of [`PEOPLE`], by
/// an initial and a surname, by initials before a verb ([`INITIALS`]) or by a given name
/// alone ([`super::names`]). A text with words of a public or made-up text
/// ([`words::PUBLIC_CONTEXT`]) or naming a public body ([`roles::PUBLIC_BODY`]: a council's
/// minutes) also needs words of secrecy. `None` for a text outside
/// [`MIN_BYTES`]..=[`MAX_BYTES`], short of these, or whose first lines call it the
/// published copy ([`published_copy`]).
#[must_use]
pub(super) fn find(text: &str) -> Option<(usize, String)> {
    // Blanks around the text do not make it a larger one (padding past the limit). A marked
    // text is judged from fewer bytes, as `confidential_marking` judges its marking.
    let len = text.trim().len();
    if !(MARKED_MIN_BYTES..=MAX_BYTES).contains(&len) {
        return None;
    }
    let marked = marked(text);
    if len < MIN_BYTES && !marked {
        return None;
    }
    // A LoopX state's own lines are not counted (`count`): a text of nothing else (a diff's
    // added todo lines) can reach no threshold, and is passed over before any pattern runs.
    if text.lines().all(|l| l.trim().is_empty() || state_line(l)) {
        return None;
    }
    // Every threshold below needs a matter or words of secrecy: a text with neither, most
    // texts, is passed over after three searches of the whole text instead of a dozen per line.
    if (!names_a_matter(text) && !marked) || published_copy(text) {
        return None;
    }
    let c = count(text);
    let matters = c.matter_words.len();
    // Words of secrecy are looked for only when they decide.
    // Read once, when a threshold first asks: several may.
    let kept = std::cell::OnceCell::new();
    let secrecy = || *kept.get_or_init(|| secret_kept(text));
    // People named or by office.
    let who = c.people + c.roles;
    // Matters besides the words of secrecy among them (`confidential`): for the rule that
    // needs secrecy and counts both.
    let plain_matters = || c.matter_words.iter().filter(|m| !words::SECRECY.is_match(m)).count();
    let found = (c.people >= 2 && c.figures >= 2 && matters >= 2)
        || (c.people >= 3 && matters >= 3)
        || (c.people >= 3 && c.figures >= 2 && matters >= 1)
        || (c.letter && c.figures >= 2 && matters >= 3)
        || (c.people >= 2 && (c.figures >= 1 || matters >= 2) && secrecy())
        || (c.figures >= 2 && matters >= 3 && secrecy())
        || (who >= 1 && (c.figures >= 1 || c.headcount) && plain_matters() >= 2 && secrecy())
        || (c.people >= 1 && c.figures >= 3 && matters >= 3)
        || (c.figures >= 3 && matters >= 5)
        || (c.people >= 4 && matters >= 2)
        || (matters >= 6 && c.people >= 1)
        || (c.kind && matters >= 2 && (c.figures >= 1 || who >= 1 || c.headcount))
        || (c.kind && (c.figures >= 1 || c.headcount) && secrecy())
        || (who >= 1 && c.figures >= 2 && matters >= 3)
        || (c.headcount && matters >= 3 && (who >= 1 || c.figures >= 1))
        || ((c.clauses.0 >= 2 || (c.clauses.1 >= 2 && roles::CONTRACT.is_match(text)))
            && c.figures >= 1
            && matters >= 2);
    // A marking on the document is enough, as `confidential_marking`'s is.
    // Public words, or a public body's name (the minutes of its meeting), need secrecy too
    // (and a policy's promise of secrecy is none).
    let policy = words::POLICY_SELF.is_match(text);
    let public = policy || public_words(text) || roles::PUBLIC_BODY.is_match(text);
    let found = (found || marked) && (!public || marked || (secrecy() && !policy));
    // A letter may name nobody with a title: its finding is then at the text's start.
    found.then(|| c.first.unwrap_or_else(|| (0, text.trim_start().chars().take(24).collect())))
}

/// Whether one of the first [`MARKED_LINES`] non-blank lines of `text` calls it the
/// published copy ([`roles::PUBLISHED`]: a policy's `public version`) and it names at most
/// [`PUBLISHED_PEOPLE`] people and greets no one (`Bonjour Tom,`).
fn published_copy(text: &str) -> bool {
    text.lines().filter(|l| !l.trim().is_empty()).take(MARKED_LINES).any(|l| roles::PUBLISHED.is_match(l)) && {
        let c = count(text);
        c.people <= PUBLISHED_PEOPLE && !c.letter
    }
}

/// The most people a published copy ([`published_copy`]) names: a policy names an office
/// or a contact or two; a private note that labels itself `public version` names the people
/// it is about, or greets one.
const PUBLISHED_PEOPLE: usize = 2;

/// The fewest bytes of a text with a confidentiality marking that [`find`] judges (the
/// marking and a sentence).
const MARKED_MIN_BYTES: usize = 48;

/// Lines of a document read for a confidentiality marking ([`marked`]).
const MARKED_LINES: usize = 4;

/// Whether one of the first [`MARKED_LINES`] non-blank lines of `text` opens with a
/// confidentiality marking ([`roles::MARKING`]: `POVJERLJIVO`, `ΕΜΠΙΣΤΕΥΤΙΚΟ –`), at most
/// [`MARKING_LINES_MAX`] lines do, and the other lines hold [`MARKED_BODY_BYTES`] or more;
/// not a guide defining three classification levels or more ([`roles::LEVEL_DEFINED`]).
fn marked(text: &str) -> bool {
    let is_marking = |l: &str| roles::MARKING.is_match(l);
    text.lines().filter(|l| !l.trim().is_empty()).take(MARKED_LINES).any(is_marking)
        && text.lines().filter(|l| is_marking(l)).nth(MARKING_LINES_MAX).is_none()
        && text.lines().filter(|l| !is_marking(l)).map(|l| l.trim().len()).sum::<usize>() >= MARKED_BODY_BYTES
        && roles::LEVEL_DEFINED.find_iter(text).nth(2).is_none()
}

/// The fewest bytes besides its marking lines a marked text holds.
const MARKED_BODY_BYTES: usize = 40;

/// The most marking lines a marked document holds (a header's and a footer's): a list of
/// translated labels (`Confidentiel` / `Vertraulich` / `機密` / …) is no marked document.
const MARKING_LINES_MAX: usize = 2;

/// Whether `text` holds a matter ([`MATTERS`]) or a word of secrecy: what every threshold
/// of [`find`] and every counted signal but the plain counts needs.
fn names_a_matter(text: &str) -> bool {
    MATTERS.is_match(text) || words::SECRECY.is_match(text) || roles::MORE_SECRECY.is_match(text)
}

/// The names of [`signals`].
pub(super) const SIGNALS: [&str; 17] = [
    "people>=1",
    "people>=2",
    "people>=3",
    "offices>=1",
    "offices>=2",
    "offices>=3",
    "figures>=1",
    "figures>=2",
    "figures>=3",
    "matters>=1",
    "matters>=2",
    "matters>=3",
    "secrecy",
    "letter",
    "kind",
    "headcount",
    "clauses",
];

/// The counted shapes of `text` as named signals ([`SIGNALS`]) for
/// [`super::prose_model`]: people, offices, sums or dates and matters (with the stems of
/// [`WORLD_MATTERS`]) at one, two and three or more; secrecy; a letter's salutation; a document kind; job counts; two or more clause
/// numbers. Empty for a text with neither a matter (nor a stem) nor a word of secrecy (as
/// [`find`]'s early exit).
#[must_use]
pub(super) fn signals(text: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    if !names_a_matter(text) && !WORLD_MATTERS.is_match(text) {
        return out;
    }
    let c = count(text);
    let steps = [c.people, c.roles, c.figures, c.matter_words.len() + world_matters(text)];
    for (i, n) in steps.into_iter().enumerate() {
        out.extend(&SIGNALS[3 * i..3 * i + n.min(3)]);
    }
    let flags = [secret_kept(text), c.letter, c.kind, c.headcount, c.clauses.0 + c.clauses.1 >= 2];
    out.extend(flags.iter().zip(&SIGNALS[12..]).filter(|(on, _)| **on).map(|(_, name)| *name));
    out
}

/// Whether `text` reads as a public or made-up text ([`words::PUBLIC_CONTEXT`]: a press
/// release, a published report, a job posting, fiction) with no words keeping it from
/// others, or that calls itself the published copy in its first lines ([`published_copy`]).
#[must_use]
pub(super) fn reads_public(text: &str) -> bool {
    (public_words(text) && !secret_kept(text)) || published_copy(text)
}

/// Words of a public or made-up text: [`words::PUBLIC_CONTEXT`] or [`words::PUBLIC_GENRES`].
fn public_words(text: &str) -> bool {
    words::PUBLIC_CONTEXT.is_match(text) || words::PUBLIC_GENRES.is_match(text)
}

/// Whether `text` is a textbook exercise built on a made-up document ([`words::PUBLIC_GENRES`]:
/// `Read the memo and answer the questions`, `a fictional company`) with no words keeping it
/// from others: the document's shape then marks no private document.
#[must_use]
pub(super) fn is_exercise(text: &str) -> bool {
    text.len() <= MAX_BYTES && words::PUBLIC_GENRES.is_match(text) && !secret_kept(text)
}

/// [`find`] on every string of a JSON document read together, one per line (a document
/// split over `summary`, `evidence` and `next_action`, or over an array of sentences): the
/// hit, at the document's root. Then [`super::prose_model::find`] on the strings that can
/// hold prose ([`prose_string`]). `None` when the strings hold more than [`MAX_BYTES`].
pub(super) fn find_in_strings(value: &serde_json::Value) -> Option<super::Hit> {
    let (joined, prose) = joined_strings(value)?;
    let note = " (across the document's strings)";
    if let Some((_, matched)) = find(&joined) {
        return Some(super::Hit { rule: &PRIVATE_PROSE, start: 0, matched, note });
    }
    let (_, matched) = super::prose_model::find(&prose)?;
    Some(super::Hit { rule: &super::prose_model::PRIVATE_PROSE_WEIGHED, start: 0, matched, note })
}

/// Whether a JSON string can hold prose: it has a blank or a character outside ASCII (an id,
/// a hash, a timestamp or an enum value has neither).
#[must_use]
pub(super) fn prose_string(s: &str) -> bool {
    s.bytes().any(|b| b == b' ' || b == b'\t' || b == b'\n' || b >= 0x80)
}

/// Every string of `value`, one per line, in document order; and the same for the strings
/// that can hold prose. `None` when they hold more than [`MAX_BYTES`].
pub(super) fn joined_strings(value: &serde_json::Value) -> Option<(String, String)> {
    let (mut joined, mut prose) = (String::new(), String::new());
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::String(s) => {
                if joined.len() + s.len() > MAX_BYTES {
                    return None;
                }
                for out in [&mut joined].into_iter().chain(prose_string(s).then_some(&mut prose)) {
                    out.push_str(s);
                    out.push('\n');
                }
            }
            serde_json::Value::Array(items) => stack.extend(items.iter().rev()),
            serde_json::Value::Object(map) => stack.extend(map.values().rev()),
            _ => {}
        }
    }
    Some((joined, prose))
}

#[path = "dossier_roles.rs"]
mod roles;

#[path = "dossier_matters.rs"]
mod matters;
#[path = "dossier_public.rs"]
mod public;
#[path = "dossier_words.rs"]
mod words;
pub(super) use public::drop_public_shapes;
#[cfg(test)]
use public::is_public_minutes;

#[cfg(test)]
#[path = "dossier_tests.rs"]
mod tests;
