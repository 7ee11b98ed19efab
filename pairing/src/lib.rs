//! `tengen-pairing`: the competition core of Tengen. Knockout (single, double, n-loss, with a bracket
//! and byes), round robin (single, double, multiple, on Berger tables), Swiss with or without
//! elimination, best-of-n matches, team scoring and the relay, and standings with every tie-break of
//! the competition rules (docs/competitions.md).
//!
//! The crate is pure, like `tengen-rules`: no I/O, no clock, no global randomness. An [`Event`] is
//! plain data the server stores as it is; results are fed in one at a time, the next round is asked
//! for, and the standings are computed from the results. The only randomness (nigiri, lots) comes
//! from a seed in the event's settings, so a stored event pairs and ranks the same anywhere.
//!
//! ```
//! use tengen_pairing::{Event, FinalTie, Format, EventOutcome, PlayerId, Settings};
//! let settings = Settings { format: Format::RoundRobin { cycles: 1 }, final_tie: FinalTie::Stands, seed: 7 };
//! let mut event = Event::new(settings, &[PlayerId(1), PlayerId(2), PlayerId(3), PlayerId(4)]).unwrap();
//! while !event.is_over() {
//!     let round = event.pair_next_round().unwrap().clone();
//!     for game in &round.games {
//!         event.record(round.number, game.table, EventOutcome::BlackWins).unwrap();
//!     }
//! }
//! assert_eq!(event.rounds().len(), 3);
//! assert_eq!(event.standings().rows.len(), 4);
//! ```

mod best_of;
mod engine;
mod error;
mod event;
mod format;
mod fraction;
mod knockout;
mod lot;
mod matching;
mod round_robin;
mod standings;
mod swiss;
mod tally;
pub mod team;

pub use error::EventError;
pub use event::{
    Entrant, Event, EventOutcome, FinalTie, Game, PlayerId, Round, Settings, Withdrawal,
    MAX_ENTRANTS, MAX_ROUNDS,
};
pub use format::{Format, SwissRanking};
pub use fraction::Fraction;
pub use knockout::bracket;
pub use lot::{lot, nigiri};
pub use round_robin::berger_round;
pub use standings::{criteria, Criterion, Standing, Standings};
pub use tally::{DRAW_POINTS, WIN_POINTS};
