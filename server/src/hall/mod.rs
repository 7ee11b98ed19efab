//! The hall: one actor owning rooms, tables, seats, settings agreement, nigiri, direct challenges, who
//! is online, and room and table chat. Sessions talk to it through [`HallHandle`] (a bounded inbox; a
//! request that finds it full for [`HALL_WAIT_MS`] is answered `busy`), and it pushes every change
//! once, serialized, with who should receive it ([`Audience`]): the lobby's lists and whatever is
//! addressed to a room or a table on two broadcasts, which each session filters for itself, and what
//! is addressed to users alone on each user's own channel (see [`HallHandle`]). Live games are started here and then belong to `game`; the game tells the
//! hall when it ends, and after settling, whose balances changed.
//!
//! The actor's work is split by subject, each file an `impl Hall` block on the state defined
//! here: `rooms` (who is online and where, the hall and room snapshots, room and table chat),
//! `tables` (watching, seats, settings agreement), `stakes` (the stake dialog and moving its
//! points), `challenges` (direct challenges and the automatch queue), and `live` (starting games,
//! the list of games in play, a game's end). `table`, `automatch` and `chat` are the pure rules
//! those apply.

pub mod automatch;
mod challenges;
pub mod chat;
mod live;
mod rooms;
mod stakes;
pub mod table;
mod tables;

pub use live::first_takes_black;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tengen_protocol::{
    ChallengeId, ChatChannel, ErrorCode, GameId, GameSettings, GameSummary, PlayerInfo, RoomId,
    Seat, ServerMsg, StakeTerms, TableId, UserId,
};
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::config::{
    Config, HALL_EVENT_QUEUE_LEN, HALL_INBOX_LEN, HALL_WAIT_MS, TABLES_PER_ROOM,
    USER_EVENT_QUEUE_LEN, WATCHER_COUNT_PUSH_MS,
};
use crate::game::{GameContext, Games};
use crate::ledger::Ledger;
use crate::store::StoreHandle;
use crate::{refuse, Frame, Refusal, Reply, Shutdown, TaskGuard};
use challenges::Challenge;
use rooms::Room;
use table::Table;
use tables::table_frame;

/// Who receives a hall push: anyone matching any of the fields.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Audience {
    /// Sessions that entered the hall (`enter_hall`).
    pub hall: bool,
    /// Sessions in this room.
    pub room: Option<RoomId>,
    /// Sessions that joined this table.
    pub table: Option<TableId>,
    /// These users, wherever they are.
    pub users: [Option<UserId>; 2],
}

/// A revocation as it travels to a user's connections (across nodes, like any push to a user): a
/// frame no client ever sees. Each connection of the user reads it, and one bound to the revoked
/// token (or any, when `token_digest` is `None`) logs out and tells its client `logged_out`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Revocation {
    pub token_digest: Option<String>,
}

impl Revocation {
    /// How the frame starts: no server message does (their `type` comes first), and chat text is
    /// always inside a string, so nothing a user sends can look like one.
    const PREFIX: &'static str = "{\"revoked\":";

    fn frame(&self) -> Frame {
        let body = serde_json::to_string(&self.token_digest).unwrap_or_else(|_| "null".into());
        Frame::from(format!("{}{body}}}", Self::PREFIX))
    }

    /// The revocation a pushed frame carries, if it is one.
    pub fn from_frame(text: &str) -> Option<Revocation> {
        let body = text.strip_prefix(Self::PREFIX)?.strip_suffix('}')?;
        let token_digest = serde_json::from_str(body).ok()?;
        Some(Revocation { token_digest })
    }

    /// Whether a connection holding the token with `digest` is logged out by this.
    pub fn ends(&self, digest: &str) -> bool {
        self.token_digest
            .as_deref()
            .is_none_or(|revoked| revoked == digest)
    }
}

/// One push, serialized once and shared by every session that receives it.
#[derive(Debug, Clone)]
pub struct HallEvent {
    pub audience: Audience,
    pub text: Frame,
    /// Set on `game_started`: receivers subscribe to that game, so players and table watchers get its
    /// state and events without asking.
    pub started_game: Option<GameId>,
}

