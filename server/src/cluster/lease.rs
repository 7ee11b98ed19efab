//! Who runs what, kept in Redis: each node's heartbeat (a key that expires unless renewed), and the
//! owner of the hall and of each live game as `"<node> <fence>"`. An owner keeps its lease by
//! keeping its heartbeat alive; when the heartbeat expires, any node may claim what the dead node
//! owned, with a compare-and-set script that succeeds for exactly one claimer and hands out a new,
//! larger fence number. The fence tells a node that wakes up after losing its lease (a long pause,
//! a partition) that it no longer owns the game: it finds another value there and stops its actor.
//! Every script touches one key, so each runs on one slot of a Redis Cluster.

use redis::aio::ConnectionManager;
use redis::{AsyncCommands, Script};
use tengen_protocol::{GameId, UserId};

use super::messages::NodeId;

/// The key of a node's heartbeat.
fn heartbeat_key(node: NodeId) -> String {
    format!("tengen:node:{node}")
}

/// The key holding the owner of a game: the store's, under the game's hash tag, so each event
/// append checks it atomically (the fence).
fn game_owner_key(game: GameId) -> String {
    crate::store::redis::keys::game_owner(game)
}

/// The set of every live game that some node owns (or owned), scanned for takeovers.
const LIVE_GAMES_KEY: &str = "tengen:lease:games";
/// The owner of the hall.
const HALL_OWNER_KEY: &str = "tengen:lease:hall";
/// The counter fence numbers come from.
const FENCE_KEY: &str = "tengen:lease:fence";

/// The set of live games a user plays, so a player who reconnects to any node finds their games.
fn playing_key(user: UserId) -> String {
    format!("tengen:playing:{}", user.0)
}

/// An owner as stored: the node and the fence number of its claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    pub node: NodeId,
    pub fence: u64,
}

impl Owner {
    /// As stored, and as the store's event appends present it.
    pub fn encode(self) -> String {
        format!("{} {}", self.node, self.fence)
    }

    fn decode(text: &str) -> Option<Owner> {
        let (node, fence) = text.split_once(' ')?;
        Some(Owner {
            node: NodeId(u64::from_str_radix(node, 16).ok()?),
            fence: fence.parse().ok()?,
        })
    }
}

/// Set the key to ARGV[2] only if it still holds ARGV[1] ("" meaning absent): the claim that one
/// node wins when several see the same dead owner.
const COMPARE_AND_SET: &str = r#"
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
"#;

/// Delete the key only if it still holds ARGV[1]: a node releases only what it owns.
const COMPARE_AND_DELETE: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"#;

/// The lease operations of one node.
#[derive(Clone)]
pub struct Leases {
    conn: ConnectionManager,
    node: NodeId,
    compare_and_set: Script,
    compare_and_delete: Script,
}

impl std::fmt::Debug for Leases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Leases({})", self.node)
    }
}

impl Leases {
    pub fn new(conn: ConnectionManager, node: NodeId) -> Leases {
        Leases {
            conn,
            node,
            compare_and_set: Script::new(COMPARE_AND_SET),
            compare_and_delete: Script::new(COMPARE_AND_DELETE),
        }
    }

    /// Keep this node alive for `ttl_ms` more.
    pub async fn beat(&self, ttl_ms: u64) -> redis::RedisResult<()> {
        let mut conn = self.conn.clone();
        conn.pset_ex(heartbeat_key(self.node), "alive", ttl_ms)
            .await
    }

    /// Stop beating: on a clean shutdown the others take over at once instead of after the TTL.
    pub async fn stop_beating(&self) -> redis::RedisResult<()> {
        let mut conn = self.conn.clone();
        conn.del(heartbeat_key(self.node)).await
    }

    pub async fn is_alive(&self, node: NodeId) -> redis::RedisResult<bool> {
        if node == self.node {
            return Ok(true);
        }
        let mut conn = self.conn.clone();
        conn.exists(heartbeat_key(node)).await
    }

    async fn next_fence(&self) -> redis::RedisResult<u64> {
        let mut conn = self.conn.clone();
        conn.incr(FENCE_KEY, 1).await
    }

    async fn owner_at(&self, key: &str) -> redis::RedisResult<Option<(String, Owner)>> {
        let mut conn = self.conn.clone();
        let text: Option<String> = conn.get(key).await?;
        Ok(text.and_then(|text| Owner::decode(&text).map(|owner| (text, owner))))
    }

