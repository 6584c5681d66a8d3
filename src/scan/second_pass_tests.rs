//! Tests of the issue-16 rounds of the scan kept apart from `tests.rs` (over its length):
//! JSON Schema declarations and template words are not credentials, generic secrets with
//! word or hex values are.

use super::*;
use serde_json::json;

pub(super) fn rules_of_json(v: &serde_json::Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    scan_json(v, "", Policy::Public, &mut out);
    out.into_iter().filter(|f| f.severity != "info").map(|f| (f.rule_id, f.severity)).collect()
}

pub(super) fn rules_of_text(t: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    scan_text(t, "/", Policy::Public, &mut out);
    out.into_iter().filter(|f| f.severity != "info").map(|f| (f.rule_id, f.severity)).collect()
}

/// Each text is flagged by its rule at its severity.
pub(super) fn assert_found(cases: &[(&str, &str, &str)]) {
    for (t, rule, severity) in cases {
        let found = rules_of_text(t);
        assert!(found.iter().any(|(r, s)| r == rule && s == severity), "{t}: {found:?}");
    }
}

/// No text is blocked or warned about.
pub(super) fn assert_quiet(texts: &[&str]) {
    for t in texts {
        let found = rules_of_text(t);
        assert!(!found.iter().any(|(_, s)| s == "block" || s == "warn"), "{t}: {found:?}");
    }
}

#[test]
fn a_schema_declaring_a_password_is_not_one_but_a_default_in_it_is_data() {
    let schema = json!({"properties": {"password": {"type": "string", "minLength": 12, "writeOnly": true}}});
    assert_eq!(rules_of_json(&schema), []);
    let with_default = json!({"properties": {"password": {"type": "string", "default": "hunter2-Xq9"}}});
    assert!(rules_of_json(&with_default).iter().any(|(r, s)| r == "forbidden_key" && s == "block"));
    assert!(rules_of_json(&json!({"password": {"value": "x"}})).iter().any(|(r, _)| r == "forbidden_key"));
}

#[test]
fn template_words_in_capitals_are_no_password_but_a_real_one_is() {
    assert_eq!(rules_of_text("format: postgres://USER:PASSWORD@HOST:5432/DBNAME?sslmode=require"), []);
    let real = rules_of_text("format: postgres://app:Zq8vNw3LpT6x@db.internal:5432/orders");
    assert!(real.iter().any(|(r, s)| r == "url_password" && s == "block"), "{real:?}");
}

#[test]
fn generic_secrets_with_word_or_hex_values_warn_and_prose_does_not() {
    for t in [
        "restore with passphrase=betray-ability-banana-actor-87 from the NAS",
        "the signing key has passphrase 'lantern ferry cobalt nine'.",
        "keep the legacy salt = 9f8e7d6c5b4a3921 so old hashes verify",
        "the vault's master key is 3F7A-91C2-0BDE-4471-88AC for now",
    ] {
        assert!(rules_of_text(t).iter().any(|(r, s)| r == "generic_secret" && s == "warn"), "{t}");
    }
    for t in [
        "The master key rotation policy is described in SECURITY.md.",
        "rotate the passphrase: quarterly",
        "the salt is stored next to the hash",
    ] {
        assert!(!rules_of_text(t).iter().any(|(r, _)| r == "generic_secret"), "{t}");
    }
    let json = json!({"gpg_passphrase": "bid ahead beach busy ahead 99"});
    assert!(rules_of_json(&json).iter().any(|(_, s)| s == "warn"));
}

#[test]
fn chat_exports_in_the_whatsapp_and_discord_shapes_block() {
    let whatsapp = "12/03/2024, 21:14 - Jonas Weber: Is the van booked?\n12/03/2024, 21:15 - Ada Lindgren: Yes, 8am\n\
                    12/03/2024, 21:15 - Jonas Weber: Great\n";
    assert!(rules_of_text(whatsapp).iter().any(|(r, s)| r == "chat_export" && s == "block"));
    let discord = "mara — Today at 3:14 PM\nqueue is down\ndevon_ops — Today at 3:15 PM\nwe see it\n\
                   mara — Today at 3:16 PM\nok\n";
    assert!(rules_of_text(discord).iter().any(|(r, s)| r == "chat_export" && s == "block"));
    assert_eq!(rules_of_text("On 12/03/2024, 21:14 - the van was booked: yes"), []);
}

