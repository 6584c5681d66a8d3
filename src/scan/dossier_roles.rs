//! The vocabulary [`super`] reads for documents that name nobody (issue 16, the scan's
//! fifth round): board minutes that speak of `the CFO` and `le directeur général`, severance
//! clauses with a sum and no name, a salary table by grade; and for the public texts that
//! look like them (a confidential helpline, a city council's minutes). Each list is in the
//! languages the corpus parts use (English, German, French, Italian, Spanish, Portuguese,
//! Dutch, Polish, Swedish, Norwegian, Finnish, Czech, Russian, Turkish, Japanese, Chinese,
//! Korean).
//!
//! ASCII letters fold case (`(?i-u)`, as [`super::MATTERS`] explains); other letters match
//! as written, so the lists give the capitalised forms a title or a sentence start uses.

use regex::Regex;
use std::sync::LazyLock;

/// Offices ([`ROLES_SRC`]) and job counts ([`HEADCOUNT_SRC`]) in one pattern: a line is
/// searched once for both, and a match starting with a digit is a job count.
pub(super) static OFFICES_AND_JOBS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("{ROLES_SRC}|{HEADCOUNT_SRC}")).expect("the offices pattern compiles"));

/// A person named by an office (`the CFO`, `Finance Director`, `le directeur général`,
/// `Prezes Zarządu`, `генеральный директор`, `代表取締役`, `대표이사`). Each distinct office
/// counts as one person of the text. Searched together with [`HEADCOUNT_SRC`] in one pass
/// ([`OFFICES_AND_JOBS`]).
pub(super) const ROLES_SRC: &str = r"(?i-u:\b(?:CEO|CFO|COO|CTO|CHRO|CISO|CRO|CPO|General Counsel|Chief [A-Z][a-z]+ Officer|(?:Vice[- ])?Chair(?:man|woman|person)?|Managing Director|Finance Director|HR Director|Sales Director|Regional (?:Sales )?Director|Head of [A-Z][a-z]+|VP (?:of )?[A-Z][a-z]+|Vice President|Company Secretary|line manager|direct manager|(?:Vorstands)?vorsitzende[rn]?|Geschäftsführer(?:in)?|Finanzvorstand|Finanzvorständin|Personalleiter(?:in)?|Betriebsarzt|Leitung Personal|directeur général|directrice générale|PDG|DRH|directeur financier|directrice financière|directeur juridique|directrice juridique|Amministratore Delegato|Direttore Generale|Direttore Finanziario|Collegio Sindacale|Direzione Risorse Umane|Director(?:a)? General|Director(?:a)? Financier[oa]|Consejero Delegado|Jefe de [A-Z][a-z]+|responsable directo|Diretor(?:a)?[- ]Presidente|Diretor(?:a)? Financeir[oa]|gerente regional|Prezes Zarządu|Wiceprezes\w*|Członek Zarządu|Dyrektor Finansow\w+|Kierownik \w+|VD|ekonomichef\w*|styrelseordförande\w*|personalchef\w*|närmaste chef|daglig leder|styreleder\w*|økonomisjef\w*|toimitusjohtaja\w*|talousjohtaja\w*|finanční ředitel|generální ředitel|předseda představenstva|bestuursvoorzitter|voorzitter|directeur operations|teamleider|leidinggevende|Genel Müdür\w*|Mali İşler Direktörü|Yönetim Kurulu Başkanı)\b)|генеральн[а-яё]+ директор[а-яё]*|финансов[а-яё]+ директор[а-яё]*|[Пп]редседател[а-яё]+|[Зз]аместител[а-яё]+ директора|[Нн]ачальник[а-яё]* [а-яё]+|代表取締役|取締役|社長|本部長|部長|課長|議長|監査役|産業医|評価者|总经理|董事长|财务总监|独立董事|销售总监|대표이사|재무담당|사외이사|이사회 의장|팀장";

