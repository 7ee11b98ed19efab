//! EventRecords in Redis: each event's record under `keys::event`, and the index of events in
//! order of their ids.

use tengen_protocol::EventId;

use super::{ids_in, keys, RedisStore};
use crate::store::{EventRecords, StoreError};

impl EventRecords for RedisStore {
    fn create_event(&self, record_json: &str, _now_ms: u64) -> Result<EventId, StoreError> {
        self.write(|conn| {
            let id = EventId(::redis::cmd("INCR").arg(keys::EVENT_IDS).query(conn)?);
            // The record first, then the index that points at it.
            let _: () = ::redis::cmd("SET")
                .arg(keys::event(id))
                .arg(record_json)
                .query(conn)?;
            let _: () = ::redis::cmd("ZADD")
                .arg(keys::EVENTS)
                .arg(id.0)
                .arg(id.0)
                .query(conn)?;
            Ok(id)
        })
    }

    fn save_event(&self, event: EventId, record_json: &str) -> Result<(), StoreError> {
        self.write(|conn| {
            // `XX`: only over a record that exists (`nil` otherwise).
            let saved: Option<String> = ::redis::cmd("SET")
                .arg(keys::event(event))
                .arg(record_json)
                .arg("XX")
                .query(conn)?;
            match saved {
                Some(_) => Ok(()),
                None => Err(StoreError::Backend(format!("no event {event} to save")).into()),
            }
        })
    }

    fn events(&self) -> Result<Vec<(EventId, String)>, StoreError> {
        self.read(|conn| {
            let mut events = Vec::new();
            for id in ids_in(conn, keys::EVENTS)? {
                let id = EventId(id);
                let record: Option<String> =
                    ::redis::cmd("GET").arg(keys::event(id)).query(conn)?;
                match record {
                    Some(record) => events.push((id, record)),
                    None => tracing::warn!(event = %id, "redis: a listed event has no record"),
                }
            }
            Ok(events)
        })
    }
}
