//! The hall: one actor owning rooms, tables, seats, settings agreement, nigiri, direct challenges, who
//! is online, and room and table chat. Sessions talk to it through [`HallHandle`] (a bounded inbox; a
//! request that finds it full for [`HALL_WAIT_MS`] is answered `busy`), and it pushes every change
//! once, serialized, with who should receive it ([`Recipients`]): the lobby's lists and whatever is
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
//!
//! The actor also hosts the competitions ([`crate::competition::Competitions`]), kept beside the
//! hall's state in the same task: it hands them each event request, each game's end and
//! restoration and each new listing, and lends itself as their `Venue` (`competitions`: starting an
//! event's game, pushing their frames, bringing back a round's timer).

pub mod automatch;
mod challenges;
mod competitions;
mod live;
mod relations;
mod request;
mod rooms;
mod stakes;
pub mod table;
mod tables;

pub use live::first_takes_black;
pub use relations::{FriendNow, RelationChange};
pub use request::{HallCmd, HallReply, HallRequest};

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tengen_protocol::{
    ChallengeId, ErrorCode, GameId, GameSummary, PlayerInfo, RoomId, ServerMsg, TableId, UserId,
};
use tokio::sync::{broadcast, mpsc};

use crate::competition::Competitions;
use crate::config::{
    Config, HALL_EVENT_QUEUE_LEN, HALL_INBOX_LEN, HALL_WAIT_MS, TABLES_PER_ROOM,
    USER_EVENT_QUEUE_LEN, WATCHER_COUNT_PUSH_MS,
};
use crate::game::{GameContext, GameNotice, Games, HallLink};
use crate::ledger::Ledger;
use crate::store::StoreHandle;
use crate::{refuse, Frame, Refusal, Shutdown, TaskGuard};
use challenges::Challenge;
use futures_util::future::BoxFuture;
use rooms::Room;
use table::Table;
use tables::table_frame;

/// Who receives a hall push: anyone matching any of the fields.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Recipients {
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
    /// Set when a moderator banned the user: their connections close, saying why and until when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ban: Option<BanNotice>,
}

/// A ban as the banned user's connections hear it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BanNotice {
    pub reason: String,
    /// `None`: for good.
    pub until_ms: Option<u64>,
}

impl Revocation {
    const TAG: &'static str = "revoked";

    fn frame(&self) -> Frame {
        internal_frame(Self::TAG, self)
    }

    /// The revocation a pushed frame carries, if it is one.
    pub fn from_frame(text: &str) -> Option<Revocation> {
        internal_body(Self::TAG, text)
    }

    /// Whether a connection holding the token with `digest` is logged out by this.
    pub fn ends(&self, digest: &str) -> bool {
        self.token_digest
            .as_deref()
            .is_none_or(|revoked| revoked == digest)
    }
}

/// A user's new listing (after a rated game) as it travels to that user's own connections: a frame
/// no client ever sees, like a [`Revocation`]. Each connection of the user takes it as its own
/// listing from then on, so what it shows next (a seat, a challenge, a new game) carries the new rank.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Relisting {
    pub player: PlayerInfo,
}

impl Relisting {
    const TAG: &'static str = "relisted";

    fn frame(&self) -> Frame {
        internal_frame(Self::TAG, &self.player)
    }

    /// The relisting a pushed frame carries, if it is one.
    pub fn from_frame(text: &str) -> Option<Relisting> {
        let player = internal_body(Self::TAG, text)?;
        Some(Relisting { player })
    }
}

/// A frame for a user's own connections that no client ever sees: `{"<tag>":<body>}`. No server
/// message starts so (their `type` comes first), and chat text is always inside a string, so nothing
/// a user sends can look like one.
fn internal_frame(tag: &str, body: &impl serde::Serialize) -> Frame {
    let body = serde_json::to_string(body).unwrap_or_else(|_| "null".into());
    Frame::from(format!("{{\"{tag}\":{body}}}"))
}

/// The body of an internal frame tagged `tag`, if `text` is one.
fn internal_body<T: serde::de::DeserializeOwned>(tag: &str, text: &str) -> Option<T> {
    let body = text
        .strip_prefix("{\"")?
        .strip_prefix(tag)?
        .strip_prefix("\":")?
        .strip_suffix('}')?;
    serde_json::from_str(body).ok()
}