/// A private document's kind named where its title stands (the text's first three lines: a
/// payload's type and summary may come first): board
/// or executive minutes, a term sheet, a performance review or improvement plan, a
/// disciplinary letter, a settlement or severance agreement, an HR or medical case note, an
/// internal audit finding, a legal opinion, a salary structure or staffing plan, an investor
/// update. Public minutes (a general meeting's) are [`super::PUBLIC_CONTEXT`].
pub(super) static KINDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i-u:\b(?:minutes of the (?:board|executive|management)|board minutes|closed session|term sheet|performance improvement plan|performance review|case note|(?:settlement|separation|severance) agreement|internal audit|audit memo|salary bands|reorg(?:anisation|anization)? plan|investor update|Niederschrift über die Sitzung|Sitzung des (?:Aufsichtsrats|Vorstands)|(?:Vorstands|Aufsichtsrats)sitzung|Protokoll der (?:Sitzung|Vorstands\w*|Aufsichtsrats\w*|Geschäftsführung)|Aufhebungsvertrag|Abmahnung|Gesprächsnotiz|Gehaltsstruktur|Procès-verbal de la réunion du conseil|Entretien annuel|Convention de rupture|audit interne|Verbale della riunione|contestazione disciplinare|Piano (?:di )?riorganizzazione|Acta de la (?:sesión|reunión)|ACTA DE LA (?:SESIÓN|REUNIÓN)|ATA N\.º|Relatório de Auditoria|Contrato de loca\w+|CONTRATO DE LOCA\w+|Convocation à un entretien préalable|Valutazione annuale|Beoordelingsverslag|Beoordelingsgesprek|Evaluación de desempeño|Acuerdo de (?:desvinculación|salida)|Opinión legal|Ata da Reunião do Conselho|Parecer|Protokół z posiedzenia|Notatka służbowa|Protokoll fört vid styrelsemöte|Rehabiliteringsplan|Lönerevision|Styreprotokoll|Hallituksen kokouksen pöytäkirja|Zápis z jednání představenstva|Notulen vergadering|Verslag functioneringsgesprek|Vaststellingsovereenkomst|Yönetim Kurulu Kararı|Performans Değerlendirme|fesih protokolü))|Протокол заседания|Служебная записка|[Шш]татно[а-яё]* расписани[а-яё]*|取締役会議事録|人事考課|人事評価シート|调薪|産業医面談|タームシート|董事会[^\n]{0,12}纪要|解除劳动合同的通知|内审发现|이사회 의사록|징계 결과|연봉 조정안|투자자[^\n]{0,6}업데이트",
    )
    .expect("the kinds pattern compiles")
});

/// Jobs counted (`85 postes`, `22 esuberi`, `120명`, `約140名`): a cut or a move of staff,
/// which a plan or minutes name and a public text rarely does before it is announced. A
/// match starts with a digit, an office's never does.
pub(super) const HEADCOUNT_SRC: &str = r"(?i-u:\b\d{1,5} (?:roles|positions|jobs|employees|FTEs?|staff|postes|salariés|emplois|Stellen|Arbeitsplätze|Mitarbeiter(?:innen)?|dipendenti|esuberi|trabajadores|empleados|puestos|funcionários|colaboradores|etatów|pracowników|tjänster|årsverk|stillinger|ansatte|henkilön|zaměstnanců|personel|çalışan|medewerkers|arbeidsplaatsen|banen)\b)|[0-9]{1,5} ?(?:명|名)|[0-9]{1,5} (?:сотрудник[а-яё]*|работник[а-яё]*|человек)";

