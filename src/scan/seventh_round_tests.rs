//! Tests of the issue-16 seventh round (fourth session of 2026-12-05), kept apart from
//! `second_pass_tests.rs` (over its length): shapes the spent held-out parts 10 to 12 and
//! the fresh tuning parts showed missing, and public genres.

use super::second_pass_tests::{assert_found, assert_quiet, rules_of_json, rules_of_text};
use serde_json::json;

#[test]
fn shapes_found_missing_after_the_eleventh_blind_score() {
    assert_found(&[
        (
            "<rowan> is staging green?\n<kit_b> yes since noon\n* rowan deploys\n<rowan> thanks, merging\n<kit_b> np",
            "irc_turns",
            "block",
        ),
        (
            "Moreau, Elise  2:10 PM\ncan we slip a day?\nPark, Jin  2:11 PM\nfine\nMoreau, Elise  2:12 PM\nok",
            "chat_export",
            "block",
        ),
        (
            "**vega** — Today at 8:01 AM: who owns the flaky job?\n**ossi** — Today at 8:02 AM: me\n**vega** — Today at 8:02 AM: thanks",
            "chat_export",
            "block",
        ),
        (
            "FAIL web/login.spec.tsx\n  ● Login › rejects a wrong code\n\nTests:       1 failed, 9 passed, 10 total",
            "tool_output_lines",
            "block",
        ),
        ("then: DROP SCHEMA staging_tmp CASCADE;", "operational_command", "warn"),
    ]);
    assert_quiet(&[
        "<li> one item\n<li> two items\n<p> a paragraph here\n<p> and one more",
        "<alice> asked in the channel once; nobody answered.",
        "● Milk\n● Bread\n● Eggs for the weekend",
        "Chapter 2. The letter on her desk: CONFIDENTIAL, it said in blue ink, and she laughed at how grand it looked.",
    ]);
}

#[test]
fn log_records_seed_word_arrays_pprof_and_encoded_editor_links() {
    let log = |level: &str, msg: &str| json!({"ts": "2025-02-03T10:00:01Z", "level": level, "msg": msg, "svc": "cart"});
    let records = json!({"recent": [log("error", "db timeout"), log("warn", "retrying"), log("INFO", "recovered")]});
    assert!(rules_of_json(&records).iter().any(|(r, s)| r == "log_records" && s == "block"));
    let two = json!({"recent": [log("error", "db timeout"), log("warn", "retrying")]});
    assert!(!rules_of_json(&two).iter().any(|(r, _)| r == "log_records"));
    let person = json!({"level": "senior", "time": "full", "message": "hi"});
    let people = json!([person.clone(), person.clone(), person]);
    assert!(!rules_of_json(&people).iter().any(|(r, _)| r == "log_records"));
    let words = "harbor velvet ostrich candle mutual pepper trophy elbow canyon fossil glide random";
    let seed = json!({"wallet_seed_phrase": words.split(' ').collect::<Vec<_>>()});
    assert!(rules_of_json(&seed).iter().any(|(r, s)| r == "generic_secret" && s == "warn"));
    assert!(!rules_of_json(&json!({"seed_phrase": ["twelve", "words"]})).iter().any(|(_, s)| s == "warn"));
    let pprof = "Showing nodes accounting for 1.2s, 80% of 1.5s total\n      flat  flat%   sum%        cum   cum%\n     0.5s 33.3% 33.3%      0.5s 33.3%  runtime.memmove";
    assert!(rules_of_text(pprof).iter().any(|(r, _)| r == "tool_output_lines"), "{:?}", rules_of_text(pprof));
    let link = rules_of_text("open vscode://file/%2Fhome%2Fmarta%2Fsrc%2Fapp.py%3A12 to review");
    assert!(link.iter().any(|(r, s)| r == "home_path" && s == "block"), "{link:?}");
    assert!(!rules_of_text("see https://example.com/home/marta/profile").iter().any(|(_, s)| s == "block"));
}

