//! Tests of the issue-16 tenth round (session of 2026-12-05, seventh): the variants and
//! false positives the ninth round's attack left named.

use super::second_pass_tests::{assert_found, assert_quiet};

/// `text` with each byte written as an escape: `\u0073` (`unicode`) or `\x73`.
fn escaped(text: &str, unicode: bool) -> String {
    use std::fmt::Write as _;
    text.bytes().fold(String::new(), |mut out, b| {
        let _ = if unicode { write!(out, "\\u{b:04x}") } else { write!(out, "\\x{b:02x}") };
        out
    })
}

#[test]
fn more_runtime_and_agent_traces_block() {
    assert_found(&[
        (
            "Thread 3 \"worker-2\" received signal SIGSEGV, Segmentation fault.\n[Switching to Thread 0x7ffff5e3f640 (LWP 48211)]\n0x00005555555563b2 in drain_queue (q=0x0) at queue.c:88",
            "runtime_trace",
            "block",
        ),
        (
            "[2025-02-11 09:14:03] production.ERROR: Undefined index: sku {\"exception\":\"[object] (ErrorException(code: 0): Undefined index: sku at /var/www/shop/app/Cart.php:57)\n[stacktrace]\n#0 /var/www/shop/app/Cart.php(57): handleError()",
            "runtime_trace",
            "block",
        ),
        (
            "> Entering new AgentExecutor chain...\n\nInvoking: `lookup_invoice` with `{'number': 'INV-2231'}`\n\nInvoice INV-2231 is overdue.\nInvoking: `send_reminder` with `{'to': 'billing'}`\n\nsent\n> Finished chain.",
            "agent_trace",
            "block",
        ),
        (
            "---------- user ----------\nFind the cheapest flight to Oslo.\n---------- Planner ----------\nI will ask the search agent.\n---------- TextMessage (search_agent) ----------\nSAS 412, 89 EUR.",
            "autogen_console",
            "block",
        ),
    ]);
    assert_quiet(&[
        "---------- Forwarded message ----------\nFrom: Events Desk <events@example.org>\nSubject: Open day\n---------- Original message ----------\nThe museum opens at nine.",
        "Thread 3 received the signal to stop; see the gdb notes",
        "Invoking: `build` runs the compiler.",
    ]);
}

#[test]
fn autogen_heads_need_two_senders() {
    assert_found(&[(
        "user_proxy (to assistant):\n\nPlot NVDA.\n\n--------\nassistant (to user_proxy):\n\nHere is the code.",
        "autogen_turns",
        "block",
    )]);
    assert_quiet(&[
        "Draft (to legal):\n\nPlease review clause 4 before Friday.\n\nDraft (to legal):\n\nAnd clause 7, the indemnity cap.",
    ]);
}

#[test]
fn obfuscated_addresses_in_braces_and_angles_and_a_signature_before_its_version_are_found() {
    assert_found(&[
        ("reach the owner at m.ferreira {at} quintal-verde {dot} pt for the keys", "email_obfuscated", "warn"),
        ("contact: ops <at> nordlicht <dot> de", "email_obfuscated", "warn"),
        (
            "https://stacct.blob.core.windows.net/exports/q3.csv?sig=Qm9yZWFsaXNTaWduYXR1cmVGb3JUZXN0aW5nT25seTEy%3D&se=2025-06-01T00%3A00%3A00Z&sp=r&sv=2022-11-02&sr=b",
            "azure_sas",
            "block",
        ),
    ]);
    assert_quiet(&["<attribute name=\"at\"/> {attention} (dot)"]);
}

