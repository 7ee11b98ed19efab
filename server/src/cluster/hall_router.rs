//! The hall across nodes. One node owns the hall (a lease like a game's) and runs the one hall
//! actor; every node's [`HallHandle`](crate::hall::HallHandle) inbox is read by [`route`], which
//! hands each command to the local actor or forwards it to the owner. The owner's pushes go out on
//! the hall channel and every other node puts them on its own broadcast, where sessions filter them
//! as on one node. When the hall's owner dies, another node claims it and starts a fresh hall:
//! tables start empty (their stake holds are returned), games in play go on, and every node
//! announces its logged-in users again so the online list is whole.

use std::collections::HashMap;

use tengen_protocol::{ErrorCode, UserId};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::mpsc;

use super::messages::{self, HallWire, NodeId, Request, Response};
use super::Cluster;
use crate::config::{GAME_RELISTS_PER_PUSH_MAX, HALL_INBOX_LEN, HALL_RELAY_BATCH_MAX};
use crate::game::{GameReply, GameRequest};
use crate::hall::{self, HallActor, HallCmd, HallEvent, HallRequest};
use crate::lock;
use crate::{BoxError, Refusal};

/// Read this node's hall inbox until shutdown, routing every command.
pub(super) async fn route(cluster: Cluster, mut inbox: mpsc::Receiver<HallCmd>) {
    let _tasks = cluster.inner.ctx.tasks.clone();
    loop {
        let cmd = tokio::select! {
            _ = cluster.inner.ctx.shutdown.wait() => break,
            cmd = inbox.recv() => cmd,
        };
        let Some(cmd) = cmd else { break };
        track_local(&cluster, &cmd);
        deliver(&cluster, cmd).await;
    }
}

/// Remember this node's logged-in sessions, to announce them to a new hall.
fn track_local(cluster: &Cluster, cmd: &HallCmd) {
    let mut online = lock(&cluster.inner.local_online);
    match &cmd.request {
        HallRequest::Online { player } => {
            online.entry(player.user).or_default().push(player.clone())
        }
        HallRequest::SessionGone {
            user: Some(user), ..
        } => {
            if let Some(sessions) = online.get_mut(user) {
                sessions.pop();
                if sessions.is_empty() {
                    online.remove(user);
                }
            }
        }
        _ => {}
    }
}

/// Hand a command to the hall, wherever it runs.
async fn deliver(cluster: &Cluster, cmd: HallCmd) {
    let local = lock(&cluster.inner.hall_actor)
        .as_ref()
        .map(|running| running.inbox.clone());
    if let Some(local) = local {
        // An error means the hall stopped (shutdown or a lost lease); the command has nobody to go to.
        let _ = local.send(cmd).await;
        return;
    }
    let owner = *lock(&cluster.inner.hall_owner);
    let HallCmd { request, reply } = cmd;
    let done = reply.map(messages::hall_completer);
    match owner {
        Some(owner) => {
            let body = Request::Hall { request };
            cluster.send_request(owner, body, done).await;
        }
        None => {
            if let Some(done) = done {
                done(Err(Refusal::new(
                    ErrorCode::Busy,
                    "the hall is moving to another node; try again",
                )));
            }
        }
    }
}

/// Serve a hall request from another node, in arrival order.
pub(super) async fn serve(cluster: &Cluster, from: NodeId, id: u64, request: HallRequest) {
    let local = lock(&cluster.inner.hall_actor)
        .as_ref()
        .map(|running| running.inbox.clone());
    let Some(local) = local else {
        let refusal = Refusal::new(
            ErrorCode::Busy,
            "the hall is moving to another node; try again",
        );
        cluster.reply(from, id, Err(refusal)).await;
        return;
    };
    track_remote(cluster, from, &request);
    let (reply, answer) = tokio::sync::oneshot::channel();
    let cmd = HallCmd {
        request,
        reply: (id != 0).then_some(reply),
    };
    // Never wait here: this runs on the bus's one reader. A full hall answers a request `busy`, as
    // on one node; a notification (someone came online or left, a game ended) must not be lost,
    // so it waits for room on its own.
    match local.try_send(cmd) {
        Ok(()) => {
            let wrap = |reply| Response::Hall { reply };
            cluster.reply_when_answered((from, id), answer, wrap, Refusal::busy);
        }
        Err(mpsc::error::TrySendError::Full(cmd)) if id == 0 => {
            tokio::spawn(async move {
                let _ = local.send(cmd).await;
            });
        }
        Err(_) => cluster.reply(from, id, Err(Refusal::busy())).await,
    }
}