/// What a session may ask of the hall.
#[derive(Debug)]
pub enum HallCmd {
    /// A seated player offers stakes (and presses OK).
    StakeOffer {
        table: TableId,
        user: UserId,
        amounts: [u64; 2],
        terms: StakeTerms,
        reply: Reply<()>,
    },
    /// A seated player agrees or disagrees to the offered stakes.
    StakeAnswer {
        table: TableId,
        user: UserId,
        agree: bool,
        reply: Reply<()>,
    },
    /// A session authenticated as `player`.
    Online {
        player: PlayerInfo,
    },
    /// A session ended or logged out: it leaves its room and tables; the user goes offline when it was
    /// their last session.
    SessionGone {
        user: Option<UserId>,
        room: Option<RoomId>,
        tables: Vec<TableId>,
    },
    /// The hall snapshot (`hall` frame).
    HallSnapshot {
        reply: Reply<Frame>,
    },
    /// Join a room; the reply is the `room` frame. `player` is `None` for an anonymous watcher.
    JoinRoom {
        room: RoomId,
        player: Option<PlayerInfo>,
        reply: Reply<Frame>,
    },
    LeaveRoom {
        room: RoomId,
        user: Option<UserId>,
        reply: Reply<()>,
    },
    /// The current `room` frame of a room, without joining it (for resyncs).
    RoomSnapshot {
        room: RoomId,
        reply: Reply<Frame>,
    },
    /// The current `table_updated` frame of a table (for resyncs).
    TableSnapshot {
        table: TableId,
        reply: Reply<Frame>,
    },
    /// Watch a table; the reply is its `table_updated` frame and its game, if one is on.
    JoinTable {
        table: TableId,
        reply: Reply<(Frame, Option<GameId>)>,
    },
    /// Leave a table: stand up if seated, and stop watching if `watching`.
    LeaveTable {
        table: TableId,
        user: Option<UserId>,
        watching: bool,
        reply: Reply<()>,
    },
    Sit {
        table: TableId,
        seat: Seat,
        player: PlayerInfo,
        reply: Reply<()>,
    },
    Stand {
        table: TableId,
        user: UserId,
        reply: Reply<()>,
    },
    Propose {
        table: TableId,
        user: UserId,
        settings: GameSettings,
        reply: Reply<()>,
    },
    Accept {
        table: TableId,
        user: UserId,
        settings: GameSettings,
        reply: Reply<()>,
    },
    Challenge {
        from: PlayerInfo,
        to: UserId,
        settings: GameSettings,
        reply: Reply<ChallengeId>,
    },
    AcceptChallenge {
        challenge: ChallengeId,
        user: UserId,
        reply: Reply<()>,
    },
    DeclineChallenge {
        challenge: ChallengeId,
        user: UserId,
        reply: Reply<()>,
    },
    /// Join (or rejoin) the automatch queue.
    Automatch {
        seeker: automatch::Seeker,
        reply: Reply<()>,
    },
    CancelAutomatch {
        user: UserId,
        reply: Reply<()>,
    },
    /// Room or table chat (kibitz goes to the game).
    Chat {
        channel: ChatChannel,
        from: PlayerInfo,
        text: String,
        at_ms: u64,
        reply: Reply<()>,
    },
    /// Sent by a game actor when its game is over.
    GameEnded {
        game: GameId,
        table: Option<TableId>,
    },
    /// Sent by a game actor after settling: the new balance of each account it paid or refunded,
    /// pushed to that user's connections.
    Balances {
        balances: Vec<(UserId, u64)>,
    },
    /// A user's session token (`token_digest`), or all of them (`None`), was revoked: every connection
    /// of that user on every node bound to it is logged out (see [`Revocation`]).
    Revoked {
        user: UserId,
        token_digest: Option<String>,
    },
    /// Sent at startup for a game restored from the store, so its table shows it again.
    GameRestored {
        summary: GameSummary,
    },
    /// Scaled out: a game run by another node, with its watcher and move counts now.
    Relisted {
        summary: GameSummary,
    },
}

