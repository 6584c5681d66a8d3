//! The word lists of [`super`] (issue 16, private documents): counts of things that are not
//! money, capitals that are not initials, matters, words of secrecy, words of a public text.
//! Data, one list per item; [`super::dossier_roles`] holds the fifth round's lists.

use regex::Regex;
use std::sync::LazyLock;

/// Words after `32k`, `4K` or `1M` that count things other than money.
pub(super) const NOT_MONEY: &[&str] = &[
    "tokens",
    "token",
    "rows",
    "row",
    "lines",
    "records",
    "requests",
    "req",
    "users",
    "members",
    "files",
    "events",
    "items",
    "ops",
    "context",
    "parameters",
    "params",
    "downloads",
    "stars",
    "views",
    "hits",
    "messages",
    "entries",
    "keys",
    "objects",
    "pixels",
    "px",
    "video",
    "display",
    "monitor",
    "steps",
    "samples",
    "iterations",
    "epochs",
    "vectors",
    "chunks",
    "documents",
    "docs",
    "pages",
    "words",
    "characters",
    "chars",
    "bytes",
    "RPS",
    "QPS",
    "TPS",
    "calls",
    "queries",
    "points",
    "nodes",
    "pods",
    "images",
    "frames",
    "resolution",
    "screen",
];

/// Capitals that are abbreviations, roles or systems rather than a person's initials.
pub(super) const NOT_INITIALS: &[&str] = &[
    "CEO", "CFO", "CTO", "COO", "CIO", "CMO", "CPO", "VP", "HR", "PM", "QA", "IT", "AWS", "API", "SDK", "CLI", "CI",
    "CD", "UI", "UX", "DB", "OS", "IDE", "SRE", "SLA", "PR", "MR", "GCP", "GPU", "CPU", "DNS", "CDN", "VPN", "URL",
    "JS", "TS", "ML", "AI", "LLM", "NLP", "BI", "ETL", "ERP", "CRM", "CMS", "SEO", "UN", "EU", "US", "USA", "UK",
    "NHS", "FBI", "IRS", "SEC", "FDA", "IAM", "KMS", "RDS", "EKS", "GKE", "AKS", "TLS", "SSH", "SSO", "MFA", "WAF",
    "NAT", "LB", "ALB", "ELB", "EC", "S", "OK", "NO", "YES", "ALL", "ANY", "WE", "IF", "THE", "AND", "FOR", "NOT",
];

