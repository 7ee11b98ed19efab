//! Round robin (循环制): single, double or multiple, on Berger tables.
//!
//! For an even field, seed N sits still and the others turn around a circle of m = N − 1 places: in
//! round r (from 0) seeds i and j meet when i + j ≡ r (mod m), and the one left over (2i ≡ r) meets
//! seed N. These are the Berger tables (round 1 of six: 1–6, 2–5, 3–4), in a form that also gives
//! colours that balance: of i and j, i takes Black when (j − i) mod m is odd, so over a cycle each
//! circle player has as many Blacks as Whites against the circle, and the game against seed N
//! alternates by round. Every player's colours therefore differ by at most one per cycle, and from
//! one round to the next a player's colour alternates except around the game against seed N. An odd
//! field adds an empty seat in seed N's place: whoever would meet it rests that round, unscored.
//! Each further cycle repeats the first with colours swapped, so in a double round robin every pair
//! has each colour once.
//!
//! A withdrawn player's later games are forfeits won by the opponent, or, if their results were voided
//! (fewer than half their games played), not played at all: the opponent rests.

use crate::event::{Event, EventOutcome, Game, PlayerId, Round};
use crate::tally::tally;

/// Rounds in one cycle for `players`.
fn rounds_per_cycle(players: usize) -> usize {
    if players % 2 == 0 {
        players.saturating_sub(1)
    } else {
        players
    }
}

pub(crate) fn finished(event: &Event, cycles: u32) -> bool {
    let total = rounds_per_cycle(event.entrants().len()) * cycles as usize;
    event.rounds().len() >= total
}

/// Round `r` (from 0) of one cycle: (black, white) seed pairs, table order, and the seed resting, if
/// any. `players` is the field size.
pub fn berger_round(players: usize, r: usize) -> (Vec<(usize, usize)>, Option<usize>) {
    let m = rounds_per_cycle(players);
    if m == 0 {
        return (Vec::new(), None);
    }
    let r = r % m;
    let fixed = m; // Seed N (from 0: N − 1), or the empty seat when `players` is odd.
    let facing_fixed = (r * m.div_ceil(2)) % m; // 2i ≡ r, as 2 · (m+1)/2 ≡ 1 (mod m).
    let mut pairs = Vec::new();
    let mut resting = None;
    if fixed < players {
        pairs.push(if r % 2 == 0 {
            (facing_fixed, fixed)
        } else {
            (fixed, facing_fixed)
        });
    } else {
        resting = Some(facing_fixed);
    }
    for i in 0..m {
        let j = (r + m - i) % m;
        if i < j {
            let d = j - i;
            pairs.push(if d % 2 == 1 { (i, j) } else { (j, i) });
        }
    }
    (pairs, resting)
}

pub(crate) fn next_round(event: &Event, cycles: u32) -> Option<Round> {
    if finished(event, cycles) {
        return None;
    }
    let players = event.entrants().len();
    let index = event.rounds().len();
    let m = rounds_per_cycle(players).max(1);
    let (pairs, rest) = berger_round(players, index % m);
    let swap = (index / m) % 2 == 1;
    let id = |s: usize| event.entrants().get(s).map(|e| e.player);
    let mut round = Round {
        number: index as u32 + 1,
        games: Vec::new(),
        byes: Vec::new(),
        resting: rest.and_then(id).into_iter().collect(),
    };
    for (black, white) in pairs {
        let (black, white) = if swap { (white, black) } else { (black, white) };
        let (Some(b), Some(w)) = (id(black), id(white)) else {
            continue;
        };
        add_game(event, &mut round, (black, b), (white, w));
    }
    Some(round)
}

/// Adds the game between `black` and `white` (seed, id), as a forfeit or a rest if either withdrew.
fn add_game(event: &Event, round: &mut Round, black: (usize, PlayerId), white: (usize, PlayerId)) {
    let (wb, ww) = (event.withdrawn(black.0), event.withdrawn(white.0));
    if wb.is_some_and(|w| w.results_void) || ww.is_some_and(|w| w.results_void) {
        // The voided player's games are not played; the other rests.
        for (seed, player) in [black, white] {
            if event.withdrawn(seed).is_none() {
                round.resting.push(player);
            }
        }
        return;
    }
    let outcome = match (wb.is_some(), ww.is_some()) {
        (false, false) => None,
        (true, false) => Some(EventOutcome::WhiteWins),
        (false, true) => Some(EventOutcome::BlackWins),
        (true, true) => Some(EventOutcome::BothLose),
    };
    round.games.push(Game {
        table: round.games.len() as u32 + 1,
        black: black.1,
        white: white.1,
        outcome,
    });
}

/// Whether `player` withdrawing now voids their results: fewer than half their scheduled games have
/// a result (docs/competitions.md).
pub(crate) fn withdrawal_voids_results(event: &Event, cycles: u32, player: PlayerId) -> bool {
    let Some(seed) = event.seed_of(player) else {
        return false;
    };
    let scheduled = event.entrants().len().saturating_sub(1) * cycles as usize;
    let played = tally(event, false, None)
        .get(seed)
        .map_or(0, |t| t.opponents.len());
    played * 2 < scheduled
}
