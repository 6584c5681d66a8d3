//! Tests of the issue-16 rounds of the scan kept apart from `tests.rs` (over its length):
//! JSON Schema declarations and template words are not credentials, generic secrets with
//! word or hex values are.

use super::*;
use serde_json::json;

fn rules_of_json(v: &serde_json::Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    scan_json(v, "", Policy::Public, &mut out);
    out.into_iter().filter(|f| f.severity != "info").map(|f| (f.rule_id, f.severity)).collect()
}

fn rules_of_text(t: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    scan_text(t, "/", Policy::Public, &mut out);
    out.into_iter().filter(|f| f.severity != "info").map(|f| (f.rule_id, f.severity)).collect()
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
