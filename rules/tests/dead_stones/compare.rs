//! Shared by the `dead_stones` example (the measurement on the corpus) and the `dead_stones` test (the
//! same comparison on a fixed sample in the repository): which records count, GNU Go's answers as stored
//! in a TSV file, and the comparison of a dead set with GNU Go's and with the recorded winner.

// The example and the tests each use part of this module.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use tengen_rules::sgf::{self, GameRecord};
use tengen_rules::{Color, Game, GameResult, KoRule, Point, WinBy};

/// A counted 19x19 record replayed to its final position.
pub struct Counted {
    pub name: String,
    pub game: Game,
    pub winner: Color,
}

/// Which counted records to take, by the komi they state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Komi {
    /// A komi written as non-zero: the records whose winner the marking can be checked against.
    NonZero,
    /// A komi written as 0 or missing: the corpus's records of this kind mostly misstate the komi, so
    /// their recorded winner says nothing about the marking, but their dead stones compare with GNU
    /// Go's as well as any.
    Zero,
}

/// The record as a counted game worth measuring: 19x19, a counted result (`B+2.5`, not `B+R`), a komi
/// written as non-zero (the corpus's `KM[0]` counted records mostly misstate the komi, so their recorded
/// winner says nothing about the marking), and a main line that replays under positional superko.
pub fn counted(name: &str, bytes: &[u8]) -> Option<Counted> {
    counted_by_komi(name, bytes, Komi::NonZero)
}

/// `counted`, with the records of the given komi.
pub fn counted_by_komi(name: &str, bytes: &[u8], komi: Komi) -> Option<Counted> {
    let record: GameRecord = sgf::parse(bytes).ok()?;
    let Some(GameResult::Win {
        winner,
        win_by: WinBy::Score { .. },
    }) = record.result
    else {
        return None;
    };
    let zero_komi = record.info.komi.half_points == 0;
    if record.info.size != 19 || zero_komi != (komi == Komi::Zero) {
        return None;
    }
    let game = record.replay(KoRule::Positional).ok()?;
    Some(Counted {
        name: name.to_string(),
        game,
        winner,
    })
}

/// GNU Go's answer for one record, as cached: its time and its dead stones, or why it has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GnuAnswer {
    pub millis: u64,
    /// `None` when GNU Go timed out or failed on the record.
    pub dead: Option<BTreeSet<Point>>,
}

/// Reads a cache of GNU Go answers: `name<TAB>millis<TAB>ok|timeout|error<TAB>dead points in SGF spelling`.
pub fn read_answers(path: &Path) -> BTreeMap<String, GnuAnswer> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines().filter_map(parse_answer_line).collect()
}

fn parse_answer_line(line: &str) -> Option<(String, GnuAnswer)> {
    let mut fields = line.split('\t');
    let name = fields.next()?.to_string();
    let millis = fields.next()?.parse().ok()?;
    let status = fields.next()?;
    let points = fields.next().unwrap_or("");
    let dead = (status == "ok").then(|| {
        points
            .split_whitespace()
            .filter_map(Point::from_sgf)
            .collect()
    });
    Some((name, GnuAnswer { millis, dead }))
}

/// One line of the cache file for `answer`.
pub fn answer_line(name: &str, answer: &GnuAnswer) -> String {
    let (status, points) = match &answer.dead {
        Some(dead) => (
            "ok",
            dead.iter()
                .map(|p| p.to_sgf())
                .collect::<Vec<_>>()
                .join(" "),
        ),
        None => ("timeout", String::new()),
    };
    format!("{name}\t{}\t{status}\t{points}", answer.millis)
}

/// What GNU Go's own reading says of one chain on a record's final position (`gtp` commands of the same
/// names, answered after `loadsgf`). `final_status` comes from its aftermath, which plays the position
/// out; the owl reads life and death. An owl answer is `0` (fails), `1 MOVE` (works with MOVE), or `2
/// MOVE` / `3 MOVE` (works through a ko that the mover takes first / second).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwlAnswer {
    /// A stone of the chain.
    pub stone: Point,
    /// The colour to move after the record (`black` or `white`).
    pub to_move: String,
    pub final_status: String,
    pub dragon_status: String,
    /// Whether and how the chain is killed with its opponent moving first.
    pub owl_attack: String,
    /// Whether and how the chain lives with its owner moving first.
    pub owl_defend: String,
}

