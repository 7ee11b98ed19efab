//! A user's records of their bets and stakes (`my_bets`), read back from the book: each record is
//! one game's bets or stakes grouped, with what came back once the game is settled; a coach's fee
//! from paid coaching (the coach stakes nothing, so the fee is the only trace in their account);
//! and a stake held at a table for a next game, until the game starts (its stake is then the
//! game's record) or is given back because the game never started. Everything is read from the
//! transfers' kinds, accounts and ids, so the records need nothing the book does not keep.

use tengen_protocol::{GameId, TableId, UserId, WagerKind, WagerRecord};

use super::book::{Account, SettlementPart, Transfer, TransferKind};
use super::settle::{Beneficiary, Settlement};
use crate::store::{Bookkeeping, StoreError};
use tengen_rules::Color;

/// The refund reason of a held stake given back because its game never started.
const NOT_PLAYED: &str = "not_played";

/// What groups a user's transfers into one record.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    /// Bets, stakes or a coach's fee in one game.
    Game(GameId, WagerKind),
    /// A stake held at a table under one agreement (the id shared by its hold and its release).
    Hold(TableId, String),
}

/// One record being gathered: its key, the side (bets and stakes), the amount put in, and for a
/// hold whether it was given back (`Some(false)`: moved into its game, so no record of its own).
#[derive(Debug)]
struct Wager {
    key: Key,
    side: Option<Color>,
    amount: u64,
    released: Option<bool>,
}

pub(super) fn records_in(
    store: &dyn Bookkeeping,
    user: UserId,
    limit: usize,
    tax_bp_now: u32,
) -> Result<Vec<WagerRecord>, StoreError> {
    let transfers = store.account_transfers(Account::User(user), limit.saturating_mul(4))?;
    let mut records = Vec::new();
    for wager in wagers(user, &transfers) {
        if records.len() == limit {
            break;
        }
        if let Some(record) = record_of(store, user, wager, tax_bp_now)? {
            records.push(record);
        }
    }
    Ok(records)
}

/// What one transfer adds to the user's records: its key, side, the amount put in, and for a
/// hold's release whether the points came back (`true`) or went into the game (`false`).
fn classify(user: UserId, t: &Transfer) -> Option<(Key, Option<Color>, u64, Option<bool>)> {
    match (t.kind, t.from, t.to) {
        (TransferKind::Bet, _, _) => {
            Some((Key::Game(t.game?, WagerKind::Bet), t.side, t.amount, None))
        }
        // Stakes count once they are in a game's escrow (a hold is moved there at the start).
        (TransferKind::Stake | TransferKind::CoachingStake, _, Account::Escrow(game)) => {
            Some((Key::Game(game, WagerKind::Stake), t.side, t.amount, None))
        }
        (TransferKind::Stake | TransferKind::CoachingStake, _, Account::Hold(table)) => {
            let agreement =
                t.id.strip_prefix("hold:")?
                    .strip_suffix(&format!(":{user}"))?;
            Some((
                Key::Hold(table, agreement.to_string()),
                None,
                t.amount,
                None,
            ))
        }
        (TransferKind::Refund, Account::Hold(table), _) => {
            let agreement =
                t.id.strip_prefix("release:")?
                    .strip_suffix(&format!(":{user}"))?;
            // A release naming a game moved the stake into it; one naming none gave it back.
            let key = Key::Hold(table, agreement.to_string());
            Some((key, None, 0, Some(t.game.is_none())))
        }
        // A stakes payout is a coach's fee unless the user staked in that game too (checked in
        // `record_of` against the game's own transfers).
        (TransferKind::Payout, Account::Escrow(game), _)
            if t.id
                .contains(&format!(":{}:", SettlementPart::Stakes.as_str())) =>
        {
            Some((Key::Game(game, WagerKind::Coaching), None, 0, None))
        }
        _ => None,
    }
}

/// A user's transfers (newest first) grouped into records, in the order each first appears.
fn wagers(user: UserId, transfers: &[Transfer]) -> Vec<Wager> {
    let mut wagers: Vec<Wager> = Vec::new();
    for t in transfers {
        let Some((key, side, amount, released)) = classify(user, t) else {
            continue;
        };
        match wagers.iter_mut().find(|wager| wager.key == key) {
            Some(wager) => {
                wager.amount += amount;
                wager.side = wager.side.or(side);
                wager.released = wager.released.or(released);
            }
            None => wagers.push(Wager {
                key,
                side,
                amount,
                released,
            }),
        }
    }
    wagers
}