/// The way in to the hall actor, and its pushes on two broadcasts: the lobby's (the hall's lists,
/// for the sessions that entered the hall) and every other addressed to a room or a table, which
/// every session receives and filters; and a channel per logged-in user for what is addressed to
/// users alone (a challenge, a game started for them, a new balance), which only their sessions
/// receive. The lobby's are the many (players coming and going, games listed and re-listed) and
/// most connections (a player in a game, a watcher) never look at the lists; and when hundreds of
/// games end and start again at once, their players' pushes must not wake every connection.
#[derive(Debug, Clone)]
pub struct HallHandle {
    inbox: mpsc::Sender<HallCmd>,
    lobby: broadcast::Sender<HallEvent>,
    events: broadcast::Sender<HallEvent>,
    users: UserChannels,
    /// Every push addressed to users alone, for the cluster's relay to the other nodes (nobody
    /// listens on one node).
    to_users: broadcast::Sender<HallEvent>,
}

/// Per logged-in user, the channel of the pushes addressed to them alone.
type UserChannels = Arc<Mutex<UserChannelMap>>;
type UserChannelMap = HashMap<UserId, broadcast::Sender<HallEvent>>;

/// One session's receiver of its user's pushes; the user's channel goes when their last one does.
#[derive(Debug)]
pub struct UserEvents {
    rx: broadcast::Receiver<HallEvent>,
    user: UserId,
    users: UserChannels,
}

impl UserEvents {
    pub fn receiver(&mut self) -> &mut broadcast::Receiver<HallEvent> {
        &mut self.rx
    }
}

impl Drop for UserEvents {
    fn drop(&mut self) {
        let mut users = lock_users(&self.users);
        // `self.rx` still counts here: 1 means it is the user's last receiver.
        if users
            .get(&self.user)
            .is_some_and(|tx| tx.receiver_count() <= 1)
        {
            users.remove(&self.user);
        }
    }
}

fn lock_users(users: &Mutex<UserChannelMap>) -> std::sync::MutexGuard<'_, UserChannelMap> {
    // The map is whole after any panic (each operation is one insert, remove or lookup).
    users.lock().unwrap_or_else(|poison| poison.into_inner())
}

impl HallHandle {
    /// A handle and the inbox it feeds, with fresh broadcasts for the pushes.
    pub fn channels() -> (HallHandle, mpsc::Receiver<HallCmd>) {
        let (inbox, inbox_rx) = mpsc::channel(HALL_INBOX_LEN);
        let (lobby, _) = broadcast::channel(HALL_EVENT_QUEUE_LEN);
        let (events, _) = broadcast::channel(HALL_EVENT_QUEUE_LEN);
        let (to_users, _) = broadcast::channel(HALL_EVENT_QUEUE_LEN);
        (
            HallHandle {
                inbox,
                lobby,
                events,
                users: UserChannels::default(),
                to_users,
            },
            inbox_rx,
        )
    }

    /// Push to this node's sessions: to the lobby's broadcast if addressed to the hall; to the
    /// other if addressed to a room or a table (its users, if any, filter it from there too); else
    /// to each addressed user's own channel. (The cluster feeds other nodes' hall pushes in here.)
    pub fn publish(&self, event: HallEvent) {
        let shared = event.audience.room.is_some() || event.audience.table.is_some();
        // No receivers is fine: nobody is listening.
        if event.audience.hall {
            let _ = self.lobby.send(event.clone());
        }
        if shared {
            let _ = self.events.send(event);
            return;
        }
        if self.to_users.receiver_count() > 0 {
            let _ = self.to_users.send(event.clone());
        }
        let users = lock_users(&self.users);
        for user in event.audience.users.iter().flatten() {
            if let Some(channel) = users.get(user) {
                let _ = channel.send(event.clone());
            }
        }
    }

    /// Receive every push addressed to users alone from now on (to relay them to other nodes).
    pub fn subscribe_to_users(&self) -> broadcast::Receiver<HallEvent> {
        self.to_users.subscribe()
    }

