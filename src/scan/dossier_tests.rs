//! Tests of [`super`]: the private-prose finding, its shapes and thresholds, and its vocabulary.

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

/// E-mails that open and close in other ways and languages, and minutes with CJK
/// titles and labels, are documents by their shape.
#[test]
fn more_letter_forms_and_cjk_minutes_are_documents() {
    for mail in [
        "Hi Marco,\n\nWe are going to pause phase two until October.\n\nBest,\nIlse",
        "Ciao Giulia,\nil contratto è pronto.\nCordiali saluti,\nMatteo",
        "Beste Sanne,\nhet voorstel is akkoord.\nMet vriendelijke groet,\nJeroen",
        "Olá Joana,\nsegue a proposta revista.\nAtenciosamente,\nRenata",
        "To whom it may concern,\nmy father's device stopped reporting.\nKind regards,\nDeborah",
        "김민준 팀장님께,\n지난주 말씀드린 건입니다.\n이서윤 드림",
    ] {
        assert_eq!(document_rules(mail), ["letter_shape"], "{mail}");
    }
    let minutes =
        "会议纪要（管理层周会）\n时间：2024年6月5日 14:00\n参会人：王总、李娜、陈伟\n记录人：赵敏\n一、华东区业绩";
    assert_eq!(document_rules(minutes), ["document_title", "meeting_minutes"]);
    assert_eq!(document_rules("議事録（経営会議）2024年6月3日\n出席：田中社長、鈴木取締役"), ["document_title"]);
    assert!(document_rules("Best, the parser team").is_empty(), "a sign-off needs a name line after it");
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
    let todo = "- [ ] [P1] Ask Dr. Nazari and Mr. Yeo about the EUR 1.1m salary budget by 2024-03-01 and 2024-04-01\n";
    assert!(find(&todo.repeat(3)).is_none(), "todo lines are not prose");
    let prose =
        "Dr. Nazari and Mr. Yeo agreed the EUR 1.1m salary and severance budget on 2024-03-01 and 2024-04-01.\n";
    assert!(find(&prose.repeat(3)).is_some());
    assert!(find(&prose.repeat(MAX_BYTES / prose.len() + 1)).is_none(), "too large to be one document");
}

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

mod vocabulary_tests {
    use super::*;

    /// Minutes naming people by initials, sums with a multiplier and words of secrecy are
    /// private; `32k tokens` is no sum and `CEO said` names no initials.
    #[test]
    fn initials_and_multiplied_sums_are_read_and_counts_of_things_are_not() {
        let minutes = "JK opened by saying the account is lost, about 380k ARR. RB disagreed and MT pointed out \
                       we said no twice. Agreed JK will call on Monday. Not to be discussed outside this group.";
        let c = count(minutes);
        assert_eq!((c.people, c.figures), (3, 1), "JK, RB, MT and 380k ARR");
        assert!(find(minutes).is_some());
        let tech = "The CEO said the model now takes 32k tokens of context and 1M rows per batch; QA will check it.";
        let c = count(tech);
        assert_eq!((c.people, c.figures), (0, 0));
    }

    /// A Korean e-mail naming people with their titles, a salary in won and words of
    /// secrecy is private; a Korean sentence of thanks names nobody.
    #[test]
    fn korean_names_with_titles_and_sums_in_won_are_read() {
        let mail = "김민준 팀장님께,\n\n박지현 대리의 인사 건 관련하여 정리해서 보내드립니다. 인사팀 최수연 과장과 상의한 결과, \
                    연봉은 현행 5,200만 원을 유지하는 것으로 결정했습니다. 치료 기간 동안 단축근무를 승인했습니다.\n\n\
                    이 내용은 팀 내에도 공유하지 말아 주시기 바랍니다.\n\n감사합니다.\n이서윤 드림";
        let c = count(mail);
        assert!(c.people >= 2 && c.figures >= 1, "people {} figures {}", c.people, c.figures);
        assert!(find(mail).is_some());
        assert_eq!(count("여러분 정말로 감사합니다. 다음 주에 다시 뵙겠습니다.").people, 0, "thanks is no title");
    }

