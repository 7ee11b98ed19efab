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
