//! Study boards (研究) and local play (单机): one connection's private board, checked by the same engine
//! as live games, where one user plays both sides, steps back and forth, branches variations, loads
//! an SGF record and asks for the area count (点目). Nothing here is rated, wagered or stored: the
//! study lives in the session and goes with it. Pure state transitions; the session turns them into
//! `study` replies.
//!
//! The study is a tree of moves with a cursor. The engine `Game` always holds exactly the moves from
//! the root to the cursor: stepping forward plays the child's move, stepping back asks the engine to
//! undo, so every position shown is one the engine reached itself.
//!
//! A record opens in its own rules and charset: its bytes are decoded by the SGF reader (`CA`, then
//! detection), and its main line is replayed under the ko rule its `RU` names (a Japanese game may
//! repeat a position through a triple ko), or with none named, the strictest rule the record keeps.
//! The study then checks every move under that rule, and shows it.

use tengen_protocol::{CharsetFrom, ErrorCode, KoRuleFrom, StudyRecord, StudyView};
use tengen_rules::sgf::{self, CharsetSource, GameRecord, ReplayError};
use tengen_rules::{estimate_dead, Color, Game, IllegalMove, KoRule, Move, Phase, Point, Rules};

use crate::config::{STUDY_NODES_MAX, STUDY_SGF_BYTES_MAX};
use crate::game::wire;
use crate::{refuse, Refusal};

/// Komi a study accepts, either way, in half points: the 1,000 points an SGF record may say. More is
/// a typing error (and would overflow a count).
pub const STUDY_KOMI_HALF_POINTS_MAX: u32 = 2_000;

/// One move of the tree; the root (index 0) has none.
#[derive(Debug, Clone)]
struct Node {
    color: Color,
    mv: Move,
    parent: usize,
    children: Vec<usize>,
    /// The record's comment on the position this move leads to (on the root: the game's comment).
    comment: Option<String>,
}

/// A study board.
#[derive(Debug, Clone)]
pub struct Study {
    game: Game,
    nodes: Vec<Node>,
    cursor: usize,
    /// The game information of the record it was loaded from, as the view shows it.
    record: Option<StudyRecord>,
}

/// The area count of a study position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StudyCount {
    pub dead: Vec<Point>,
    pub black_count_half_points: u32,
    pub white_count_half_points: u32,
    pub result: String,
}

impl Study {
    /// An empty board of `size` with `handicap` stones on the star points.
    pub fn open(size: u8, komi_half_points: i32, handicap: u8) -> Result<Study, Refusal> {
        if komi_half_points.unsigned_abs() > STUDY_KOMI_HALF_POINTS_MAX {
            return refuse(
                ErrorCode::InvalidSettings,
                format!(
                    "komi is at most {} points either way",
                    STUDY_KOMI_HALF_POINTS_MAX / 2
                ),
            );
        }
        let rules = Rules {
            size,
            komi: tengen_rules::Komi::from_half_points(komi_half_points),
            handicap,
            ..Rules::default()
        };
        let game = Game::new(rules)
            .map_err(|err| Refusal::new(ErrorCode::InvalidSettings, err.to_string()))?;
        Ok(Study::from_start(game))
    }

    fn from_start(game: Game) -> Study {
        Study {
            game,
            nodes: vec![Node {
                color: Color::Black,
                mv: Move::Pass,
                parent: 0,
                children: Vec::new(),
                comment: None,
            }],
            cursor: 0,
            record: None,
        }
    }

    /// The main line of an SGF file (its bytes, in any charset the reader knows), positioned at the
    /// start. Refused `bad_sgf` with the reason: where the text is malformed (line and column), or
    /// which move does not replay and why.
    pub fn load_sgf(bytes: &[u8]) -> Result<Study, Refusal> {
        let bad = |err: String| Refusal::new(ErrorCode::BadSgf, err);
        if bytes.len() > STUDY_SGF_BYTES_MAX {
            return Err(bad(format!(
                "the file is {} bytes; a study opens records of up to {STUDY_SGF_BYTES_MAX} bytes",
                bytes.len()
            )));
        }
        let record = sgf::parse(bytes).map_err(|err| bad(err.to_string()))?;
        Study::from_record(&record).map_err(bad)
    }

