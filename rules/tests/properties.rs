//! Property tests over random games: whatever the moves, the board keeps its invariants, the incremental
//! hash matches one computed from scratch, undo restores the position, and SGF export round-trips.

use proptest::prelude::*;
use tengen_rules::random::{random_move, SeededRng};
use tengen_rules::sgf::{self, GameInfo, GameRecord};
use tengen_rules::{Board, Color, Game, KoRule, Move, Rules};

/// Plays up to `moves` random legal moves on a `size` board under `ko_rule`, checking after each one.
fn random_game(seed: u64, size: u8, moves: usize, ko_rule: KoRule, check: impl Fn(&Game)) -> Game {
    let mut game = Game::new(Rules {
        size,
        ko_rule,
        ..Rules::default()
    })
    .unwrap();
    let mut rng = SeededRng::new(seed);
    for _ in 0..moves {
        let color = game.to_move();
        let mv = random_move(&game, color, &mut rng);
        if mv == Move::Pass {
            break;
        }
        game.play(color, mv).unwrap();
        check(&game);
    }
    game
}

fn check_invariants(game: &Game) {
    let board = game.board();
    for (point, _) in board.stones() {
        assert!(
            board.liberties(point) > 0,
            "a chain without liberties at {point}"
        );
    }
    let placed = game
        .moves()
        .iter()
        .filter(|(_, m)| matches!(m, Move::Play(_)))
        .count();
    let captured = (game.prisoners(Color::Black) + game.prisoners(Color::White)) as usize;
    let on_board = board.count_stones(Color::Black) + board.count_stones(Color::White);
    assert_eq!(on_board, placed - captured);
    assert_eq!(board.hash(), recomputed_hash(board));
}

/// The hash of the same stones placed one by one on an empty board.
fn recomputed_hash(board: &Board) -> u64 {
    let mut fresh = Board::new(board.size()).unwrap();
    for (point, color) in board.stones() {
        fresh.place_setup_stone(point, color).unwrap();
    }
    fresh.hash()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_every_invariant(seed in any::<u64>(), size in 2u8..=13, rule in 0..3usize) {
        let ko_rule = [KoRule::Simple, KoRule::Positional, KoRule::Situational][rule];
        random_game(seed, size, 3 * size as usize * size as usize, ko_rule, check_invariants);
    }

    #[test]
    fn undo_restores_the_position_before_the_move(seed in any::<u64>(), moves in 1usize..120) {
        let game = random_game(seed, 9, moves, KoRule::Positional, |_| {});
        let Some(&(color, last)) = game.moves().last() else { return Ok(()) };
        let mut before = game.clone();
        before.undo().unwrap();
        let mut redone = before.clone();
        redone.play(color, last).unwrap();
        prop_assert_eq!(redone.board(), game.board());
        prop_assert_eq!(before.moves().len() + 1, game.moves().len());
        prop_assert_eq!(before.to_move(), color);
    }

    #[test]
    fn sgf_export_then_import_gives_the_same_game(seed in any::<u64>(), size in 2u8..=19, moves in 0usize..200) {
        let game = random_game(seed, size, moves, KoRule::Positional, |_| {});
        let info = GameInfo {
            black: Some("黑 [player]".into()),
            white: Some("White \\\\ one".into()),
            ..GameInfo::default()
        };
        let text = GameRecord::from_game(&game, &info).to_sgf();
        let record = sgf::parse(text.as_bytes()).unwrap();
        prop_assert_eq!(record.info.black.as_deref(), Some("黑 [player]"));
        prop_assert_eq!(record.info.white.as_deref(), Some("White \\\\ one"));
        prop_assert_eq!(record.info.size, size);
        let replayed = record.replay(KoRule::Positional).unwrap();
        prop_assert_eq!(replayed.board(), game.board());
        prop_assert_eq!(replayed.moves(), game.moves());
        prop_assert_eq!(record.to_sgf(), text);
    }

    #[test]
    fn sgf_parsing_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = sgf::parse(&bytes);
    }

    #[test]
    fn sgf_parsing_of_mangled_records_never_panics(seed in any::<u64>(), cut in 0usize..2000, junk in any::<u8>()) {
        let game = random_game(seed, 9, 60, KoRule::Positional, |_| {});
        let mut text = GameRecord::from_game(&game, &GameInfo::default()).to_sgf().into_bytes();
        let at = cut % (text.len() + 1);
        text.insert(at, junk);
        if let Ok(record) = sgf::parse(&text) {
            let _ = record.replay(KoRule::Positional);
        }
        text.truncate(at);
        let _ = sgf::parse(&text);
    }
}
