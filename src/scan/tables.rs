//! Tables of people's pay or ratings (issue 16, private documents): a salary sheet, a
//! bonus allocation or a calibration table pasted as CSV, a Markdown or text table, or
//! tab-separated cells. Not one regex: the header must name people and their pay or rating,
//! and two or more rows under it must each start with a person and hold a figure.
//!
//! Tutorials are full of `name,salary` tables (`Alice,100`), so a row's person is a full
//! name (two or three capitalised words) and its figure four digits or more, a sum with a
//! multiplier or a percentage; and a text with the words of a public or made-up table
//! (`example`, `sample`, `tutorial`, `pandas`, `SELECT`, …) is left alone.

use super::rules::{Check, Rule};
use regex::Regex;
use std::sync::LazyLock;

/// The finding's rule: not in the rule table (it reads a header and the rows under it),
/// reported like its rows.
pub static PEOPLE_TABLE: Rule = Rule {
    id: "people_pay_table",
    category: "private_documents",
    public: "block",
    local: "warn",
    literals: &[],
    pattern: "",
    check: Check::Always,
    what: "a table of named people with their pay, bonus, equity or rating (CSV, Markdown, tab- or space-aligned): a header naming both and two or more rows of a full name and a figure",
    hit: "Name,Title,Base,Bonus\nAna López,Senior Engineer,98000,12%\nTomas Berg,Staff Engineer,131000,15%",
    miss: "name,salary\nalice,100\nbob,200 (a tutorial's table: no full names, no real figures)",
};

/// A header cell naming the person.
static PERSON_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[,;|\t]|\s{2})[ \t]*(?i-u:full[ _]name|name|employee(?:[ _]name)?|nombre|nom|nome|mitarbeiter(?:in)?|naam|氏名|姓名|이름|성명)[ \t]*(?:$|[,;|\t]|\s{2})")
        .expect("the person header compiles")
});

/// A header cell naming pay or a rating.
static PAY_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[,;|\t]|\s{2})[ \t]*(?i-u:(?:base|current|new|proposed|annual)?[ _]?(?:salary|pay|base|comp|compensation)|bonus(?:[ _]%)?|equity|rsus?|options|ote|commission|raise|increase|merit|rating|grade|band|salario|sueldo|salaire|gehalt|stipendio|salaris|年収|給与|薪资|工资|연봉)[ \t]*(?:\([^)\n]{1,12}\))?[ \t]*(?:$|[,;|\t]|\s{2})")
        .expect("the pay header compiles")
});

/// A row's first cell as a person: two or three capitalised words (`Ana López`, `Mei Lin
/// Tan`), the table's marks and blanks before it.
static PERSON_CELL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[ \t|]*\p{Lu}[\p{Ll}'’-]+(?: \p{Lu}\.?[\p{Ll}'’-]*){1,2}[ \t]*(?:[,;|\t]|\s{2})")
        .expect("the person cell compiles")
});

/// A figure in a row: four or more digits (grouped or not), a sum with a multiplier, a
/// percentage.
static FIGURE_CELL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[^\w.])(?:[$€£¥]?\d{1,3}(?:[,. ]\d{3})+|[$€£¥]?\d{4,}|[$€£¥]?\d+(?:\.\d+)?[kKM]|\d{1,3}(?:\.\d+)?[ \t]?%)(?:$|[^\w])")
        .expect("the figure cell compiles")
});

/// Words of a public or made-up table.
static PUBLIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i-u)\b(?:example|sample|tutorial|demo|fictional|synthetic|dummy|mock|fake|test data|exercise|lesson|SELECT|CREATE TABLE|INSERT INTO|pandas|DataFrame)\b")
        .expect("the public words compile")
});

/// Where a people-pay table starts in `text` (its header line) and the header, or `None`.
/// The header holds a person column and a pay or rating column; two or more of the next
/// ten lines start with a person ([`PERSON_CELL`]) and hold a figure ([`FIGURE_CELL`]).
#[must_use]
pub(super) fn find(text: &str) -> Option<(usize, String)> {
    // A header and two rows are three lines: a line alone (an added line of a diff, a JSON
    // string) is no table, and is passed over before any pattern is built or run.
    if text.len() > super::dossier::MAX_BYTES || memchr::memchr_iter(b'\n', text.as_bytes()).nth(1).is_none() {
        return None;
    }
    if PUBLIC.is_match(text) {
        return None;
    }
    let lines: Vec<(usize, &str)> = text
        .split_inclusive('\n')
        .scan(0, |at, l| {
            let start = *at;
            *at += l.len();
            Some((start, l.trim_end_matches(['\n', '\r'])))
        })
        .collect();
    for (i, (start, header)) in lines.iter().enumerate() {
        if !(PERSON_HEADER.is_match(header) && PAY_HEADER.is_match(header)) {
            continue;
        }
        let rows = lines[i + 1..]
            .iter()
            .take(10)
            .filter(|(_, row)| PERSON_CELL.is_match(row) && FIGURE_CELL.is_match(row))
            .count();
        if rows >= 2 {
            return Some((*start, header.chars().take(40).collect()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pay_tables_of_named_people_are_found_in_any_layout() {
        for table in [
            PEOPLE_TABLE.hit.to_owned(),
            "| Name | Level | Rating | Proposed increase |\n|---|---|---|---|\n| Priya Raman | L5 | 4 | 6% |\n| Jonas Becker | L4 | 2 | 0% |".to_owned(),
            "Employee\tBase\tBonus\nMarta Ruiz\t€72,000\t€6,000\nLuca Bianchi\t€68,500\t€4,000".to_owned(),
            "Name            Salary      Equity\nDana Whitfield  $184,000    0.25%\nOwen Hale       $142,500    0.10%".to_owned(),
        ] {
            assert!(find(&table).is_some(), "{table}");
        }
    }

    #[test]
    fn tutorial_tables_and_tables_without_people_or_pay_are_not() {
        for text in [
            "name,salary\nalice,100\nbob,200".to_owned(),
            "Name,Salary\nJohn Doe,50000\nJane Roe,60000\n(sample data for the pandas exercise)".to_owned(),
            "Name,Version,Downloads\nSerde Json,1.0.120,450000\nTokio Runtime,1.38.0,390000".to_owned(),
            "Region,Revenue,Growth\nNorth America,$4.2M,12%\nWestern Europe,$3.1M,9%".to_owned(),
            "Name,Base\nAna López,98000".to_owned(),
        ] {
            assert!(find(&text).is_none(), "{text}");
        }
    }
}