    fn from_record(record: &GameRecord) -> Result<Study, String> {
        if record.moves.len() >= STUDY_NODES_MAX {
            return Err(format!("a study holds at most {STUDY_NODES_MAX} moves"));
        }
        // The whole line must replay; the study then starts from the setup position, and the
        // engine replays the moves from there as the user steps on.
        let (game, ko_rule) = record
            .replay_under_own_rules()
            .map_err(|err| refused_replay(record, &err))?;
        let moves = game.moves().to_vec();
        let setup = GameRecord {
            moves: Vec::new(),
            ..record.clone()
        };
        let game = setup.replay(ko_rule).map_err(|err| err.to_string())?;
        let mut study = Study::from_start(game);
        study.nodes[0].comment = record.info.comment.clone();
        let mut parent = 0;
        for ((color, mv), recorded) in moves.into_iter().zip(&record.moves) {
            parent = study.add_child(parent, color, mv);
            study.nodes[parent].comment = recorded.comment.clone();
        }
        study.record = Some(record_view(record, ko_rule));
        Ok(study)
    }

    fn add_child(&mut self, parent: usize, color: Color, mv: Move) -> usize {
        let index = self.nodes.len();
        self.nodes.push(Node {
            color,
            mv,
            parent,
            children: Vec::new(),
            comment: None,
        });
        self.nodes[parent].children.push(index);
        index
    }

    /// Play the side to move: follow an existing variation with this move, or branch a new one.
    pub fn play(&mut self, mv: Move) -> Result<(), Refusal> {
        let color = self.game.to_move();
        let existing = self.nodes[self.cursor]
            .children
            .iter()
            .copied()
            .find(|&child| self.nodes[child].color == color && self.nodes[child].mv == mv);
        if existing.is_none() && self.nodes.len() >= STUDY_NODES_MAX {
            return refuse(
                ErrorCode::NotAllowed,
                format!("a study holds at most {STUDY_NODES_MAX} moves"),
            );
        }
        self.apply(color, mv).map_err(wire::illegal)?;
        self.cursor = match existing {
            Some(child) => child,
            None => self.add_child(self.cursor, color, mv),
        };
        Ok(())
    }

    /// Play a move on the engine, resuming play after two passes (a study never stops for scoring).
    fn apply(&mut self, color: Color, mv: Move) -> Result<(), tengen_rules::IllegalMove> {
        if self.game.phase() == Phase::Scoring {
            self.game.resume(color);
        }
        self.game.play_as(color, mv)
    }

    pub fn back(&mut self) -> Result<(), Refusal> {
        if self.cursor == 0 {
            return refuse(ErrorCode::NoSuchMove, "this is the start");
        }
        // The engine holds exactly the moves to the cursor, so this only fails if that broke; the
        // study is then left as it was.
        self.game
            .undo()
            .map_err(|err| Refusal::new(ErrorCode::Internal, err.to_string()))?;
        self.cursor = self.nodes[self.cursor].parent;
        Ok(())
    }

    pub fn forward(&mut self, variation: u32) -> Result<(), Refusal> {
        let Some(&child) = self.nodes[self.cursor].children.get(variation as usize) else {
            return refuse(
                ErrorCode::NoSuchMove,
                format!("there is no variation {variation} from here"),
            );
        };
        let Node { color, mv, .. } = self.nodes[child];
        // Every move of the tree was played from this very position before, so this only fails if
        // that broke; the study is then left as it was.
        self.apply(color, mv)
            .map_err(|err| Refusal::new(ErrorCode::Internal, err.to_string()))?;
        self.cursor = child;
        Ok(())
    }

    /// Go to move `move_number` of the line through the cursor: back towards the start, or forward
    /// along the first variation, stopping at the line's end. Done on a copy and kept only whole, so
    /// a step that fails (which would be a broken tree) leaves the study as it was.
    pub fn goto(&mut self, move_number: u32) -> Result<(), Refusal> {
        let target = move_number as usize;
        let mut moved = self.clone();
        while moved.game.moves().len() > target && moved.cursor != 0 {
            moved.back()?;
        }
        while moved.game.moves().len() < target && !moved.nodes[moved.cursor].children.is_empty() {
            moved.forward(0)?;
        }
        *self = moved;
        Ok(())
    }

