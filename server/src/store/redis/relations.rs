//! Players' relations in Redis: per user and kind, a sorted set of the others they hold it to, scored
//! by when (`keys::relations_held`), and a set of those who hold it to them
//! (`keys::relations_toward`). All share the `{relations}` hash tag, so adding one (the count, both
//! sets, and for a block the follow it drops) is one atomic function call.

use tengen_protocol::UserId;

use super::keys;
use super::records::parse_number;
use super::{call_function, function, RedisStore};
use crate::store::{Added, RelationKind, Relations, StoreError};

fn parse_user(text: &str) -> Result<UserId, StoreError> {
    parse_number("relation's user", text).map(UserId)
}

impl Relations for RedisStore {
    fn relations_of(&self, user: UserId) -> Result<Vec<(RelationKind, UserId)>, StoreError> {
        self.read(|conn| {
            let mut held = Vec::new();
            for kind in RelationKind::ALL {
                let others: Vec<String> = ::redis::cmd("ZRANGE")
                    .arg(keys::relations_held(user, kind))
                    .arg(0)
                    .arg(-1)
                    .query(conn)?;
                for other in others {
                    held.push((kind, parse_user(&other)?));
                }
            }
            Ok(held)
        })
    }

    fn relations_to(&self, user: UserId, kind: RelationKind) -> Result<Vec<UserId>, StoreError> {
        self.read(|conn| {
            let holders: Vec<String> = ::redis::cmd("SMEMBERS")
                .arg(keys::relations_toward(user, kind))
                .query(conn)?;
            Ok(holders
                .iter()
                .map(|text| parse_user(text))
                .collect::<Result<_, _>>()?)
        })
    }

    fn add_relation(
        &self,
        user: UserId,
        kind: RelationKind,
        other: UserId,
        max: usize,
        at_ms: u64,
    ) -> Result<Added, StoreError> {
        let held = keys::relations_held(user, kind);
        let toward = keys::relations_toward(other, kind);
        let follows = keys::relations_held(user, RelationKind::Follow);
        let followers = keys::relations_toward(other, RelationKind::Follow);
        let call = function(
            "tengen_add_relation",
            &[&held, &toward, &follows, &followers],
        )
        .arg(other.0)
        .arg(user.0)
        .arg(max)
        .arg(at_ms)
        .arg(u8::from(kind == RelationKind::Block))
        .to_owned();
        self.write(|conn| {
            let outcome: String = call_function(conn, &call)?;
            Ok(if outcome == "full" {
                Added::Full
            } else {
                Added::Done
            })
        })
    }

    fn remove_relation(
        &self,
        user: UserId,
        kind: RelationKind,
        other: UserId,
    ) -> Result<(), StoreError> {
        self.write(|conn| {
            ::redis::pipe()
                .atomic()
                .cmd("ZREM")
                .arg(keys::relations_held(user, kind))
                .arg(other.0)
                .ignore()
                .cmd("SREM")
                .arg(keys::relations_toward(other, kind))
                .arg(user.0)
                .ignore()
                .exec(conn)?;
            Ok(())
        })
    }
}
