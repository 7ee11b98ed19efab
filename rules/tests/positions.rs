//! The classic hard positions of the rules, each set up from a diagram and played through the engine.
//! Diagrams: `X` Black, `O` White, `.` empty; rows from the top.

use tengen_rules::{
    count_area, estimate_dead, Color, Game, GameResult, HandicapPlacement, IllegalMove, KoRule,
    Komi, Move, Phase, Point, Rules, UndoError, WinBy,
};

fn game_from(diagram: &str, ko_rule: KoRule, komi_half_points: i32) -> Game {
    let rows: Vec<Vec<char>> = diagram
        .lines()
        .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect::<Vec<_>>())
        .filter(|r| !r.is_empty())
        .collect();
    let size = rows.len() as u8;
    let mut game = Game::new(Rules {
        size,
        komi: Komi::from_half_points(komi_half_points),
        ko_rule,
        ..Rules::default()
    })
    .unwrap();
    for (color, mark) in [(Color::Black, 'X'), (Color::White, 'O')] {
        let points: Vec<Point> = rows
            .iter()
            .enumerate()
            .flat_map(|(r, row)| {
                row.iter()
                    .enumerate()
                    .filter(move |(_, &c)| c == mark)
                    .map(move |(c, _)| Point::new(c as u8, r as u8))
            })
            .collect();
        game.add_setup_stones(color, &points).unwrap();
    }
    game
}

fn p(col: u8, row: u8) -> Move {
    Move::Play(Point::new(col, row))
}

fn stone(game: &Game, col: u8, row: u8) -> Option<Color> {
    game.board().get(Point::new(col, row))
}

#[test]
fn a_single_stone_and_a_chain_are_captured() {
    let mut game = game_from(
        "
        . X . . .
        X O X . .
        . . . . .
        . X O O X
        . . X X .",
        KoRule::Positional,
        0,
    );
    game.play(Color::Black, p(1, 2)).unwrap();
    assert_eq!(stone(&game, 1, 1), None);
    assert_eq!(game.last_captured(), &[Point::new(1, 1)]);
    game.play(Color::White, Move::Pass).unwrap();
    game.play(Color::Black, p(2, 2)).unwrap();
    assert_eq!(
        stone(&game, 2, 3),
        Some(Color::White),
        "the chain still has c2 (3,2)"
    );
    game.play(Color::White, Move::Pass).unwrap();
    game.play(Color::Black, p(3, 2)).unwrap();
    assert_eq!(stone(&game, 2, 3), None);
    assert_eq!(stone(&game, 3, 3), None);
    assert_eq!(game.prisoners(Color::Black), 3);
}

#[test]
fn one_stone_captures_three_chains_at_once() {
    let mut game = game_from(
        "
        X O . O X
        . X O X .
        . . X . .
        . . . . .
        . . . . .",
        KoRule::Positional,
        0,
    );
    // b5, d5 and c4 are three White chains whose last liberty is c5.
    for point in [Point::new(1, 0), Point::new(3, 0), Point::new(2, 1)] {
        assert_eq!(game.board().liberties(point), 1);
    }
    game.play(Color::Black, p(2, 0)).unwrap();
    assert_eq!(game.last_captured().len(), 3);
    assert_eq!(game.board().count_stones(Color::White), 0);
}

#[test]
fn snapback() {
    let mut game = game_from(
        "
        . . O X .
        O O O X .
        X X X X .
        . . . . .
        . . . . .",
        KoRule::Positional,
        0,
    );
    // Black throws in at b5: it keeps a5 as a liberty, and White's four stones are left with a5 alone.
    game.play(Color::Black, p(1, 0)).unwrap();
    assert_eq!(game.board().liberties(Point::new(2, 0)), 1);
    // White captures the throw-in at a5, which leaves White's whole chain with the single liberty b5.
    game.play(Color::White, p(0, 0)).unwrap();
    assert_eq!(game.last_captured(), &[Point::new(1, 0)]);
    // Black plays b5 again at once: not a ko, it takes five stones.
    game.play(Color::Black, p(1, 0)).unwrap();
    assert_eq!(game.last_captured().len(), 5);
    assert_eq!(game.board().count_stones(Color::White), 0);
}

