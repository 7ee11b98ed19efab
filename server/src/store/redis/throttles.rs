//! The throttles' counters in Redis: one key per counter (`keys::throttle`), expiring after its
//! policy's forget time; counting an attempt on several counters is one function call, every check
//! before the first count.

use super::{call_function, function, keys, RedisStore};
use crate::store::{Backoff, StoreError, ThrottleCounters};

impl ThrottleCounters for RedisStore {
    fn throttle_attempt(
        &self,
        counters: &[(String, Backoff)],
        now_ms: u64,
    ) -> Result<Option<u64>, StoreError> {
        let keys: Vec<String> = counters
            .iter()
            .map(|(key, _)| keys::throttle(key))
            .collect();
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let mut call = function("tengen_throttle_attempt", &keys);
        call.arg(now_ms);
        for (_, backoff) in counters {
            call.arg(backoff.free)
                .arg(backoff.base_ms)
                .arg(backoff.max_ms)
                .arg(backoff.forget_ms);
        }
        self.write(|conn| {
            let wait: u64 = call_function(conn, &call)?;
            Ok((wait > 0).then_some(wait))
        })
    }

    fn throttle_release(&self, release: &[String], clear: &[String]) -> Result<(), StoreError> {
        let keys: Vec<String> = release
            .iter()
            .chain(clear)
            .map(|key| keys::throttle(key))
            .collect();
        if keys.is_empty() {
            return Ok(());
        }
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let mut call = function("tengen_throttle_release", &keys);
        for _ in release {
            call.arg("release");
        }
        for _ in clear {
            call.arg("clear");
        }
        self.write(|conn| {
            call_function::<()>(conn, &call)?;
            Ok(())
        })
    }
}