/// Matters of the documents above beyond [`super::MATTERS`]' own words, which it is
/// compiled with (one pass per line): restructuring, deals, appraisals, medical leave,
/// discipline, settlements and what a board decides, in the same languages.
pub(super) const MORE_MATTERS_SRC: &str = r"(?i-u:\b(?:restructuring|reorg|plant closure|outsourcing|job cuts|WARN notices?|realised losses|realized losses|restate\w*|recovery claims|exclusivity|enterprise value|non-compete|attainment|termination of employment|fit note|statutory sick pay|occupational health|expense claims|ethics committee|bridge round|Aufsichtsrat|Unternehmenswert|Obergrenze|verbindliches Angebot|Zielgesellschaft|Beendigung|Vergütung|Vertragsstrafe|Haftung|Gewährleistung|Pauschale|Arbeitsverhältnis\w*|freigestellt|Freistellung|arbeitsunfähig|Therapie|Wiedereingliederung|Grundgehalt|Zielbonus|Stellenabbau|Sozialplan|Schließung|Betriebsrat|fermeture|suppression de (?:\d+ )?postes|reclassement|indemnités|information-consultation|CSE|appréciation|en deçà des attentes|prime variable|plan d'amélioration|préavis|indemnisation|non-concurrence|constat|criticité|habilitations|offerta vincolante|private equity|TFR|trattativa|incentivo all'esodo|bilancio|sconto|penale|giustificazioni|cierre|expediente de regulación|ERE|comité de empresa|mejora voluntaria|reclamación|calificación|áreas de mejora|necesita mejorar|no competencia|condena en costas|debêntures|memorando de entendimentos|fato relevante|justa causa|aviso prévio|FGTS|reclamação trabalhista|danos morais|zwolnienia grupowe|restrukturyzac\w+|odpraw\w+|kar\w+ nagany|akt osobowych|rozwiązani\w+ umowy|kara umowna|omstrukturering|MBL|Försäkringskassan|företagshälsovård\w*|lönerevision|nedbemanning|sluttpakke\w*|tillitsvalgte|muutosneuvottelu\w*|vähennyks\w*|irtisano\w*|propouštění|zmrazení mezd|úsporná opatření|bankconvenant\w*|waiver|dividenduitkering|transitievergoeding|vrijgesteld|verbetertraject|mantelzorg|quejas|plan de mejora|incremento salarial|por debajo de lo esperado|oferta vinculante|exclusiva|exclusividad|exclusivité|no comunicar|disciplinaire|entretien préalable|absences? injustifiées?|résiliation|médiation|contrat de (?:travail|distribution)|penal[ei]|desligamento|aluguel|multa|auditoria|afastamento|Punti di forza|Aree di miglioramento|Aumento proposto|Valutazione complessiva|Eindoordeel|onvoldoende|periodiek|vrijstelling|kıdem tazminatı|ihbar tazminatı|feshedil\w*|sendika\w*|işe iade|gelişim planı|zam önerisi)\b)|сделк[а-яё]+|приобретени[а-яё]+|дисциплинарн[а-яё]+|выговор[а-яё]*|служебн[а-яё]+ проверк[а-яё]+|разглашени[а-яё]+|оклад[а-яё]*|преми[а-яё]+|сокращ[а-яё]+|閉鎖|早期退職|配置転換|特別損失|議案|適応障害|復職|賞与|失注|独占交渉|退職慰労金|昇給|改善計画|目標達成率|调薪|代持|仲裁|계약금액|지체상금|위약금|손해배상|尽职调查|对价|并购|经济补偿金|绩效考核|追偿|排他条款|구조조정|희망퇴직|위로금|노동조합|감봉|인사고과|인상률|순소진|인력 감축|기업가치";