    /// Claim `key` if it is free or its owner is dead; the new owner on success.
    async fn claim_at(&self, key: &str) -> redis::RedisResult<Option<Owner>> {
        let current = self.owner_at(key).await?;
        let expected = match &current {
            Some((_, owner)) if owner.node == self.node => return Ok(Some(*owner)),
            Some((text, owner)) => {
                if self.is_alive(owner.node).await? {
                    return Ok(None);
                }
                text.clone()
            }
            None => String::new(),
        };
        let mine = Owner {
            node: self.node,
            fence: self.next_fence().await?,
        };
        let mut conn = self.conn.clone();
        let won: i64 = self
            .compare_and_set
            .key(key)
            .arg(expected)
            .arg(mine.encode())
            .invoke_async(&mut conn)
            .await?;
        Ok((won == 1).then_some(mine))
    }

    pub async fn game_owner(&self, game: GameId) -> redis::RedisResult<Option<Owner>> {
        Ok(self
            .owner_at(&game_owner_key(game))
            .await?
            .map(|(_, owner)| owner))
    }

    /// The owners of many games in one round trip (a pipeline of single-key reads, so it works on a
    /// Redis Cluster too), in the order asked.
    pub async fn game_owners(&self, games: &[GameId]) -> redis::RedisResult<Vec<Option<Owner>>> {
        if games.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for &game in games {
            pipe.get(game_owner_key(game));
        }
        let mut conn = self.conn.clone();
        let owners: Vec<Option<String>> = pipe.query_async(&mut conn).await?;
        Ok(owners
            .iter()
            .map(|text| text.as_deref().and_then(Owner::decode))
            .collect())
    }

    pub async fn hall_owner(&self) -> redis::RedisResult<Option<Owner>> {
        Ok(self.owner_at(HALL_OWNER_KEY).await?.map(|(_, owner)| owner))
    }

    /// Add a game to the live set and its players' lists (idempotent).
    pub async fn add_live(&self, game: GameId, players: [UserId; 2]) -> redis::RedisResult<()> {
        let mut pipe = redis::pipe();
        pipe.sadd(LIVE_GAMES_KEY, game.0).ignore();
        for user in players {
            pipe.sadd(playing_key(user), game.0).ignore();
        }
        let mut conn = self.conn.clone();
        pipe.query_async(&mut conn).await
    }

    /// Claim a game that has no living owner (a new one, or a dead node's); `Some` with this node's
    /// claim when it won.
    pub async fn take_over_game(&self, game: GameId) -> redis::RedisResult<Option<Owner>> {
        self.claim_at(&game_owner_key(game)).await
    }

    /// Claim the hall if it has no living owner.
    pub async fn take_over_hall(&self) -> redis::RedisResult<Option<Owner>> {
        self.claim_at(HALL_OWNER_KEY).await
    }

    /// A game ended here: it leaves the live set, its players' lists and its lease.
    pub async fn end_game(
        &self,
        game: GameId,
        owner: Owner,
        players: &[UserId],
    ) -> redis::RedisResult<()> {
        let mut conn = self.conn.clone();
        let _: i64 = self
            .compare_and_delete
            .key(game_owner_key(game))
            .arg(owner.encode())
            .invoke_async(&mut conn)
            .await?;
        let mut pipe = redis::pipe();
        pipe.srem(LIVE_GAMES_KEY, game.0).ignore();
        for &user in players {
            pipe.srem(playing_key(user), game.0).ignore();
        }
        pipe.query_async(&mut conn).await
    }

    /// Every game in the live set.
    pub async fn live_games(&self) -> redis::RedisResult<Vec<GameId>> {
        let mut conn = self.conn.clone();
        let ids: Vec<u64> = conn.smembers(LIVE_GAMES_KEY).await?;
        Ok(ids.into_iter().map(GameId).collect())
    }

    /// The live games `user` plays.
    /// The live games `user` plays. A game left in the list by an owner that died after its end
    /// has no lease any more: it is dropped from the list here.
    pub async fn games_of_player(&self, user: UserId) -> redis::RedisResult<Vec<GameId>> {
        let mut conn = self.conn.clone();
        let ids: Vec<u64> = conn.smembers(playing_key(user)).await?;
        let mut live = Vec::new();
        for id in ids.into_iter().map(GameId) {
            if conn.exists(game_owner_key(id)).await? {
                live.push(id);
            } else {
                let _: i64 = conn.srem(playing_key(user), id.0).await?;
            }
        }
        Ok(live)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_round_trip_and_garbage_is_no_owner() {
        let owner = Owner {
            node: NodeId(0xfeed),
            fence: 42,
        };
        assert_eq!(owner.encode(), "000000000000feed 42");
        assert_eq!(Owner::decode(&owner.encode()), Some(owner));
        assert_eq!(Owner::decode("nonsense"), None);
        assert_eq!(Owner::decode("zz 1"), None);
    }
}
