//! Tests of the issue-16 eleventh round (session of 2026-12-06): tokens announced as kept in
//! ROT13, backwards or wrapped by a terminal, partly escaped tokens and other escape
//! syntaxes, paths kept as a JSON array of parts, Kubernetes events and test results in
//! JSON, role words of other languages on one line, more runtimes' traces, chat copies and
//! generic secrets in more languages; and a whistleblowing policy's promise of secrecy.

use super::second_pass_tests::{assert_found, assert_quiet, rules_of_json, rules_of_text};
use std::fmt::Write as _;

/// `token` with its ASCII letters rotated by 13 places.
fn rot13(token: &str) -> String {
    token
        .chars()
        .map(|c| match c {
            'a'..='m' | 'A'..='M' => (c as u8 + 13) as char,
            'n'..='z' | 'N'..='Z' => (c as u8 - 13) as char,
            _ => c,
        })
        .collect()
}

const GITHUB: &str = "ghp_Q3vLx9TbW2mZr8YkPn4HcJd7Fs1Ga6Ue0RtV";

#[test]
fn announced_rot13_backwards_and_wrapped_tokens_block() {
    let rotated = format!("kept it ROT13'd so grep misses it: {}", rot13(GITHUB));
    let reversed =
        format!("token written backwards, reverse it before use:\n{}", GITHUB.chars().rev().collect::<String>());
    let wrapped = format!("pasted from the terminal, it wrapped at 24 columns:\n{}\n{}", &GITHUB[..24], &GITHUB[24..]);
    for text in [&rotated, &reversed, &wrapped] {
        assert!(rules_of_text(text).iter().any(|(r, s)| r == "github_token" && s == "block"), "{text}");
    }
    // Without the announcement the same rows are two ids, and ROT13 prose is prose.
    assert!(!rules_of_text(&format!("{}\n{}", &GITHUB[..24], &GITHUB[24..])).iter().any(|(r, _)| r == "github_token"));
    assert_quiet(&["The court reversed the ruling on 3 March.", "rot13 is a toy cipher: Uryyb jbeyq"]);
}

