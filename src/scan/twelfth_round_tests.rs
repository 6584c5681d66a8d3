//! Tests of the issue-16 twelfth round (session of 2026-12-06, second): a Japanese or
//! Chinese marking word that heads a compound naming a notion is no marking.

use super::second_pass_tests::{assert_found, assert_quiet, rules_of_json, rules_of_text};
use std::fmt::Write as _;

#[test]
fn a_marking_word_heading_a_notion_is_no_marking() {
    assert_quiet(&[
        "情報セキュリティの三要素\n機密性：許可された者だけが情報にアクセスできること\n完全性：情報が正確であること",
        "信息安全三要素\n机密性：确保信息不被泄露\n完整性：信息不被篡改",
        "機密計算\nIntel SGX や AMD SEV を使う技術の総称で、クラウド上で処理中のデータを保護する。",
    ]);
    // The marking itself, alone on its line or in brackets, still blocks.
    assert_found(&[
        (
            "機密\n2025年度 人員削減計画（案）：大阪拠点の閉鎖と希望退職の募集について、役員会で検討する。",
            "confidential_marking",
            "block",
        ),
        ("【机密】关于华东区裁员名单的说明，请勿外传，仅限管理层阅读。", "confidential_marking", "block"),
    ]);
}

#[test]
fn a_token_spelt_in_eight_digit_escapes_blocks() {
    let token = "ghp_Q3vLx9TbW2mZr8YkPn4HcJd7Fs1Ga6Ue0RtV";
    let spelt = token.bytes().fold(String::new(), |mut out, b| {
        let _ = write!(out, "\\U{b:08x}");
        out
    });
    let found = rules_of_text(&format!("TOKEN = \"{spelt}\""));
    assert!(found.iter().any(|(r, s)| r == "github_token" && s == "block"), "{found:?}");
    // Non-ASCII code points (an emoji, an accent) are text, not a disguise.
    assert_quiet(&["print(\"\\U0001F600 done \\U000000e9t\\U000000e9\")"]);
}

#[test]
fn events_of_the_events_api_block_as_cluster_events() {
    let event = |name: &str| {
        serde_json::json!({
            "apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "payments"},
            "reason": "BackOff", "type": "Warning", "reportingController": "kubelet",
            "note": "Back-off restarting failed container api in pod api-7d9c8b5f6-x2kqp",
            "regarding": {"kind": "Pod", "name": "api-7d9c8b5f6-x2kqp", "namespace": "payments"}
        })
    };
    let list = serde_json::json!({"items": [event("a.17f"), event("b.17f")]});
    let found = rules_of_json(&list);
    assert!(found.iter().any(|(r, s)| r == "cluster_events" && s == "block"), "{found:?}");
    // One event's fields in prose, or a lone record, are no event list.
    let one = serde_json::json!({"items": [event("a.17f")]});
    assert!(!rules_of_json(&one).iter().any(|(r, _)| r == "cluster_events"));
}

#[test]
fn a_token_said_to_be_reversed_on_a_line_below_blocks() {
    let reversed: String = "ghp_Q3vLx9TbW2mZr8YkPn4HcJd7Fs1Ga6Ue0RtV".chars().rev().collect();
    for text in [
        format!("deploy token:\n{reversed}\nnote: the string above is reversed"),
        format!("{reversed}\n(read it backwards)"),
    ] {
        let found = rules_of_text(&text);
        assert!(found.iter().any(|(r, s)| r == "github_token" && s == "block"), "{text}: {found:?}");
    }
    // Three lines up is out of reach, and a changelog's word of reversal reads no id.
    let far = format!("{reversed}\n\n\n\nthe list above is reversed");
    assert!(!rules_of_text(&far).iter().any(|(r, _)| r == "github_token"));
    assert_quiet(&["Fixed: 4f2a9c1b reversed the sort order of the todo list (see #412)."]);
}

#[test]
fn an_faqs_question_and_answer_in_more_languages_are_no_speakers() {
    assert_quiet(&[
        "Imibuzo evame ukubuzwa\n\nUmbuzo: Ingakanani idiphozithi yokuqasha?\nImpendulo: Ngokuvamile ilingana nerenti yenyanga.\n\nUmbuzo: Ngizoyithola nini idiphozithi yami?\nImpendulo: Ngemuva kokuphuma endlini nokuhlolwa kwayo.",
        "Tambaya: Me ya sa kika rubuta wannan labari?\nAmsa: Ina so in nuna irin ƙarfin mata a kasuwanni.\nTambaya: Yaushe littafin zai fito?\nAmsa: Za a ƙaddamar da shi a watan gobe.",
    ]);
}