    /// Receive the pushes addressed to `user` alone from now on.
    pub fn subscribe_user(&self, user: UserId) -> UserEvents {
        let rx = lock_users(&self.users)
            .entry(user)
            .or_insert_with(|| broadcast::channel(USER_EVENT_QUEUE_LEN).0)
            .subscribe();
        UserEvents {
            rx,
            user,
            users: Arc::clone(&self.users),
        }
    }

    /// Receive the pushes addressed to rooms and tables from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<HallEvent> {
        self.events.subscribe()
    }

    /// Receive the pushes addressed to the hall (its lists) from now on.
    pub fn subscribe_lobby(&self) -> broadcast::Receiver<HallEvent> {
        self.lobby.subscribe()
    }

    /// Send a command, waiting up to [`HALL_WAIT_MS`] for room in the inbox; then `busy`.
    pub async fn send_or_busy(&self, cmd: HallCmd) -> Result<(), Refusal> {
        let wait = Duration::from_millis(HALL_WAIT_MS);
        self.inbox
            .send_timeout(cmd, wait)
            .await
            .map_err(|_| Refusal::busy())
    }

    /// Send a command, waiting for room (for messages that must not be lost, like a game's end).
    pub async fn send(&self, cmd: HallCmd) {
        // An error means the hall stopped (shutdown); there is nobody left to tell.
        let _ = self.inbox.send(cmd).await;
    }

    /// Ask the hall something and wait for its answer.
    pub async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> HallCmd) -> Result<T, Refusal> {
        let (tx, rx) = oneshot::channel();
        self.send_or_busy(make(tx)).await?;
        rx.await.map_err(|_| Refusal::busy())?
    }
}

/// The actor's state.
#[derive(Debug)]
struct Hall {
    rooms: BTreeMap<RoomId, Room>,
    tables: BTreeMap<TableId, Table>,
    /// Users online, with their number of sessions; bounded by open connections.
    online: BTreeMap<UserId, (PlayerInfo, u32)>,
    /// Which table each seated user sits at: one seat per player.
    seated: HashMap<UserId, TableId>,
    /// Open challenges; at most `CHALLENGES_PER_USER_MAX` per sender, all withdrawn when they go offline.
    challenges: BTreeMap<ChallengeId, Challenge>,
    next_challenge: u64,
    /// Players waiting for an automatch, oldest first; bounded by `AUTOMATCH_QUEUE_MAX`, and a
    /// player leaves it on going offline.
    automatch: Vec<automatch::Seeker>,
    /// Numbers stake agreements made by this process, for their transfer ids.
    next_stake: u64,
    /// Live games as listed in the hall.
    live: BTreeMap<GameId, GameSummary>,
    /// The last game re-listed with new counts; the next push goes on after it.
    relisted_last: GameId,
    /// Tables whose watcher count changed since the last push; at most one entry per table.
    recount: BTreeSet<TableId>,
    /// Rooms whose user count changed since the last push; at most one entry per room.
    room_recount: BTreeSet<RoomId>,
    games: Games,
    ctx: GameContext,
    /// Where pushes go out (this node's sessions, and scaled out, the other nodes').
    handle: HallHandle,
}

/// Start the hall actor with the configured rooms, each with [`TABLES_PER_ROOM`] tables.
pub fn spawn(
    config: &Config,
    store: StoreHandle,
    ledger: Ledger,
    games: Games,
    shutdown: Shutdown,
    tasks: TaskGuard,
) -> HallHandle {
    let (handle, inbox_rx) = HallHandle::channels();
    let actor = HallActor {
        handle: handle.clone(),
        store,
        ledger,
        games,
    };
    spawn_actor(config, actor, inbox_rx, shutdown, tasks);
    handle
}

/// What a hall actor is built from: the handle its games report to (this node's, which may route
/// to another node's hall) and the services it uses.
#[derive(Debug)]
pub struct HallActor {
    pub handle: HallHandle,
    pub store: StoreHandle,
    pub ledger: Ledger,
    pub games: Games,
}