#[test]
fn runner_reports_chat_exports_and_disguises_of_the_seventh_round() {
    assert_found(&[
        ("==311== Invalid write of size 8\n==311==    at 0x4011A2: push (q.c:40)", "runner_report_lines", "block"),
        (
            "TASK [db : migrate] ******\nfatal: [db-1]: FAILED! => {\"rc\": 1}\nPLAY RECAP ******",
            "runner_report_lines",
            "block",
        ),
        ("Planning Time: 0.3 ms\nExecution Time: 91.2 ms", "runner_report_lines", "block"),
        (
            "9001 10:00:01.1 openat(AT_FDCWD, \"/a\", O_RDONLY) = 3\n9001 10:00:01.2 read(3, \"x\", 9) = 1\n9001 10:00:01.3 close(3) = 0",
            "strace_lines",
            "block",
        ),
        (
            "### Instruction:\nadd 1+1\n### Response:\n2\n### Instruction:\nand 2+2\n### Response:\n4",
            "instruction_turns",
            "block",
        ),
        ("[HumanMessage(content='hi'), AIMessage(content='hello there')]", "message_repr", "block"),
        ("<｜User｜>fix the date parser<｜Assistant｜>done, see the diff", "chatml_turns", "block"),
        ("<|USER_TOKEN|>list risks<|END_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>1. drift", "chatml_turns", "block"),
        (
            "03.04.24, 08:01 - Jonas: Kommst du?\n03.04.24, 08:02 - Lea: Gleich\n03.04.24, 08:05 - Jonas: Ok",
            "chat_export",
            "block",
        ),
        (
            "李娜 2024-04-01 09:00:12\n发版了吗\n张伟 2024-04-01 09:01:40\n还没\n李娜 2024-04-01 09:02:05\n好",
            "chat_export",
            "block",
        ),
        ("09:10\t鈴木\tおはよう\n09:11\t高橋\tおはようございます\n09:12\t鈴木\t会議は10時です", "chat_log", "block"),
        (
            "09:10  @kim:example.org  deploy?\n09:11  @lee:example.org  after lunch\n09:12  @kim:example.org  ok",
            "chat_log",
            "block",
        ),
        (
            "[assistant] I will check the job.\n[tool_call] bash {\"cmd\": \"ls\"}\n[tool_result] ok",
            "transcript_turns",
            "block",
        ),
        ("उपयोगकर्ता: रिपोर्ट कहाँ है?\nसहायक: वित्त फ़ोल्डर में।", "translated_turns", "block"),
        (
            "   at Acme.Api.Startup.Configure(IApplicationBuilder app)\n   at Acme.Api.Program.Main(String[] args) in /src/Program.cs:line 12",
            "stack_trace",
            "block",
        ),
        ("rsync /cygdrive/c/Users/lmoreau/Music/ to the NAS", "home_path", "block"),
        ("{\"cwd\": \"\\u002fhome\\u002fnoor\\u002fapi\"}", "home_path", "block"),
        ("Код лежит в /home/ольга/проекты/, запускать оттуда.", "home_path", "block"),
        ("next=%252FUsers%252Fkai%252FDesktop%252Fa.pdf", "home_path", "block"),
        ("sql.Open(\"mysql\", \"app:Vb7xQ2mLp9Zt@tcp(db:3306)/shop\")", "url_password", "block"),
        ("export PASSWORD_PEPPER=Qm7vX2pL9tR4wZ8k on the nodes", "generic_secret", "warn"),
        ("助记词：的 一 是 在 不 了 有 和 人 这 中 大", "seed_phrase", "warn"),
        (
            "Frase de recuperación de prueba: ábaco bambú ceniza dueño esfera fábula grillo hélice imán jabón laurel mástil",
            "seed_phrase",
            "warn",
        ),
        ("Lobby tablets: unlock code 550912, change it after the fair.", "access_code", "warn"),
        ("heroku pg:reset DATABASE_URL --app shop-staging", "operational_command", "warn"),
        ("nomad job stop -purge ingest", "operational_command", "warn"),
    ]);
    assert_quiet(&[
        "### Instruction:\n{instruction}\n\n### Response:\n{response}",
        "## Response\nA JSON object.\n## Response\nAn empty body.",
        "Freeze 2024-03-01 18:00\nDeploy 2024-03-02 10:00\nVerify 2024-03-02 12:00",
        "Read the memo and answer the questions.\nMEMO\nTo: All staff\nFrom: Director, Fabrikam (a fictional company)\nSubject: Move\nWe move in June.",
        "映画紹介：主人公は社外秘の通達を偶然目にしてしまう。働く人々の誇りを描いたヒューマンドラマ。公開情報。",
        "see https://example.com/c/Users/guide for the setup",
    ]);
    let chat = json!({"posts": [
        {"user_id": "u1", "create_at": 1_710_236_400_123_u64, "message": "the export OOMed"},
        {"user_id": "u2", "create_at": 1_710_236_462_011_u64, "message": "bumping memory"}
    ]});
    assert!(rules_of_json(&chat).iter().any(|(r, _)| r == "chat_message_array"));
    let history = json!({"chat_history": [["what is the refund window?", "30 days"], ["and monthly?", "none"]]});
    assert!(rules_of_json(&history).iter().any(|(r, _)| r == "chat_message_array"));
    assert!(
        !rules_of_json(&json!({"history": [["a", "b"], ["c", "d"]]})).iter().any(|(r, _)| r == "chat_message_array")
    );
    let row = |l: &str| json!(["2024-03-11T14:02:11Z", l, "db.pool", "connection reset"]);
    assert!(
        rules_of_json(&json!({"evidence": [row("ERROR"), row("WARN"), row("INFO")]}))
            .iter()
            .any(|(r, _)| r == "log_records")
    );
    let parts = json!({"parts": ["ghp_", "SdRlkmi4B", "ERPpDQNbn", "6FXThxnM7", "MnN2sUW1M"]});
    assert!(
        rules_of_json(&parts).iter().any(|(r, s)| r == "github_token" && s == "block"),
        "{:?}",
        rules_of_json(&parts)
    );
    assert!(
        rules_of_json(&json!({"sim_pin": "4821", "puk": "77310482"}))
            .iter()
            .any(|(r, s)| r == "generic_secret" && s == "warn")
    );
    let ko = json!({"recovery_phrase": "가격 가끔 가난 가능 가득 가르침 가뭄 가방 가상 가슴 가운데 가을"});
    assert!(rules_of_json(&ko).iter().any(|(r, s)| r == "generic_secret" && s == "warn"));
}