/// One push, serialized once and shared by every session that receives it.
#[derive(Debug, Clone)]
pub struct HallEvent {
    pub recipients: Recipients,
    pub text: Frame,
    /// Set on `game_started`: receivers subscribe to that game, so players and table watchers get its
    /// state and events without asking.
    pub started_game: Option<GameId>,
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
        let shared = event.recipients.room.is_some() || event.recipients.table.is_some();
        // No receivers is fine: nobody is listening.
        if event.recipients.hall {
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
        for user in event.recipients.users.iter().flatten() {
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

    /// Queue a command, waiting up to [`HALL_WAIT_MS`] for room in the inbox; then `busy`.
    pub async fn send_or_busy(&self, cmd: HallCmd) -> Result<(), Refusal> {
        let wait = Duration::from_millis(HALL_WAIT_MS);
        self.inbox
            .send_timeout(cmd, wait)
            .await
            .map_err(|_| Refusal::busy())
    }

    /// Tell the hall something nobody waits on, as long as there is room within [`HALL_WAIT_MS`].
    pub async fn tell(&self, request: HallRequest) -> Result<(), Refusal> {
        self.send_or_busy(HallCmd::told(request)).await
    }

    /// Tell the hall something that must not be lost (like a game's end), waiting for room.
    pub async fn send(&self, request: HallRequest) {
        // An error means the hall stopped (shutdown); there is nobody left to tell.
        let _ = self.inbox.send(HallCmd::told(request)).await;
    }

    /// Ask the hall something and wait for its answer.
    pub async fn ask(&self, request: HallRequest) -> Result<HallReply, Refusal> {
        let (cmd, answer) = HallCmd::asked(request);
        self.send_or_busy(cmd).await?;
        answer.await.map_err(|_| Refusal::busy())?
    }
}

/// A game's notices reach the hall as the requests they stand for, waiting for room like every
/// message that must not be lost.
impl HallLink for HallHandle {
    fn tell(&self, notice: GameNotice) -> BoxFuture<'_, ()> {
        Box::pin(self.send(HallRequest::from(notice)))
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
    /// When users whose last connection ended left, until they come back; at most
    /// [`crate::config::RECENTLY_GONE_MAX`] (see there).
    recently_gone: HashMap<UserId, u64>,
    /// Whom the users online follow and block.
    ties: relations::Ties,
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
                recent_chat: Default::default(),
            },
        );
    }
    // Beside the hall rather than inside it, so the hall lends itself to them as their venue.
    let competitions = Competitions::new(store.clone(), games.clone(), shutdown.clone());
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
        recently_gone: HashMap::new(),
        ties: relations::Ties::default(),
        games,
        ctx: GameContext {
            store,
            ledger,
            fault_stop_before_settlement: config.fault_stop_before_settlement,
            hall: Arc::new(handle.clone()),
            shutdown: shutdown.clone(),
            tasks: tasks.clone(),
            timing: config.game_timing,
        },
        handle,
    };
    tokio::spawn(hall.run(competitions, inbox_rx, shutdown, tasks));
}