/// Words that keep these documents from others, beyond [`super::SECRECY`]: silence until
/// signing, insider information, an audience named as the only one (`exec staff only`,
/// `nur Geschäftsleitung`, `仅限审计委员会`), not to be disclosed before an announcement;
/// and the marking `confidential` (or `secret`, `internal only`, `not for circulation`) in
/// the languages the lists above lack: Greek, the South Slavic ones, Welsh, Finnish,
/// Estonian, Latvian, Lithuanian, Albanian, Basque, Maltese, Slovak, Czech, Hungarian,
/// Romanian, Bulgarian, Ukrainian, Icelandic, Danish and Norwegian, Irish, Tagalog,
/// Indonesian and Malay, the Turkic ones, Mongolian, Georgian, Armenian, Vietnamese,
/// Hebrew, Persian, Urdu, the Indic scripts, Sinhala, Thai, Lao, Khmer, Burmese, Amharic,
/// Chinese, Japanese and Korean.
pub(super) static MORE_SECRECY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i-u:\b(?:Stillschweigen|massima riservatezza|riservatezza|fram till offentliggörandet|bis zur Veröffentlichung|until (?:it is )?(?:publicly )?(?:announced|disclosed)|jusqu'à (?:la publication|l'annonce)|unntatt offentlighet|geheimhouding|tajemnic\w+|sigilo|gizli tutul\w*|no divulgar|sin informar|ne sera pas communiqué|pas communiqué|niet extern|nicht öffentlich|ei tiedoteta|nebude zveřejněn\w*|(?:exec(?:utive)?|staff|people team|board|committee|investors?|partners?)\b[a-z ]{0,12} only|nur (?:Geschäftsleitung|Vorstand|intern)|solo (?:comitato|per)[a-z ]{0,24}|per il solo|ej förhandlat|within your partnership|subject to contract|out of the board portal|not be told|no all-hands|não (?:comente|comentar|compartilhe)|niet met [a-z ]{0,20}delen|no (?:comentar|compartir) con)\b)|конфиденциальн[а-яё]+|не подлежит разглашению|外部公開を禁止|社外秘|不得对外披露|仅限|内部检讨|내부 검토용|외부 공개를 금지|에게만 공유|(?i:\b(?:εμπιστευτικ\w*|απόρρητ\w*|povjerljiv\w*|poverljiv\w*|поверљив\w*|доверлив\w*|strogo zaupno|zaupno|\w{0,2}yfrinachol|luottamuksellis\w*|luottamuksellinen|ei jaeta|salassa pidettävä|konfidentsiaal\w*|ainult sisekasutuseks|konfidenciāl\w*|konfidencial\w*|konfidenciál\w*|konfidentzial\w*|kunfidenzjali|dôvern\w*|neverejn\w*|důvěrn\w*|neveřejn\w*|bizalmas\w*|confidențial\w*|поверителн\w*|конфіденційн\w*|не для розголошення|не для распространения|для служебного пользования|trúnaðarmál\w*|fortrolig\w*|rúnda|faoi rún|kişiye özel|kumpidensyal|konpidensyal|rahasia|rahsia|sulit dan persendirian|məxfi|maxfiy|құпия|нууц|კონფიდენციალურ\w*|გაუმჟღავნებელ\w*|գաղտնի\w*|tuyệt mật|lưu hành nội bộ)\b)|חסוי|סודי ביותר|محرمانه|رازدارانہ|خفیہ|গোপনীয়|ரகசிய|இரகசிய|గోప్య|ಗೌಪ್ಯ|രഹസ്യ|ગોપનીય|ਗੁਪਤ|गोप्य|රහස්‍ය|රහසිගත|ลับเฉพาะ|ลับมาก|ลับที่สุด|เป็นความลับ|ເປັນຄວາມລັບ|សម្ងាត់|လျှို့ဝှက်|ሚስጥር|ምስጢር|機密|極秘|部外秘|取扱注意|机密|绝密|僅供內部|内部资料|기밀|비공개",
    )
    .expect("the more-secrecy pattern compiles")
});

/// A clause's number opening a line: `§ 3`, `Art. 7`, `Article 4`, `第五条`, `제3조` (a
/// contract's or a statute's), or a numbered point, `7.1` or `2. Rabat` (any list's).
pub(super) static CLAUSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^[ \t]*(?:(§ ?[0-9]|Art(?:\.|icle|ículo|icolo|ikel|igo)? ?[0-9]|第[〇一二三四五六七八九十百0-9]+条|제 ?[0-9]+ ?조|(?i-u:cl)(?:á|a|Á|A)(?i-u:usula) \S+)|[0-9]{1,2}\.[0-9]{1,2}\.? |[0-9]{1,2}\. [A-ZÀ-ÖØ-ÞĄĆĘŁŃŚŹŻА-ЯЁ])",
    )
    .expect("the clause pattern compiles")
});

/// A contract named (`agreement`, `Vertrag`, `umowy dostawy`, `合同`, `договор`): numbered
/// points in a text naming one are its clauses.
pub(super) static CONTRACT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i-u:\b(?:contract|agreement|\w*vertrag\w*|contrat|contratto|contrato|umow\w+|avtal\w*|overeenkomst|sözleşme\w*|smlouv\w+|sopimu\w+)\b)|合同|契約|계약|договор[а-яё]*",
    )
    .expect("the contract pattern compiles")
});