    /// A short note naming one person with a sum, two matters and words of secrecy is
    /// private; a README whose one `confidential` is a checkbox's name is not.
    #[test]
    fn one_person_a_sum_matters_and_secrecy_make_a_private_note() {
        let note = "Quick heads up before you talk to Raj: we're not renewing his contract in June, and the reason \
                    is the expense fraud ($14,200 over two quarters) that finance flagged. Please don't mention the \
                    amount yet.";
        assert!(find(note).is_some());
        let readme = "Please report any security issues not yet known to public by creating a new issue and \
                      checking the This issue is confidential checkbox (its text is not to be shared). Signature made \
                      23 Apr 2019 by Jan Rybar (Red Hat) under the contributor contract.";
        assert!(find(readme).is_none());
    }

    /// Notes in Swedish, Turkish and Polish, and people named in Arabic script, are read by
    /// their own words for pay, leave, dismissal and secrecy.
    #[test]
    fn pay_leave_and_secrecy_are_read_in_more_languages() {
        let swedish = "Hej Erik,\nKarin är sjukskriven sedan mars och vi planerar uppsägning av två tjänster i Malmö. \
                       Lars föreslår avgångsvederlag på 6 månadslöner och 45 000 kr i lönetillägg. Detta omfattas av sekretess.";
        let turkish = "Mehmet ve Zeynep ile görüştüm: Ayşe hamile ve doğum izni sonrası maaş zam talebi var, 12.500 TL. \
                       Emre istifa etmeyi düşünüyor. Bu bilgi gizli kalmalı, ekiple paylaşmayın lütfen.";
        let polish = "Notatka: Katarzyna i Marek omówili podwyżki w zespole IT. Magdalena wraca z urlopu macierzyńskiego, \
                      jej wynagrodzenie 14 000 zł nie zostało podniesione. Sprawa poufna, proszę nie przekazywać dalej.";
        for text in [swedish, turkish, polish] {
            assert!(find(text).is_some(), "{text}");
        }
        let arabic = "اجتمع محمد مع فاطمة وخالد بشأن الراتب";
        assert_eq!(count(arabic).people, 3, "names in a script without case");
    }

    /// A due-diligence note dense with sums and matters is private without naming anyone; a
    /// generic disciplinary policy, dense with matters under its title, is not.
    #[test]
    fn dense_figures_and_matters_are_private_but_a_policy_is_not() {
        let note = "Revenue quality: of the EUR 14.2M ARR, EUR 3.1M comes from two resellers on 90-day \
                    termination clauses. The founder holds a loan of EUR 280k not disclosed in the data room; \
                    the regulator asked for remediation. Reduce the valuation or walk.";
        assert!(find(note).is_some());
        let policy = "Disciplinary Procedure (UK)\n\nStage 1 - Investigation: interviewing the employee; suspension \
                      on full pay is not a sanction.\nStage 2 - Outcome: written warning, final written warning or \
                      dismissal for gross misconduct such as fraud or a breach of health and safety rules.";
        assert!(find(policy).is_none());
    }

    /// A licence's copyright notice names people, years and liability, yet is public: it
    /// needs words of secrecy to be judged private.
    #[test]
    fn a_copyright_notice_is_public() {
        let notice = "Copyright (c) 2019 Anders Nilsson and Priya Raman. Permission is hereby granted, free of charge, \
                      to any person obtaining a copy of this software. In no event shall the authors be liable \
                      for any claim, damages or other liability, including a settlement of EUR 10,000 on 3 March 2020.";
        assert!(find(notice).is_none());
    }

