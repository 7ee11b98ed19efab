//! Fortune points (财富点): accounts, bets, settlement and the audit.
//!
//! The ledger has TigerBeetle's shape (docs/wagering.md, "The ledger"): accounts (one per user, one escrow per
//! game, the house, and the mint that grants start from) and whole-point transfers applied in
//! all-or-nothing batches by the store. `settle` is the pure math (who gets what); `book` is the
//! vocabulary the store speaks; `pool` is a game's tally of bets; this module is the service on
//! top of the store: grants, bets, idempotent settlement keyed by the game id, records and the
//! audit. Ordering bets against the end of play is the game actor's job: every bet goes through
//! its inbox, so a bet is either in before play ended or refused after.

/// The ledger's vocabulary lives below the store, which keeps it (`crate::book`).
pub use crate::book;
mod grant;
pub use grant::Opened;
pub mod pool;
mod records;
pub mod settle;

use std::fmt;

use serde::Serialize;
use tengen_protocol::{
    EndReason, ErrorCode, GameId, GameOutcome, Points, RequestKey, TableId, UserId, WagerRecord,
};
use tokio::sync::{mpsc, oneshot};

use crate::store::{store_refusal, LiveGameRow, Store, StoreError, StoreHandle};
use crate::{unix_now_ms, Refusal};
use book::{Account, Applied, Batch, SettlementPart, SettlementRecord, Transfer, TransferKind};
use pool::Tally;
use settle::{Beneficiary, MoneyOutcome, Settlement, POINTS_MAX};
use tengen_rules::Color;

/// Why a bet was refused; nothing moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BetRejected {
    /// 0 points, or more than any balance can hold.
    BadAmount {
        amount: u64,
    },
    InsufficientPoints,
    /// Play has ended.
    Closed,
    /// The bettor plays in this game.
    Player,
    /// The bettor already bet on the other side.
    SideChange {
        side: Color,
    },
    /// The store failed, kept as its type: out of reach (nothing moved), a write it did not confirm
    /// (it may have moved), or anything else (nothing moved). Clients hear it through
    /// [`store_refusal`], never its text.
    Store(StoreError),
    /// The key was used before by this user in this game for another bet or raise.
    KeyReused,
}

impl fmt::Display for BetRejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BetRejected::BadAmount { amount } => write!(
                f,
                "{amount} is not a bet: bet a whole number of points from 1 to {POINTS_MAX}"
            ),
            BetRejected::InsufficientPoints => f.write_str("you do not have that many points"),
            BetRejected::Closed => f.write_str("betting closed when play ended"),
            BetRejected::Player => f.write_str("players may not bet on their own game"),
            BetRejected::SideChange { side } => write!(
                f,
                "you bet on {side} in this game; you may only add to that bet"
            ),
            BetRejected::Store(err) => write!(f, "the bet could not be recorded: {err}"),
            BetRejected::KeyReused => f.write_str(
                "that key was used for another request in this game; send a fresh key per intent",
            ),
        }
    }
}

impl From<BetRejected> for Refusal {
    fn from(rejected: BetRejected) -> Refusal {
        let code = match rejected {
            BetRejected::BadAmount { .. } => ErrorCode::BadAmount,
            BetRejected::InsufficientPoints => ErrorCode::InsufficientPoints,
            BetRejected::Closed => ErrorCode::BettingClosed,
            BetRejected::Player => ErrorCode::PlayersCannotBet,
            BetRejected::SideChange { .. } => ErrorCode::SideChange,
            BetRejected::KeyReused => ErrorCode::KeyReused,
            // The store's text (backend details) stays in the logs.
            BetRejected::Store(err) => return store_refusal(&err),
        };
        Refusal::new(code, rejected.to_string())
    }
}

/// What a finished game means for money: a forfeit is an escape by the loser, a game without a
/// winner is void when it says so and a draw otherwise.
pub fn outcome_of(result: &GameOutcome) -> MoneyOutcome {
    match (result.winner, result.reason) {
        (Some(winner), EndReason::Forfeit) => MoneyOutcome::Escape(winner.opponent()),
        (Some(winner), _) => MoneyOutcome::Win(winner),
        (None, EndReason::Void) => MoneyOutcome::Void,
        (None, _) => MoneyOutcome::Draw,
    }
}

/// The transfer id of a bet or stake raise sent with a client's key: the key is recorded in the same
/// write as the points it moves, and the book's idempotence by id makes a retry a no-op (or a
/// `TransferConflict` when it asks for something else). `prefix` is `bet` or `stake`; keys are
/// `A-Z a-z 0-9 _ -`, so the id reads back unambiguously.
pub fn keyed_transfer_id(prefix: &str, game: GameId, user: UserId, key: &RequestKey) -> String {
    format!("{prefix}:{game}:{user}:key:{key}")
}

/// Points a player or watcher puts into `game`'s escrow on `side`: a bet, a stake or a raise.
fn into_escrow(
    id: String,
    (user, side, amount): (UserId, Color, u64),
    game: GameId,
    kind: TransferKind,
    at_ms: u64,
) -> Transfer {
    Transfer {
        id,
        from: Account::User(user),
        to: Account::Escrow(game),
        amount,
        kind,
        game: Some(game),
        side: Some(side),
        at_ms,
    }
}

