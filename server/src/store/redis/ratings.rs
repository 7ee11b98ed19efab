//! Ratings in Redis: every player's Glicko-2 state in one hash (`keys::GLICKO`), the set of rated
//! games, and each player's rating list and record by board. Rating a game is one optimistic
//! WATCH/MULTI over the states and the rated set, tried again when another game's rating came
//! between the read and the write.

use std::collections::HashMap;

use redis::Connection;
use tengen_protocol::{GameId, RatingPoint, SizeRecord, UserId};

use super::connections::Failure;
use super::records::{corrupt, glicko_from_text, glicko_text, parse_number};
use super::{keys, RedisStore};
use crate::store::{
    record_by_size, Glicko, RatedGameRow, RatedOutcome, RatingUpdate, Ratings, StoreError,
};

impl Ratings for RedisStore {
    fn rate_game(
        &self,
        game: GameId,
        players: [UserId; 2],
        update: RatingUpdate,
    ) -> Result<Option<[Glicko; 2]>, StoreError> {
        self.write(|conn| {
            for _ in 0..RATE_ATTEMPTS_MAX {
                let attempt = try_rate_game(conn, game, players, &*update);
                if attempt.is_err() {
                    // Leave no WATCH behind on a connection that goes back to the pool.
                    let _ = ::redis::cmd("UNWATCH").exec(conn);
                }
                if let RateAttempt::Rated(rated) = attempt? {
                    return Ok(rated);
                }
            }
            Err(StoreError::Backend(format!(
                "redis: ratings kept changing while game {game} was rated ({RATE_ATTEMPTS_MAX} attempts)"
            ))
            .into())
        })
    }

    fn rating_history(&self, user: UserId, limit: usize) -> Result<Vec<RatingPoint>, StoreError> {
        self.read(|conn| {
            let Some(first) = limit.checked_sub(1).map(|last| -(last as i64) - 1) else {
                return Ok(Vec::new());
            };
            let points: Vec<String> = ::redis::cmd("LRANGE")
                .arg(keys::rating_history(user))
                .arg(first)
                .arg(-1)
                .query(conn)?;
            points
                .iter()
                .map(|text| {
                    let parts: Vec<&str> = text.split(' ').collect();
                    let [game, at_ms, rating] = parts[..] else {
                        return Err(corrupt("rating history", text).into());
                    };
                    Ok(RatingPoint {
                        game: GameId(parse_number("game id", game)?),
                        at_ms: parse_number("at_ms", at_ms)?,
                        rating: parse_number::<f64>("rating", rating)?.round() as i32,
                    })
                })
                .collect()
        })
    }

    fn rated_record(&self, user: UserId) -> Result<Vec<SizeRecord>, StoreError> {
        self.read(|conn| {
            let counts: HashMap<String, u64> = ::redis::cmd("HGETALL")
                .arg(keys::rated_record(user))
                .query(conn)?;
            let mut games = Vec::new();
            for (field, count) in counts {
                let parsed = field.split_once(' ').and_then(|(size, outcome)| {
                    Some((
                        size.parse::<u8>().ok()?,
                        RatedOutcome::parse(outcome)?,
                        count,
                    ))
                });
                let Some(counted) = parsed else {
                    return Err(corrupt("rated record", &field).into());
                };
                games.push(counted);
            }
            Ok(record_by_size(games))
        })
    }
}

/// Attempts to rate a game when other ratings change between the read and the write (each attempt
/// is one optimistic WATCH/MULTI). Games end a few per second at most, so even a handful of
/// collisions in a row means something is wrong: the call fails instead of spinning.
const RATE_ATTEMPTS_MAX: usize = 20;

/// The ratings of both players before and after, written only if nobody changed the ratings
/// since they were read (`None` when somebody did, or the game was rated already, in `Rated`).
enum RateAttempt {
    Rated(Option<[Glicko; 2]>),
    Collided,
}

fn try_rate_game(
    conn: &mut Connection,
    game: GameId,
    players: [UserId; 2],
    update: &dyn Fn([Glicko; 2]) -> [Glicko; 2],
) -> Result<RateAttempt, Failure> {
    ::redis::cmd("WATCH")
        .arg(keys::GLICKO)
        .arg(keys::RATED_GAMES)
        .exec(conn)?;
    let rated: bool = ::redis::cmd("SISMEMBER")
        .arg(keys::RATED_GAMES)
        .arg(game.0)
        .query(conn)?;
    if rated {
        ::redis::cmd("UNWATCH").exec(conn)?;
        return Ok(RateAttempt::Rated(None));
    }
    let stored: Vec<Option<String>> = ::redis::cmd("HMGET")
        .arg(keys::GLICKO)
        .arg(players[0].0)
        .arg(players[1].0)
        .query(conn)?;
    let [black, white] = &stored[..] else {
        return Err(StoreError::Backend("redis: HMGET answered the wrong count".into()).into());
    };
    let before = [
        glicko_from_text(black.as_deref())?,
        glicko_from_text(white.as_deref())?,
    ];
    let after = update(before);
    let history = rated_game_entries(conn, game, players, after.map(|g| Some(g.rating)))?;
    let mut pipe = ::redis::pipe();
    pipe.atomic()
        .cmd("SADD")
        .arg(keys::RATED_GAMES)
        .arg(game.0)
        .cmd("HSET")
        .arg(keys::GLICKO)
        .arg(players[0].0)
        .arg(glicko_text(&after[0]))
        .arg(players[1].0)
        .arg(glicko_text(&after[1]));
    for (user, entry) in &history {
        remember_rated_game(&mut pipe, *user, entry);
    }
    let committed: Option<Vec<::redis::Value>> = pipe.query(conn)?;
    Ok(match committed {
        Some(_) => RateAttempt::Rated(Some(after)),
        None => RateAttempt::Collided,
    })
}

/// Both players' history entries of a rated game, from its stored record (see
/// `RatedGameRow::of_game`).
pub(super) fn rated_game_entries(
    conn: &mut Connection,
    game: GameId,
    players: [UserId; 2],
    ratings: [Option<f64>; 2],
) -> Result<Vec<(UserId, RatedGameRow)>, Failure> {
    let fields: Vec<Option<String>> = ::redis::cmd("HMGET")
        .arg(keys::game(game))
        .arg(&["settings", "result", "ended_at_ms", "started_at_ms"])
        .query(conn)?;
    let [settings, result, ended, started] = &fields[..] else {
        return Err(StoreError::Backend("redis: HMGET answered the wrong count".into()).into());
    };
    let at_ms = ended
        .as_deref()
        .or(started.as_deref())
        .map(|text| parse_number("ended_at_ms", text))
        .transpose()?
        .unwrap_or(0);
    let record = (settings.as_deref(), result.as_deref(), at_ms);
    Ok(RatedGameRow::of_game(game, players, ratings, record))
}

/// Adds one history entry to `pipe`: the point on the player's rating list (when the rating is
/// known) and the count of their results on that board.
fn remember_rated_game(pipe: &mut ::redis::Pipeline, user: UserId, entry: &RatedGameRow) {
    if let Some(rating) = entry.rating {
        let point = format!("{} {} {}", entry.game.0, entry.at_ms, rating);
        pipe.cmd("RPUSH").arg(keys::rating_history(user)).arg(point);
    }
    let field = format!("{} {}", entry.size, entry.outcome.as_str());
    pipe.cmd("HINCRBY")
        .arg(keys::rated_record(user))
        .arg(field)
        .arg(1);
}
