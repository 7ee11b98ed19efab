//! SGF import and export on hand-written records: every property Tengen reads, the irregular forms found
//! in the wild, and malformed input, which must give an error with its line and column.

use tengen_rules::sgf::{self, Position};
use tengen_rules::{Color, GameResult, KoRule, Komi, Move, Point, WinBy};

const FULL: &str =
    "(;GM[1]FF[4]CA[UTF-8]SZ[9]KM[7.5]HA[2]RU[Chinese]PB[Ke Jie]PW[AlphaGo]BR[9p]WR[-]\
DT[2026-11-29]RE[W+1.5]TM[600]OT[3x30 byo-yomi]C[a comment with \\] inside]AB[cg][gc]\
;W[ee]WL[598.5]OW[3];B[]C[a pass]\n;W[tt]\n(;B[dd];W[ff])(;B[cc]))";

#[test]
fn reads_every_property_of_the_root_and_the_main_line() {
    let record = sgf::parse(FULL.as_bytes()).unwrap();
    let info = &record.info;
    assert_eq!(info.size, 9);
    assert_eq!(info.komi, Komi::from_half_points(15));
    assert_eq!(info.handicap, 2);
    assert_eq!(info.rules.as_deref(), Some("Chinese"));
    assert_eq!(info.black.as_deref(), Some("Ke Jie"));
    assert_eq!(info.white.as_deref(), Some("AlphaGo"));
    assert_eq!(info.black_rank.as_deref(), Some("9p"));
    assert_eq!(info.date.as_deref(), Some("2026-11-29"));
    assert_eq!(info.time_limit.as_deref(), Some("600"));
    assert_eq!(info.overtime.as_deref(), Some("3x30 byo-yomi"));
    assert_eq!(info.comment.as_deref(), Some("a comment with ] inside"));
    assert_eq!(
        record.result,
        Some(GameResult::Win {
            winner: Color::White,
            win_by: WinBy::Score {
                margin_half_points: 3
            }
        })
    );
    assert_eq!(
        record.setup,
        vec![
            (Color::Black, Point::new(2, 6)),
            (Color::Black, Point::new(6, 2))
        ]
    );
    let moves: Vec<(Color, Move)> = record.moves.iter().map(|m| (m.color, m.mv)).collect();
    assert_eq!(
        moves,
        vec![
            (Color::White, Move::Play(Point::new(4, 4))),
            (Color::Black, Move::Pass),
            (Color::White, Move::Pass),
            (Color::Black, Move::Play(Point::new(3, 3))),
            (Color::White, Move::Play(Point::new(5, 5))),
        ],
        "B[] and W[tt] are passes; the first variation is the main line"
    );
    assert_eq!(record.moves[0].time_left_ms, Some(598_500));
    assert_eq!(record.moves[0].periods_left, Some(3));
    assert_eq!(record.moves[1].comment.as_deref(), Some("a pass"));
    assert_eq!(record.tree.variation_count(), 1);
    let game = record.replay(KoRule::Positional).unwrap();
    assert_eq!(game.handicap_stones(), 2);
    assert_eq!(game.board().count_stones(Color::Black), 3);
}

#[test]
fn variations_survive_export() {
    let record = sgf::parse(FULL.as_bytes()).unwrap();
    let text = record.to_sgf();
    assert!(text.contains("(;B[dd];W[ff])(;B[cc])"), "{text}");
    let again = sgf::parse(text.as_bytes()).unwrap();
    assert_eq!(
        again.tree.without_positions(),
        record.tree.clone().without_positions()
    );
}

#[test]
fn komi_in_points_scaled_by_100_and_in_stones() {
    for (written, half_points) in [
        ("7.5", 15),
        ("7.50", 15),
        ("7.500000", 15),
        ("750", 15),
        ("375", 15),
        ("3.75", 15),
        ("650", 13),
        ("6.5", 13),
        ("0", 0),
        ("-5.5", -11),
        ("7", 14),
    ] {
        assert_eq!(
            Komi::parse_sgf(written),
            Ok(Komi::from_half_points(half_points)),
            "KM[{written}]"
        );
    }
    assert!(Komi::parse_sgf("seven").is_err());
    assert!(Komi::parse_points("7.3").is_err());
}

#[test]
fn setup_after_the_root_counts_and_setup_after_a_move_is_refused() {
    let record = sgf::parse(b"(;SZ[9]HA[2];AB[cc][gg];W[ee])").unwrap();
    let game = record.replay(KoRule::Positional).unwrap();
    assert_eq!(game.handicap_stones(), 2);
    let err = sgf::parse(b"(;SZ[9];B[ee]\n;AW[cc])").unwrap_err();
    assert_eq!(err.position, Position { line: 2, column: 4 });
    let rectangle = sgf::parse(b"(;SZ[5]AB[aa:bb])").unwrap();
    assert_eq!(rectangle.setup.len(), 4);
}

#[test]
fn a_broken_move_loads_and_fails_at_replay_with_its_number() {
    let record = sgf::parse(b"(;SZ[9];B[ee];W[ee])").unwrap();
    let err = record.replay(KoRule::Positional).unwrap_err();
    assert_eq!(err.to_string(), "move 2 (white ee): that point is occupied");
}

