//! Tests of the issue-16 fourteenth round (session of 2026-12-06, fourth): the attack's
//! leftovers (a dash for `is` before a safe's code, a Japanese password change, D's Phobos
//! exceptions, PHP frames without their header, encoded tokens wrapped at any width).

use super::second_pass_tests::{assert_found, assert_quiet, rules_of_text};

#[test]
fn generic_secrets_after_a_dash_or_in_a_japanese_change_warn() {
    assert_found(&[
        ("Заметки к переезду:\nКод от сейфа — 39-17-52, не теряй.", "access_code", "warn"),
        ("door code – 4471 (back entrance)", "access_code", "warn"),
        ("明日からパスワードを「Kx9#mvT2qr」に変更します。", "password_in_prose", "warn"),
    ]);
    assert_quiet(&[
        "Код от сейфа — у Марины, спроси её.",
        "door code – ask the front desk",
        "パスワードを「設定」画面で変更してください。",
    ]);
}

#[test]
fn d_phobos_exceptions_and_php_frames_without_a_header_block() {
    assert_found(&[
        (
            "std.conv.ConvException@/usr/include/dmd/phobos/std/conv.d(2437): Unexpected 'x' when converting from type string to type int\n----------------\n??:? pure @safe int std.conv.toImpl!(int, string).toImpl(string) [0x55d2c8f1a2b3]",
            "runtime_trace",
            "block",
        ),
        (
            "#0 /var/www/app/src/Controller/OrderController.php(88): App\\Service\\Cart->total()\n#1 /var/www/app/vendor/symfony/http-kernel/HttpKernel.php(163): App\\Controller\\OrderController->show()\n#2 {main}",
            "runtime_trace",
            "block",
        ),
        ("#0 /srv/shop/index.php(12): run()\n#1 {main}", "runtime_trace", "block"),
    ]);
    assert_quiet(&[
        "Use std.conv.to!int instead of parsing by hand.",
        "#0 priority: the checkout fix in OrderController.php(88) is tracked in #1",
        "0 items left",
    ]);
}

#[test]
fn a_token_encoded_and_wrapped_at_any_width_blocks() {
    use base64::Engine as _;
    let token = "ghp_R8mXq2Lw7NvB4cT9yHk1ZpD6sFj3GaUe0oWi";
    let wrap = |encoded: &str, width: usize| {
        encoded.as_bytes().chunks(width).map(|c| String::from_utf8_lossy(c).into_owned() + "\n").collect::<String>()
    };
    let b64 = base64::engine::general_purpose::STANDARD.encode(token);
    let b32 = super::twelfth_round_tests::b32(token);
    for (encoded, width) in [(&b64, 40), (&b64, 44), (&b32, 40), (&b32, 48), (&b32, 60)] {
        assert!(encoded.len() > width, "the encoding must wrap at {width}");
        let found = rules_of_text(&format!("mirror token:\n{}", wrap(encoded, width)));
        assert!(found.iter().any(|(r, s)| r == "github_token" && s == "block"), "{width}: {found:?}");
    }
}

#[test]
fn shapes_found_missing_by_the_twentieth_blind_score() {
    assert_found(&[
        (
            "const deployKey = [\n  \"-----BEGIN OPENSSH PRIVATE KEY-----\",\n  \"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUx\",\n  \"OQAAACCT16Fl81FcHFxiVzJMEOux1BHYhdcNBm0kGszJRODvNgAAAIj6m8VW+pvFVgAAAAtzc2gt\",\n].join(\"\\n\");",
            "private_key_block",
            "block",
        ),
        (
            "twine password (paste without spaces): pypi-AgE IcHlwaS5 vcmckIjE CvsZf7Md hC7APDJ4 ifPyPv92 mvAcxfEF qkYtZ2kU bn1WU0DB",
            "pypi_token",
            "block",
        ),
        (
            "Treasury wallet recovery phrase (write on paper, then delete this): quarter orbit candle tunnel kettle lantern galaxy frozen wisdom tomato tunnel violin",
            "seed_phrase",
            "warn",
        ),
        ("Hinweis fürs Büro: Tresor-PIN ist jetzt 009762, alte PIN gilt ab Montag nicht mehr.", "access_code", "warn"),
        ("git fetch origin && git reset --hard origin/main && git clean -fdx", "operational_command", "warn"),
    ]);
    assert_quiet(&[
        // A sentence about the marker, and a bare `recovery:` label over prose.
        "Keys start with \"-----BEGIN OPENSSH PRIVATE KEY-----\" and must never be committed.",
        "Recovery plan: we will restore from the backup and then call the vendor and check every system again today",
        "pypi-AgE is how every PyPI token starts",
        "git reset --soft HEAD~1 keeps the changes staged",
    ]);
}

