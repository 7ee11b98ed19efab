//! Idle logged-in connections: open `connections` WebSockets, each says `hello` and logs in (the first
//! of every `per_account` registers, the rest `resume` its token, so the server hashes few passwords),
//! then sits idle while the server's RSS is read. The figure is what an idle logged-in player costs.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget};
use tengen_protocol::{AccountsMsg, AccountsServerMsg, ServerMsg};
use tokio::sync::{watch, Semaphore};
use tokio::task::JoinSet;

use crate::client::{self, Role, Slot};
use crate::metrics::Metrics;
use crate::report::{IdleReport, TARGET_IDLE_PER_GIB};
use crate::rss;

/// Connections set up at once: enough to be quick, few enough not to look like a flood.
const SETUP_CONCURRENCY: usize = 64;

/// KiB in a GiB.
const KIB_PER_GIB: f64 = 1024.0 * 1024.0;

/// What an idle run is told.
#[derive(Debug, Clone)]
pub struct IdleOptions {
    pub connections: usize,
    /// Connections logged in to each account.
    pub per_account: usize,
    /// How long the connections stay open (idle) before RSS is read.
    pub hold: Duration,
    pub source_ips: u8,
    pub progress: bool,
    pub run_tag: String,
    pub password: String,
}

/// Open the connections (round-robin over `servers`, see `nodes`), hold them, read the RSS summed
/// over `pids`, close them.
pub async fn run(
    name: &str,
    servers: &[SocketAddr],
    pids: &[u32],
    options: IdleOptions,
) -> IdleReport {
    assert!(!servers.is_empty(), "a run has at least one node");
    let metrics = Arc::new(Metrics::new());
    let (stop_tx, stop) = watch::channel(false);
    let rss_before_kib = rss::rss_kib_total(pids);
    let progress = if options.progress {
        ProgressBar::with_draw_target(
            Some(options.connections as u64),
            ProgressDrawTarget::stderr(),
        )
    } else {
        ProgressBar::hidden()
    };
    let per_account = options.per_account.max(1);
    let accounts = options.connections.div_ceil(per_account);
    let permits = Arc::new(Semaphore::new(SETUP_CONCURRENCY));
    let slot = Arc::new(Slot::new());
    let mut tasks = Vec::new();
    let mut opened = 0;
    // Account by account: the first connection registers, the others resume its token.
    let mut setups = JoinSet::new();
    let setup_started = tokio::time::Instant::now();
    for account in 0..accounts {
        let members = per_account.min(options.connections - account * per_account);
        let permits = Arc::clone(&permits);
        let (metrics, stop, slot) = (Arc::clone(&metrics), stop.clone(), Arc::clone(&slot));
        let options = options.clone();
        let servers = servers.to_vec();
        setups.spawn(async move {
            let _permit = permits.acquire_owned().await;
            let mut joins = Vec::new();
            let mut token: Option<String> = None;
            for member in 0..members {
                let n = account * per_account + member;
                let source = client::source_address(n, options.source_ips);
                let server = servers[crate::nodes::node_of_connection(n, servers.len())];
                let ws = match client::connect(server, source).await {
                    Ok(ws) => ws,
                    Err(_) => {
                        metrics.error("connect_failed");
                        continue;
                    }
                };
                let (handle, join) = client::spawn(
                    ws,
                    Role::Watcher,
                    Arc::clone(&slot),
                    None,
                    Arc::clone(&metrics),
                    stop.clone(),
                    None,
                );
                joins.push((join, handle.clone()));
                if handle.hello().await.is_err() {
                    continue;
                }
                let login = match &token {
                    None => AccountsMsg::Register {
                        username: format!("i{}x{account}", options.run_tag),
                        password: options.password.clone(),
                        computer: false,
                        rank: None,
                    },
                    Some(token) => AccountsMsg::Resume {
                        token: token.clone(),
                    },
                };
                if let Ok(ServerMsg::Accounts(AccountsServerMsg::Session { token: t, .. })) =
                    handle.request(login).await
                {
                    token.get_or_insert(t);
                }
            }
            joins
        });
    }
    while let Some(done) = setups.join_next().await {
        if let Ok(joins) = done {
            opened += joins.len();
            progress.inc(joins.len() as u64);
            tasks.extend(joins);
        }
    }
    progress.finish_and_clear();
    let setup_s = setup_started.elapsed().as_secs_f64();
    tokio::time::sleep(options.hold).await;
    let rss_after_kib = rss::rss_kib_total(pids);
    let _ = stop_tx.send(true);
    for (join, handle) in tasks {
        drop(handle);
        let _ = join.await;
    }
    let rss_per_connection_kib = match (rss_before_kib, rss_after_kib) {
        (Some(before), Some(after)) if opened > 0 => {
            Some(after.saturating_sub(before) as f64 / opened as f64)
        }
        _ => None,
    };
    let connections_per_gib =
        rss_after_kib.map(|after| opened as f64 / (after as f64 / KIB_PER_GIB));
    IdleReport {
        name: name.to_string(),
        connections: opened,
        setup_s,
        errors: metrics.errors(),
        rss_before_kib,
        rss_after_kib,
        rss_per_connection_kib,
        connections_per_gib,
        target_met: connections_per_gib.map(|c| c >= TARGET_IDLE_PER_GIB),
    }
}
