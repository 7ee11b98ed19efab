//! Knockout (淘汰制): single, double or n-loss elimination.
//!
//! Round 1 is a bracket: the field is padded to a power of two with byes, seeds are placed so that
//! 1 and 2 can meet only in the final, 1–4 only in the semi-finals and so on (1 v 8, 4 v 5, 2 v 7,
//! 3 v 6 for eight), and the byes fall to the top seeds, who face the empty slots. Every later round
//! pairs the players still in, grouped by their losses, neighbours in bracket order: with one life
//! that reproduces the bracket exactly (the winner of 1 v 8 meets the winner of 4 v 5); with more,
//! the once-beaten form a second bracket beside the unbeaten (double elimination), and so on. When a
//! group is odd its last player meets the best of the next group, which is how the unbeaten finalist
//! meets the losers' bracket winner, and a "grand final" is replayed naturally if the unbeaten player
//! loses it. An odd number still in gives a bye to the player with the fewest byes, then the fewest
//! losses, then the best seed. Draws eliminate no one (the pair usually meets again); both players
//! forfeiting costs each a loss. The event is over when one player (or none) is left.

use crate::engine::{self, Field, Preference, KNOCKOUT_LAYERS};
use crate::event::{Event, Game, PlayerId, Round};
use crate::lot::nigiri;
use crate::tally::{tally, Tally};

/// The bracket of a `players`-strong field: for each slot, the seed (from 0) placed there, or `None`
/// for a bye. Slots pair off in order: 0 v 1, 2 v 3, ...
pub fn bracket(players: usize) -> Vec<Option<usize>> {
    let mut order = vec![0usize];
    while order.len() < players.max(2) {
        let size = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, size - 1 - s]).collect();
    }
    order
        .into_iter()
        .map(|s| (s < players).then_some(s))
        .collect()
}

/// Seeds of the players still in: entered, not withdrawn, fewer losses than the limit.
fn still_in(event: &Event, tallies: &[Tally]) -> Vec<usize> {
    (0..event.entrants().len())
        .filter(|&s| event.withdrawn(s).is_none())
        .filter(|&s| tallies.get(s).is_some_and(|t| t.eliminated_in.is_none()))
        .collect()
}

pub(crate) fn finished(event: &Event, out_after_losses: u32) -> bool {
    let tallies = tally(event, false, Some(out_after_losses));
    !event.rounds().is_empty() && still_in(event, &tallies).len() < 2
}

pub(crate) fn next_round(event: &Event, out_after_losses: u32) -> Option<Round> {
    if event.rounds().is_empty() {
        return Some(first_round(event));
    }
    if finished(event, out_after_losses) {
        return None;
    }
    let tallies = tally(event, false, Some(out_after_losses));
    let slot_of = slots(event.entrants().len());
    let mut order = still_in(event, &tallies);
    let losses = |s: usize| tallies.get(s).map_or(0, |t| t.losses);
    let slot = |s: usize| slot_of.get(s).copied().unwrap_or(usize::MAX);
    order.sort_by_key(|&s| (losses(s), slot(s)));
    let field = Field {
        tallies: &tallies,
        group: order.iter().map(|&s| -i64::from(losses(s))).collect(),
        order,
    };
    let mut candidates: Vec<usize> = (0..field.order.len()).collect();
    candidates.sort_by_key(|&p| {
        let s = field.order.get(p).copied().unwrap_or(usize::MAX);
        (tallies.get(s).map_or(0, |t| t.byes), losses(s), s)
    });
    let (bye, layer) = field.choose_bye(&candidates, KNOCKOUT_LAYERS);
    let pairs = field.pair(bye, layer, Preference::Adjacent);
    let number = event.rounds().len() as u32 + 1;
    Some(Round {
        number,
        games: games(event, &tallies, &pairs, number),
        byes: bye
            .and_then(|p| field.order.get(p))
            .map(|&s| id(event, s))
            .into_iter()
            .flatten()
            .collect(),
        resting: Vec::new(),
    })
}

/// The slot of each seed in the round-1 bracket.
fn slots(players: usize) -> Vec<usize> {
    let mut slot_of = vec![usize::MAX; players];
    for (slot, seed) in bracket(players).into_iter().enumerate() {
        if let Some(s) = seed.and_then(|s| slot_of.get_mut(s)) {
            *s = slot;
        }
    }
    slot_of
}

fn id(event: &Event, seed: usize) -> Option<PlayerId> {
    event.entrants().get(seed).map(|e| e.player)
}

fn first_round(event: &Event) -> Round {
    let slots = bracket(event.entrants().len());
    let tallies = vec![Tally::default(); event.entrants().len()];
    let mut pairs = Vec::new();
    let mut byes = Vec::new();
    for pair in slots.chunks(2) {
        match pair {
            [Some(a), Some(b)] => pairs.push((*a.min(b), *a.max(b))),
            [Some(a), None] | [None, Some(a)] => byes.extend(id(event, *a)),
            _ => {}
        }
    }
    Round {
        number: 1,
        games: games(event, &tallies, &pairs, 1),
        byes,
        resting: Vec::new(),
    }
}

/// The games of round `number` for `pairs` of seeds (better first), at tables 1.., colours by
/// [`engine::colours`] with nigiri for players without games, alternating down the tables.
pub(crate) fn games(
    event: &Event,
    tallies: &[Tally],
    pairs: &[(usize, usize)],
    number: u32,
) -> Vec<Game> {
    let seed = event.settings().seed;
    pairs
        .iter()
        .enumerate()
        .filter_map(|(i, &(a, b))| {
            let lot = nigiri(seed, u64::from(number)) ^ (i % 2 == 1);
            let (black, white) = engine::colours(tallies, a, b, lot);
            Some(Game {
                table: i as u32 + 1,
                black: id(event, black)?,
                white: id(event, white)?,
                outcome: None,
            })
        })
        .collect()
}