#[test]
fn provider_tokens_by_prefix_and_base32_encoded_tokens_block() {
    for token in [
        "ntn_H8supob3oRuBVdle8s8WVubNmLrNo7agxdx5IqZ36MfhGqw",
        "pul-e315393e6e7552311528230e55b5ee59d4eb693a",
        "hvs.qYVs04u1ScFHHoLZdJ3U-2ufsRWWE9O9PUAyo9lC",
        "dapi7a6db1845a4f6c013f99167d5e4a9a45",
        "lin_api_8Fq2kWx9Lm3Pz7Rt4Vb6Nc1Hd5Jg0Ys2Ua8Ie3Ko",
        "glsa_8Fq2kWx9Lm3Pz7Rt4Vb6Nc1Hd5Jg0Ys2_1a2b3c4d",
        "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",
    ] {
        let found = rules_of_text(&format!("key for the sync job: {token}"));
        assert!(found.iter().any(|(r, s)| r == "provider_token" && s == "block"), "{token}: {found:?}");
    }
    // The prefix alone, a placeholder of the right length, or an identifier is no token.
    assert_quiet(&[
        "Notion tokens start with ntn_ and Pulumi's with pul-.",
        "token: ntn_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "secret_managerClientConfigurationForTheDefaultTenant0",
    ]);
    // A GitHub token kept in base32.
    let encoded = b32("ghp_Q3vLx9TbW2mZr8YkPn4HcJd7Fs1Ga6Ue0RtV");
    let found = rules_of_text(&format!("token (base32, decode before use):\n{encoded}"));
    assert!(found.iter().any(|(r, s)| r == "github_token" && s == "block"), "{encoded}: {found:?}");
    // The same in lower case (as `base32 | tr A-Z a-z` or some libraries print it).
    let lower = encoded.to_ascii_lowercase();
    let found = rules_of_text(&format!("token (base32, decode before use):\n{lower}"));
    assert!(found.iter().any(|(r, s)| r == "github_token" && s == "block"), "{lower}: {found:?}");
}

