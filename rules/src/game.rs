//! A game of Go under Chinese rules: turns, passes, resignation, the ko rule against the whole history,
//! handicap, undo and counting. The board does captures; this adds everything that needs the history.
//!
//! The history records exactly what happened: every move, and every point where play resumed after a
//! scoring dispute (and who was to move then), so an undo replays the same game, resumes included.
//! A replay that cannot apply the record changes nothing and reports why.
//!
//! Superko uses Zobrist hashes as a filter and confirms every hit by replaying the game, so a hash
//! collision can never refuse a legal move. Hits only happen when a move really tries to repeat a
//! position, so the replay costs nothing in ordinary play.

use crate::board::Board;
use crate::color::Color;
use crate::error::{IllegalMove, SetupError, UndoError};
use crate::handicap::fixed_handicap_points;
use crate::point::{Move, Point};
use crate::score::{count_area, GameResult, Komi, Score};
use crate::zobrist::WHITE_TO_MOVE_KEY;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// Which repetitions are forbidden.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KoRule {
    /// Only the immediate recapture of a single-stone ko is forbidden.
    Simple,
    /// No play may recreate any earlier whole-board position (Chinese rules; the default).
    #[default]
    Positional,
    /// No play may recreate an earlier position with the same player to move.
    Situational,
}

/// Where handicap stones go.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandicapPlacement {
    /// On the star points, in the traditional order; White moves next.
    #[default]
    Fixed,
    /// Black chooses the points before play starts; White moves next.
    Free,
}

/// Everything agreed before the first move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rules {
    pub size: u8,
    pub komi: Komi,
    /// Handicap stones: 0 (or 1, taking Black with no stones placed) for none, else 2..=9.
    pub handicap: u8,
    pub handicap_placement: HandicapPlacement,
    pub ko_rule: KoRule,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            size: 19,
            komi: Komi::default(),
            handicap: 0,
            handicap_placement: HandicapPlacement::Fixed,
            ko_rule: KoRule::Positional,
        }
    }
}

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "phase")]
pub enum Phase {
    /// Free handicap: Black must place the stones before anyone moves.
    PlacingHandicap,
    Play,
    /// Both players passed in a row; dead stones are being agreed. `resume` returns to play.
    Scoring,
    Over {
        result: GameResult,
    },
}

/// Zobrist hashes are already uniformly random, so the hash set uses them as they are.
#[derive(Debug, Default)]
struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

type HashHistory = HashSet<u64, BuildHasherDefault<IdentityHasher>>;

/// Play resumed after a scoring dispute: after how many moves of the history, and who was to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Resumption {
    pub after_moves: usize,
    pub to_move: Color,
}

/// One game: the rules, the position, and everything played since the setup.
#[derive(Debug, Clone)]
pub struct Game {
    rules: Rules,
    board: Board,
    /// The position after setup (handicap, SGF `AB`/`AW`), from which the history replays.
    start: Board,
    start_to_move: Color,
    handicap_stones: u8,
    to_move: Color,
    moves: Vec<(Color, Move)>,
    /// Where play resumed after two passes, in order. At most one per two passes, so bounded by the
    /// moves; an undo drops those after the moves it keeps.
    resumptions: Vec<Resumption>,
    /// Hashes of every earlier position (positional) or situation (situational) for superko.
    seen: HashHistory,
    /// Under simple ko, the point the player to move may not retake.
    ko_point: Option<u16>,
    passes_in_a_row: u8,
    phase: Phase,
    prisoners: [u32; 2],
    last_captured: Vec<Point>,
}