/// [`super::MATTERS`]' own words (its doc says how they are folded).
pub(super) const MATTERS_SRC: &str = r"(?im)^(?:Dear|Hi|Hello|Hallo|Liebe|Lieber|Sehr geehrte[rs]?|Bonjour|Madame|Monsieur|Hola|Estimad[oa]|Egregi[oa]|Gentil[ei]|Geachte|Szanown[ya]|Sayın|Cher|Chère|Oi|Olá|Hoi|Beste|Caro|Cara|Querid[oa]) [^\n,:]{2,40}[,:]|(?i-u)\b(?:salary|salaries|pay rise|bonus|compensation|equity|severance|settlement|redundanc\w*|layoffs?|dismiss\w*|disciplinary|grievance|misconduct|harass\w*|complaint|maternity|paternity|pregnan\w*|sick leave|illness|diagnos\w*|referral|patient|medication|DOB|date of birth|performance improvement|underperform\w*|partially meets|rating|appraisal|resign\w*|terminat\w*|step down|stepping down|acquisition|takeover|divest\w*|term sheet|pre-money|valuation|runway|burn|deficit|lawsuit|litigation|liabilit\w*|indemnit\w*|guarantor|rent|premises|tenant|landlord|licensee|licensor|confidential\w*|contract|penalt\w*|insurance|incident|lender|debt|owes|shares|family|lawyer|health|divorce|custody|fine|regulator|GDPR|IBAN|exposed|leak\w*|breach\w*|retention risk|external offer|rehire|exit interview|promot\w*|PIP|privately (?:told|said|asked|shared|mentioned|admitted|confirmed|agreed|expressed|raised|discussed|noted|warned)|(?:told|said|asked|shared|mentioned|admitted|confirmed|agreed|discussed|noted|raised|warned|spoke|speak|talk|talked|meet|met|deal|dealt) (?:[a-z']+ ){0,3}privately|in private|off the record|not been told|not informed|has not been told|keep (?:it|this) (?:that way|quiet|private)|not yet announced|not yet informed|don't tell|do not tell|do not share|don't share|not to be shared|keep (?:it|this) between us|for the [a-z ]{3,30} only|not for release|before (?:it is|it's) announced|Gehalt|Abmahnung|Kündigung|vertraulich|confidencial\w*|confidentiel\w*|discreción|discrétion|Elternzeit|salaire|licenciement|rémunération|salario|despido|indemnización|arbitration|counsel|attorneys?|solicitors?|lawyers|settle|NDA|non-disparagement|non-competes?|insurer|legally privileged|privileged (?:and|&) confidential|attorney-client|legal privilege|personnel file|visa|immigration|interviewing|medical|surgery|therapy|depression|anxiety|disability|accommodation|conflict of interest|kickbacks?|rebates?|brib\w+|fraud\w*|embezzl\w+|whistleblow\w*|escrow|earn-out|letter of intent|LOI|due diligence|loans?|churn|at risk|headcount|offer letter|counter-?offer|stock options|clawback|retention|off-cycle|pay cut|demotion|written warning|final warning|investigation|suspen\w+|backdat\w+|overdue|past due|late payments?|write-off|write-down|discrepanc\w+|irregularit\w+|not renewing|not be renewed|impairment|restat\w+|going concern|covenants?|insolven\w+|bankrupt\w*|EBITDA|ARR|MRR|garden leave|notice period|reduction in force|data room|cap table|down round|sueldo|nómina|bonificación|ascenso|promoción|baja médica|incapacidad|conflicto de intereses|auditoría|hallazgo|investigación|demanda|abogad[oa]s?|finiquito|embarazo|enfermedad|soborno|fraude|arrêt maladie|congé maternité|rupture conventionnelle|augmentation|avocat|contentieux|litige|rachat|cession|valorisation|prêt|enquête|avertissement|Krankmeldung|Krankheit|Diagnose|Abfindung|Aufhebungsvertrag|Beförderung|Gehaltserhöhung|Anwalt|Rechtsstreit|Übernahme|Darlehen|Betrug|Schwangerschaft|stipendio|retribuzione|malattia|licenziamento|dimissioni|avvocato|contenzioso|acquisizione|gravidanza|salário|demissão|rescisão|licença médica|advogado|aquisição|avaliação de desempenho|promoção|gravidez|salaris|ontslag|ziekteverlof|advocaat|overname|zwanger|functioneringsgesprek|loonsverhoging|opslag|beoordeling|verzuim|burn-?out|exitgesprek|sollicit\w+|reorganisatie|schikking|faillissement|vaststellingsovereenkomst|zwangerschapsverlof|wynagrodzeni\w*|pensj\w+|podwyżk\w*|premi\w*|zwolnieni\w*|wypowiedzeni\w*|urlop\w*|chorob\w+|ciąż\w+|dyscyplinarn\w*|nagan\w+|upomnieni\w+|rabat\w*|prawnik\w*|ugod\w+|rozwód|rozwod\w+|alkohol\w*|lön|löne\w+|uppsägning\w*|varsel|sjukskriv\w+|utbrändhet|rehabilitering|föräldraledig\w*|gravid\w*|avgångsvederlag|likviditet|skatteskuld|anstånd|förlikning|diagnos|maaş\w*|zam|ikramiye|işten çıkar\w*|fesih|tazminat\w*|hastalı\w+|hamile\w*|gebelik|doğum izni|disiplin\w*|avukat\w*|dava\w*|uzlaşma|istifa\w*|lương|thưởng|tăng lương|sa thải|nghỉ việc|thôi việc|nghỉ ốm|điều trị|mang thai|thai sản|kỷ luật|tranh chấp|cổ phần|hoa hồng|tankhwah|vetan|karz|kiraya|bimari|ilaaj|vakil|mukadma|batwara|aumento|premio|congedo|diagnosi|intervento|accertamento|evasione|affitto|prestito|sanzion\w+|provvedimento disciplinare|bónus|bônus|doença|tratamento|reclamação|indenização|indemnização|despedimento|embarazada|maternidad|periodo de prueba|liquidación|custodia|separación|divorcio|fianza|deuda|plan social|PSE|rupture|prime|grossesse|enceinte|dette|garde|Abschreibung|Wertberichtigung|Insolvenz|Kundendaten|Bußgeld|schwanger)(?-u:\b)|人事評価|給与|賞与|退職|解雇|内密|口外|薪酬|工资|辞退|不得转发|保密|希望退職|出向|降格|昇進|昇格|休職|診断|治療|うつ病|年収|査定|懲戒|訴訟|弁護士|買収|売却|決算|赤字|減給|異動|未公表|支払条件|离职|面试|年终奖|绩效|解除劳动合同|补偿|转岗|撤销|人事評価|評価|目標未達|降級|인사평가|성과 개선|연봉 동결|请假|病假|医疗|诊断|治疗|抑郁|怀孕|估值|融资|领投|回扣|返利|罚款|违约|处分|裁员|降薪|奖金|股权|收购|诉讼|律师|整改|底线|报价|ハラスメント|luật sư|lại quả|định giá|Verstoß|パワハラ|セクハラ|残業|処分|退職金|給料|月給|年俸|妊娠|育休|産休|劝退|名单|补偿金|赔偿|投诉|隐瞒|身份证|복귀|육아휴직|출산휴가|승진|인상|협상|처우|차별|راتب|الراتب|رواتب|مكافأة|علاوة|فصل|إنهاء الخدمة|استقالة|مرض|علاج|سرطان|إجازة|تسوية|نزاع|محامي|دعوى|تقييم|متأخرات|إيجار|مستأجر|वेतन|तनख्वाह|बोनस|बर्खास्त|इस्तीफा|बीमारी|इलाज|गर्भवती|मुकदमा|वकील|मूल्यांकन|कर्ज|संपत्ति|बंटवारा|연봉|급여|성과급|인사|퇴사|해고|징계|치료|진단|우울증|병가|휴직|단축근무|임신|매각|인수|지분|영업손실|보수|삭감|의결|소송|변호사|공시";