#[test]
fn depositions_courtrooms_interviews_and_more_chat_logs_block() {
    assert_found(&[
        (
            "Q.  And when you arrived, who else was present?\nA.  Just Mr. Okonjo and the night supervisor.\nQ.  Did either of them tell you?\nMS. VANTERPOOL:  Objection, form.\nA.  No. Nobody said anything.",
            "court_turns",
            "block",
        ),
        (
            "THE COURT:  Counsel, are you ready?\nMR. ABERNATHY:  We are, Your Honor.\nTHE COURT:  Proceed.\nMR. ABERNATHY:  The defense calls Renata Solis.",
            "court_turns",
            "block",
        ),
        (
            "I: Can you walk me through it?\nP07: So I had the receipt on my phone.\nI: What did you do?\nP07: I emailed it to myself.",
            "court_turns",
            "block",
        ),
        (
            "(11:40:19 AM) hviljoen: db failover done\n(11:40:44 AM) jbergstrom: great, did the pool reconnect?\n(11:41:02 AM) hviljoen: two pods needed a kick\n(11:41:30 AM) jbergstrom: ok, writing it up",
            "dated_chat_log",
            "block",
        ),
        (
            "[2024-08-19 02:13] @sigrun:matrix.example.org: paged, looking\n[2024-08-19 02:21] @aditya.k:matrix.example.org: want me to flip it?\n[2024-08-19 02:22] @sigrun:matrix.example.org: yes please\n[2024-08-19 02:30] @aditya.k:matrix.example.org: flipped",
            "dated_chat_log",
            "block",
        ),
        (
            "Rosalind Achterberg  ·  Feb 2, 2024 09:14\nStill no refund.\n\nKwame (Support)  ·  Feb 2, 2024 10:02\nEscalated.\n\nRosalind Achterberg  ·  Feb 3, 2024 17:40\nAny date?\n\nKwame (Support)  ·  Feb 5, 2024 08:31\nReleased.",
            "chat_columns",
            "block",
        ),
    ]);
    assert_quiet(&[
        // An FAQ (its marks spaced as a deposition's too) and an interview guide's template.
        "Q.  How do I install it?\nA.  Run pip install foo.\nQ.  Does it work on Windows?\nA.  Yes, since 2.0.",
        "I: [introduce yourself and the study]\nP01: [participant introduces themselves]\nI: [ask question 1]\nP01: [participant answers]",
        // An agenda in Pidgin's clock shape, a timetable, a release ledger.
        "(10:00) Standup: all\n(10:15) Review: PR 812\n(11:00) Lunch: canteen",
        "Berlin  ·  Feb 2, 2024 09:14\nPlatform 4\nHamburg  ·  Feb 2, 2024 10:15\nPlatform 7\nMunich  ·  Feb 2, 2024 11:40\nPlatform 2",
        "[2025-03-02 21:14] Build: v1.4.2 tagged\n[2025-03-02 21:30] Deploy: staging ok\n[2025-03-03 09:00] Build: v1.4.3 tagged\n[2025-03-03 09:20] Deploy: prod ok",
        // An FAQ writes `Q:` / `Q. ` and is public.
        "Q: How do I reset my password?\nA: Use the portal.\nQ: Can I change my e-mail?\nA: Yes, in settings.",
        "Q. How do I reset my password?\nA. Use the portal.\nQ. Can I change my e-mail?\nA. Yes, in settings.",
        // Section numbers and a list are no speakers.
        "I: Introduction\nII: Scope\nIII: Method",
        "a.  first item\nb.  second item\nc.  third item",
    ]);
}

