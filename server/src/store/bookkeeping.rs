//! The fortune-point ledger's book as the store keeps it, behind [`Bookkeeping`] (which
//! [`Store`](super::Store) requires). It is batch-shaped: [`Bookkeeping::apply_batch`] applies a
//! [`Batch`] of transfers and settlement records all-or-nothing and idempotently (by transfer id),
//! refusing any that would take an account other than the mint below 0; the reads give balances,
//! histories and what the audit checks. The vocabulary (accounts, transfers, batches) is
//! `crate::book`'s; what the transfers mean is `crate::ledger`'s business.

use tengen_protocol::GameId;

use super::{LiveGameRow, StoreError};
use crate::book::{Account, AccountBalance, Applied, Batch, SettlementRecord, Transfer};

/// The book of fortune points, durable.
pub trait Bookkeeping {
    /// Whether a ledger transfer with this id is in the book.
    fn has_transfer(&self, id: &str) -> Result<bool, StoreError>;
    /// Apply a batch of transfers and settlement records in one durable transaction: all or nothing.
    /// Transfers whose id is already in the book and records already present are skipped, so a retry
    /// is harmless; a transfer that would take any account but the mint below 0 refuses the batch.
    fn apply_batch(&self, batch: &Batch) -> Result<Applied, StoreError>;
    /// Group commit: apply several independent batches with one durable commit. Each batch is still
    /// all-or-nothing on its own (one refused batch leaves the others applied); the outer error means
    /// the commit itself failed and none was applied.
    fn apply_batches(
        &self,
        batches: &[Batch],
    ) -> Result<Vec<Result<Applied, StoreError>>, StoreError>;
    /// An account's balance (0 for an account never used).
    fn balance(&self, account: Account) -> Result<i64, StoreError>;
    /// Every transfer of a game (bets, stakes, settlement), oldest first.
    fn game_transfers(&self, game: GameId) -> Result<Vec<Transfer>, StoreError>;
    /// The transfers into or out of an account, newest first, at most `limit`.
    fn account_transfers(
        &self,
        account: Account,
        limit: usize,
    ) -> Result<Vec<Transfer>, StoreError>;
    /// A game's settlement records (none until it is settled).
    fn settlements(&self, game: GameId) -> Result<Vec<SettlementRecord>, StoreError>;
    /// Every account with its balance, for the audit.
    fn account_balances(&self) -> Result<Vec<AccountBalance>, StoreError>;
    /// The sum of every grant transfer ever applied.
    fn granted_total(&self) -> Result<u64, StoreError>;
    /// Every game with at least one settlement record.
    fn settled_games(&self) -> Result<Vec<GameId>, StoreError>;
    /// Finished games (result stored) that have no settlement record: a crash came between the end
    /// and the payout. With each, its event log, whose last event holds the result.
    fn unsettled_finished_games(&self) -> Result<Vec<LiveGameRow>, StoreError>;
}