#[test]
fn a_recovery_phrase_without_a_colon_warns_and_recipes_and_small_seeds_do_not() {
    assert_found(&[
        (
            "MetaMask Secret Recovery Phrase barrel bundle attitude apology angle beach allow brief arctic athlete bird arrive",
            "seed_phrase",
            "warn",
        ),
        (
            "the seed phrase is - velvet cradle mango tribe orbit lemon quarter giggle pulse stadium harbor eternal",
            "seed_phrase",
            "warn",
        ),
        ("seed: 0x5EED1234ABCDEF0011223344556677889900AABBCCDDEEFF0011223344556677", "generic_secret", "warn"),
    ]);
    assert_quiet(&[
        "recovery phrase is never stored on our servers, so write it down on paper and keep it in a safe place",
        "Pepper: freshly ground black pepper",
        "Salt: coarse sea salt flakes",
        "torch.manual_seed(7)  # random seed: 0x5EED1234",
    ]);
}

#[test]
fn tenth_round_long_tail_blocks() {
    assert_found(&[
        (
            "Marisol Ebert  10:42 AM\n@atlas-bot what changed\natlas-bot  APP  10:42 AM\nThree PRs merged.\nMarisol Ebert  10:44 AM\nwhy the revert\natlas-bot  APP  10:44 AM\nstale prices",
            "chat_export",
            "block",
        ),
        (
            "**Elif Demir**: explain cell 14 please\n\n**Jupyternaut**: The column was renamed to Region.\n\n**Elif Demir**: fix it and rerun\n\n**Jupyternaut**: Done, cells ran fine.",
            "named_turns",
            "block",
        ),
        (
            "lua: spawn.lua:27: attempt to index a nil value\nstack traceback:\n\tspawn.lua:27: in upvalue 'load_wave'",
            "runtime_trace",
            "block",
        ),
        (
            "Stacktrace:\n [1] monthly_total(rows::Vector{Dict{String, Any}})\n   @ Main ~/proj/src/report.jl:18",
            "runtime_trace",
            "block",
        ),
        (
            "Thread 0 Crashed:\n0   libsystem_kernel.dylib        \t0x00000001e6f2a974 __pthread_kill + 8",
            "runtime_trace",
            "block",
        ),
        (
            "psql:backfill.sql:14: ERROR:  duplicate key value violates unique constraint \"invoices_number_key\"\nDETAIL:  Key (number)=(INV-2024-004471) already exists.",
            "runtime_trace",
            "block",
        ),
        (
            "03-12 21:14:07.512  8841  8841 E AndroidRuntime: FATAL EXCEPTION: main\n03-12 21:14:07.512  8841  8841 E AndroidRuntime: Process: com.petal, PID: 8841\n03-12 21:14:07.604  1402  1977 I ActivityManager: Process died",
            "timestamped_log",
            "block",
        ),
        ("the ports overlay is in /usr/home/bjorn/ports-overlay/www", "home_path", "block"),
        ("legacy job reads /export/home/rpatel/feeds/incoming", "home_path", "block"),
        ("{\"uri\": \"vscode-remote://ssh-remote%2Bdevbox-07/home/priya.raman/work\"}", "home_path", "block"),
        ("the bind mount is /run/desktop/mnt/host/c/Users/marta.lis/dev/etl", "wsl_home_path", "block"),
        (
            "Dataset copy is in \u{2215}home\u{2215}oleksandr\u{2215}datasets\u{2215}visits.parquet",
            "home_path",
            "block",
        ),
        ("ログ出力先は C:¥Users¥tanaka.hiroshi¥AppData¥Roaming¥logs¥ です", "windows_home_path", "block"),
        (
            "alerts → https://api.telegram.org/bot6365324340:AAceElZGnvVJmw7QfySm7mPIARn1HDBbm0z/sendMessage",
            "telegram_bot_token",
            "block",
        ),
        ("Retention cleanup: gsutil -m rm -r gs://kestrel-backups-eu/2022/**", "operational_command", "warn"),
        ("pulumi destroy --stack kestrel/infra/prod-eu --yes", "operational_command", "warn"),
        ("ansible webservers -i inventories/prod -b -m ansible.builtin.reboot", "operational_command_line", "warn"),
        ("経理部の金庫の暗証番号：420122（来月変更予定）", "access_code", "warn"),
        ("signing the release needs the GPG key passphrase: pepper drama sunset crater", "generic_secret", "warn"),
    ]);
    assert_quiet(&[
        "**Status**: in review now\n**Owner**: Dana Whitfield here\n**Status**: merged last night\n**Owner**: Sam Okafor now",
        "DATABASE_URL=postgresql://orders_app:${ORDERS_DB_PASSWORD}@pg-prod-01.int.kestrel.example:5432/orders",
        "Docs example header: `Authorization: Basic dXNlcm5hbWU6cGFzc3dvcmQ=` is base64 of username:password",
        "{\"prefix\": \"/home/linuxbrew/.linuxbrew\"}",
        "Price: ¥1,200 per seat; the path separator on Japanese Windows shows as ¥",
        "ERROR: relation missing, see DETAIL below",
    ]);
}

