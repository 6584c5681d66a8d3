//! Tests of the issue-16 eighth round (fifth session of 2026-12-05): disguises the spent
//! held-out parts showed missing.

use super::second_pass_tests::{assert_found, assert_quiet};

#[test]
fn a_token_encoded_twice_is_read_through_both_layers_however_short_inside() {
    // `glpat-` and 20 characters: 36 characters of base64 inside, 48 outside.
    assert_found(&[("GITLAB_TOKEN_B64B64=WjJ4d1lYUXRWbkV6ZUZSdE9FdGpVakozVEhBNVduTlpaRFE9", "gitlab_token", "block")]);
    // Prose encoded twice decodes to prose: nothing to find.
    assert_quiet(&["blob: YUdWc2JHOGdkMjl5YkdRc0lHNXZkR2hwYm1jZ2RHOGdjMlZs"]);
}

#[test]
fn a_whole_run_is_one_short_base64_run_and_nothing_else() {
    use super::decode::whole_run;
    assert_eq!(whole_run(b"  Z2xwYXQtVnEzeFRtOEtjUjJ3THA5WnNZZDQ=\n"), Some((2, 38)));
    assert_eq!(whole_run(b"Z2xwYXQt VnEzeFRtOEtjUjJ3THA5WnNZZDQ="), None, "two words");
    assert_eq!(whole_run(b"c2hvcnQ="), None, "under 16 characters");
    assert_eq!(whole_run(&[b'A'; 40]), None, "long runs are base64_runs' own");
    assert_eq!(whole_run(b""), None);
}

#[test]
fn a_token_spelt_as_character_codes_is_read() {
    assert_found(&[
        (
            "const t = String.fromCharCode(100,111,112,95,118,49,95,97,52,99,49,50,51,98,49,54,49,50,100,100,50,55,50,100,49,51,55,49,99,49,55,49,52,57,100,52,51,57,53,51,54,98,51,50,49,54,102,100,97,101,101,98,57,55,53,55,50,57,102,97,101,57,50,51,100,53,97,52,102,100,49);",
            "digitalocean_token",
            "block",
        ),
        (
            "token = bytes([103, 104, 112, 95, 88, 113, 56, 118, 82, 50, 109, 78, 53, 116, 75, 57, 119, 76, 51, 112, 90, 55, 121, 66, 52, 99, 68, 54, 102, 72, 49, 106, 65, 48, 115, 69, 50, 103, 85, 56,]).decode()",
            "github_token",
            "block",
        ),
    ]);
    assert_quiet(&[
        // Codes that spell no secret, and numbers that are not all codes.
        "const hello = String.fromCharCode(72, 101, 108, 108, 111, 44, 32, 119, 111, 114, 108, 100, 33, 32, 72, 105, 33);",
        "sizes: 100, 111, 112, 950, 118, 49, 95, 97, 52, 99, 49, 50, 51, 98, 49, 54, 49, 50, 100, 100",
    ]);
}

#[test]
fn character_code_runs_are_whole_runs_of_printable_codes() {
    use super::decode::char_code_runs;
    let codes = "72,101,108,108,111,44,32,119,111,114,108,100,33,33,33,33";
    let text = format!("x = [{codes}] # sixteen");
    assert_eq!(char_code_runs(text.as_bytes()), [(5, 5 + codes.len(), "Hello, world!!!!".to_owned())]);
    // Fifteen codes; one code out of range; a three-digit number over 126.
    assert_eq!(char_code_runs(b"[72,101,108,108,111,44,32,119,111,114,108,100,33,33,33]"), []);
    assert_eq!(char_code_runs(b"[72,101,108,108,111,44,32,119,111,114,108,100,33,33,33,7]"), []);
    assert_eq!(char_code_runs(b"[72,101,108,108,111,44,32,119,111,114,108,100,33,33,33,200]"), []);
    assert_eq!(char_code_runs(b""), []);
}

#[test]
fn a_json_array_of_character_codes_is_the_text_it_spells() {
    use super::second_pass_tests::rules_of_json;
    let codes = "ghp_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2gU8".bytes().collect::<Vec<u8>>();
    let found = rules_of_json(&serde_json::json!({"evidence": "String.fromCharCode(...codes)", "codes": codes}));
    assert!(found.iter().any(|(r, s)| r == "github_token" && s == "block"), "{found:?}");
    // Codes of prose, and a list of counts with one out of range.
    let hello: Vec<u8> = "Hello there, world!".bytes().collect();
    assert_eq!(rules_of_json(&serde_json::json!({"codes": hello})), []);
    let counts = [40, 41, 300, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57];
    assert_eq!(rules_of_json(&serde_json::json!({"counts": counts})), []);
}

#[test]
fn a_salt_in_brackets_and_a_safe_code_warn() {
    assert_found(&[
        ("Kept the same salt (b7e1c94fa02d33e8) for the legacy importer.", "generic_secret", "warn"),
        ("Tresorcode fürs Lager: 41-93-06, nach der Übergabe ändern.", "access_code", "warn"),
        ("Der Tresor-Code lautet 7731", "access_code", "warn"),
    ]);
    assert_quiet(&[
        "Add a salt (random, per user) before hashing.",
        "We rotate the salt (every quarter) and the pepper.",
        "Der Tresorcode wird jeden Monat geändert.",
    ]);
}

