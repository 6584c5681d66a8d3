//! The byte gates of [`super`]: the rules gated by a character rather than a search word
//! or a line's start ([`super::Gate::Slash`], `At`, `Tilde`, `Dot`, `Colon`, `Upper`), found
//! with `memchr` over each chunk.

use super::{Collector, Rules, is_blank, is_word};

/// The `/` `\` `@` `.` `A` `S` `:` `~` gates over `bytes[from..to]`.
pub(super) fn byte_gates(r: &Rules, bytes: &[u8], from: usize, to: usize, col: &mut Collector) {
    let chunk = &bytes[from..to];
    let at = |i: usize| bytes.get(i).copied().unwrap_or(b'\n');
    let rest = |i: usize| bytes.get(i..to).unwrap_or_default();
    for k in memchr::memchr3_iter(b'/', b'\\', b'@', chunk) {
        let s = from + k;
        if bytes[s] == b'@' {
            col.add(r.email, s);
            col.add(r.url_password, s);
            continue;
        }
        let next = rest(s + 1);
        if bytes[s] == b'\\' && next.first() == Some(&b'\\') && (s == 0 || at(s - 1) != b'\\') {
            col.add(r.unc, s);
        }
        // A JSON `\u002f` escape of the home folder's slash (`\u002fhome\u002f…`).
        if bytes[s] == b'\\' && next.get(..5).is_some_and(|u| u.eq_ignore_ascii_case(b"u002f")) {
            folder_gates(r, s, &next[5..], col);
        }
        if bytes[s] == b'/' {
            slash_gates(r, bytes, s, next, col);
            folder_gates(r, s, next, col);
            if s > 0 && at(s - 1) == b'~' {
                col.add(r.tilde, s);
                col.add(r.home_folder, s);
            }
            if s >= 5 && (bytes[..s].ends_with(b"$HOME") || bytes[..s].ends_with(b"{HOME}")) {
                col.add(r.home_folder, s);
            }
            let before_ok =
                s == 0 || matches!(at(s - 1), b'\n' | b'"' | b'\'' | b'=' | b'(' | b':' | b',') || is_blank(at(s - 1));
            if before_ok
                && [
                    &b"Volumes/"[..],
                    b"private/",
                    b"tmp/",
                    b"var/",
                    b"etc/",
                    b"opt/",
                    b"srv/",
                    b"mnt/",
                    b"workspace",
                    b"data00/",
                    b"ext_data/",
                ]
                .iter()
                .any(|p| next.starts_with(p))
            {
                col.add(r.system, s);
            }
        }
        if s > 0 && at(s - 1) == b':' {
            let name = rest(s);
            let skip = name.iter().take_while(|b| matches!(b, b'/' | b'\\')).count();
            if name.get(skip..skip + 5).is_some_and(|u| u.eq_ignore_ascii_case(b"users")) {
                col.add(r.windows_home, s);
            }
        }
    }
    for k in memchr::memchr3_iter(b'.', b'A', b'S', chunk) {
        let d = from + k;
        if bytes[d] != b'.' {
            upper(r, bytes, from, to, d, col);
            continue;
        }
        let next = rest(d + 1);
        let ip = next.first().is_some_and(u8::is_ascii_digit)
            && ((d >= 2 && &bytes[d - 2..d] == b"10") || (d >= 3 && matches!(&bytes[d - 3..d], b"172" | b"192")));
        if ip {
            col.add(r.private_ip, d);
        }
        if [&b"int"[..], b"corp", b"lan", b"local", b"home"].iter().any(|p| next.starts_with(p)) {
            col.add(r.internal_host, d);
        }
    }
    colon_gate(r, bytes, from, to, col);
    tilde_gate(r, bytes, from, to, col);
}

/// The [`Gate::Tilde`] gate over `bytes[from..to]`: a `~` before a lower-case letter or `_`
/// (what comes before it is left to the pattern, whose blanks are Unicode's).
fn tilde_gate(r: &Rules, bytes: &[u8], from: usize, to: usize, col: &mut Collector) {
    for k in memchr::memchr_iter(b'~', &bytes[from..to]) {
        let t = from + k;
        if bytes.get(t + 1).is_some_and(|b| b.is_ascii_lowercase() || *b == b'_') {
            col.add(r.tilde_named, t);
        }
    }
}

