//! A throwaway `redis-server` per test in its own temporary directory, for the tests that run the
//! server on the Redis store. The process itself is `tengen_server::store::redis::testing`'s
//! starter, shared with the store's unit tests; this adds the directory's lifetime and the config.

use std::ops::{Deref, DerefMut};
use std::path::Path;

use tengen_server::config::Config;
use tengen_server::store::redis::testing::RedisProcess;

/// A durable redis-server (append-only file, fsync on every write, no eviction); `kill`, `restart`
/// and `url` come from [`RedisProcess`]. Dropping it kills the process, then deletes its files.
pub struct RedisServer {
    // Declared first so it is dropped (killed) before its directory is deleted.
    process: RedisProcess,
    _dir: tempfile::TempDir,
}

impl RedisServer {
    pub fn start() -> RedisServer {
        let dir = tempfile::tempdir().unwrap();
        RedisServer {
            process: RedisProcess::start(dir.path(), &[]),
            _dir: dir,
        }
    }

    /// The test configuration (see `test_config`) with this Redis as the store.
    pub fn config(&self, data_dir: &Path) -> Config {
        let mut config = super::test_config(data_dir);
        config.redis_url = Some(self.url());
        config
    }
}

impl Deref for RedisServer {
    type Target = RedisProcess;

    fn deref(&self) -> &RedisProcess {
        &self.process
    }
}

impl DerefMut for RedisServer {
    fn deref_mut(&mut self) -> &mut RedisProcess {
        &mut self.process
    }
}
