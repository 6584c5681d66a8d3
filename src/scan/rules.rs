//! The rule table of the boundary scan: one row per rule with its category, severity under
//! each policy, gate literals, pattern (byte mode, ASCII classes), a validator, and an
//! example hit and miss. `writegate scan --rules` prints it; `docs/scan-rules.md` is that
//! output (a test keeps them equal). Superset of LoopX's `loopx check --scan-path`
//! `LEAK_PATTERNS`, its `public_safe_outbound` rules and its payload validators (FORMATS.md §6).

use std::sync::LazyLock;

/// How a match is judged after the pattern hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Any match is a finding.
    Always,
    /// The captured value must look random (entropy, character classes) and not be a
    /// reference, placeholder or one of our ids.
    Random,
    /// A secret-named field's value ([`Check::Random`]'s judgement), or 32+ hex digits or a
    /// UUID where the name says secret, token, password or an API, access, private or
    /// signing key (`MIXPANEL_API_SECRET=61a3…`, `SNYK_TOKEN: 98a7…-…`); never a public
    /// key's field (`PublicKey = N0jx…=`), a template's slot (`{…}`, `$…`) or a URL read as
    /// a name and its value (`otpauth://…`).
    SecretAssigned,
    /// The captured value must not be a reference or placeholder.
    NotPlaceholder,
    /// At least two matches in the text (multi-line evidence: turns, log lines).
    AtLeastTwo,
    /// At least three matches in the text.
    AtLeastThree,
    /// The captured value must look random, or be 32 or more hex digits, dashes between them
    /// allowed (a key in hex or a UUID; a hash of the same shape is allowed by
    /// [`Check::Random`], not here).
    RandomOrHex,
    /// [`Check::InText`], and the text just before the match does not name the marking
    /// instead of bearing it (`documents marked CONFIDENTIAL`, a marking in quotes).
    Marking,
    /// The line holding the match (within 200 bytes of it) gives no published test value
    /// (NHS Digital's 943 476 5919, the SSA's void 078-05-1120) and does not say its data is
    /// sample or synthetic.
    NotTestIdentifier,
    /// The home folder's user is not a documentation placeholder (`/Users/you/…`,
    /// `/home/yourname/…`, `/home/username/…`) nor Windows' shared `Public` or `Default`
    /// profile ([`super::values::is_placeholder_user`]).
    NotPlaceholderUser,
    /// The address is not a network in CIDR notation (`10.96.0.0/12`, `fd00::/8`: a range,
    /// not a host).
    NotNetwork,
    /// The match is not preceded by `.` (`.env.local` is a file name, not a host).
    NotFileName,
    /// The match is a network share, not a look-alike: its line is not one run of 40 or more
    /// base64 characters (a PEM body's line may open with `//`: `//nyAgZXETgow8e/Ozqm4…`),
    /// and it is no build label of Bazel, Buck or Pants (`//services/geo/...`,
    /// `//app/api:server`, after the tool's command or in a BUILD file's `deps`) on a line
    /// that mounts nothing. Reads at most 200 bytes either side of the match.
    NetworkShare,
    /// [`Check::NotPlaceholder`], and the value is no date or year (`PIN 2024-03-15
    /// rollout`, `код от сейфа: 2024 год`) and no factory default (`0000`, `1234`).
    AccessCode,
    /// The command from the match to its end (`&&`, `;`, `|`, `#`, the line's end; at most
    /// 200 bytes) has no dry-run argument (`--dry-run`, `--dryrun`, Ansible's `--check`,
    /// PowerShell's `-WhatIf`, not turned off by `=none` or `:$false`): a command that only
    /// previews its effects has none.
    NoDryRun,
    /// The captured mailbox of a `mailto:` link is a person's or a team's: not a template's
    /// (`you@…`, `first.last@…`), nor a shared one at a documentation domain
    /// (`support@example.com`), nor a placeholder.
    PersonalMailbox,
    /// The name after `~` is not a word of approximation (`~half`, `~twice`: [`APPROXIMATIONS`]).
    NotApproximation,
    /// A key's body, a PEM header or the text's end follows the marker (a sentence naming
    /// `-----BEGIN … PRIVATE KEY-----` carries no key).
    KeyBody,
    /// The value of a generically named secret: random-looking, 12 or more hex digits
    /// (grouped or not), or a passphrase of three or more words (`tundra-maple-47-orbit`,
    /// `'lantern ferry cobalt nine'`), not a reference or placeholder. A single word
    /// (`required`, `rotated`) is prose, not a value.
    SecretValue,
    /// The scanned text must hold 32 bytes or more besides the match (a final line break not
    /// counted): a marking on a document, not a label standing alone (a UI string
    /// `"Confidential"`).
    InText,
    /// Speaker turns (`Alice Smith: …`): four or more, from two or more speakers who each
    /// speak twice or more, none of them a common field label ([`NOT_SPEAKERS`]). A list of
    /// `Owner: …` / `Status: …` fields has no speakers; a conversation has them.
    Speakers,
    /// A wallet seed ([`super::secret_values::is_seed_words`]): under an English label (`seed`,
    /// `recovery`, `mnemonic`, `backup`, `cipher seed`), 12 to 24 words nearly all of
    /// BIP-39's English list, numbers between them allowed; under another language's label or LND's
    /// banner, the pattern alone decides.
    SeedWords,
    /// AutoGen's message heads (`user_proxy (to assistant):`): two or more, from two or more
    /// senders (the name before ` (to `). One sender's repeated heading is a note's layout.
    TwoSenders,
    /// [`Check::AtLeastTwo`] over the matches that name a private party: a salutation to the
    /// public (`Liebe Eltern,`, `Dear customers,`, `고객님,`) or a sign-off by an office (`Mit
    /// freundlichen Grüßen\nDie Schulleitung`, `고객센터 드림`) does not count
    /// ([`super::values::addresses_the_public`]).
    LetterPart,
    /// AutoGen's console banners: two or more, one of them the user's (`---------- user
    /// ----------`, `---------- TextMessage (user) ----------`).
    ConsoleRun,
    /// A path under `~` that is not a program's settings named in a sentence: a dot-folder
    /// or dot-file (`~/.config/tool/config.toml`, `~/.bashrc`) or macOS's `~/Library/Application
    /// Support`, `Preferences`, `Logs`, `Caches` or `Containers` after a blank, `(` or a
    /// backtick is where a program keeps its settings, as its documentation says; it shows
    /// nothing of the user's own files. As a whole value or after `=` it is a file's path.
    NotSettingsPath,
    /// A provider token's first piece that the literals after it complete: read in order
    /// over the lines below and joined until a blocking credential rule finds a token
    /// (`.append("ghp_UH39m")` over more `.append(…)` lines).
    Assembled,
}