/// A gathered record as the user reads it, or `None` when it is no record of its own (a hold moved
/// into its game, a stakes payout of the user's own stake).
fn record_of(
    store: &dyn Bookkeeping,
    user: UserId,
    wager: Wager,
    tax_bp_now: u32,
) -> Result<Option<WagerRecord>, StoreError> {
    match wager.key {
        Key::Hold(table, _) => Ok(hold_record(table, &wager, tax_bp_now)),
        Key::Game(game, WagerKind::Coaching) => coach_record(store, user, game),
        Key::Game(game, kind) => {
            game_record(store, user, (game, kind), &wager, tax_bp_now).map(Some)
        }
    }
}

fn hold_record(table: TableId, wager: &Wager, tax_bp_now: u32) -> Option<WagerRecord> {
    let given_back = match wager.released {
        Some(false) => return None,
        Some(true) => true,
        None => false,
    };
    Some(WagerRecord {
        game: None,
        table: Some(table),
        kind: WagerKind::Hold,
        side: None,
        staked: wager.amount,
        returned: given_back.then_some(wager.amount),
        net: given_back.then_some(0),
        tax_bp: tax_bp_now,
        refund: given_back.then(|| NOT_PLAYED.to_string()),
    })
}

/// A coach's fee: the game's stakes are a paid-coaching student's (another user's), and the coach
/// played the other colour. A stakes payout in a game where the user staked is their own stake's.
fn coach_record(
    store: &dyn Bookkeeping,
    user: UserId,
    game: GameId,
) -> Result<Option<WagerRecord>, StoreError> {
    let transfers = store.game_transfers(game)?;
    let student = transfers
        .iter()
        .find(|t| t.kind == TransferKind::CoachingStake && matches!(t.to, Account::Escrow(_)));
    let Some(Transfer {
        from: Account::User(student),
        side: Some(student_side),
        ..
    }) = student
    else {
        return Ok(None);
    };
    if *student == user {
        return Ok(None);
    }
    let Some((returned, tax_bp, _)) = settled(store, user, game, SettlementPart::Stakes)? else {
        return Ok(None);
    };
    Ok(Some(WagerRecord {
        game: Some(game),
        table: None,
        kind: WagerKind::Coaching,
        side: Some(student_side.opponent()),
        staked: 0,
        returned: Some(returned),
        net: i64::try_from(returned).ok(),
        tax_bp,
        refund: None,
    }))
}

/// A game's bets or stakes: what came back once the game is settled, and how.
fn game_record(
    store: &dyn Bookkeeping,
    user: UserId,
    (game, kind): (GameId, WagerKind),
    wager: &Wager,
    tax_bp_now: u32,
) -> Result<WagerRecord, StoreError> {
    let part = match kind {
        WagerKind::Bet => SettlementPart::Pool,
        _ => SettlementPart::Stakes,
    };
    let mut record = WagerRecord {
        game: Some(game),
        table: None,
        kind,
        side: wager.side,
        staked: wager.amount,
        returned: None,
        net: None,
        tax_bp: tax_bp_now,
        refund: None,
    };
    if let Some((returned, tax_bp, refund)) = settled(store, user, game, part)? {
        record.returned = Some(returned);
        record.net = Some(returned as i64 - wager.amount as i64);
        record.tax_bp = tax_bp;
        record.refund = refund;
    }
    Ok(record)
}

/// What a settled part of a game paid the user, its tax rate and its refund reason; `None` until
/// that part is settled.
fn settled(
    store: &dyn Bookkeeping,
    user: UserId,
    game: GameId,
    part: SettlementPart,
) -> Result<Option<(u64, u32, Option<String>)>, StoreError> {
    let Some(settled) = store
        .settlements(game)?
        .into_iter()
        .find(|record| record.part == part)
    else {
        return Ok(None);
    };
    let summary: Settlement = serde_json::from_str(&settled.summary_json)
        .map_err(|err| StoreError::Backend(format!("bad settlement record: {err}")))?;
    let refund = summary.refund.map(|reason| {
        serde_json::to_value(reason)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    });
    Ok(Some((
        summary.paid_to(Beneficiary::User(user.0)),
        settled.tax_bp,
        refund,
    )))
}