#[test]
fn terraform_plan_output_blocks_and_a_sentence_about_it_does_not() {
    let plan = "Terraform used the selected providers to generate the following execution plan.\n\n  \
                ~ resource \"aws_db_instance\" \"claims\" {\n    }\n\nPlan: 0 to add, 1 to change, 0 to destroy.";
    assert!(rules_of_text(plan).iter().any(|(r, s)| r == "tool_output_lines" && s == "block"));
    assert!(!rules_of_text("terraform plan said: 0 to add, 1 to change").iter().any(|(_, s)| s == "block"));
}

/// `author` and `authority` are not secret names; `auth` and `authorization` are.
#[test]
fn an_author_field_is_no_secret_but_an_auth_field_is() {
    let value = "Tidepool Health newsroom";
    let secret = |key: &str| {
        rules_of_json(&serde_json::json!({ key: value })).iter().any(|(rule, _)| rule == "secret_assignment")
    };
    assert!(!secret("author") && !secret("authority"));
    assert!(secret("auth") && secret("authorization"));
}

/// A ShareGPT conversation (`{from: human|gpt, value}` turns) is a transcript; one turn, or
/// `from` naming a sender that is no chat role, is not.
#[test]
fn sharegpt_turns_are_a_transcript() {
    let chat = |a: &str, b: &str| json!({"conversations": [{"from": a, "value": "how do I rotate the key?"}, {"from": b, "value": "run the rotate job"}]});
    let blocks =
        |v: &serde_json::Value| rules_of_json(v).iter().any(|(r, s)| r == "chat_message_array" && s == "block");
    assert!(blocks(&chat("human", "gpt")));
    assert!(!blocks(&chat("billing", "support")));
    assert!(!blocks(&json!({"conversations": [{"from": "human", "value": "hi"}]})));
}

/// A home folder on another macOS volume (`/Volumes/Macintosh HD/Users/…`) is a home path.
#[test]
fn a_home_folder_on_another_volume_is_a_home_path() {
    let found = rules_of_text("restored from /Volumes/Macintosh HD/Users/hana/Documents/taxes.pdf");
    assert!(found.iter().any(|(r, _)| r == "home_path"), "{found:?}");
}

#[test]
fn generic_secrets_named_pepper_or_unseal_or_given_in_capitalised_words_warn() {
    for t in [
        "auth:\n  pepper: \"rQ7xv2LmT9pZ4kWc8NbY3sHd\"",
        "Unseal passphrase for the lab vault is `copper-lantern-5512-ridge`, change it Monday.",
        "Team vault: master passphrase is Birch Quill Harbor 8830 (spaces included).",
        "vault unseal key: 3f9a 77c1 0be4 92d8 aa01",
    ] {
        let found = rules_of_text(t);
        assert!(found.iter().any(|(r, s)| r == "generic_secret" && s == "warn"), "{t}: {found:?}");
    }
    for t in [
        "The master key is Managed By The Platform Team",
        "rotate the pepper every year",
        "the unseal passphrase is kept offline by two officers",
    ] {
        assert_eq!(rules_of_text(t), [], "{t}");
    }
}

#[test]
fn commands_that_delete_truncate_or_reach_a_database_by_its_dsn_warn() {
    for t in [
        "find /srv/uploads -type f -mtime +30 -delete",
        "find /var/cache/app -name '*.tmp' -exec rm {} +",
        "psql \"$DATABASE_URL\" -c 'select 1'",
        "then run TRUNCATE events_raw; on the replica",
        "gcloud compute instances delete build-7 --zone europe-west1-b",
        "sudo systemctl restart nginx",
    ] {
        let found = rules_of_text(t);
        assert!(found.iter().any(|(r, s)| r == "operational_command" && s == "warn"), "{t}: {found:?}");
    }
    for t in ["find . -name '*.rs' -print", "truncate the summary to 80 characters;", "systemctl status nginx"] {
        assert_eq!(rules_of_text(t), [], "{t}");
    }
}

#[test]
fn internal_labels_and_unique_local_ipv6_addresses_are_private_hosts() {
    for (t, rule) in [
        ("Staging DB: pg-stage-01.int.fernhill.net:5432", "internal_host"),
        ("printer at laser.home.arpa", "internal_host"),
        ("the runner is fd12:3456:789a:1::25.", "private_ipv6"),
        ("FC00:1:2:3::9 answers on 443", "private_ipv6"),
    ] {
        let found = rules_of_text(t);
        assert!(found.iter().any(|(r, s)| r == rule && s == "block"), "{t}: {found:?}");
    }
    for t in
        ["see who.int for guidance", "unique local addresses live in fd00::/8", "the lab uses fd12:3456:789a:1::/64"]
    {
        assert_eq!(rules_of_text(t), [], "{t}");
    }
}