    /// 点目: the engine's dead-stone estimate and the area count with it removed.
    pub fn count(&self) -> StudyCount {
        let dead: Vec<Point> = estimate_dead(self.game.board());
        let score = self.game.score(&dead);
        StudyCount {
            dead: dead.to_vec(),
            black_count_half_points: score.count.half_points(Color::Black),
            white_count_half_points: score.count.half_points(Color::White),
            result: score.result.to_sgf(),
        }
    }

    pub fn view(&self) -> StudyView {
        let node = &self.nodes[self.cursor];
        let last_move = match (self.cursor, node.mv) {
            (0, _) | (_, Move::Pass | Move::Resign) => None,
            (_, Move::Play(point)) => Some(point),
        };
        let next_moves = node
            .children
            .iter()
            .map(|&child| match self.nodes[child].mv {
                Move::Play(point) => Some(point),
                Move::Pass | Move::Resign => None,
            })
            .collect();
        StudyView {
            size: self.game.rules().size,
            board: wire::board_rows(self.game.board()),
            to_move: (self.game.to_move()),
            move_number: self.game.moves().len() as u32,
            last_move,
            captures_black: self.game.prisoners(Color::Black),
            captures_white: self.game.prisoners(Color::White),
            next_moves,
            ko_rule: self.game.rules().ko_rule,
            comment: node.comment.clone(),
            record: self.record.clone(),
        }
    }
}

/// Why a record's main line does not replay: the move and its reason, and for a repeated position
/// the ko rule it was replayed under and why that one.
fn refused_replay(record: &GameRecord, err: &ReplayError) -> String {
    let ReplayError::Illegal {
        reason: IllegalMove::Ko,
        ..
    } = err
    else {
        return err.to_string();
    };
    match (record.info.ko_rule(), record.info.rules.as_deref()) {
        (Some(rule), Some(rules)) => {
            format!("{err} (under {}, as RU[{rules}] says)", ko_rule_name(rule))
        }
        _ => format!("{err} (even under the basic ko rule)"),
    }
}

fn ko_rule_name(rule: KoRule) -> &'static str {
    match rule {
        KoRule::Simple => "the basic ko rule",
        KoRule::Positional => "positional superko",
        KoRule::Situational => "situational superko",
    }
}

/// A record's game information for the view, with the rule it replays under and why.
fn record_view(record: &GameRecord, ko_rule: KoRule) -> StudyRecord {
    let info = &record.info;
    let ko_rule_from = match info.ko_rule() {
        Some(_) => KoRuleFrom::Rules,
        None if ko_rule == KoRule::Positional => KoRuleFrom::Strictest,
        None => KoRuleFrom::Fallback,
    };
    StudyRecord {
        black: info.black.clone(),
        white: info.white.clone(),
        black_rank: info.black_rank.clone(),
        white_rank: info.white_rank.clone(),
        name: info.name.clone(),
        event: info.event.clone(),
        date: info.date.clone(),
        place: info.place.clone(),
        result: info.result.clone(),
        rules: info.rules.clone(),
        komi_half_points: info.komi.half_points,
        handicap: info.handicap,
        moves_count: u32::try_from(record.moves.len()).unwrap_or(u32::MAX),
        charset: record.charset.name.to_string(),
        charset_from: match record.charset.source {
            CharsetSource::ByteOrderMark => CharsetFrom::ByteOrderMark,
            CharsetSource::Utf8 => CharsetFrom::Utf8,
            CharsetSource::Declared => CharsetFrom::Declared,
            CharsetSource::Detected => CharsetFrom::Detected,
        },
        ko_rule_from,
    }
}

