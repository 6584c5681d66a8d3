//! Every rule flags its documented hit and leaves its documented miss; references,
//! placeholders and our ids pass; decoding and masking work.

use super::decode::{B64, decode_ascii_percent, percent_lines};
use super::test_pieces::PIECES;
use super::*;
use base64::Engine as _;
use serde_json::json;

#[test]
fn every_rule_flags_its_hit_and_not_its_miss() {
    for r in RULES.iter() {
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
    let b64 = base64::engine::general_purpose::STANDARD.encode("config: aws key AKIAQ3ZK7WJ2R5TBNY2X for the bucket");
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

/// The plain byte-at-a-time definition of [`base64_runs`]: maximal alphabet runs of 40 or
/// more, each with up to two `=` after it.
fn base64_runs_reference(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !B64[usize::from(bytes[i])] {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && B64[usize::from(bytes[i])] {
            i += 1;
        }
        let mut end = i;
        while end < bytes.len() && bytes[end] == b'=' && end - i < 2 {
            end += 1;
        }
        if i - start >= 40 {
            out.push((start, end));
        }
        i = end;
    }
    out
}

/// The plain line-by-line definition of [`percent_lines`].
fn percent_lines_reference(text: &str) -> Option<(String, Vec<usize>)> {
    let mut decoded = String::new();
    let mut map = Vec::new();
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let has =
            line.as_bytes().windows(3).any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit())
                || line.contains('&');
        if has {
            let (d, m) = decode_ascii_percent(line);
            if m.len() == d.len() && d != line {
                map.extend(m.iter().map(|(s, _)| pos + s));
                decoded.push_str(&d);
            }
        }
        pos += line.len();
    }
    (!decoded.is_empty()).then_some((decoded, map))
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    /// The skipping search finds exactly the runs of the plain definition.
    #[test]
    fn base64_runs_match_the_plain_definition(text in "([A-Za-z0-9+/_=-]{0,60}[ .\n=é]{0,3}){0,12}") {
        proptest::prop_assert_eq!(base64_runs(text.as_bytes()), base64_runs_reference(text.as_bytes()));
    }

    /// Finding lines from their `%` signs gives what decoding every line gives.
    #[test]
    fn percent_lines_match_the_plain_definition(text in "([a-z%0-9A-F]{0,12}(%2[0-9A-F]|%0A|%zz|%C3%A9|%|&#47;|&#x2f;|&#X5C;|&#0047;|&#47|&#;|&#x;|&#12345;|&#200;|&sol;|&bsol;|&amp;|&)?[ \n]?){0,12}") {
        let fast = percent_lines(&text).map(|(d, map)| {
            let per_byte: Vec<usize> = (0..d.len()).map(|p| raw_offset(&map, p)).collect();
            (d, per_byte)
        });
        proptest::prop_assert_eq!(fast, percent_lines_reference(&text));
    }
}

#[test]
fn every_literal_has_a_stem_and_stems_are_not_prefixes() {
    for r in RULES.iter() {
        let gate = rules::gate(r);
        let gated = matches!(gate, rules::Gate::Literals | rules::Gate::SectionHead);
        assert_eq!(gated, !r.literals.is_empty(), "{}: literals and gate disagree", r.id);
        if gate == rules::Gate::SectionHead {
            continue;
        }
        for l in r.literals {
            let l = l.to_ascii_lowercase();
            assert!(prefilter::STEMS.iter().any(|s| l.contains(s)), "{}: literal {l:?} has no stem", r.id);
        }
    }
    // The prefilter finds each literal through the first stem it contains.
    let used: std::collections::BTreeSet<&str> = RULES
        .iter()
        .filter(|r| rules::gate(r) == rules::Gate::Literals)
        .flat_map(|r| r.literals.iter())
        .filter_map(|l| prefilter::STEMS.iter().copied().find(|s| l.to_ascii_lowercase().contains(s)))
        .collect();
    let unused: Vec<&str> = prefilter::STEMS.iter().copied().filter(|s| !used.contains(s)).collect();
    assert!(unused.is_empty(), "stems that serve no literal (each costs Teddy time): {unused:?}");
    // The email_headers gate takes the name before the first `:` or EF byte.
    for h in rules::documents::EMAIL_HEADERS {
        assert!(!h.contains(':') && !h.bytes().any(|b| b == 0xef) && !h.ends_with([' ', '\t']), "{h:?}");
    }
    for a in prefilter::STEMS {
        assert!(a.len() >= 3, "{a}: stems shorter than 3 bytes slow Teddy down");
        for b in prefilter::STEMS {
            assert!(a == b || !b.starts_with(a), "stem {a:?} is a prefix of {b:?}");
        }
    }
}

/// The prefilter must give exactly the matches of running every regex on every line.
fn assert_exact(text: &str) {
    let (fast, every) = prefilter_vs_every_line(text);
    assert_eq!(fast, every, "prefilter differs from every-line regexes on {text:?}");
}