#[test]
fn published_genres_and_their_documents_strings_read_public() {
    let synopsis = "Season 3, Episode 2. When Mara Lind is told her contract ends on 30 June, she finds that her manager Olof Brandt took a bonus of 40,000 for closing the plant. Her lawyer Ines Vahl advises her to sign; her sister says fight.";
    assert!(!rules_of_text(synopsis).iter().any(|(_, s)| s == "block"), "{:?}", rules_of_text(synopsis));
    let private = synopsis.replace("Season 3, Episode 2. ", "");
    assert!(rules_of_text(&private).iter().any(|(_, s)| s == "block"), "{:?}", rules_of_text(&private));
    // The genre word sits in another string of the same document.
    let doc = json!({"goal": "Write the programme guide entries for week 9", "entry": private});
    assert!(!rules_of_json(&doc).iter().any(|(_, s)| s == "block"), "{:?}", rules_of_json(&doc));
    let plain = json!({"goal": "Hand over the account", "entry": private});
    assert!(rules_of_json(&plain).iter().any(|(_, s)| s == "block"), "{:?}", rules_of_json(&plain));
    let advert = "Stellenanzeige: Personalreferent (m/w/d)\nVergütung: 62.000 € brutto. Du berätst Führungskräfte bei Abmahnungen und Kündigungen und begleitest Anhörungen des Betriebsrats mit Dr. Petra Lang und Jonas Weber.";
    assert!(!rules_of_text(advert).iter().any(|(_, s)| s == "block"), "{:?}", rules_of_text(advert));
}

#[test]
fn shapes_found_missing_after_the_twelfth_blind_score() {
    assert_found(&[
        (
            "[09:41] Novák, Jiří\nhotovo?\n[09:43] Dvořák, Eva\nještě ne\n[09:44] Novák, Jiří\nok",
            "chat_export",
            "block",
        ),
        ("**You:**\n\nwhat is a mutex\n\n**ChatGPT:**\n\nA lock with one owner.", "transcript_turns", "block"),
        (
            "[+] Building 12.1s (6/9)\n => [2/5] WORKDIR /srv\n => ERROR [3/5] RUN make build   10.2s",
            "runner_report_lines",
            "block",
        ),
        ("Unlock code for the spare tablet in the top drawer: 731905", "access_code", "warn"),
        ("Entsperrcode für das Testgerät: 51-20-93-47", "access_code", "warn"),
        (
            "cipher seed of node-3 (aezeed): 1 absent 2 gentle 3 mirror 4 parade 5 orbit 6 salute 7 cabin 8 thrive 9 echo 10 velvet 11 plunge 12 morning",
            "seed_phrase",
            "warn",
        ),
        ("psql \"host=pg-main dbname=shop user=ops\" -c \"DELETE FROM carts\"", "operational_command", "warn"),
        ("aws ec2 terminate-instances --instance-ids i-0a1b2c3d4e5f60718", "operational_command", "warn"),
    ]);
    let template = json!({"env": {"STRIPE_SECRET_KEY": "sk_live_<your-key-here>", "OPENAI_API_KEY": "<set-in-vault>"}});
    assert_eq!(rules_of_json(&template), []);
    for redacted in ["********", "ghp_XXXXXXXXXXXXXXXXXXXX", "<redacted>"] {
        let found = rules_of_json(&json!({"db_password": redacted}));
        assert!(found.iter().any(|(r, _)| r == "forbidden_key"), "{redacted}: {found:?}");
    }
}
