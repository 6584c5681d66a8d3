//! The `loopx …` command line a refused `writegate propose …` stands for, printed so an
//! agent or operator on a LoopX 2.x goal can run LoopX itself instead: writegate's global
//! flags become LoopX's (`--registry`, `--runtime-root` before the command), its own
//! (`--operator`, `--read-only`) and the ignored ones (`--dry-run`, `--execute`,
//! `--format`) are dropped, and every argument is shell-quoted. An argument holding a
//! control, bidi or non-UTF-8 character gets no runnable line at all: what would be shown
//! could not be what runs.

use std::ffi::OsString;

/// writegate's global flags that take a value.
const VALUE_FLAGS: &[&str] = &["--registry", "--runtime-root", "--operator"];
/// Flags LoopX would not take from this command line.
const DROPPED: &[&str] = &["--read-only", "--dry-run", "--execute"];

/// The `loopx` line for `argv` (as the process got it, program name first), or `None` when
/// there is no `propose` command in it, when it proposes a `replace` (LoopX 2.1.1 has no
/// command for a whole new state text: its todos change through `loopx todo …`), or when an
/// argument cannot be shown faithfully.
#[must_use]
pub fn loopx_equivalent(argv: &[OsString]) -> Option<String> {
    let words: Vec<&str> = argv.iter().skip(1).map(|a| a.to_str()).collect::<Option<_>>()?;
    if words.iter().any(|a| a.chars().any(|c| c.is_control() || crate::textsafe::is_bidi_control(c))) {
        return None;
    }
    let (mut globals, mut rest) = (Vec::new(), Vec::new());
    let mut seen_propose = false;
    let mut i = 0;
    while i < words.len() {
        let a = words[i];
        let (name, inline) = a.split_once('=').map_or((a, None), |(n, v)| (n, Some(v)));
        if VALUE_FLAGS.contains(&name) || name == "--format" {
            let value = inline.or_else(|| words.get(i + 1).copied());
            if inline.is_none() {
                i += 1;
            }
            if matches!(name, "--registry" | "--runtime-root") {
                globals.push(name.to_owned());
                globals.push(value.unwrap_or_default().to_owned());
            }
        } else if DROPPED.contains(&a) {
        } else if !seen_propose {
            seen_propose = a == "propose";
            if !seen_propose {
                return None;
            }
        } else {
            rest.push(a.to_owned());
        }
        i += 1;
    }
    if rest.first().is_some_and(|c| c == "replace") {
        return None;
    }
    seen_propose.then(|| {
        std::iter::once("loopx".to_owned())
            .chain(globals.iter().chain(&rest).map(|a| quote(a)))
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// POSIX shell single-quoting, bare when the word needs none.
fn quote(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "_./:=@%+-,".contains(c)) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(args: &[&str]) -> Option<String> {
        loopx_equivalent(&args.iter().map(OsString::from).collect::<Vec<_>>())
    }

    #[test]
    fn globals_move_before_the_command_and_writegates_own_flags_go() {
        assert_eq!(
            line(&[
                "wg",
                "--operator",
                "propose",
                "--registry=/r x",
                "propose",
                "todo",
                "add",
                "--text",
                "it's",
                "--dry-run",
                "--format",
                "json"
            ]),
            Some("loopx --registry '/r x' todo add --text 'it'\\''s'".into())
        );
    }

    #[test]
    fn a_replace_has_no_loopx_line() {
        assert_eq!(line(&["wg", "propose", "replace", "--goal-id", "g", "--file", "x.md"]), None);
    }

    #[test]
    fn control_bidi_and_non_utf8_arguments_get_no_line() {
        assert_eq!(line(&["wg", "propose", "todo", "add", "--text", "x\u{1b}"]), None);
        assert_eq!(line(&["wg", "propose", "todo", "add", "--text", "a\nb"]), None);
        assert_eq!(line(&["wg", "propose", "todo", "add", "--text", "\u{202e}evil"]), None);
        let bad = std::os::unix::ffi::OsStringExt::from_vec(vec![0xff]);
        assert_eq!(loopx_equivalent(&[OsString::from("wg"), OsString::from("propose"), bad]), None);
    }
}
