//! The rule table of the boundary scan: one row per rule with its category, severity under
//! each policy, gate literals, pattern (byte mode, ASCII classes), a validator, and an
//! example hit and miss. `writegate scan --rules` prints it; `docs/scan-rules.md` is that
//! output (a test keeps them equal). Superset of LoopX's `loopx check --scan-path`
//! `LEAK_PATTERNS`, its `public_safe_outbound` rules and its payload validators (FORMATS.md §6).

/// How a match is judged after the pattern hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Any match is a finding.
    Always,
    /// The captured value must look random (entropy, character classes) and not be a
    /// reference, placeholder or one of our ids.
    Random,
    /// The captured value must not be a reference or placeholder.
    NotPlaceholder,
    /// At least two matches in the text (multi-line evidence: turns, log lines).
    AtLeastTwo,
    /// At least three matches in the text.
    AtLeastThree,
}

/// Lines after the candidate line that a multi-line rule's match may reach (its pattern
/// bounds them), so the regex window holds the whole match.
#[must_use]
pub fn extra_lines(rule: &Rule) -> usize {
    match rule.id {
        // prompt, up to two blank lines, output, up to two blank lines, output
        "shell_session" => 6,
        // `error[E…]: …` then ` --> file:line:col`
        "compiler_error" => 1,
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
    /// A `.` follows `10`, `172` or `192` and precedes a digit, or precedes an internal
    /// top-level name.
    Dot,
    /// An `A` or `S` starts a fixed upper-case key prefix at a word start (`AKIA`…, `AIza`,
    /// `AKLT`, `SK`, `SG.`).
    Upper,
    /// The line's first bytes have the shape the pattern anchors at `^` (turns, log lines,
    /// stack frames, prompts).
    LineHead,
}

/// The gate of each rule.
#[must_use]
pub fn gate(rule: &Rule) -> Gate {
    match rule.id {
        "home_path" | "windows_home_path" | "wsl_home_path" | "tilde_path" | "system_path" => Gate::Slash,
        "email" | "url_password" => Gate::At,
        "private_ip" | "internal_host" => Gate::Dot,
        "aws_access_key_id" | "google_api_key" | "aklt_access_key" | "twilio_key" | "sendgrid_key" => Gate::Upper,
        "transcript_turns" | "session_log" | "timestamped_log" | "stack_trace" | "shell_session" => Gate::LineHead,
        _ => Gate::Literals,
    }
}

/// What must follow a literal for its rule to be able to match there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// Anything.
    Any,
    /// An optional quote, blanks (`\s` without a line break), then one of these bytes: the
    /// `keyword["']?\s*[:=|]` shape of assignments.
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
    )
}

/// One rule.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// Stable id.
    pub id: &'static str,
    /// `credentials`, `local_paths`, `transcripts`, `raw_tool_output`, `network`, `structure`.
    pub category: &'static str,
    /// Severity for the `public` policy (`block`, `warn`, `info`).
    pub public: &'static str,
    /// Severity for the `local` policy.
    pub local: &'static str,
    /// Literals of a [`Gate::Literals`] rule (ASCII, matched case-insensitively): one of
    /// them occurs wherever the pattern matches. Empty for the other gates.
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