#[test]
fn suicide_is_refused_for_one_stone_and_for_a_chain_and_changes_nothing() {
    let mut game = game_from(
        "
        . X O . .
        X X O . .
        O O O . .
        . . . . .
        . . . X .",
        KoRule::Positional,
        0,
    );
    let before = game.board().clone();
    // Black a5 would join three stones into a chain with no liberty: multi-stone suicide.
    assert_eq!(game.play(Color::Black, p(0, 0)), Err(IllegalMove::Suicide));
    assert_eq!(game.board(), &before);
    assert_eq!(
        game.to_move(),
        Color::Black,
        "a refused move keeps the turn"
    );
    game.play(Color::Black, Move::Pass).unwrap();
    // White a5 looks like suicide but captures the three Black stones: legal.
    game.play(Color::White, p(0, 0)).unwrap();
    assert_eq!(game.last_captured().len(), 3);
    // A single White stone in the corner between two Black stones: one-stone suicide.
    let mut corner = game_from(
        "
        . X . . .
        X . . . .
        . . . . .
        . . . . .
        . . . . .",
        KoRule::Positional,
        0,
    );
    corner.play(Color::Black, Move::Pass).unwrap();
    assert_eq!(
        corner.play(Color::White, p(0, 0)),
        Err(IllegalMove::Suicide)
    );
}

#[test]
fn occupied_off_board_and_out_of_turn_are_refused() {
    let mut game = Game::new(Rules {
        size: 9,
        ..Rules::default()
    })
    .unwrap();
    game.play(Color::Black, p(4, 4)).unwrap();
    assert_eq!(game.play(Color::White, p(4, 4)), Err(IllegalMove::Occupied));
    assert_eq!(game.play(Color::White, p(9, 0)), Err(IllegalMove::OffBoard));
    assert_eq!(
        game.play(Color::Black, p(3, 3)),
        Err(IllegalMove::NotYourTurn)
    );
    game.play(Color::White, Move::Pass).unwrap();
    game.play(Color::Black, Move::Pass).unwrap();
    assert_eq!(game.phase(), Phase::Scoring);
    assert_eq!(game.play(Color::White, p(0, 0)), Err(IllegalMove::GameOver));
    assert!(game.resume(Color::White));
    game.play(Color::White, p(0, 0)).unwrap();
    game.play(Color::Black, Move::Resign).unwrap();
    assert_eq!(
        game.result(),
        Some(GameResult::Win {
            winner: Color::White,
            win_by: WinBy::Resign
        })
    );
    assert_eq!(game.play(Color::White, p(1, 1)), Err(IllegalMove::GameOver));
}

const KO: &str = "
    . X O . .
    X O . O .
    . X O . .
    . . . . .
    . . . . .";

#[test]
fn a_ko_cannot_be_retaken_at_once_under_any_rule_but_can_after_a_threat() {
    for rule in [KoRule::Simple, KoRule::Positional, KoRule::Situational] {
        let mut game = game_from(KO, rule, 0);
        game.play(Color::Black, p(2, 1)).unwrap();
        assert_eq!(game.last_captured(), &[Point::new(1, 1)]);
        assert_eq!(
            game.play(Color::White, p(1, 1)),
            Err(IllegalMove::Ko),
            "{rule:?}"
        );
        game.play(Color::White, p(4, 4)).unwrap();
        game.play(Color::Black, p(4, 3)).unwrap();
        game.play(Color::White, p(1, 1)).unwrap();
        assert_eq!(game.last_captured(), &[Point::new(2, 1)], "{rule:?}");
    }
}

/// Three kos side by side on 15x15: A and C hold a White stone (Black to take), B a Black one.
const TRIPLE_KO: &str = "
    . X O . . . X O . . . X O . .
    X O . O . X . X O . X O . O .
    . X O . . . X O . . . X O . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .";

