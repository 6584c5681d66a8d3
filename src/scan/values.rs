//! Judging matched values: references and placeholders (allowed), writegate / LoopX ids
//! (allowed), randomness (secrets look random; words do not), and the decoders the scan
//! applies (ASCII percent-escapes, base64 runs).

use std::sync::LazyLock;

static OUR_ID: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(
        r"^(?:sha256:[0-9a-f]{64}|[0-9a-f]{40}|[0-9a-f]{64}|write_[a-z_]+_[0-9a-f]{16}|todo_[a-z0-9_-]{3,64}|[A-Za-z0-9_.-]+:[a-z_]+:[0-9a-f]{64}|local_completion_[0-9a-f]{32}|lease_[A-Za-z0-9_]+|\d{4}-\d{2}-\d{2}T\d{2}[-:]\d{2}[-:]\d{2}(?:[-:+.0-9Z]*)(?:-[a-z][a-z0-9-]*)?|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$",
    )
    .expect("static regex")
});

const PLACEHOLDER_WORDS: &[&str] = &[
    "example",
    "dummy",
    "placeholder",
    "changeme",
    "change_me",
    "redacted",
    "your-",
    "your_",
    "yourkey",
    "xxxx",
    // A masked value (`pypi***Rc9c`, as [`super::mask`] writes it) or a masked run.
    "***",
    "...",
    "<",
    ">",
    "{{",
    "fake",
    "sample",
    "replace",
    "insert",
    "todo",
    "none",
    "null",
    "undefined",
    "secret_here",
    "here",
];

/// Credentials published in providers' documentation as examples, matched exactly (issue 16:
/// "a cloud provider's published documentation example key" blocked). Exact values only: a
/// real key with `EXAMPLE` appended is not one of them.
const DOCUMENTATION_EXAMPLES: &[&str] = &[
    // AWS IAM and CLI documentation: the example access key ids and secret access keys.
    "AKIAIOSFODNN7EXAMPLE",
    "AKIAI44QH8DHBEXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
    // Azurite, the Azure Storage emulator: its published well-known account key.
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    // Stripe's API reference: the test-mode secret key shown in its examples.
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    // The key of Google Authenticator's wiki example (`otpauth://totp/Example:alice@google.com?secret=…`).
    "JBSWY3DPEHPK3PXP",
    // jwt.io's default example token.
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
];

/// Whether `matched` carries HTTP `Basic` credentials whose base64 decodes to a template's
/// words rather than a login: `username:password`, `user:pass`, `<user>:<password>`, or a
/// pair holding a placeholder word ([`is_reference_or_placeholder`]). The decoded pair
/// is what a reader of the docs would see.
#[must_use]
pub fn is_placeholder_basic_auth(matched: &str) -> bool {
    use base64::Engine as _;
    let Some(i) = matched.find("Basic ").or_else(|| matched.find("basic ")) else { return false };
    let b64: String = matched[i + 6..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '='))
        .collect();
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(b64.as_bytes()) else { return false };
    let Ok(pair) = String::from_utf8(bytes) else { return false };
    let Some((user, pass)) = pair.split_once(':') else { return false };
    let template = |w: &str| {
        let w = w.to_ascii_lowercase();
        ["username", "user", "password", "pass", "passwd", "login"].contains(&w.as_str())
    };
    (template(user) && template(pass)) || is_reference_or_placeholder(pass)
}

/// `value` without an HTTP auth scheme before it (`Bearer `, `Basic `, `token `, either case
/// of the first letter): what the scheme carries is the value judged.
fn without_auth_scheme(value: &str) -> &str {
    ["Bearer ", "bearer ", "Basic ", "basic ", "token ", "Token "]
        .iter()
        .find_map(|p| value.strip_prefix(p))
        .unwrap_or(value)
}

/// True for a credential a provider publishes in its documentation as an example
/// ([`DOCUMENTATION_EXAMPLES`]), the value trimmed of blanks and quotes and of an auth
/// scheme before it (`Bearer <example>`).
#[must_use]
pub fn is_documentation_example(value: &str) -> bool {
    let v = value.trim().trim_matches(['"', '\'', '`']);
    DOCUMENTATION_EXAMPLES.contains(&without_auth_scheme(v))
}