/// Start a hall actor reading `inbox`, pushing on `actor.handle`'s broadcast. The cluster layer
/// calls this when its node takes the hall over.
pub fn spawn_actor(
    config: &Config,
    actor: HallActor,
    inbox_rx: mpsc::Receiver<HallCmd>,
    shutdown: Shutdown,
    tasks: TaskGuard,
) {
    let HallActor {
        handle,
        store,
        ledger,
        games,
    } = actor;
    let mut rooms = BTreeMap::new();
    let mut tables = BTreeMap::new();
    for (index, name) in config.rooms.iter().enumerate() {
        let room_id = RoomId(index as u32 + 1);
        let table_ids: Vec<TableId> = (0..TABLES_PER_ROOM)
            .map(|n| TableId(index as u32 * TABLES_PER_ROOM + n + 1))
            .collect();
        for &id in &table_ids {
            tables.insert(id, Table::new(id, room_id));
        }
        rooms.insert(
            room_id,
            Room {
                id: room_id,
                name: name.clone(),
                users: BTreeMap::new(),
                tables: table_ids,
            },
        );
    }
    let hall = Hall {
        rooms,
        tables,
        online: BTreeMap::new(),
        seated: HashMap::new(),
        challenges: BTreeMap::new(),
        next_challenge: 1,
        automatch: Vec::new(),
        next_stake: 1,
        live: BTreeMap::new(),
        relisted_last: GameId(0),
        recount: BTreeSet::new(),
        room_recount: BTreeSet::new(),
        games,
        ctx: GameContext {
            store,
            ledger,
            fault_stop_before_settlement: config.fault_stop_before_settlement,
            hall: handle.clone(),
            shutdown: shutdown.clone(),
            tasks: tasks.clone(),
            timing: config.game_timing,
        },
        handle,
    };
    tokio::spawn(hall.run(inbox_rx, shutdown, tasks));
}

impl Hall {
    async fn run(
        mut self,
        mut inbox: mpsc::Receiver<HallCmd>,
        shutdown: Shutdown,
        _tasks: TaskGuard,
    ) {
        let mut recounts = tokio::time::interval(Duration::from_millis(WATCHER_COUNT_PUSH_MS));
        loop {
            tokio::select! {
                _ = shutdown.wait() => break,
                _ = recounts.tick() => self.publish_recounts(),
                cmd = inbox.recv() => match cmd {
                    Some(cmd) => self.handle(cmd).await,
                    None => break,
                },
            }
        }
    }

    /// Publish the tables whose watcher counts, and the rooms whose user counts, changed since the
    /// last tick, once each.
    fn publish_recounts(&mut self) {
        for id in std::mem::take(&mut self.recount) {
            self.table_changed(id);
        }
        for id in std::mem::take(&mut self.room_recount) {
            self.room_changed(id);
        }
        self.relist_changed_games();
    }