#[test]
fn maven_gradle_node_kernel_and_tagged_program_output_block() {
    for (t, rule) in [
        ("[INFO] Building api 1.4.0\n[ERROR] Tests run: 12, Failures: 1\n[INFO] BUILD FAILURE", "tool_output_lines"),
        ("> Task :app:compileJava\n> Task :app:test FAILED\nBUILD FAILED in 14s", "tool_output_lines"),
        (
            "node:internal/process/promises:289\n    triggerUncaughtException(err, true);\nNode.js v20.11.1",
            "tool_output_lines",
        ),
        (
            "[    0.000000] Linux version 6.1\n[    0.000001] Command line: ro\n[    1.204411] EXT4-fs mounted",
            "timestamped_log",
        ),
        (
            "[sync] source=crm records=48211\n[sync] batch 1/49 ok (1000 rows, 412ms)\n[sync] batch 2/49 ok (1000 rows, 398ms)",
            "tagged_progress_lines",
        ),
    ] {
        let found = rules_of_text(t);
        assert!(found.iter().any(|(r, s)| r == rule && s == "block"), "{t}: {found:?}");
    }
    for t in [
        "[done] phase one shipped\n[done] phase two shipped\n[todo] phase three",
        "Maven printed BUILD FAILURE after the surefire run.",
        "[1] Smith, J. (2020), pp. 1-12\n[2] Doe, A. (2021)\n[3] Roe, B. (2022)",
    ] {
        assert_eq!(rules_of_text(t), [], "{t}");
    }
}

#[test]
fn package_bundler_monitor_and_git_output_block_and_their_docs_do_not() {
    for (t, rule) in [
        (
            "Collecting httpx==0.27.0\n  Downloading httpx-0.27.0-py3-none-any.whl (75 kB)\nSuccessfully installed httpx-0.27.0",
            "build_output_lines",
        ),
        (
            "vite v5.2.0 building for production...\n\u{2713} 88 modules transformed.\n\u{2713} built in 2.31s",
            "build_output_lines",
        ),
        (
            "commit 0a1b2c3d4e5f60718293a4b5c6d7e8f901234567\nAuthor: Ana <ana@example.org>\nDate:   Wed May 1 10:00:00 2024 +0200",
            "build_output_lines",
        ),
        (
            "USER       PID %CPU %MEM    VSZ   RSS TTY STAT START TIME COMMAND\nroot         1  0.0  0.1 168420 11928 ?  Ss Mar02 0:41 init",
            "tool_table",
        ),
        (
            "Name           Stmts   Miss  Cover\n----------------------------------\napp/core.py      120     12    90%",
            "tool_table",
        ),
    ] {
        let found = rules_of_text(t);
        assert!(found.iter().any(|(r, s)| r == rule && s == "block"), "{t}: {found:?}");
    }
    // pip's own docs show its last line without a version; a Debian copyright lists authors.
    for t in [
        "Install it with pip.\nCollecting sampleproject\nSuccessfully installed sampleproject",
        "Files: lib/hex.*\nAuthor: Rusty Example <rusty@example.org>\nFiles: lib/b.*\nAuthor: Jo Example <jo@example.org>",
    ] {
        assert!(!rules_of_text(t).iter().any(|(r, _)| r == "build_output_lines"), "{t}");
    }
}

#[test]
fn passwords_in_other_languages_codes_and_bare_passphrases_warn() {
    for (t, rule) in [
        ("Le mot de passe du coffre partagé a été changé : Automne#2025-Brest", "password_in_prose"),
        ("Das Passwort für den Router ist Kranich-Mond-7731", "password_in_prose"),
        ("La contraseña del wifi es «tortuga-farol-cometa-22»", "password_in_prose"),
        ("the gate code is 5-5-0-1-8, change it after the event", "access_code"),
        ("Guest network: WPA2 passphrase Heron!Quay58 for visitors", "generic_secret"),
        ("our webhook secret is 4be1c09f7a2d6e83b5f0c1d2e3f4a5b6 on both stages", "generic_secret"),
        ("run mongosh \"$URI\" --eval 'db.dropDatabase()' before the import", "operational_command"),
        ("ssh admin@fe80::a8bb:ccff:fe01:2345%eth0 if DHCP fails", "private_ipv6"),
    ] {
        let found = rules_of_text(t);
        assert!(found.iter().any(|(r, _)| r == rule), "{t}: {found:?}");
    }
    for t in [
        "Le mot de passe doit être changé tous les trois mois.",
        "the password manager is the team's choice",
        "set a passphrase before the first backup",
        "pin 13 drives the LED; ping fe80::1 from the router",
    ] {
        assert_eq!(rules_of_text(t), [], "{t}");
    }
}

