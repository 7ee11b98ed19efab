//! A game of Go under Chinese rules: turns, passes, resignation, the ko rule against the whole history,
//! handicap, undo and counting. The board does captures; this adds everything that needs the history.
//!
//! Superko uses Zobrist hashes as a filter and confirms every hit by replaying the game, so a hash
//! collision can never refuse a legal move. Hits only happen when a move really tries to repeat a
//! position, so the replay costs nothing in ordinary play.

use crate::board::Board;
use crate::color::Color;
use crate::error::{IllegalMove, SetupError};
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
            Move::Resign => unreachable!("handled above"),
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

    /// Takes back the last move (with the opponent's consent, which the server asks for). Returns the
    /// move taken back, or `None` when there is nothing to take back or the game is over.
    pub fn undo(&mut self) -> Option<(Color, Move)> {
        if matches!(self.phase, Phase::Over { .. } | Phase::PlacingHandicap) {
            return None;
        }
        let last = self.moves.pop()?;
        let moves = std::mem::take(&mut self.moves);
        self.replay_from_start(moves);
        Some(last)
    }

    /// Rebuilds the position and history from the start by replaying moves already known to be legal.
    fn replay_from_start(&mut self, moves: Vec<(Color, Move)>) {
        self.board = self.start.clone();
        self.to_move = self.start_to_move;
        self.ko_point = None;
        self.passes_in_a_row = 0;
        self.phase = Phase::Play;
        self.prisoners = [0, 0];
        self.last_captured.clear();
        self.remember_start();
        for (color, mv) in moves {
            self.to_move = color;
            let replayed = self.play(color, mv);
            assert!(
                replayed.is_ok(),
                "a recorded move {mv:?} by {color} failed to replay: {replayed:?}"
            );
        }
    }

    /// Leaves the scoring phase and plays on, `color` to move (the player who claimed disputed stones dead).
    pub fn resume(&mut self, color: Color) -> bool {
        if self.phase != Phase::Scoring {
            return false;
        }
        self.phase = Phase::Play;
        self.passes_in_a_row = 0;
        self.to_move = color;
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
