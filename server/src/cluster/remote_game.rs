//! The stand-in for a game owned by another node. Sessions on this node get a [`GameHandle`] whose
//! inbox this task reads, exactly as if the actor ran here: commands are forwarded to the owner in
//! the order they arrive and answered when its reply comes back; subscriptions are served from a
//! local broadcast fed by the game's pub/sub channel (one Redis subscription per game per node,
//! however many watch it here), checked by `seq` so a lost frame means a fresh snapshot, never a
//! silent gap. The players' connections here are reported to the owner, which holds their presence.
//! The owner is looked up again every tick, so after a takeover commands go to the new owner.

use std::sync::Arc;
use std::time::Duration;

use std::sync::atomic::{AtomicBool, Ordering};

use tengen_protocol::{ErrorCode, GameId, PlayerInfo, UserId};
use tokio::sync::mpsc;

use super::messages::{self, GameWire, NodeId, Request, Response};
use super::Cluster;
use crate::config::{CLUSTER_TICK_MS, GAME_INBOX_LEN};
use crate::game::{
    FanOut, GameCmd, GameHandle, Presence, PresenceGuard, Subscription, ViewerGuard, Viewers,
};
use crate::{Frame, Refusal};

/// Start a stand-in for `game`, owned by `owner`.
pub(super) fn spawn(
    cluster: Cluster,
    game: GameId,
    owner: NodeId,
    players: [UserId; 2],
) -> GameHandle {
    let (tx, rx) = mpsc::channel(GAME_INBOX_LEN);
    let viewers = Arc::new(Viewers::new(players));
    let ended = Arc::new(AtomicBool::new(false));
    let stand_in = RemoteGame {
        cluster,
        game,
        owner,
        fan_out: FanOut::default(),
        presence: Arc::new(Presence::default()),
        viewers: Arc::clone(&viewers),
        ended: Arc::clone(&ended),
        players,
        player_infos: [None, None],
        wires: None,
        last_seq: 0,
        reported: None,
        idle_ticks: 0,
    };
    tokio::spawn(stand_in.run(rx));
    GameHandle::new(tx, viewers, ended)
}

/// Who follows the game here, as last reported to the owner.
#[derive(Debug, PartialEq)]
struct Reported {
    players: Vec<UserId>,
    watchers: Vec<UserId>,
    anonymous: u32,
}

/// Ticks without subscribers or commands before a stand-in stops (and its channel is dropped).
const IDLE_TICKS_MAX: u32 = 3;

struct RemoteGame {
    cluster: Cluster,
    game: GameId,
    owner: NodeId,
    /// The local broadcast subscribers read, like an actor's.
    fan_out: FanOut,
    /// Connections of the players here, reported to the owner.
    presence: Arc<Presence>,
    /// Watchers here, reported to the owner (whose registry makes the list everyone sees).
    viewers: Arc<Viewers>,
    /// Set when the owner says the game is over.
    ended: Arc<AtomicBool>,
    /// Black and White.
    players: [UserId; 2],
    /// The players' listings, from their subscriptions here, for the report.
    player_infos: [Option<PlayerInfo>; 2],
    /// The game channel's messages, once mirroring.
    wires: Option<mpsc::Receiver<GameWire>>,
    /// The last event broadcast here.
    last_seq: u64,
    /// What the owner was last told.
    reported: Option<Reported>,
    idle_ticks: u32,
}

impl RemoteGame {
    async fn run(mut self, mut inbox: mpsc::Receiver<GameCmd>) {
        let _tasks = self.cluster.inner.ctx.tasks.clone();
        let shutdown = self.cluster.inner.ctx.shutdown.clone();
        let presence = Arc::clone(&self.presence);
        let mut ticks = tokio::time::interval(Duration::from_millis(CLUSTER_TICK_MS));
        loop {
            tokio::select! {
                _ = shutdown.wait() => break,
                cmd = inbox.recv() => match cmd {
                    Some(cmd) => {
                        self.idle_ticks = 0;
                        self.command(cmd).await;
                    }
                    None => break,
                },
                wire = next_wire(&mut self.wires) => {
                    if !self.on_wire(wire).await {
                        break;
                    }
                }
                _ = presence.changed.notified() => self.report_followers(false).await,
                _ = ticks.tick() => {
                    if !self.on_tick().await {
                        break;
                    }
                }
            }
        }
        // Commands still queued were never forwarded: certainly not done, so `busy` (dropping
        // them would tell their senders the game had ended).
        inbox.close();
        while let Ok(cmd) = inbox.try_recv() {
            cmd.refuse(Refusal::new(
                ErrorCode::Busy,
                "the game is moving between server nodes; try again",
            ));
        }
        self.cluster.forget_remote(self.game).await;
    }

    async fn command(&mut self, cmd: GameCmd) {
        match cmd {
            GameCmd::Request { request, reply } => {
                let body = Request::Game {
                    game: self.game,
                    request,
                };
                let done = reply.map(messages::game_completer);
                self.cluster.send_request(self.owner, body, done).await;
            }
            GameCmd::Subscribe { viewer, reply } => {
                let _ = reply.send(self.subscribe(viewer).await);
            }
            // Only a game's owner mirrors it to other nodes.
            GameCmd::Mirror { reply } => {
                let _ = reply.send(Err(not_run_here()));
            }
        }
    }

