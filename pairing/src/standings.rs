//! Standings with the scores and tie-breaks of docs/competitions.md (成绩的计算). Every figure is computed for every
//! player, whatever the format, so a client can show each column; `criteria` says which of them rank
//! this event, in order.
//!
//! - Score: a win (a bye, a forfeit win) 2, a draw 1, a loss 0.
//! - 胜者小分 (beaten opponents' score): the scores of the opponents one beat, plus half the scores of
//!   those one drew with. Ranks round robins after the score.
//! - 对手分 (opponents' score): the sum of the scores of everyone one played (a bye has no opponent
//!   and adds nothing).
//! - 总得分 (total score): own score + (对手分 / (½ · the highest score in the event) − rounds paired
//!   so far). The "− rounds" is the same for everyone, so it only centres the correction near zero
//!   for a field of average opponents; with no score in the event yet the quotient is taken as 0.
//! - Warnings: fewer rank higher.
//! - Knockout: how long one lasted (still in, then eliminated later) before the score.
//!
//! Figures that halve or divide are exact fractions, so equal figures are equal. A tie every figure
//! leaves is settled by the event's [`FinalTie`]: shared, shared and marked for a play-off, or ordered
//! by lots drawn from the event's seed. Players whose round-robin results were voided rank last.
//! Everything is computed from the recorded results in round order, so the order in which results
//! arrived cannot change a standing.

use crate::event::{Event, FinalTie, PlayerId};
use crate::format::{Format, SwissRanking};
use crate::fraction::Fraction;
use crate::lot::lot;
use crate::tally::{tally, PlayerResult, Tally};
use serde::{Deserialize, Serialize};

/// A figure that ranks players, in the order an event applies them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Criterion {
    /// Knockout: still in, else the later the elimination the better.
    Survival,
    Score,
    /// 胜者小分.
    BeatenOpponentsScore,
    /// 总得分.
    TotalScore,
    /// 对手分.
    OpponentsScore,
    /// Fewer is better.
    Warnings,
}

/// One player's line: rank (shared in a tie that stands) and every figure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub rank: u32,
    pub player: PlayerId,
    pub score: u32,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub byes: u32,
    /// 对手分.
    pub opponents_score: u32,
    /// 胜者小分.
    pub beaten_opponents_score: Fraction,
    /// 总得分.
    pub total_score: Fraction,
    pub warnings: u32,
    /// Out of a knockout or an eliminating Swiss in this round.
    pub eliminated_in: Option<u32>,
    pub eliminated: bool,
    pub withdrawn: bool,
    pub results_void: bool,
    /// Shares the rank with another player (under [`FinalTie::PlayOff`]: a play-off is due).
    pub tied: bool,
    /// Placed among players equal on every figure by the event's lots.
    pub by_lots: bool,
}

/// The standings: the criteria in order, the figures the formulas used, and one line per entrant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standings {
    pub criteria: Vec<Criterion>,
    pub final_tie: FinalTie,
    pub rounds: u32,
    pub highest_score: u32,
    pub rows: Vec<Standing>,
}

/// The criteria that rank `format`, in order.
pub fn criteria(format: &Format) -> Vec<Criterion> {
    use Criterion::*;
    match format {
        Format::Knockout { .. } => vec![Survival, Score, Warnings],
        Format::RoundRobin { .. } => vec![Score, BeatenOpponentsScore, Warnings],
        Format::Swiss {
            ranking: SwissRanking::TotalScore,
            ..
        } => vec![TotalScore, Warnings],
        Format::Swiss {
            ranking: SwissRanking::ScoreThenOpponents,
            ..
        } => vec![Score, OpponentsScore, Warnings],
        Format::Match { .. } => vec![Score, Warnings],
    }
}

pub(crate) fn compute(event: &Event) -> Standings {
    let format = event.settings().format;
    let tallies = tally(event, true, format.out_after_losses());
    let highest_score = tallies.iter().map(|t| t.score).max().unwrap_or(0);
    let rounds = event.rounds().len() as u32;
    let mut rows: Vec<Standing> = tallies
        .iter()
        .enumerate()
        .filter_map(|(seed, t)| line(event, &tallies, seed, t, highest_score, rounds))
        .collect();
    let criteria = criteria(&format);
    rank(event, &criteria, &mut rows);
    Standings {
        criteria,
        final_tie: event.settings().final_tie,
        rounds,
        highest_score,
        rows,
    }
}

