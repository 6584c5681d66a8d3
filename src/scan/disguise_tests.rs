//! Tests of [`super`]: each disguise undone on its line only, stretches gathered piece by
//! piece, the searches and the joins.

use super::*;

fn undone_text(text: &str) -> Option<String> {
    undisguised(text).map(|(t, _)| t)
}

#[test]
fn undoes_each_disguise_on_its_line_only() {
    assert_eq!(undone_text("plain text\nnothing here"), None);
    assert_eq!(undone_text("a\nt = \"ghp_\" \"AbC12\"\nb").as_deref(), Some("t = \"ghp_AbC12\"\n"));
    assert_eq!(undone_text("k = 'sk_live_' + 'x9Y'").as_deref(), Some("k = 'sk_live_x9Y'\n"));
    assert_eq!(undone_text("(\"ghp_ab\"\n  \"cd\")").as_deref(), Some("(\"ghp_abcd\")\n"));
    assert_eq!(undone_text("k = \"SG.\" + \\\n    \"ab\" + \\\n  \"cd\"").as_deref(), Some("k = \"SG.abcd\"\n"));
    assert_eq!(undone_text("/home/\u{200b}maria/x").as_deref(), Some("/home/maria/x\n"));
    assert_eq!(undone_text("ｇｈｐ＿Ａｂ１").as_deref(), Some("ghp_Ab1\n"));
    // Not disguises: a variable between literals, a list, CJK punctuation, a BOM at the start.
    assert_eq!(undone_text("\"Hello, \" + name + \"!\""), None);
    assert_eq!(undone_text("[\"a\", \"b\"]"), None);
    assert_eq!(undone_text("你好，世界：（测试）"), None);
    assert_eq!(undone_text("\u{feff}# title"), None);
}

proptest::proptest! {
    /// Gathered piece by piece (as the scan does, cut anywhere on a character boundary),
    /// the stretches undo to what one pass over the whole text gives.
    #[test]
    fn stretches_gathered_in_pieces_undo_as_one_pass(
        parts in proptest::collection::vec(proptest::prop_oneof![
            proptest::prelude::Just("x = \"ghp_\" \"AbC\"\n"),
            proptest::prelude::Just("'sk_live_' +\n  'x9'"),
            proptest::prelude::Just("/home/\u{200b}li/"),
            proptest::prelude::Just("ｇｈｐ＿Ａｂ１ "),
            proptest::prelude::Just("你好，世界：\n"),
            proptest::prelude::Just("/hоme/li/ "),
            proptest::prelude::Just("Москва 2024 "),
            proptest::prelude::Just("\"a\", \"b\"\n"),
            proptest::prelude::Just("plain words "),
        ], 0..60),
        cuts in proptest::collection::vec(0usize..2000, 0..5),
    ) {
        let text: String = parts.concat();
        let mut bounds: Vec<usize> = cuts.iter().map(|&c| c % (text.len() + 1)).filter(|&c| text.is_char_boundary(c)).collect();
        bounds.extend([0, text.len()]);
        bounds.sort_unstable();
        let pieced: Vec<(usize, usize)> = bounds.windows(2).flat_map(|w| stretches(&text, w[0], w[1])).collect();
        proptest::prop_assert_eq!(undone(&text, pieced), undisguised(&text));
    }
}

/// A line holding many disguise candidates is marked once, not once per candidate: each
/// mark searched the line for its bounds, so a 10 MB line of quotes took minutes.
#[test]
fn a_long_line_of_candidates_is_one_stretch() {
    for line in ["\"a\" ".repeat(50_000), "\u{200b}a".repeat(50_000), "''.join([".repeat(20_000)] {
        let text = format!("before\n{line}\nafter\n");
        assert_eq!(stretches(&text, 0, text.len()).len(), 1);
    }
}

#[test]
fn piece_calls_are_found_by_either_search() {
    let hay = b"k = ''.join(['AKIA', 'X']); string.Concat(a, b); '{}-{}'.format(x, y); rejoin";
    let automaton = PieceCallSearch::Automaton(aho_corasick::AhoCorasick::new(PIECE_CALLS).expect("builds"));
    let all = |s: &PieceCallSearch| {
        let mut v = Vec::new();
        let mut at = 0;
        while let Some(m) = s.find(hay, at) {
            v.push((m.start(), m.end()));
            at = m.end();
        }
        v
    };
    let found = all(&automaton);
    assert_eq!(found.len(), 4, "{found:?}");
    assert_eq!(all(&PIECE_CALL_SEARCH), found);
}

#[test]
fn joined_pieces_are_scanned_as_one_string() {
    let joined = |line: &str| pieces_joined(line);
    assert!(joined("key = ''.join(['AKIA', 'ITYR5GRO', 'A3HV7DVH'])").contains(&"AKIAITYR5GROA3HV7DVH".to_owned()));
    assert!(joined("open(os.path.join('/home', 'mk', '.ssh'))").contains(&"/home/mk/.ssh".to_owned()));
    assert!(joined("\"{}-{}\".format(\"sk\", \"ant\")").contains(&"sk-ant".to_owned()));
    assert!(joined("x = f('one')").is_empty());
}

#[test]
fn the_map_points_at_each_line_start() {
    let text = "first\nx = \"ab\" \"cd\"\nmiddle\n/Users/\u{2060}li/y\n";
    let (out, map) = undisguised(text).expect("disguised");
    assert_eq!(out, "x = \"abcd\"\n/Users/li/y\n");
    assert_eq!(map, vec![(0, 6), (11, 27)]);
    assert_eq!(&text[27..34], "/Users/");
}