#[test]
fn compose_logs_and_a_master_key_named_with_its_file() {
    assert_found(&[
        (
            "api-1     | 2025-09-14 10:11:02 INFO  Starting server on :8080\ndb-1      | 2025-09-14 10:11:03.114 UTC [1] LOG:  ready\napi-1     | 2025-09-14 10:11:03 ERROR failed to run migrations",
            "timestamped_log",
            "block",
        ),
        (
            "Rails master key for staging credentials.yml.enc: c6601ce397bfd6a7d949a7fc936a55c7",
            "generic_secret",
            "warn",
        ),
    ]);
    assert_quiet(&[
        "a | 2025-09-14 release\nmode | 2025-09-15 freeze",
        "the master key for staging credentials.yml.enc: see the vault",
    ]);
}

#[test]
fn a_token_spelt_in_escapes_blocks_and_a_lone_escape_does_not() {
    let stripe = escaped("sk_live_oZzjqfhqf6GPIj1l55w4iVYT", true);
    let hex = escaped("ghp_bGVQpwWabNuMysTFYiwJ64Pqf3a91hUpPYV8", false);
    assert_found(&[
        (&format!("const k = \"{stripe}\"; // escaped so it does not show"), "stripe_key", "block"),
        (&format!("token = b\"{hex}\".decode()"), "github_token", "block"),
    ]);
    assert_quiet(&["{\"name\": \"Ren\\u00e9e\", \"city\": \"S\\u00e3o Paulo\"}", "D:\\\\tools\\\\x64\\\\bin\\\\x86"]);
}

#[test]
fn json_kept_in_a_string_is_read_after_a_bom_a_fence_or_a_label() {
    let inner = r#"{\"messages\": [{\"role\": \"user\", \"content\": \"refund my order\"}, {\"role\": \"assistant\", \"content\": \"Done, 54.90 back to your card\"}]}"#;
    for wrapped in [format!("\u{feff}{inner}"), format!("```json\n{inner}\n```"), format!("payload: {inner}")] {
        let doc = format!("{{\"note\": \"{}\"}}", wrapped.replace('\n', "\\n"));
        let rules = super::second_pass_tests::rules_of_json(&serde_json::from_str(&doc).expect("json"));
        assert!(rules.iter().any(|(r, _)| r == "chat_message_array"), "{doc}: {rules:?}");
    }
    let plain = format!("{{\"note\": \"{}\"}}", "ünïcödé ".repeat(12) + "then { a brace }");
    let rules = super::second_pass_tests::rules_of_json(&serde_json::from_str(&plain).expect("json"));
    assert!(!rules.iter().any(|(r, _)| r == "chat_message_array"));
}