impl Hall {
    /// Serve the inbox until shutdown, with the competitions run in the same task: every request
    /// is done, competitions' included, before the next is taken.
    async fn run(
        mut self,
        mut competitions: Competitions,
        mut inbox: mpsc::Receiver<HallCmd>,
        shutdown: Shutdown,
        _tasks: TaskGuard,
    ) {
        competitions.load(&mut self).await;
        let mut recounts = tokio::time::interval(Duration::from_millis(WATCHER_COUNT_PUSH_MS));
        loop {
            tokio::select! {
                _ = shutdown.wait() => break,
                _ = recounts.tick() => self.publish_recounts(),
                cmd = inbox.recv() => match cmd {
                    Some(HallCmd { request, reply }) => {
                        let result = self.handle(&mut competitions, request).await;
                        if let Some(reply) = reply {
                            // The asker may have gone (its connection closed): nothing to do.
                            let _ = reply.send(result);
                        }
                    }
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

    /// Do what a request asks; the caller sends the answer to whoever waits for it.
    async fn handle(
        &mut self,
        competitions: &mut Competitions,
        request: HallRequest,
    ) -> Result<HallReply, Refusal> {
        use HallReply::Done;
        use HallRequest as R;
        match request {
            R::HallSnapshot => Ok(frame_reply(self.hall_frame())),
            R::Presence { user } => Ok(HallReply::Presence {
                presence: self.presence(user, competitions.placings(user)),
            }),
            R::JoinRoom { room, player } => self.join_room(room, player).map(frame_reply),
            R::LeaveRoom { room, user } => self.leave_room(room, user).map(|()| Done),
            R::RoomSnapshot { room } => self.room_frame(room).map(frame_reply),
            R::TableSnapshot { table } => self.table(table).map(table_frame).map(frame_reply),
            R::JoinTable { table } => self
                .join_table(table)
                .map(|(text, game)| HallReply::Table { text, game }),
            R::LeaveTable {
                table,
                user,
                watching,
            } => self.leave_table(table, user, watching).map(|()| Done),
            R::Sit {
                table,
                seat,
                player,
            } => self.sit(table, seat, player).map(|()| Done),
            R::Stand { table, user } => self.stand(table, user).map(|()| Done),
            R::Propose {
                table,
                user,
                settings,
            } => self.propose(table, user, settings).map(|()| Done),
            R::Accept {
                table,
                user,
                settings,
            } => self.accept(table, user, settings).await.map(|()| Done),
            R::Challenge { from, to, settings } => self
                .challenge(from, to, settings)
                .map(|challenge| HallReply::Challenge { challenge }),
            R::AcceptChallenge { challenge, user } => {
                self.accept_challenge(challenge, user).await.map(|()| Done)
            }
            R::DeclineChallenge { challenge, user } => {
                self.decline_challenge(challenge, user).map(|()| Done)
            }
            R::Automatch { seeker } => self.seek(seeker).await.map(|()| Done),
            R::CancelAutomatch { user } => self.cancel_automatch(user).map(|()| Done),
            R::Chat {
                channel,
                from,
                text,
                at_ms,
                line,
            } => self.chat(channel, from, (text, at_ms), line).map(|()| Done),
            R::StakeOffer {
                table,
                user,
                amounts,
                terms,
            } => self
                .offer_stake(table, user, amounts, terms)
                .await
                .map(|()| Done),
            R::StakeAnswer { table, user, agree } => {
                self.answer_stake(table, user, agree).await.map(|()| Done)
            }
            R::Event(request) => competitions
                .request(request, self)
                .await
                .map(HallReply::from),
            R::Related { change } => {
                self.related(change);
                Ok(Done)
            }
            R::FriendsNow { users } => Ok(HallReply::FriendsNow {
                now: self.friends_now(users),
            }),
            notification @ (R::Online { .. }
            | R::GameEnded { .. }
            | R::SessionGone { .. }
            | R::Balances { .. }
            | R::Revoked { .. }
            | R::ToUser { .. }
            | R::RemoveChat { .. }
            | R::Rerated { .. }
            | R::GameRestored { .. }
            | R::Relisted { .. }
            | R::RelationsLoaded { .. }) => {
                self.notified(competitions, notification).await;
                Ok(Done)
            }
        }
    }

    /// The requests nobody waits on: who is online, games ending, balances, revocations, listings.
    async fn notified(&mut self, competitions: &mut Competitions, notification: HallRequest) {
        use HallRequest as R;
        match notification {
            R::GameEnded {
                game,
                table,
                outcome,
            } => {
                self.game_ended(game, table);
                competitions.game_ended(game, outcome, self).await;
            }
            R::Online { player } => self.online(player),
            R::SessionGone { user, room, tables } => self.session_gone(user, room, tables),
            R::Balances { balances } => self.push_balances(balances),
            R::Rerated { players } => {
                for player in players {
                    self.relist_player(player.clone());
                    competitions.relist_entrant(&player, self).await;
                }
            }
            R::Revoked {
                user,
                token_digest,
                ban,
            } => {
                let text = Revocation { token_digest, ban }.frame();
                self.publish_text(users_recipients([Some(user), None]), text, None);
            }
            R::ToUser { user, msg } => self.publish(users_recipients([Some(user), None]), &msg),
            R::RemoveChat { channel, line } => self.remove_chat(channel, line),
            R::GameRestored { summary } => {
                competitions.game_restored(summary.game);
                self.game_restored(summary);
            }
            R::Relisted { summary } => self.relist(summary),
            R::RelationsLoaded { user, load, held } => self.relations_loaded(user, load, held),
            asked => {
                // `handle` passes only the notifications here.
                tracing::error!(?asked, "a hall request reached the notifications");
            }
        }
    }

    fn cancel_automatch(&mut self, user: UserId) -> Result<(), Refusal> {
        if automatch::remove(&mut self.automatch, user) {
            Ok(())
        } else {
            refuse(ErrorCode::NotThere, "you are not in the automatch queue")
        }
    }

    fn publish(&self, recipients: Recipients, msg: &ServerMsg) {
        self.publish_text(recipients, msg.to_json().into(), None);
    }

    fn publish_text(&self, recipients: Recipients, text: Frame, started_game: Option<GameId>) {
        self.handle.publish(HallEvent {
            recipients,
            text,
            started_game,
        });
    }
}

fn frame_reply(text: Frame) -> HallReply {
    HallReply::Frame { text }
}

fn hall_recipients() -> Recipients {
    Recipients {
        hall: true,
        ..Recipients::default()
    }
}

fn users_recipients(users: [Option<UserId>; 2]) -> Recipients {
    Recipients {
        users,
        ..Recipients::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to_user(user: UserId, text: &str) -> HallEvent {
        HallEvent {
            recipients: Recipients {
                users: [Some(user), None],
                ..Recipients::default()
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
