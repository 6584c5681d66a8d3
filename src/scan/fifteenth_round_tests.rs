//! Tests of the issue-16 fifteenth round (session of 2026-12-06, fifth): held_out_22's seen
//! misses (a Discord export, Ruby's Logger, a Twilio key pair, a reversed Telegram token, a
//! password told in a sentence, a cipher seed outside BIP-39, `psql service=`), and a home
//! path read by what it names: a program's settings are quiet, the user's own folders block.

use super::second_pass_tests::{assert_found, assert_quiet, rules_of_text};

#[test]
fn a_discord_export_and_rubys_logger_block() {
    assert_found(&[
        (
            "[2024-08-02 22:10] kaito#0412: gg, close round\n[2024-08-02 22:10] Wren: timing was cursed\n[2024-08-02 22:11] kaito#0412: tomorrow?\n[2024-08-02 22:12] Wren: sunday then",
            "dated_chat_log",
            "block",
        ),
        (
            "I, [2024-12-02T18:22:04.118231 #27]  INFO -- : Started PATCH \"/accounts/4411\"\nI, [2024-12-02T18:22:04.120911 #27]  INFO -- : Processing by SubscriptionsController#update\nE, [2024-12-02T18:22:04.388417 #27] ERROR -- : Stripe::InvalidRequestError",
            "timestamped_log",
            "block",
        ),
    ]);
    assert_quiet(&[
        "Discord tags look like kaito#0412; the bot reads them from the member list.",
        "I, [2024-12-02T18:22:04.118231 #27]  INFO -- : one line quoted from the log",
    ]);
}

#[test]
fn key_pairs_reversed_tokens_and_stated_passwords_block() {
    assert_found(&[
        (
            "sms: account AC5eda0f74429649c47f636f23e86689d3 / auth 4825f71874837df1881d1b3335df3609",
            "twilio_key",
            "block",
        ),
        ("bot token (reversed): bcCi7tW3i8p2U_qIXwJPAyHxPC0-0tABOAA:7691936591", "telegram_bot_token", "block"),
        ("Wi-Fi for the scanners: SSID whs-scan-5g, WPA2 password VxJzO7pADy!2024", "password_stated", "block"),
        ("the root password is now Tq8#mZr4Lw2x for the night", "password_stated", "block"),
    ]);
    assert_quiet(&[
        "Twilio account AC5eda0f74429649c47f636f23e86689d3 is the paid project",
        "the password is rotated every quarter",
        "reset the password afterwards; password managers help",
        "WPA2 password: see the sticker under the router",
    ]);
}

#[test]
fn a_cipher_seed_from_another_list_and_psql_on_a_service_warn() {
    assert_found(&[
        (
            "lnd cipher seed for node-2 (write down, then delete this note):\npepper harvest ember dolphin saddle jasmine marble pepper lantern timber lantern nectar hollow copper zephyr pillow elbow marble pillow walnut kettle meadow timber ladder",
            "seed_phrase",
            "warn",
        ),
        ("{\"runbook_step\": \"psql service=reporting_prod -f fix_duplicates.sql\"}", "operational_command", "warn"),
    ]);
    assert_quiet(&[
        "cipher seed: write the words on paper and keep them with the other recovery material in the safe",
        "psql service names live in ~/.pg_service.conf",
    ]);
}

#[test]
fn a_programs_settings_under_the_home_are_quiet_and_the_users_own_folders_block() {
    assert_found(&[
        ("Client notes are in ~/Documents/clients/halvorsen/notes.md now.", "home_folder_path", "block"),
        ("Working copy is ~/Projects/client-acme/infra-live; tfvars only there.", "home_folder_path", "block"),
        (
            "Keep it in ~/Library/Mobile Documents/com~apple~CloudDocs/Contracts/2025/ so it syncs.",
            "home_folder_path",
            "block",
        ),
        ("cd $HOME/Desktop/handover/notes-final.md", "home_folder_path", "block"),
        ("the draft is in ~/drafts/q3.md", "tilde_path", "warn"),
        // A program's settings as a whole value or after `=` are a file on the machine.
        ("~/.config/loopx/settings.toml", "tilde_path", "warn"),
        ("<!-- loopx:artifact path=~/.cache/pip/wheels status=done -->", "tilde_path", "warn"),
    ]);
    assert_quiet(&[
        "Settings are stored in ~/.config/tallyho/ on Linux.",
        "Add the alias to ~/.bashrc and reload the shell.",
        "On macOS use ~/Library/Application Support/Tool/ and ~/Library/Logs/Tool/tool.log.",
        "Tell users to look in \"$HOME/Library/Mobile Documents/com~apple~CloudDocs/Northwind\".",
    ]);
    // One level inside a personal folder is an install guide's, a placeholder's folder is
    // nobody's: `tilde_path` warns alone.
    for t in ["mv ~/Downloads/kubectl /usr/local/bin/", "clone it into ~/Projects/<name>/src"] {
        assert_eq!(rules_of_text(t), [("tilde_path".to_owned(), "warn".to_owned())], "{t}");
    }
    // A credential file under a dot-folder still warns by its own rule.
    let found = rules_of_text("copied the key to ~/.ssh/id_ed25519_deploy");
    assert!(found.contains(&("credential_file_path".to_owned(), "warn".to_owned())), "{found:?}");
}