/// True for a provider token whose body (what follows its prefix, up to the first `_` or
/// `-`) is filler, not key material: three or fewer distinct letters and digits
/// (`ghp_XXXX…`, `xoxb-0000-…`), words (`xoxb-your-token-here`, [`is_identifier`]), or a
/// run of the alphabet and digits in order (`ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789`,
/// [`is_sequential`]). Random bodies have many distinct characters, digits or case changes
/// inside words, and almost no character followed by its successor.
#[must_use]
pub fn is_filler_token(token: &str) -> bool {
    let Some(cut) = token.find(['_', '-']) else { return false };
    let body = token[cut + 1..].trim_matches(['_', '-']);
    let mut distinct: Vec<u8> =
        body.bytes().filter(u8::is_ascii_alphanumeric).map(|b| b.to_ascii_lowercase()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.len() <= 3 || is_identifier(body) || is_identifier(&body.to_ascii_lowercase()) || is_sequential(body)
}

/// True when, of the letters and digits of `body` (16 or more), at least nine in ten follow
/// their predecessor in the order `A`–`Z`, `0`–`9`, `a`–`z` (`Z`, `z` and `9` running into
/// `A`, `a` or `0`): `ABCDEF…0123…`, `12345678abcdefgh…`. In random key material about one
/// pair in sixty does.
#[must_use]
pub fn is_sequential(body: &str) -> bool {
    let chars: Vec<u8> = body.bytes().filter(u8::is_ascii_alphanumeric).collect();
    let follows = |a: u8, b: u8| {
        (b == a.wrapping_add(1) && b.is_ascii_alphanumeric())
            || (matches!(a, b'Z' | b'z' | b'9') && matches!(b, b'A' | b'a' | b'0'))
    };
    let in_order = chars.windows(2).filter(|w| follows(w[0], w[1])).count();
    chars.len() >= 16 && in_order * 10 >= (chars.len() - 1) * 9
}

/// Passwords that are a database's or tool's well-known default (`postgres://postgres:postgres@…`
/// on a test database): matched exactly, lowercased.
const DEFAULT_PASSWORDS: &[&str] = &["postgres", "password", "pass", "root", "admin", "guest", "test", "mysql", "user"];

/// True for a URL whose password is a well-known default ([`DEFAULT_PASSWORDS`]) on this
/// machine's own host (`localhost`, `127.0.0.1`, `[::1]`, `0.0.0.0`): a local test
/// database's login, not a credential. `url` is a `scheme://user:password@host…` match;
/// the same password for any other host is still a credential.
#[must_use]
pub fn is_local_default_login(url: &str) -> bool {
    let Some((userinfo, host)) = url.split_once("://").and_then(|(_, rest)| rest.rsplit_once('@')) else {
        return false;
    };
    let password = userinfo.split_once(':').map_or("", |(_, p)| p).to_ascii_lowercase();
    DEFAULT_PASSWORDS.contains(&password.as_str())
        && ["localhost", "127.0.0.1", "[::1]", "0.0.0.0"]
            .iter()
            .any(|h| host.strip_prefix(h).is_some_and(|rest| rest.is_empty() || rest.starts_with([':', '/', '?'])))
}

/// Where a secret lives in a secret manager (`vault://…`, `op://…`, an AWS Secrets Manager or
/// SSM parameter ARN): a reference, not the secret.
const SECRET_MANAGER_PREFIXES: &[&str] = &[
    "vault://",
    "vault:",
    "op://",
    "arn:aws:secretsmanager:",
    "arn:aws:ssm:",
    "ssm://",
    "gcpsm://",
    "sm://",
    "azurekv://",
    "keyvault://",
    "ref+",
];

/// True for values that only refer to a secret (`$X`, `${X}`, `%X%`, `os.environ[...]`,
/// `process.env.X`, `getenv(...)`) or are placeholders (`<your-token>`, `example`, …).
/// Mirrors LoopX's reference rule, plus placeholders.
#[must_use]
pub fn is_reference_or_placeholder(value: &str) -> bool {
    let v = value.trim().trim_matches(['"', '\'', '`']);
    // `Bearer ${TOKEN}`, `token $GITHUB_TOKEN`: an auth scheme before a reference.
    let v = without_auth_scheme(v);
    let lower = v.to_ascii_lowercase();
    if v.is_empty() || SECRET_MANAGER_PREFIXES.iter().any(|p| lower.starts_with(p)) {
        return true;
    }
    if v.starts_with('$') || (v.starts_with('%') && v[1..].contains('%')) || v.starts_with('<') || v.starts_with("{{") {
        return true;
    }
    if ["os.environ", "os.getenv", "process.env", "getenv(", "system.getenv", "deno.env", "env::var", "env."]
        .iter()
        .any(|p| lower.starts_with(p))
    {
        return true;
    }
    if PLACEHOLDER_WORDS.iter().any(|w| lower.contains(w)) {
        return true;
    }
    // A template's word for the value in capitals (`postgres://USER:PASSWORD@HOST`,
    // `DB_PASSWORD`): letters and underscores only, naming a credential.
    if v.len() >= 3
        && v.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        && ["PASSWORD", "PASSWD", "PASS", "PWD", "SECRET", "TOKEN", "KEY"].iter().any(|w| v.contains(w))
    {
        return true;
    }
    // A variable reference such as `args.reset_token` or `config.api_key)`.
    v.chars().all(|c| c.is_ascii_lowercase() || c == '_' || c == '.' || c == ')' || c == '(') && v.contains(['.', '('])
}

/// True for environment references (`$X`, `${X}`, `%X%`, `os.environ[…]`, …) and config
/// templates (`<YOUR_API_KEY>`, `your-token-here`, `sk_live_<your-key-here>`,
/// `<set-in-vault>`) — not for redaction marks like `****`, `ghp_XXXX…` or `<redacted>`.
#[must_use]
pub fn is_reference_or_template(value: &str) -> bool {
    let v = value.trim();
    let v = without_auth_scheme(v);
    let lower = v.to_ascii_lowercase();
    SECRET_MANAGER_PREFIXES.iter().any(|p| lower.starts_with(p))
        || v.starts_with('$')
        || (v.starts_with('%') && v[1..].contains('%'))
        || v.starts_with("{{")
        || ["os.environ", "os.getenv", "process.env", "getenv(", "system.getenv", "deno.env", "env::var"]
            .iter()
            .any(|p| lower.starts_with(p))
        || (lower.starts_with("<your") || lower.starts_with("your_") || lower.starts_with("your-"))
        || (v.ends_with('>') && v.contains('<') && !is_redaction_mark(&lower))
}

/// A redaction mark in angle brackets (`<redacted>`, `<removed>`, `<masked>`): the key
/// carried a value that was taken out, which DESIGN.md §5 still counts (a template such as
/// `<set-in-vault>` names what to put there instead).
fn is_redaction_mark(lower: &str) -> bool {
    ["redact", "remov", "mask", "hidden", "elided", "scrub"].iter().any(|w| lower.contains(w))
}

/// True for a name made of words (`preferredTokenSigningKeyThumbprint`, `API_KEY_HEADER_NAME`,
/// `token-signing-key`): letters only, cut at underscores, hyphens, dots and lower-to-upper
/// case changes into two or more segments of three or more letters, each with a vowel. A
/// field or constant name, not a secret (issue 16: `"clientSecret": "preferredTokenSigning…"`
/// blocked). Random letters make short or vowel-less segments.
#[must_use]
pub fn is_identifier(value: &str) -> bool {
    let v = value.trim();
    // An HTTP header name's `X-` prefix (`X-Api-Key`).
    let v = v.strip_prefix("X-").or_else(|| v.strip_prefix("x-")).unwrap_or(v);
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'-' | b'.')) {
        return false;
    }
    let mut segments: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in v.chars() {
        if matches!(c, '_' | '-' | '.') {
            segments.push(std::mem::take(&mut current));
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower {
            segments.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_ascii_lowercase();
        current.push(c);
    }
    segments.push(current);
    let vowel = |s: &str| s.chars().any(|c| matches!(c.to_ascii_lowercase(), 'a' | 'e' | 'i' | 'o' | 'u' | 'y'));
    segments.len() >= 2 && segments.iter().all(|s| s.len() >= 3 && vowel(s))
}

/// True for a lowercase snake_case name of at most 40 characters (`rw_session`,
/// `db_password`): letters in segments joined by single underscores, no digits. What a
/// settings file puts under a secret-named key to name a cookie or a field, never a
/// generated value.
#[must_use]
pub fn is_snake_name(value: &str) -> bool {
    let v = value.trim();
    (3..=40).contains(&v.len()) && v.split('_').all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase()))
}

