//! How the store's records read back from Redis: users, games, event logs and ratings as the
//! store writes them into hashes and strings, parsed into the store's rows. Everything here is
//! pure; anything malformed (a missing field, a number that does not parse) is a
//! [`StoreError::Backend`], never a panic.

use std::collections::HashMap;

use tengen_protocol::{GameId, TableId, UserId};

use crate::store::{Glicko, LiveGameRow, NewGame, StoreError, UserRow};

/// Something the store wrote reads back as junk: the data was edited or corrupted.
pub(super) fn corrupt(what: &str, value: &str) -> StoreError {
    StoreError::Backend(format!("redis holds a bad {what}: {value:?}"))
}

/// A number the store wrote, read back.
pub(super) fn parse_number<T: std::str::FromStr>(what: &str, text: &str) -> Result<T, StoreError> {
    text.parse().map_err(|_| corrupt(what, text))
}

/// A field a record must have.
fn required<'a>(
    fields: &'a HashMap<String, String>,
    record: &str,
    name: &str,
) -> Result<&'a str, StoreError> {
    fields
        .get(name)
        .map(String::as_str)
        .ok_or_else(|| StoreError::Backend(format!("redis: {record} has no {name}")))
}

pub(super) fn glicko_text(glicko: &Glicko) -> String {
    // f64's Display is the shortest text that parses back to the same number.
    format!(
        "{} {} {} {}",
        glicko.rating, glicko.deviation, glicko.volatility, glicko.games
    )
}

pub(super) fn glicko_from_text(text: Option<&str>) -> Result<Glicko, StoreError> {
    let Some(text) = text else {
        return Ok(Glicko::default());
    };
    let parts: Vec<&str> = text.split(' ').collect();
    let [rating, deviation, volatility, games] = parts[..] else {
        return Err(corrupt("rating", text));
    };
    Ok(Glicko {
        rating: parse_number("rating", rating)?,
        deviation: parse_number("rating deviation", deviation)?,
        volatility: parse_number("rating volatility", volatility)?,
        games: parse_number("rated games count", games)?,
    })
}

pub(super) fn user_from_fields(
    id: UserId,
    fields: &[Option<String>],
    glicko: Option<&str>,
) -> Result<Option<UserRow>, StoreError> {
    let [Some(username), Some(password_hash), computer, created_at_ms] = fields else {
        return Ok(None);
    };
    let deviation = glicko.is_some();
    let glicko = glicko_from_text(glicko)?;
    Ok(Some(UserRow {
        id,
        username: username.clone(),
        password_hash: password_hash.clone(),
        rating: glicko.rating.round() as i32,
        rated_games: glicko.games,
        deviation: deviation.then_some(glicko.deviation),
        computer: computer.as_deref() == Some("1"),
        created_at_ms: created_at_ms
            .as_deref()
            .map(|text| parse_number("created_at_ms", text))
            .transpose()?
            .unwrap_or(0),
    }))
}

pub(super) fn new_game_from_fields(
    fields: &HashMap<String, String>,
) -> Result<NewGame, StoreError> {
    let number = |name: &str| -> Result<u64, StoreError> {
        parse_number(name, required(fields, "a game", name)?)
    };
    let optional = |name: &str| -> Result<Option<u64>, StoreError> {
        fields
            .get(name)
            .map(|text| parse_number(name, text))
            .transpose()
    };
    Ok(NewGame {
        black: UserId(number("black")?),
        white: UserId(number("white")?),
        table: optional("table")?
            .map(|table| u32::try_from(table).map_err(|_| corrupt("table", &table.to_string())))
            .transpose()?
            .map(TableId),
        settings_json: required(fields, "a game", "settings")?.to_string(),
        nigiri_seed: optional("nigiri_seed")?,
        started_at_ms: number("started_at_ms")?,
    })
}

pub(super) fn events_in_order(
    stored: HashMap<String, String>,
) -> Result<Vec<(u64, String)>, StoreError> {
    let mut events = stored
        .into_iter()
        .map(|(seq, event)| Ok((parse_number("event seq", &seq)?, event)))
        .collect::<Result<Vec<_>, StoreError>>()?;
    events.sort_unstable_by_key(|(seq, _)| *seq);
    Ok(events)
}

pub(super) fn live_game_row(
    id: GameId,
    fields: &HashMap<String, String>,
    events: Vec<(u64, String)>,
) -> Result<LiveGameRow, StoreError> {
    Ok(LiveGameRow {
        id,
        game: new_game_from_fields(fields)?,
        events,
    })
}