/// Words that keep a text from others (`don't tell the team yet`, `not yet announced`,
/// `confidential`, `for the Audit Committee only`, `内密`).
pub(super) static SECRECY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i-u)\b(?:confidential\w*|privately (?:told|said|asked|shared|mentioned|admitted|confirmed|agreed|expressed|raised|discussed|noted|warned)|(?:told|said|asked|shared|mentioned|admitted|confirmed|agreed|discussed|noted|raised|warned|spoke|speak|talk|talked|meet|met|deal|dealt) (?:[a-z']+ ){0,3}privately|in private|off the record|not been told|not informed|keep (?:it|this) (?:that way|quiet|private|between us)|(?:just )?between us[:,]|(?:nobody|no one|no-one) outside (?:the |our |this )?[a-z-]+(?: [a-z-]+)? (?:can|may|should|must) know|not yet announced|not yet informed|don't tell|do not tell|do not share|don't share|not to be shared|for the [a-z ]{3,30} only|not for release|before (?:it is|it's) announced|vertraulich|confidencial\w*|confidentiel\w*|riservat[oa]|máxima discreción|discreción|discrétion|Verschwiegenheit|keep (?:the |this |it |that )?[a-z ]{0,30}(?:quiet|under wraps|to yourself)|under wraps|need-to-know|(?:is|are|isn't|aren't|is not|are not) (?:public|announced) yet|(?:not|isn't|hasn't been) (?:yet )?(?:public|announced)|(?:don't|do not|please don't) forward|(?:should|must) not be forwarded|not to be forwarded|in confidence|(?:please )?(?:don't|do not) (?:repeat|mention)|not to be (?:discussed|repeated|mentioned|shared)|outside (?:this|the|our) (?:group|room|team|committee|call)|asked (?:me|us|that) not (?:to )?(?:mention|share|tell)|asked me not to|(?:keep|leave) (?:his|her|their|my) name out|between (?:you and me|the two of us)|anonymously|not be shared|strictly between|must not leave|no (?:compartir|difundir|divulgar)|ne pas (?:diffuser|divulguer|partager)|nicht (?:weitergeben|weiterleiten)|non (?:divulgare|condividere)|não (?:compartilhar|divulgar)|niet (?:delen|doorsturen)|vertrouwelijk|poufn\w+|sekretess|konfidentiell\w*|hemlig\w*|gizli\w*|aramızda kalsın|bảo mật|giữ kín)(?-u:\b)|内密|口外|不得转发|保密|社外秘|口外無用|他言無用|未公表|不对外公开|不要外传|请勿外传|对外保密|대외비|공유하지 말|외부 유출|비밀로|سري|سرية|سرّي|गोपनीय|गुप्त रख|không chia sẻ|守秘|他言無用",
    )
    .expect("the secrecy pattern compiles")
});