    /// Minutes that name only offices, with a sum, a decision and a word of secrecy, are
    /// private in each language; the press release that later announces the same is public.
    #[test]
    fn board_minutes_naming_only_offices_are_private_and_their_press_release_is_not() {
        let minutes = [
            "Protokoll der Vorstandssitzung\nDie Finanzvorständin berichtete über das Angebot für die Sparte \
             Logistik: 18,2 Mio. EUR. Der Vorstand beschließt, die Gespräche fortzusetzen; über das Vorhaben ist \
             bis zum Signing Stillschweigen zu wahren.",
            "Acta de la reunión del Consejo de Administración\nLa Directora Financiera presenta el cierre de la \
             planta de Burgos, que afecta a 74 trabajadores, con un coste de 3,9 millones de euros. Se acuerda no \
             divulgar el plan hasta la reunión con el comité de empresa.",
            "取締役会議事録\n代表取締役より、福岡工場の閉鎖と約60名の配置転換について説明があった。特別損失は約12億円の見込み。\
             本件は開示まで社外秘とする。",
        ];
        for m in minutes {
            assert!(find(m).is_some(), "{m}");
        }
        let release = "Communiqué de presse – Lyon, le 3 juin\nLe groupe annonce la fermeture de son site de Vienne, \
                       qui concerne 74 postes. Le directeur général a présenté le projet aux représentants du \
                       personnel ; le coût est estimé à 3,9 M€.";
        assert!(find(release).is_none());
    }

    /// Clauses with a sum and matters are a contract's body though they name nobody; an
    /// open-source licence's numbered sections are not (no sum), nor is a list of steps.
    #[test]
    fn numbered_clauses_with_a_sum_are_a_contract_body() {
        let clauses = "§ 4 Vergütung\nDer Auftragnehmer erhält eine Pauschale von 86.000,00 EUR netto.\n\
                       § 5 Vertragsstrafe\nBei Verzug zahlt der Auftragnehmer eine Vertragsstrafe von 0,5 % je \
                       Woche; die Haftung ist auf den Auftragswert begrenzt.";
        assert!(find(clauses).is_some());
        let steps = "Release checklist for the 2.1 line, followed by every maintainer:\n1. Bump the version in \
                     Cargo.toml.\n2. Tag the commit and push the tag.\n3. Publish the crate and the docs.";
        assert!(find(steps).is_none());
    }

    /// A licence's `in Executable form only` names no audience: the words that keep a text
    /// to one (`exec staff only`) need a word boundary after the audience.
    #[test]
    fn an_audience_word_must_end_where_the_word_ends() {
        assert!(!roles::MORE_SECRECY.is_match("You may distribute Covered Code in Executable form only if"));
        assert!(roles::MORE_SECRECY.is_match("Reorg plan v3 (exec staff only)"));
    }

    /// An appraisal form labelled in Dutch or Spanish, a Portuguese lease with spelled-out
    /// clauses and a French dismissal letter opened by `Madame,` are read by their own
    /// labels, clause words and sign-offs.
    #[test]
    fn forms_clauses_and_letters_in_more_languages_are_documents() {
        for t in [
            "Beoordelingsverslag 2025\nMedewerker: Joris Vermeulen, Inkoper\nLeidinggevende: Anouk de Wit\n\
             Eindoordeel: onvoldoende. Twee leveranciers klaagden; verbetertraject van drie maanden, geen periodiek.",
            "CONTRATO DE LOCAÇÃO COMERCIAL\nCLÁUSULA PRIMEIRA - O aluguel mensal é de R$ 9.200,00.\n\
             CLÁUSULA SEGUNDA - Em caso de rescisão antecipada, a LOCATÁRIA pagará multa de 3 aluguéis.",
        ] {
            assert!(find(t).is_some(), "{t}");
        }
    }

    /// `confidential` naming a helpline or a duty of care keeps nothing from anyone; the
    /// same word keeping a plan from the staff does.
    #[test]
    fn a_confidential_service_or_duty_is_no_secrecy() {
        assert!(!secret_kept("We offer a 24/7 confidential employee assistance helpline to all staff."));
        assert!(!secret_kept("Je kunt vertrouwelijk omgaan met gegevens en werkt nauwkeurig."));
        assert!(!secret_kept("Reports of misconduct are handled confidentially by the maintainers."));
        assert!(secret_kept("The closure plan is confidential until the works council meets."));
    }

    /// A city council's minutes are published; an executive meeting's are not.
    #[test]
    fn public_body_minutes_are_public() {
        assert!(is_public_minutes("MINUTES OF THE REGULAR CITY COUNCIL MEETING\n1. CALL TO ORDER at 7:02 p.m."));
        assert!(!is_public_minutes("MINUTES OF THE EXECUTIVE MEETING\nThe CFO presented the layoffs."));
        assert!(!is_public_minutes("City council liaison notes - confidential, do not share before the vote."));
    }
}