/// The batch that moves a watcher's bet into `game`'s escrow, checked first: the side
/// (`side_before`: the side this bettor already backs, if any) and the pool's bound (`pool`: the
/// points in it, or on their way to it). The transfer's id is made from the client's key when it
/// sent one, else from `number`, the bet's number in the game, which the caller never gives twice:
/// the book applies an id once, so a retried write cannot place a bet twice.
pub fn bet_batch(
    game: GameId,
    (user, side, points): (UserId, Color, Points),
    key: Option<&RequestKey>,
    number: u64,
    (side_before, pool): (Option<Color>, u64),
) -> Result<Batch, BetRejected> {
    let amount = points.get();
    if let Some(bet_side) = side_before.filter(|&bet_side| bet_side != side) {
        return Err(BetRejected::SideChange { side: bet_side });
    }
    if pool.saturating_add(amount) > POINTS_MAX {
        return Err(BetRejected::BadAmount { amount });
    }
    let id = match key {
        Some(key) => keyed_transfer_id("bet", game, user, key),
        None => bet_id(game, number),
    };
    let transfer = into_escrow(
        id,
        (user, side, amount),
        game,
        TransferKind::Bet,
        unix_now_ms(),
    );
    Ok(Batch::one(transfer))
}

/// The id of a game's `number`th unkeyed bet.
fn bet_id(game: GameId, number: u64) -> String {
    format!("bet:{game}:{number}")
}

/// The number of an unkeyed bet's transfer id (see [`bet_id`]).
pub fn bet_number(id: &str) -> Option<u64> {
    let rest = id.strip_prefix("bet:")?;
    let (_, number) = rest.split_once(':')?;
    number.parse().ok()
}

/// The user and key of a keyed transfer id, for rebuilding a game's keys from its book.
pub fn key_of_transfer(id: &str) -> Option<(UserId, RequestKey)> {
    let (head, key) = id.split_once(":key:")?;
    let user = head.rsplit(':').next()?.parse().ok()?;
    Some((UserId(user), RequestKey::new(key).ok()?))
}

/// The transfer id of a settlement's payout to one beneficiary: derived from the game id, so a
/// settlement applied twice (a retry, a restart) pays once.
fn payout_id(game: GameId, part: SettlementPart, to: Beneficiary) -> String {
    let to = match to {
        Beneficiary::User(user) => format!("user:{user}"),
        Beneficiary::House => "house".into(),
    };
    format!("settle:{game}:{}:{to}", part.as_str())
}

/// The transfers that pay a settlement out of the game's escrow.
fn payout_transfers(
    game: GameId,
    part: SettlementPart,
    settlement: &Settlement,
    at_ms: u64,
) -> Vec<Transfer> {
    settlement
        .payouts
        .iter()
        .map(|payout| {
            let (to, kind) = match payout.to {
                Beneficiary::House => (Account::House, TransferKind::Tax),
                Beneficiary::User(user) if settlement.refund.is_some() => {
                    (Account::User(UserId(user)), TransferKind::Refund)
                }
                Beneficiary::User(user) => (Account::User(UserId(user)), TransferKind::Payout),
            };
            Transfer {
                id: payout_id(game, part, payout.to),
                from: Account::Escrow(game),
                to,
                amount: payout.amount,
                kind,
                game: Some(game),
                side: None,
                at_ms,
            }
        })
        .collect()
}

/// Why a settlement could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettleFailure {
    Store(StoreError),
    /// The book's records of the game are inconsistent (the math refused them).
    Math(settle::SettleError),
    /// The escrow does not hold exactly what was bet and staked.
    EscrowMismatch {
        expected: u64,
        found: i64,
    },
}

impl fmt::Display for SettleFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettleFailure::Store(err) => write!(f, "store: {err}"),
            SettleFailure::Math(err) => write!(f, "settlement: {err}"),
            SettleFailure::EscrowMismatch { expected, found } => {
                write!(
                    f,
                    "the escrow holds {found} points, the records say {expected}"
                )
            }
        }
    }
}

impl From<StoreError> for SettleFailure {
    fn from(err: StoreError) -> SettleFailure {
        SettleFailure::Store(err)
    }
}

/// Batches waiting for the group-commit writer. Every caller awaits its own batch, so this bounds
/// how many callers queue at once; a full queue makes the next caller wait for room.
const WRITE_QUEUE_LEN: usize = 4_096;

/// Batches committed together at most: one fsync for all of them. Large enough to take a burst of
/// bets from many games at once, small enough that one commit stays a few milliseconds.
const GROUP_COMMIT_BATCHES_MAX: usize = 512;

/// What a write did, and the balance of its first transfer's payer just after the group's commit,
/// read in the same store call so a bet's reply costs no second trip to the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub applied: Applied,
    pub payer_balance: i64,
}

type PendingWrite = (Batch, oneshot::Sender<Result<Written, StoreError>>);

