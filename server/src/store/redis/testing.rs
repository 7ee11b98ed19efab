//! A throwaway `redis-server` for tests (this crate's and the integration tests'): started on a free
//! loopback port in a directory the caller owns, configured as production must be (append-only
//! file, fsync on every write, no eviction, no snapshots), killed with SIGKILL to simulate a crash,
//! and restarted on the same port and directory so the append-only file is replayed. Not for
//! production use; it is public only so the integration tests can share it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server binary, from Debian's `redis-server` package; `REDIS_SERVER` overrides it.
const REDIS_SERVER_DEFAULT: &str = "/usr/bin/redis-server";

/// How long a starting server may take to answer PING (replaying the append-only file included)
/// before the test fails: generous for a loaded 2-core machine.
const START_TIMEOUT_MS: u64 = 20_000;

/// Between two PINGs while waiting for the server to start.
const START_POLL_MS: u64 = 20;

/// A `redis-server` child process. Dropping it kills the process.
#[derive(Debug)]
pub struct RedisProcess {
    child: Option<Child>,
    port: u16,
    dir: PathBuf,
    extra_args: Vec<String>,
}

impl RedisProcess {
    /// Start a server keeping its files in `dir`, with `extra_args` (e.g. `["--appendfsync",
    /// "everysec"]`) after the durable defaults, so they override them. Waits until it answers.
    pub fn start(dir: &Path, extra_args: &[&str]) -> RedisProcess {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free loopback port")
            .port();
        let mut server = RedisProcess {
            child: None,
            port,
            dir: dir.to_path_buf(),
            extra_args: extra_args.iter().map(|arg| arg.to_string()).collect(),
        };
        server.spawn();
        server
    }

    /// `redis://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// SIGKILL the server, as a crash or power cut would stop it: nothing is flushed on the way out.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            // Already exited is fine: it is stopped either way.
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Start the server again on the same port and directory (replaying its append-only file),
    /// killing it first if it is still running.
    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
    }

    fn spawn(&mut self) {
        let binary =
            std::env::var("REDIS_SERVER").unwrap_or_else(|_| REDIS_SERVER_DEFAULT.to_string());
        let port = self.port.to_string();
        let child = Command::new(&binary)
            .args(["--bind", "127.0.0.1", "--port", &port])
            .arg("--dir")
            .arg(&self.dir)
            .args(["--appendonly", "yes", "--appendfsync", "always"])
            .args(["--maxmemory-policy", "noeviction", "--save", ""])
            .arg("--logfile")
            .arg(self.dir.join("redis.log"))
            .args(&self.extra_args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start {binary}: {err}"));
        self.child = Some(child);
        self.wait_until_ready();
    }

    fn wait_until_ready(&self) {
        let client = ::redis::Client::open(self.url()).expect("a valid redis url");
        let started = Instant::now();
        loop {
            let answered = client
                .get_connection_with_timeout(Duration::from_millis(START_POLL_MS * 10))
                .and_then(|mut conn| ::redis::cmd("PING").exec(&mut conn));
            if answered.is_ok() {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_millis(START_TIMEOUT_MS),
                "redis-server on port {} did not answer PING: {answered:?} (see {:?})",
                self.port,
                self.dir.join("redis.log")
            );
            std::thread::sleep(Duration::from_millis(START_POLL_MS));
        }
    }
}

impl Drop for RedisProcess {
    fn drop(&mut self) {
        self.kill();
    }
}