#[test]
fn malformed_input_gives_an_error_with_its_position() {
    let cases: &[(&[u8], (u32, u32), &str)] = &[
        (b"", (1, 1), "no game tree"),
        (b"(;SZ[19]", (1, 9), "not closed"),
        (b"(;SZ[19]KM[7.5", (1, 11), "not closed with ']'"),
        (b"(;SZ[19])\n)", (1, 10), ""),
        (b"(;SZ[30])", (1, 5), "board size"),
        (b"(;SZ[9]\n;B[zz])", (2, 3), "not a point"),
        (b"(;GM[3])", (1, 5), "not a Go record"),
        (b"(;SZ[9] B)", (1, 9), "has no value"),
        (b"(;SZ[9]{)", (1, 8), "unexpected character"),
        (
            b"(;SZ[19]\n  ;B[aa]C[x]\n  ;W[ba]&)",
            (3, 9),
            "unexpected character",
        ),
    ];
    for (input, (line, column), message) in cases {
        match sgf::parse(input) {
            Err(err) => {
                assert_eq!(
                    (err.position.line, err.position.column),
                    (*line, *column),
                    "{err}"
                );
                assert!(err.message.contains(message), "{err}");
                assert!(err.to_string().starts_with("SGF error at line"), "{err}");
            }
            Ok(record) => {
                assert!(
                    message.is_empty(),
                    "{:?} parsed",
                    String::from_utf8_lossy(input)
                );
                assert_eq!(record.info.size, 19, "text after the tree is ignored");
            }
        }
    }
}

#[test]
fn deep_variations_and_long_main_lines_do_not_exhaust_the_stack() {
    let mut text = String::from("(;SZ[19]");
    for _ in 0..50_000 {
        text.push_str("(;B[aa]");
    }
    for _ in 0..50_000 {
        text.push(')');
    }
    text.push(')');
    let record = sgf::parse(text.as_bytes()).unwrap();
    assert_eq!(record.moves.len(), 50_000);
    assert!(record.to_sgf().len() > 50_000);
}

#[test]
fn prose_before_the_record_is_skipped_whatever_parentheses_it_has() {
    let text = "From: a friend\nSubject: our game (the one with the big ko)\n\n(see below) (\n;GM[1]SZ[9]PB[a];B[ee])\n";
    let record = sgf::parse(text.as_bytes()).unwrap();
    assert_eq!(record.info.black.as_deref(), Some("a"));
    assert_eq!(record.moves.len(), 1);
    let err = sgf::parse(b"only a note (no record)").unwrap_err();
    assert!(err.message.contains("no game tree"), "{err}");
}

#[test]
fn komi_and_handicap_after_the_root_count_until_the_first_move() {
    let record = sgf::parse(b"(;GM[1]SZ[19];KM[6.5]HA[2]AB[dd][pp];W[dp];KM[0.5])").unwrap();
    assert_eq!(record.info.komi, Komi::from_half_points(13));
    assert_eq!(record.info.handicap, 2);
    assert_eq!(
        record.replay(KoRule::Positional).unwrap().handicap_stones(),
        2
    );
    // The root's value comes first; an empty one says nothing.
    let record = sgf::parse(b"(;SZ[9]KM[375];KM[0];B[ee])").unwrap();
    assert_eq!(
        record.info.komi,
        Komi::from_half_points(15),
        "375 is 3.75 stones"
    );
    let record = sgf::parse(b"(;SZ[9]KM[];KM[5.5];B[ee])").unwrap();
    assert_eq!(record.info.komi, Komi::from_half_points(11));
}

#[test]
fn the_ko_rule_follows_the_rules_the_record_names() {
    let ko_rule = |ru: &str| {
        sgf::parse(format!("(;SZ[9]RU[{ru}])").as_bytes())
            .unwrap()
            .info
            .ko_rule()
    };
    for ru in [
        "Japanese",
        "japanese",
        "JP",
        "Korean",
        "日本",
        "Japanese (Nihon Ki-in 1989)",
    ] {
        assert_eq!(ko_rule(ru), Some(KoRule::Simple), "{ru}");
    }
    for ru in ["Chinese", "cn", "Tromp-Taylor"] {
        assert_eq!(ko_rule(ru), Some(KoRule::Positional), "{ru}");
    }
    for ru in ["AGA", "NZ", "New Zealand"] {
        assert_eq!(ko_rule(ru), Some(KoRule::Situational), "{ru}");
    }
    for ru in ["Ing", "GOE", "", "whatever"] {
        assert_eq!(ko_rule(ru), None, "{ru}");
    }
}

/// Three kos taken round once (the example of the protocol README): the sixth take recreates the
/// position before the first, which Japanese rules allow and Chinese rules do not.
#[test]
fn a_triple_ko_replays_under_the_ko_rule_its_rules_name() {
    let record = |rules: &str| {
        let text = format!(
            "(;GM[1]SZ[9]RU[{rules}]AB[ba][ab][bc][ha][ib][hc][bf][ag][bh][cg]\
             AW[ca][db][cc][bb][ga][fb][gc][hb][cf][dg][ch];B[cb];W[bg];B[gb];W[bb];B[cg];W[hb])"
        );
        sgf::parse(text.as_bytes()).unwrap()
    };
    let (game, ko_rule) = record("Japanese").replay_under_own_rules().unwrap();
    assert_eq!((game.moves().len(), ko_rule), (6, KoRule::Simple));
    assert_eq!(
        game.board(),
        record("Japanese")
            .replay(KoRule::Simple)
            .unwrap()
            .start_board()
    );
    let err = record("Chinese").replay_under_own_rules().unwrap_err();
    assert_eq!(
        err.to_string(),
        "move 6 (white hb): the move repeats a position (ko)"
    );
    let (_, ko_rule) = record("Ing").replay_under_own_rules().unwrap();
    assert_eq!(
        ko_rule,
        KoRule::Simple,
        "unknown rules: the strictest, then the basic ko rule"
    );
}