/// Words of a public or made-up text: release notes and credits, a press release, demo,
/// sample or fixture data, a licence's copyright notice, a press release, an earnings
/// report, news of a tribunal ruling or a court docket, a biography, public minutes, a job
/// posting, a tender notice, an annual report, a statute's article, a public board's
/// minutes, a parliament's written question, a regulator's filing (`FORM 8-K`), remarks
/// published `in the public interest`; in the corpus's languages. Such a text needs words of secrecy ([`SECRECY`]) as well to be judged private: names, sums and
/// matters are what they are made of too.
pub(super) static PUBLIC_CONTEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i-u)\b(?:release notes?|changelog|press release|in the public interest|public board meeting|questions from the public|live-?streamed|securities and exchange commission|form 8-k|to ask the (?:secretary of state|minister)|answered by (?:the )?minister|thanks to|contributors?|bug|crash|demo|sample|fixtures?|seed(?:ed)? data|examples?|test data|fictional|synthetic|placeholders?|Muster(?:brief|schreiben|vorlage|[ ]eine[rs])|modelo de carta|lorem ipsum|benchmark|copyright|SPDX|permission is hereby granted|free software|open[- ]source|GNU|public domain|all rights reserved|for immediate release|today announced|announced today|announces|(?:NASDAQ|NYSE|LSE|TSX|ASX|Euronext|AIM|SIX|HKEX|TSE)[:)]|earnings call|consensus estimates?|full-year guidance|newsroom|press conference|said in a statement|told reporters|employment tribunal|the tribunal (?:heard|found|ruled)|judgment published|docket|No\. (?:\d{1,2}:)?\d{2}-?cv-\d+|\(born|early life|annual general meeting|on a poll|call to order|public comment|council ?members?|city council|proxy statement|annual report|Form 10-K|job (?:posting|advert\w*)|we are (?:looking for|hiring)|we're (?:looking for|hiring)|apply (?:through|via|online|by|at)|careers page|Communiqué de presse|Comunicato stampa|Pressmeddelande|Pressemitteilung|Nota de prensa|Comunicado de imprensa|Persbericht|Tiedote|Tisková zpráva|Basın bülteni|Geschäftsbericht|rapport annuel|relazione finanziaria|informe anual|relatório anual|jaarverslag|årsredovisning|Hauptversammlung|assemblée générale|assemblea degli azionisti|junta general de accionistas|assembleia geral|bolagsstämma|algemene vergadering|Stellenausschreibung|offre d'emploi|oferta de empleo|vacature|annuncio di lavoro|Bando di gara|Anuncio de licitación|appel d'offres|Ausschreibung|Opinion of the Court|Publicado no Di(?-u:á)rio|Di(?-u:á)rio (?:Oficial|da Justi(?-u:ç)a)|Justiça condena|em nota|offentliggöra|offentliggörande|marknadsmissbruksförordning|market abuse regulation|Marktmissbrauchsverordnung|said on (?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)|(?:a|the company's) spokesperson|declined to comment|published on the company's blog|selon (?:plusieurs |des )?médias|selon (?:Reuters|l'AFP|Bloomberg|le magazine)|porte-parole|Official Report|House of Commons|House of Lords|hon\. (?:Member|Friend)|Sprawozdanie Zarządu z działalności|ustawy o ofercie publicznej|Sista ansökningsdag|tillsvidareanställning|Contract Notice|Find a Tender|Contracting authority|receipt of tenders|est une? (?:homme|femme) d'affaires|née? le \d|This policy (?:sets out|applies|describes)|The policy applies to|codice disciplinare|(?:nach|laut) (?:Angaben|Medienberichten)|selon (?:le communiqué|l'AFP)|gepubliceerd|held in public|Cllr|remuneration (?:report|policy)|obituary|Nachruf|In stiller Trauer|in loving memory)(?-u:\b)|mã chứng khoán|(?m:^)[ \t]*(?iu:Example|Beispiel|Exemple|Ejemplo|Exemplo|Esempio|Voorbeeld|Przykład|Příklad|Örnek|Ví dụ|Contoh|Exempel|Esimerkki|Eksempel)[ \t]?:|Thông cáo báo chí|THÔNG CÁO BÁO CHÍ|thông cáo báo chí|Tuyển dụng|tuyển dụng|TUYỂN DỤNG|Hội đồng nhân dân|HĐND|Siaran Pers|siaran pers|SIARAN PERS|Lowongan|lowongan|LOWONGAN|ข่าวประชาสัมพันธ์|รับสมัคร|Прес-реліз|прес-реліз|ПРЕС-РЕЛІЗ|пресс-релиз|ПРЕСС-РЕЛИЗ|Δελτίο Τύπου|ΔΕΛΤΙΟ ΤΥΠΟΥ|δελτίο τύπου|BASIN BÜLTENİ|Basın Bülteni|İş ilanı|iş ilanı|Comunicado de prensa|Informacja prasowa|INFORMACJA PRASOWA|Tiskové prohlášení|Sajtóközlemény|SAJTÓKÖZLEMÉNY|Comunicat de presă|COMUNICAT DE PRESĂ|Pressemelding|Pressemeddelelse|Lehdistötiedote|LEHDISTÖTIEDOTE|Съобщение за медиите|प्रेस विज्ञप्ति|بيان صحفي|הודעה לעיתונות|新闻发布|新聞稿|新聞發布|招聘|誠徵|求人|채용 공고|채용공고|举例(?:：|:)|例如(?:：|:|，|,)|応募方法|ご応募ください|募集要項|プレスリリース|適時開示|お知らせ|求人票|年度报告|新闻稿|股东大会|株主総会|보도자료|주주총회|공시|Пресс-релиз|Статья \d+",
    )
    .expect("the public-context pattern compiles")
});