#[test]
fn mvc_routes_under_users_are_no_home() {
    assert_quiet(&[
        "{\"routes\": [\"/Users/Index\", \"/Users/Details/{id}\", \"/Users/Edit/{id}\", \"/Home/Privacy\"]}",
        // Windows' shared profiles, a sentence's stop after the last.
        r"Shared shortcuts belong in C:\Users\Public\Desktop, and new-profile defaults in C:\Users\Default.",
    ]);
    assert_found(&[("open /Users/inga/Documents/edit.txt", "home_path", "block")]);
}

#[test]
fn a_novels_letters_and_e_mails_are_no_private_document_by_their_shape_when_the_last_line_gives_the_book() {
    let novel = "The email arrived at 2:14 a.m.\n\nFrom: Lydia Marsh\nTo: Tom Ellery\nSubject: the attic\n\nTom — I know what you found in the box. I will ring the solicitor on Monday. L.\n\nTom read it three times.\n\n— from *The Quiet House at Wren End*, a novel (Harrowgate Press, 2022), pp. 88–89";
    let roman = "Von: Dr. Albrecht Sommerfeld\nAn: Henrike Voss\nBetreff: Ihr Befund – bitte dringend zurückrufen\n\nLiebe Frau Voss,\nich möchte die Ergebnisse nicht per E-Mail besprechen.\nHerzliche Grüße, A. Sommerfeld\n\n(Aus: Katrin Ahlers, „Der Winter der Henrike Voss“, Roman, Hamburg 2020, S. 143)";
    assert_quiet(&[novel, roman]);
    // The same e-mail without its source, or with the book named above the e-mail rather
    // than as the passage's source, is still one.
    let bare = novel.rsplit_once("\n\n—").map(|(head, _)| head).unwrap_or_default();
    assert_found(&[(bare, "email_headers", "block")]);
    let named_first = format!("A novel (draft) I liked:\n{bare}\n\nThanks, Tom");
    assert_found(&[(named_first.as_str(), "email_headers", "block")]);
    // A citation or a scene heading added to a real memo quiets its letter shape only: its
    // marking, identifiers and content are still judged (the attack's evasions).
    assert_found(&[
        (
            "CONFIDENTIAL — board use only\nQ3 headcount plan: close the Lisbon office and let 14 people go, Ana Pires first.\n— from *Quarter Close*, a novel (Penguin, 2022)",
            "confidential_marking",
            "block",
        ),
        (
            "From: Dana Reyes <dana@acme.io>\nTo: Ops\nSubject: Q3 layoffs\n\nWe close Lisbon; Tom and Ana are out.\nINT. OFFICE — NIGHT",
            "email_headers",
            "block",
        ),
    ]);
}

#[test]
fn numbered_depositions_bare_dated_chats_and_column_chats_with_a_role_block() {
    assert_found(&[
        (
            " 14   Q   And when did you first see the invoice\n 15   A   The Tuesday after the audit\n 16   Q   Who sent it to you\n 17   A   Gareth did",
            "court_turns",
            "block",
        ),
        (
            "2024-01-28 08:14  Henrike: hast du den Schlüssel?\n2024-01-28 08:15  Me: nein, den hat Jonas\n2024-01-28 08:15  Henrike: mist\n2024-01-28 08:17  Me: ich ruf ihn an",
            "dated_chat_log",
            "block",
        ),
        (
            "Visitor (Elif K.)  16:48  hi my order says delivered\nAgent Priyanka    16:49  Sorry to hear that!\nVisitor (Elif K.)  16:50  same as always\nAgent Priyanka    16:52  I've opened a trace.",
            "chat_columns",
            "block",
        ),
        (
            "{\"messages\": [{\"sender_name\": \"Idris Bello\", \"timestamp_ms\": 1712345678123, \"content\": \"still on for the viewing?\"}, {\"sender_name\": \"Catalina Ruiz\", \"timestamp_ms\": 1712345702881, \"content\": \"yes 6pm\"}]}",
            "chat_message_array",
            "block",
        ),
    ]);
    assert_quiet(&[
        // An FAQ spacing its marks, unnumbered, is still no transcript.
        "Q   How do I reset my password?\nA   Use the portal.\nQ   Can I change my e-mail?\nA   Yes, in settings.",
        // A dated changelog names no speaker twice.
        "2024-01-28 08:14  Release: 2.4.0 tagged\n2024-01-29 09:00  Note: docs updated",
    ]);
}