/// The [`Gate::Colon`] gate over `bytes[from..to]`: `private_ipv6`'s `f[cd]` or `fe[89ab]`
/// and hex digits right before a `:`.
fn colon_gate(r: &Rules, bytes: &[u8], from: usize, to: usize, col: &mut Collector) {
    for k in memchr::memchr_iter(b':', &bytes[from..to]) {
        let c = from + k;
        if c >= from + 4
            && bytes[c - 4] | 0x20 == b'f'
            && (matches!(bytes[c - 3] | 0x20, b'c' | b'd')
                || (bytes[c - 3] | 0x20 == b'e' && matches!(bytes[c - 2] | 0x20, b'8' | b'9' | b'a' | b'b')))
            && bytes[c - 2].is_ascii_hexdigit()
            && bytes[c - 1].is_ascii_hexdigit()
        {
            col.add(r.private_ipv6, c);
        }
    }
}

/// The gates of the folders a `/` at `s` can start (`next` is what follows it): a home
/// (`/home/`, `/Users/`, `/root`, JSON-escaped `\/home\/`), a WSL mount (`/mnt/`), macOS's
/// per-user temporary folder (`/private/var/folders/`), an Android device's shared storage
/// (`/storage/emulated/`, `/sdcard/`).
fn folder_gates(r: &Rules, s: usize, next: &[u8], col: &mut Collector) {
    if next.starts_with(b"home/")
        || next.starts_with(b"Users/")
        || next.starts_with(b"root")
        || next.starts_with(b"home\\")
        || next.starts_with(b"Users\\")
    {
        col.add(r.home, s);
    }
    if next.starts_with(b"mnt/") {
        col.add(r.wsl, s);
    }
    if next.starts_with(b"storage/emulated/") || next.starts_with(b"sdcard/") {
        col.add(r.android, s);
    }
    if next.starts_with(b"private/var/folders/") || next.starts_with(b"var/folders/") {
        col.add(r.user_temp, s);
    }
}

/// The forward-slash share and `~user/` gates at the `/` at `s` (`next` is what follows it).
fn slash_gates(r: &Rules, bytes: &[u8], s: usize, next: &[u8], col: &mut Collector) {
    let before = s.checked_sub(1).map(|i| bytes[i]);
    if next.first() == Some(&b'/')
        && before.is_none_or(|b| matches!(b, b'\n' | b'"' | b'\'' | b'(' | b'=' | b',') || is_blank(b))
    {
        col.add(r.unc_slash, s);
    }
    // `~name/`: the name is 1 to 32 of `[a-z0-9_.-]` right before the slash.
    let name = bytes[..s]
        .iter()
        .rev()
        .take(33)
        .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-' | b'.'))
        .count();
    if (1..=32).contains(&name) && s > name && bytes[s - name - 1] == b'~' {
        col.add(r.tilde_user, s);
    }
}

/// The [`Gate::Upper`] checks at an `A` or `S` at `u` (a word's start, or after `:` for a
/// Telegram token).
fn upper(r: &Rules, bytes: &[u8], from: usize, to: usize, u: usize, col: &mut Collector) {
    if u > from && is_word(bytes[u - 1]) {
        return;
    }
    let next = bytes.get(u + 1..to).unwrap_or_default();
    if bytes[u] == b'A' {
        if [&b"KIA"[..], b"SIA", b"GPA", b"IDA", b"ROA", b"NPA"].iter().any(|p| next.starts_with(p)) {
            col.add(r.aws, u);
        }
        if next.starts_with(b"Iza") {
            col.add(r.google, u);
        }
        if next.starts_with(b"KLT") {
            col.add(r.aklt, u);
        }
        // A Twilio account SID: `AC` and lower-case hex.
        if next.first() == Some(&b'C') && next.get(1).is_some_and(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b)) {
            col.add(r.twilio, u);
        }
        // A Telegram bot token's secret half: `AA` after the id's `:`.
        if next.starts_with(b"A") && u > 0 && bytes[u - 1] == b':' {
            col.add(r.telegram, u);
        }
    } else if next.starts_with(b"K") {
        col.add(r.twilio, u);
    } else if next.starts_with(b"G.") {
        col.add(r.sendgrid, u);
    }
}