/// Apply a group of batches with one commit, then read each applied batch's payer balance.
fn apply_group(
    store: &dyn Store,
    batches: &[Batch],
) -> Result<Vec<Result<Written, StoreError>>, StoreError> {
    let results = store.apply_batches(batches)?;
    batches
        .iter()
        .zip(results)
        .map(|(batch, result)| {
            let applied = match result {
                Ok(applied) => applied,
                Err(err) => return Ok(Err(err)),
            };
            // The batch is applied by now: a failed read must not say "nothing changed".
            let payer_balance = match batch.transfers.first() {
                Some(first) => store.balance(first.from).map_err(StoreError::after_write)?,
                None => 0,
            };
            Ok(Ok(Written {
                applied,
                payer_balance,
            }))
        })
        .collect()
}

/// The fortune-point service: cheap to clone, shared by sessions and game actors.
#[derive(Debug, Clone)]
pub struct Ledger {
    store: StoreHandle,
    /// The group-commit writer's queue: bets, stakes and grants from every game share its commits.
    writes: mpsc::Sender<PendingWrite>,
    grant_points: u64,
    /// How long a new account's grant waits for its first finished game (see `grant`).
    grant_delay_ms: u64,
    tax_bp: u32,
}

/// Commit queued batches together: take one, then whatever else is already waiting (up to
/// [`GROUP_COMMIT_BATCHES_MAX`]), apply them with one durable commit, and answer each caller with
/// its own batch's result. Ends when every [`Ledger`] is gone.
async fn write_batches(store: StoreHandle, mut queue: mpsc::Receiver<PendingWrite>) {
    while let Some(first) = queue.recv().await {
        let mut batches = vec![first.0];
        let mut replies = vec![first.1];
        while batches.len() < GROUP_COMMIT_BATCHES_MAX {
            let Ok((batch, reply)) = queue.try_recv() else {
                break;
            };
            batches.push(batch);
            replies.push(reply);
        }
        match store.call(move |store| apply_group(store, &batches)).await {
            Ok(results) => {
                for (reply, result) in replies.into_iter().zip(results) {
                    // A caller that stopped waiting loses nothing: its batch is applied or not.
                    let _ = reply.send(result);
                }
            }
            Err(err) => {
                for reply in replies {
                    let _ = reply.send(Err(err.clone()));
                }
            }
        }
    }
}

impl Ledger {
    /// The service, and its group-commit writer task (so this needs a tokio runtime).
    pub fn new(store: StoreHandle, grant_points: u64, tax_bp: u32) -> Ledger {
        assert!(
            tax_bp <= settle::BASIS_POINTS_FULL,
            "the tax rate is at most 100%"
        );
        let (writes, queue) = mpsc::channel(WRITE_QUEUE_LEN);
        tokio::spawn(write_batches(store.clone(), queue));
        Ledger {
            store,
            writes,
            grant_points,
            grant_delay_ms: 0,
            tax_bp,
        }
    }

    /// New accounts wait `grant_delay_ms` for their grant unless they finish a game first (0: at once).
    pub fn with_grant_delay(self, grant_delay_ms: u64) -> Ledger {
        Ledger {
            grant_delay_ms,
            ..self
        }
    }

    /// Apply one batch through the group-commit writer: durable when this returns `Ok`.
    pub async fn write(&self, batch: Batch) -> Result<Written, StoreError> {
        let (reply, answer) = oneshot::channel();
        let gone = || StoreError::Backend("the ledger writer has stopped".into());
        self.writes.send((batch, reply)).await.map_err(|_| gone())?;
        answer.await.map_err(|_| gone())?
    }

    pub fn tax_bp(&self) -> u32 {
        self.tax_bp
    }

    pub async fn balance(&self, user: UserId) -> Result<u64, StoreError> {
        self.store
            .call(move |store| user_balance(store, user))
            .await
    }

    /// Each of `users`' balance, read together.
    pub async fn balances(&self, users: Vec<UserId>) -> Result<Vec<(UserId, u64)>, StoreError> {
        self.store
            .call(move |store| {
                users
                    .into_iter()
                    .map(|user| Ok((user, user_balance(store, user)?)))
                    .collect()
            })
            .await
    }

    /// The house's takings.
    pub async fn house(&self) -> Result<u64, StoreError> {
        self.store
            .call(|store| Ok(store.balance(Account::House)?.max(0) as u64))
            .await
    }

    /// A game's tally as the book has it (bets and stakes), and whether it was settled.
    pub async fn tally(&self, game: GameId) -> Result<(Tally, bool), StoreError> {
        self.store
            .call(move |store| {
                let tally = Tally::from_transfers(&store.game_transfers(game)?);
                let settled = !store.settlements(game)?.is_empty();
                Ok((tally, settled))
            })
            .await
    }