#[test]
fn chef_runs_buildkit_progress_tab_event_exports_and_sqlite_sessions_block() {
    assert_found(&[
        (
            "Starting Chef Infra Client, version 18.3.0\nresolving cookbooks for run list: [\"role[web]\"]",
            "ops_run_output",
            "block",
        ),
        (
            "Converging 14 resources\nRecipe: nginx::default\n  * apt_package[nginx] action install",
            "ops_run_output",
            "block",
        ),
        (
            "#7 [builder 4/7] RUN pip install -r requirements.txt\n#7 3.112 Collecting psycopg2==2.9.9",
            "ops_run_output",
            "block",
        ),
        (
            "Level\tDate and Time\tSource\tEvent ID\tTask Category\nError\t6/14/2024 2:11:07 AM\tService Control Manager\t7031\tNone",
            "ops_run_output",
            "block",
        ),
        ("sqlite> .mode column\nsqlite> SELECT id, title FROM tasks;\n17   renew domain", "sql_result_table", "block"),
    ]);
    assert_quiet(&[
        "Run `chef-client` and look for Converging N resources in the output.",
        "#7 is the step that failed; see the build log.",
        "Open sqlite> and type .mode column to see tables.",
    ]);
}

#[test]
fn seeds_pins_and_passphrases_named_in_more_languages_warn() {
    assert_found(&[
        ("kurtarma ifadesi: elma deniz kapı yıldız bulut kalem köprü orman kuş taş ayna rüzgar", "seed_phrase", "warn"),
        (
            "リカバリーフレーズ: さくら みずうみ たいよう えんぴつ かがみ ゆうびん こおり はなび つばさ しんぶん まくら ふうせん",
            "seed_phrase",
            "warn",
        ),
        (
            "{\"リカバリーフレーズ\": \"さくら みずうみ たいよう えんぴつ かがみ ゆうびん こおり はなび つばさ しんぶん まくら ふうせん\"}",
            "generic_secret",
            "warn",
        ),
        ("Парольная фраза для ключа GPG: «зелёный трамвай едет в полночь»", "password_in_prose", "warn"),
        ("लॉकर का पिन: 6402", "access_code", "warn"),
        ("Ontgrendelcode voor de fietskluis bij kantoor: 7-3-9-1", "access_code", "warn"),
        // held_out_24's seen misses: a bare `PIN-Code`, an alarm's code under a JSON key.
        ("Tresor im Serverraum – PIN-Code 793167, bitte nach dem Audit ändern.", "access_code", "warn"),
        ("{\"site\": \"warehouse-b\", \"alarm_disarm_code\": \"49121\"}", "generic_secret", "warn"),
    ]);
    assert_quiet(&[
        "kurtarma ifadesi: cüzdan ayarlarında yazıyor",
        "Пароль: «не помню»",
        "लॉकर का पिन बदलना है",
        "Ontgrendelcode: vraag het aan de receptie",
        "PIN-Code 2024 rollout",
        "{\"alarm_disarm_code\": \"ask facilities\"}",
    ]);
}

#[test]
fn public_boards_written_questions_and_filings_read_public() {
    let filing = "UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nFORM 8-K — CURRENT REPORT\n\nOn June 3, 2024, Marcus J. Hale notified the Board of his decision to resign as Chief Financial Officer. The Company and Mr. Hale entered into a separation agreement providing for a lump-sum payment of $412,500.";
    assert!(super::dossier::reads_public(filing));
    // Words of secrecy still outweigh them.
    let kept = format!("{filing}\nConfidential: do not share before the filing is made.");
    assert!(!super::dossier::reads_public(&kept));
}

