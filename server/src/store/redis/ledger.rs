//! The ledger's side of the Redis store in Rust: a [`Batch`] turned into one `tengen_apply_batch`
//! function call, the function's answer turned back into [`Applied`] or a [`StoreError`], and the
//! stored transfers and settlement records read back. The checks and writes themselves happen
//! inside the function (`functions.lua`), atomically.

use serde::Deserialize;
use tengen_protocol::GameId;

use super::keys;
use super::records::{corrupt, parse_number};
use crate::book::{
    Account, Applied, Batch, SettlementPart, SettlementRecord, Transfer, TransferKind,
    BATCH_TRANSFERS_MAX,
};
use crate::store::StoreError;
use tengen_rules::Color;

/// The function call that applies `batch`.
pub(super) fn apply_batch_call(batch: &Batch) -> ::redis::Cmd {
    let mut call = ::redis::cmd("FCALL");
    call.arg("tengen_apply_batch")
        .arg(1)
        .arg(keys::LEDGER)
        .arg(BATCH_TRANSFERS_MAX)
        .arg(batch.transfers.len())
        .arg(batch.settlements.len());
    for t in &batch.transfers {
        call.arg(&t.id)
            .arg(t.from.key())
            .arg(t.to.key())
            .arg(t.amount)
            .arg(t.kind.as_str())
            .arg(t.game.map_or(String::new(), |game| game.to_string()))
            .arg(t.side.map_or("", side_key))
            .arg(t.at_ms);
    }
    for record in &batch.settlements {
        call.arg(record.game.0)
            .arg(record.part.as_str())
            .arg(record.tax_bp)
            .arg(&record.summary_json)
            .arg(record.at_ms);
    }
    call
}

/// What `tengen_apply_batch` answered: `[outcome, detail]`.
pub(super) fn applied_from_reply(reply: &[String]) -> Result<Applied, StoreError> {
    let [outcome, detail] = reply else {
        return Err(StoreError::Backend(format!(
            "tengen_apply_batch answered {reply:?}"
        )));
    };
    match (outcome.as_str(), detail.as_str()) {
        ("ok", "applied") => Ok(Applied::Applied),
        ("ok", "already_applied") => Ok(Applied::AlreadyApplied),
        ("bad", why) => Err(StoreError::BadBatch(why.to_string())),
        ("conflict", id) => Err(StoreError::TransferConflict { id: id.to_string() }),
        ("insufficient", account) => Err(StoreError::InsufficientPoints {
            account: Account::from_key(account).ok_or_else(|| corrupt("account", account))?,
        }),
        _ => Err(StoreError::Backend(format!(
            "tengen_apply_batch answered {reply:?}"
        ))),
    }
}

fn side_key(side: Color) -> &'static str {
    match side {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// A transfer as `functions.lua` stores it: every field a string, empty for none.
#[derive(Debug, Deserialize)]
struct StoredTransfer {
    from: String,
    to: String,
    amount: String,
    kind: String,
    game: String,
    side: String,
    at_ms: String,
}

/// The transfer stored under `id`.
pub(super) fn transfer_from_json(id: &str, json: &str) -> Result<Transfer, StoreError> {
    let stored: StoredTransfer =
        serde_json::from_str(json).map_err(|_| corrupt("transfer", json))?;
    let account = |key: &str| Account::from_key(key).ok_or_else(|| corrupt("account", key));
    let side = match stored.side.as_str() {
        "" => None,
        "black" => Some(Color::Black),
        "white" => Some(Color::White),
        other => return Err(corrupt("side", other)),
    };
    let game = match stored.game.as_str() {
        "" => None,
        text => Some(GameId(parse_number("game id", text)?)),
    };
    Ok(Transfer {
        id: id.to_string(),
        from: account(&stored.from)?,
        to: account(&stored.to)?,
        amount: parse_number("amount", &stored.amount)?,
        kind: TransferKind::parse(&stored.kind).ok_or_else(|| corrupt("kind", &stored.kind))?,
        game,
        side,
        at_ms: parse_number("time", &stored.at_ms)?,
    })
}

/// A settlement record as `functions.lua` stores it.
#[derive(Debug, Deserialize)]
struct StoredSettlement {
    tax_bp: String,
    summary: String,
    at_ms: String,
}

/// The record of `part` of `game`'s settlement.
pub(super) fn settlement_from_json(
    game: GameId,
    part: &str,
    json: &str,
) -> Result<SettlementRecord, StoreError> {
    let stored: StoredSettlement =
        serde_json::from_str(json).map_err(|_| corrupt("settlement record", json))?;
    Ok(SettlementRecord {
        game,
        part: SettlementPart::parse(part).ok_or_else(|| corrupt("settlement part", part))?,
        tax_bp: parse_number("tax rate", &stored.tax_bp)?,
        summary_json: stored.summary,
        at_ms: parse_number("time", &stored.at_ms)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junk_from_redis_is_a_backend_error_not_a_panic() {
        for junk in [
            "",
            "{}",
            "[1]",
            r#"{"from":"mint","to":"user:x","amount":"1","kind":"grant","game":"","side":"","at_ms":"1"}"#,
            r#"{"from":"mint","to":"user:1","amount":"-1","kind":"grant","game":"","side":"","at_ms":"1"}"#,
            r#"{"from":"mint","to":"user:1","amount":"1","kind":"gift","game":"","side":"","at_ms":"1"}"#,
            r#"{"from":"mint","to":"user:1","amount":"1","kind":"grant","game":"g","side":"","at_ms":"1"}"#,
            r#"{"from":"mint","to":"user:1","amount":"1","kind":"grant","game":"","side":"red","at_ms":"1"}"#,
        ] {
            assert!(
                matches!(transfer_from_json("t", junk), Err(StoreError::Backend(_))),
                "{junk}"
            );
        }
        assert!(matches!(
            settlement_from_json(
                GameId(1),
                "pool",
                r#"{"tax_bp":"x","summary":"","at_ms":"1"}"#
            ),
            Err(StoreError::Backend(_))
        ));
        assert!(matches!(
            settlement_from_json(
                GameId(1),
                "half",
                r#"{"tax_bp":"1","summary":"","at_ms":"1"}"#
            ),
            Err(StoreError::Backend(_))
        ));
        for reply in [
            vec![],
            vec!["ok".to_string()],
            vec!["ok".into(), "maybe".into()],
            vec!["insufficient".into(), "nobody".into()],
        ] {
            assert!(
                matches!(applied_from_reply(&reply), Err(StoreError::Backend(_))),
                "{reply:?}"
            );
        }
    }
}
