//! Transcript rules: role turns in every shape (plain, JSON, ChatML, Llama and Gemma tokens,
//! CJK role markers, named speakers, chat exports and session logs).

use super::{B, Check, Rule};

/// The role tokens `chatml_turns` reads (ChatML, Phi, Command R, DeepSeek), written once for
/// the pattern's two uses (after any character but a backtick, or after one when no backtick
/// closes the token).
macro_rules! chatml_tokens {
    () => {
        r"<\|im_start\|>[ \t]*(?:system|user|assistant|tool|function)\b|<\|(?:system|user|assistant)\|>|<\|(?:USER|CHATBOT|SYSTEM)_TOKEN\|>|<｜(?:User|Assistant)｜>"
    };
}

/// The transcript rows of [`super::RULES`], in table order (after [`super::paths`]'s).
pub(super) const TRANSCRIPTS: &[Rule] = &[
    Rule {
        id: "transcript_turns",
        category: "transcripts",
        public: B,
        local: B,
        literals: &[],
        // A role followed by `:` or `>` and text, a role in brackets before text (an agent's
        // `[assistant] …` / `[tool_call] …` log), or a role alone on a heading or bold line
        // (`### User`, `**Assistant**`, a chat app's Markdown export: `**You:**` /
        // `**ChatGPT:**`, also before the turn's text), a chat app's copied turn heads
        // (`You said:` / `ChatGPT said:`),
        // or a role in a Markdown table's row (`| 2 | Assistant | … |`), or a dump's role field
        // alone on its line with the turn's text in the next line or the one after (YAML `-
        // role: user` over `content: |`, TOML `speaker = "assistant"` … `text = "…"`: a
        // config's users with a role are no turns): a bare role word on its own line is a
        // list of names.
        pattern: r"(?im)^(?:[ \t>*_#-]*(?:\*\*)?(?:user|assistant|human|system|ai|model)(?:\*\*)?[ \t]*(?::[ \t]*\S|>[ \t]*\S)|[ \t>*_#-]*\[(?:user|assistant|human|system|ai|tool|tool_call|tool_result)\][ \t]*\S|[ \t>]*(?:\#{1,6}[ \t]*|\*\*|__)(?:user|assistant|human|system|ai|model|you|chatgpt|claude|gemini|copilot)[ \t]*:?(?:\*\*|__)?[ \t]*:?[ \t]*$|[ \t>*_#-]*(?:you|chatgpt|claude|gemini|copilot) said:[ \t]*$|[ \t>]*\*\*(?:you|chatgpt|claude|gemini|copilot):\*\*[ \t]*\S|\|[ \t]*(?:\d{1,4}[ \t]*\|[ \t]*)?(?:\*\*)?(?:user|assistant|human|ai|model)(?:\*\*)?[ \t]*\|[ \t]*\S|[ \t>*_#-]*(?:role|speaker)[ \t]*[:=][ \t]*[\x22']?(?:user|assistant|human|ai|model|bot)[\x22']?[ \t]*\n(?:[^\n]*\n)?[ \t-]*(?:content|text|message|parts|value)[ \t]*[:=])",
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
        pattern: r#""role"\s*:\s*"(?:user|assistant|system|tool)"\s*,\s*"content"\s*:\s*"|"content"\s*:\s*"(?:[^"\\\n]|\\.)*"\s*,\s*"role"\s*:\s*"(?:user|assistant|system|tool)""#,
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
        id: "chatml_turns",
        category: "transcripts",
        public: B,
        local: B,
        literals: &[
            "<|im_start|>",
            "<|user|>",
            "<|assistant|>",
            "<|system|>",
            "<|user_token|>",
            "<|chatbot_token|>",
            "<|system_token|>",
            "<｜user｜>",
            "<｜assistant｜>",
        ],
        // A token wrapped in a code span (a backtick on either side) is named, not used
        // (docs about the format).
        pattern: concat!(r"(?:^|[^\x60])(?:", chatml_tokens!(), r")|\x60(?:", chatml_tokens!(), r")(?:[^\x60]|$)"),
        check: Check::AtLeastTwo,
        what: "ChatML turns (`<|im_start|>user`), Phi-style role tokens (`<|user|>`), Command R's (`<|USER_TOKEN|>`) or DeepSeek's (`<｜User｜>`), two or more",
        hit: "<|im_start|>user\nfix it<|im_end|>\n<|im_start|>assistant\ndone<|im_end|>",
        miss: "ChatML wraps each turn in `<|im_start|>` and `<|im_end|>`",
    },
    Rule {
        id: "llama_turns",
        category: "transcripts",
        public: B,
        local: B,
        literals: &[
            "<|start_header_id|>",
            "[/inst]",
            "<start_of_turn>",
            "[tool_calls]",
            "[/tool_results]",
            "[/available_tools]",
        ],
        pattern: r"<\|start_header_id\|>[ \t]*(?:system|user|assistant|ipython|tool)[ \t]*<\|end_header_id\|>|\[/INST\]|<start_of_turn>[ \t]*(?:user|model|system)\b|\[TOOL_CALLS\][ \t]*\[\{|\}\][ \t]*\[/AVAILABLE_TOOLS\]|\}[ \t]*\[/TOOL_RESULTS\]",
        check: Check::AtLeastTwo,
        what: "Llama, Mistral or Gemma chat turns (`<|start_header_id|>user<|end_header_id|>`, `[/INST]`, Mistral's `[TOOL_CALLS]` and `[/TOOL_RESULTS]` beside their JSON, `<start_of_turn>user`; two or more)",
        hit: "[INST] hi [/INST] hello [INST] deploy? [/INST] done",
        miss: "prompts are wrapped as [INST] … [/INST]",
    },
    Rule {
        id: "cjk_turns",
        category: "transcripts",
        public: B,
        local: B,
        literals: &["用户", "助手", "使用者", "用戶", "助理", "ユーザー", "アシスタント", "사용자", "어시스턴트"],
        pattern: r"(?m)^[ \t>*_#-]*(?:\*\*)?(?:用户|助手|使用者|用戶|助理|ユーザー|アシスタント|사용자|어시스턴트)(?:\*\*)?[ \t]*(?::|：)[ \t]*\S",
        check: Check::AtLeastTwo,
        what: "role-marked turns in Chinese, Japanese or Korean (two or more)",
        hit: "用户：帮我修一下\n助手：已经修好了",
        miss: "用户：只有一行",
    },
    Rule {
        id: "translated_turns",
        category: "transcripts",
        public: B,
        local: B,
        // The role words of chat transcripts in other languages, at a line's start before `:`
        // (as `transcript_turns` reads English ones). Gated by line start.
        literals: &[
            "пользователь",
            "Пользователь",
            "ассистент",
            "Ассистент",
            "користувач",
            "Користувач",
            "асистент",
            "Асистент",
            "usuario",
            "asistente",
            "utilisateur",
            "benutzer",
            "nutzer",
            "assistent",
            "usuário",
            "assistente",
            "utente",
            "użytkownik",
            "asystent",
            "kullanıcı",
            "asistan",
            "gebruiker",
            "användare",
            "käyttäjä",
            "avustaja",
            "người dùng",
            "trợ lý",
            "pengguna",
            "asisten",
            "المستخدم",
            "المساعد",
            "کاربر",
            "دستیار",
            "उपयोगकर्ता",
            "सहायक",
            "ผู้ใช้",
            "ผู้ช่วย",
            "משתמש",
            "עוזר",
            "Χρήστης",
            "χρήστης",
            "Βοηθός",
            "βοηθός",
        ],
        pattern: r"(?m)^[ \t>*_#-]*(?:\*\*)?(?:(?i:usuario|asistente|utilisateur|benutzer|nutzer|assistent|assistente|utente|asystent|asistan|gebruiker|pengguna|asisten)|(?-i:Пользователь|пользователь|Ассистент|ассистент|Користувач|користувач|Асистент|асистент|Usuário|usuário|Użytkownik|użytkownik|Kullanıcı|kullanıcı|Användare|användare|Käyttäjä|käyttäjä|Avustaja|avustaja|Người dùng|người dùng|Trợ lý|trợ lý|المستخدم|المساعد|کاربر|دستیار|उपयोगकर्ता|सहायक|ผู้ใช้|ผู้ช่วย|משתמש|עוזר|Χρήστης|χρήστης|Βοηθός|βοηθός))(?:\*\*)?[ \t]*(?::|：)[ \t]*\S",
        check: Check::AtLeastTwo,
        what: "role-marked turns in other languages (`Пользователь:` / `Ассистент:`, `Usuario:` / `Asistente:`, `Benutzer:` / `Assistent:`; two or more)",
        hit: "Пользователь: как сбросить пароль?\nАссистент: откройте портал самообслуживания.",
        miss: "Benutzer: admin (nur eine Zeile)",
    },
    Rule {
        id: "inline_turns",
        category: "transcripts",
        public: B,
        local: B,
        // Vicuna's one-line shape: `USER: … ASSISTANT: …` in capitals; two exchanges, so
        // a sentence naming the two markers is not a transcript. Turns apart by a written
        // `\n` (a transcript kept in a string literal) are on one line too.
        // The same in Spanish, Italian, Portuguese, German, Dutch, Polish and Russian role
        // words (`Usuario: … Asistente: …`, in capitals too), and French with its blank
        // before the colon (`Utilisateur : … Assistant : …`); the literals are the
        // assistant's word without its first letter, so one covers the capital and the lower
        // case. LangChain's buffer memory writes `Human: … AI: …`.
        literals: &["assistant: ", "assistant : ", "sistente: ", "sistent: ", "systent: ", "ссистент: ", "ai: "],
        pattern: r"(?-i)(?:(?:\b|\\n)(?:USER|[Uu]ser|[Hh]uman|HUMAN|[Uu]suario|USUARIO|[Uu]suário|USUÁRIO|[Uu]tente|UTENTE|[Uu]tilisateur|UTILISATEUR|[Bb]enutzer|BENUTZER|[Nn]utzer|NUTZER|[Gg]ebruiker|[Uu]żytkownik)|(?:^|[ \t\x22'(]|\\n)(?:Пользователь|пользователь)) ?: \S[^\n]{0,2000}?(?: |\\n)(?:ASSISTANT|[Aa]ssistant|AI|ai|[Aa]sistente|ASISTENTE|[Aa]ssistente|ASSISTENTE|[Aa]ssistent|ASSISTENT|[Aa]systent|Ассистент|ассистент) ?: \S",
        check: Check::AtLeastTwo,
        what: "Vicuna-style turns on one line (`USER: … ASSISTANT: …`, or `user: … assistant: …` flattened into one string, also in other languages' role words: `Usuario: … Asistente: …`; two or more exchanges)",
        hit: "A chat. USER: hi ASSISTANT: hello USER: deploy? ASSISTANT: done",
        miss: "the template marks turns with USER: and ASSISTANT: in capitals",
    },
    Rule {
        id: "instruction_turns",
        category: "transcripts",
        public: B,
        local: B,
        // Alpaca-style exchanges: `### Response:` twice (two answers); a template shows its
        // `### Instruction:` / `### Response:` pair once. Gated by line start.
        literals: &["response"],
        pattern: r"(?m)^[ \t]*\#{2,4}[ \t]*Response[ \t]*:",
        check: Check::AtLeastTwo,
        what: "Alpaca-style instruction exchanges (`### Response:` two or more times)",
        hit: "### Instruction:\nsum 2+2\n### Response:\n4\n### Instruction:\nand 3+3\n### Response:\n6",
        miss: "### Instruction:\n{instruction}\n\n### Response:",
    },
    Rule {
        id: "message_repr",
        category: "transcripts",
        public: B,
        local: B,
        // LangChain's printed messages: `HumanMessage(content='…')`, `AIMessage(content=…)`;
        // LlamaIndex's `ChatMessage(role=<MessageRole.USER: 'user'>, …)`.
        literals: &["message(content=", "chatmessage(role="],
        pattern: r"\b(?:Human|AI|System|Tool|Function|Chat)Message\(content=|\bChatMessage\(role=",
        check: Check::AtLeastTwo,
        what: "printed chat message objects (`HumanMessage(content='…')`, `AIMessage(content=…)`, `ChatMessage(role=…)`; two or more)",
        hit: "[HumanMessage(content='hi'), AIMessage(content='hello')]",
        miss: "wrap the text in HumanMessage(content=...) before calling the model",
    },
    Rule {
        id: "chat_log",
        category: "transcripts",
        public: B,
        local: B,
        literals: &[],
        // `[10:42] alice: …`, IRC's `[12:01] <alice> …`, Teams' `[10:42 AM] Okafor, Sam`,
        // Matrix's `10:14  @ana:matrix.org  …`, LINE's tab-separated `10:12\t田中\t…`.
        pattern: r"(?m)^\[?\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]?[AaPp][Mm])?\]?[ \t]+(?:<[ @+%~&]?[A-Za-z][A-Za-z0-9._|-]{0,30}>[ \t]+\S|<?@?[A-Za-z][A-Za-z0-9._-]{1,30}(?: [A-Z][A-Za-z0-9._-]{1,30})?>?(?:[ \t]+\([^)\n]{1,30}\))?:[ \t]+\S|[A-Z][A-Za-z'-]+, [A-Z][A-Za-z'-]+[ \t]*$|From [^\n:]{1,60} to [^\n]{1,80}:[ \t]*$|@[a-z0-9._=/-]+:[A-Za-z0-9.-]+\.[A-Za-z]{2,}[ \t]+\S|[^\t\n]{1,30}\t[^\t\n]*\S)",
        check: Check::AtLeastThree,
        what: "a named chat log (`[10:42] alice: …`, `[12:01] <alice> …`, three or more lines)",
        hit: "[10:42] alice: did it ship?\n[10:43] bob: not yet\n[10:44] alice: ok",
        miss: "10:42 alice joined",
    },
    Rule {
        id: "irc_turns",
        category: "transcripts",
        public: B,
        local: B,
        literals: &[],
        // IRC's `<nick> text` without a clock, judged as `named_turns`' speakers are (two
        // nicks, two turns each): HTML elements (`<li> item`) are not nicks
        // ([`super::HTML_ELEMENTS`]), and a line holding a tag after the nick is markup.
        pattern: r"(?m)^<[@+%~&]?[A-Za-z\[\]`^{}|_][A-Za-z0-9\[\]`^{}|_.-]{1,30}(?::[A-Za-z0-9.-]{1,60})?>[ \t]+[^<\s][^<\n]*",
        check: Check::Speakers,
        what: "an IRC log without times (`<alice> …`, two nicks, two turns each)",
        hit: "<alice> did it ship?\n<bob> not yet\n<alice> ok, ping me\n<bob> will do",
        miss: "<li> first item\n<li> second item\n<p> a paragraph\n<p> another one",
    },
    Rule {
        id: "dated_chat_log",
        category: "transcripts",
        public: B,
        local: B,
        literals: &[],
        // A chat export whose lines start with a bracketed ISO date and clock, judged by its
        // speakers as `named_turns` is (the brackets may go, as a Signal backup viewer writes
        // `2024-01-28 08:14  Henrike: …`; a Discord name may carry its tag, `kaito#0412`; a Matrix ID, `@sigrun:matrix.example.org:`, is a
        // speaker too; Pidgin's XMPP log opens its lines with `(11:40:19 AM)`): a dated progress ledger (`[…] Note: …`, `[…] Next:
        // …`) has labels, not speakers, each once.
        pattern: r"(?m)^(?:\[\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(?::\d{2})?\]|\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(?::\d{2})?|\(\d{1,2}:\d{2}(?::\d{2})?(?: ?[AP]M)?\))[ \t]+(?:[A-Za-z][A-Za-z0-9._-]{1,30}(?:#\d{4})?(?: \([^)\n]{1,20}\))?:|@[a-z0-9._=/-]{1,40}:[A-Za-z0-9.-]{1,60}\.[A-Za-z]{2,}:|<[@+%~&]?[A-Za-z][A-Za-z0-9._|-]{0,30}>)[ \t]+\S",
        check: Check::Speakers,
        what: "a chat export with dated lines (`[2025-03-02 21:14] kestrel: …`, two speakers, two turns each)",
        hit: "[2025-03-02 21:14] kestrel: desync again?\n[2025-03-02 21:15] mossbyte: yes, every 10 min\n[2025-03-02 21:15] kestrel: my router then\n[2025-03-02 21:16] mossbyte: no, the patch",
        miss: "[2026-12-04 10:15] Note: finished the parser\n[2026-12-04 11:00] Decision: keep the cache\n[2026-12-04 12:30] Next: write the tests",
    },
    Rule {
        id: "agent_trace",
        category: "transcripts",
        public: B,
        local: B,
        // What agent frameworks print while they run (issue 16, ninth round): LangGraph's
        // `=== Human Message ===` banners, CrewAI's `# Agent:` / `## Using tool:` / `## Tool
        // Output:` headings, LangChain's `> Entering new AgentExecutor chain...`, `Action
        // Input:` and `Final Answer:`; a ReAct trace's `Thought:`, `Action: tool[…]` and an
        // `Observation:` holding JSON or a list. Three in one text (`Observation:` before
        // words is a word of audit reports, so not counted). Gated by line start.
        literals: &[
            "==",
            "agent: ",
            "using tool: ",
            "tool input:",
            "tool output:",
            "final answer:",
            "action input: ",
            "entering new ",
            "finished chain.",
            "invoking: `",
            "thought: ",
            "action: ",
            "observation: ",
        ],
        pattern: r"(?m)^[ \t>#*_-]*(?:={6,} (?:Human|Ai|AI|System|Tool) Message ={6,}|Agent: \S|Using tool: \S|Tool Input:|Tool Output:|Final Answer:|Action Input: \S|Entering new [A-Za-z]+ chain\.\.\.|Finished chain\.|Invoking: `[^`\n]+` with `|Thought: \S|Action: \w+\[|Observation: [\[{\x22])",
        check: Check::AtLeastThree,
        what: "an agent framework's run trace (LangGraph message banners, CrewAI's agent and tool headings, LangChain's chain, action input and final answer lines, the tools agent's `Invoking:` lines), three or more",
        hit: "> Entering new AgentExecutor chain...\nAction: search\nAction Input: on-call search team\nFinal Answer: Bongani is on call.",
        miss: "The agent prints a Final Answer: line when it is done.",
    },
    Rule {
        id: "autogen_turns",
        category: "transcripts",
        public: B,
        local: B,
        // AutoGen's printed conversation: each message opens with its sender and receiver
        // on a line of their own (`user_proxy (to assistant):`); two in one text (issue 16,
        // ninth round).
        literals: &[" (to "],
        // Two senders at least: a note's `Draft (to legal):` headings, however many, name
        // one.
        pattern: r"(?m)^([A-Za-z_][\w.-]{0,40}) \(to [A-Za-z_][\w.-]{0,40}\):[ \t]*$",
        check: Check::TwoSenders,
        what: "an AutoGen conversation (`user_proxy (to assistant):` lines, two or more, from two senders or more)",
        hit: "user_proxy (to assistant):\n\nPlot the signups.\n\nassistant (to user_proxy):\n\nHere is the code.",
        miss: "Draft (to legal):\n\nPlease review clause 4.\n\nDraft (to legal):\n\nAnd clause 7.",
    },
    Rule {
        id: "autogen_console",
        category: "transcripts",
        public: B,
        local: B,
        // AutoGen AgentChat's console (0.4 and later): each message under a banner of ten
        // dashes around its source (`---------- user ----------`) or its type and source
        // (`---------- TextMessage (assistant) ----------`); two in one text. A mail client's
        // `---------- Forwarded message ----------` names no source, and a run opens with the
        // user's task: one banner must name `user` (`---------- config ----------` and
        // `---------- notes ----------` are a file's sections). Gated by line start.
        literals: &[],
        pattern: r"(?m)^-{10} (?:[A-Za-z_][A-Za-z0-9_]{0,40}|[A-Z][A-Za-z]{2,40} \([\w.-]{1,40}\)) -{10}[ \t]*$",
        check: Check::ConsoleRun,
        what: "an AutoGen console run (`---------- user ----------` banners, two or more)",
        hit: "---------- user ----------\nSummarise the churn report.\n---------- assistant ----------\nChurn rose 4% in March.",
        miss: "---------- Forwarded message ----------\nFrom: press@example.org",
    },
    Rule {
        id: "chat_columns",
        category: "transcripts",
        public: B,
        local: B,
        literals: &[],
        // A support chat exported in columns: a name (one to four capitalised words, Latin
        // letters with accents too), two blanks or a tab, a clock, two blanks or a tab, the
        // message. Judged as `named_turns` is (two speakers, two turns each: a timetable's
        // rows name each stop once). Also a help desk's thread, each message under its
        // author's name and date (`Kwame (Support)  ·  Feb 2, 2024 10:02`). Gated by line
        // start.
        pattern: r"(?m)^(?:((?:[A-Z]|[\xC3-\xC5][\x80-\xBF])(?:[A-Za-z.'-]|[\xC3-\xC5][\x80-\xBF])*(?: (?:[A-Z]|[\xC3-\xC5][\x80-\xBF])(?:[A-Za-z.'-]|[\xC3-\xC5][\x80-\xBF])*){0,3}(?: \([^()\n]{1,30}\))?)(?: {2,}|\t)\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]?[AP]M)?(?: {2,}|\t)\S|((?:[A-Z]|[\xC3-\xC5][\x80-\xBF])[^\n]{0,40}?) +(?:·|•) +(?:[A-Z][a-z]{2} \d{1,2}, \d{4}|\d{1,2} [A-Z][a-z]{2} \d{4}|\d{4}-\d\d-\d\d),? \d{1,2}:\d{2}(?: ?[AP]M)?[ \t]*$)",
        check: Check::Speakers,
        what: "a chat exported in columns (`Agent Rosa  10:02  Hi!`: two speakers, two turns each)",
        hit: "Agent Rosa  10:02  Hi! How can I help?\nCustomer  10:03  my parcel is late\nAgent Rosa  10:04  I opened a trace.\nCustomer  10:06  thanks",
        miss: "Berlin Hbf  10:02  Platform 4\nHamburg Hbf  10:15  Platform 7\nMunich Hbf  10:40  Platform 2",
    },
    Rule {
        id: "named_turns",
        category: "transcripts",
        public: B,
        local: B,
        literals: &[],
        // A speaker (one or two capitalised words, Latin letters with accents too: `Lucía
        // Torres`; in bold too, `**Elif Demir**:`) and a message of two words or more.
        pattern: r"(?m)^(?:\*\*)?([A-Z](?:[a-z]|[\xC3-\xC5][\x80-\xBF])+(?: [A-Z](?:[a-z]|[\xC3-\xC5][\x80-\xBF])+)?)(?:\*\*)?:[ \t]+\S+[ \t]+\S",
        check: Check::Speakers,
        what: "a conversation between named speakers (`Alice Smith: …`, two speakers, two turns each)",
        hit: "Alice Smith: can we cut it?\nBob Chen: only if sales agrees\nAlice Smith: I will ask\nBob Chen: thanks a lot",
        miss: "Status: in review\nOwner: Dana Whitfield\nStatus: merged now\nOwner: Sam Okafor",
    },
    Rule {
        id: "court_turns",
        category: "transcripts",
        public: B,
        local: B,
        // A court reporter's or researcher's transcript: the question and answer marks of a
        // deposition (`Q.` and `A.` with two blanks or a tab after them: an FAQ writes `Q:` or
        // `Q. ` and is no transcript), a courtroom's speakers in capitals (`THE COURT:`, `THE
        // WITNESS:`, `MR. ABERNATHY:`), an interview's `I:` and participant codes (`P07:`,
        // `R3:`; not before a template's `[…]`). Judged as `named_turns` is: two speakers, two
        // turns each, and `Q.` and `A.` alone are no conversation (an FAQ may space its marks
        // so too): a deposition's excerpt names a lawyer or the witness. A transcript's page
        // may number its lines (` 14   Q   And when…`; the period and the colon may go):
        // numbered marks are a transcript's alone. Gated by line start.
        literals: &["q.", "a.", "q  ", "a  ", "q\t", "a\t", "the ", "mr. ", "ms. ", "mrs. ", "i:", "p", "r"],
        pattern: r"(?m)^[ \t]*(?:\d{1,3}(?: {2,}|\t))?(?:[QA]\.?(?: {2,}|\t)\S|(?:THE (?:COURT|WITNESS|CLERK|DEFENDANT|BAILIFF|REPORTER|VIDEOGRAPHER|INTERPRETER)|MRS?\. [A-Z][A-Z'-]+(?: [A-Z][A-Z'-]+)?|MS\. [A-Z][A-Z'-]+(?: [A-Z][A-Z'-]+)?|I|[PR]\d{1,3}):(?: {1,2}|\t)[^\s\[<{]|(?:THE (?:COURT|WITNESS)|MRS?\. [A-Z][A-Z'-]+|MS\. [A-Z][A-Z'-]+)(?: {2,}|\t)[A-Z])",
        check: Check::Speakers,
        what: "a deposition's, courtroom's or interview's transcript (`Q.  …` / `A.  …`, `THE COURT:`, `MR. ABERNATHY:`, `I:` / `P07:`; two speakers, two turns each)",
        hit: "Q.  Who else was present?\nA.  Just Mr. Okonjo.\nMS. LEE:  Objection.\nQ.  Did he say anything?\nA.  No.",
        miss: "Q: How do I reset my password?\nA: Use the portal.\nQ: Can I change my e-mail?\nA: Yes, in settings.",
    },
    Rule {
        id: "chat_export",
        category: "transcripts",
        public: B,
        local: B,
        literals: &[],
        // A lowercase sender (a Slack handle, a bot's with its `APP` badge) only before a
        // 12-hour time: `standup  10:00` lines of a schedule stay out.
        pattern: r"(?m)^(?:[A-Z][A-Za-z.'-]+,?(?: [A-Z][A-Za-z.'-]+){0,3}[ \t]{1,4}\d{1,2}:\d{2}(?:[ \t]?[AP]M)?[ \t]*$|\[\d{1,2}:\d{2}(?: ?[AP]M)?\] [A-Z](?:[A-Za-z.'-]|[\xC3-\xC5][\x80-\xBF])+,?(?: [A-Z](?:[A-Za-z.'-]|[\xC3-\xC5][\x80-\xBF])+){0,3}[ \t]*$|\[[^\]\n]{1,24}\] \[(?:오전|오후|AM|PM) \d{1,2}:\d{2}\] \S|[a-z][a-z0-9._-]{1,30}(?:[ \t]{1,4}APP)?[ \t]{1,4}\d{1,2}:\d{2}[ \t]?[AP]M[ \t]*$|\[\d{1,2}[-/.](?:\d{1,2}|[A-Z][a-z]{2})[-/.]\d{2,4},? \d{1,2}:\d{2}(?::\d{2})?(?: ?[AP]M)?\][ \t]+\S|\[(?:\d{4}-\d{2}-\d{2}|\d{1,2}\.\d{1,2}\.\d{2,4}),? \d{1,2}:\d{2}(?::\d{2})?(?: ?[AP]M)?\][ \t]+[A-Z][A-Za-z.'-]+(?: [A-Z][A-Za-z.'-]+){1,3}: \S|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}(?:,| à| um| alle)? \d{1,2}:\d{2}(?: ?[AP]M)? - [^:\n]{1,40}: \S|(?:[A-Za-z]|[\x80-\xFF])[^\n]{0,30}?[ \t]+\d{4}[-/.]\d{1,2}[-/.]\d{1,2} \d{1,2}:\d{2}:\d{2}[ \t]*$|(?:\*\*)?[A-Za-z0-9_.-]{2,32}(?:\*\*)? (?:—|–|-) (?:(?:Today|Yesterday) at \d{1,2}:\d{2}(?: ?[AP]M)?(?:[ \t]*$|:? \S)|\d{1,2}/\d{1,2}/\d{2,4},? \d{1,2}:\d{2}(?: ?[AP]M)?[ \t]*$)|\*\*[^*\n]{1,40}\*\* \(\d{1,2}:\d{2}(?: ?[AP]M)?\): \S|[^\n\[]{1,40}, \[\d{1,2}\.\d{1,2}\.\d{4},? \d{1,2}:\d{2}(?::\d{2})?\][ \t]*$|\d{4}년 \d{1,2}월 \d{1,2}일 (?:오전|오후) \d{1,2}:\d{2}, [^:\n]{1,30} : \S|[A-Z][^\n]{0,40}? (?:—|–) [A-Z][a-z]{2} \d{1,2}, \d{4},? \d{1,2}:\d{2}(?: ?[AP]M)?[ \t]*$)",
        check: Check::AtLeastThree,
        what: "a copied Slack, Teams or Discord thread: sender-and-time lines (`Jon Bell  10:15 AM`, `Okafor, Chidi  9:41 AM`, `[11/5/2024 3:02 PM] Okafor, Chidi`, `[10:14 AM] Maria Jensen`, `**kaz** — Today at 3:13 PM: text`, Zulip's `**Ines Duarte** (10:31): text`, Telegram's `Name, [02.10.2024 22:41]`, a help desk's `Maya Goldberg — Mar 4, 2025, 09:12`), KakaoTalk's `[name] [오후 2:14] text` and `2024년 5월 12일 오후 9:03, name : text`; three or more",
        hit: "Priya Nair  10:14 AM\nchurn risk\nJon Bell  10:15 AM\nwhy?\nPriya Nair  10:17 AM\nprice",
        miss: "Standup  10:00 AM",
    },
];

