//! Tests of the issue-16 twelfth round (session of 2026-12-06, second): a Japanese or
//! Chinese marking word that heads a compound naming a notion is no marking.

use super::second_pass_tests::{assert_found, assert_quiet, rules_of_json, rules_of_text};

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
    let spelt: String = token.bytes().map(|b| format!("\\U{:08x}", b)).collect();
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
}

/// `text` in base32 (RFC 4648), padded.
fn b32(text: &str) -> String {
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
