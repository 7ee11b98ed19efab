//! The formats of docs/competitions.md and what each needs checked, paired and decided. Each format's pairing lives
//! in its own module; this one holds their settings and sends each request to the right one.

use crate::error::EventError;
use crate::event::{Event, PlayerId, Round, MAX_ENTRANTS, MAX_ROUNDS};
use crate::{best_of, knockout, round_robin, swiss};
use serde::{Deserialize, Serialize};

/// How Swiss standings rank (docs/competitions.md offers two, the event chooses).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SwissRanking {
    /// 总得分: own score + (opponents' scores / (½ · highest score) − rounds), then warnings.
    #[default]
    TotalScore,
    /// Score, then 对手分 (the opponents' scores), then warnings.
    ScoreThenOpponents,
}

/// The event's format and its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Format {
    /// 淘汰制: a player is out after `out_after_losses` losses (1 single, 2 double elimination, n).
    Knockout { out_after_losses: u32 },
    /// 循环制: every pair plays `cycles` times (1 single, 2 double, more for multi), colours swapped in
    /// each repeat.
    RoundRobin { cycles: u32 },
    /// 积分编排制 for `rounds` rounds; with `out_after_losses`, 积分编排加淘汰: a player who has lost
    /// that many games leaves (the rules' "more than n losses" is `out_after_losses = n + 1`).
    Swiss {
        rounds: u32,
        out_after_losses: Option<u32>,
        ranking: SwissRanking,
    },
    /// 多局决胜制: two players, `games` games (3 to 7, or 10), colours alternating, stopping when decided.
    Match { games: u32 },
}

impl Format {
    pub(crate) fn validate(&self) -> Result<(), EventError> {
        let ok = match *self {
            Format::Knockout { out_after_losses } => (1..=MAX_ROUNDS).contains(&out_after_losses),
            Format::RoundRobin { cycles } => (1..=MAX_ROUNDS).contains(&cycles),
            Format::Swiss {
                rounds,
                out_after_losses,
                ..
            } => (1..=MAX_ROUNDS).contains(&rounds) && out_after_losses.is_none_or(|n| n >= 1),
            Format::Match { games } => (3..=7).contains(&games) || games == 10,
        };
        if ok {
            Ok(())
        } else {
            Err(EventError::InvalidFormat(match self {
                Format::Knockout { .. } => "a knockout eliminates after 1 to 64 losses",
                Format::RoundRobin { .. } => "a round robin has 1 to 64 cycles",
                Format::Swiss { .. } => {
                    "a Swiss event has 1 to 64 rounds and eliminates after 1 loss or more"
                }
                Format::Match { .. } => "a match has 3 to 7 games, or 10",
            }))
        }
    }

    pub(crate) fn min_players(&self) -> usize {
        2
    }

    pub(crate) fn max_players(&self) -> usize {
        match self {
            Format::Match { .. } => 2,
            _ => MAX_ENTRANTS,
        }
    }

    /// The losses that take a player out, if the format eliminates.
    pub(crate) fn out_after_losses(&self) -> Option<u32> {
        match *self {
            Format::Knockout { out_after_losses } => Some(out_after_losses),
            Format::Swiss {
                out_after_losses, ..
            } => out_after_losses,
            Format::RoundRobin { .. } | Format::Match { .. } => None,
        }
    }
}

/// The next round of `event`, or `None` when no further round is to be played.
pub(crate) fn next_round(event: &Event) -> Option<Round> {
    match event.settings().format {
        Format::Knockout { out_after_losses } => knockout::next_round(event, out_after_losses),
        Format::RoundRobin { cycles } => round_robin::next_round(event, cycles),
        Format::Swiss {
            rounds,
            out_after_losses,
            ..
        } => swiss::next_round(event, rounds, out_after_losses),
        Format::Match { games } => best_of::next_round(event, games),
    }
}

/// Whether no further round is to be played (cheap: it does not pair).
pub(crate) fn finished(event: &Event) -> bool {
    match event.settings().format {
        Format::Knockout { out_after_losses } => knockout::finished(event, out_after_losses),
        Format::RoundRobin { cycles } => round_robin::finished(event, cycles),
        Format::Swiss {
            rounds,
            out_after_losses,
            ..
        } => swiss::finished(event, rounds, out_after_losses),
        Format::Match { games } => best_of::finished(event, games),
    }
}

/// Whether `player` withdrawing now voids their results: only in a round robin, before half their
/// games are played (docs/competitions.md).
pub(crate) fn withdrawal_voids_results(event: &Event, player: PlayerId) -> bool {
    match event.settings().format {
        Format::RoundRobin { cycles } => {
            round_robin::withdrawal_voids_results(event, cycles, player)
        }
        _ => false,
    }
}