    async fn snapshot(&self) -> Result<(Frame, u64), Refusal> {
        let body = Request::GameSnapshot { game: self.game };
        match self.cluster.ask(self.owner, body).await? {
            Response::Snapshot { text, seq } => Ok((text, seq)),
            other => Err(messages::mismatch(&other)),
        }
    }

    async fn subscribe(&mut self, viewer: Option<PlayerInfo>) -> Result<Subscription, Refusal> {
        let first = self.wires.is_none();
        if first {
            // Subscribe to the channel before taking the snapshot, so no frame falls between them.
            self.wires = Some(self.cluster.mirror(self.game).await?);
        }
        let (snapshot, seq) = self.snapshot().await?;
        if first || self.fan_out.receiver_count() == 0 {
            self.last_seq = seq;
        }
        let seat = viewer
            .as_ref()
            .and_then(|info| self.players.iter().position(|player| *player == info.user));
        if let Some(index) = seat {
            self.player_infos[index] = viewer.clone();
        }
        let presence = seat.map(|index| PresenceGuard::new(Arc::clone(&self.presence), index));
        Ok(Subscription {
            snapshot,
            seq,
            frames: self.fan_out.subscribe(),
            frames_sent: self.fan_out.sent(),
            presence,
            viewer: ViewerGuard::new(Arc::clone(&self.viewers), viewer),
        })
    }

    /// Pass one message of the game's channel on; `false` when the game is over.
    async fn on_wire(&mut self, wire: Option<GameWire>) -> bool {
        match wire {
            Some(GameWire::Frame {
                seq,
                hidden_from,
                text,
            }) => {
                if let Some(seq) = seq {
                    if seq <= self.last_seq {
                        return true;
                    }
                    if seq > self.last_seq + 1 {
                        self.resync().await;
                        if seq <= self.last_seq {
                            return true;
                        }
                    }
                    self.last_seq = seq;
                }
                self.fan_out.send(seq, Frame::from(text), hidden_from);
                true
            }
            Some(GameWire::Resync) => {
                self.resync().await;
                true
            }
            Some(GameWire::Closed) => {
                self.ended.store(true, Ordering::SeqCst);
                false
            }
            None => false,
        }
    }

    /// Frames were lost: every subscriber here gets the whole state again.
    async fn resync(&mut self) {
        match self.snapshot().await {
            Ok((snapshot, seq)) => {
                self.last_seq = seq;
                self.fan_out.send(None, snapshot, [None, None]);
            }
            Err(err) => tracing::warn!(game = %self.game, %err, "could not resync a mirrored game"),
        }
    }

    /// Tell the owner who follows the game from here when it changed; `force` repeats it (the
    /// owner lets go of what it holds for a node when it stops hearing from it).
    async fn report_followers(&mut self, force: bool) {
        let present: Vec<PlayerInfo> = (0..2)
            .filter(|&index| self.presence.counts[index].load(Ordering::SeqCst) > 0)
            .filter_map(|index| self.player_infos[index].clone())
            .collect();
        let list = self.viewers.list(usize::MAX);
        let now = Reported {
            players: present.iter().map(|info| info.user).collect(),
            watchers: list.watchers.iter().map(|info| info.user).collect(),
            anonymous: list.anonymous_watchers_count,
        };
        let nobody = now.players.is_empty() && now.watchers.is_empty() && now.anonymous == 0;
        let changed = self.reported.as_ref() != Some(&now);
        // Unchanged news is repeated only on the tick, and only if somebody follows from here.
        let repeat = force && !nobody;
        if !changed && !repeat {
            return;
        }
        self.reported = Some(now);
        let body = Request::GamePresence {
            game: self.game,
            players: present,
            watchers: list.watchers,
            anonymous: list.anonymous_watchers_count,
        };
        self.cluster.send_request(self.owner, body, None).await;
    }

    /// Follow a takeover, refresh presence, and stop when nobody here uses the game any more.
    async fn on_tick(&mut self) -> bool {
        match self.cluster.inner.leases.game_owner(self.game).await {
            Ok(Some(owner)) if owner.node != self.owner => {
                tracing::info!(game = %self.game, node = %owner.node, "a mirrored game has a new owner");
                self.owner = owner.node;
                self.reported = None;
            }
            Ok(None) => return false,
            Ok(Some(_)) => {}
            Err(err) => tracing::warn!(%err, "could not look up a game's owner"),
        }
        self.report_followers(true).await;
        if self.fan_out.receiver_count() == 0 {
            self.idle_ticks += 1;
        }
        self.idle_ticks < IDLE_TICKS_MAX
    }
}

fn not_run_here() -> Refusal {
    Refusal::new(ErrorCode::NoSuchGame, "that game is not run here")
}

/// The next message of the game's channel, or never while not mirroring.
async fn next_wire(wires: &mut Option<mpsc::Receiver<GameWire>>) -> Option<GameWire> {
    match wires {
        Some(wires) => wires.recv().await,
        None => std::future::pending().await,
    }
}