/// Remember which users are online through which node, so that a node's death takes them offline.
fn track_remote(cluster: &Cluster, from: NodeId, request: &HallRequest) {
    let mut remote = lock(&cluster.inner.remote_online);
    match request {
        HallRequest::Online { player } => {
            *remote
                .entry(from)
                .or_default()
                .entry(player.user)
                .or_default() += 1;
        }
        HallRequest::SessionGone {
            user: Some(user), ..
        } => {
            if let Some(users) = remote.get_mut(&from) {
                if let Some(count) = users.get_mut(user) {
                    *count -= 1;
                    if *count == 0 {
                        users.remove(user);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The hall actor this node runs while it owns the hall.
pub(super) struct RunningHall {
    pub inbox: mpsc::Sender<HallCmd>,
    pub claim: super::lease::Owner,
    pub stop: crate::ShutdownTrigger,
}

/// Each tick: keep or lose the hall, claim it when its owner is gone, follow a change of owner, and
/// take offline the users of nodes that died.
pub(super) async fn watch_hall(cluster: &Cluster) -> Result<(), BoxError> {
    let leases = &cluster.inner.leases;
    let running = lock(&cluster.inner.hall_actor)
        .as_ref()
        .map(|running| running.claim);
    let mut owner = leases.hall_owner().await?;
    if let Some(claim) = running {
        if owner != Some(claim) {
            tracing::warn!("lost the hall's lease; stopping the hall here");
            if let Some(running) = lock(&cluster.inner.hall_actor).take() {
                running.stop.trigger();
            }
        }
    } else {
        let owner_alive = match owner {
            Some(owner) => leases.is_alive(owner.node).await?,
            None => false,
        };
        if !owner_alive && cluster.may_take_over() {
            if let Some(claim) = leases.take_over_hall().await? {
                start_hall(cluster, claim).await;
                owner = Some(claim);
            }
        }
    }
    let owner_node = owner.map(|owner| owner.node);
    let changed = {
        let mut known = lock(&cluster.inner.hall_owner);
        let changed = *known != owner_node;
        *known = owner_node;
        changed
    };
    if changed && owner_node.is_some() {
        announce_online(cluster).await;
        announce_games(cluster).await;
    }
    forget_dead_nodes(cluster).await?;
    Ok(())
}

/// Start the hall actor here, with a relay of its pushes to the other nodes.
async fn start_hall(cluster: &Cluster, claim: super::lease::Owner) {
    tracing::info!(node = %cluster.inner.node, "this node runs the hall");
    let inner = &cluster.inner;
    let (inbox, inbox_rx) = mpsc::channel(HALL_INBOX_LEN);
    let (stop, shutdown) = inner.ctx.shutdown.child();
    let actor = HallActor {
        handle: inner.hall.clone(),
        store: inner.ctx.store.clone(),
        ledger: inner.ctx.ledger.clone(),
        games: inner.games.clone(),
    };
    hall::spawn_actor(
        &inner.config,
        actor,
        inbox_rx,
        shutdown.clone(),
        inner.ctx.tasks.clone(),
    );
    *lock(&inner.hall_actor) = Some(RunningHall { inbox, claim, stop });
    tokio::spawn(relay_hall(cluster.clone(), shutdown));
    // A fresh hall has empty tables: stakes held for a next game at a table are returned.
    if let Err(err) = inner.ctx.ledger.release_all_holds().await {
        tracing::warn!(%err, "could not return the stake holds of the old hall");
    }
}

/// Publish the local hall's pushes on the hall channel until this node stops running the hall.
/// Whatever is waiting goes in one pipeline (one round trip), so a burst of logins or game starts
/// never leaves the relay behind the hall's broadcasts.
async fn relay_hall(cluster: Cluster, shutdown: crate::Shutdown) {
    let _tasks = cluster.inner.ctx.tasks.clone();
    let mut lobby = cluster.inner.hall.subscribe_lobby();
    let mut events = cluster.inner.hall.subscribe();
    let mut to_users = cluster.inner.hall.subscribe_to_users();
    loop {
        let first = tokio::select! {
            _ = shutdown.wait() => return,
            event = lobby.recv() => event,
            event = events.recv() => event,
            event = to_users.recv() => event,
        };
        let mut batch = Vec::new();
        if !take(first, &mut batch) {
            return;
        }
        for receiver in [&mut lobby, &mut events, &mut to_users] {
            while batch.len() < HALL_RELAY_BATCH_MAX {
                match receiver.try_recv() {
                    Ok(event) => batch.push(event),
                    Err(TryRecvError::Lagged(skipped)) => lagged(skipped),
                    Err(TryRecvError::Empty | TryRecvError::Closed) => break,
                }
            }
        }
        let mut pipe = ::redis::pipe();
        for event in batch {
            let wire = HallWire {
                from: cluster.inner.node,
                recipients: event.recipients,
                text: event.text.as_str().to_string(),
                started_game: event.started_game,
            };
            match serde_json::to_string(&wire) {
                Ok(payload) => {
                    pipe.publish(super::HALL_CHANNEL, payload).ignore();
                }
                Err(err) => tracing::error!(%err, "could not encode a hall push"),
            }
        }
        let mut conn = cluster.inner.conn.clone();
        if let Err(err) = pipe.query_async::<()>(&mut conn).await {
            tracing::warn!(%err, "could not relay hall pushes");
        }
    }
}

/// Add a received push to the batch; `false` when the hall's broadcast closed.
fn take(event: Result<HallEvent, RecvError>, batch: &mut Vec<HallEvent>) -> bool {
    match event {
        Ok(event) => batch.push(event),
        Err(RecvError::Lagged(skipped)) => lagged(skipped),
        Err(RecvError::Closed) => return false,
    }
    true
}

fn lagged(skipped: u64) {
    tracing::warn!(skipped, "the hall relay fell behind; pushes were dropped");
}

/// Tell a new hall owner about every session logged in here.
async fn announce_online(cluster: &Cluster) {
    let players: Vec<_> = lock(&cluster.inner.local_online)
        .values()
        .flatten()
        .cloned()
        .collect();
    for player in players {
        deliver(cluster, HallCmd::told(HallRequest::Online { player })).await;
    }
}

/// Tell a new hall about every game in play here, so its lists and tables show them.
async fn announce_games(cluster: &Cluster) {
    for game in cluster.inner.games.local_ids() {
        let Some(handle) = cluster.inner.games.get_local(game) else {
            continue;
        };
        if let Ok(summary) = handle
            .ask(GameRequest::Summary)
            .await
            .and_then(GameReply::summary)
        {
            deliver(
                cluster,
                HallCmd::told(HallRequest::GameRestored { summary }),
            )
            .await;
        }
    }
}

/// On a node that does not run the hall: tell the hall the new counts of the games run here (the
/// hall's node re-lists its own), at most [`GAME_RELISTS_PER_PUSH_MAX`] a tick.
pub(super) async fn relist_games(cluster: &Cluster) {
    let runs_hall = lock(&cluster.inner.hall_actor).is_some();
    let local = cluster.inner.games.local_ids();
    lock(&cluster.inner.relisted).retain(|game, _| local.contains(game));
    if runs_hall {
        return;
    }
    let mut relisted = 0;
    for game in local {
        if relisted >= GAME_RELISTS_PER_PUSH_MAX {
            break;
        }
        let known = lock(&cluster.inner.relisted).get(&game).cloned();
        let now = match known {
            Some(listed) => match cluster.inner.games.listing_now(&listed) {
                Some(now) if now != listed => now,
                _ => continue,
            },
            // The first time: the game's own summary, sent as it is. Watchers may have come since
            // the hall listed the game; the hall ignores a listing it already has.
            None => {
                let Some(handle) = cluster.inner.games.get_local(game) else {
                    continue;
                };
                match handle
                    .ask(GameRequest::Summary)
                    .await
                    .and_then(GameReply::summary)
                {
                    Ok(summary) => summary,
                    Err(_) => continue,
                }
            }
        };
        lock(&cluster.inner.relisted).insert(game, now.clone());
        deliver(
            cluster,
            HallCmd::told(HallRequest::Relisted { summary: now }),
        )
        .await;
        relisted += 1;
    }
}

/// On the hall's owner: users online only through a dead node go offline.
async fn forget_dead_nodes(cluster: &Cluster) -> Result<(), BoxError> {
    let nodes: Vec<NodeId> = lock(&cluster.inner.remote_online).keys().copied().collect();
    for node in nodes {
        if cluster.inner.leases.is_alive(node).await? {
            continue;
        }
        let users: HashMap<UserId, u32> = lock(&cluster.inner.remote_online)
            .remove(&node)
            .unwrap_or_default();
        for (user, sessions) in users {
            for _ in 0..sessions {
                let gone = HallRequest::SessionGone {
                    user: Some(user),
                    room: None,
                    tables: Vec::new(),
                };
                deliver(cluster, HallCmd::told(gone)).await;
            }
        }
    }
    Ok(())
}