/// An FAQ's question and answer labels in other languages than English (`Pregunta:` /
/// `Respuesta:`, `Umbuzo:` / `Impendulo:`, `Tambaya:` / `Amsa:`): public FAQs and published
/// interviews read as two speakers taking turns (issue 16), so they are no speakers
/// ([`super::NOT_SPEAKERS`] holds the English `Question` and `Answer`). Spanish, German,
/// Portuguese, Italian, Dutch, Polish, Czech, Hungarian, Turkish, Indonesian, Javanese,
/// Tagalog, Cebuano, Swahili, Kinyarwanda, Turkmen, Uzbek, Azerbaijani, Malagasy, Haitian,
/// Somali, Frisian, Breton; Zulu and Xhosa, Hausa, Albanian, Romanian, the Western South
/// Slavic languages, Slovenian, Slovak, Lithuanian, Latvian, Estonian, Finnish, Swedish,
/// Danish and Norwegian, Icelandic, French, Basque, Irish, Welsh, Malay, Sotho and Tswana,
/// Shona, Yoruba and Igbo written without tones, Kurdish, Samoan, Esperanto.
#[rustfmt::skip]
pub const FAQ_LABELS: &[&str] = &[
    "Pregunta", "Respuesta", "Frage", "Antwort", "Pergunta", "Resposta", "Domanda", "Risposta",
    "Vraag", "Antwoord", "Pytanie", "Odpowiedź", "Otázka", "Odpověď", "Kérdés", "Válasz", "Soru",
    "Cevap", "Yanıt", "Pertanyaan", "Jawaban", "Jawab", "Pitakon", "Wangsulan", "Tanong", "Sagot",
    "Pangutana", "Tubag", "Swali", "Jibu", "Ikibazo", "Igisubizo", "Sorag", "Jogap", "Savol",
    "Javob", "Sual", "Cavab", "Fanontaniana", "Valiny", "Kesyon", "Repons", "Su'aal", "Jawaab",
    "Vraach", "Antwurd", "Goulenn", "Respont", "Umbuzo", "Impendulo", "Tambaya", "Amsa", "Pyetje",
    "Pyetja", "Përgjigje", "Përgjigja", "Răspuns", "Pitanje", "Odgovor", "Vprašanje", "Odpoveď",
    "Klausimas", "Atsakymas", "Jautājums", "Atbilde", "Küsimus", "Vastus", "Kysymys", "Vastaus",
    "Fråga", "Svar", "Spørgsmål", "Spørsmål", "Spurning", "Réponse", "Galdera", "Erantzuna",
    "Ceist", "Freagra", "Cwestiwn", "Ateb", "Soalan", "Jawapan", "Potso", "Karabo", "Mubvunzo",
    "Mhinduro", "Ibeere", "Idahun", "Ajuju", "Aziza", "Pirs", "Bersiv", "Fesili", "Tali", "Demando",
    "Respondo",
];