/// What a helper session's attack on this round's scan found (README, "Tenth round").
#[test]
fn after_the_attack_on_the_tenth_round() {
    let spaced = escaped(" ghp_bGVQpwWabNuMysTFYiwJ64Pqf3a91hUpPYV8", true);
    assert_found(&[
        ("6568306319:AAOGni-EDSlFM0P7WCCUopHHzhLlWt5_p8e", "telegram_bot_token", "block"),
        (&spaced, "github_token", "block"),
        ("log at \u{FF0F}home\u{FF0F}alice\u{FF0F}ci\u{FF0F}run.log", "home_path", "block"),
        ("C:\u{20A9}Users\u{20A9}minji.park\u{20A9}Documents\u{20A9}plan.xlsx", "windows_home_path", "block"),
        ("[info] *** 1 TEST FAILED ***\n[error] Failed tests:\n[error] \tcom.acme.CartSpec", "runtime_trace", "block"),
    ]);
    assert_quiet(&[
        "---------- config ----------\nport = 8080\n---------- notes ----------\nkeep it simple",
        "設定ファイルは C:¥Users¥ユーザー名¥AppData¥Roaming にあります。",
        "C:¥Users¥[ユーザー名]¥AppData",
        "配置文件在 C:\\Users\\用户名\\AppData 下",
    ]);
    let frames = serde_json::json!({"frames": [
        {"fileName": "/srv/app/cart.js", "lineNumber": "31", "functionName": "total"},
        {"fileName": "/srv/app/main.js", "lineNumber": 9, "functionName": "run"}
    ]});
    assert!(super::second_pass_tests::rules_of_json(&frames).iter().any(|(r, _)| r == "stack_frames"));
}

/// A run of escapes is measured once from its start: every escape of a long run is found
/// as one disguised stretch, so its line is undone once.
#[test]
fn a_long_run_of_escapes_is_one_stretch() {
    let run = "\\u0041".repeat(5000);
    let text = format!("a\n{run}\nb");
    let stretches = super::disguise::stretches(&text, 0, text.len());
    assert_eq!(stretches, vec![(2, 2 + run.len())]);
}

#[test]
fn turns_apart_by_a_written_line_break_block() {
    assert_found(&[(
        r#"history = "User: fix the prod db\nAssistant: done, restarted it\nUser: thanks\nAssistant: np""#,
        "inline_turns",
        "block",
    )]);
    assert_quiet(&[r#"prompt = "User: {question}\nAssistant:""#]);
}

#[test]
fn a_text_file_holding_a_fenced_json_document_is_read_as_the_document() {
    let text = "```json\n[{\"role\": \"USER\", \"message\": \"how do I rotate the db key?\"}, {\"role\": \"CHATBOT\", \"message\": \"use the vault cli on prod\"}]\n```\n";
    let mut out = Vec::new();
    super::scan_document(text, super::Policy::Public, &mut out);
    assert!(out.iter().any(|f| f.rule_id == "chat_message_array" && f.location == "1:1"), "{out:?}");
}

#[test]
fn compose_logs_without_times_block_and_a_table_of_two_rows_does_not() {
    assert_found(&[(
        "api-1  | INFO listening on :8080\ndb-1   | LOG  database system is ready\napi-1  | GET /health 200",
        "compose_log_lines",
        "block",
    )]);
    assert_quiet(&["step-1  | write the parser\nstep-2  | test it", "api-1 | the first replica"]);
}

#[test]
fn a_linters_json_diagnostics_block() {
    let eslint = serde_json::json!([{"filePath": "/ci/web/src/cart.ts", "errorCount": 2, "messages": [
        {"ruleId": "no-unused-vars", "severity": 2, "message": "'total' is assigned a value but never used.", "line": 63, "column": 9},
        {"ruleId": "eqeqeq", "severity": 2, "message": "Expected '===' and instead saw '=='.", "line": 70, "column": 14}
    ]}]);
    assert!(
        super::second_pass_tests::rules_of_json(&eslint).iter().any(|(r, s)| r == "lint_diagnostics" && s == "block")
    );
    let one = serde_json::json!({"messages": [{"message": "hello", "line": 1, "column": 2, "severity": 1}]});
    assert!(!super::second_pass_tests::rules_of_json(&one).iter().any(|(r, _)| r == "lint_diagnostics"));
}