impl Game {
    /// A new game; fixed handicap stones are placed at once, free ones wait for `place_free_handicap`.
    pub fn new(rules: Rules) -> Result<Game, SetupError> {
        let board = Board::new(rules.size)?;
        let mut game = Game {
            rules,
            start: board.clone(),
            board,
            start_to_move: Color::Black,
            handicap_stones: 0,
            to_move: Color::Black,
            moves: Vec::new(),
            resumptions: Vec::new(),
            seen: HashHistory::default(),
            ko_point: None,
            passes_in_a_row: 0,
            phase: Phase::Play,
            prisoners: [0, 0],
            last_captured: Vec::new(),
        };
        match (rules.handicap, rules.handicap_placement) {
            (0 | 1, _) => {}
            (stones, HandicapPlacement::Fixed) => {
                let points = fixed_handicap_points(stones, rules.size)?;
                game.place_handicap(&points)?;
            }
            (stones, HandicapPlacement::Free) => {
                if stones > 9 || stones as usize >= rules.size as usize * rules.size as usize {
                    return Err(SetupError::Handicap {
                        stones,
                        size: rules.size,
                    });
                }
                game.phase = Phase::PlacingHandicap;
            }
        }
        game.remember_start();
        Ok(game)
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The position after setup, before the first move.
    pub fn start_board(&self) -> &Board {
        &self.start
    }

    pub fn to_move(&self) -> Color {
        self.to_move
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Every move since setup, in order, with who made it.
    pub fn moves(&self) -> &[(Color, Move)] {
        &self.moves
    }

    /// Where play resumed after scoring disputes, in order.
    pub fn resumptions(&self) -> &[Resumption] {
        &self.resumptions
    }

    /// Stones captured so far by `color`.
    pub fn prisoners(&self, color: Color) -> u32 {
        self.prisoners[color.index()]
    }

    /// The points the last accepted move captured.
    pub fn last_captured(&self) -> &[Point] {
        &self.last_captured
    }

    /// Handicap stones Black received, which Black gives back at counting.
    pub fn handicap_stones(&self) -> u8 {
        self.handicap_stones
    }

    /// Places Black's free handicap stones; White moves next.
    pub fn place_free_handicap(&mut self, points: &[Point]) -> Result<(), SetupError> {
        if self.phase != Phase::PlacingHandicap {
            return Err(SetupError::AlreadyStarted);
        }
        if points.len() != self.rules.handicap as usize {
            return Err(SetupError::Handicap {
                stones: points.len().min(255) as u8,
                size: self.rules.size,
            });
        }
        self.place_handicap(points)?;
        self.phase = Phase::Play;
        self.remember_start();
        Ok(())
    }

    /// Adds setup stones (SGF `AB`/`AW`) before the first move; they become part of the start position.
    pub fn add_setup_stones(&mut self, color: Color, points: &[Point]) -> Result<(), SetupError> {
        if !self.moves.is_empty() {
            return Err(SetupError::AlreadyStarted);
        }
        let mut board = self.start.clone();
        for &point in points {
            board.place_setup_stone(point, color)?;
        }
        self.start = board.clone();
        self.board = board;
        self.remember_start();
        Ok(())
    }

    /// Sets who moves first, before the first move (SGF `PL`, or a record whose first move is White's).
    pub fn set_first_to_move(&mut self, color: Color) -> Result<(), SetupError> {
        if !self.moves.is_empty() {
            return Err(SetupError::AlreadyStarted);
        }
        self.start_to_move = color;
        self.to_move = color;
        self.remember_start();
        Ok(())
    }

    fn place_handicap(&mut self, points: &[Point]) -> Result<(), SetupError> {
        let mut board = self.start.clone();
        for &point in points {
            board.place_setup_stone(point, Color::Black)?;
        }
        self.start = board.clone();
        self.board = board;
        self.handicap_stones = points.len() as u8;
        self.start_to_move = Color::White;
        self.to_move = Color::White;
        Ok(())
    }

    /// Resets the history to the start position (called whenever the setup changes).
    fn remember_start(&mut self) {
        self.seen.clear();
        self.seen
            .insert(self.history_key(self.start.hash(), self.start_to_move));
    }

    /// The key under which a position enters the superko history.
    fn history_key(&self, board_hash: u64, to_move: Color) -> u64 {
        match (self.rules.ko_rule, to_move) {
            (KoRule::Situational, Color::White) => board_hash ^ WHITE_TO_MOVE_KEY,
            _ => board_hash,
        }
    }

    /// Makes `color`'s move if it is legal; otherwise nothing changes and the reason comes back.
    pub fn play(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        if mv == Move::Resign {
            return self.resign(color);
        }
        match self.phase {
            Phase::Play => {}
            Phase::PlacingHandicap if color == Color::Black => {
                return Err(IllegalMove::HandicapNotPlaced)
            }
            Phase::PlacingHandicap => return Err(IllegalMove::NotYourTurn),
            Phase::Scoring | Phase::Over { .. } => return Err(IllegalMove::GameOver),
        }
        if color != self.to_move {
            return Err(IllegalMove::NotYourTurn);
        }
        match mv {
            Move::Play(point) => self.play_stone(color, point),
            Move::Pass => {
                self.pass(color);
                Ok(())
            }
            Move::Resign => self.resign(color),
        }
    }

    /// Plays for `color` whoever is to move, as GTP's `play` and SGF records (two moves of one colour) need.
    pub fn play_as(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        if self.phase == Phase::Play {
            let saved = self.to_move;
            self.to_move = color;
            let outcome = self.play(color, mv);
            if outcome.is_err() {
                self.to_move = saved;
            }
            outcome
        } else {
            self.play(color, mv)
        }
    }

    /// Whether `color` could play at `point` now, without playing it (turn not considered).
    pub fn check_play(&self, color: Color, point: Point) -> Result<(), IllegalMove> {
        if self.phase != Phase::Play {
            return Err(IllegalMove::GameOver);
        }
        self.check_stone(color, point).map(|_| ())
    }

    /// Checks a stone against the board and the ko rule; returns the history key of the position after it.
    fn check_stone(&self, color: Color, point: Point) -> Result<(u64, Option<u16>), IllegalMove> {
        let preview = self.board.preview(point, color)?;
        let key = self.history_key(preview.hash_after, color.opponent());
        match self.rules.ko_rule {
            KoRule::Simple => {
                let index = self.board.index(point) as u16;
                if self.ko_point == Some(index) {
                    return Err(IllegalMove::Ko);
                }
            }
            KoRule::Positional | KoRule::Situational => {
                if self.seen.contains(&key) && self.repeats_earlier_position(color, point) {
                    return Err(IllegalMove::Ko);
                }
            }
        }
        Ok((key, preview.ko_point))
    }

    fn play_stone(&mut self, color: Color, point: Point) -> Result<(), IllegalMove> {
        let (key, ko_point) = self.check_stone(color, point)?;
        self.last_captured.clear();
        self.board
            .play_unchecked(point, color, &mut self.last_captured);
        self.prisoners[color.index()] += self.last_captured.len() as u32;
        self.ko_point = ko_point;
        if self.rules.ko_rule != KoRule::Simple {
            self.seen.insert(key);
        }
        self.passes_in_a_row = 0;
        self.moves.push((color, Move::Play(point)));
        self.to_move = color.opponent();
        Ok(())
    }

    fn pass(&mut self, color: Color) {
        self.last_captured.clear();
        self.ko_point = None;
        self.passes_in_a_row += 1;
        self.moves.push((color, Move::Pass));
        self.to_move = color.opponent();
        if self.rules.ko_rule == KoRule::Situational {
            let key = self.history_key(self.board.hash(), self.to_move);
            self.seen.insert(key);
        }
        if self.passes_in_a_row >= 2 {
            self.phase = Phase::Scoring;
        }
    }

    fn resign(&mut self, color: Color) -> Result<(), IllegalMove> {
        if let Phase::Over { .. } = self.phase {
            return Err(IllegalMove::GameOver);
        }
        self.moves.push((color, Move::Resign));
        self.phase = Phase::Over {
            result: GameResult::Win {
                winner: color.opponent(),
                win_by: crate::score::WinBy::Resign,
            },
        };
        Ok(())
    }

    /// Confirms a superko hash hit exactly: replays the game and compares whole boards (and, under
    /// situational superko, who is to move) with the position the play would make.
    fn repeats_earlier_position(&self, color: Color, point: Point) -> bool {
        let mut after = self.board.clone();
        let mut scratch = Vec::new();
        after.play_unchecked(point, color, &mut scratch);
        let after_to_move = color.opponent();
        let situational = self.rules.ko_rule == KoRule::Situational;
        let same = |board: &Board, to_move: Color| {
            *board == after && (!situational || to_move == after_to_move)
        };
        let mut board = self.start.clone();
        let mut to_move = self.start_to_move;
        if same(&board, to_move) {
            return true;
        }
        for &(mover, mv) in &self.moves {
            match mv {
                Move::Play(p) => board.play_unchecked(p, mover, &mut scratch),
                Move::Pass | Move::Resign => {}
            }
            to_move = mover.opponent();
            if same(&board, to_move) {
                return true;
            }
        }
        false
    }

    /// Takes back the last move (with the opponent's consent, which the server asks for), and the
    /// resumption after it if play had resumed since. Returns the move taken back; when there is
    /// nothing to take back, the game is over, or the record fails to replay, nothing changes and
    /// the reason comes back.
    pub fn undo(&mut self) -> Result<(Color, Move), UndoError> {
        if matches!(self.phase, Phase::Over { .. } | Phase::PlacingHandicap) {
            return Err(UndoError::NotInPlay);
        }
        let Some((&last, kept)) = self.moves.split_last() else {
            return Err(UndoError::NothingToUndo);
        };
        let resumptions: Vec<Resumption> = self
            .resumptions
            .iter()
            .copied()
            .filter(|resumption| resumption.after_moves <= kept.len())
            .collect();
        *self = self.replayed(kept, &resumptions)?;
        Ok(last)
    }

    /// A game rebuilt from the start position by replaying `moves`, resuming play wherever
    /// `resumptions` say; an error when the record does not replay (this game is left as it was).
    fn replayed(
        &self,
        moves: &[(Color, Move)],
        resumptions: &[Resumption],
    ) -> Result<Game, UndoError> {
        let mut game = Game {
            rules: self.rules,
            board: self.start.clone(),
            start: self.start.clone(),
            start_to_move: self.start_to_move,
            handicap_stones: self.handicap_stones,
            to_move: self.start_to_move,
            moves: Vec::with_capacity(moves.len()),
            resumptions: Vec::with_capacity(resumptions.len()),
            seen: HashHistory::default(),
            ko_point: None,
            passes_in_a_row: 0,
            phase: Phase::Play,
            prisoners: [0, 0],
            last_captured: Vec::new(),
        };
        game.remember_start();
        let mut pending = resumptions.iter().peekable();
        for (index, &(color, mv)) in moves.iter().enumerate() {
            game.resume_where_recorded(index, &mut pending)?;
            // As recorded: a record may hold two moves of one colour in a row (see `play_as`).
            game.to_move = color;
            game.play(color, mv).map_err(|reason| UndoError::Replay {
                move_number: index + 1,
                reason,
            })?;
        }
        game.resume_where_recorded(moves.len(), &mut pending)?;
        match pending.next() {
            Some(resumption) => Err(UndoError::Resume {
                after_moves: resumption.after_moves,
            }),
            None => Ok(game),
        }
    }

    /// Applies the resumptions recorded after `moves_count` moves, as they happened.
    fn resume_where_recorded<'a>(
        &mut self,
        moves_count: usize,
        pending: &mut std::iter::Peekable<impl Iterator<Item = &'a Resumption>>,
    ) -> Result<(), UndoError> {
        while let Some(resumption) = pending.next_if(|r| r.after_moves == moves_count) {
            if !self.resume(resumption.to_move) {
                return Err(UndoError::Resume {
                    after_moves: moves_count,
                });
            }
        }
        Ok(())
    }

    /// Leaves the scoring phase and plays on, `color` to move (the player who claimed disputed stones
    /// dead); the history records where and for whom.
    pub fn resume(&mut self, color: Color) -> bool {
        if self.phase != Phase::Scoring {
            return false;
        }
        self.phase = Phase::Play;
        self.passes_in_a_row = 0;
        self.to_move = color;
        self.resumptions.push(Resumption {
            after_moves: self.moves.len(),
            to_move: color,
        });
        true
    }

    /// Counts the board with the chains through `dead` removed, komi and handicap compensation applied.
    pub fn score(&self, dead: &[Point]) -> Score {
        let compensation = if self.handicap_stones >= 2 {
            self.handicap_stones
        } else {
            0
        };
        Score::new(count_area(&self.board, dead), self.rules.komi, compensation)
    }

    /// Ends the game with `result` (counted, timeout, forfeit, void: decided outside the rules).
    pub fn end(&mut self, result: GameResult) {
        self.phase = Phase::Over { result };
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<GameResult> {
        match self.phase {
            Phase::Over { result } => Some(result),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nine() -> Game {
        Game::new(Rules {
            size: 9,
            ..Rules::default()
        })
        .unwrap()
    }

    fn at(col: u8, row: u8) -> Move {
        Move::Play(Point::new(col, row))
    }

    /// Pass, pass, a dispute resumes play with Black to move, and three moves follow.
    fn resumed_and_played_on() -> Game {
        let mut game = nine();
        game.play(Color::Black, Move::Pass).unwrap();
        game.play(Color::White, Move::Pass).unwrap();
        assert!(game.resume(Color::Black));
        game.play(Color::Black, at(2, 2)).unwrap();
        game.play(Color::White, at(6, 6)).unwrap();
        game.play(Color::Black, at(2, 6)).unwrap();
        game
    }

    #[test]
    fn an_undo_after_play_resumed_replays_the_resumption() {
        let mut game = resumed_and_played_on();
        assert_eq!(game.undo(), Ok((Color::Black, at(2, 6))));
        assert_eq!(game.phase(), Phase::Play);
        assert_eq!(game.to_move(), Color::Black);
        assert_eq!(game.moves().len(), 4);
        assert_eq!(game.board().get(Point::new(2, 6)), None);
        assert_eq!(game.board().get(Point::new(6, 6)), Some(Color::White));
        // Play goes on from there as it would have.
        game.play(Color::Black, at(4, 4)).unwrap();
        assert_eq!(game.to_move(), Color::White);
    }

    #[test]
    fn undo_back_over_the_resumption_returns_to_the_passes() {
        let mut game = resumed_and_played_on();
        for _ in 0..3 {
            game.undo().unwrap();
        }
        // Back at the resumption: play is on, Black (who claimed the stones dead) to move.
        assert_eq!(game.phase(), Phase::Play);
        assert_eq!(game.to_move(), Color::Black);
        assert_eq!(game.resumptions().len(), 1);
        // Over it: White's pass is taken back, and the resumption with it.
        assert_eq!(game.undo(), Ok((Color::White, Move::Pass)));
        assert_eq!(game.phase(), Phase::Play);
        assert_eq!(game.to_move(), Color::White);
        assert!(game.resumptions().is_empty());
        // White passes again: scoring, as the first time.
        game.play(Color::White, Move::Pass).unwrap();
        assert_eq!(game.phase(), Phase::Scoring);
        assert_eq!(game.undo(), Ok((Color::White, Move::Pass)));
        assert_eq!(game.undo(), Ok((Color::Black, Move::Pass)));
        assert_eq!(game.undo(), Err(UndoError::NothingToUndo));
    }

    #[test]
    fn two_disputes_in_one_game_both_replay() {
        let mut game = resumed_and_played_on();
        game.play(Color::White, Move::Pass).unwrap();
        game.play(Color::Black, Move::Pass).unwrap();
        assert!(game.resume(Color::White));
        game.play(Color::White, at(0, 0)).unwrap();
        assert_eq!(game.undo(), Ok((Color::White, at(0, 0))));
        assert_eq!((game.phase(), game.to_move()), (Phase::Play, Color::White));
        assert_eq!(game.resumptions().len(), 2);
        game.play(Color::White, at(0, 0)).unwrap();
        assert_eq!(game.board().get(Point::new(0, 0)), Some(Color::White));
    }

    #[test]
    fn a_record_that_does_not_replay_refuses_the_undo_and_changes_nothing() {
        let mut game = resumed_and_played_on();
        // A history whose resumption is lost cannot replay the move after the two passes.
        game.resumptions.clear();
        let before = (game.board().clone(), game.moves().to_vec(), game.to_move());
        assert_eq!(
            game.undo(),
            Err(UndoError::Replay {
                move_number: 3,
                reason: IllegalMove::GameOver
            })
        );
        assert_eq!(
            (game.board().clone(), game.moves().to_vec(), game.to_move()),
            before
        );
        // A resumption where play was not in scoring does not replay either.
        let mut game = resumed_and_played_on();
        game.resumptions[0].after_moves = 1;
        assert_eq!(game.undo(), Err(UndoError::Resume { after_moves: 1 }));
        assert_eq!(game.moves().len(), 5);
    }
}