#[test]
fn bank_details_and_replies_quoted_in_other_languages_are_private_documents() {
    for (t, rule) in [
        (
            "Please pay INV-4410 to our new account.\nRouting: 021000089\nAccount: 4410982733\nThanks",
            "bank_account_details",
        ),
        ("IBAN: GB33 BUKB 2020 1555 5555 55\nBIC: BUKBGB22", "bank_account_details"),
        (
            "Combinado.\n\nEm seg., 3 de mar. de 2025 às 09:12, Ana Souza <ana@exemplo.com.br> escreveu:\n> Pode confirmar?",
            "email_reply_quote",
        ),
        ("Prima.\n\nOp di 4 mrt 2025 om 08:01 schreef Kees Jansen <k@voorbeeld.nl>:\n> Akkoord?", "email_reply_quote"),
    ] {
        let found = rules_of_text(t);
        assert!(found.iter().any(|(r, s)| r == rule && s == "block"), "{t}: {found:?}");
    }
    assert!(
        !rules_of_text("ask finance for the routing number and the account name").iter().any(|(_, s)| s == "block")
    );
}

#[test]
fn a_placeholder_user_in_a_home_path_is_documentation() {
    for t in ["data lives in /Users/you/Library/Application Support/relay", "see /home/yourname/.config/relay.toml"] {
        assert!(!rules_of_text(t).iter().any(|(r, _)| r == "home_path"), "{t}");
    }
    for t in ["open /Users/dev/.cache/pip/wheels", "log at /home/user/ci/run.log", "/home/youssef/notes.md"] {
        assert!(rules_of_text(t).iter().any(|(r, s)| r == "home_path" && s == "block"), "{t}");
    }
}

#[test]
fn conversation_exports_zoom_chats_strace_and_macos_temp_folders_block() {
    let export = json!({"mapping": {
        "n1": {"message": {"author": {"role": "user"}, "content": {"parts": ["hi"]}}},
        "n2": {"message": {"author": {"role": "assistant"}, "content": {"parts": ["hello"]}}}
    }});
    assert!(rules_of_json(&export).iter().any(|(r, s)| r == "chat_message_array" && s == "block"));
    let one = json!({"mapping": {"n1": {"message": {"author": {"role": "user"}, "content": {"parts": ["hi"]}}}}});
    assert!(!rules_of_json(&one).iter().any(|(r, _)| r == "chat_message_array"));
    for (t, rule) in [
        (
            "09:01:02 From Ana Lee to Everyone:\n\tready?\n09:01:09 From Bo Kim to Everyone:\n\tyes\n09:02:00 From Ana Lee to Bo Kim (Direct Message):\n\tok",
            "chat_log",
        ),
        (
            "openat(AT_FDCWD, \"/etc/a.toml\", O_RDONLY) = 5\nread(5, \"x\", 4096) = 1\nclose(5)                 = 0",
            "strace_lines",
        ),
        (
            "pytest wrote /private/var/folders/7k/q2x9m3cd1fz0_5j8l0h1w4vr0000gn/T/pytest-of-ana/out.csv",
            "user_temp_path",
        ),
    ] {
        let found = rules_of_text(t);
        assert!(found.iter().any(|(r, s)| r == rule && s == "block"), "{t}: {found:?}");
    }
    assert_eq!(rules_of_text("strace showed close(5) = 0 and read(5) = 1 once"), []);
}

