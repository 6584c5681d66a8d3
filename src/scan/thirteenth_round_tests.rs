//! Tests of the issue-16 thirteenth round (session of 2026-12-06, third): the long tail of
//! `tuning_36` (chat dumps in YAML and TOML, Mistral's tool tokens, Ruby/Crystal frames, TAP,
//! Vitest, PHP and D traces, Redis logs, more destructive commands, generic secrets in more
//! languages) and its look-alikes (build labels, dry runs, fixtures' placeholder keys).

use super::second_pass_tests::{assert_found, assert_quiet, rules_of_text};

#[test]
fn chat_dumps_in_yaml_or_toml_and_mistral_tool_tokens_block() {
    assert_found(&[
        (
            "conversation:\n  - role: user\n    content: |\n      The importer skips rows.\n  - role: assistant\n    content: |\n      Strip the separators first.",
            "transcript_turns",
            "block",
        ),
        (
            "[[turn]]\nspeaker = \"human\"\ntext = \"Is the cron in UTC?\"\n\n[[turn]]\nspeaker = \"assistant\"\ntext = \"No, Europe/Berlin.\"",
            "transcript_turns",
            "block",
        ),
        (
            "[INST] Find invoice INV-20931[/INST][TOOL_CALLS][{\"name\":\"get_invoice\"}]</s>[TOOL_RESULTS]{\"status\":\"open\"}[/TOOL_RESULTS]It is overdue.",
            "llama_turns",
            "block",
        ),
    ]);
    assert_quiet(&[
        // One role field is a schema's example, not a dump.
        "messages:\n  - role: user\n    content: \"{{question}}\"",
        // Tokens named in code spans are docs about the format.
        "The Phi-3 family expects each turn wrapped as `<|user|>` + text + `<|end|>`, followed by `<|assistant|>`.",
    ]);
}

#[test]
fn more_runtimes_and_runners_output_blocks() {
    assert_found(&[
        (
            "Unhandled exception: Index out of bounds (IndexError)\n  from src/feed/parser.cr:88:7 in 'parse_entry'\n  from src/feed.cr:19:3 in '__crystal_main'",
            "runner_report_lines",
            "block",
        ),
        (
            "TAP version 13\n1..3\nok 1 - parses\nnot ok 2 - rejects duplicate keys\n# tests 3\n# fail 1",
            "runner_report_lines",
            "block",
        ),
        (
            " FAIL  src/utils/money.test.ts > formatMoney > rounds\n Test Files  1 failed | 14 passed (15)\n      Tests  1 failed | 203 passed (204)",
            "runner_report_lines",
            "block",
        ),
        (
            "[11-Jul-2024 03:14:52 UTC] PHP Fatal error:  Uncaught TypeError in /var/www/a.php:93\nStack trace:\n#0 /var/www/shop/src/Renderer.php(93): number_format('12,50', 2)\n#1 /var/www/shop/public/index.php(27): render(4471)",
            "runtime_trace",
            "block",
        ),
        (
            "core.exception.RangeError@source/tiles.d(112): Range violation\n----------------\n??:? _d_arrayboundsp [0x55d4c1a3e2f1]",
            "runtime_trace",
            "block",
        ),
        (
            "1:M 11 Jul 2024 03:10:02.114 * 10000 changes in 60 seconds. Saving...\n1:M 11 Jul 2024 03:10:02.131 * Background saving started by pid 9912\n9912:C 11 Jul 2024 03:10:09.870 # Write error saving DB on disk",
            "timestamped_log",
            "block",
        ),
    ]);
    assert_quiet(&[
        "Ruby prints `from app.rb:12:in 'run'` lines under the error; TAP streams start with `TAP version 13`.",
        "Run vitest again: Tests 1 failed | 203 passed (204) was yesterday's total.",
    ]);
}