    /// Move a bet into the game's escrow. The caller (the game actor) has checked that betting is
    /// open and the bettor is no player; this checks the side and the pool's bound against `tally`,
    /// then applies the transfer, whose id is the bet's number in the game. Returns the bettor's
    /// balance.
    pub async fn place_bet(
        &self,
        game: GameId,
        tally: &Tally,
        user: UserId,
        side: Color,
        amount: Points,
    ) -> Result<u64, BetRejected> {
        let (balance, _) = self
            .place_keyed_bet(game, tally, user, side, amount, None)
            .await?;
        Ok(balance)
    }

    /// [`Ledger::place_bet`] with the client's key, if it sent one: the transfer id is then made
    /// from the key, so the book itself refuses to apply it twice. Also says whether the transfer
    /// was new (`AlreadyApplied`: a first attempt whose outcome was unknown went through).
    pub async fn place_keyed_bet(
        &self,
        game: GameId,
        tally: &Tally,
        user: UserId,
        side: Color,
        amount: Points,
        key: Option<&RequestKey>,
    ) -> Result<(u64, Applied), BetRejected> {
        let batch = bet_batch(
            game,
            (user, side, amount),
            key,
            tally.next_bet_number(),
            (
                tally.bettor(user).map(|backing| backing.side),
                tally.total(),
            ),
        )?;
        let written = self.write(batch).await.map_err(rejected)?;
        // Postcondition: the store never takes a bettor below 0 (it refuses the batch instead).
        assert!(
            written.payer_balance >= 0,
            "user {user} has a negative balance after a bet"
        );
        Ok((written.payer_balance as u64, written.applied))
    }

    /// A keyed bet sent again to a game that is no longer live, answered from its book: the
    /// bettor's total on that game and balance now when the book has the key for the same bet,
    /// `KeyReused` when for another, `None` when it has no such key (the bet was never placed).
    pub async fn retried_bet(
        &self,
        game: GameId,
        user: UserId,
        key: RequestKey,
        side: Color,
        amount: u64,
    ) -> Result<Option<(u64, u64)>, BetRejected> {
        let found = self
            .store
            .call(move |store| {
                let tally = Tally::from_transfers(&store.game_transfers(game)?);
                let Some(first) = tally.keyed(user, &key) else {
                    return Ok(None);
                };
                let total = tally.bettor(user).map_or(0, |backing| backing.total);
                Ok(Some((first, total, user_balance(store, user)?)))
            })
            .await
            .map_err(rejected)?;
        match found {
            None => Ok(None),
            Some((first, total, balance))
                if first.kind == TransferKind::Bet
                    && first.side == side
                    && first.amount == amount =>
            {
                Ok(Some((total, balance)))
            }
            Some(_) => Err(BetRejected::KeyReused),
        }
    }

    /// Move players' stakes into a game's escrow: an agreement made during the game or a raise
    /// (from the players' accounts, numbered after the game's earlier stakes), or an agreement
    /// made before it (`hold`: released from the table's hold and staked in one batch). `entries`
    /// are (player, side, amount); `coaching` marks a paid-coaching student's stake.
    pub async fn stake(
        &self,
        game: GameId,
        tally: &Tally,
        entries: Vec<(UserId, Color, u64)>,
        coaching: bool,
        hold: Option<(TableId, String)>,
    ) -> Result<(), BetRejected> {
        let at_ms = unix_now_ms();
        let kind = stake_kind(coaching);
        let mut batch = Batch::default();
        let mut number = tally.stakes_count();
        for (user, side, amount) in entries {
            if amount > POINTS_MAX {
                return Err(BetRejected::BadAmount { amount });
            }
            if amount == 0 {
                continue;
            }
            number += 1;
            let id = match &hold {
                Some((table, agreement)) => {
                    batch.transfers.push(Transfer {
                        id: format!("release:{agreement}:{user}"),
                        from: Account::Hold(*table),
                        to: Account::User(user),
                        amount,
                        kind: TransferKind::Refund,
                        game: Some(game),
                        side: Some(side),
                        at_ms,
                    });
                    format!("stake:{game}:hold:{user}")
                }
                None => format!("stake:{game}:{number}"),
            };
            batch
                .transfers
                .push(into_escrow(id, (user, side, amount), game, kind, at_ms));
        }
        self.apply(batch).await
    }

    /// A player adds `amount` to their own stake in `game` (追加), with the client's key if it sent
    /// one (the transfer id is then made from it, as for a keyed bet). Says whether the transfer
    /// was new.
    pub async fn raise_stake(
        &self,
        game: GameId,
        tally: &Tally,
        (user, side, points): (UserId, Color, Points),
        coaching: bool,
        key: Option<&RequestKey>,
    ) -> Result<Applied, BetRejected> {
        let amount = points.get();
        let id = match key {
            Some(key) => keyed_transfer_id("stake", game, user, key),
            None => format!("stake:{game}:{}", tally.stakes_count() + 1),
        };
        let transfer = into_escrow(
            id,
            (user, side, amount),
            game,
            stake_kind(coaching),
            unix_now_ms(),
        );
        let written = self.write(Batch::one(transfer)).await.map_err(rejected)?;
        Ok(written.applied)
    }

