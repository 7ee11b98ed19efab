//! What every session and HTTP handler shares: the server's services, built once at start by
//! `crate::run` and handed to each connection behind an `Arc`. It holds handles only; each service
//! keeps its own state and its own rules.

use std::sync::{Arc, Mutex};

use crate::auth::Auth;
use crate::config::Config;
use crate::game::Games;
use crate::hall::HallHandle;
use crate::ledger::Ledger;
use crate::moderation::Counters;
use crate::serve::ConnCounter;
use crate::store::StoreHandle;
use crate::throttle::AdminThrottle;
use crate::{Shutdown, TaskGuard};

/// Everything a request handler or session needs, shared.
#[derive(Debug)]
pub(crate) struct AppState {
    pub config: Config,
    pub auth: Auth,
    pub store: StoreHandle,
    pub hall: HallHandle,
    pub games: Games,
    pub ledger: Ledger,
    pub conns: Arc<ConnCounter>,
    /// Failed admin-token tries, per address and in all.
    pub admin_throttle: Mutex<AdminThrottle>,
    /// What moderation has done since start (kept lines, refused lines, reports, acts).
    pub moderation: Counters,
    pub shutdown: Shutdown,
    pub tasks: TaskGuard,
}