/// HTML element names (lower case): `<li> item` lines are markup, never an IRC nick of
/// `irc_turns`.
pub const HTML_ELEMENTS: &[&str] = &[
    "a",
    "abbr",
    "article",
    "aside",
    "b",
    "blockquote",
    "body",
    "br",
    "button",
    "caption",
    "code",
    "dd",
    "del",
    "details",
    "div",
    "dl",
    "dt",
    "em",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "i",
    "img",
    "input",
    "ins",
    "kbd",
    "label",
    "li",
    "link",
    "main",
    "mark",
    "meta",
    "nav",
    "ol",
    "option",
    "p",
    "pre",
    "q",
    "s",
    "samp",
    "script",
    "section",
    "select",
    "small",
    "span",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "u",
    "ul",
    "var",
];

/// Capitalised words that open `Label: value` lines of notes and reports, never a speaker
/// of [`Check::Speakers`].
pub const NOT_SPEAKERS: &[&str] = &[
    "Status",
    "Owner",
    "Note",
    "Notes",
    "Summary",
    "Result",
    "Results",
    "Next",
    "Next Steps",
    "Todo",
    "Done",
    "Date",
    "Time",
    "Build",
    "Deploy",
    "Release",
    "Error",
    "Warning",
    "Info",
    "Name",
    "Type",
    "Title",
    "Description",
    "Priority",
    "Assignee",
    "Reviewer",
    "Estimate",
    "Action",
    "Actions",
    "Decision",
    "Risk",
    "Risks",
    "Goal",
    "Step",
    "Phase",
    "Source",
    "Target",
    "Impact",
    "Cause",
    "Root Cause",
    "Fix",
    "Example",
    "Input",
    "Output",
    "Expected",
    "Actual",
    "Question",
    "Answer",
    "Update",
    "Blocker",
    "Blockers",
    "Context",
    "Problem",
    "Solution",
    "Reason",
    "Scope",
    "Owner Team",
    "Due",
    "Due Date",
    "Version",
    "Env",
    "Environment",
    "Host",
    "Branch",
    "Commit",
    "Author",
    "Subject",
    "From",
    "To",
    "Cc",
    "Tags",
    "Labels",
    "Link",
    "Links",
    "See",
    "Also",
    "Todo Item",
    "Pros",
    "Cons",
    "Yes",
    "No",
    "Q",
    "A",
    "Mon",
    "Tue",
    "Wed",
    "Thu",
    "Fri",
    "Sat",
    "Sun",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Today",
    "Tomorrow",
    "Yesterday",
    "Morning",
    "Afternoon",
    "Evening",
    "Week",
    "Important",
    "Warning",
    "Caution",
    "Tip",
    "Hint",
    "Usage",
    "Returns",
    "Args",
    "Arguments",
    "Parameters",
    "Default",
    "Required",
    "Optional",
    "Progress",
    "Outcome",
    "Findings",
    "Finding",
    "Observation",
    "Plan",
];