#[test]
fn build_labels_dry_runs_and_fixture_placeholders_are_quiet() {
    assert_quiet(&[
        "run `bazel test //services/geo/...` after the fix",
        "the target //app/api:server builds the image",
        "To preview: kubectl delete -f manifests/legacy/ --dry-run=client -o name",
        "Check the scope with `aws s3 rm s3://<bucket>/<prefix>/ --recursive --dryrun` first.",
        "helm upgrade --install web ./chart --dry-run --debug renders the manifests",
        "STRIPE_SECRET = \"sk_test_xxxxxxxxxxxxxxxxxxxxxxxx\"",
    ]);
    // A share with a label-like tail of its own is still a share.
    assert_found(&[("mount //nas-01/backups/home on /mnt/b", "unc_slash_path", "block")]);
}

#[test]
fn more_destructive_commands_warn() {
    assert_found(&[
        (
            "plan: ETCDCTL_API=3 etcdctl del --prefix /registry/events/ on the control plane",
            "operational_command",
            "warn",
        ),
        (
            "kafka-topics.sh --bootstrap-server kafka-prod-1:9092 --delete --topic orders.v1.deadletter",
            "operational_command",
            "warn",
        ),
        ("Depois, rodar `gh repo delete halverson/old-landing-2021 --yes`.", "operational_command", "warn"),
        (
            "Roll the rules: ansible-playbook -i inventories/prod/hosts.ini site.yml --tags firewall",
            "operational_command",
            "warn",
        ),
    ]);
    assert_quiet(&["ansible-playbook -i inventories/prod/hosts.ini site.yml --check --diff"]);
}