/// The ledger half of the conformance suite: idempotent transfers, all-or-nothing batches, no
/// balance below 0 but the mint's, settlement records, history and the unsettled-games query.
#[cfg(test)]
pub(crate) fn conformance(
    store: &dyn Bookkeeping,
    alice: tengen_protocol::UserId,
    bob: tengen_protocol::UserId,
    finished: GameId,
) {
    use crate::book::{SettlementPart, TransferKind};
    use tengen_rules::Color;

    let transfer =
        |id: &str, from: Account, to: Account, amount: u64, kind: TransferKind| Transfer {
            id: id.into(),
            from,
            to,
            amount,
            kind,
            game: None,
            side: None,
            at_ms: 1,
        };
    let batch = |transfers: Vec<Transfer>| Batch {
        transfers,
        settlements: Vec::new(),
    };
    let grant = |user: tengen_protocol::UserId| {
        transfer(
            &format!("grant:{user}"),
            Account::Mint,
            Account::User(user),
            100,
            TransferKind::Grant,
        )
    };
    assert_eq!(
        store.apply_batch(&batch(vec![grant(alice), grant(bob)])),
        Ok(Applied::Applied)
    );
    // A retry changes nothing; the same id with other contents is refused.
    assert_eq!(
        store.apply_batch(&batch(vec![grant(alice)])),
        Ok(Applied::AlreadyApplied)
    );
    let mut changed = grant(alice);
    changed.amount = 5;
    assert_eq!(
        store.apply_batch(&batch(vec![changed])),
        Err(StoreError::TransferConflict {
            id: format!("grant:{alice}")
        })
    );
    assert_eq!(store.balance(Account::User(alice)), Ok(100));
    assert_eq!(store.balance(Account::Mint), Ok(-200));
    assert_eq!(store.granted_total(), Ok(200));

    // All or nothing: the second transfer overdraws bob, so the first is not applied either.
    let escrow = Account::Escrow(finished);
    let mut bet = transfer("bet:a", Account::User(alice), escrow, 60, TransferKind::Bet);
    bet.game = Some(finished);
    bet.side = Some(Color::Black);
    let mut overdraw = transfer("bet:b", Account::User(bob), escrow, 101, TransferKind::Bet);
    overdraw.game = Some(finished);
    overdraw.side = Some(Color::White);
    assert_eq!(
        store.apply_batch(&batch(vec![bet.clone(), overdraw])),
        Err(StoreError::InsufficientPoints {
            account: Account::User(bob)
        })
    );
    assert_eq!(store.balance(Account::User(alice)), Ok(100));
    assert_eq!(store.balance(escrow), Ok(0));
    assert!(matches!(
        store.apply_batch(&batch(vec![transfer(
            "zero",
            Account::Mint,
            Account::House,
            0,
            TransferKind::Grant
        )])),
        Err(StoreError::BadBatch(_))
    ));

    // The finished game is unsettled until its settlement record is stored with its payout.
    store.apply_batch(&batch(vec![bet.clone()])).unwrap();
    assert_eq!(store.game_transfers(finished), Ok(vec![bet.clone()]));
    let unsettled: Vec<GameId> = store
        .unsettled_finished_games()
        .unwrap()
        .iter()
        .map(|row| row.id)
        .collect();
    assert_eq!(unsettled, vec![finished]);
    let mut refund = transfer(
        "settle:x",
        escrow,
        Account::User(alice),
        60,
        TransferKind::Refund,
    );
    refund.game = Some(finished);
    let record = SettlementRecord {
        game: finished,
        part: SettlementPart::Pool,
        tax_bp: 500,
        summary_json: "{}".into(),
        at_ms: 2,
    };
    let settle = Batch {
        transfers: vec![refund.clone()],
        settlements: vec![record.clone()],
    };
    assert_eq!(store.apply_batch(&settle), Ok(Applied::Applied));
    assert_eq!(store.apply_batch(&settle), Ok(Applied::AlreadyApplied));
    assert_eq!(store.settlements(finished), Ok(vec![record]));
    assert_eq!(store.settled_games(), Ok(vec![finished]));
    assert!(store.unsettled_finished_games().unwrap().is_empty());
    assert_eq!(store.balance(escrow), Ok(0));
    assert_eq!(store.balance(Account::User(alice)), Ok(100));

    // Group commit: each batch on its own, one refused without undoing its neighbours.
    let mut small = transfer(
        "gc:1",
        Account::User(bob),
        Account::House,
        1,
        TransferKind::Tax,
    );
    small.game = None;
    let too_big = transfer(
        "gc:2",
        Account::User(bob),
        Account::House,
        1_000,
        TransferKind::Tax,
    );
    let mut again = small.clone();
    again.id = "gc:3".into();
    let results = store
        .apply_batches(&[
            batch(vec![small.clone()]),
            batch(vec![too_big]),
            batch(vec![again, small]),
        ])
        .unwrap();
    assert_eq!(
        results,
        vec![
            Ok(Applied::Applied),
            Err(StoreError::InsufficientPoints {
                account: Account::User(bob)
            }),
            Ok(Applied::Applied),
        ]
    );
    assert_eq!(store.balance(Account::User(bob)), Ok(98));
    assert_eq!(store.balance(Account::House), Ok(2));

    // History newest first; balances for the audit.
    let history = store.account_transfers(Account::User(alice), 10).unwrap();
    let ids: Vec<&str> = history.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, vec!["settle:x", "bet:a", &format!("grant:{alice}")]);
    assert_eq!(
        store
            .account_transfers(Account::User(alice), 1)
            .unwrap()
            .len(),
        1
    );
    let total: i64 = store
        .account_balances()
        .unwrap()
        .iter()
        .map(|entry| entry.balance)
        .sum();
    assert_eq!(total, 0, "the mint balances everything");
}