    /// Hold the stakes agreed at `table` before its next game starts: (player, amount) pairs, the
    /// paid-coaching student's stake marked by `coaching`.
    pub async fn hold_stakes(
        &self,
        table: TableId,
        agreement: &str,
        entries: &[(UserId, u64)],
        coaching: bool,
    ) -> Result<(), BetRejected> {
        let at_ms = unix_now_ms();
        let mut batch = Batch::default();
        for &(user, amount) in entries {
            if amount > POINTS_MAX {
                return Err(BetRejected::BadAmount { amount });
            }
            if amount > 0 {
                batch.transfers.push(Transfer {
                    id: format!("hold:{agreement}:{user}"),
                    from: Account::User(user),
                    to: Account::Hold(table),
                    amount,
                    kind: stake_kind(coaching),
                    game: None,
                    side: None,
                    at_ms,
                });
            }
        }
        self.apply(batch).await
    }

    /// Give back stakes held for a game that was never played (a player stood up).
    pub async fn release_hold(
        &self,
        table: TableId,
        agreement: &str,
        entries: &[(UserId, u64)],
    ) -> Result<(), BetRejected> {
        let at_ms = unix_now_ms();
        let transfers = entries
            .iter()
            .filter(|(_, amount)| *amount > 0)
            .map(|&(user, amount)| Transfer {
                id: format!("release:{agreement}:{user}"),
                from: Account::Hold(table),
                to: Account::User(user),
                amount,
                kind: TransferKind::Refund,
                game: None,
                side: None,
                at_ms,
            })
            .collect();
        self.apply(Batch {
            transfers,
            settlements: Vec::new(),
        })
        .await
    }

    /// At start: tables are empty after a restart, so every stake still held for a next game that
    /// will now never be played goes back to whoever put it in. Each hold transfer
    /// `hold:{agreement}:{user}` is undone by `release:{agreement}:{user}`, the same id a game start
    /// or a player standing up uses, so a release that raced this one is never paid twice.
    pub async fn release_all_holds(&self) -> Result<usize, StoreError> {
        let holds = self
            .store
            .call(|store| {
                let mut holds = Vec::new();
                for entry in store.account_balances()? {
                    if matches!(entry.account, Account::Hold(_)) && entry.balance != 0 {
                        holds.push(store.account_transfers(entry.account, usize::MAX)?);
                    }
                }
                Ok(holds)
            })
            .await?;
        let at_ms = unix_now_ms();
        let mut released = 0;
        for transfers in holds {
            let ids: std::collections::BTreeSet<&str> =
                transfers.iter().map(|t| t.id.as_str()).collect();
            let releases: Vec<Transfer> = transfers
                .iter()
                .filter_map(|t| {
                    let (Account::User(user), Account::Hold(_)) = (t.from, t.to) else {
                        return None;
                    };
                    let id = format!("release:{}", t.id.strip_prefix("hold:")?);
                    (!ids.contains(id.as_str())).then_some(Transfer {
                        id,
                        from: t.to,
                        to: Account::User(user),
                        amount: t.amount,
                        kind: TransferKind::Refund,
                        game: None,
                        side: None,
                        at_ms,
                    })
                })
                .collect();
            for release in releases {
                // One batch per release: one that raced a release elsewhere fails alone.
                let id = release.id.clone();
                match self.write(Batch::one(release)).await {
                    Ok(_) => released += 1,
                    Err(err) => tracing::warn!(%id, %err, "a held stake was not released"),
                }
            }
        }
        Ok(released)
    }

    async fn apply(&self, batch: Batch) -> Result<(), BetRejected> {
        if batch.transfers.is_empty() {
            return Ok(());
        }
        self.write(batch).await.map(|_| ()).map_err(rejected)
    }

    /// Settle a finished game once: pay out (or refund) its pool and its stakes from its escrow in
    /// one batch with the settlement records. Applying it again, after a retry or a restart, finds
    /// the records and the transfer ids already in the book and changes nothing.
    pub async fn settle_game(
        &self,
        game: GameId,
        players: [UserId; 2],
        outcome: MoneyOutcome,
    ) -> Result<Applied, SettleFailure> {
        let tax_bp = self.tax_bp;
        self.store
            .call(move |store| Ok(settle_in(store, game, players, outcome, tax_bp)))
            .await?
    }

    /// Settle every finished game the store has no settlement for (a crash came between its end
    /// and its payout). Returns how many were settled now.
    pub async fn settle_unsettled(&self) -> Result<usize, StoreError> {
        let rows = self
            .store
            .call(|store| store.unsettled_finished_games())
            .await?;
        let mut settled = 0;
        for row in rows {
            let Some(outcome) = final_outcome(&row) else {
                tracing::error!(game = %row.id, "a finished game has no result event; not settled");
                continue;
            };
            match self
                .settle_game(row.id, [row.game.black, row.game.white], outcome)
                .await
            {
                Ok(_) => {
                    tracing::info!(game = %row.id, "settled a game that ended before a restart");
                    settled += 1;
                }
                Err(err) => tracing::error!(game = %row.id, %err, "could not settle a game"),
            }
        }
        Ok(settled)
    }

