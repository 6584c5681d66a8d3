//! Tests of the issue-16 ninth round (sixth session of 2026-12-05): wallet seeds judged by
//! BIP-39's list, typed passphrases, and the long tail of runtimes, debuggers, agent
//! frameworks and chat exports a fresh part (`tuning_22`) showed missing.

use super::second_pass_tests::{assert_found, assert_quiet};

#[test]
fn a_seed_of_list_words_warns_numbered_or_not_and_prose_after_a_seed_label_does_not() {
    assert_found(&[
        (
            "LND cipher seed (aezeed) for the routing node:\n1. absorb 2. velvet 3. cradle 4. mango 5. tribe 6. orbit\n7. lemon 8. quarter 9. giggle 10. pulse 11. stadium 12. harbor\n13. eternal 14. wisdom 15. sniff 16. ranch 17. dove 18. arctic\n19. blanket 20. ozone 21. fiber 22. cinnamon 23. glimpse 24. kite",
            "seed_phrase",
            "warn",
        ),
        (
            "- Recovery words (write on paper, then delete this!): barrel bundle attitude apology angle beach allow brief arctic athlete bird arrive",
            "seed_phrase",
            "warn",
        ),
        (
            "cipher seed for node-2: 1 absent 2 gentle 3 mirror 4 parade 5 orbit 6 salute 7 cabin 8 thrive 9 echo 10 velvet 11 plunge 12 morning",
            "seed_phrase",
            "warn",
        ),
    ]);
    assert_quiet(&[
        "Backup plan: restore backups first then check every replica before opening traffic again and done",
        "Seed data: we load the fixtures from the staging dump and then run the migrations twice over",
    ]);
}

#[test]
fn a_typed_passphrase_of_letters_and_digits_warns_after_its_name() {
    assert_found(&[
        ("- [ ] give Jonas the wifi for the offsite, passphrase: ywfdjw297tilw", "generic_secret", "warn"),
        ("wallet unlock uses aezeed passphrase 'harbor-9808'. Channels re-synced", "generic_secret", "warn"),
        ("バックアップ暗号化のパスフレーズ：sakura-tsuki-2025-kawa", "password_in_prose", "warn"),
    ]);
    assert_quiet(&["the passphrase: required for every export", "salt: per-user, rotated yearly"]);
}

#[test]
fn two_lines_only_a_runtime_or_debugger_prints_block() {
    assert_found(&[
        (
            "Program received signal SIGSEGV, Segmentation fault.\n0x0000555555556a1c in ring_pop (rb=0x0) at src/ring.c:73",
            "runtime_trace",
            "block",
        ),
        (
            "PHP Fatal error:  Uncaught TypeError: bad coupon in /srv/app/Calc.php:61\nStack trace:\n#0 /srv/app/Cart.php(144): Calc->apply()",
            "runtime_trace",
            "block",
        ),
        (
            "report-gen: Prelude.head: empty list\nCallStack (from HasCallStack):\n  error, called at libraries/base/GHC/List.hs:1646:3 in base:GHC.List",
            "runtime_trace",
            "block",
        ),
        (
            "=CRASH REPORT==== 8-Oct-2024::03:14:22.481903 ===\n  crasher:\n    initial call: chat_session:init/1",
            "runtime_trace",
            "block",
        ),
        ("Calls: source ... summarise -> [ -> [.data.frame\nExecution halted", "runtime_trace", "block"),
        ("    _PID=48211\n    _UID=998\n    _COMM=python3", "runtime_trace", "block"),
        (
            "** (FunctionClauseError) no function clause matching in Rates.rate_for/2\n\n    The following arguments were given to Rates.rate_for/2:",
            "runtime_trace",
            "block",
        ),
        (
            r"D:\a\1\s\src\Api\Startup.cs(42,17): error CS0246: The type or namespace name 'IClock' could not be found",
            "compiler_error",
            "block",
        ),
        (
            "Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme0n1p1   96G   71G   26G  74% /",
            "tool_table",
            "block",
        ),
    ]);
    assert_quiet(&[
        "gdb stopped with SIGSEGV in ring_pop; rb was null",
        "PHP Fatal error: Uncaught TypeError in Calc.php, fixed by a null check",
        "R halted with undefined columns; Calls: summarise_region",
    ]);
}