#[test]
fn triple_ko_cycles_under_simple_ko_and_is_stopped_by_superko() {
    let cycle = [
        (Color::Black, p(2, 1)),  // takes A
        (Color::White, p(6, 1)),  // takes B
        (Color::Black, p(12, 1)), // takes C
        (Color::White, p(1, 1)),  // retakes A
        (Color::Black, p(7, 1)),  // retakes B
        (Color::White, p(11, 1)), // retakes C: the starting position again
    ];
    for rule in [KoRule::Simple, KoRule::Positional, KoRule::Situational] {
        let mut game = game_from(TRIPLE_KO, rule, 0);
        let start = game.board().clone();
        for &(color, mv) in &cycle[..5] {
            game.play(color, mv).unwrap();
        }
        let last = game.play(Color::White, cycle[5].1);
        match rule {
            KoRule::Simple => {
                assert_eq!(last, Ok(()));
                assert_eq!(game.board(), &start, "the whole board repeats");
            }
            _ => assert_eq!(
                last,
                Err(IllegalMove::Ko),
                "{rule:?} forbids the repetition"
            ),
        }
    }
}

#[test]
fn situational_superko_allows_a_repeated_board_with_the_other_player_to_move() {
    // The triple-ko cycle with one pass in it returns to the starting board after seven turns, so
    // with White to move where the start had Black: the same position, but not the same situation.
    let cycle = [
        (Color::Black, p(2, 1)),  // takes A
        (Color::White, p(6, 1)),  // takes B
        (Color::Black, p(12, 1)), // takes C
        (Color::White, p(1, 1)),  // retakes A
        (Color::Black, Move::Pass),
        (Color::White, p(11, 1)), // retakes C
    ];
    for rule in [KoRule::Positional, KoRule::Situational] {
        let mut game = game_from(TRIPLE_KO, rule, 0);
        let start = game.board().clone();
        for &(color, mv) in &cycle {
            game.play(color, mv).unwrap();
        }
        let repeat = game.play(Color::Black, p(7, 1)); // retakes B: the starting board
        if rule == KoRule::Positional {
            assert_eq!(repeat, Err(IllegalMove::Ko));
        } else {
            assert_eq!(repeat, Ok(()));
            assert_eq!(game.board(), &start);
            assert_eq!(game.to_move(), Color::White);
        }
    }
}

/// Two kos side by side on 9x9: A holds a White stone (Black to take), B a Black one (White to take).
const DOUBLE_KO: &str = "
    . X O . . . X O .
    X O . O . X . X O
    . X O . . . X O .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .";

#[test]
fn double_ko_repeats_after_a_pass_and_only_positional_superko_stops_it() {
    // Black takes A, White takes B; Black cannot retake B at once, so passes; White retakes A and
    // Black retakes B: the starting board again, now with White to move.
    let cycle = [
        (Color::Black, p(2, 1)),
        (Color::White, p(6, 1)),
        (Color::Black, Move::Pass),
        (Color::White, p(1, 1)),
    ];
    for rule in [KoRule::Simple, KoRule::Positional, KoRule::Situational] {
        let mut game = game_from(DOUBLE_KO, rule, 0);
        let start = game.board().clone();
        game.play(Color::Black, cycle[0].1).unwrap();
        game.play(Color::White, cycle[1].1).unwrap();
        assert_eq!(
            game.play(Color::Black, p(7, 1)),
            Err(IllegalMove::Ko),
            "{rule:?}: no immediate retake"
        );
        for &(color, mv) in &cycle[2..] {
            game.play(color, mv).unwrap();
        }
        let repeat = game.play(Color::Black, p(7, 1));
        if rule == KoRule::Positional {
            assert_eq!(repeat, Err(IllegalMove::Ko));
        } else {
            assert_eq!(repeat, Ok(()), "{rule:?}");
            assert_eq!(game.board(), &start);
        }
    }
}

#[test]
fn eternal_life_cycles_in_four_moves_under_simple_ko_and_superko_stops_it() {
    // The cycle of eternal life (长生) at the edge: Black sacrifices two stones (a6 joins b6), White
    // takes them (c6), Black takes back two (b6), White throws in (d6): the starting position again.
    const ETERNAL_LIFE: &str = "
        . X . O X .
        O O X X X .
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .";
    let cycle = [
        (Color::Black, p(0, 0)),
        (Color::White, p(2, 0)),
        (Color::Black, p(1, 0)),
        (Color::White, p(3, 0)),
    ];
    for rule in [KoRule::Simple, KoRule::Positional, KoRule::Situational] {
        let mut game = game_from(ETERNAL_LIFE, rule, 0);
        let start = game.board().clone();
        for &(color, mv) in &cycle[..3] {
            game.play(color, mv).unwrap();
        }
        assert_eq!(game.prisoners(Color::White), 2);
        assert_eq!(game.prisoners(Color::Black), 2);
        let throw_in = game.play(Color::White, cycle[3].1);
        if rule == KoRule::Simple {
            assert_eq!(throw_in, Ok(()));
            assert_eq!(game.board(), &start);
            // And round again: nothing in simple ko stops it.
            for &(color, mv) in &cycle {
                game.play(color, mv).unwrap();
            }
            assert_eq!(game.board(), &start);
        } else {
            assert_eq!(throw_in, Err(IllegalMove::Ko), "{rule:?}");
        }
    }
}