#[test]
fn operations_tools_output_blocks() {
    let found = |t: &str| assert_found(&[(t, "ops_run_output", "block")]);
    found(
        "[FIRING:2] KubePodCrashLooping (production payments-api critical)\n*Alert:* Pod payments/api-7c9d is crash looping",
    );
    found("Labels:\n - alertname = Disk usage > 90%\n - instance = db-replica-03:9100");
    found(
        "Cell In[14], line 3\n      1 cohort = df[df[\"signup_month\"] == \"2024-02\"]\n----> 3 retention.loc[\"w13\"]",
    );
    found("╷\n│ Error: updating RDS DB Instance (reporting-prod): operation error\n│\n╵");
    found("│ Error: creating EC2 Instance: InvalidParameterCombination\n│ \tstatus code: 400\n│\n╵");
    found(
        "          ID: postgresql-conf\n    Function: file.managed\n        Name: /etc/postgresql/15/main/postgresql.conf",
    );
    found(
        "    Error executing action `create` on resource 'template[/etc/chrony.conf]'\n    ================================================================================",
    );
    found("    initial call: 'Elixir.Notify.Dispatcher':init/1\n    pid: <0.2211.0>");
    found("  pool: tank\n state: DEGRADED\nstatus: One or more devices could not be used.");
    found("Attaching 1 probe...\n218811 cron             /bin/sh");
    found(
        "Level,Date and Time,Source,Event ID,Task Category\nError,3/11/2024 2:14:07 AM,Service Control Manager,7031,None,\"stopped\"",
    );
    found("#  @timestamp               @message\n1  2024-05-20 14:03:55.118  ERROR InvoiceRenderer failed");
    assert_found(&[(
        "14:02:11  Running with dbt=1.7.11\n14:02:12  Found 188 models, 412 tests, 9 seeds, 31 sources",
        "dbt_run_log",
        "block",
    )]);
    assert_quiet(&[
        "[FIRING:2] KubePodCrashLooping was the page that woke us; fixed by raising the memory limit.",
        "Labels: backend, needs-triage",
        "pool: tank (the big one)\nstate of the art: nothing better yet",
        "Attaching 3 screenshots to the ticket.",
        "ID: 4411\nFunction of the team: triage",
        "We run with dbt=1.7.11 in CI; see the adapter notes.",
    ]);
}

#[test]
fn a_policy_promising_confidentiality_is_public_and_a_form_of_blanks_is_a_template() {
    assert_quiet(&[
        "Sickness Absence Policy (v3.1, applies to all UK staff)\n\n1. Notification. If you are unable to work because of illness, tell your line manager by phone before 10:00 on the first day.\n2. Fit notes. From day 8 onwards a fit note from a GP is required.\n3. Pay. Company sick pay is paid according to length of service (see Appendix B); Statutory Sick Pay applies otherwise.\n4. Confidentiality. Medical information you share is handled by HR only and stored separately from your personnel file.",
        "労働条件通知書（ひな形）\n\n［　　］年［　］月［　］日\n［労働者氏名］殿\n使用者職氏名［　　　　　　］\n\n契約期間：期間の定めなし／期間の定めあり（［　］年［　］月［　］日〜［　］年［　］月［　］日）\n賃金：基本賃金　月給［　　　　］円",
    ]);
    // A letter about one employee that cites a policy is still private.
    let found = rules_of_text(
        "CONFIDENTIAL\n\nDear Ms. Okafor,\n\nFollowing your absence from 3 to 28 March (stress-related, fit note from Dr. Hale), the Sickness Absence Policy applies: your company sick pay ends on 14 April and your salary of £3,150 a month drops to Statutory Sick Pay. A return-to-work meeting with Mr. Byrne is booked for 2 April.\n\nYours sincerely,\nHR",
    );
    assert!(found.iter().any(|(_, s)| s == "block"), "{found:?}");
}