#[test]
fn a_token_built_from_pieces_over_lines_blocks() {
    assert_found(&[
        (
            "_a = \"AKIAIVTV\"\n_b = \"MD55WRBSX47E\"\nsession = boto3.Session(aws_access_key_id=_a + _b)",
            "assembled_token",
            "block",
        ),
        (
            "String token = new StringBuilder()\n    .append(\"ghp_UH39m\")\n    .append(\"NRulFb0cu\")\n    .append(\"MvstXtyIe\")\n    .append(\"BR0kJ4IN0\")\n    .append(\"S3t7\")\n    .toString();",
            "assembled_token",
            "block",
        ),
        (
            "const head = 'sk_live_1AHx';\nconst tail = '7COgSEqJdPECKy8oGH9l';\nconst stripe = new Stripe(`${head}${tail}`);",
            "assembled_token",
            "block",
        ),
        (
            "TOKEN_A := glpat-qEs-y\nTOKEN_B := 5Ypwob4CBonGVUR\nGITLAB_TOKEN := $(TOKEN_A)$(TOKEN_B)",
            "assembled_token",
            "block",
        ),
    ]);
    assert_quiet(&[
        "PREFIX = \"ghp_\"\nif token.startswith(PREFIX):\n    return True",
        "head = \"ghp_\"\ntail = \"<your-token>\"\ntoken = head + tail",
        "key = \"AKIA\"\nrest = os.environ[\"AWS_KEY_REST\"]",
        "_a = \"AKIAIOSFODNN\"\n_b = \"7EXAMPLE\"",
        "prefix: 'sk_live_'\nsuffix: 'replace-me'",
        // A list of prefixes, and a token's documented shape.
        "prefixes = [\"ghp_\", \"gho_\", \"github_pat_\", \"glpat-\", \"xoxb-\", \"xoxp-\", \"sk_live_\", \"npm_\"]",
        "tokens start with `glpat-` and 20 characters. Example shape: `glpat-xxxxxxxxxxxxxxxxxxxx`. Store it in `GITLAB_TOKEN`.",
        // AWS's documented example secret, split: judged whole.
        "EXAMPLE_SECRET = \"wJalrXUtnFEMI/K7MDENG/\" + \"bPxRfiCYEXAMPLEKEY\"",
    ]);
    assert_found(&[
        // Other literals may come between a key's parts.
        (
            "ak_head = \"AKIAZUJEI\"\nBUCKET = \"acme-exports-prod\"\nak_tail = \"WWTBLWJTQAO\"\nid = f\"{ak_head}{ak_tail}\"",
            "assembled_token",
            "block",
        ),
        // A random value split in two still blocks, judged whole.
        ("SECRET = \"wJalrXUtnFEMI/K7MDENG/\" + \"bPxRfiCYzQ3mKLP9rTy\"", "secret_assignment", "block"),
    ]);
    // One finding for a join on the piece's own line: the disguise rules read it.
    let found = rules_of_text("tok = \"ghp_\" + \"UH39mNRulFb0cuMvstXtyIeBR0kJ4IN0S3t7\"");
    assert_eq!(found, [("github_token".to_owned(), "block".to_owned())]);
}

#[test]
fn advice_columns_and_screenplays_are_no_private_document_by_their_letters() {
    let column = "The Heart Line\n\nDear Marisol,\nMy boyfriend still keeps his ex as his wallpaper. Don't tell him I wrote. Am I jealous?\n— Background Character\n\nDear Background Character,\nTell him it bothers you.\n— Marisol\n\nLetters are edited for length and clarity and published anonymously.";
    let script = "INT. OPEN-PLAN OFFICE — NIGHT\n\nMAYA stares at her monitor.\n\nFrom: Daniel Cole\nTo: Maya Okafor\nSubject: Tomorrow\n\nMaya, the partners have decided. — D.\n\nCUT TO:";
    assert_quiet(&[column, script]);
    // Without the column's last line or the scene heading, the same letters are private.
    let letter = column.rsplit_once("\n\nLetters").map(|(head, _)| head).unwrap_or_default();
    assert!(!rules_of_text(letter).is_empty());
    let mail = script.replace("INT. OPEN-PLAN OFFICE — NIGHT", "Office notes");
    assert_found(&[(mail.as_str(), "email_headers", "block")]);
}

#[test]
fn literals_joined_only_into_words_are_no_token() {
    // Lower-case words after a prefix reach a GitHub token's 40 characters (the rule reads
    // any 36 letters after `ghp_`), but a join must look random to be a key.
    let mut words = String::from("a = \"ghp_abcd\"\n");
    for w in ["qwertzui", "asdfghjk", "yxcvbnml", "poiuztre"] {
        words.push_str(&format!("b = \"{w}\"\n"));
    }
    assert_quiet(&[words.as_str()]);
    // The same length of random pieces is one.
    let mut random = String::from("a = \"ghp_Ab3x\"\n");
    for w in ["Qk2Lm4Np", "7Rt8Vw1Z", "yX9cD3fG", "hJ5kL0mN"] {
        random.push_str(&format!("b = \"{w}\"\n"));
    }
    assert_found(&[(random.as_str(), "assembled_token", "block")]);
}
