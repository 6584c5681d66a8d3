//! Every rule flags its documented hit and leaves its documented miss; references,
//! placeholders and our ids pass; decoding and masking work.

use super::*;
use base64::Engine as _;
use serde_json::json;

#[test]
fn every_rule_flags_its_hit_and_not_its_miss() {
    for r in RULES {
        let mut f = Vec::new();
        scan_text(r.hit, "/x", Policy::Public, &mut f);
        assert!(f.iter().any(|x| x.rule_id == r.id), "{} misses its example {:?}: {f:?}", r.id, r.hit);
        let mut f = Vec::new();
        scan_text(r.miss, "/x", Policy::Public, &mut f);
        assert!(!f.iter().any(|x| x.rule_id == r.id), "{} flags its counter-example {:?}", r.id, r.miss);
    }
}

#[test]
fn references_placeholders_and_ids_are_allowed() {
    for v in [
        "${DB_PASSWORD}",
        "$TOKEN",
        "%APPDATA%",
        "os.environ[\"API_KEY\"]",
        "process.env.TOKEN",
        "<your-token>",
        "YOUR_API_KEY_EXAMPLE",
        "redacted",
        "args.reset_token",
    ] {
        assert!(is_reference_or_placeholder(v), "{v}");
    }
    for v in [
        "sha256:a9359530da7f0c11db45a52dd08df09c81b04172c16715e8d693999ba5c1aa3d",
        "write_todo_update_168fafa252af51ce",
        "todo_cc1c01a7ef81",
        "demo-goal:todo_update:168fafa252af51ce0c397623d2f6330ed2b288627a9ea485253c23dce3d551f4",
    ] {
        assert!(is_our_id(v) && !looks_random(v), "{v}");
    }
    let mut f = Vec::new();
    scan_text(
        "token=sha256:a9359530da7f0c11db45a52dd08df09c81b04172c16715e8d693999ba5c1aa3d password=${DB_PASSWORD}",
        "/x",
        Policy::Public,
        &mut f,
    );
    assert!(f.iter().all(|x| x.severity == "info"), "{f:?}");
}

#[test]
fn percent_encoded_and_base64_secrets_are_found() {
    let mut f = Vec::new();
    scan_text("note=deploy%20with%20token%3Dghp_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2gU8", "/x", Policy::Local, &mut f);
    assert!(f.iter().any(|x| x.rule_id == "github_token"));
    let b64 = base64::engine::general_purpose::STANDARD.encode("config: aws key AKIAQ3EXAMPLEKEY7Z2X for the bucket");
    let mut f = Vec::new();
    scan_text(&format!("blob {b64}"), "/x", Policy::Local, &mut f);
    assert!(f.iter().any(|x| x.rule_id == "aws_access_key_id" && x.reason.contains("base64")), "{f:?}");
}

#[test]
fn policies_and_structure() {
    let mut f = Vec::new();
    scan_text("logs in /home/alice/x", "/x", Policy::Local, &mut f);
    assert_eq!(f[0].severity, "warn");
    let mut f = Vec::new();
    scan_text("logs in /home/alice/x", "/x", Policy::Public, &mut f);
    assert_eq!(f[0].severity, "block");
    let mut f = Vec::new();
    scan_json(
        &json!({"raw_transcript": "x", "boundary": {"credentials_copied": true, "raw_logs_copied": false}, "token_count": 3,
        "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}),
        "",
        Policy::Public,
        &mut f,
    );
    let ids: Vec<&str> = f.iter().filter(|x| x.severity == "block").map(|x| x.rule_id.as_str()).collect();
    assert_eq!(ids, vec!["forbidden_key", "boundary_flag_true", "chat_message_array"], "{f:?}");
}

#[test]
fn masks_inside_percent_encoded_metadata_and_never_prints_the_secret() {
    let line = "+  <!-- loopx:todo note=deploy%20with%20token%3Dghp_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2gU8 -->\n";
    let (masked, n) = mask_secrets(line);
    assert!(n >= 1);
    assert!(!masked.contains("Xq8vR2mN5tK9"), "{masked}");
    let mut f = Vec::new();
    scan_lines(&[(3, line.trim_end().to_owned())], Policy::Local, &mut f);
    assert!(f.iter().any(|x| x.rule_id == "github_token" && x.location.starts_with("3:")));
    assert!(f.iter().all(|x| !x.sample_masked.contains("Xq8vR2mN5tK9")));
}

#[test]
fn docs_rule_table_is_generated_from_the_code() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/scan-rules.md");
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == rules_markdown(),
        "docs/scan-rules.md is stale: run `writegate scan --rules > docs/scan-rules.md`"
    );
}