/// The figures of the entrant at `seed`, with rank 0 until ranked.
fn line(
    event: &Event,
    tallies: &[Tally],
    seed: usize,
    t: &Tally,
    highest: u32,
    rounds: u32,
) -> Option<Standing> {
    let entrant = event.entrants().get(seed)?;
    let score_of = |s: usize| tallies.get(s).map_or(0, |o| o.score);
    let opponents_score: u32 = t.opponents.iter().map(|&(o, _)| score_of(o)).sum();
    // In halves: twice the beaten opponents' scores plus the drawn ones', over 2.
    let beaten_halves: u32 = t
        .opponents
        .iter()
        .map(|&(o, r)| match r {
            PlayerResult::Won => 2 * score_of(o),
            PlayerResult::Drew => score_of(o),
            PlayerResult::Lost => 0,
        })
        .sum();
    let correction = Fraction::new(2 * i64::from(opponents_score), u64::from(highest))
        + Fraction::whole(-i64::from(rounds));
    let withdrawal = entrant.withdrawn;
    Some(Standing {
        rank: 0,
        player: entrant.player,
        score: t.score,
        games: t.opponents.len() as u32,
        wins: t.wins,
        draws: t.draws,
        losses: t.losses,
        byes: t.byes,
        opponents_score,
        beaten_opponents_score: Fraction::new(i64::from(beaten_halves), 2),
        total_score: Fraction::whole(i64::from(t.score)) + correction,
        warnings: entrant.warnings,
        eliminated_in: t
            .eliminated_in
            .or(withdrawal.map(|w| w.after_round))
            .filter(|_| format_eliminates(event)),
        eliminated: t.eliminated_in.is_some() || (withdrawal.is_some() && format_eliminates(event)),
        withdrawn: withdrawal.is_some(),
        results_void: withdrawal.is_some_and(|w| w.results_void),
        tied: false,
        by_lots: false,
    })
}

fn format_eliminates(event: &Event) -> bool {
    event.settings().format.out_after_losses().is_some()
}

/// The sort key of a line under `criteria`: smaller is better, void results last.
fn key(row: &Standing, criteria: &[Criterion]) -> Vec<Fraction> {
    let mut key = vec![Fraction::whole(i64::from(row.results_void))];
    for criterion in criteria {
        key.push(match criterion {
            Criterion::Survival => {
                Fraction::whole(-row.eliminated_in.map_or(i64::from(u32::MAX), i64::from))
            }
            Criterion::Score => Fraction::whole(-i64::from(row.score)),
            Criterion::BeatenOpponentsScore => -row.beaten_opponents_score,
            Criterion::TotalScore => -row.total_score,
            Criterion::OpponentsScore => Fraction::whole(-i64::from(row.opponents_score)),
            Criterion::Warnings => Fraction::whole(i64::from(row.warnings)),
        });
    }
    key
}

/// Sorts `rows` and gives ranks: equal keys share a rank, unless the event draws lots.
fn rank(event: &Event, criteria: &[Criterion], rows: &mut Vec<Standing>) {
    let seed = event.settings().seed;
    let lots = event.settings().final_tie == FinalTie::Lots;
    let seed_of = |p: PlayerId| event.seed_of(p).unwrap_or(usize::MAX);
    let mut keyed: Vec<(Vec<Fraction>, u64, usize, Standing)> = rows
        .drain(..)
        .map(|row| {
            let draw = if lots { lot(seed, row.player.0) } else { 0 };
            (key(&row, criteria), draw, seed_of(row.player), row)
        })
        .collect();
    keyed.sort_by(|a, b| (&a.0, a.1, a.2).cmp(&(&b.0, b.1, b.2)));
    for i in 0..keyed.len() {
        let same_as_previous =
            i > 0 && keyed.get(i - 1).map(|p| &p.0) == keyed.get(i).map(|c| &c.0);
        let same_as_next = keyed.get(i + 1).map(|n| &n.0) == keyed.get(i).map(|c| &c.0);
        let previous_rank = if i > 0 {
            keyed.get(i - 1).map_or(0, |p| p.3.rank)
        } else {
            0
        };
        if let Some((_, _, _, row)) = keyed.get_mut(i) {
            let shared = same_as_previous && !lots;
            row.rank = if shared { previous_rank } else { i as u32 + 1 };
            row.tied = !lots && (same_as_previous || same_as_next);
            row.by_lots = lots && (same_as_previous || same_as_next);
        }
    }
    rows.extend(keyed.into_iter().map(|(_, _, _, row)| row));
}