/// `confidential` as a service or any employee's duty rather than a text kept from others
/// (read around a word of secrecy by [`super::secret_kept`]): a confidential helpline or
/// employee assistance, data handled or treated confidentially, confidential documents
/// printed or stored at home, a job ad asking for discretion with confidential information
/// (in English; in Italian, Vietnamese and Chinese as a duty: storing the staff's confidential
/// files, keeping information confidential); a policy's promise to whoever reports (`you may
/// report anonymously`, `the identity of the reporter will be kept confidential`, `được bảo
/// mật tuyệt đối`).
pub(super) static SERVICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i-u:confidential (?:employee assistance|helpline|hotline|counsel+ing|support line|reporting (?:line|channel))|(?:handled?|treated?|dealt with|deal with) (?:[a-z]+ ){0,2}(?:confidentially|in confidence)|vertrouwelijk omgaan|vertrouwelijk (?:behandeld|behandelen)|(?:trait\w+|traitées?) (?:de (?:manière|façon) )?confidentiel\w*|vertraulich (?:behandelt|behandeln)|(?:tratad[oa]s?|tratará) (?:de (?:forma|manera) )?confidencial\w*|(?:print|store|leave) confidential (?:documents|information|data)|(?:discretion|experience|familiarity) (?:with|in) (?:handling )?confidential (?:information|data|matters)|(?:archiviazione|gestione|trattamento) (?:della |dei |delle )?(?:documentazione|dati|documenti|pratiche) riservat[aei]|(?:may|can|could) (?:also )?(?:be )?(?:report|raise|submit|made|submitted|raised|filed|contact|speak)\w*(?: [a-z]+){0,3} anonymously|identit(?:y|ies)(?: of [a-z ]{1,30})? (?:will|shall) (?:be |remain )(?:kept |treated |protected )?(?:strictly )?(?:confidential|in confidence))|(?u:bảo mật thông tin|được bảo mật tuyệt đối|妥善保密)",
    )
    .expect("the service pattern compiles")
});

/// A public body's meeting (`MINUTES OF THE REGULAR CITY COUNCIL MEETING`, `CALL TO ORDER`,
/// `PUBLIC COMMENT`, `Gemeinderat`, `conseil municipal`): its minutes are published by law,
/// so the minutes' shape alone ([`super::super::rules`]' `meeting_minutes`, `document_title`)
/// marks no private document. Also a Chinese public hearing's minutes (`公开听证会`, `现予公开`:
/// "hereby made public", `旁听群众`: the public in attendance).
pub(super) static PUBLIC_BODY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i-u:\b(?:city council|town council|county (?:board|commission)|board of (?:supervisors|aldermen|county commissioners|education)|council ?members?|call to order|public comment|planning commission|Gemeinderat|Stadtrat|Kreistag|conseil municipal|consiglio comunale|gemeenteraad|kommunfullmäktige|(?:parish|borough|district) council|members of the public|Cllr)\b)|(?u:人民代表大会|人大常委会|常务委员会|公开听证会|现予公开|旁听群众)",
    )
    .expect("the public-body pattern compiles")
});

/// A confidentiality marking opening one of a document's first lines (after a LoopX
/// todo's checkbox and priority tag, `- [ ] [P2] `, if any), alone or before a separator
/// (`POVJERLJIVO`, `ΕΜΠΙΣΤΕΥΤΙΚΟ –`, `Preifat a chyfrinachol`, `ลับมาก`,
/// `Konfidentsiaalne:`), in the languages [`super::super::rules`]' `confidential_marking`
/// row does not cover (read by [`super::marked`]; case ignored). A title that merely holds
/// the word (`Politika o povjerljivosti`) is no marking.
pub(super) static MARKING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?im)^(?:\[P\d\]|- \[[ x]\]|[ \t#*>\[(【■])*(?:strogo |strikt |strengt |strictly |ściśle |přísně |prísne |szigorúan |strict |строго |суворо |estrictamente |strettamente |sangat )?(?:εμπιστευτικ[οό]|απ[οό]ρρητο|povjerljivo|poverljivo|поверљиво|доверливо|zaupno|preifat a (?:ch|c|g)yfrinachol|(?:ch|c|g|ngh)yfrinachol|luottamuksellinen|salainen|sisäinen|konfidentsiaalne|asutusesiseseks kasutamiseks|konfidenciāli|konfidencialu|konfidencialiai|konfidenciale|konfidencial|konfidentzial|kunfidenzjali|dôverné|neverejné|důvěrné|neveřejné|bizalmas|confidențial|confidential|поверително|конфіденційно|конфиденциально|для служебного пользования|poufne|vertrouwelijk|konfidentiellt|fortroligt|fortrolig|trúnaðarmál|gizli|gİzlİ|kişiye özel|kİşİye özel|riservat[oa]|confidencial|rahasia|rahsia|sulit|kumpidensyal|mật|tuyệt mật|lưu hành nội bộ|سري|سري للغاية|سرّي|محرمانه|خفیہ|חסוי|סודי|गोपनीय|গোপনীয়|ரகசியம்|இரகசியம்|గోప్యం|ಗೌಪ್ಯ|രഹസ്യം|ગોપનીય|ਗੁਪਤ|गोप्य|රහස්‍ය|ลับ|ลับมาก|ลับเฉพาะ|ลับที่สุด|ລັບ|ເປັນຄວາມລັບ|សម្ងាត់|လျှို့ဝှက်|ሚስጥራዊ|ምስጢራዊ|კონფიდენციალური|საიდუმლო|գաղտնի|нууц|құпия|maxfiy|məxfi|rúnda|機密|極秘|部外秘|社外秘|机密|绝密|密件|僅供內部參考|内部资料|기밀|대외비)[ \t*\])】]*(?:$|[-:：|/(（,]|–|—)",
    )
    .expect("the marking pattern compiles")
});