#[test]
fn agent_framework_traces_and_more_chat_exports_block() {
    assert_found(&[
        (
            "> Entering new AgentExecutor chain...\nAction: pagerduty_lookup\nAction Input: {\"schedule\": \"search\"}\nObservation: Bongani\nFinal Answer: Bongani is on call.",
            "agent_trace",
            "block",
        ),
        (
            "# Agent: Market Researcher\n## Using tool: Search the internet\n## Tool Output:\nResult 1",
            "agent_trace",
            "block",
        ),
        (
            "**Ines Duarte** (10:31): the flake is back\n**Kwame Mensah** (10:33): it's the clock mock\n**Ines Duarte** (10:34): so move it?",
            "chat_export",
            "block",
        ),
        (
            "Дмитрий К., [02.10.2024 22:41]\nпочему упал импорт?\n\nАнна Л., [02.10.2024 22:43]\nформат CSV\n\nДмитрий К., [02.10.2024 22:44]\nок",
            "chat_export",
            "block",
        ),
        (
            "2024년 5월 12일 오후 9:03, 김민수 : 공지 올렸어요?\n2024년 5월 12일 오후 9:04, 이서연 : 아직요\n2024년 5월 12일 오후 9:06, 김민수 : 올려주세요",
            "chat_export",
            "block",
        ),
        (
            "Hamid Rahimi: Can everyone see the Figma?\nLucía Torres: It's the locale thing again.\nHamid Rahimi: Exactly, the browser then.\nLucía Torres: Fine by me, I'll update it.",
            "named_turns",
            "block",
        ),
    ]);
    assert_quiet(&[
        "The agent prints a Final Answer: line when it is done.",
        "Observation: backups ran late\nObservation: restore untested\nObservation: no owner",
    ]);
}

#[test]
fn shared_windows_profiles_and_documentation_mail_addresses_are_not_findings() {
    assert_quiet(&[r"C:\Users\Public\Desktop", r"C:\\Users\\Default\\NTUSER.DAT", "mailto:support@example.net"]);
    assert_found(&[
        (r"C:\Users\jdoe\Desktop", "windows_home_path", "block"),
        ("write to mailto:ops@acme.io", "mailto_link", "warn"),
    ]);
}

#[test]
fn commands_opening_a_line_hosts_and_named_secrets_in_more_languages_warn() {
    assert_found(&[
        (r"Remove-Item -Recurse -Force D:\agent\_work\*", "operational_command_line", "warn"),
        ("Restart-Computer -Force", "operational_command_line", "warn"),
        ("ansible-playbook -i inventories/prod site.yml --limit web", "operational_command_line", "warn"),
        ("old job history stays at http://jenkins.build.intra:8080/job/mobile/", "internal_host", "block"),
        ("検証環境のマスターキー: 7f3a9c0e51d24b8a96e3f07c1d5b2a48 （本番とは別）", "password_in_prose", "warn"),
        ("Il codice di sblocco del telefono aziendale di test è 770341; serve", "access_code", "warn"),
        ("On the box /var/home/renata/.local/share is full", "home_path", "block"),
    ]);
    assert_quiet(&[
        "Remove-Item deletes files; add -Recurse for folders",
        "ansible-playbook -i inventories/staging site.yml",
        "the var/home folder layout of Fedora Atomic",
    ]);
}