#[test]
fn generic_secrets_in_more_languages_and_shapes_warn() {
    assert_found(&[
        ("Alarmanlage Eingang, PIN 6-9-6-8, danach die Tür schließen.", "access_code", "warn"),
        ("ПИН-код от сейфа в серверной: 7129. Ключ от стойки там же.", "access_code", "warn"),
        ("서버실 금고 다이얼 번호: 76-64-66 (왼쪽-오른쪽-왼쪽).", "access_code", "warn"),
        ("Backup codes for the ops account's 2FA:\n  7266-7186\n  8698-6747\n  5178-5520\n", "backup_codes", "warn"),
        (
            "Frase semilla: voyage prize wisdom glimpse cushion salad clinic orbit marble candle tribe ladder.",
            "seed_phrase",
            "warn",
        ),
        ("共有PCのパスワードマネージャー：マスターパスワードは「jRyY-265-hBQzh」。", "password_in_prose", "warn"),
        ("offsite tapes: \"vault_key\": \"Thcec-vbgmpy-44-nowy\"", "generic_secret", "warn"),
    ]);
    assert_quiet(&[
        "El PIN debe cambiarse cada trimestre.",
        "Backup codes: print them and keep them in the safe.",
        "Rotate the vault key yearly.",
    ]);
    let found = rules_of_text("ПИН-код надо менять раз в квартал.");
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn held_out_19s_warn_shapes_warn() {
    assert_found(&[
        (
            "Pseudonymisation uses HMAC-SHA256 over user_id with salt 1284986d6b540e69a01e6938ca87c502 — same salt as before.",
            "generic_secret",
            "warn",
        ),
        ("サーバールーム入室用PIN：093789（4月末で変更予定）。", "access_code", "warn"),
        ("Clé GPG : la phrase de passe est « copper kitten orange 30 ».", "password_in_prose", "warn"),
        ("Kod rozbrojenia alarmu w biurze na Mokotowie: 4515#.", "access_code", "warn"),
    ]);
    assert_quiet(&["the salt is stored next to the hash", "Kod rozbrojenia alarmu zmieniamy co miesiąc."]);
    assert_found(&[(
        "NAME          IMAGE          COMMAND                  SERVICE   CREATED       STATUS\napp-db-1      postgres:16    \"docker-entrypoint.s…\"   db        2 hours ago   Up 2 hours",
        "tool_table",
        "block",
    )]);
}

#[test]
fn tuning_38s_commands_secrets_and_keys() {
    assert_found(&[
        (
            "velero restore create rb --from-backup prod-daily --include-namespaces ledger",
            "operational_command",
            "warn",
        ),
        ("VAULT_ADDR=https://vault.example:8200 vault operator seal", "operational_command", "warn"),
        ("consul kv delete -recurse config/payments/", "operational_command", "warn"),
        (
            "aws rds delete-db-instance --db-instance-identifier ledger-2 --skip-final-snapshot",
            "operational_command",
            "warn",
        ),
        ("cqlsh cass-1 -e \"DROP KEYSPACE IF EXISTS telemetry_v1;\"", "operational_command", "warn"),
        ("sudo certbot revoke --cert-name shop.example.org --reason keycompromise", "operational_command", "warn"),
        ("ssh ops@edge-fw-2 'sudo iptables -F && sudo iptables -X'", "operational_command", "warn"),
        ("zfs destroy -r tank/backups/ledger@2024-q4", "operational_command", "warn"),
        ("kubectl taint nodes gpu-a-3 dedicated=ml:NoExecute --overwrite", "operational_command", "warn"),
        ("Catatan: frasa sandi brankas cadangan = lumpur-biru-23-sawah.", "password_in_prose", "warn"),
        ("A biztonsági mentés jelmondata: Balaton76-harang-lassú", "password_in_prose", "warn"),
        ("Varaston hälytysjärjestelmän PIN-koodi: 7321", "access_code", "warn"),
        ("קוד פתיחה לטאבלט של הקבלה: 2526-46.", "access_code", "warn"),
        (
            "Fraza de recuperare pentru portofelul firmei (doar temporar aici): abandon ability able about above absent absorb abstract absurd abuse access accident",
            "seed_phrase",
            "warn",
        ),
        ("MIXPANEL_API_SECRET=61a34b63416a3a5c3638b34d5746033e", "secret_assignment", "block"),
        ("SNYK_TOKEN: 98a7606b-6581-4057-9d28-09249f7283ec", "secret_assignment", "block"),
        ("cred = Credential(\"AKIDkzQgRnN58WaHNb5ad5dm8KVfm2b6janl\", s)", "provider_token", "block"),
    ]);
    assert_quiet(&[
        "velero backup get && velero restore describe ledger-rollback --details",
        "sudo iptables -L -n -v --line-numbers",
        "certbot revoke needs either --cert-path or --cert-name; otherwise let certificates expire.",
        "PublicKey = N0jxRZkgDQE8iBJn46HoE1IdbPO+oI4eXXgpbqzUGhI=",
        "otpauth://totp/Fenwick:{email}?secret={BASE32_SECRET}&issuer=Fenwick",
        "idempotency_key: 98a7606b-6581-4057-9d28-09249f7283ec",
        "cache_key = 61a34b63416a3a5c3638b34d5746033e",
    ]);
}

#[test]
fn a_react_trace_blocks_and_an_audit_observation_does_not() {
    assert_found(&[(
        "Question: Is it under warranty?\nThought: I need the purchase date.\nAction: lookup_order[serial=KST4-22918]\nObservation: {\"purchased\": \"2023-02-11\"}\nThought: It expired.",
        "agent_trace",
        "block",
    )]);
    assert_quiet(&[
        "Thought: keep the audit short.\nObservation: two invoices lacked approval.\nAction: finance to re-approve them.",
    ]);
}

/// From the round's attack (a helper with the binary alone).
#[test]
fn the_attacks_false_blocks_are_quiet() {
    assert_quiet(&[
        // Users with a role in a config or a seed file are no chat turns.
        "users:\n  - name: alice\n    role: user\n  - name: bob\n    role: user\n",
        "[accounts.a]\nrole = \"user\"\n[accounts.b]\nrole = \"user\"\n",
        // Mistral's tokens named in prose or code.
        "Strip [/TOOL_RESULTS] and [/AVAILABLE_TOOLS] markers before logging.",
        "STOP = [\"[/INST]\", \"[TOOL_CALLS]\", \"</s>\"]",
        // Bazel labels of three segments, or in a BUILD file's deps.
        "the target //services/payments/v1:api is flaky",
        "deps = [\"//lib/util\", \"//lib/net\"],",
        // Dates after a PIN's label; a non-production inventory.
        "The PIN 2024-03-15 rollout was delayed.",
        "ПИН-код: 2024-03-15 — дата смены",
        "ansible-playbook -i inventories/nonprod site.yml",
        "ansible-playbook -i preprod.ini site.yml",
    ]);
}

#[test]
fn the_attacks_evasions_are_caught() {
    assert_found(&[
        // A share whose tail or line only looks like a build label.
        ("mount -t cifs //fs01/payroll:/ /mnt/p", "unc_slash_path", "block"),
        ("net use Z: //fs01/finance:rw", "unc_slash_path", "block"),
        ("mount //fs01/finance /mnt/f (see the bazel docs)", "unc_slash_path", "block"),
        // A dry-run flag that is off, in a comment, in another command or part of a longer flag.
        ("gh repo delete acme/api --yes # not --dry-run", "operational_command", "warn"),
        ("kubectl apply -f a.yaml --dry-run=client && kubectl delete deploy api", "operational_command", "warn"),
        ("kubectl delete ns prod --dry-run=none", "operational_command", "warn"),
        ("systemctl restart nginx --check-inhibitors=no", "operational_command", "warn"),
        // A ChatML dump opened by a stray backtick.
        ("`<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nhello<|im_end|>", "chatml_turns", "block"),
        // Backup codes in Google's and GitHub's shapes, as a list.
        ("Recovery codes:\n- 8412 3391\n- 5570 1204\n- 9981 0042", "backup_codes", "warn"),
        ("GitHub 2FA recovery codes:\n3f9a1-c27e4\n0b8d2-99a1f\n", "backup_codes", "warn"),
    ]);
    assert_quiet(&["kubectl delete -f legacy/ --dry-run=server -o name"]);
}

#[test]
fn a_token_encoded_and_wrapped_at_76_columns_blocks() {
    use base64::Engine as _;
    let token = "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";
    let encoded = base64::engine::general_purpose::STANDARD.encode(token);
    assert!(encoded.len() > 76, "the encoding must wrap");
    let wrapped = format!("{}\n{}\n", &encoded[..76], &encoded[76..]);
    let found = rules_of_text(&format!("PAT for the mirror job (base64):\n{wrapped}"));
    assert!(found.iter().any(|(r, s)| r == "github_pat" && s == "block"), "{found:?}");
    // Two unrelated base64 lines of another width are not joined into one.
    let a = base64::engine::general_purpose::STANDARD.encode(&token[..40]);
    let b = base64::engine::general_purpose::STANDARD.encode(&token[40..]);
    assert_quiet(&[&format!("{a}\n{b}\n")]);
}

#[test]
fn curl_traces_and_more_tool_tables_block() {
    assert_found(&[
        (
            "* Connected to api.partner.example (203.0.113.40) port 443 (#0)\n> POST /v1/shipments HTTP/2\n> Host: api.partner.example\n>\n< HTTP/2 422\n< content-type: application/json",
            "runner_report_lines",
            "block",
        ),
        (
            "health status index       uuid                   pri rep docs.count\ngreen  open   logs-2025.05 k2Jd9sQXT3e8vC1aZ0pLmw   3   1   18234411",
            "tool_table",
            "block",
        ),
        ("PORT     STATE  SERVICE    VERSION\n22/tcp   open   ssh        OpenSSH 8.9p1", "tool_table", "block"),
    ]);
    assert_quiet(&[
        "Send a POST /v1/shipments request; a 422 means the postcode is wrong.",
        "> GET / HTTP/1.1 is what curl prints first.",
    ]);
}

#[test]
fn a_test_word_excuses_an_identifier_near_it_not_one_far_along_the_line() {
    assert_quiet(&["test fixture: DOB 14/07/1951 for the parser"]);
    let far = format!("Re: Mrs. Evelyn Marsh, DOB 14/07/1951; {} the test suite passed.", "word ".repeat(60));
    assert_found(&[(far.as_str(), "personal_identifier", "block")]);
}
