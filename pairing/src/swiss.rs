//! Swiss (积分编排制), with or without elimination after a number of losses (积分编排加淘汰).
//!
//! Players still in are ranked by score, then seed. An odd field gives a bye (a win, 2 points) to the
//! lowest-scored player who has had none yet (the weakest seed among equals), unless that would force
//! a rematch or a colour imbalance that another choice avoids; a player has a second bye only once
//! everyone still in has had one. The rest are paired by [`crate::engine`]: top half of each score
//! group against its bottom half, the odd player of a group floating down to the nearest score, no
//! pair meeting twice while any rematch-free pairing of the whole field exists, and colours kept within
//! two of even. Round 1 is the same rule on the seeding alone (1 v N/2+1), colours by nigiri on table 1
//! and alternating down the tables.

use crate::engine::{Field, Preference, SWISS_LAYERS};
use crate::event::{Event, Round};
use crate::knockout::games;
use crate::tally::{tally, Tally};

/// Seeds of the players still in: not withdrawn, not eliminated.
fn still_in(event: &Event, tallies: &[Tally]) -> Vec<usize> {
    (0..event.entrants().len())
        .filter(|&s| event.withdrawn(s).is_none())
        .filter(|&s| tallies.get(s).is_some_and(|t| t.eliminated_in.is_none()))
        .collect()
}

pub(crate) fn finished(event: &Event, rounds: u32, out_after_losses: Option<u32>) -> bool {
    if event.rounds().len() as u32 >= rounds {
        return true;
    }
    let tallies = tally(event, false, out_after_losses);
    !event.rounds().is_empty() && still_in(event, &tallies).len() < 2
}

pub(crate) fn next_round(
    event: &Event,
    rounds: u32,
    out_after_losses: Option<u32>,
) -> Option<Round> {
    if finished(event, rounds, out_after_losses) {
        return None;
    }
    let tallies = tally(event, false, out_after_losses);
    let score = |s: usize| tallies.get(s).map_or(0, |t| t.score);
    let mut order = still_in(event, &tallies);
    order.sort_by_key(|&s| (std::cmp::Reverse(score(s)), s));
    let field = Field {
        tallies: &tallies,
        group: order.iter().map(|&s| i64::from(score(s))).collect(),
        order,
    };
    let (bye, layer) = field.choose_bye(&bye_candidates(&field), SWISS_LAYERS);
    let pairs = field.pair(bye, layer, Preference::HalfGroup);
    let number = event.rounds().len() as u32 + 1;
    let byes = bye
        .and_then(|p| field.order.get(p))
        .and_then(|&s| event.entrants().get(s))
        .map(|e| e.player);
    Some(Round {
        number,
        games: games(event, &tallies, &pairs, number),
        byes: byes.into_iter().collect(),
        resting: Vec::new(),
    })
}

/// Positions that may take the bye, best choice first: fewest byes so far, lowest score, weakest seed.
fn bye_candidates(field: &Field<'_>) -> Vec<usize> {
    let key = |p: usize| {
        let seed = field.order.get(p).copied().unwrap_or(0);
        let t = field.tallies.get(seed);
        (
            t.map_or(0, |t| t.byes),
            t.map_or(0, |t| t.score),
            std::cmp::Reverse(seed),
        )
    };
    let fewest = (0..field.order.len()).map(|p| key(p).0).min().unwrap_or(0);
    let mut candidates: Vec<usize> = (0..field.order.len())
        .filter(|&p| key(p).0 == fewest)
        .collect();
    candidates.sort_by_key(|&p| key(p));
    candidates
}