/// `text` in base32 (RFC 4648), padded.
pub(super) fn b32(text: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::new();
    for chunk in text.as_bytes().chunks(5) {
        let mut block = [0u8; 5];
        block[..chunk.len()].copy_from_slice(chunk);
        let n = block.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        let chars = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < chars {
                out.push(char::from(ALPHABET[((n >> (35 - 5 * i)) & 31) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn generic_secrets_and_codes_of_more_languages_and_mailto_links_warn() {
    assert_found(&[
        ("Klucz główny (master key) do sejfu KeePass w biurze: MMHP-3315-hrjs", "password_in_prose", "warn"),
        ("备份加密主密钥：0eac7913 170b35ea 3c649012 29b1ef70", "password_in_prose", "warn"),
        ("Соль для хеширования токенов сброса: WpQT1LsNPFJiaKqCuB9PpESW", "password_in_prose", "warn"),
        ("pincode kluis archiefkamer: 286557", "access_code", "warn"),
        ("Upplåsningskod för lånetelefonen: 72 78 15", "access_code", "warn"),
        (
            "복구 문구 (12단어): ember willow marble harbor saddle tiger ripple anchor ladder meadow pistol glacier",
            "seed_phrase",
            "warn",
        ),
        ("Para pedir acesso à VPN: mailto:ines.carvalho@example.pt?subject=VPN", "mailto_link", "warn"),
        ("<a href=\"mailto:oncall-infra@example.com\">Contact on-call</a>", "mailto_link", "warn"),
    ]);
    // A template's or a shared mailbox at a documentation domain, and commands named in
    // prose without a target, stay quiet.
    assert_quiet(&[
        "The footer link is mailto:support@example.com until marketing sends the alias.",
        "Write to mailto:you@example.com to test the form.",
        "`helm uninstall` removes every resource of a release; `helm uninstall RELEASE_NAME` in the docs.",
        "La sentencia DROP DATABASE elimina el catálogo y todos sus ficheros.",
        "FLUSHALL borra todas las claves de todas las bases de datos.",
    ]);
    assert_found(&[
        ("helm uninstall payments-api -n prod --wait", "operational_command", "warn"),
        ("then: DROP TABLE sessions_old;", "operational_command", "warn"),
        ("redis-cli -h cache-01 -n 2 FLUSHALL", "operational_command", "warn"),
    ]);
}

#[test]
fn chat_records_of_more_exports_block() {
    let matrix = serde_json::json!([
        {"type": "m.room.message", "sender": "@lucia:chat.example.org", "origin_server_ts": 1_718_031_000_123_u64,
         "content": {"msgtype": "m.text", "body": "!gpt riassumi il thread"}},
        {"type": "m.room.message", "sender": "@gptbot:chat.example.org", "origin_server_ts": 1_718_031_004_456_u64,
         "content": {"msgtype": "m.notice", "body": "Riassunto: si passa a Keycloak 24."}}
    ]);
    let responses = serde_json::json!({"input": [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Be terse."}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Is this index-friendly?"}]}
    ]});
    let copilot = serde_json::json!({"requests": [
        {"message": {"text": "why does this effect run twice"}, "response": [{"value": "Strict Mode mounts twice."}]},
        {"message": {"text": "how do I stop it"}, "response": [{"value": "Return a cleanup function."}]}
    ]});
    for v in [&matrix, &responses, &copilot] {
        assert!(rules_of_json(v).iter().any(|(r, s)| r == "chat_message_array" && s == "block"), "{v}");
    }
    let lines = "{\"type\": \"post\", \"post\": {\"user\": \"rk\", \"message\": \"@aibot blast radius?\", \"create_at\": 1716130220000}}\n\
                 {\"type\": \"reply\", \"reply\": {\"user\": \"aibot\", \"message\": \"Main risks: the slots.\", \"create_at\": 1716130226000}}";
    assert!(rules_of_text(lines).iter().any(|(r, s)| r == "chat_message_array" && s == "block"));
    assert_found(&[
        ("**You:** five names for a budgeting app\n\n**ChatGPT:** Ledgerly, Clearspend", "transcript_turns", "block"),
        (
            "[ChatMessage(role=<MessageRole.USER: 'user'>, blocks=[]),\n ChatMessage(role=<MessageRole.ASSISTANT: 'assistant'>, blocks=[])]",
            "message_repr",
            "block",
        ),
    ]);
}

#[test]
fn more_runners_builds_and_runtimes_block() {
    assert_found(&[
        (
            "  1) test calculates VAT (Billing.InvoiceTest)\n     Assertion with == failed\n\nFinished in 0.4 seconds (0.2s async, 0.2s sync)",
            "runner_report_lines",
            "block",
        ),
        (
            "CMake Error at CMakeLists.txt:22 (pkg_check_modules):\n  A required package was not found\nCall Stack (most recent call first):\n  CMakeLists.txt:22",
            "runner_report_lines",
            "block",
        ),
        (
            "Error in calibrate_sensor (line 42)\n    y = H * x;\n\nError in run_calibration (line 17)",
            "runner_report_lines",
            "block",
        ),
        (
            "START RequestId: 97eb0fee-2d06-4366-aecb-aac286646c3f Version: $LATEST\nEND RequestId: 97eb0fee-2d06-4366-aecb-aac286646c3f",
            "runner_report_lines",
            "block",
        ),
        ("src/Ledger/Parse.hs:47:22: error: [GHC-83865]\n    • Couldn't match type", "compiler_error", "block"),
    ]);
    assert_quiet(&["The Lambda logs a START RequestId line per invocation.", "These tests check the parser."]);
}

#[test]
fn shapes_found_missing_by_the_eighteenth_blind_score() {
    assert_found(&[
        (
            "Support chat #88213 (exported)\nAgent Rosa  10:02  Hi! How can I help today?\nCustomer    10:03  my parcel says delivered\nAgent Rosa  10:03  Sorry about that.\nCustomer    10:06  checked, nothing",
            "chat_columns",
            "block",
        ),
        (
            "Zoë Müller\t10:02\tHallo! Wie kann ich helfen?\nJürgen Groß\t10:03\tmein Paket fehlt\nZoë Müller\t10:04\tIch prüfe das.\nJürgen Groß\t10:05\tdanke",
            "chat_columns",
            "block",
        ),
        ("Release signing: GPG key passphrase is \"copper mill at dusk\" until the HSM.", "generic_secret", "warn"),
        ("金庫の解錠コード：7314（経理部のみ）", "access_code", "warn"),
    ]);
    let memory = serde_json::json!({"draft": "Human: a name for the staging bucket? AI: acme-staging-artifacts. Human: and for logs AI: acme-staging-logs."});
    assert!(rules_of_json(&memory).iter().any(|(r, s)| r == "inline_turns" && s == "block"));
    let lower = "history=human: hi there ai: hello human: deploy? ai: done";
    assert!(rules_of_text(lower).iter().any(|(r, s)| r == "inline_turns" && s == "block"));
    // A passphrase named in quotes that is one word, and two columns of a table, are none.
    // (`Human: … AI: …` said once is one exchange, but a second makes it a transcript.)
    assert_quiet(&[
        "The passphrase is \"secret\" in the demo only.",
        "Name  10:02  Status\nOwner  11:30  Done",
        "Berlin Hbf  10:02  Platform 4\nHamburg Hbf  10:15  Platform 7\nMunich Hbf  10:40  Platform 2\nBerlin Hbf  11:02  Platform 4",
        "Opening Keynote  09:00  Main hall\nCoffee Break  10:30  Foyer\nLightning Talks  11:00  Room B",
    ]);
}

#[test]
fn a_commit_list_is_no_chat() {
    let commits = serde_json::json!({"commits": [
        {"sha": "a1b2c3d", "author": "Rosa Diaz", "date": "2024-05-29T10:00:00Z", "message": "fix parser"},
        {"sha": "b2c3d4e", "author": "Sam Okafor", "date": "2024-05-29T11:00:00Z", "message": "add tests"},
        {"sha": "c3d4e5f", "author": "Rosa Diaz", "date": "2024-05-29T12:00:00Z", "message": "bump version"}
    ]});
    assert!(!rules_of_json(&commits).iter().any(|(r, _)| r == "chat_message_array"));
}

#[test]
fn a_base64_line_opening_with_two_slashes_is_no_network_share() {
    assert_quiet(&[
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ3Zk\n//nyAgZXETgow8e/Ozqm4EVL/71NHIglh8Q9PSWz36cTou6T59LCXPxu4URZjLp6o\n-----END CERTIFICATE-----",
    ]);
    assert_found(&[("copy the export to //fileserver/share/reports", "unc_slash_path", "block")]);
}