#[test]
fn prefilter_is_exact_on_rule_examples_and_corpus() {
    for r in RULES.iter() {
        assert_exact(r.hit);
        assert_exact(r.miss);
    }
    let corpus = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/scan_corpus/cases.jsonl"))
        .expect("corpus");
    for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).expect("case");
        let input = match &case["input"] {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        assert_exact(&input);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
    #[test]
    fn prefilter_is_exact_on_generated_text(parts in proptest::collection::vec(0..PIECES.len(), 0..40)) {
        let text: String = parts.iter().map(|&i| PIECES[i]).collect();
        let (fast, every) = prefilter_vs_every_line(&text);
        proptest::prop_assert_eq!(fast, every, "on {:?}", text);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// Scanning a text in two halves on two threads, or in small pieces, finds what one pass
    /// finds.
    #[test]
    fn split_scan_finds_what_one_pass_finds(parts in proptest::collection::vec(0..PIECES.len(), 0..400)) {
        let text: String = parts.iter().map(|&i| PIECES[i]).collect();
        let key = |(hits, census): (Vec<Hit>, invisible::Census)| {
            let mut v: Vec<_> = hits.into_iter().map(|h| (h.rule.id, h.start, h.matched, h.note)).collect();
            v.sort();
            (v, census)
        };
        let whole = key(hits_with_decoding_split(&text, usize::MAX, usize::MAX));
        proptest::prop_assert_eq!(key(hits_with_decoding_split(&text, 64, usize::MAX)), whole.clone());
        proptest::prop_assert_eq!(key(hits_with_decoding_split(&text, usize::MAX, 48)), whole);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
    /// A text scanned again (after it, or other texts, were remembered clean) gives the
    /// findings a first scan on a fresh thread gives.
    #[test]
    fn remembered_clean_texts_change_no_answer(
        texts in proptest::collection::vec(proptest::collection::vec(0..PIECES.len(), 0..4), 1..12),
        policy_local in proptest::bool::ANY,
    ) {
        let texts: Vec<String> = texts.iter().map(|p| p.iter().map(|&i| PIECES[i]).collect()).collect();
        let policy = if policy_local { Policy::Local } else { Policy::Public };
        let fresh: Vec<Vec<Finding>> = std::thread::scope(|s| {
            texts
                .iter()
                .map(|t| {
                    s.spawn(move || {
                        let mut out = Vec::new();
                        scan_text(t, "/x", policy, &mut out);
                        out
                    })
                    .join()
                    .expect("scan thread")
                })
                .collect()
        });
        for _ in 0..2 {
            for (t, want) in texts.iter().zip(&fresh) {
                let mut out = Vec::new();
                scan_text(t, "/x", policy, &mut out);
                proptest::prop_assert_eq!(&out, want, "on {:?}", t);
            }
        }
    }
}

#[test]
fn a_multi_line_candidate_inside_an_earlier_window_still_gets_its_reach() {
    // The second prompt sits inside the first prompt's window; its own output runs past it.
    let text = "$ ls\nout1\nout2\n\n\n$ cat x\nc1\nc2\n";
    let shell = RULES.iter().position(|r| r.id == "shell_session").expect("rule");
    let whole: Vec<(usize, usize)> = regex(shell).find_iter(text.as_bytes()).map(|m| (m.start(), m.end())).collect();
    assert_eq!(whole.len(), 2, "the text holds two sessions");
    let found: Vec<usize> =
        raw_hits(text.as_bytes()).into_iter().filter(|h| h.rule.id == "shell_session").map(|h| h.start).collect();
    // Only the first is reported (a rule is reported per distinct sample), but both are matched.
    let windows = prefilter::windows(text.as_bytes());
    let in_windows: Vec<usize> = windows[shell]
        .iter()
        .flat_map(|&(a, b)| regex(shell).find_iter(&text.as_bytes()[a..b]).map(move |m| a + m.start()))
        .collect();
    assert_eq!(in_windows, whole.iter().map(|w| w.0).collect::<Vec<_>>());
    assert_eq!(found, in_windows);
}

#[test]
fn every_rule_pattern_compiles() {
    // The regexes compile on first use; this makes a broken pattern fail here, not in a scan.
    for (i, rule) in RULES.iter().enumerate() {
        assert!(regex(i).as_str().ends_with(rule.pattern), "{}", rule.id);
    }
}

#[test]
fn json_locations_are_pointers_with_escaped_segments() {
    let token = "ghp_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2gU8";
    let doc = json!({"a/b": {"c~d": ["clean", token], "raw_body": "x"}, "z": [{"k": token}]});
    let mut f = Vec::new();
    scan_json(&doc, "/root", Policy::Public, &mut f);
    let at: Vec<(&str, &str)> = f.iter().map(|x| (x.rule_id.as_str(), x.location.as_str())).collect();
    assert!(at.contains(&("github_token", "/root/a~1b/c~0d/1")), "{at:?}");
    assert!(at.contains(&("forbidden_key", "/root/a~1b/raw_body")), "{at:?}");
    assert!(at.contains(&("github_token", "/root/z/0/k")), "{at:?}");
    // The same document again (key facts and clean texts now remembered): the same findings.
    let mut again = Vec::new();
    scan_json(&doc, "/root", Policy::Public, &mut again);
    assert_eq!(f, again);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

    /// A document scanned in place gives what its lines scanned as added lines give,
    /// locations included; without a final line break, the same rules at the same places.
    #[test]
    fn a_document_scans_as_its_lines(parts in proptest::collection::vec(0..PIECES.len(), 0..60), end in proptest::bool::ANY) {
        let mut text: String = parts.iter().map(|&i| PIECES[i]).collect::<String>().replace('\r', "");
        if end && !text.ends_with('\n') {
            text.push('\n');
        }
        let lines: Vec<(usize, String)> = text.lines().enumerate().map(|(i, l)| (i + 1, l.to_owned())).collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        scan_document(&text, Policy::Public, &mut a);
        scan_lines(&lines, Policy::Public, &mut b);
        if text.is_empty() || text.ends_with('\n') {
            proptest::prop_assert_eq!(a, b, "on {:?}", text);
        } else {
            // Without a final line break the lines gain one: only a sample quoting the end of
            // the text (and its fingerprint) may differ.
            let key = |f: &Vec<Finding>| f.iter().map(|x| (x.rule_id.clone(), x.severity.clone(), x.location.clone())).collect::<Vec<_>>();
            proptest::prop_assert_eq!(key(&a), key(&b), "on {:?}", text);
        }
    }
}

/// A match that starts on a UTF-8 continuation byte (a byte-mode class before its token took
/// the last byte of `：`) is placed at the character it starts in; it panicked before.
#[test]
fn a_match_starting_inside_a_character_is_placed_without_panicking() {
    let text = "PS C:\\> ts件名：sk-proj-用户：token%3Dghp_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2gU8\n";
    let mut f = Vec::new();
    scan_document(text, Policy::Public, &mut f);
    let lines = vec![(1, text.trim_end().to_owned())];
    let mut g = Vec::new();
    scan_lines(&lines, Policy::Public, &mut g);
    assert_eq!(f, g);
    assert!(f.iter().all(|x| x.location.starts_with("1:")), "{f:?}");
}

/// The block findings of `text` scanned under the public policy.
fn public_blocks(text: &str) -> Vec<Finding> {
    let mut f = Vec::new();
    scan_text(text, "/x", Policy::Public, &mut f);
    f.retain(|x| x.severity == "block");
    f
}

/// Published documentation examples do not block where they stand in a header, an account
/// key assignment or a JSON docs example; a random key of the same shape beside them does.
#[test]
fn documentation_examples_do_not_block_in_headers_and_assignments() {
    let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
    let azurite = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
    let blocks = |text: &str| public_blocks(text).into_iter().map(|x| x.rule_id).collect::<Vec<_>>();
    assert_eq!(blocks(&format!("curl -H 'Authorization: Bearer {jwt}' https://api.example.com")), Vec::<String>::new());
    assert_eq!(
        blocks(&format!("DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={azurite};")),
        Vec::<String>::new()
    );
    let mut f = Vec::new();
    scan_json(&json!({"headers": {"Authorization": format!("Bearer {jwt}")}}), "", Policy::Public, &mut f);
    assert!(f.iter().all(|x| x.severity != "block"), "{f:?}");
    // The same shapes with other values still block.
    let other =
        jwt.replace("SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", "Qm9vX2R3a2Jxc1Z0eU1uQ3pGc0xhR2hQa1J0WnZ4Yk");
    assert!(!blocks(&format!("curl -H 'Authorization: Bearer {other}'")).is_empty());
    let key = azurite.replace("Eby8", "Qz7p");
    assert!(!blocks(&format!("AccountName=prod;AccountKey={key};")).is_empty());
}

/// A default password on this machine's own host is a test login; the same on another host,
/// or a real password on localhost, is a credential.
#[test]
fn default_logins_pass_only_on_the_local_host() {
    let blocks = |text: &str| public_blocks(text).iter().any(|x| x.rule_id == "url_password");
    assert!(!blocks("DATABASE_URL=postgres://postgres:postgres@localhost:5432/app_test"));
    assert!(!blocks("redis://default:password@127.0.0.1:6379/0"));
    assert!(blocks("DATABASE_URL=postgres://postgres:postgres@db.prod.example.com:5432/app"));
    assert!(blocks("DATABASE_URL=postgres://app:Xq8vR2mN5tK9@localhost:5432/app"));
    assert!(blocks("postgres://postgres:postgres@localhost.evil.example.com/app"));
}

/// Placeholder tokens made of the alphabet in order do not block; random ones do.
#[test]
fn sequential_placeholder_tokens_do_not_block() {
    let blocks = |text: &str| public_blocks(text).iter().any(|x| x.category == "credentials");
    assert!(!blocks("token: ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"));
    assert!(!blocks("Slack bot tokens look like xoxb-1234-5678-abcdefghijklmnopqrstuvwx"));
    assert!(blocks("token: ghp_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2gU8"));
    // A real token with a short run in it is still a token.
    assert!(blocks("token: ghp_ABCDEFGHq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0s"));
}
