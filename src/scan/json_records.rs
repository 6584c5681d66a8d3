//! Records a JSON array is made of (issue 16): chat messages, log records, people with
//! their pay, stack frames. An array of enough records of one kind is a finding of its
//! own ([`RECORD_ARRAYS`], read by [`super::json`]'s array scan).

use serde_json::Value;

/// Arrays whose items are records of one kind: (rule, sample shown, fewest records, the
/// test of one item, what the array is).
pub(super) type RecordArray = (&'static str, &'static str, usize, fn(&Value) -> bool, &'static str);
pub(super) const RECORD_ARRAYS: &[RecordArray] = &[
    ("pay_records", "name/pay", PAY_RECORDS, is_pay_record, "records of named people with their pay"),
    ("log_records", "level/time/msg", LOG_RECORDS, is_log_record, "log records (a level, a time and a message each)"),
    ("chat_message_array", "role/content", 2, is_chat_message, "chat messages with roles"),
    (
        "stack_frames",
        "filename/lineno/function",
        2,
        is_stack_frame,
        "stack frames (a file, a line and a function each)",
    ),
    (
        "lint_diagnostics",
        "ruleId/message/line",
        2,
        is_diagnostic,
        "linter diagnostics (a message at a line and column each)",
    ),
    ("cluster_events", "reason/message/involvedObject", 2, is_cluster_event, "Kubernetes events"),
    ("test_results", "status/message", 1, is_failed_test_result, "failed test results with their output"),
];

/// A Kubernetes event as `kubectl get events -o json` lists it: a `reason`, a `message` and
/// the `involvedObject` it is about (core/v1), or a `note` and the object it is `regarding`
/// (events.k8s.io/v1).
fn is_cluster_event(v: &Value) -> bool {
    let has = |k: &str| v.get(k).is_some();
    has("reason") && (has("message") && has("involvedObject") || has("note") && has("regarding"))
}

/// A test runner's result for one test file or case as its JSON report gives it (Jest's
/// `testResults` and their `assertionResults`, Mocha's `failures`): a `status` or `state` of
/// `failed` (or `fail`) and the failure's output under `message`, `failureMessage`,
/// `failureMessages` (a list) or `err.stack`, of three lines or more
/// (the runner's own text, not a one-line summary).
fn is_failed_test_result(v: &Value) -> bool {
    let failed = ["status", "state"]
        .iter()
        .filter_map(|k| v.get(*k).and_then(Value::as_str))
        .any(|s| s.eq_ignore_ascii_case("failed") || s.eq_ignore_ascii_case("fail"));
    let listed = v.get("failureMessages").and_then(Value::as_array).into_iter().flatten();
    let output = [v.get("message"), v.get("failureMessage"), v.get("err").and_then(|e| e.get("stack"))]
        .into_iter()
        .flatten()
        .chain(listed)
        .filter_map(Value::as_str)
        .any(|m| m.lines().filter(|l| !l.trim().is_empty()).count() >= 3);
    failed && output
}

/// A linter's or compiler's diagnostic as its JSON output gives it (ESLint's `messages`):
/// a `message`, a `line` and a `column` (numbers), and a `ruleId` or a `severity`.
fn is_diagnostic(v: &Value) -> bool {
    v.get("message").is_some_and(Value::is_string)
        && v.get("line").is_some_and(Value::is_number)
        && v.get("column").is_some_and(Value::is_number)
        && (v.get("ruleId").is_some() || v.get("severity").is_some())
}

/// A chat message of either shape: [`is_role_message`] or [`is_chat_export_message`].
fn is_chat_message(v: &Value) -> bool {
    is_role_message(v) || is_chat_export_message(v)
}

/// Records of [`is_log_record`] in one array from which it is a run of a program's log.
const LOG_RECORDS: usize = 3;

/// A structured log record (what `ndjson_log` reads as text, parsed): a log level under
/// `level`, `lvl`, `severity` or `loglevel` (`error`, `WARN`, `info`, …), a time under `ts`,
/// `time`, `timestamp`, `@timestamp` or `datetime`, and a message under `msg`, `message` or
/// `event`; or a positional record: an array of three or more fields holding a date
/// (`2024-03-11…`) and a level; or a journal record ([`is_journal_record`]); or a time
/// and a `message` that is a log line opening with its date (CloudWatch's events); or a `go test -json` event
/// (`Time`, `Action`, `Package`).
fn is_log_record(v: &Value) -> bool {
    const LEVELS: &[&str] =
        &["trace", "debug", "info", "notice", "warn", "warning", "error", "err", "fatal", "critical", "crit", "panic"];
    let is_level = |l: &str| LEVELS.iter().any(|w| w.eq_ignore_ascii_case(l));
    if let Some(fields) = v.as_array() {
        // A positional record: `["2024-03-11T14:02:11Z", "ERROR", "db.pool", "reset", …]`.
        let strings = || fields.iter().filter_map(Value::as_str);
        return fields.len() >= 3 && strings().any(starts_with_date) && strings().any(is_level);
    }
    let Some(map) = v.as_object() else { return false };
    let level = ["level", "lvl", "severity", "loglevel"]
        .iter()
        .filter_map(|k| map.get(*k).and_then(Value::as_str))
        .any(is_level);
    let time = ["ts", "time", "timestamp", "@timestamp", "datetime"]
        .iter()
        .any(|k| map.get(*k).is_some_and(|t| t.is_string() || t.is_number()));
    let message = ["msg", "message", "event"].iter().any(|k| map.get(*k).is_some_and(Value::is_string));
    // CloudWatch's `{timestamp, message}` whose message is the log line, date first.
    let dated_line = map.get("message").and_then(Value::as_str).is_some_and(starts_with_date);
    // `go test -json`'s events: a time, an action and the package.
    let test_event = ["Time", "Action", "Package"].iter().all(|k| map.get(*k).is_some_and(Value::is_string));
    (level && time && message) || (time && dated_line) || test_event || is_journal_record(map)
}

/// Whether `t` opens with an ISO date (`2024-03-12…`).
fn starts_with_date(t: &str) -> bool {
    t.len() >= 10
        && t.as_bytes()[..10]
            .iter()
            .enumerate()
            .all(|(i, b)| if i == 4 || i == 7 { *b == b'-' } else { b.is_ascii_digit() })
}

/// A stack frame as error trackers store it (Sentry's `frames`, a crash report's JSON, V8's
/// call sites): a file (`filename`, `fileName`, `abs_path`, `file`), a line number
/// (`lineno`, `lineNumber`, `line`; a number or digits) and a function (`function`,
/// `functionName`, `method`, `methodName`).
fn is_stack_frame(v: &Value) -> bool {
    let has = |keys: &[&str], kind: fn(&Value) -> bool| keys.iter().any(|k| v.get(*k).is_some_and(kind));
    let number =
        |x: &Value| x.is_number() || x.as_str().is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
    has(&["filename", "fileName", "abs_path", "file"], Value::is_string)
        && has(&["lineno", "lineNumber", "line"], number)
        && has(&["function", "functionName", "method", "methodName"], Value::is_string)
}

/// A record of `journalctl -o json`: a syslog priority (`"PRIORITY": "3"`, 0 to 7), the
/// journal's own clock (`__REALTIME_TIMESTAMP`) and a `MESSAGE`.
fn is_journal_record(map: &serde_json::Map<String, Value>) -> bool {
    map.get("PRIORITY")
        .and_then(Value::as_str)
        .is_some_and(|p| matches!(p, "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7"))
        && map.contains_key("__REALTIME_TIMESTAMP")
        && map.get("MESSAGE").is_some_and(Value::is_string)
}

/// Records of [`is_pay_record`] in one array from which it is a payroll or compensation
/// table (a private document).
const PAY_RECORDS: usize = 3;

/// An object naming a person (a string value of two or three capitalised words under a key
/// such as `name`, `employee`, `person`) beside a number under a pay key (`salary`, `base`,
/// `bonus`, `pay`, `wage`, `compensation`, `comp`, `equity`).
fn is_pay_record(v: &Value) -> bool {
    let Some(map) = v.as_object() else { return false };
    let person = |s: &str| {
        let words: Vec<&str> = s.split(' ').collect();
        (2..=3).contains(&words.len())
            && words.iter().all(|w| {
                let mut c = w.chars();
                c.next().is_some_and(char::is_uppercase) && w.len() >= 2 && c.all(char::is_lowercase)
            })
    };
    let named = map.iter().any(|(k, v)| {
        let k = k.to_ascii_lowercase();
        ["name", "employee", "person", "staff", "member", "full_name"].iter().any(|n| k.contains(n))
            && v.as_str().is_some_and(person)
    });
    let paid = map.iter().any(|(k, v)| {
        let k = k.to_ascii_lowercase();
        v.is_number()
            && ["salary", "base", "bonus", "pay", "wage", "compensation", "comp", "equity"]
                .iter()
                .any(|p| k.contains(p))
    });
    named && paid
}

/// A `{role, content}` chat message (the role in any case, Cohere's `USER`/`CHATBOT` with
/// `message`), Gemini's `{role, parts: […]}` content, a ShareGPT-style `{from, value}` turn
/// (`human`, `gpt`), LangChain's serialised `{type: human|ai, data: {content}}`, a Rasa
/// tracker's `{event: user|bot, text}`, or PaLM's `{author, content}`.
fn is_role_message(v: &Value) -> bool {
    let role_of = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_ascii_lowercase);
    let chat_role = |r: String| {
        matches!(
            r.as_str(),
            "user"
                | "assistant"
                | "system"
                | "developer"
                | "tool"
                | "model"
                | "human"
                | "gpt"
                | "chatbot"
                | "bot"
                | "ai"
                | "function"
        )
    };
    let text_of = |m: &Value| ["content", "message", "text"].iter().any(|k| m.get(*k).is_some_and(Value::is_string));
    ((v.get("content").is_some() || v.get("parts").is_some_and(Value::is_array) || text_of(v))
        && role_of("role").is_some_and(chat_role))
        || (v.get("value").is_some_and(Value::is_string) && role_of("from").is_some_and(chat_role))
        || (role_of("type").is_some_and(|t| t == "human" || t == "ai")
            && (v.get("content").is_some_and(Value::is_string)
                || v.get("data").and_then(|d| d.get("content")).is_some_and(Value::is_string)))
        || (v.get("text").is_some_and(Value::is_string) && role_of("event").is_some_and(|e| e == "user" || e == "bot"))
        || (v.get("author").is_some_and(Value::is_string) && v.get("content").is_some_and(Value::is_string))
        || is_serialised_message(v)
}