/// A copy's own label that it is the published one (`— public version`, `(version
/// publique)`, `（公開版）`, `(bản công bố)`: after a bracket, a dash, a bar, a colon or a
/// comma, or opening the line; `keep it out of the public version` is no label), read in a
/// document's first lines by
/// [`super::published_copy`]: a policy's promise of secrecy (`we will treat every report in
/// confidence`) is then no secret kept.
pub(super) static PUBLISHED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i:(?:^|[(\[|:,-]|（|—|–)[ \t]*(?:public version|published version|version publique|versión pública|versão pública|öffentliche (?:fassung|version)|versione pubblica|openbare versie|wersja publiczna|publiczna wersja|публичная версия|публічна версія|offentlig version|offentlige versjon|julkinen versio|veřejná verze|verejná verzia|nyilvános változat|versiunea publică|δημόσια έκδοση|kamu versiyonu|versi publik|versi awam|bản công bố|bản công khai)\b)|(?:^|[(\[|:,-]|（|—|–|【)[ \t]*(?:公開版|公开版|공개본|공개용)",
    )
    .expect("the published pattern compiles")
});

/// A message sent to a crowd rather than to a person (issue 16, fourteenth round): a `To:`
/// header naming everyone (`All Staff`, `All customers`, `Alle Mitarbeitenden`, `Tous les
/// collaborateurs`, an `all-staff@` or `announce@` list) or a `Subject:` carrying a mailing
/// list's tag (`Re: [fahrplan-dev] …`); and a postmortem its status page published
/// (`Published 3 March`). Their headers and sections are then no sign of a private
/// document: what they say is judged as any text's is.
pub(super) static BROADCAST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?im)^[ \t]*(?:(?:To|An|À|A|Para|Aan|Til|Till|Do|Kime|Komu|Címzett|宛先|收件人|받는 사람)[ \t]*(?::|：)[ \t]*(?:all\b|alle\b|tous\b|toutes\b|todos\b|todas\b|tutti\b|iedereen\b|wszyscy\b|everyone\b|[\w.-]*(?:all|staff|everyone|announce|newsletter|news)[\w.-]*@)|(?:Subject|Betreff|Objet|Asunto|Oggetto|Onderwerp|Temat|Assunto|Ämne|Emne|Aihe|Předmět|Konu|件名|主题|主題|제목)[ \t]*(?::|：)[ \t]*(?:(?:re|aw|sv|vs|tr|fwd?|wg|r|rv|odp|ynt)[ \t]*:[ \t]*)*\[[\w.-]+\])|\b(?:published|posted) (?:on )?(?:\d{1,2} [A-Z][a-z]+|[A-Z][a-z]+ \d{1,2}|\d{4}-\d\d-\d\d)\b",
    )
    .expect("the broadcast pattern compiles")
});

/// A classification scheme's line: a level's name opening the line before its definition
/// (`CONFIDENTIAL: limited to people who need it`, `INTERNAL – staff only`). Three or more
/// make a handbook's guide to the labels, not a labelled document.
pub(super) static LEVEL_DEFINED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?m)^[ \t*_#>-]*(?:PUBLIC|INTERNAL(?: USE)?(?: ONLY)?|(?:STRICTLY |HIGHLY )?CONFIDENTIAL|RESTRICTED|(?:TOP )?SECRET|SENSITIVE|Public|Internal|(?:Strictly |Highly )?Confidential|Restricted|Secret)[*_]*[ \t]*(?::|—|–|-)[ \t]+\S",
    )
    .expect("the level pattern compiles")
});