/// Every text rule (structure rules work on JSON keys and live in `scan::json`).
pub const RULES: &[Rule] = &[
    Rule {
        id: "aws_access_key_id",
        category: "credentials",
        public: B,
        local: B,
        literals: &[],
        pattern: r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b",
        check: Check::Always,
        what: "AWS access key id",
        hit: "AKIAQ3EXAMPLEKEY7Z2X",
        miss: "AKIA (the prefix alone)",
    },
    Rule {
        id: "aws_secret_key",
        category: "credentials",
        public: B,
        local: B,
        literals: &["secret"],
        pattern: r#"(?i)(?:aws[_-]?secret[_-]?(?:access[_-]?)?key|secret_?access_?key)["']?\s*[:=|]\s*["']?([A-Za-z0-9/+=]{40})"#,
        check: Check::Random,
        what: "AWS secret access key assignment",
        hit: "aws_secret_access_key = 9xQe7Lk2Vb8Nw3Rt6Yh1Uj4Ik5Ol0Pz9Ma8Sn7Db",
        miss: "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}",
    },
    Rule {
        id: "github_token",
        category: "credentials",
        public: B,
        local: B,
        literals: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        pattern: r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b",
        check: Check::Always,
        what: "GitHub token",
        hit: "ghp_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2gU8",
        miss: "ghp_ (prefix in docs)",
    },
    Rule {
        id: "github_pat",
        category: "credentials",
        public: B,
        local: B,
        literals: &["github_pat_"],
        pattern: r"\bgithub_pat_[A-Za-z0-9_]{50,255}",
        check: Check::Always,
        what: "GitHub fine-grained token",
        hit: "github_pat_11ABCDEFG0a1b2c3d4e5f6_g7h8i9j0k1l2m3n4o5p6q7r8s9t0u1v2w3x4y5z6A7B8C9D",
        miss: "github_pat_ tokens expire",
    },
    Rule {
        id: "gitlab_token",
        category: "credentials",
        public: B,
        local: B,
        literals: &["glpat-"],
        pattern: r"\bglpat-[A-Za-z0-9_-]{20,}",
        check: Check::Always,
        what: "GitLab personal token",
        hit: "glpat-x9Yk2Lm4Nq7Rs1Tv3Wz5",
        miss: "glpat- prefix",
    },
    Rule {
        id: "slack_token",
        category: "credentials",
        public: B,
        local: B,
        literals: &["xox", "xapp-"],
        pattern: r"\b(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})",
        check: Check::Always,
        what: "Slack token",
        hit: "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp",
        miss: "xoxb- tokens are bot tokens",
    },
    Rule {
        id: "stripe_key",
        category: "credentials",
        public: B,
        local: B,
        literals: &["sk_live_", "rk_live_", "sk_test_", "rk_test_"],
        pattern: r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}",
        check: Check::Always,
        what: "Stripe secret / restricted key",
        hit: "sk_live_51Hx9Yk2Lm4Nq7Rs1Tv3Wz5",
        miss: "sk_live_ keys",
    },
    Rule {
        id: "anthropic_key",
        category: "credentials",
        public: B,
        local: B,
        literals: &["sk-ant-"],
        pattern: r"\bsk-ant-[A-Za-z0-9_-]{20,}",
        check: Check::Always,
        what: "Anthropic API key",
        hit: "sk-ant-api03-Xq8vR2mN5tK9wL3pZ7yB4cD6",
        miss: "sk-ant- prefix",
    },
    Rule {
        id: "openai_key",
        category: "credentials",
        public: B,
        local: B,
        literals: &["sk-"],
        pattern: r"\bsk-(?:proj-|svcacct-|admin-)?([A-Za-z0-9_-]{20,})",
        check: Check::Random,
        what: "OpenAI-style sk- key",
        hit: "sk-proj-Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2",
        miss: "sk-learn-compatible-estimators",
    },
    Rule {
        id: "google_api_key",
        category: "credentials",
        public: B,
        local: B,
        literals: &[],
        pattern: r"\bAIza[0-9A-Za-z_-]{35}",
        check: Check::Always,
        what: "Google API key",
        hit: "AIzaSyD4x9Yk2Lm4Nq7Rs1Tv3Wz5Ab6Cd7Ef8Gh",
        miss: "AIza prefix",
    },
    Rule {
        id: "npm_token",
        category: "credentials",
        public: B,
        local: B,
        literals: &["npm_"],
        pattern: r"\bnpm_[A-Za-z0-9]{36}\b",
        check: Check::Always,
        what: "npm access token",
        hit: "npm_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2gU8",
        miss: "npm_config_cache",
    },
    Rule {
        id: "pypi_token",
        category: "credentials",
        public: B,
        local: B,
        literals: &["pypi-"],
        pattern: r"\bpypi-[A-Za-z0-9_-]{50,}",
        check: Check::Always,
        what: "PyPI upload token",
        hit: "pypi-AgEIcHlwaS5vcmcCJDEyMzQ1Njc4LTkwYWItY2RlZi0xMjM0LTU2Nzg5MGFiY2RlZg",
        miss: "pypi-server",
    },
    Rule {
        id: "huggingface_token",
        category: "credentials",
        public: B,
        local: B,
        literals: &["hf_"],
        pattern: r"\bhf_[A-Za-z0-9]{30,}",
        check: Check::Random,
        what: "Hugging Face token",
        hit: "hf_Xq8vR2mN5tK9wL3pZ7yB4cD6fH1jA0sE2",
        miss: "hf_hub_download",
    },
    Rule {
        id: "twilio_key",
        category: "credentials",
        public: B,
        local: B,
        literals: &[],
        pattern: r"\bSK[0-9a-f]{32}\b",
        check: Check::Always,
        what: "Twilio API key sid",
        hit: "SK0123456789abcdef0123456789abcdef",
        miss: "SKU-1234",
    },
    Rule {
        id: "sendgrid_key",
        category: "credentials",
        public: B,
        local: B,
        literals: &[],
        pattern: r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
        check: Check::Always,
        what: "SendGrid API key",
        hit: "SG.Xq8vR2mN5tK9wL3pZ7yB.4cD6fH1jA0sE2gU8kLmNoP",
        miss: "SG.example",
    },
    Rule {
        id: "digitalocean_token",
        category: "credentials",
        public: B,
        local: B,
        literals: &["dop_v1_", "doo_v1_", "dor_v1_"],
        pattern: r"\bdo[opr]_v1_[a-f0-9]{64}",
        check: Check::Always,
        what: "DigitalOcean token",
        hit: "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        miss: "dop_v1_ prefix",
    },
    Rule {
        id: "shopify_token",
        category: "credentials",
        public: B,
        local: B,
        literals: &["shpat_", "shpss_", "shpca_", "shppa_"],
        pattern: r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b",
        check: Check::Always,
        what: "Shopify access token",
        hit: "shpat_0123456789abcdef0123456789abcdef",
        miss: "shpat_ prefix",
    },
    Rule {
        id: "azure_account_key",
        category: "credentials",
        public: B,
        local: B,
        literals: &["accountkey="],
        pattern: r"(?i)AccountKey=([A-Za-z0-9+/]{40,}={0,2})",
        check: Check::Always,
        what: "Azure storage account key",
        hit: "AccountKey=e1Knt2Kj3W02cG7se2m15AUwAKyG73S/7frwRwDREMKF7mld8lSdV29A51xsUcV==",
        miss: "AccountKey=<key>",
    },
    Rule {
        id: "ark_api_key",
        category: "credentials",
        public: B,
        local: B,
        literals: &["ark-"],
        pattern: r"\bark-[0-9a-f]{8,}-[0-9a-f-]{20,}",
        check: Check::Always,
        what: "Ark API key (LoopX public_safe_outbound)",
        hit: "ark-1a2b3c4d-5e6f7a8b9c0d1e2f3a4b5c6d",
        miss: "ark-survey",
    },
    Rule {
        id: "aklt_access_key",
        category: "credentials",
        public: B,
        local: B,
        literals: &[],
        pattern: r"\bAKLT[A-Za-z0-9]{10,}\b",
        check: Check::Always,
        what: "AKLT access key (LoopX public_safe_outbound)",
        hit: "AKLTx9Yk2Lm4Nq7Rs",
        miss: "AKLT",
    },
    Rule {
        id: "jwt",
        category: "credentials",
        public: B,
        local: B,
        literals: &["eyJ"],
        pattern: r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        check: Check::Always,
        what: "JSON web token",
        hit: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        miss: "eyJ (base64 of '{\"')",
    },
    Rule {
        id: "private_key_block",
        category: "credentials",
        public: B,
        local: B,
        literals: &["private key"],
        pattern: r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
        check: Check::Always,
        what: "PEM private key block",
        hit: "-----BEGIN OPENSSH PRIVATE KEY-----",
        miss: "-----BEGIN PUBLIC KEY-----",
    },
    Rule {
        id: "authorization_header",
        category: "credentials",
        public: B,
        local: B,
        literals: &["authorization"],
        pattern: r#"(?i)\bauthorization["']?\s*[:=]\s*["']?(?:bearer\s+|basic\s+|token\s+|digest\s+)?([A-Za-z0-9._~+/=-]{8,})"#,
        check: Check::NotPlaceholder,
        what: "Authorization header with a credential",
        hit: "Authorization: Basic dXNlcjpodW50ZXIy",
        miss: "Authorization: Bearer $TOKEN",
    },
    Rule {
        id: "bearer_token",
        category: "credentials",
        public: B,
        local: B,
        literals: &["bearer"],
        pattern: r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)",
        check: Check::NotPlaceholder,
        what: "bearer token",
        hit: "Bearer Xq8vR2mN5tK9wL3pZ7yB4cD6",
        miss: "Bearer tokens expire after an hour",
    },
    Rule {
        id: "url_password",
        category: "credentials",
        public: B,
        local: B,
        literals: &[],
        pattern: r#"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@"'<>]{1,64}:([^/\s@"'<>]{3,128})@[A-Za-z0-9.-]+"#,
        check: Check::NotPlaceholder,
        what: "password in a URL",
        hit: "postgres://app:Xq8vR2mN5tK9@db.example.com/app",
        miss: "postgres://app:${DB_PASSWORD}@db/app",
    },
    Rule {
        id: "cookie_session",
        category: "credentials",
        public: B,
        local: B,
        literals: &[
            "cookie",
            "session",
            "sess",
            "sid",
            "session_id",
            "sessionid",
            "session_token",
            "phpsessid",
            "jsessionid",
        ],
        pattern: r#"(?i)(?:\b(?:set-)?cookie\s*:\s*[A-Za-z0-9_.-]{1,40}=([^;\s"']{8,})|\b(?:session_?id|sessionid|session|sess|sid|phpsessid|jsessionid|session_token)["']?\s*[=:]\s*["']?([A-Za-z0-9%._-]{12,}))"#,
        check: Check::Random,
        what: "cookie or session id value",
        hit: "Cookie: session=9xQe7Lk2Vb8Nw3Rt6Yh1",
        miss: "the session id is rotated on login",
    },
    Rule {
        id: "secret_assignment",
        category: "credentials",
        public: B,
        local: B,
        literals: &["password", "passwd", "pwd", "secret", "token", "key", "credential", "auth"],
        pattern: r#"(?i)\b[a-z0-9_.-]*(?:password|passwd|pwd|secret|token|key|credential|auth)["']?\s*[:=|]\s*["']?([^\s"'<>,;)}\]|]{8,})"#,
        check: Check::Random,
        what: "a secret-named field assigned a random-looking literal",
        hit: "client_secret = \"9xQe7Lk2Vb8Nw3Rt6Yh1Uj4\"",
        miss: "password = os.environ[\"DB_PASSWORD\"]",
    },
    Rule {
        id: "credential_keyword",
        category: "credentials",
        public: I,
        local: I,
        literals: &["token=", "password=", "authorization:", "bearer"],
        pattern: r"(?i)(?:^|[^A-Za-z0-9_])(?:token=|password=|authorization:|bearer\s)",
        check: Check::Always,
        what: "LoopX `loopx check` credential keywords (reported as info; the rules above judge the value)",
        hit: "token=abc",
        miss: "reset_token=args.reset_token",
    },
    Rule {
        id: "home_path",
        category: "local_paths",
        public: B,
        local: W,
        literals: &[],
        pattern: r"(?:^|[^A-Za-z0-9_.~/-])(/(?:home|Users)/[A-Za-z0-9._-]+(?:/[^\s\x22'<>]*)?|/root(?:/[^\s\x22'<>]*)?)(?:$|[^A-Za-z0-9_.-])",
        check: Check::Always,
        what: "a Linux or macOS home directory",
        hit: "/home/alice/ci/run.log",
        miss: "<project-root>/docs/run.log",
    },
    Rule {
        id: "windows_home_path",
        category: "local_paths",
        public: B,
        local: W,
        literals: &[],
        pattern: r#"(?i)\b[A-Z]:(?:\\{1,4}|/)Users(?:\\{1,4}|/)[^\\/\s"'<>]+"#,
        check: Check::Always,
        what: "a Windows home directory (plain or JSON-escaped backslashes)",
        hit: r"C:\Users\alice\Documents",
        miss: r"%USERPROFILE%\Documents",
    },
    Rule {
        id: "wsl_home_path",
        category: "local_paths",
        public: B,
        local: W,
        literals: &[],
        pattern: r"/mnt/[a-z]/Users/[^/\s\x22'<>]+",
        check: Check::Always,
        what: "a Windows home directory through WSL",
        hit: "/mnt/c/Users/alice/src",
        miss: "/mnt/data/shared",
    },
    Rule {
        id: "tilde_path",
        category: "local_paths",
        public: W,
        local: I,
        literals: &[],
        pattern: r#"(?:^|[\s"'=(:,`])~/[A-Za-z0-9._-]+"#,
        check: Check::Always,
        what: "a path in the current user's home",
        hit: "~/.ssh/config",
        miss: "roughly ~5 ms",
    },
    Rule {
        id: "system_path",
        category: "local_paths",
        public: I,
        local: I,
        literals: &[],
        pattern: r#"(?:^|[\s"'=(:,])/(?:Volumes|private|tmp|var|etc|opt|srv|mnt|workspaces?|data00|ext_data)/[^\s"'<>]+"#,
        check: Check::Always,
        what: "an absolute machine path (LoopX payload validator)",
        hit: "/var/log/agent/run.log",
        miss: "docs/var/notes.md",
    },
    Rule {
        id: "transcript_turns",
        category: "transcripts",
        public: B,
        local: B,
        literals: &[],
        pattern: r"(?im)^[ \t>*_#-]*(?:\*\*)?(?:user|assistant|human|system|ai|model)(?:\*\*)?[ \t]*(?::[ \t]*\S|>[ \t]*\S|$)",
        check: Check::AtLeastTwo,
        what: "role-marked conversation turns (two or more)",
        hit: "User: fix it\nAssistant: done",
        miss: "User: one line mentioning a user",
    },
    Rule {
        id: "chat_roles_json",
        category: "transcripts",
        public: B,
        local: B,
        literals: &["\"role\""],
        pattern: r#""role"\s*:\s*"(?:user|assistant|system|tool)""#,
        check: Check::AtLeastTwo,
        what: "message arrays with roles (two or more)",
        hit: r#"[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]"#,
        miss: r#"{"role": "agent"}"#,
    },
    Rule {
        id: "session_log",
        category: "transcripts",
        public: B,
        local: B,
        literals: &[],
        pattern: r"(?im)^\[?\d{1,2}:\d{2}(?::\d{2})?\]?\s+(?:user|assistant|agent|bot|human)\s*[>:]",
        check: Check::AtLeastTwo,
        what: "session log lines (two or more)",
        hit: "[12:01:03] user> deploy\n[12:01:09] assistant> deployed",
        miss: "12:01 meeting with the user",
    },
    Rule {
        id: "python_traceback",
        category: "raw_tool_output",
        public: B,
        local: B,
        literals: &["traceback (most recent call last)"],
        pattern: r"Traceback \(most recent call last\):",
        check: Check::Always,
        what: "Python traceback",
        hit: "Traceback (most recent call last):\n  File \"x.py\", line 3",
        miss: "a traceback was attached to the ticket",
    },
    Rule {
        id: "stack_trace",
        category: "raw_tool_output",
        public: B,
        local: B,
        literals: &[],
        pattern: r"(?m)^[ \t]+at (?:async )?[A-Za-z0-9_$.<>\[\]/]+(?: \[as [^\]]+\])? ?\((?:[^()\n]*:\d+(?::\d+)?|Native Method|Unknown Source|native|<anonymous>)\)",
        check: Check::AtLeastTwo,
        what: "Java / JavaScript stack frames (two or more)",
        hit: "  at com.x.Main.run(Main.java:12)\n  at com.x.Main.main(Main.java:5)",
        miss: "meet at noon (room 12)",
    },
    Rule {
        id: "shell_session",
        category: "raw_tool_output",
        public: B,
        local: B,
        literals: &[],
        pattern: r"(?m)^(?:\$|%|\xE2\x9D\xAF|>>>|PS[^>\n]{0,60}>|[a-z0-9_.-]+@[a-z0-9_.-]+:[^\s$]*\$) +[a-z./][^\n]*\n(?:[ \t]*\n){0,2}[ \t]*[^\s$%#`][^\n]*\n(?:[ \t]*\n){0,2}[ \t]*[^\s$%#`][^\n]*",
        check: Check::Always,
        what: "a shell session: a prompt line followed by output lines",
        hit: "$ cargo test\n   Compiling x v0.1\n    Finished test",
        miss: "$ cargo test\n```",
    },
    Rule {
        id: "timestamped_log",
        category: "raw_tool_output",
        public: B,
        local: B,
        literals: &[],
        pattern: r"(?m)^\[?(?:\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}|\d{2}:\d{2}:\d{2}(?:[.,]\d+|\]\s)|[A-Z][a-z]{2} +\d{1,2} \d{2}:\d{2}:\d{2})",
        check: Check::AtLeastThree,
        what: "a run of timestamped log lines (three or more)",
        hit: "2026-01-01T00:00:01 INFO a\n2026-01-01T00:00:02 INFO b\n2026-01-01T00:00:03 WARN c",
        miss: "updated_at: 2026-01-01T00:00:00+00:00",
    },
    Rule {
        id: "compiler_error",
        category: "raw_tool_output",
        public: B,
        local: B,
        literals: &["error:", "error[", "): error ts"],
        pattern: r"(?m)(?:^error(?:\[E\d{4}\])?: [^\n]+\n[ \t]*--> [^\s:]+:\d+:\d+|^[^\s:]+\.(?:c|cc|cpp|cxx|h|hpp|go|ts|tsx|js|py|rs|java|kt|swift):\d+:\d+: (?:fatal )?error:|\(\d+,\d+\): error TS\d+|^(?:clang|gcc|g\+\+|cc|ld|collect2|rustc|javac|go)(?:\.exe)?: (?:fatal )?error:)",
        check: Check::Always,
        what: "compiler error output (rustc, gcc/clang, go, tsc)",
        hit: "error[E0308]: mismatched types\n --> src/main.rs:4:5",
        miss: "the error handling section",
    },
    Rule {
        id: "private_ip",
        category: "network",
        public: B,
        local: W,
        literals: &[],
        pattern: r"\b(?:10\.\d{1,3}|172\.(?:1[6-9]|2\d|3[01])|192\.168)\.\d{1,3}\.\d{1,3}\b",
        check: Check::Always,
        what: "a private (RFC 1918) IP address",
        hit: "10.1.2.3",
        miss: "8.8.8.8",
    },
    Rule {
        id: "internal_host",
        category: "network",
        public: B,
        local: W,
        literals: &[],
        pattern: r"\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:internal|corp|lan|intranet|local)\b",
        check: Check::Always,
        what: "an internal host name",
        hit: "build01.corp",
        miss: "localhost",
    },
    Rule {
        id: "private_doc_url",
        category: "network",
        public: B,
        local: W,
        literals: &["larkoffice", "docs.internal"],
        pattern: r"(?i)(?:larkoffice|docs\.internal)",
        check: Check::Always,
        what: "private document hosts (LoopX `private_doc_url`)",
        hit: "https://x.larkoffice.com/docx/abc",
        miss: "https://docs.rs/regex",
    },
    Rule {
        id: "internal_task_id",
        category: "network",
        public: B,
        local: W,
        literals: &["t-20"],
        pattern: r"\bt-20\d{12}-[a-z0-9]+\b",
        check: Check::Always,
        what: "internal task id (LoopX `internal_task_id`)",
        hit: "t-20260101123456-ab12",
        miss: "t-2026 roadmap",
    },
    Rule {
        id: "email",
        category: "network",
        public: W,
        local: W,
        literals: &[],
        pattern: r"(?:^|[^A-Za-z0-9._%+:/-])([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})\b",
        check: Check::NotPlaceholder,
        what: "an e-mail address (not the login part of a URL)",
        hit: "alice@acme.io",
        miss: "user@example.com",
    },
];

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