/// Words of published genres that tell of private matters, and of textbook exercises built
/// on made-up documents: a series' or radio drama's synopsis, an obituary, a review of a
/// novel, a news agency's wording, a regulator's final notice, a committee's report, a court
/// ruling's summary, a council's public session, a job advert, a tender notice, a reference
/// work's history of a firm, a template; in English, German, French, Spanish, Italian and
/// Dutch (a Dutch ruling's ECLI number and summary, a reading exercise); published results
/// (Japanese), a school's letter to all parents (Korean), a Swedish municipal council, a
/// Turkish news report's wording and court sentence; invented names or data (Italian,
/// French, Spanish); a chair's letter to shareholders, terms of service (`these Terms`), a
/// Chinese published case's headings (`【基本案情】`), a reference work's life dates
/// (`(Torino, 22 aprile 1909 – Roma, 30 dicembre 2012)`), a Vietnamese collective labour
/// agreement or a policy `issued on` a date (`ban hành ngày 15/01/2025`). What
/// [`super::is_exercise`] and
/// [`super::reads_public`] read, beside [`PUBLIC_CONTEXT`].
pub(super) static PUBLIC_GENRES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i-u)\b(?:(?:exercise|ejercicio|opgave|aufgabe|exercice|esercizio) \d+(?:\.\d+)?|season \d+,? episode \d+|(?u:é)pisode \d+|episode \d+|written by [A-Z]|directed by|programme guide|program guide|fiches? programmes?|plot summary|passed (?:away )?peacefully|beloved (?:wife|husband|mother|father) of|funeral (?:service|will be held)|in lieu of flowers|donations,? if desired|(?:serialised|serialized) novel|novelist|(?:her|his|their) (?:new|latest|debut) novel|the novel's|the book's (?:hero|heroine|narrator)|en un comunicado|comunic(?:(?u:ó)|o) este|anunci(?:(?u:ó)|o) este|seg(?u:ú)n inform(?u:ó)|answer the (?:following )?questions|read the (?:memo|e-?mail|letter|text|passage|dialogue) (?:and|below)|an? (?:fictional|fictitious|made-up) (?:company|firm|person|employee|organi[sz]ation)|beantworten sie die (?:folgenden )?fragen|(?:fiktive[nrs]?|erfundene[nrs]?) (?:firma|unternehmen)|r(?iu:e|é)pondez aux questions|entreprise fictive|(?:nomi|dati) (?:inventati|fittizi)|(?:noms|donn(?u:é)es) fictifs|(?:nombres|datos) ficticios|responda a las preguntas|contesta las preguntas|empresa ficticia|final notice|the regulator (?:has )?fined|oral evidence|written submissions|report of session|select committee|resumen de sentencia|tribunal superior de justicia|(?:des)?estima el recurso|seduta pubblica|(?u:ö)ffentliche sitzung|s(?u:é)ance publique|sesi(?u:ó)n p(?u:ú)blica|key responsibilities|about the role|stellenanzeige|(?:deine|ihre) aufgaben|invites tenders|invitation to tender|tender notice|procurement portal|(?:was|were) founded in (?:1[89]|20)\d\d|founded in (?:1[89]|20)\d\d (?:in|by)|(?:gericht|bag|bgh|lag|olg) (?:hat )?(?:entschied|entschieden|urteilte)|di cosa ti occuperai|ecli:[a-z]{2}:[a-z]+:\d{4}|inhoudsindicatie|lees de (?:brief|tekst|e-?mail)|beantwoord (?:daarna )?de vragen|(?-i:TEMPLATE)|signori azionisti|(?:lettera del presidente )?agli azionisti|dear shareholders|chers actionnaires|(?-i:these Terms))\b|(?u:期決算|年間配当|학부모님께|가정통신문|[Kk]ommunfullmäktige|yaptığı açıklamada|cezasına çarptırdı|【基本案情】|【裁判结果】|【裁判理由】)|(?iu:thỏa ước lao động tập thể|ban hành ngày \d)|\([A-Z][a-z]+(?: [A-Z][a-z]+)?, \d{1,2} [a-z]+ \d{4} (?:(?u:–|—)|-) [A-Z][a-z]+(?: [A-Z][a-z]+)?, \d{1,2} [a-z]+ \d{4}\)|\((?:m/w/d|w/m/d|f/m/d|m/f/d|h/f)\)|(?i-u:required): \(a\)",
    )
    .expect("the public-genre pattern compiles")
});