    async fn handle(&mut self, cmd: HallCmd) {
        match cmd {
            HallCmd::Online { player } => self.online(player),
            HallCmd::SessionGone { user, room, tables } => self.session_gone(user, room, tables),
            HallCmd::HallSnapshot { reply } => {
                let _ = reply.send(Ok(self.hall_frame()));
            }
            HallCmd::JoinRoom {
                room,
                player,
                reply,
            } => {
                let _ = reply.send(self.join_room(room, player));
            }
            HallCmd::LeaveRoom { room, user, reply } => {
                let _ = reply.send(self.leave_room(room, user));
            }
            HallCmd::TableSnapshot { table, reply } => {
                let _ = reply.send(self.table(table).map(table_frame));
            }
            HallCmd::JoinTable { table, reply } => {
                let _ = reply.send(self.join_table(table));
            }
            HallCmd::LeaveTable {
                table,
                user,
                watching,
                reply,
            } => {
                let _ = reply.send(self.leave_table(table, user, watching));
            }
            HallCmd::RoomSnapshot { room, reply } => {
                let _ = reply.send(self.room_frame(room));
            }
            HallCmd::Sit {
                table,
                seat,
                player,
                reply,
            } => {
                let _ = reply.send(self.sit(table, seat, player));
            }
            HallCmd::Stand { table, user, reply } => {
                let _ = reply.send(self.stand(table, user));
            }
            HallCmd::Propose {
                table,
                user,
                settings,
                reply,
            } => {
                let _ = reply.send(self.propose(table, user, settings));
            }
            HallCmd::Accept {
                table,
                user,
                settings,
                reply,
            } => {
                let result = self.accept(table, user, settings).await;
                let _ = reply.send(result);
            }
            HallCmd::Challenge {
                from,
                to,
                settings,
                reply,
            } => {
                let _ = reply.send(self.challenge(from, to, settings));
            }
            HallCmd::AcceptChallenge {
                challenge,
                user,
                reply,
            } => {
                let result = self.accept_challenge(challenge, user).await;
                let _ = reply.send(result);
            }
            HallCmd::DeclineChallenge {
                challenge,
                user,
                reply,
            } => {
                let _ = reply.send(self.decline_challenge(challenge, user));
            }
            HallCmd::Chat {
                channel,
                from,
                text,
                at_ms,
                reply,
            } => {
                let _ = reply.send(self.chat(channel, from, text, at_ms));
            }
            HallCmd::Automatch { seeker, reply } => {
                let _ = reply.send(self.seek(seeker).await);
            }
            HallCmd::CancelAutomatch { user, reply } => {
                let _ = reply.send(if automatch::remove(&mut self.automatch, user) {
                    Ok(())
                } else {
                    refuse(ErrorCode::NotThere, "you are not in the automatch queue")
                });
            }
            HallCmd::StakeOffer {
                table,
                user,
                amounts,
                terms,
                reply,
            } => {
                let result = self.offer_stake(table, user, amounts, terms).await;
                let _ = reply.send(result);
            }
            HallCmd::StakeAnswer {
                table,
                user,
                agree,
                reply,
            } => {
                let result = self.answer_stake(table, user, agree).await;
                let _ = reply.send(result);
            }
            HallCmd::GameEnded { game, table } => self.game_ended(game, table),
            HallCmd::Balances { balances } => self.push_balances(balances),
            HallCmd::Revoked { user, token_digest } => {
                let text = Revocation { token_digest }.frame();
                self.publish_text(users_audience([Some(user), None]), text, None);
            }
            HallCmd::GameRestored { summary } => self.game_restored(summary),
            HallCmd::Relisted { summary } => self.relist(summary),
        }
    }

    fn publish(&self, audience: Audience, msg: &ServerMsg) {
        self.publish_text(audience, msg.to_json().into(), None);
    }

    fn publish_text(&self, audience: Audience, text: Frame, started_game: Option<GameId>) {
        self.handle.publish(HallEvent {
            audience,
            text,
            started_game,
        });
    }
}

fn hall_audience() -> Audience {
    Audience {
        hall: true,
        ..Audience::default()
    }
}

fn users_audience(users: [Option<UserId>; 2]) -> Audience {
    Audience {
        users,
        ..Audience::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to_user(user: UserId, text: &str) -> HallEvent {
        HallEvent {
            audience: Audience {
                users: [Some(user), None],
                ..Audience::default()
            },
            text: Frame::from(text.to_string()),
            started_game: None,
        }
    }

    #[tokio::test]
    async fn a_users_pushes_reach_only_their_sessions_and_their_channel_goes_with_the_last() {
        let (hall, _inbox) = HallHandle::channels();
        let (alice, bob) = (UserId(1), UserId(2));
        let mut everyone = hall.subscribe();
        let mut alice_here = hall.subscribe_user(alice);
        let alice_there = hall.subscribe_user(alice);
        let mut bob_here = hall.subscribe_user(bob);
        hall.publish(to_user(alice, "for alice"));
        let heard = alice_here.receiver().recv().await.unwrap();
        assert_eq!(heard.text.as_str(), "for alice");
        assert!(bob_here.rx.try_recv().is_err(), "bob hears nothing of it");
        assert!(everyone.try_recv().is_err(), "nor does every session");
        // The channel stays while one of alice's sessions is left, and goes with the last.
        drop(alice_there);
        assert!(lock_users(&hall.users).contains_key(&alice));
        drop(alice_here);
        assert!(!lock_users(&hall.users).contains_key(&alice));
        // A push to someone with no session is dropped quietly.
        hall.publish(to_user(alice, "nobody listens"));
        assert!(lock_users(&hall.users).contains_key(&bob));
    }
}