impl OwlAnswer {
    /// Whether GNU Go's reading finds a way for the chain to live when its owner moves first.
    pub fn lives_moving_first(&self) -> bool {
        self.owl_defend != "0"
    }

    /// The answer as people read it.
    pub fn describe(&self) -> String {
        format!(
            "{} ({} to move): final_status {}, dragon_status {}, owl_attack {}, owl_defend {}",
            self.stone.to_gtp(19),
            self.to_move,
            self.final_status,
            self.dragon_status,
            self.owl_attack,
            self.owl_defend
        )
    }
}

/// Reads GNU Go's owl answers: `name<TAB>stone (GTP)<TAB>to move<TAB>final_status<TAB>dragon_status<TAB>
/// owl_attack<TAB>owl_defend`, any number of lines per record.
pub fn read_owl(path: &Path) -> BTreeMap<String, Vec<OwlAnswer>> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut answers: BTreeMap<String, Vec<OwlAnswer>> = BTreeMap::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        let [name, stone, to_move, final_status, dragon_status, owl_attack, owl_defend] =
            fields[..]
        else {
            continue;
        };
        let Some(stone) = Point::from_gtp(stone, 19) else {
            continue;
        };
        answers
            .entry(name.to_string())
            .or_default()
            .push(OwlAnswer {
                stone,
                to_move: to_move.to_string(),
                final_status: final_status.to_string(),
                dragon_status: dragon_status.to_string(),
                owl_attack: owl_attack.to_string(),
                owl_defend: owl_defend.to_string(),
            });
    }
    answers
}

/// One line of the owl answers' file.
pub fn owl_line(name: &str, answer: &OwlAnswer) -> String {
    format!(
        "{name}\t{}\t{}\t{}\t{}\t{}\t{}",
        answer.stone.to_gtp(19),
        answer.to_move,
        answer.final_status,
        answer.dragon_status,
        answer.owl_attack,
        answer.owl_defend
    )
}

/// The first of `stones` on each chain they lie on, in the record's final position.
pub fn one_stone_per_chain(counted: &Counted, stones: &[Point]) -> Vec<Point> {
    let board = counted.game.board();
    let mut firsts: Vec<Point> = Vec::new();
    for &stone in stones {
        let chain = board.chain(stone);
        if !firsts.iter().any(|f| chain.contains(f)) {
            firsts.push(stone);
        }
    }
    firsts
}

/// How one record's estimate compares with GNU Go's marking and with the recorded winner.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub identical: bool,
    /// Stones we call dead and GNU Go does not.
    pub only_ours: Vec<Point>,
    /// Stones GNU Go calls dead and we do not.
    pub only_gnu: Vec<Point>,
    pub our_winner_right: bool,
    pub gnu_winner_right: bool,
    pub ours: BTreeSet<Point>,
    pub gnu: BTreeSet<Point>,
}

pub fn compare(counted: &Counted, ours: &BTreeSet<Point>, gnu: &BTreeSet<Point>) -> Comparison {
    let winner_right = |dead: &BTreeSet<Point>| {
        let dead: Vec<Point> = dead.iter().copied().collect();
        counted.game.score(&dead).result.winner() == Some(counted.winner)
    };
    Comparison {
        identical: ours == gnu,
        only_ours: ours.difference(gnu).copied().collect(),
        only_gnu: gnu.difference(ours).copied().collect(),
        our_winner_right: winner_right(ours),
        gnu_winner_right: winner_right(gnu),
        ours: ours.clone(),
        gnu: gnu.clone(),
    }
}

/// GTP spellings of `points` (`Q18 R18`), for reports people read beside a board.
pub fn gtp_list(points: &[Point]) -> String {
    points
        .iter()
        .map(|p| p.to_gtp(19))
        .collect::<Vec<_>>()
        .join(" ")
}