/// True for ids writegate and LoopX print themselves: revisions, commit hashes, write ids,
/// todo ids, idempotency keys, completion keys, lease ids, UUIDs, and run ids (a
/// `generated_at` or its artifact stem with a writer suffix, `2026-11-29T13-04-00-00-00-operator-gate`).
#[must_use]
pub fn is_our_id(value: &str) -> bool {
    OUR_ID.is_match(value.trim().trim_matches(['"', '\'']))
}

/// Shannon entropy in bits per character.
fn entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for c in s.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let n = s.chars().count() as f64;
    counts
        .values()
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// True when a value looks like a generated secret rather than a word, an id of ours, a
/// reference or a placeholder: at least 8 characters, several character classes, and high
/// entropy for its length.
#[must_use]
pub fn looks_random(value: &str) -> bool {
    let v = value.trim().trim_matches(['"', '\'', '`']);
    if v.chars().count() < 8 || is_reference_or_placeholder(v) || is_our_id(v) || is_documentation_example(v) {
        return false;
    }
    if is_identifier(v) || is_sequential(v) {
        return false;
    }
    let classes = [
        v.chars().any(|c| c.is_ascii_lowercase()),
        v.chars().any(|c| c.is_ascii_uppercase()),
        v.chars().any(|c| c.is_ascii_digit()),
        v.chars().any(|c| !c.is_ascii_alphanumeric()),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    let e = entropy(v);
    let len = v.chars().count();
    // Plain lowercase words and snake_case names are not secrets.
    if v.chars().all(|c| c.is_ascii_lowercase() || c == '_' || c == '-' || c == '.') {
        return false;
    }
    // Nor are structured names built of lowercase words and short numbers
    // (`demo-goal:run_123:handoff_packet_pointer`, `release-2026-11-29`): every segment
    // between separators is letters only or at most 6 digits.
    let segments: Vec<&str> = v.split([':', '_', '-', '.', '/']).filter(|s| !s.is_empty()).collect();
    if segments.len() >= 2
        && segments.iter().all(|s| {
            s.chars().all(|c| c.is_ascii_lowercase()) || (s.len() <= 6 && s.chars().all(|c| c.is_ascii_digit()))
        })
    {
        return false;
    }
    if len >= 20 {
        classes >= 2 && e >= 3.5
    } else if len >= 12 {
        classes >= 3 && e >= 3.2
    } else {
        classes >= 3 && e >= 2.8
    }
}

/// Words naming a public party in a letter's salutation or sign-off (lower case): groups
/// addressed in English, German, Spanish, French, Italian, Dutch and Portuguese, and the
/// articles before an office's name (`Die Schulleitung`, `The Parks Team`).
const PUBLIC_PARTIES: &[&str] = &[
    "parents",
    "customers",
    "clients",
    "members",
    "residents",
    "neighbours",
    "neighbors",
    "students",
    "patients",
    "citizens",
    "subscribers",
    "users",
    "guests",
    "passengers",
    "visitors",
    "applicants",
    "eltern",
    "kunden",
    "kundinnen",
    "mitglieder",
    "bewohner",
    "anwohner",
    "nachbarn",
    "patienten",
    "bürger",
    "bürgerinnen",
    "nutzer",
    "gäste",
    "fahrgäste",
    "besucher",
    "clientes",
    "padres",
    "familias",
    "vecinos",
    "socios",
    "usuarios",
    "pasajeros",
    "pacientes",
    "ciudadanos",
    "familles",
    "abonnés",
    "usagers",
    "voyageurs",
    "genitori",
    "famiglie",
    "soci",
    "utenti",
    "cittadini",
    "ouders",
    "klanten",
    "leden",
    "bewoners",
    "reizigers",
    "pais",
    "famílias",
    "moradores",
    "associados",
    "passageiros",
    "die",
    "das",
    "der",
    "the",
    "your",
    "ihr",
    "ihre",
    "le",
    "la",
    "les",
    "el",
    "los",
    "las",
    "il",
    "het",
    "vos",
    "votre",
    "tu",
    "vuestro",
    "o",
    "os",
];

/// The same for Korean, matched inside the words (`고객님`, `고객센터`).
const PUBLIC_PARTIES_HANGUL: &[&str] = &["고객", "회원", "학부모", "주민", "시민", "이용자", "센터", "사무국"];

/// Whether a letter's salutation or sign-off (`matched`, a `letter_shape` match) names the
/// public rather than a person: a group addressed (`Liebe Eltern,`, `Dear customers,`,
/// `Estimados clientes:`, `고객님,`, `회원님께`) or an office signing after an article
/// (`Mit freundlichen Grüßen\nDie Schulleitung`, `Kind regards,\nThe Parks Team`) or as
/// a service (`고객센터 드림`). Case ignored; whole words.
#[must_use]
pub fn addresses_the_public(matched: &str) -> bool {
    let lower = matched.to_lowercase();
    lower.split(|c: char| !c.is_alphanumeric()).any(|w| PUBLIC_PARTIES.contains(&w))
        || PUBLIC_PARTIES_HANGUL.iter().any(|w| matched.contains(w))
}

/// Whether a line holding a personal identifier (`DOB …`, `NHS no. …`, `SSN …`) gives a
/// published test value (NHS Digital's 943 476 5919, the SSA's void 078-05-1120 and
/// 123-45-6789, the epoch date 01/01/1970) or says its data is made up (`sample`,
/// `synthetic`, `test`, `example`, `fake`, `dummy`, `fictional`).
#[must_use]
pub fn is_test_identifier(line: &str) -> bool {
    const TEST_VALUES: &[&str] = &["9434765919", "078051120", "123456789", "01011970", "19700101", "000000000"];
    let digits: String = line.chars().filter(char::is_ascii_digit).collect();
    let lower = line.to_lowercase();
    TEST_VALUES.iter().any(|v| digits.contains(v))
        || ["sample", "synthetic", "test", "example", "fake", "dummy", "fictional", "made-up", "made up"]
            .iter()
            .any(|w| lower.contains(w))
}

/// Whether a home-folder path (`/Users/you/Library/…`, `\/home\/yourname\/…`,
/// `C:\Users\Public\Desktop`) names a documentation placeholder or a profile Windows
/// shares between users rather than a user: `you`, `yourname`, `your-name`, `your_name`,
/// `yourusername`, `your-username`, `username`, `user-name`, `myname`, `someone`, `xxxx`,
/// and the word "user name" in Japanese, Chinese and Korean (`ユーザー名`, `用户名`,
/// `사용자이름`); `Public`,
/// `Default`, `Default User`, `All Users`, and macOS's `/Users/Shared`; `linuxbrew`, the account Homebrew on Linux
/// documents for its prefix (`/home/linuxbrew/.linuxbrew`) (case ignored). `user` and `dev`
/// are real account names and stay paths. A web framework's action after a `Users` or `Home`
/// controller (`/Users/Index`, `/Users/Details/{id}`, `/Home/Privacy`: ASP.NET MVC's
/// routes, [`ROUTE_ACTIONS`]) is no user either.
#[must_use]
pub fn is_placeholder_user(path: &str) -> bool {
    const USERS: &[&str] = &[
        "you",
        "yourname",
        "your-name",
        "your_name",
        "yourusername",
        "your-username",
        "your_username",
        "username",
        "user-name",
        "user_name",
        "myname",
        "someone",
        "xxxx",
        "ユーザー名",
        "ユーザ名",
        "ユーザー",
        "用户名",
        "使用者名稱",
        "사용자이름",
        "사용자명",
        "linuxbrew",
        "public",
        "default",
        "default user",
        "all users",
        "shared",
    ];
    // JSON-escaped `\/` and Windows' `\` (doubled or not) read as `/`.
    let path = path.replace('\\', "/");
    let lower = path.to_ascii_lowercase();
    let user = ["/home/", "/users/"]
        .iter()
        .find_map(|h| lower.find(h).map(|i| &path[i + h.len()..]))
        .map(|rest| rest.split('/').find(|s| !s.is_empty()).unwrap_or_default())
        // A placeholder in brackets (`[ユーザー名]`, `{user_name}`) is still one, and a
        // sentence's stop after it (`C:\\Users\\Default.`) is no part of the name.
        .map(|u| u.trim_matches(['[', ']', '{', '}', '(', ')']).trim_end_matches(['.', ',', ';', ':']));
    user.is_some_and(|u| USERS.iter().chain(ROUTE_ACTIONS).any(|p| p.eq_ignore_ascii_case(u)))
}

/// The actions of a web framework's controller that follow it in a route (`/Users/Edit/{id}`):
/// names no account takes ([`is_placeholder_user`]).
const ROUTE_ACTIONS: &[&str] =
    &["index", "details", "edit", "create", "delete", "privacy", "login", "logout", "register", "manage"];
