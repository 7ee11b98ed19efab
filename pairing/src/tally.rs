//! Each entrant's record, read off the rounds: score, wins, draws, losses, byes, colours, opponents.
//! Pairers and standings both start from it. It is a function of the recorded results only, walked in
//! round order, so the order in which results arrived cannot change it.

use crate::event::{Event, EventOutcome, PlayerId};
use std::collections::BTreeMap;
use tengen_rules::Color;

/// Points for a win (and a bye or a forfeit win), a draw and a loss (docs/competitions.md).
pub const WIN_POINTS: u32 = 2;
pub const DRAW_POINTS: u32 = 1;

/// How one game went for one player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PlayerResult {
    Won,
    Drew,
    Lost,
}

/// One entrant's record; `opponents` lists each finished game's opponent (by seed) and result.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tally {
    pub score: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub byes: u32,
    pub blacks: u32,
    pub whites: u32,
    pub last_colour: Option<Color>,
    pub opponents: Vec<(usize, PlayerResult)>,
    /// Everyone this entrant has been paired with, finished or not.
    pub met: Vec<usize>,
    /// The round in which the losses reached the format's limit, if they did.
    pub eliminated_in: Option<u32>,
}

impl Tally {
    /// Blacks minus whites: positive means owed a White.
    pub fn colour_balance(&self) -> i64 {
        i64::from(self.blacks) - i64::from(self.whites)
    }

    pub fn has_met(&self, other: usize) -> bool {
        self.met.contains(&other)
    }
}

/// The seed (position in the entry list) of every entrant.
pub(crate) fn seeds(event: &Event) -> BTreeMap<PlayerId, usize> {
    event
        .entrants()
        .iter()
        .enumerate()
        .map(|(i, e)| (e.player, i))
        .collect()
}

fn points(result: PlayerResult) -> u32 {
    match result {
        PlayerResult::Won => WIN_POINTS,
        PlayerResult::Drew => DRAW_POINTS,
        PlayerResult::Lost => 0,
    }
}

/// Each side's result under `outcome`: (Black's, White's).
fn results(outcome: EventOutcome) -> (PlayerResult, PlayerResult) {
    match outcome {
        EventOutcome::BlackWins => (PlayerResult::Won, PlayerResult::Lost),
        EventOutcome::WhiteWins => (PlayerResult::Lost, PlayerResult::Won),
        EventOutcome::Draw => (PlayerResult::Drew, PlayerResult::Drew),
        EventOutcome::BothLose => (PlayerResult::Lost, PlayerResult::Lost),
    }
}

/// Every entrant's record. Games with an entrant whose results were voided are left out when
/// `skip_void` is set (standings), kept otherwise (pairing: the pair did meet). `out_after_losses`
/// marks the round of elimination.
pub(crate) fn tally(event: &Event, skip_void: bool, out_after_losses: Option<u32>) -> Vec<Tally> {
    let seeds = seeds(event);
    let mut tallies = vec![Tally::default(); event.entrants().len()];
    let void: Vec<bool> = (0..tallies.len())
        .map(|s| skip_void && event.withdrawn(s).is_some_and(|w| w.results_void))
        .collect();
    for round in event.rounds() {
        for game in &round.games {
            let (Some(&b), Some(&w)) = (seeds.get(&game.black), seeds.get(&game.white)) else {
                continue;
            };
            if void.get(b).copied().unwrap_or(true) || void.get(w).copied().unwrap_or(true) {
                continue;
            }
            let (rb, rw) = match game.outcome.map(results) {
                Some((rb, rw)) => (Some(rb), Some(rw)),
                None => (None, None),
            };
            add_game(&mut tallies, b, w, Color::Black, rb);
            add_game(&mut tallies, w, b, Color::White, rw);
        }
        for bye in &round.byes {
            if let Some(t) = seeds.get(bye).and_then(|&s| tallies.get_mut(s)) {
                t.byes += 1;
                t.wins += 1;
                t.score += WIN_POINTS;
            }
        }
        mark_eliminations(&mut tallies, round.number, out_after_losses);
    }
    tallies
}

fn add_game(
    tallies: &mut [Tally],
    me: usize,
    other: usize,
    colour: Color,
    result: Option<PlayerResult>,
) {
    let Some(t) = tallies.get_mut(me) else {
        return;
    };
    match colour {
        Color::Black => t.blacks += 1,
        Color::White => t.whites += 1,
    }
    t.last_colour = Some(colour);
    t.met.push(other);
    if let Some(result) = result {
        t.score += points(result);
        match result {
            PlayerResult::Won => t.wins += 1,
            PlayerResult::Drew => t.draws += 1,
            PlayerResult::Lost => t.losses += 1,
        }
        t.opponents.push((other, result));
    }
}

fn mark_eliminations(tallies: &mut [Tally], round: u32, out_after_losses: Option<u32>) {
    let Some(limit) = out_after_losses else {
        return;
    };
    for t in tallies.iter_mut() {
        if t.eliminated_in.is_none() && t.losses >= limit {
            t.eliminated_in = Some(round);
        }
    }
}