/// A passage's source in a published novel, story collection or advice column, as its
/// last line gives it (`— from *Title*, a novel (Press, 2022), p. 88`, `— Extrait du roman
/// *…*`, `(Aus: …, „…“, Roman, Hamburg 2020, S. 143)`, `all characters are fictitious`,
/// `Letters are edited for length and published anonymously`): fiction's letters and
/// e-mails, and readers' letters as a paper prints them, whose secrets are the story's or
/// given for print (issue 16, fifteenth round). Read by [`super::is_fiction`].
pub(super) static FICTION_SOURCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i-u)\b(?:a novel (?:\(|of )|a novel[;,.)]|in the collection \*|extrait du roman|aus dem roman|dal romanzo|de la novela|uit de roman|characters are fictitious|a work of fiction|letters (?:may be|are) edited|edited for length|published anonymously|anonymisiert ver(?u:ö)ffentlicht)|(?-i:, Roman, [A-Z][a-z]+ \d{4})",
    )
    .expect("the fiction-source pattern compiles")
});

/// A screenplay's scene heading (`INT. OPEN-PLAN OFFICE — NIGHT`, `EXT. CITY BRIDGE -
/// CONTINUOUS`): the letters and e-mails in a script are its props. Read by
/// [`super::is_fiction`], which wants two, or one and a [`SCENE_TRANSITION`].
pub(super) static SCENE_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?m)^(?:INT|EXT|INT\./EXT)\. [^\n]{1,80} (?:—|–|-) (?:DAY|NIGHT|MORNING|EVENING|CONTINUOUS|LATER|DAWN|DUSK)[ \t]*$",
    )
    .expect("the scene-heading pattern compiles")
});

/// A screenplay's transition on a line of its own (`CUT TO:`, `FADE IN:`, `FADE OUT.`,
/// `DISSOLVE TO:`, `SMASH CUT TO:`, `MATCH CUT TO:`).
pub(super) static SCENE_TRANSITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^[ \t]*(?:(?:SMASH |MATCH |JUMP )?CUT TO:|FADE (?:IN|OUT)[:.]|DISSOLVE TO:)[ \t]*$")
        .expect("the transition pattern compiles")
});

/// A policy's words about itself (`This policy explains how …`, `applies to all UK staff`):
/// a published rule for everyone, whose `confidential` (`Medical information … is handled
/// by HR only`, `Reports are confidential to each family`) promises secrecy rather than
/// keeping one: such a text reads as public, and words of secrecy do not outweigh that
/// (issue 16, fourteenth round).
pub(super) static POLICY_SELF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i-u)\bthis (?:policy|procedure|guidance) (?:explains|sets out|describes|outlines|covers|applies)\b|\bapplies to all (?:[a-z]+ )?(?:staff|employees|workers|pupils|students)\b",
    )
    .expect("the policy pattern compiles")
});