/// Lines after the candidate line that a multi-line rule's match may reach (its pattern
/// bounds them), so the regex window holds the whole match.
#[must_use]
pub fn extra_lines(rule: &Rule) -> usize {
    match rule.id {
        // prompt, up to two blank lines, output, up to two blank lines, output
        "shell_session" => 6,
        // `error[E…]: …` then ` --> file:line:col`; `Agenda:` then a list item; an
        // operations tool's first line, then its second
        "compiler_error" | "meeting_minutes" | "tool_table" | "ops_run_output" | "dbt_run_log" => 1,
        // `Kind regards,` then the name on the next line or after a blank one; a runtime's
        // banner or prompt, (a blank line,) its first frame; a dump's role field, a line,
        // the turn's text field
        "letter_shape" | "runtime_trace" | "transcript_turns" => 2,
        // `PS C:\> command`, up to two blank lines, one output line
        "powershell_session" => 3,
        // the label's line, then up to 24 words on lines of their own
        "seed_phrase" => 24,
        // a backup codes' label, then up to 16 codes on lines of their own
        "backup_codes" => 16,
        _ => 0,
    }
}

/// How the scan finds the lines a rule's regex must run on. Every gate is a necessary
/// condition of the rule's pattern, so gating changes speed, never findings (a proptest
/// compares with running every regex on every line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// One of [`Rule::literals`] occurs (ASCII case-insensitive), found through the stems
    /// searched in one pass, then checked with [`after`] and [`word_start`].
    Literals,
    /// A `/` or `\\` starts a path the pattern names (home, user, mount, system folders, `~/`).
    Slash,
    /// An `@` occurs (e-mail addresses, passwords in URLs).
    At,
    /// A `~` comes before a lower-case name (`~postgres`, `~deploy's`).
    Tilde,
    /// A `.` follows `10`, `172` or `192` and precedes a digit, or precedes an internal
    /// top-level name.
    Dot,
    /// A `:` follows a unique local or link-local IPv6 address's first group (`fd12:`,
    /// `fe80:`).
    Colon,
    /// An `A` or `S` starts a fixed upper-case key prefix at a word start (`AKIA`…, `AIza`,
    /// `AKLT`, `SK`, `SG.`).
    Upper,
    /// The line's first bytes have the shape the pattern anchors at `^` (turns, log lines,
    /// stack frames, prompts).
    LineHead,
    /// One of [`Rule::literals`] (ASCII case-insensitive) starts the line after a run of
    /// `[ \t>*_#-]` (list marks, headings, quotes, emphasis): section names of documents and
    /// role names the pattern anchors at `^`. Checked per line, so common words (`Summary`,
    /// `Manager`) cost no search.
    SectionHead,
    /// A run of 31 or more base64-alphabet characters (letters, digits, `+ / _ -`): every
    /// alternative of the pattern holds one (provider tokens by prefix and length). Found by
    /// the vectorised block screen base64 decoding uses.
    Run,
}

/// Words that follow `~` as "about" rather than as a user's name (`~half the runs`,
/// `~twice as long`): [`Check::NotApproximation`].
pub const APPROXIMATIONS: &[&str] =
    &["half", "twice", "double", "triple", "once", "same", "equal", "quarter", "third", "few", "dozen", "several"];

/// The gate of each rule.
#[must_use]
pub fn gate(rule: &Rule) -> Gate {
    match rule.id {
        "home_path" | "windows_home_path" | "wsl_home_path" | "tilde_path" | "home_folder_path"
        | "android_user_path" | "system_path" | "unc_path" | "unc_slash_path" | "tilde_user_path"
        | "user_temp_path" => Gate::Slash,
        "email" | "url_password" => Gate::At,
        "tilde_user" => Gate::Tilde,
        "private_ip" | "internal_host" => Gate::Dot,
        "private_ipv6" => Gate::Colon,
        "aws_access_key_id" | "google_api_key" | "aklt_access_key" | "twilio_key" | "sendgrid_key"
        | "telegram_bot_token" => Gate::Upper,
        "provider_token" => Gate::Run,
        "transcript_turns"
        | "session_log"
        | "timestamped_log"
        | "stack_trace"
        | "shell_session"
        | "chat_log"
        | "syslog_lines"
        | "ndjson_log"
        | "powershell_session"
        | "email_headers"
        | "contract_clauses"
        | "chat_export"
        | "named_turns"
        | "chat_columns"
        | "irc_turns"
        | "dated_chat_log"
        | "autogen_console"
        | "compose_log_lines"
        | "tagged_progress_lines" => Gate::LineHead,
        "memo_header"
        | "meeting_minutes"
        | "hr_review"
        | "postmortem_sections"
        | "audit_findings"
        | "cjk_turns"
        | "translated_turns"
        | "instruction_turns"
        | "tool_output_lines"
        | "tool_table"
        | "pytest_lines"
        | "runner_report_lines"
        | "build_output_lines"
        | "strace_lines"
        | "runtime_trace"
        | "agent_trace"
        | "court_turns"
        | "ops_run_output"
        | "operational_command_line" => Gate::SectionHead,
        _ => Gate::Literals,
    }
}