    /// `user`'s bets and stakes, newest first, at most `limit`, each with what came back.
    /// The transfers into or out of `user`'s account, newest first, at most `limit`, signed from
    /// the user's side.
    pub async fn history(
        &self,
        user: UserId,
        limit: usize,
    ) -> Result<Vec<tengen_protocol::HistoryEntry>, StoreError> {
        let account = Account::User(user);
        let transfers = self
            .store
            .call(move |store| store.account_transfers(account, limit))
            .await?;
        Ok(transfers
            .into_iter()
            .map(|transfer| {
                let amount = i64::try_from(transfer.amount).unwrap_or(i64::MAX);
                tengen_protocol::HistoryEntry {
                    kind: transfer.kind.as_str().to_string(),
                    amount: if transfer.to == account {
                        amount
                    } else {
                        -amount
                    },
                    game: transfer.game,
                    at_ms: transfer.at_ms,
                }
            })
            .collect())
    }

    pub async fn records(
        &self,
        user: UserId,
        limit: usize,
    ) -> Result<Vec<WagerRecord>, StoreError> {
        let tax_bp = self.tax_bp;
        self.store
            .call(move |store| records::records_in(store, user, limit, tax_bp))
            .await
    }
}

/// A store refusal of a bet or stake, as the player hears it.
pub(crate) fn rejected(err: StoreError) -> BetRejected {
    match err {
        StoreError::InsufficientPoints { .. } => BetRejected::InsufficientPoints,
        // Only keyed transfers can meet an id with other contents: the client reused its key.
        StoreError::TransferConflict { .. } => BetRejected::KeyReused,
        err => BetRejected::Store(err),
    }
}

fn stake_kind(coaching: bool) -> TransferKind {
    if coaching {
        TransferKind::CoachingStake
    } else {
        TransferKind::Stake
    }
}

fn user_balance(store: &dyn Store, user: UserId) -> Result<u64, StoreError> {
    let balance = store.balance(Account::User(user))?;
    assert!(balance >= 0, "user {user} has a negative balance");
    Ok(balance as u64)
}

/// The money outcome recorded at the end of a game's event log.
pub fn final_outcome(row: &LiveGameRow) -> Option<MoneyOutcome> {
    crate::store::logged_outcome(&row.events).map(|outcome| outcome_of(&outcome))
}

fn settle_in(
    store: &dyn Store,
    game: GameId,
    players: [UserId; 2],
    outcome: MoneyOutcome,
    tax_bp: u32,
) -> Result<Applied, SettleFailure> {
    if !store.settlements(game)?.is_empty() {
        return Ok(Applied::AlreadyApplied);
    }
    let tally = Tally::from_transfers(&store.game_transfers(game)?);
    let expected = tally.total() + tally.stakes_total();
    let found = store.balance(Account::Escrow(game))?;
    if i128::from(found) != i128::from(expected) {
        return Err(SettleFailure::EscrowMismatch { expected, found });
    }
    let at_ms = unix_now_ms();
    let mut batch = Batch::default();
    let pool = settle::settle_pool(&tally.bets(), outcome, tax_bp).map_err(SettleFailure::Math)?;
    batch
        .transfers
        .extend(payout_transfers(game, SettlementPart::Pool, &pool, at_ms));
    batch
        .settlements
        .push(record(game, SettlementPart::Pool, tax_bp, &pool, at_ms));
    if tally.has_stakes() {
        let stakes = tally.stakes(players);
        let settlement = settle::settle_stakes(&stakes, tally.stake_mode(), outcome, tax_bp)
            .map_err(SettleFailure::Math)?;
        batch.transfers.extend(payout_transfers(
            game,
            SettlementPart::Stakes,
            &settlement,
            at_ms,
        ));
        batch.settlements.push(record(
            game,
            SettlementPart::Stakes,
            tax_bp,
            &settlement,
            at_ms,
        ));
    }
    let applied = store.apply_batch(&batch)?;
    let left = store.balance(Account::Escrow(game))?;
    assert_eq!(left, 0, "a settled escrow is empty");
    Ok(applied)
}

fn record(
    game: GameId,
    part: SettlementPart,
    tax_bp: u32,
    settlement: &Settlement,
    at_ms: u64,
) -> SettlementRecord {
    SettlementRecord {
        game,
        part,
        tax_bp,
        summary_json: serde_json::to_string(settlement).expect("a settlement serializes"),
        at_ms,
    }
}

/// What the audit found; `ok` is the verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditReport {
    pub ok: bool,
    /// Every point ever granted (the sum of grant transfers).
    pub granted: u64,
    /// The sum over users, escrows, holds and the house: must equal `granted`.
    pub held: i64,
    /// Minus the mint's balance: must equal `granted` too.
    pub minted: i64,
    pub users_total: i64,
    pub escrow_total: i64,
    pub house: i64,
    pub accounts_count: usize,
    pub settled_games_count: usize,
    /// Accounts other than the mint below 0 (must be none).
    pub negative_accounts: Vec<String>,
    /// Settled games whose escrow is not empty (must be none).
    pub settled_escrows_not_empty: Vec<u64>,
    /// Live or unsettled games' escrows, and tables' holds, holding points (informational).
    pub open_escrows_count: usize,
}