/// The bytes of a file sent in base64 (the standard alphabet, with padding; line breaks and spaces,
/// which some encoders add, are ignored). Broken base64 is refused `bad_sgf` with where it breaks.
pub fn decode_base64(encoded: &str) -> Result<Vec<u8>, Refusal> {
    use base64::Engine;
    let compact: String = encoded
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .map_err(|err| {
            Refusal::new(
                ErrorCode::BadSgf,
                format!("the file is not valid base64: {err}"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(col: u8, row: u8) -> Move {
        Move::Play(Point::new(col, row))
    }

    #[test]
    fn one_user_plays_both_sides_steps_back_and_branches() {
        let mut study = Study::open(9, 15, 0).unwrap();
        study.play(at(2, 2)).unwrap();
        study.play(at(6, 6)).unwrap();
        assert_eq!(study.view().board[2], "..X......");
        assert_eq!(study.view().to_move, Color::Black);
        // The engine checks every move.
        assert_eq!(study.play(at(2, 2)).unwrap_err().code, ErrorCode::Occupied);
        study.back().unwrap();
        assert_eq!(study.view().board[6], ".........");
        assert_eq!(study.view().next_moves, vec![Some(Point::new(6, 6))]);
        // A different reply branches a second variation; the first is kept.
        study.play(at(6, 2)).unwrap();
        study.back().unwrap();
        assert_eq!(study.view().next_moves.len(), 2);
        // Playing an existing variation's move follows it instead of copying it.
        study.play(at(6, 6)).unwrap();
        study.back().unwrap();
        assert_eq!(study.view().next_moves.len(), 2);
        study.forward(1).unwrap();
        assert_eq!(study.view().board[2], "..X...O..");
        assert_eq!(study.forward(0).unwrap_err().code, ErrorCode::NoSuchMove);
        study.back().unwrap();
        study.back().unwrap();
        assert_eq!(study.back().unwrap_err().code, ErrorCode::NoSuchMove);
        assert_eq!(study.view().move_number, 0);
    }

    #[test]
    fn a_study_counts_the_area_and_plays_on_after_two_passes() {
        let mut study = Study::open(9, 15, 0).unwrap();
        study.play(at(4, 4)).unwrap();
        study.play(Move::Pass).unwrap();
        study.play(Move::Pass).unwrap();
        // Black's lone stone owns the whole board: 81 against 0, less 7.5 komi.
        let count = study.count();
        assert_eq!(count.black_count_half_points, 162);
        assert_eq!(count.white_count_half_points, 0);
        assert_eq!(count.result, "B+73.5");
        // No scoring phase in a study: White plays on.
        study.play(at(0, 0)).unwrap();
        assert_eq!(study.view().board[0], "O........");
    }

    #[test]
    fn an_sgf_record_loads_at_its_start_and_replays_move_by_move() {
        let mut study =
            Study::load_sgf(b"(;FF[4]GM[1]SZ[9]KM[7.5]AB[aa]PL[W];W[ee];B[cc];W[])").unwrap();
        let start = study.view();
        assert_eq!(start.move_number, 0);
        assert_eq!(start.board[0], "X........");
        assert_eq!(start.to_move, Color::White);
        study.forward(0).unwrap();
        study.forward(0).unwrap();
        assert_eq!(study.view().board[2], "..X......");
        assert_eq!(study.view().board[4], "....O....");
        study.forward(0).unwrap();
        assert_eq!(study.view().last_move, None);
        assert_eq!(study.forward(0).unwrap_err().code, ErrorCode::NoSuchMove);
        assert_eq!(
            Study::load_sgf(b"(;FF[4]SZ[9];B[ee];W[ee])")
                .unwrap_err()
                .code,
            ErrorCode::BadSgf
        );
        assert_eq!(
            Study::load_sgf(b"not sgf").unwrap_err().code,
            ErrorCode::BadSgf
        );
    }

    #[test]
    fn stepping_back_over_passes_that_resumed_play_keeps_the_study() {
        let mut study = Study::open(9, 15, 0).unwrap();
        for _ in 0..4 {
            study.play(Move::Pass).unwrap();
        }
        // Back over the fourth pass: the third (which resumed play after two) replays.
        study.back().unwrap();
        assert_eq!(study.view().move_number, 3);
        assert_eq!(study.view().to_move, Color::White);
        study.play(at(4, 4)).unwrap();
        assert_eq!(study.view().board[4], "....O....");
        for _ in 0..4 {
            study.back().unwrap();
        }
        assert_eq!(study.view().move_number, 0);
        for _ in 0..4 {
            study.forward(0).unwrap();
        }
        assert_eq!(study.view().move_number, 4);
    }

    /// `study_open` with a komi of i32::MAX, then `study_count`, overflowed the count (a panic in
    /// a debug build, a wrong result in a release one).
    #[test]
    fn an_absurd_komi_is_refused_and_the_largest_allowed_counts() {
        for komi in [i32::MAX, i32::MIN, 2_001, -2_001] {
            let refused = Study::open(9, komi, 0).unwrap_err();
            assert_eq!(refused.code, ErrorCode::InvalidSettings);
        }
        let mut study = Study::open(9, -2_000, 0).unwrap();
        study.play(at(4, 4)).unwrap();
        assert_eq!(study.count().result, "B+1081");
    }

    /// The protocol README's example of a record sent as its bytes is what the server answers.
    #[test]
    fn the_protocols_example_of_a_shift_jis_record_is_what_the_study_shows() {
        let readme = include_str!("../../protocol/README.md");
        let line = |prefix: &str| {
            readme
                .lines()
                .find(|l| l.starts_with(prefix))
                .and_then(|l| l.split_once(' '))
                .map(|(_, json)| serde_json::from_str::<serde_json::Value>(json).unwrap())
                .unwrap()
        };
        let request = line(r#"→ {"type":"study_load_sgf","id":64,"#);
        let reply = line(r#"← {"type":"study","id":64,"#);
        let bytes = decode_base64(request["sgf_base64"].as_str().unwrap()).unwrap();
        let study = Study::load_sgf(&bytes).unwrap();
        assert_eq!(serde_json::to_value(study.view()).unwrap(), reply["study"]);
    }

    /// SGF loading is input a user controls in full: mutated records (bytes replaced, cut,
    /// duplicated, nested deeply, odd properties) are refused `bad_sgf` or loaded, never a panic,
    /// and a loaded record steps forward and back to its start.
    #[test]
    fn mutated_sgf_records_load_or_are_refused() {
        use rand::rngs::StdRng;
        use rand::seq::IndexedRandom;
        use rand::{Rng, SeedableRng};
        const RECORDS: usize = 2_000;
        let seeds = [
            "(;FF[4]GM[1]SZ[9]KM[7.5]AB[aa]PL[W];W[ee];B[cc];W[])",
            "(;FF[4]GM[1]SZ[19]HA[2]AB[pd][dp];W[dd];B[pp];W[];B[];W[qq];B[tt])",
            "(;SZ[5];B[aa];W[ba];B[ab];W[];B[];W[bb](;B[cc])(;B[dd]))",
            "(;FF[4]SZ[2];B[aa];W[bb];B[ab];W[ba])",
        ];
        let pieces = [
            "(",
            ")",
            ";",
            "[",
            "]",
            "\\",
            "SZ[",
            "SZ[25]",
            "SZ[0]",
            "SZ[255]",
            "SZ[1]",
            "HA[9]",
            "HA[300]",
            "AB[zz]",
            "AW[aa:ss]",
            "B[",
            "W[zz]",
            "B[tt]",
            "PL[X]",
            "KM[1e300]",
            "KM[-99999]",
            "KM[nan]",
            "AB[aa]",
            "AE[aa]",
            "W[]",
            "((((((((",
            "))))",
            "€",
            "\u{0}",
        ];
        let mut rng = StdRng::seed_from_u64(13);
        for _ in 0..RECORDS {
            let mut text: Vec<char> = seeds.choose(&mut rng).unwrap().chars().collect();
            for _ in 0..rng.random_range(1..4) {
                let at = rng.random_range(0..=text.len());
                match rng.random_range(0..3) {
                    0 => text.truncate(at),
                    1 => {
                        let piece = pieces.choose(&mut rng).unwrap();
                        let tail = text.split_off(at);
                        text.extend(piece.chars());
                        text.extend(tail);
                    }
                    _ if at < text.len() => {
                        text.remove(at);
                    }
                    _ => {}
                }
            }
            let text: String = text.into_iter().collect();
            match Study::load_sgf(text.as_bytes()) {
                Ok(mut study) => {
                    while study.forward(0).is_ok() {}
                    while study.back().is_ok() {}
                    assert_eq!(study.view().move_number, 0, "{text}");
                }
                Err(refusal) => assert_eq!(refusal.code, ErrorCode::BadSgf, "{text}"),
            }
        }
        // Nesting far deeper than any record: refused, not a stack overflow.
        let deep = format!("{}{}", "(;".repeat(100_000), ")".repeat(100_000));
        let _ = Study::load_sgf(deep.as_bytes());
    }
}
