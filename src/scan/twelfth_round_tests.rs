//! Tests of the issue-16 twelfth round (session of 2026-12-06, second): a Japanese or
//! Chinese marking word that heads a compound naming a notion is no marking.

use super::second_pass_tests::{assert_found, assert_quiet, rules_of_text};

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