#[test]
fn chat_bot_webhooks_totp_uris_fly_tokens_and_php_arrays_block() {
    assert_found(&[
        ("webhook: https://mattermost.northwind.example/hooks/urei4nylz6pwved1g9caqu841j", "chat_bot_webhook", "block"),
        (
            "curl 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=f0d0865d-7a01-4cab-aeba-1f6b5b05bb90' -d @msg.json",
            "chat_bot_webhook",
            "block",
        ),
        (
            "otpauth://totp/Northwind:ops-admin@northwind.example?secret=6M2P5VJN6V5ON2K6AGO5SIRQR7GYNVBT&issuer=Northwind",
            "otp_secret_uri",
            "block",
        ),
        (
            "ENV FLY_API_TOKEN=\"FlyV1 fm2_TWSdW1C01RLjRP2QHM5VN/gelxFn38CJ8TILueI7dhWUCa6pW+/fsntOKecmB8cW\"",
            "provider_token",
            "block",
        ),
        ("        'key_secret' => 'aDu4JAyHKaXBMk1yiBqyikrt',", "secret_assignment", "block"),
        ("$config['key_secret'] = 'aDu4JAyHKaXBMk1yiBqyikrt';", "secret_assignment", "block"),
    ]);
    assert_quiet(&[
        "https://mattermost.northwind.example/hooks/xxxxxxxxxxxxxxxxxxxxxxxxxx",
        "otpauth://totp/Example:alice@google.com?secret=JBSWY3DPEHPK3PXP&issuer=Example",
        "'token' => 'required|string|min:8',",
        "See https://docs.mattermost.com/developer/webhooks-incoming.html for /hooks/ URLs.",
    ]);
}

#[test]
fn the_attack_on_this_rounds_rules_mended() {
    assert_found(&[
        (
            "    #0 src/Invoice.php(88): App\\Invoice->total()\n    #1 public/index.php(31): App\\Controller->show()",
            "runtime_trace",
            "block",
        ),
        (
            "wallet: fossil lunar basket timber mango voyage crisp elbow danger pilot tonight orphan",
            "seed_phrase",
            "warn",
        ),
        ("Код от сейфа - 39-17-52", "access_code", "warn"),
        (
            "keys = [\n  \"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUx\",\n]",
            "openssh_key_body",
            "block",
        ),
        ("git clean -fd", "operational_command", "warn"),
        ("npm unpublish @northwind/ui-kit@3.2.0 --force", "operational_command", "warn"),
    ]);
    // A wrapped base64 block indented under a YAML key, trailing blanks on its lines.
    let found = rules_of_text(
        "data:\n  token: |\n    IyBkZXBsb3kgYm90CmdocF9YcTh2UjJtTjV0Szl3 \n    TDNwWjd5QjRjRDZmRzFoSjBrTG0yTnEK\n",
    );
    assert!(found.iter().any(|(r, s)| r == "github_token" && s == "block"), "{found:?}");
    assert_quiet(&[
        // Templates of the operations tools' output.
        "Labels:\n - alertname = {{ .Labels.alertname }}\nAnnotations:\n - summary = {{ .Annotations.summary }}",
        "╷\n│ Error: <summary>\n│\n│   with <resource address>,\n╵",
        "Attaching 1 probe...\n@<map>[<key>]: <count>",
        // Commands named in prose, asked for help, or run dry.
        "npm unpublish is only allowed within 72 hours of publishing.",
        "ALTER TABLE … DROP COLUMN rewrites the table in MySQL 5.7, so schedule it.",
        "The vault kv delete command soft-deletes the latest version.",
        "firebase firestore:delete --help",
        "git clean -fdn",
        // A field's name, a factory default.
        "The form stores only SSN4 (the last four digits).",
        "Unlock code 1234 is the factory default; change it on first login.",
        "Tresorcode 0000 ist der Werkszustand; bitte sofort ändern.",
    ]);
    assert_found(&[
        ("Date of birth: 3 March 1985", "personal_identifier", "block"),
        ("SSN: 512-48-3391", "personal_identifier", "block"),
    ]);
}