#[test]
fn undo_takes_back_exactly_one_move() {
    let mut game = game_from(KO, KoRule::Positional, 0);
    let before = game.board().clone();
    game.play(Color::Black, p(2, 1)).unwrap();
    assert_eq!(game.undo(), Ok((Color::Black, p(2, 1))));
    assert_eq!(game.board(), &before);
    assert_eq!(game.to_move(), Color::Black);
    assert_eq!(game.prisoners(Color::Black), 0);
    assert_eq!(game.undo(), Err(UndoError::NothingToUndo));
}

#[test]
fn an_eye_counts_for_its_owner_and_a_shared_liberty_is_split() {
    let game = game_from(
        "
        . X . O .
        X X X O O
        O O O O O
        . . . . .
        . . . . .",
        KoRule::Positional,
        0,
    );
    let count = count_area(game.board(), &[]);
    // a5 is Black's eye, c5 touches both colours, e5 and the two bottom rows are White's.
    assert_eq!(count.black_stones, 4);
    assert_eq!(count.black_territory, 1);
    assert_eq!(count.white_stones, 8);
    assert_eq!(count.white_territory, 11);
    assert_eq!(count.dame, 1);
    assert_eq!(
        count.half_points(Color::Black) + count.half_points(Color::White),
        50
    );
}

#[test]
fn seki_keeps_its_eyes_and_its_shared_liberties_are_dame() {
    // A seki in the corner: Black (a5 eye) and White (e5 eye) share c5 and neither can fill it.
    // White's chain is enclosed by Black's living wall, so both inner groups live only in seki.
    let game = game_from(
        "
        . X . O . O X
        X X X O O O X
        O O O O X X X
        X X X X X . X
        . . . . X X X
        . . . . . . .
        . . . . . . .",
        KoRule::Positional,
        0,
    );
    let mut filled = game.clone();
    filled.play(Color::Black, p(2, 0)).unwrap();
    // Filling the shared liberty puts Black's own group in atari: White then takes it at a7.
    filled.play(Color::White, p(0, 0)).unwrap();
    assert_eq!(filled.last_captured().len(), 5);
    let count = count_area(game.board(), &[]);
    assert_eq!(count.dame, 1, "only c7 is shared");
    assert_eq!(
        count.black_territory,
        1 + 1 + 4 + 14,
        "a7, f4, a3-d3 and the two bottom rows"
    );
    assert_eq!(count.white_territory, 1, "e7, White's eye");
}

#[test]
fn dead_stones_become_the_other_sides_territory() {
    let game = game_from(
        "
        . . X O .
        . O X O .
        . . X O .
        . . X O .
        . . X O .",
        KoRule::Positional,
        0,
    );
    let alive = count_area(game.board(), &[]);
    assert_eq!(
        alive.dame, 9,
        "the left area touches White's b4 and Black's wall"
    );
    let dead = count_area(game.board(), &[Point::new(1, 1)]);
    assert_eq!(
        dead.black_territory, 10,
        "the nine empty points and the dead stone's point"
    );
    assert_eq!(dead.white_stones, 5);
    assert_eq!(dead.white_territory, 5);
    assert_eq!(dead.half_points(Color::Black), 30);
}

#[test]
fn counting_as_the_spec_says_on_19x19() {
    use tengen_rules::{AreaCount, Score};
    let count = |black| AreaCount {
        black_stones: black,
        white_stones: 361 - black,
        ..AreaCount::default()
    };
    let win = Score::new(count(185), Komi::default(), 0);
    assert_eq!(win.result.to_sgf(), "B+1.5");
    assert_eq!(win.result.to_chinese(), "黑胜3/4子");
    let loss = Score::new(count(184), Komi::default(), 0);
    assert_eq!(loss.result.to_sgf(), "W+0.5");
    assert_eq!(loss.result.to_chinese(), "白胜1/4子");
    let draw = Score::new(count(184), Komi::from_half_points(14), 0);
    assert_eq!(draw.result, GameResult::Draw);
    assert_eq!(draw.result.to_sgf(), "0");
    assert_eq!(draw.result.to_chinese(), "和棋");
    let big = Score::new(count(190), Komi::default(), 0);
    assert_eq!(big.result.to_sgf(), "B+11.5");
    assert_eq!(big.result.to_chinese(), "黑胜5又3/4子");
}