#[test]
fn a_json_document_kept_as_a_string_is_scanned_as_one() {
    let access = r#"{"evidence": "203.0.113.41 - - [11/Jun/2024:14:02:11 +0000] \"GET /a HTTP/1.1\" 200 12 \"-\" \"okhttp\"\n198.51.100.7 - - [11/Jun/2024:14:02:12 +0000] \"GET /b HTTP/1.1\" 504 0 \"-\" \"okhttp\""}"#;
    let journal = r#"[{"__REALTIME_TIMESTAMP": "1728357262481903", "PRIORITY": "4", "MESSAGE": "worker exited"}, {"__REALTIME_TIMESTAMP": "1728357262519774", "PRIORITY": "6", "MESSAGE": "start worker"}, {"__REALTIME_TIMESTAMP": "1728357263002110", "PRIORITY": "6", "MESSAGE": "reloaded"}]"#;
    assert_found(&[(access, "access_log", "block"), (journal, "log_records", "block")]);
    assert_quiet(&[r#"{"note": "all good", "next": ["ship it"]}"#, "[1, 2, 3]", "{not json at all}"]);
}

#[test]
fn after_the_blind_score_of_held_out_15() {
    assert_found(&[
        (
            "src/api/client.ts:57:11 - error TS2322: Type 'string | undefined' is not assignable",
            "compiler_error",
            "block",
        ),
        ("Vault master key share #2 of 5: 4b9e 21f0 c7d3 88aa 0e5f", "generic_secret", "warn"),
        ("Code de déverrouillage du téléphone de test : 731904", "access_code", "warn"),
        ("BIOS unlock code for the loaner laptops: 0x7F3A-19C2", "access_code", "warn"),
    ]);
    // Keys naming a fact about a secret (a policy, a due date, a lifetime, a manager).
    assert_quiet(&[
        r#"{"api_key_rotation_due": "2025-06-01", "secret_manager": "vault", "password_policy": "min 14 chars", "token_ttl_minutes": 60}"#,
    ]);
    assert_found(&[(r#"{"api_token": "Zq8vNw3LpT6xR2mK"}"#, "secret_assignment", "block")]);
}

#[test]
fn ruby_backtraces_and_azure_signatures_block() {
    assert_found(&[
        (
            "NoMethodError: undefined method `full_name' for nil\n  app/models/invoice.rb:42:in `billing_label'\n  actionview (7.1.3) lib/action_view/base.rb:263:in `public_send'",
            "ruby_backtrace",
            "block",
        ),
        (
            "Upload with: https://nwlake01.blob.core.windows.net/exports?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2025-12-31T23:59:59Z&sig=4VcL%2BYWr38I3zXhBcbgS91ddTInJHvzoUs%2BRwPBEw4s%3D",
            "azure_sas",
            "block",
        ),
    ]);
    assert_quiet(&[
        "the error is raised in app/models/invoice.rb:42 when the contact is nil",
        "append ?sv=2022-11-02&sp=r&sig=<signature> to the blob URL",
    ]);
}

#[test]
fn an_autogen_conversation_blocks() {
    assert_found(&[(
        "user_proxy (to assistant):\n\nPlot the weekly signups.\n\n--------\nassistant (to user_proxy):\n\n```python\nimport pandas\n```",
        "autogen_turns",
        "block",
    )]);
    assert_quiet(&["the reply goes back (to the sender): see the docs\nand then (to be sure): check twice"]);
}

#[test]
fn an_address_spelt_with_at_and_dot_and_a_korean_unlock_code_warn() {
    assert_found(&[
        ("The maintainer is j.moreau [at] atelier-lumen [dot] fr — write first", "email_obfuscated", "warn"),
        ("서버실 랙 잠금 해제 코드: 5831-2207 (분기마다 변경)", "access_code", "warn"),
    ]);
    assert_quiet(&["we meet (at) the office (dot) matrix", "write to support [at] example [dot] com"]);
}

#[test]
fn after_the_attack_on_this_round_bare_carriage_returns_break_lines() {
    // A transcript and a trace whose lines end in a bare `\r` (no `\n`) are read line by line.
    assert_found(&[
        (
            "User: fix the prod db\rAssistant: done, I dropped the orders table\rUser: thanks\rAssistant: np\r",
            "transcript_turns",
            "block",
        ),
        (
            "Program received signal SIGSEGV, Segmentation fault.\r0x0000555555556a1c in ring_pop (rb=0x0) at src/ring.c:73\r",
            "runtime_trace",
            "block",
        ),
    ]);
    // Documentation of these shapes, and a published test vector, are not them.
    assert_quiet(&[
        "TimeCreated  : when the event was written\nProviderName : the component that wrote it",
        "Stop-Service stops one or more running services.\nRestart-Computer restarts the operating system.\nRemove-Item -Recurse deletes the items in all child items.",
        r#"{"signing_key_id": "release2024"}"#,
    ]);
    let vector = "seed: abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
    assert!(!super::second_pass_tests::rules_of_text(vector).iter().any(|(r, _)| r == "seed_phrase"), "{vector}");
}

#[test]
fn a_document_escaped_into_strings_is_read_through_its_first_layers() {
    let records = r#"[{"ts": "2024-03-11T14:02:11Z", "level": "error", "msg": "pool reset"}, {"ts": "2024-03-11T14:02:12Z", "level": "warn", "msg": "retry"}, {"ts": "2024-03-11T14:02:13Z", "level": "error", "msg": "gave up"}]"#;
    let once = serde_json::to_string(&serde_json::json!({ "evidence": records })).expect("json");
    let twice = serde_json::to_string(&serde_json::json!({ "note": once })).expect("json");
    assert_found(&[
        (records, "log_records", "block"),
        (&once, "log_records", "block"),
        (&twice, "log_records", "block"),
    ]);
}