#[test]
fn mail_to_a_crowd_a_published_postmortem_and_a_guide_to_labels_are_public() {
    assert_quiet(&[
        "From: Internal Communications <news@example.org>\nTo: All Staff\nSubject: The Monthly Loop – March edition\n\nHi everyone,\n\nThe new bike racks behind Building C are open. Our volunteering day is on 18 April.\n\nHave a great month,\nThe Comms Team",
        "Betreff: Re: [fahrplan-dev] Umstieg auf Rust 1.80?\n\nAm 03.04. schrieb Henrik:\n> Ich würde die MSRV gern auf 1.80 anheben.\n> Einwände?\n\nKein Einwand von meiner Seite.\n\nGrüße\nCarla",
        "Information classification — quick guide\n\nPUBLIC: may be shared with anyone (press releases, product docs).\nINTERNAL: for staff only (org charts, office announcements).\nCONFIDENTIAL: limited to people who need it (contracts, customer data).\nSTRICTLY CONFIDENTIAL: named recipients only (board papers, M&A material).",
    ]);
    // A message to one person, and a marked document, still block.
    let one = rules_of_text(
        "From: Dana Whitfield <dana@northwind.example>\nTo: Sam Okafor <sam@northwind.example>\nSubject: Your salary review\n\nHi Sam,\n\nThe board approved your rise to £58,000 from 1 May, but the bonus is withheld until the grievance from Priya Raman is closed.\n\nDana",
    );
    assert!(one.iter().any(|(_, s)| s == "block"), "{one:?}");
    let marked = rules_of_text(
        "CONFIDENTIAL\n\nThe acquisition of Helix Genomics closes on 14 June at £41m; only the deal team may know before the announcement.",
    );
    assert!(marked.iter().any(|(_, s)| s == "block"), "{marked:?}");
}

#[test]
fn shapes_found_missing_by_the_twenty_first_blind_score() {
    assert_found(&[
        ("社用スマホのPINコード：134123（総務に返却時に初期化）", "access_code", "warn"),
        (
            "Apply the fix with: psql -d billing_prod -f sql/2025-06-02_fix_invoice_totals.sql",
            "operational_command",
            "warn",
        ),
    ]);
    assert_quiet(&[
        "PINコードを変更してください。",
        "psql -d billing_prod --help",
        // A court's published headnote.
        "EMENTA\nRECURSO ESPECIAL. DIREITO DO CONSUMIDOR. CONTRATO DE LOCAÇÃO DE VEÍCULO. CLÁUSULA DE FIDELIDADE.\n1. É abusiva a cláusula que impõe multa integral ao consumidor pela rescisão antecipada.\n2. Aplicação do art. 51, IV, do Código de Defesa do Consumidor.\n3. Recurso especial parcialmente provido.\nPublicado no Diário da Justiça Eletrônico em 14/03/2025.",
    ]);
}

#[test]
fn safe_codes_in_six_languages_and_a_push_deleting_a_branch_warn() {
    assert_found(&[
        ("Safe code: 391752", "access_code", "warn"),
        ("Code du coffre-fort : 3917", "access_code", "warn"),
        ("kluiscode 867999", "access_code", "warn"),
        ("codice della cassaforte: 3917", "access_code", "warn"),
        ("código de la caja fuerte: 3917", "access_code", "warn"),
        ("código do cofre: 3917", "access_code", "warn"),
        ("git push origin :release/1.4", "operational_command", "warn"),
    ]);
    assert_quiet(&[
        "Change the safe code every quarter.",
        "The digicode is on the intranet.",
        "git push origin HEAD:main",
    ]);
}