#[test]
fn fixed_handicap_is_on_the_star_points_white_moves_first_and_black_gives_back_n_points() {
    let game = Game::new(Rules {
        size: 9,
        komi: Komi::from_half_points(0),
        handicap: 2,
        ..Rules::default()
    })
    .unwrap();
    let stones: Vec<Point> = game.board().stones().map(|(p, _)| p).collect();
    assert_eq!(
        stones,
        vec![Point::new(6, 2), Point::new(2, 6)],
        "upper right and lower left"
    );
    assert_eq!(game.to_move(), Color::White);
    let score = game.score(&[]);
    // The whole empty board is Black's: 81 points, less 2 given back for the two handicap stones.
    assert_eq!(score.handicap_compensation, 2);
    assert_eq!(score.black_margin_half_points, 2 * 81 - 2 * 2);
    let nine = Game::new(Rules {
        handicap: 9,
        ..Rules::default()
    })
    .unwrap();
    assert_eq!(nine.board().count_stones(Color::Black), 9);
    let three = tengen_rules::fixed_handicap_points(3, 19).unwrap();
    assert_eq!(
        three[2],
        Point::from_gtp("Q4", 19).unwrap(),
        "the third stone is Black's lower right"
    );
    assert!(
        tengen_rules::fixed_handicap_points(5, 10).is_err(),
        "even boards have no centre point"
    );
    assert!(tengen_rules::fixed_handicap_points(10, 19).is_err());
}

#[test]
fn free_handicap_waits_for_blacks_stones() {
    let mut game = Game::new(Rules {
        size: 13,
        handicap: 3,
        handicap_placement: HandicapPlacement::Free,
        ..Rules::default()
    })
    .unwrap();
    assert_eq!(game.phase(), Phase::PlacingHandicap);
    assert_eq!(
        game.play(Color::Black, p(0, 0)),
        Err(IllegalMove::HandicapNotPlaced)
    );
    assert!(game
        .place_free_handicap(&[Point::new(0, 0), Point::new(1, 1)])
        .is_err());
    game.place_free_handicap(&[Point::new(0, 0), Point::new(1, 1), Point::new(5, 5)])
        .unwrap();
    assert_eq!(game.to_move(), Color::White);
    assert_eq!(game.handicap_stones(), 3);
}

#[test]
fn the_estimate_finds_a_dead_stone_inside_territory_and_keeps_living_groups() {
    let game = game_from(
        "
        . . X O . . . . .
        . . X O . . . . .
        . . X O . O . . .
        . . X O . . . . .
        X X X O O O O O O
        X X X X X X X X X
        . O . . . . . . .
        . . . . . . . . .
        . . . . . . . . .",
        KoRule::Positional,
        15,
    );
    let dead = estimate_dead(game.board());
    assert_eq!(dead, vec![Point::new(1, 6)]);
    assert_eq!(estimate_dead(game.board()), dead, "deterministic");
    let score = game.score(&dead);
    assert_eq!(
        score.count.black_territory,
        8 + 27,
        "the top-left corner and the bottom three rows"
    );
}

#[test]
fn any_komi_an_i32_holds_counts_without_overflow() {
    use tengen_rules::{AreaCount, Score};
    let count = AreaCount {
        black_stones: 361,
        ..AreaCount::default()
    };
    let black = Score::new(count, Komi::from_half_points(i32::MIN), 9);
    assert_eq!(black.black_margin_half_points, i32::MAX - 18);
    let white = Score::new(AreaCount::default(), Komi::from_half_points(i32::MAX), 9);
    assert_eq!(white.black_margin_half_points, i32::MIN);
    assert!(matches!(
        white.result,
        GameResult::Win {
            winner: Color::White,
            ..
        }
    ));
}