/// A message as a framework serialises it: LangChain's `dumpd` (`{lc, type: constructor,
/// id: […, "HumanMessage"], kwargs: {content}}`), or a chat panel's exchange (VS Code's
/// exported Copilot session: `{message: {text}, response: [{value}]}`).
fn is_serialised_message(v: &Value) -> bool {
    let class = v.get("id").and_then(Value::as_array).and_then(|id| id.last()).and_then(Value::as_str);
    let langchain = class.is_some_and(|c| c.ends_with("Message"))
        && v.get("kwargs").and_then(|k| k.get("content")).is_some_and(|c| c.is_string() || c.is_array());
    let exchange = v.get("message").and_then(|m| m.get("text")).is_some_and(Value::is_string)
        && v.get("response").is_some_and(|r| r.is_array() || r.is_string());
    langchain || exchange
}

/// A message of a chat export (Slack, Teams, Discord, Mattermost, Zulip, Matrix, Google
/// Chat, a Zendesk ticket's comments, a web chat's turns): a string text under `text`,
/// `message`, `body`, `content` or `utterance` (or Microsoft Graph's `body.content`, Matrix's
/// `content.body`), a sender under `speaker`, `user`, `user_name`, `user_id`, `author`,
/// `author_id`, `from`, `sender`, `sender_full_name`, `sender_name` (Messenger's and
/// Instagram's exports) or `creator`, and a time under `ts`, `timestamp`, `time`, `at`,
/// `date`, `created_at`, `create_at`, `created_date`, `date_sent`, `origin_server_ts` or
/// `timestamp_ms`; or a Mattermost bulk-export line holding one under
/// `post` or `reply`. Not a commit (a `sha`, `commit`, `oid`, `hash` or `revision` beside
/// them).
fn is_chat_export_message(v: &Value) -> bool {
    let has = |keys: &[&str]| keys.iter().any(|k| v.get(*k).is_some_and(|x| !x.is_null()));
    // A commit (`{sha, author, date, message}`) is no message of a chat.
    if has(&["sha", "commit", "oid", "hash", "revision"]) {
        return false;
    }
    let nested = |outer: &str, inner: &str| v.get(outer).and_then(|o| o.get(inner)).is_some_and(Value::is_string);
    ((["text", "message", "body", "content", "utterance"].iter().any(|k| v.get(*k).is_some_and(Value::is_string))
        || nested("body", "content")
        || nested("content", "body"))
        && has(&[
            "speaker",
            "user",
            "user_name",
            "username",
            "user_id",
            "author",
            "author_id",
            "from",
            "sender",
            "sender_id",
            "sender_full_name",
            "sender_name",
            "creator",
        ])
        && has(&[
            "ts",
            "timestamp",
            "time",
            "at",
            "date",
            "created_at",
            "createdDateTime",
            "create_at",
            "created_date",
            "date_sent",
            "origin_server_ts",
            "timestamp_ms",
        ]))
        || ["post", "reply"].iter().any(|k| v.get(*k).is_some_and(|p| p.is_object() && is_chat_export_message(p)))
}