/// Check the book: conservation (everything held = everything granted = minus the mint), no
/// negative balance but the mint's, and every settled game's escrow empty.
pub fn audit(store: &dyn Store) -> Result<AuditReport, StoreError> {
    let balances = store.account_balances()?;
    let granted = store.granted_total()?;
    let settled = store.settled_games()?;
    let mut report = AuditReport {
        ok: false,
        granted,
        held: 0,
        minted: 0,
        users_total: 0,
        escrow_total: 0,
        house: 0,
        accounts_count: balances.len(),
        settled_games_count: settled.len(),
        negative_accounts: Vec::new(),
        settled_escrows_not_empty: Vec::new(),
        open_escrows_count: 0,
    };
    for entry in &balances {
        match entry.account {
            Account::Mint => report.minted = -entry.balance,
            Account::House => report.house += entry.balance,
            Account::User(_) => report.users_total += entry.balance,
            Account::Hold(_) => {
                report.escrow_total += entry.balance;
                if entry.balance != 0 {
                    report.open_escrows_count += 1;
                }
            }
            Account::Escrow(game) => {
                report.escrow_total += entry.balance;
                if entry.balance != 0 {
                    if settled.binary_search(&game).is_ok() {
                        report.settled_escrows_not_empty.push(game.0);
                    } else {
                        report.open_escrows_count += 1;
                    }
                }
            }
        }
        if entry.balance < 0 && !entry.account.may_go_negative() {
            report.negative_accounts.push(entry.account.key());
        }
    }
    report.held = report.users_total + report.escrow_total + report.house;
    report.ok = i128::from(report.held) == i128::from(granted)
        && i128::from(report.minted) == i128::from(granted)
        && report.negative_accounts.is_empty()
        && report.settled_escrows_not_empty.is_empty();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sqlite::SqliteStore;
    use crate::store::NewGame;
    use std::sync::Arc;
    use tengen_protocol::Color;

    const GRANT: u64 = 1_000;

    fn outcome(winner: Option<Color>, reason: EndReason) -> GameOutcome {
        GameOutcome {
            winner,
            reason,
            sgf: String::new(),
            chinese: String::new(),
            black_count_half_points: None,
            white_count_half_points: None,
        }
    }

    /// A store failure behind a bet reaches the player as its kind (`internal`, `unavailable`,
    /// `outcome_unknown`) without the backend's text, which may name files or servers.
    #[test]
    fn store_failures_behind_a_bet_hide_their_text() {
        let secret = "disk I/O error in /var/lib/tengen/tengen.db";
        for (err, code) in [
            (StoreError::Backend(secret.into()), ErrorCode::Internal),
            (
                StoreError::Unavailable(secret.into()),
                ErrorCode::Unavailable,
            ),
            (
                StoreError::OutcomeUnknown(secret.into()),
                ErrorCode::OutcomeUnknown,
            ),
        ] {
            let refusal = Refusal::from(rejected(err));
            assert_eq!(refusal.code, code);
            assert!(!refusal.message.contains("/var/lib"), "{refusal}");
        }
    }

    #[test]
    fn results_map_to_money_outcomes() {
        let black = Some(Color::Black);
        assert_eq!(
            outcome_of(&outcome(black, EndReason::Resignation)),
            MoneyOutcome::Win(Color::Black)
        );
        assert_eq!(
            outcome_of(&outcome(black, EndReason::Time)),
            MoneyOutcome::Win(Color::Black)
        );
        // A forfeit won by Black is White's escape.
        assert_eq!(
            outcome_of(&outcome(black, EndReason::Forfeit)),
            MoneyOutcome::Escape(Color::White)
        );
        assert_eq!(
            outcome_of(&outcome(None, EndReason::Score)),
            MoneyOutcome::Draw
        );
        assert_eq!(
            outcome_of(&outcome(None, EndReason::Void)),
            MoneyOutcome::Void
        );
    }

    /// A store with a finished game between users 1 and 2 and two watchers 3 and 4 who bet.
    async fn fixture() -> (tempfile::TempDir, Arc<SqliteStore>, Ledger, GameId) {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(SqliteStore::open(dir.path()).unwrap());
        let ledger = Ledger::new(StoreHandle::new(store.clone()), GRANT, 500);
        for name in ["black", "white", "carol", "dave"] {
            let user = store
                .create_user(&crate::username::name(name), "h", 0)
                .unwrap();
            assert_eq!(
                ledger.open_account(user, 0, 1).await.unwrap().balance,
                GRANT
            );
            // Opening again never grants twice.
            assert_eq!(
                ledger.open_account(user, 0, 1).await.unwrap().balance,
                GRANT
            );
        }
        let game = store
            .create_game(&NewGame {
                black: UserId(1),
                white: UserId(2),
                table: None,
                settings_json: "{}".into(),
                nigiri_seed: None,
                started_at_ms: 0,
            })
            .unwrap();
        let mut tally = Tally::default();
        for (user, side, amount) in [(3, Color::Black, 100), (4, Color::White, 300)] {
            let points = Points::new(amount).unwrap();
            ledger
                .place_bet(game, &tally, UserId(user), side, points)
                .await
                .unwrap();
            tally.add_bet(UserId(user), side, amount);
        }
        (dir, store, ledger, game)
    }

    #[tokio::test]
    async fn a_game_is_settled_once_however_often_it_is_asked() {
        let (_dir, store, ledger, game) = fixture().await;
        let players = [UserId(1), UserId(2)];
        let win = MoneyOutcome::Win(Color::Black);
        assert_eq!(
            ledger.settle_game(game, players, win).await,
            Ok(Applied::Applied)
        );
        for _ in 0..3 {
            assert_eq!(
                ledger.settle_game(game, players, win).await,
                Ok(Applied::AlreadyApplied)
            );
        }
        // Carol's 100 takes Dave's 300, taxed: 100 + floor(300 · 0.95).
        assert_eq!(ledger.balance(UserId(3)).await.unwrap(), GRANT - 100 + 385);
        assert_eq!(ledger.balance(UserId(4)).await.unwrap(), GRANT - 300);
        assert_eq!(ledger.house().await.unwrap(), 15);
        let report = audit(store.as_ref()).unwrap();
        assert!(report.ok, "{report:?}");
        assert_eq!(report.granted, 4 * GRANT);
    }

    #[tokio::test]
    async fn bets_are_checked_before_anything_moves() {
        let (_dir, _store, ledger, game) = fixture().await;
        let tally = ledger.tally(game).await.unwrap().0;
        let carol = UserId(3);
        // (Amounts out of range are no `Points`: they never get this far.)
        let refused = [
            (
                Color::White,
                1,
                BetRejected::SideChange { side: Color::Black },
            ),
            (Color::Black, GRANT, BetRejected::InsufficientPoints),
            // The pool holds 400 points already: one more bet may not take it past the bound.
            (
                Color::Black,
                POINTS_MAX - 399,
                BetRejected::BadAmount {
                    amount: POINTS_MAX - 399,
                },
            ),
        ];
        for (side, amount, expected) in refused {
            let points = Points::new(amount).unwrap();
            assert_eq!(
                ledger.place_bet(game, &tally, carol, side, points).await,
                Err(expected)
            );
        }
        assert_eq!(ledger.balance(carol).await.unwrap(), GRANT - 100);
        assert_eq!(ledger.tally(game).await.unwrap().0, tally);
    }

    #[tokio::test]
    async fn the_audit_notices_a_book_that_does_not_balance() {
        let (_dir, store, ledger, game) = fixture().await;
        // Settled but the escrow is not empty: a forged extra bet after settlement.
        ledger
            .settle_game(game, [UserId(1), UserId(2)], MoneyOutcome::Draw)
            .await
            .unwrap();
        assert!(audit(store.as_ref()).unwrap().ok);
        store
            .apply_batch(&Batch {
                transfers: vec![Transfer {
                    id: "forged".into(),
                    from: Account::User(UserId(3)),
                    to: Account::Escrow(game),
                    amount: 1,
                    kind: TransferKind::Bet,
                    game: Some(game),
                    side: Some(Color::Black),
                    at_ms: 0,
                }],
                settlements: Vec::new(),
            })
            .unwrap();
        let report = audit(store.as_ref()).unwrap();
        assert!(!report.ok);
        assert_eq!(report.settled_escrows_not_empty, vec![game.0]);
        // Points minted without a grant: held and minted both exceed what grants account for.
        store
            .apply_batch(&Batch {
                transfers: vec![Transfer {
                    id: "from-nowhere".into(),
                    from: Account::Mint,
                    to: Account::User(UserId(4)),
                    amount: 7,
                    kind: TransferKind::Payout,
                    game: None,
                    side: None,
                    at_ms: 0,
                }],
                settlements: Vec::new(),
            })
            .unwrap();
        let report = audit(store.as_ref()).unwrap();
        assert_eq!(report.held, report.granted as i64 + 7);
        assert!(!report.ok);
    }

    #[tokio::test]
    async fn an_escrow_that_does_not_match_its_records_is_not_paid_out() {
        let (_dir, store, ledger, game) = fixture().await;
        // Points that reached the escrow without being a bet or a stake.
        store
            .apply_batch(&Batch {
                transfers: vec![Transfer {
                    id: "stray".into(),
                    from: Account::User(UserId(4)),
                    to: Account::Escrow(game),
                    amount: 5,
                    kind: TransferKind::Tax,
                    game: None,
                    side: None,
                    at_ms: 0,
                }],
                settlements: Vec::new(),
            })
            .unwrap();
        assert_eq!(
            ledger
                .settle_game(game, [UserId(1), UserId(2)], MoneyOutcome::Draw)
                .await,
            Err(SettleFailure::EscrowMismatch {
                expected: 400,
                found: 405
            })
        );
        assert_eq!(ledger.balance(UserId(3)).await.unwrap(), GRANT - 100);
    }
}