#[test]
fn a_token_kept_reversed_for_code_to_flip_is_read_backwards() {
    assert_found(&[
        (
            "HF = \"kPNVPCzMcOSZIfjtCglYNOEGZlmLGCDXJC_fh\"[::-1]  # reversed\nlogin(token=HF)",
            "huggingface_token",
            "block",
        ),
        ("_k = \"k0J6ka-LDz4P7dEyehib-taplg\"\nGITLAB_TOKEN = _k[::-1]", "gitlab_token", "block"),
        ("const t = 'k0J6ka-LDz4P7dEyehib-taplg'.split('').reverse().join('');", "gitlab_token", "block"),
        ("token = ''.join(reversed('k0J6ka-LDz4P7dEyehib-taplg'))", "gitlab_token", "block"),
        ("$t = strrev('k0J6ka-LDz4P7dEyehib-taplg');", "gitlab_token", "block"),
    ]);
    assert_quiet(&[
        // A reversed literal that spells nothing, and a reversal far from any literal.
        "s = \"abcdefghijklmnopqrstuvwxyz\"[::-1]",
        "k = \"k0J6ka-LDz4P7dEyehib-taplg\"\n\n\n\nnothing here\nitems.reverse()",
        "put nginx in front as a reverse proxy for the 'internal-dashboard-service' upstream",
    ]);
}

#[test]
fn a_path_or_token_escaped_with_html_character_references_is_read() {
    assert_found(&[
        (
            "Template rendered href=\"file:&#47;&#47;&#47;home&#47;gwen&#47;Downloads&#47;offer.pdf\" in the mail.",
            "file_url_home",
            "block",
        ),
        ("<a href=\"C:&bsol;Users&bsol;mkowal&bsol;Desktop&bsol;plan.xlsx\">plan</a>", "windows_home_path", "block"),
    ]);
    assert_quiet(&["Fish &amp; chips &#38; more; see &#x2F;docs&#x2F;menu for prices.", "R&D; Q&A; &#;"]);
}

#[test]
fn character_references_decode_to_printable_ascii_only() {
    use super::decode::decode_ascii_percent;
    assert_eq!(decode_ascii_percent("a&#47;b&#x2F;c&sol;d").0, "a/b/c/d");
    // No `;`, too many digits, a control byte or a byte past ASCII: left as written.
    for kept in ["&#47 x", "&#000047;", "&#10;", "&#233;", "&#x;", "&amp;"] {
        assert_eq!(decode_ascii_percent(kept).0, kept);
    }
}

#[test]
fn a_user_named_by_tilde_without_a_path_warns() {
    assert_found(&[
        ("On the db host the dumps are under ~postgres; sudo -iu postgres and check.", "tilde_user", "warn"),
        ("The duplicate job comes from ~deploy's crontab, not the system cron.", "tilde_user", "warn"),
        ("Patches go to the list of ~mkhan; CC ~rtorres for the parser.", "tilde_user", "warn"),
        ("Rotate the archive script owned by ~svc-backup so it writes to the new bucket.", "tilde_user", "warn"),
    ]);
    assert_quiet(&[
        "the retry takes ~half the time and ~twice the memory",
        "about ~10 min per run, ~5% slower",
        "use ~~strikethrough~~ or ~strike~ for removed items",
        "Fig.~3 and Dr.~Smith in LaTeX; backup file notes.txt~ left behind",
        "see https://example.org/~alice for her page",
    ]);
}

#[test]
fn a_salt_of_a_hex_value_warns_and_a_salt_of_words_does_not() {
    assert_found(&[(
        "the old system hashed passwords with a global salt of 91d862effb7d9d514862eb10aef062ec; keep it for now",
        "generic_secret",
        "warn",
    )]);
    assert_quiet(&["the salt of the earth", "a password of twelve characters or more", "the passphrase of Contoso"]);
}

#[test]
fn a_secret_key_with_no_value_is_an_empty_slot_and_a_redacted_one_is_not() {
    use super::second_pass_tests::rules_of_json;
    let empty = serde_json::json!({"client_id": "", "client_secret": null, "refresh_token": "", "api_key": null});
    assert_eq!(rules_of_json(&empty), []);
    for redacted in ["***", "<redacted>", "x"] {
        let found = rules_of_json(&serde_json::json!({"client_secret": redacted}));
        assert!(found.iter().any(|(r, s)| r == "forbidden_key" && s == "block"), "{redacted}: {found:?}");
    }
}

#[test]
fn turns_flattened_into_one_string_in_lower_case_block() {
    assert_found(&[(
        "user: the csv has 3 columns but the header says 4, why? assistant: a trailing comma in the header. user: yep that was it assistant: great, re-import it.",
        "inline_turns",
        "block",
    )]);
    assert_quiet(&["Format each turn as user: <question> assistant: <answer>, one per line."]);
}

#[test]
fn a_chat_export_with_dated_lines_blocks_and_a_dated_ledger_does_not() {
    assert_found(&[(
        "[2025-03-02 21:14] kestrel: anyone else getting desync?\n[2025-03-02 21:15] mossbyte: yeah every ~10 min\n[2025-03-02 21:15] kestrel: my router, I thought\n[2025-03-02 21:17] Halcyon (mod): known issue, hotfix tomorrow\n[2025-03-02 21:17] mossbyte: ok\n[2025-03-02 21:18] kestrel: ty",
        "dated_chat_log",
        "block",
    )]);
    assert_quiet(&[
        "[2026-12-04 10:15] Note: finished the parser\n[2026-12-04 11:00] Decision: keep the cache\n[2026-12-04 12:30] Next: write the tests",
        "[2025-03-02 21:14:05] INFO server: started\n[2025-03-02 21:14:06] INFO server: ready",
        "[2025-03-02 21:14] kestrel: one line quoted from the channel",
    ]);
}
