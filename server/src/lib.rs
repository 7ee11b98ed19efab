//! The Tengen server library: everything `tengen` runs.
//!
//! # Layout
//! - `gtp`: a GTP version 2 referee over `tengen-rules`, for driving the engine from any Go tool.
//! - `side`: the two seats at a table (Black, White), as the pure server modules name them.
//! - `clock`: the pure game clock state machine for every time system; `now` is passed in.
//! - `ledger`: fortune points; `ledger::settle` is the pure settlement math for stakes and
//!   spectator pools.

pub mod clock;
pub mod gtp;
pub mod ledger;
pub mod side;
