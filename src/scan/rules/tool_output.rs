//! Raw tool output shown as tables and runs of lines a tool prints (issue 16, third round):
//! kubectl and docker tables with their header row, web server access logs, and pytest's
//! failure and summary lines. Blocked under both policies, as the other raw tool output rows.

use super::{B, Check, Rule};

/// The tool-output rows of [`super::RULES`], in table order (after [`super::content`]'s).
pub(super) const TOOL_OUTPUT: &[Rule] = &[
    Rule {
        id: "tool_table",
        category: "raw_tool_output",
        public: B,
        local: B,
        // The header row of a table only a tool prints (kubectl get / describe, docker ps,
        // docker images, ps aux, top, coverage.py), with a row under it: one pasted table is
        // raw output. Gated by line start (`Gate::SectionHead`).
        literals: &["name ", "container id ", "repository ", "type ", "user ", "pid "],
        pattern: r"(?m)^[ \t]*(?:NAME {2,}(?:READY {2,}STATUS|TYPE {2,}CLUSTER-IP|STATUS {2,}ROLES|DESIRED {2,}CURRENT|CLASS {2,}HOSTS|COMPLETIONS {2,}DURATION)|CONTAINER ID {2,}IMAGE {2,}COMMAND|REPOSITORY {2,}TAG {2,}IMAGE ID|Type {2,}Reason {2,}Age {2,}From {2,}Message|USER {2,}PID +%CPU +%MEM|PID +USER +PR +NI|Name {2,}Stmts {2,}Miss {2,}(?:Branch {2,}BrPart {2,})?Cover)[^\n]*\n[ \t]*\S",
        check: Check::Always,
        what: "a tool's table with its header row (`kubectl get pods`, `kubectl describe` events, `docker ps`, `docker images`, `ps aux`, `top`, coverage.py)",
        hit: "NAME                 READY   STATUS    RESTARTS   AGE\napi-7d9f8c6b5-4xkqz  1/1     Running   0          12m",
        miss: "run kubectl get pods and check the READY and STATUS columns",
    },
    Rule {
        id: "sql_result_table",
        category: "raw_tool_output",
        public: B,
        local: B,
        // What a database shell prints around a result: psql's header rule (`----+------`, from
        // the line's first column: a table drawn in indented documentation is not one)
        // and row count (`(4 rows)`), MySQL's borders (`+----+-----+`) and `4 rows in set`,
        // and a prompt with a query (`orders=> select …`): two in one text.
        literals: &["-+-", "+--", "rows)", "row)", "row in set", "rows in set", "=> ", "=# "],
        pattern: r"(?im)^[A-Za-z_][A-Za-z0-9_-]*=[>#][ \t]*(?:select|insert|update|delete|with|explain|table|show|\\[a-z])|^-{2,}(?:\+-{2,})+[ \t]*$|^\+-{2,}(?:\+-{2,})*\+[ \t]*$|^\(\d+ rows?\)[ \t]*$|^\d+ rows? in set\b",
        check: Check::AtLeastTwo,
        what: "a database shell's result (psql's `----+----` rule and `(N rows)`, MySQL's `+----+` borders, a `db=> select …` prompt), two of its lines",
        hit: "orders=> select id, total from orders limit 1;\n  id   | total\n-------+--------\n 88213 | 129.00\n(1 row)",
        miss: "psql prints (N rows) after a result",
    },
    Rule {
        id: "build_output_lines",
        category: "raw_tool_output",
        public: B,
        local: B,
        // Lines package managers, bundlers, test reports and monitors print: pip (`Collecting`,
        // `Successfully installed`, its progress bar), docker pull, webpack, vite, JUnit XML,
        // top's summary, git log's commit and date lines. Two in one text. Gated by line start.
        literals: &[
            "collecting ",
            "downloading ",
            "installing collected",
            "successfully installed",
            "requirement already",
            "\u{2501}",
            "using default tag",
            "digest: sha256:",
            "status: downloaded",
            "asset ",
            "orphan modules",
            "runtime modules",
            "cacheable modules",
            "warning in ",
            "error in ",
            "webpack ",
            "vite v",
            "\u{2713} ",
            "dist/",
            "<testsuite",
            "<testcase",
            "top - ",
            "tasks: ",
            "%cpu(s):",
            "mib ",
            "kib ",
            "commit ",
            "date: ",
        ],
        pattern: r"(?m)^[ \t]*(?:Collecting \S+|Downloading \S+ \(\d|Installing collected packages:|Successfully installed [^\s-]+-\d|Requirement already satisfied: \S|\x{2501}{5,}|Using default tag: |Digest: sha256:[0-9a-f]{16}|Status: Downloaded |asset \S+ \d+(?:\.\d+)? (?:bytes|KiB|MiB) \[|(?:orphan|runtime|cacheable) modules \d|(?:WARNING|ERROR) in \S|webpack \d+\.\d+\.\d+ compiled|vite v\d+\.\d+\.\d+ building|\x{2713} (?:\d+ modules transformed|built in \d)|dist/\S+ +\d+(?:\.\d+)? kB|<testsuite [^\n>]*\btests=|<testcase [^\n>]*\bclassname=|top - \d{2}:\d{2}:\d{2} up |Tasks: +\d+ total|%Cpu\(s\): |[MK]iB (?:Mem|Swap) *: |commit [0-9a-f]{40}[ \t]*$|Date: {3}[A-Z][a-z]{2} [A-Z][a-z]{2} )",
        check: Check::AtLeastTwo,
        what: "lines package managers, bundlers, test reports, monitors and git print (pip, docker pull, webpack, vite, JUnit XML, top, git log), two or more",
        hit: "Collecting torch==2.2.1\nSuccessfully installed torch-2.2.1",
        miss: "pip said Successfully installed torch",
    },
    Rule {
        id: "access_log",
        category: "raw_tool_output",
        public: B,
        local: B,
        // Common and combined log format lines (nginx, Apache): two in one text.
        literals: &["http/"],
        pattern: r#"(?m)^\S+ \S+ \S+ \[\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}\] "(?:GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS|CONNECT) \S+ HTTP/[0-9.]+" \d{3} "#,
        check: Check::AtLeastTwo,
        what: "web server access log lines (common or combined log format), two or more",
        hit: "203.0.113.7 - - [21/Mar/2024:14:02:11 +0000] \"GET / HTTP/1.1\" 200 512 \"-\" \"curl/8\"\n203.0.113.7 - - [21/Mar/2024:14:02:12 +0000] \"GET /a HTTP/1.1\" 404 0 \"-\" \"curl/8\"",
        miss: "the access log showed GET / HTTP/1.1 returning 200",
    },
    Rule {
        id: "pytest_lines",
        category: "raw_tool_output",
        public: B,
        local: B,
        // pytest's own lines: `FAILED path.py::test - …`, `E   assert …` and the closing
        // `=== 1 failed, 63 passed in 3.88s ===`; two in one text. Gated by line start.
        literals: &["failed ", "e   ", "="],
        pattern: r"(?m)^(?:FAILED [\w/.-]+\.py::\S+|E {3,}\S|=+ (?:\d+ (?:failed|passed|skipped|errors?|warnings?|deselected|xfailed|xpassed)(?:, )?)+ in \d+(?:\.\d+)?s(?: \([^)\n]*\))? =+[ \t]*$)",
        check: Check::AtLeastTwo,
        what: "pytest's failure and summary lines (`FAILED a.py::test`, `E   assert …`, `=== 1 failed in 0.2s ===`), two or more",
        hit: "E       assert 187.49 == 187.5\n=========== 1 failed, 63 passed in 3.88s ===========",
        miss: "pytest said 1 failed, 63 passed",
    },
];
