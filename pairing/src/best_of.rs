//! Best-of-n matches (多局决胜制): two players, 3 to 7 games (best of 2 up to best of 4) or a ten-game
//! match. Each game is a round. Colours of game 1 go by nigiri from the event's seed, then alternate.
//! The match stops as soon as it is decided: when the leader's points exceed the other's by more than
//! the remaining games could make up (2 points a game). A drawn game counts 1 each, so a match can go
//! the distance and end level (a ten-game match at 5–5); it is then a tie for [`crate::FinalTie`].

use crate::event::{Event, Game, Round};
use crate::lot::nigiri;
use crate::tally::{tally, WIN_POINTS};

/// Whether the match is over: all `games` played, or one player out of reach.
pub(crate) fn finished(event: &Event, games: u32) -> bool {
    let played = event.rounds().len() as u32;
    if played >= games {
        return true;
    }
    let tallies = tally(event, false, None);
    let (a, b) = match tallies.as_slice() {
        [a, b] => (a.score, b.score),
        _ => return true,
    };
    a.abs_diff(b) > WIN_POINTS * (games - played)
}

pub(crate) fn next_round(event: &Event, games: u32) -> Option<Round> {
    if finished(event, games) {
        return None;
    }
    let [first, second] = event.entrants() else {
        return None;
    };
    let number = event.rounds().len() as u32 + 1;
    let first_black = nigiri(event.settings().seed, 0) ^ (number % 2 == 0);
    let (black, white) = if first_black {
        (first.player, second.player)
    } else {
        (second.player, first.player)
    };
    Some(Round {
        number,
        games: vec![Game {
            table: 1,
            black,
            white,
            outcome: None,
        }],
        byes: Vec::new(),
        resting: Vec::new(),
    })
}
