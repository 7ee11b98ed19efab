//! A throwaway `redis-server` per test in its own temporary directory, for the tests that run the
//! server on the Redis store. The process itself is `tengen_server::store::redis::testing`'s
//! starter, shared with the store's unit tests; this adds the directory's lifetime and the config.

use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::time::Duration;

use tengen_server::config::Config;
use tengen_server::store::redis::testing::RedisProcess;

use super::money::ADMIN_TOKEN;
use super::{test_config, TestServer};

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

/// A node of the cluster, in this process, sharing `redis`.
pub async fn node(redis: &RedisServer, dir: &std::path::Path) -> TestServer {
    let mut config = test_config(dir);
    config.redis_url = Some(redis.url());
    config.admin_token = Some(ADMIN_TOKEN.into());
    TestServer::start_with(config).await
}

/// A plain connection to `redis`, to look at (or, in one test, change) what the nodes keep there.
pub fn raw_connection(redis: &RedisServer) -> redis::Connection {
    redis::Client::open(redis.url())
        .unwrap()
        .get_connection()
        .unwrap()
}

/// Two nodes in this process on `redis`, with the directories they were given. The second starts
/// once the first has taken the hall, so the first runs it.
pub async fn two_nodes(redis: &RedisServer) -> ([tempfile::TempDir; 2], TestServer, TestServer) {
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let a = node(redis, dirs[0].path()).await;
    let mut conn = raw_connection(redis);
    for _ in 0..100 {
        let claimed: bool = redis::cmd("EXISTS")
            .arg("tengen:lease:hall")
            .query(&mut conn)
            .unwrap();
        if claimed {
            let b = node(redis, dirs[1].path()).await;
            return (dirs, a, b);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the first node never took the hall");
}