/// What must follow a literal for its rule to be able to match there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// Anything.
    Any,
    /// An optional backslash and quote, blanks (`\s` without a line break), then one of these
    /// bytes: the `keyword\\?["']?\s*[:=|]` shape of assignments.
    Assign(&'static [u8]),
    /// A blank (`\s` without a line break).
    Blank,
}

/// The follow condition of a literal-gated rule (see [`After`]).
#[must_use]
pub fn after(rule: &Rule) -> After {
    match rule.id {
        "secret_assignment" => After::Assign(b":=|"),
        "authorization_header" | "cookie_session" => After::Assign(b":="),
        "bearer_token" => After::Blank,
        _ => After::Any,
    }
}

/// Whether the rule's pattern starts with `\b` right before its literal, so a literal
/// preceded by a word byte cannot begin a match.
#[must_use]
pub fn word_start(rule: &Rule) -> bool {
    matches!(
        rule.id,
        "github_token"
            | "github_pat"
            | "gitlab_token"
            | "slack_token"
            | "stripe_key"
            | "anthropic_key"
            | "openai_key"
            | "npm_token"
            | "pypi_token"
            | "huggingface_token"
            | "digitalocean_token"
            | "shopify_token"
            | "ark_api_key"
            | "jwt"
            | "authorization_header"
            | "bearer_token"
            | "internal_task_id"
            | "bank_account_details"
            | "letter_shape"
            | "contract_parties"
            | "personal_identifier"
    )
}

/// One rule.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// Stable id.
    pub id: &'static str,
    /// `credentials`, `local_paths`, `transcripts`, `raw_tool_output`, `network`,
    /// `private_documents`, `operations`, `structure`.
    pub category: &'static str,
    /// Severity for the `public` policy (`block`, `warn`, `info`).
    pub public: &'static str,
    /// Severity for the `local` policy.
    pub local: &'static str,
    /// Literals of a [`Gate::Literals`] rule (ASCII, matched case-insensitively): one of
    /// them occurs wherever the pattern matches; of a [`Gate::SectionHead`] rule, one of them
    /// starts the line wherever it matches. Empty for the other gates.
    pub literals: &'static [&'static str],
    /// Byte-mode regex (compiled once). Capture group 1, when present, is the value judged.
    pub pattern: &'static str,
    /// Post-match judgement.
    pub check: Check,
    /// What it matches, one line.
    pub what: &'static str,
    /// A text it flags.
    pub hit: &'static str,
    /// A similar text it leaves alone.
    pub miss: &'static str,
}

const B: &str = "block";
const W: &str = "warn";
const I: &str = "info";

mod content;
mod credentials;
pub mod documents;
mod generic_secrets;
mod paths;
mod provider_tokens;
mod tool_output;
mod transcripts;
pub use transcripts::FAQ_LABELS;

/// Every text rule: the credential and generic-secret rows, the local-path, transcript and content rows, the
/// tool-output rows, then the private-document rows (structure rules work on JSON keys and
/// live in `scan::json`).
pub static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    credentials::CREDENTIALS
        .iter()
        .chain(provider_tokens::PROVIDER_TOKENS)
        .chain(generic_secrets::GENERIC_SECRETS)
        .chain(paths::PATHS)
        .chain(transcripts::TRANSCRIPTS)
        .chain(content::CONTENT)
        .chain(tool_output::TOOL_OUTPUT)
        .chain(documents::DOCUMENTS)
        .copied()
        .collect()
});

/// Key names that must not carry data (JSON), matched on the lowercased key.
pub const FORBIDDEN_KEYS: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "client_secret",
    "transcript",
    "request_body",
    "response_body",
    "cookie",
    "set-cookie",
    "authorization",
    "credentials",
    "credential",
    "private_key",
    "privatekey",
    "access_token",
    "refresh_token",
    "session_token",
    "id_token",
    "api_key",
    "apikey",
    "accesskey",
    "accesstoken",
    "authtoken",
    "sessiontoken",
    "token",
    "raw",
    "raw_body",
    "raw_content",
    "raw_log",
    "raw_logs",
    "raw_message",
    "raw_transcript",
    "private_path",
];