/// Shapes the ninth held-out part showed missing (found after its blind score; written
/// here from scratch): role words in other languages, Vicuna's one-line turns, a cProfile
/// table, unlock codes, PINs and recovery keys, asides before a secret's colon, a quoted
/// German passphrase, a pepper in a JSON field, bucket and resource-group deletes.
#[test]
fn shapes_found_missing_after_the_ninth_blind_score() {
    assert_found(&[
        ("Пользователь: где отчёт?\nАссистент: в папке «Финансы».\nПользователь: спасибо", "translated_turns", "block"),
        ("Usuario: ¿dónde está?\nAsistente: en la carpeta compartida.", "translated_turns", "block"),
        ("chat. USER: hi there ASSISTANT: hello USER: status? ASSISTANT: green", "inline_turns", "block"),
        (
            "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n        1    0.002    0.002    6.412    6.412 main.py:12(main)",
            "tool_table",
            "block",
        ),
        ("Lab door unlock code changed to 4412-9031 today.", "access_code", "warn"),
        ("The SIM PIN of the spare phone is 7730.", "access_code", "warn"),
        ("recovery key for the laptop: 112233-445566-778899-001122-334455-667788-990011-223344", "access_code", "warn"),
        ("Vault master key (break-glass only): Fjord!7731-amber", "generic_secret", "warn"),
        (
            "wallet seed (12 words) for the demo node: ladder orbit canvas harbor pilot marble tunnel violet onion dragon copper basket",
            "seed_phrase",
            "warn",
        ),
        ("Die Passphrase lautet jetzt „linden kettle harbor 12“.", "password_in_prose", "warn"),
        ("cleanup: aws s3 rb s3://old-exports-bucket --force", "operational_command", "warn"),
        ("then az group delete --name rg-temp --yes", "operational_command", "warn"),
    ]);
    let pepper = json!({"metadata": {"pepper": "9f1c2a7e55d04b3c8e6a1f2d3c4b5a69"}});
    assert!(rules_of_json(&pepper).iter().any(|(r, s)| r == "generic_secret" && s == "warn"));
    assert_quiet(&[
        "Benutzer: admin",
        "the template marks turns with USER: and ASSISTANT: in capitals",
        "ask the office for the door unlock code",
        "the PIN must have 4 to 8 digits",
        "store the master key (in the vault) and rotate it yearly",
        "Die Passphrase lautet jetzt anders.",
        "aws s3 ls s3://old-exports-bucket",
    ]);
}

/// Found by the split-scan proptest: an escaped colon after a secret's name
/// (`password\:…`, the pattern's `\\?`) was not let through by the literal gate's
/// follow check. (The case found had a URL-like value, `password\://wsl+Ubuntu/…`, which
/// `Check::SecretAssigned` no longer reads as a secret; a random value keeps the test's
/// finding.)
#[test]
fn an_escaped_colon_after_a_secret_name_passes_the_gate() {
    let (gated, every_line) = prefilter_vs_every_line("password\\:Xk9mQ2vLp7wZr4Tn");
    assert_eq!(gated, every_line);
    assert!(!gated.is_empty());
}

/// Shapes the tenth held-out part showed missing (found after its blind score; written here
/// from scratch): Arabic and Persian role words, a Teams copy with bracketed times, a
/// KakaoTalk export, a bare PIN and PUK, 2FA recovery codes, a Japanese recovery phrase.
#[test]
fn shapes_found_missing_after_the_tenth_blind_score() {
    assert_found(&[
        ("المستخدم: أين التقرير؟\nالمساعد: في مجلد المالية.", "translated_turns", "block"),
        (
            "[9:02 AM] Lena Ortiz\nship it?\n[9:03 AM] Tom Reyes\nafter QA\n[9:05 AM] Lena Ortiz\nok",
            "chat_export",
            "block",
        ),
        (
            "[이서연] [오전 9:01] 자료 봤어?\n[정우진] [오전 9:02] 응 봤어\n[이서연] [오전 9:03] 좋아",
            "chat_export",
            "block",
        ),
        ("Spare handset: PIN 4417, PUK 60218833.", "access_code", "warn"),
        ("Codes de récupération 2FA du compte : 1234-5678, 2345-6789, 3456-7890", "access_code", "warn"),
        (
            "リカバリーフレーズ（12語）: maple orbit tunnel violet onion dragon copper basket ladder pilot marble canvas",
            "seed_phrase",
            "warn",
        ),
    ]);
    assert_quiet(&[
        "the PIN 4 digits rule is documented in the handbook",
        "[9:02 AM] Standup",
        "Set up 2FA: recovery codes are shown once.",
        "リカバリーフレーズは紙に書いて保管してください。",
    ]);
}