#[test]
fn partly_escaped_tokens_and_other_escape_syntaxes_block() {
    // Every third character escaped; `\u{..}` code points; octal; a path with `\x2f`.
    let partly: String = GITHUB
        .bytes()
        .enumerate()
        .map(|(i, b)| if i % 3 == 0 { format!("\\u{b:04x}") } else { char::from(b).to_string() })
        .collect();
    let braces: String = GITHUB
        .bytes()
        .enumerate()
        .map(|(i, b)| if i % 2 == 0 { format!("\\u{{{b:x}}}") } else { char::from(b).to_string() })
        .collect();
    let octal = GITHUB.bytes().fold(String::new(), |mut out, b| {
        let _ = write!(out, "\\{b:03o}");
        out
    });
    for text in [format!("k = \"{partly}\""), format!("const T = \"{braces}\";"), format!("printf '{octal}'")] {
        assert!(rules_of_text(&text).iter().any(|(r, s)| r == "github_token" && s == "block"), "{text}");
    }
    assert_found(&[(r#"path = b"\x2fhome\x2fvaleria\x2f.ssh\x2fconfig""#, "home_path", "block")]);
    // Accents, a lone quote and blanks escaped are no disguise.
    assert_quiet(&[r#"{"t": "Caf\u00e9 cr\u00e8me \u0022hot\u0022"}"#, r"printf 'a\tb\n'", r"sed 's/\x20/ /g'"]);
}

#[test]
fn a_path_kept_as_its_parts_blocks() {
    let win = serde_json::json!({"parts": ["C:\\", "Users", "hwang.jiyeon", "Desktop", "pay.xlsx"]});
    let unix = serde_json::json!({"p": ["home", "dmitri", "projects", "notes.md"]});
    let rooted = serde_json::json!({"p": ["/", "Users", "bo", "x"]});
    for doc in [win, unix, rooted] {
        assert!(rules_of_json(&doc).iter().any(|(_, s)| s == "block"), "{doc}");
    }
    let repo = serde_json::json!({"p": ["src", "users", "list.rs"], "q": ["home", "index.html"]});
    assert_eq!(rules_of_json(&repo), []);
}

#[test]
fn kubernetes_events_and_failed_test_results_in_json_block() {
    let event = |reason: &str| serde_json::json!({"reason": reason, "message": "probe failed", "involvedObject": {"kind": "Pod", "name": "api-7f9"}});
    let events = serde_json::json!({"kind": "List", "items": [event("Unhealthy"), event("BackOff")]});
    assert!(rules_of_json(&events).iter().any(|(r, s)| r == "cluster_events" && s == "block"));
    let jest = serde_json::json!({"testResults": [{"name": "/ci/a.test.ts", "status": "failed",
        "assertionResults": [{"status": "failed", "failureMessages": ["Error: expect(received).toBe(expected)\n\nExpected: 2\nReceived: 3\n    at Object.<anonymous> (a.test.ts:8:3)"]}]}]});
    assert!(rules_of_json(&jest).iter().any(|(r, s)| r == "test_results" && s == "block"));
    // One event, or a failure told in one line, is a note.
    assert!(
        !rules_of_json(&serde_json::json!({"items": [event("Unhealthy")]})).iter().any(|(r, _)| r == "cluster_events")
    );
    let summary = serde_json::json!([{"name": "parser", "status": "failed", "message": "3 tests failed"}]);
    assert!(!rules_of_json(&summary).iter().any(|(r, _)| r == "test_results"));
}

#[test]
fn turns_on_one_line_in_other_languages_block() {
    assert_found(&[
        (
            "Usuario: ¿me devolvéis el dinero? Asistente: Claro, 312 €. Usuario: ¿cuándo? Asistente: en 7 días.",
            "inline_turns",
            "block",
        ),
        (
            "Benutzer: Passwort vergessen Assistent: Portal öffnen. Benutzer: danke Assistent: gern",
            "inline_turns",
            "block",
        ),
        (
            "Пользователь: привет Ассистент: здравствуйте Пользователь: статус? Ассистент: готово",
            "inline_turns",
            "block",
        ),
    ]);
    assert_quiet(&["The Asistente: field holds the assistant's name; Usuario: the user's."]);
}

#[test]
fn more_runtime_traces_block() {
    assert_found(&[
        (
            "Unhandled exception:\nRangeError (index): Invalid value: 3\n#0      List.[] (dart:core-patch/growable_array.dart:264:36)",
            "runtime_trace",
            "block",
        ),
        (
            "Raised at Stdlib__Map.Make.find in file \"map.ml\", line 141, characters 10-25\nCalled from Main.run in file \"bin/main.ml\", line 19, characters 2-30",
            "runtime_trace",
            "block",
        ),
        (
            "thread 40212 panic: index out of bounds: index 5, len 3\n/src/tokenizer.zig:114:27: 0x10371c4 in next (lexer)",
            "runtime_trace",
            "block",
        ),
        (
            "Traceback (most recent call last)\n/app/src/server.nim(142) server\n/app/src/routes.nim(57) handleLogin",
            "runtime_trace",
            "block",
        ),
        (
            "==8812==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000b30\nREAD of size 8 at 0x602000000b30 thread T0\n    #0 0x55d4c1a2f3e0 in session_close src/net/session.c:203",
            "runtime_trace",
            "block",
        ),
        (
            "Log Name:      Application\nSource:        Application Error\nDate:          3/14/2024 8:02:17 AM",
            "runtime_trace",
            "block",
        ),
        (
            "(lldb) bt\n* thread #1, queue = 'com.apple.main-thread', stop reason = breakpoint 1.1",
            "runtime_trace",
            "block",
        ),
        (
            "    + CategoryInfo          : InvalidData: (:) [Set-ADUser], ParameterBindingValidationException\n    + FullyQualifiedErrorId : ParameterArgumentValidationError",
            "runtime_trace",
            "block",
        ),
        (
            "[error] /build/core/src/main/scala/Quote.scala:27:14: type mismatch;\n[error]  found   : Option[BigDecimal]",
            "runtime_trace",
            "block",
        ),
        (
            "Error in `[.data.frame`(sales, , \"region\") : undefined columns selected\nCalls: source ... summarise -> [",
            "runtime_trace",
            "block",
        ),
    ]);
    assert_quiet(&["Log Name: is the first field Event Viewer shows.", "[error] one error found"]);
}

#[test]
fn chat_copies_tables_and_more_chat_logs_block() {
    assert_found(&[
        (
            "You said:\nhow do I ask for the deposit back\nChatGPT said:\nHere is a short message.\nYou said:\nshorter\nChatGPT said:\nDone.",
            "transcript_turns",
            "block",
        ),
        (
            "| # | Speaker | Message |\n|---|---|---|\n| 1 | User | Why is the total off? |\n| 2 | Assistant | Rounding per line. |",
            "transcript_turns",
            "block",
        ),
        (
            "對話紀錄：\n使用者：幫我翻譯這句\n助理：好的。\n使用者：正式一點\n助理：本批貨物將延後出貨。",
            "cjk_turns",
            "block",
        ),
        (
            "12/01/2024 à 19:02 - Léa: qui a payé ?\n12/01/2024 à 19:05 - Youssef: moi\n12/01/2024 à 19:06 - Léa: merci",
            "chat_export",
            "block",
        ),
        (
            "14:03 < mirelle> is the nightly broken\n14:03 < sabo> it's broken, disk full\n14:04 < mirelle> ok thx",
            "chat_log",
            "block",
        ),
        (
            "<@selin:chat.example.org> is the bridge down?\n<@radek:chat.example.org> looks like it\n<@selin:chat.example.org> restart it?\n<@radek:chat.example.org> go ahead",
            "irc_turns",
            "block",
        ),
    ]);
    assert_quiet(&["| Role | Meaning |\n|---|---|\n| User | the person asking |"]);
}

#[test]
fn generic_secrets_in_more_languages_warn() {
    assert_found(&[
        ("chiave maestra del reparto: b960ce3afad1deefc20fdf1e74842e8b", "password_in_prose", "warn"),
        ("phrase secrète de la clé GPG : « tilleul-pinceau-boussole-verger-fromage »", "password_in_prose", "warn"),
        ("钱包恢复短语：茶杯 蜡烛 钢琴 铁路 桥梁 月亮 纸鹤 星座 河流 海岸 灯塔 雨伞", "seed_phrase", "warn"),
        ("복구 문구: 별빛 연필 사과 등대 고양이 하늘 바다 시계 기차 단풍 우산 나무", "seed_phrase", "warn"),
    ]);
    assert_quiet(&["La chiave maestra va cambiata ogni anno.", "복구 문구는 종이에 적어 보관하세요."]);
}

#[test]
fn a_policys_promise_of_secrecy_is_no_secret_kept() {
    let policy = "Speak Up Policy (public version)\n\nWho can raise a concern? Employees, contractors and suppliers.\n\nWhat can you report? Fraud, bribery, health and safety breaches.\n\nHow? Through the Speak Up line, or directly to the Chair of the Audit Committee. You may report anonymously.\n\nWe acknowledge every report within 7 days.";
    assert!(!super::dossier::secret_kept(policy), "{policy}");
    let vi = "Danh tính người tố giác chỉ được Ban Kiểm soát nội bộ biết và được bảo mật tuyệt đối.";
    assert!(!super::dossier::secret_kept(vi));
    assert!(super::dossier::secret_kept(
        "She reported the bribe anonymously; keep this confidential until the board meets."
    ));
}

#[test]
fn a_marking_in_another_language_opens_a_private_document() {
    let body = "\nSopimuksen osapuolet sopivat, että Marja Virtanen saa 4 200 euron kertakorvauksen 31.5. mennessä ja irtisanomisaika lyhenee kahteen kuukauteen. Maksu tehdään tilille kesäkuun palkan yhteydessä.";
    assert_eq!(super::dossier::find(body.trim()), None, "the body alone is below every threshold");
    for mark in [
        "LUOTTAMUKSELLINEN",
        "ΕΜΠΙΣΤΕΥΤΙΚΟ – ",
        "POVJERLJIVO",
        "Preifat a chyfrinachol",
        "ลับมาก",
        "Konfidentsiaalne:",
        "[P2] Luottamuksellinen –",
    ] {
        let text = format!("{mark}{body}");
        assert!(super::dossier::find(&text).is_some(), "{text}");
    }
    // The word inside a title is no marking.
    let title = "Politika o povjerljivosti podataka\nOva politika opisuje kako tvrtka obrađuje podatke kupaca i zaposlenika te kome se podaci smiju otkriti, u skladu s propisima Europske unije o zaštiti podataka.";
    assert_eq!(super::dossier::find(title), None);
}

#[test]
fn a_published_copy_and_a_template_with_many_placeholders_are_public() {
    let policy = "Speak Up Policy — public version\nVersion 4.2, approved by the Board.\n\n2. Confidentiality and anonymity\nWe will treat every report in confidence. Your identity will only be shared with those who need to know it. Fraud, bribery and breaches of law can be reported to the Chair of the Audit Committee, Ms Ellis.";
    assert_eq!(super::dossier::find(policy), None);
    assert!(super::dossier::reads_public(policy));
    let template = "From: [HR Manager name], People Team\nTo: [Employee full name]\nSubject: Confirmation of probation\n\nDear [First name],\n\nYou have completed your probation with [Company name] as of [date]. Your notice period will now be [X weeks].\n\nYours sincerely,\n[Name]\n[Job title]";
    assert!(super::dossier::is_template(template));
    assert!(!rules_of_text(template).iter().any(|(_, s)| s == "block"), "{template}");
}

#[test]
fn cjk_prose_after_a_password_word_is_no_value() {
    assert_quiet(&[
        "第3条 ユーザーは、パスワードを第三者に譲渡または貸与することはできません。第4条（利用料金）本サービスの有料部分の対価として料金を支払うものとします。",
    ]);
    assert_found(&[("金庫のパスワードは Kx7-q9Lm-2vRt です", "password_in_prose", "warn")]);
}

#[test]
fn routes_and_templated_segments_are_no_home_folders() {
    let routes = serde_json::json!({"frontend_routes": ["/", "/home/feed", "/home/settings"]});
    assert_eq!(rules_of_json(&routes), []);
    assert_quiet(&["route GET /api/v2/users/{id}/home/widgets is slow"]);
    assert_found(&[("DATABASE_URL=sqlite:////home/adebayo/projects/dev.sqlite3", "home_path", "block")]);
    let path = serde_json::json!({"routes": ["/feed"], "output": "/home/adebayo/out.csv"});
    assert!(rules_of_json(&path).iter().any(|(r, s)| r == "home_path" && s == "block"));
}

#[test]
fn a_mention_of_the_public_version_is_no_label() {
    let draft = "- [ ] finish the postmortem, draft so far:\n  Note: Ahmed Saleh's missed page is the third this quarter, discuss with his manager and keep it out of the public version.\n  Timeline: 02:19 Ahmed Saleh paged / 02:34 escalated to Jenny Wu / 03:05 restarted\n  Impact: 310 duplicate charges refunded (USD 27,450) for 12,800 customers";
    assert!(!super::dossier::reads_public(draft));
    assert!(super::dossier::reads_public(
        "内部通報制度規程（公開版）\n第1条（目的）本規程は、通報者の保護について定める。"
    ));
}

#[test]
fn the_seventeenth_blind_parts_shapes_are_found() {
    // A home folder typed with a Cyrillic `о`; Russian words hold the same letters.
    assert_found(&[("Scratch output: /hоme/ebrandt/tmp/run-0519/out.csv", "home_path", "block")]);
    assert_quiet(&["Привет, это обычный русский текст о погоде в Москве, Ольга."]);
    // A token kept backwards in one field, as another field says.
    let npm = serde_json::json!({"k": "npm_".chars().chain("Q7vLx9TbW2mZr8YkPn4HcJd7Fs1Ga6Ue0RtV".chars()).rev().collect::<String>(), "how": "reverse before use"});
    assert!(rules_of_json(&npm).iter().any(|(r, s)| r == "npm_token" && s == "block"), "{npm}");
    // IRC lines after a dated stamp; a web chat's turns; a Japanese PIN with `は`.
    let irc = "[2024-02-11 22:14] <rkowal> built 0.9 on arm64?\n[2024-02-11 22:15] <mfisher> bump zstd first\n[2024-02-11 22:15] <rkowal> that explains it\n[2024-02-11 22:18] <mfisher> PR tonight";
    assert_found(&[(irc, "dated_chat_log", "block"), ("金庫の暗証番号は 7377 です。", "access_code", "warn")]);
    let turn = |who: &str, at: &str, said: &str| serde_json::json!({"speaker": who, "at": at, "utterance": said});
    let web = serde_json::json!({"turns": [turn("customer", "14:02", "parcel not here"), turn("agent", "14:03", "sorry, checking")]});
    assert!(rules_of_json(&web).iter().any(|(r, s)| r == "chat_message_array" && s == "block"), "{web}");
    // A camel-case key about a secret, and a French recovery phrase key.
    assert_eq!(rules_of_json(&serde_json::json!({"passwordPolicy": "min12-mixed"})), []);
    let fr = serde_json::json!({"phrase_de_récupération": "zebra quarter carbon canyon kettle wolf amber yellow cousin fabric night ozone"});
    assert!(rules_of_json(&fr).iter().any(|(_, s)| s == "warn"), "{fr}");
}

#[test]
fn the_attacks_paths_markings_and_labels() {
    // A menu, tags or breadcrumbs starting with `home` are no path; a rooted one is.
    for clean in
        [serde_json::json!({"nav": ["home", "about", "contact"]}), serde_json::json!({"t": ["home", "garden"]})]
    {
        assert_eq!(rules_of_json(&clean), [], "{clean}");
    }
    let rooted = serde_json::json!({"path": ["/", "root", ".ssh", "id_rsa"]});
    assert!(rules_of_json(&rooted).iter().any(|(_, s)| s == "block"), "{rooted}");
    // Under a `routes` key only a two-segment route passes; a real path still blocks.
    let real = serde_json::json!({"routes": ["/home/alice/.ssh/id_rsa"]});
    assert!(rules_of_json(&real).iter().any(|(r, _)| r == "home_path"), "{real}");
    // A short marked note blocks, as an English marking does.
    let short = "POVJERLJIVO\nUprava je odobrila kupnju tvrtke Nordlys AS za 12 milijuna.";
    assert!(super::dossier::find(short).is_some(), "{short}");
    // A note that greets someone is no published copy, whatever its first line says.
    let labelled = "HR note (public version)\nHi Tom, Priya's doctor signed her off for four more weeks (stress); her probation review moves to June. Keep the reason to yourself.";
    assert!(!super::dossier::reads_public(labelled), "{labelled}");
}

#[test]
fn a_list_of_translated_labels_is_no_marked_document() {
    let labels = "Vertraulich\nConfidentiel\nConfidencial\n机密\n社外秘\nPOVJERLJIVO\nOnly members of this workspace can open the document.";
    assert_eq!(super::dossier::find(labels), None);
    let cwd = serde_json::json!({"cwd_parts": ["home", "mkowalski", "src", "ledger-api"]});
    assert!(rules_of_json(&cwd).iter().any(|(r, _)| r == "home_path"), "{cwd}");
}

#[test]
fn french_blanks_capital_role_words_and_database_urls() {
    assert_found(&[
        (
            "Utilisateur : ma facture ? Assistant : elle est partie. Utilisateur : merci Assistant : de rien",
            "inline_turns",
            "block",
        ),
        ("USUARIO: ¿el saldo? ASISTENTE: 312 €. USUARIO: gracias ASISTENTE: de nada", "inline_turns", "block"),
        ("conn = duckdb:///home/alice/warehouse.duckdb", "home_path", "block"),
        ("DATABASE_URL=postgres:////home/alice/w.db", "home_path", "block"),
    ]);
    assert_quiet(&["see https://example.com/home/feed for the feed"]);
}
