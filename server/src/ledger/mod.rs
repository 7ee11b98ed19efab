//! Fortune points (财富点): how a finished game's escrow is paid out to users and the house.
//!
//! The ledger follows the TigerBeetle shape in DESIGN.md: accounts (one per user, one escrow per
//! game, the house) and whole-point transfers applied in all-or-nothing batches. This module owns
//! the pure half: `settle` decides who gets what from a game's escrow (stakes and the spectator
//! pool), with rounding and breakage, and proves conservation. Turning a [`settle::Settlement`]
//! into one idempotent batch of transfers keyed by the game id is left to the ledger service on top
//! of the store.

pub mod settle;
