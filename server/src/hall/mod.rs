//! The hall: one actor owning rooms, tables, seats, settings agreement, nigiri, direct challenges, who
//! is online, and room and table chat. Sessions talk to it through [`HallHandle`] (a bounded inbox; a
//! request that finds it full for [`HALL_WAIT_MS`] is answered `busy`), and it pushes every change once, serialized, on one broadcast channel whose
//! items say who should receive them ([`Audience`]); each session filters for itself. Live games are
//! started here and then belong to `game`; the game tells the hall when it ends.

pub mod automatch;
pub mod chat;
pub mod table;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Bound;
use std::time::Duration;

use rand::Rng;
use tengen_protocol::{
    ChallengeId, ChatChannel, ErrorCode, GameId, GameSettings, GameSummary, PlayerInfo, RoomId,
    RoomInfo, Seat, ServerMsg, StakeTerms, TableId, UserId,
};
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::config::{
    Config, CHALLENGES_PER_USER_MAX, GAME_RELISTS_PER_PUSH_MAX, HALL_EVENT_QUEUE_LEN,
    HALL_INBOX_LEN, HALL_WAIT_MS, TABLES_PER_ROOM, WATCHER_COUNT_PUSH_MS,
};
use crate::game::{GameCmd, GameContext, Games, StartGame};
use crate::ledger::Ledger;
use crate::store::StoreHandle;
use crate::{Frame, Refusal, Shutdown, TaskGuard};
use table::Table;

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

/// One push, serialized once and shared by every session that receives it.
#[derive(Debug, Clone)]
pub struct HallEvent {
    pub audience: Audience,
    pub text: Frame,
    /// Set on `game_started`: receivers subscribe to that game, so players and table watchers get its
    /// state and events without asking.
    pub started_game: Option<GameId>,
}

type Reply<T> = oneshot::Sender<Result<T, Refusal>>;

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
/// for the sessions that entered the hall) and every other (a room's, a table's, a user's), which
/// every session receives and filters. Two, because the lobby's are the many (players coming and
/// going, games listed and re-listed) and most connections (a player in a game, a watcher) never
/// look at the lists.
#[derive(Debug, Clone)]
pub struct HallHandle {
    inbox: mpsc::Sender<HallCmd>,
    lobby: broadcast::Sender<HallEvent>,
    events: broadcast::Sender<HallEvent>,
}

impl HallHandle {
    /// A handle and the inbox it feeds, with fresh broadcasts for the pushes.
    pub fn channels() -> (HallHandle, mpsc::Receiver<HallCmd>) {
        let (inbox, inbox_rx) = mpsc::channel(HALL_INBOX_LEN);
        let (lobby, _) = broadcast::channel(HALL_EVENT_QUEUE_LEN);
        let (events, _) = broadcast::channel(HALL_EVENT_QUEUE_LEN);
        (
            HallHandle {
                inbox,
                lobby,
                events,
            },
            inbox_rx,
        )
    }

    /// Push to this node's sessions: to the lobby's broadcast if addressed to the hall, to the
    /// other if addressed to anyone else. (The cluster feeds other nodes' hall pushes in here.)
    pub fn publish(&self, event: HallEvent) {
        let targeted = event.audience.room.is_some()
            || event.audience.table.is_some()
            || event.audience.users.iter().any(Option::is_some);
        // No receivers is fine: nobody is listening.
        if event.audience.hall {
            let _ = self.lobby.send(event.clone());
        }
        if targeted {
            let _ = self.events.send(event);
        }
    }

    /// Receive the pushes addressed to rooms, tables and users from now on.
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

/// An open challenge.
#[derive(Debug, Clone)]
struct Challenge {
    from: PlayerInfo,
    to: UserId,
    settings: GameSettings,
}

/// A room's name and who is in it.
#[derive(Debug)]
struct Room {
    id: RoomId,
    name: String,
    /// Logged-in users in the room, with how many of their sessions are; bounded by sessions online.
    users: BTreeMap<UserId, (PlayerInfo, u32)>,
    tables: Vec<TableId>,
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

fn refuse<T>(code: ErrorCode, message: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::new(code, message))
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
            HallCmd::GameRestored { summary } => self.game_restored(summary),
            HallCmd::Relisted { summary } => self.relist(summary),
        }
    }

    /// A listed game's line changed (new counts): keep it and list it again. A game no longer
    /// listed (it ended meanwhile) is left out, and an unchanged line is not pushed.
    fn relist(&mut self, summary: GameSummary) {
        let Some(listed) = self.live.get_mut(&summary.game) else {
            return;
        };
        if *listed != summary {
            *listed = summary.clone();
            self.publish(hall_audience(), &ServerMsg::GameListed { game: summary });
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

    fn table(&self, id: TableId) -> Result<&Table, Refusal> {
        self.tables
            .get(&id)
            .ok_or_else(|| Refusal::new(ErrorCode::NoSuchTable, format!("no table {id}")))
    }

    fn table_mut(&mut self, id: TableId) -> Result<&mut Table, Refusal> {
        self.tables
            .get_mut(&id)
            .ok_or_else(|| Refusal::new(ErrorCode::NoSuchTable, format!("no table {id}")))
    }

    /// Tell the room, the table's watchers and its players that a table changed.
    fn table_changed(&self, id: TableId) {
        if let Some(table) = self.tables.get(&id) {
            let audience = Audience {
                hall: false,
                room: Some(table.room),
                table: Some(id),
                users: table.seated_users(),
            };
            self.publish_text(audience, table_frame(table), None);
        }
    }

    fn room_info(room: &Room) -> RoomInfo {
        RoomInfo {
            room: room.id,
            name: room.name.clone(),
            users_count: room.users.len() as u32,
            tables_count: room.tables.len() as u32,
        }
    }

    fn room_changed(&self, id: RoomId) {
        if let Some(room) = self.rooms.get(&id) {
            let msg = ServerMsg::RoomUpdated {
                room: Self::room_info(room),
            };
            self.publish(hall_audience(), &msg);
        }
    }

    /// A live game's listing with its watchers counted now, from the game's own registry, so a hall
    /// snapshot agrees with what the game's followers are told. (Changes are pushed by
    /// `relist_changed_games`, at most once a second per game.)
    fn listing(&self, game: &GameSummary) -> GameSummary {
        self.games.listing_now(game).unwrap_or_else(|| game.clone())
    }

    fn hall_frame(&self) -> Frame {
        ServerMsg::Hall {
            rooms: self.rooms.values().map(Self::room_info).collect(),
            players: self.online.values().map(|(p, _)| p.clone()).collect(),
            games: self.live.values().map(|game| self.listing(game)).collect(),
        }
        .to_json()
        .into()
    }

    fn online(&mut self, player: PlayerInfo) {
        let entry = self
            .online
            .entry(player.user)
            .or_insert_with(|| (player.clone(), 0));
        entry.1 += 1;
        if entry.1 == 1 {
            self.publish(hall_audience(), &ServerMsg::PlayerOnline { player });
        }
    }

    fn session_gone(&mut self, user: Option<UserId>, room: Option<RoomId>, tables: Vec<TableId>) {
        if let Some(room) = room {
            let _ = self.leave_room(room, user);
        }
        for table in tables {
            let _ = self.leave_watching(table);
        }
        let Some(user) = user else {
            return;
        };
        let Some(entry) = self.online.get_mut(&user) else {
            return;
        };
        entry.1 -= 1;
        if entry.1 > 0 {
            return;
        }
        self.online.remove(&user);
        automatch::remove(&mut self.automatch, user);
        self.publish(hall_audience(), &ServerMsg::PlayerOffline { user });
        self.withdraw_challenges(user);
        // A player keeps their seat through a disconnect only while a game is on; otherwise the seat
        // is freed so the table does not look taken by someone who is gone.
        if let Some(&table) = self.seated.get(&user) {
            if self.tables.get(&table).is_some_and(|t| t.game.is_none()) {
                let _ = self.stand(table, user);
            }
        }
    }

    fn withdraw_challenges(&mut self, user: UserId) {
        let gone: Vec<(ChallengeId, Challenge)> = self
            .challenges
            .iter()
            .filter(|(_, c)| c.from.user == user || c.to == user)
            .map(|(id, c)| (*id, c.clone()))
            .collect();
        for (id, challenge) in gone {
            self.challenges.remove(&id);
            let audience = users_audience([Some(challenge.from.user), Some(challenge.to)]);
            self.publish(audience, &ServerMsg::ChallengeDeclined { challenge: id });
        }
    }

    fn join_room(&mut self, id: RoomId, player: Option<PlayerInfo>) -> Result<Frame, Refusal> {
        let room = self
            .rooms
            .get_mut(&id)
            .ok_or_else(|| Refusal::new(ErrorCode::NoSuchRoom, format!("no room {id}")))?;
        let mut first_session = false;
        if let Some(player) = &player {
            let entry = room
                .users
                .entry(player.user)
                .or_insert_with(|| (player.clone(), 0));
            entry.1 += 1;
            first_session = entry.1 == 1;
        }
        let frame = self.room_frame(id)?;
        if let (true, Some(player)) = (first_session, player) {
            let audience = Audience {
                room: Some(id),
                ..Audience::default()
            };
            self.publish(audience, &ServerMsg::RoomJoined { room: id, player });
            self.room_recount.insert(id);
        }
        Ok(frame)
    }

    fn room_frame(&self, id: RoomId) -> Result<Frame, Refusal> {
        let room = self
            .rooms
            .get(&id)
            .ok_or_else(|| Refusal::new(ErrorCode::NoSuchRoom, format!("no room {id}")))?;
        Ok(ServerMsg::Room {
            room: id,
            name: room.name.clone(),
            tables: room.tables.iter().map(|t| self.tables[t].info()).collect(),
            users: room.users.values().map(|(p, _)| p.clone()).collect(),
        }
        .to_json()
        .into())
    }

    fn leave_room(&mut self, id: RoomId, user: Option<UserId>) -> Result<(), Refusal> {
        let room = self
            .rooms
            .get_mut(&id)
            .ok_or_else(|| Refusal::new(ErrorCode::NoSuchRoom, format!("no room {id}")))?;
        let Some(user) = user else {
            return Ok(());
        };
        let Some(entry) = room.users.get_mut(&user) else {
            return Ok(());
        };
        entry.1 -= 1;
        if entry.1 == 0 {
            room.users.remove(&user);
            let audience = Audience {
                room: Some(id),
                ..Audience::default()
            };
            self.publish(audience, &ServerMsg::RoomLeft { room: id, user });
            self.room_recount.insert(id);
        }
        Ok(())
    }

    fn join_table(&mut self, id: TableId) -> Result<(Frame, Option<GameId>), Refusal> {
        self.table_mut(id)?.watchers_count += 1;
        self.recount.insert(id);
        let table = self.table(id)?;
        Ok((table_frame(table), table.game))
    }

    fn leave_watching(&mut self, id: TableId) -> Result<(), Refusal> {
        let table = self.table_mut(id)?;
        table.watchers_count = table.watchers_count.saturating_sub(1);
        self.recount.insert(id);
        Ok(())
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

    /// Re-list the live games whose watcher or move count changed since they were last listed, so
    /// the hall's list of games in play keeps its counts true. At most [`GAME_RELISTS_PER_PUSH_MAX`] a push
    /// (the rest wait for the next), so a hall with many busy games costs its sessions a bounded
    /// number of frames a second.
    fn relist_changed_games(&mut self) {
        // Round the list from where the last push stopped, so every game gets its turn however
        // many change every second.
        let after = self.relisted_last;
        let in_turn = self
            .live
            .range((Bound::Excluded(after), Bound::Unbounded))
            .chain(self.live.range(..=after))
            .map(|(_, listed)| listed);
        let changed: Vec<GameSummary> = in_turn
            .filter_map(|listed| {
                let now = self.games.listing_now(listed)?;
                (now != *listed).then_some(now)
            })
            .take(GAME_RELISTS_PER_PUSH_MAX)
            .collect();
        for listing in changed {
            self.relisted_last = listing.game;
            self.relist(listing);
        }
    }

    fn leave_table(
        &mut self,
        id: TableId,
        user: Option<UserId>,
        watching: bool,
    ) -> Result<(), Refusal> {
        let table = self.table(id)?;
        let seated = user.is_some_and(|user| table.seat_of(user).is_some());
        if !seated && !watching {
            return refuse(ErrorCode::NotThere, "you are not at that table");
        }
        if let (true, Some(user)) = (seated, user) {
            self.stand(id, user)?;
        }
        if watching {
            self.leave_watching(id)?;
        }
        Ok(())
    }

    fn sit(&mut self, id: TableId, seat: Seat, player: PlayerInfo) -> Result<(), Refusal> {
        if let Some(at) = self.seated.get(&player.user) {
            return refuse(
                ErrorCode::AlreadySeated,
                format!("you already sit at table {at}"),
            );
        }
        let user = player.user;
        self.table_mut(id)?.sit(seat, player)?;
        self.seated.insert(user, id);
        self.table_changed(id);
        Ok(())
    }

    fn stand(&mut self, id: TableId, user: UserId) -> Result<(), Refusal> {
        let held = self.table_mut(id)?.stand(user)?;
        self.seated.remove(&user);
        self.table_changed(id);
        self.stake_changed(id);
        if let Some(agreement) = held {
            // The game these stakes were for will not be played: give them back. The transfer ids
            // come from the agreement, so this is safe to retry, and a restart releases any hold.
            let ledger = self.ctx.ledger.clone();
            tokio::spawn(async move {
                if let Err(err) = ledger
                    .release_hold(id, &agreement.key, &agreement.entries)
                    .await
                {
                    tracing::error!(table = %id, %err, "could not release held stakes");
                }
            });
        }
        Ok(())
    }

    /// Tell the table's watchers and players how its stake dialog stands.
    fn stake_changed(&self, id: TableId) {
        let Some(table) = self.tables.get(&id) else {
            return;
        };
        let audience = Audience {
            table: Some(id),
            users: table.seated_users(),
            ..Audience::default()
        };
        self.publish(
            audience,
            &ServerMsg::StakeUpdated {
                table: id,
                stake: table.stake_info(),
                tax_bp: self.ctx.ledger.tax_bp(),
            },
        );
    }

    /// Offer stakes: each at most that player's balance (the escrow re-checks atomically on agree).
    async fn offer_stake(
        &mut self,
        id: TableId,
        user: UserId,
        amounts: [u64; 2],
        terms: StakeTerms,
    ) -> Result<(), Refusal> {
        let players = self.table(id)?.players()?;
        for (player, amount) in players.into_iter().zip(amounts) {
            let balance = self.ctx.ledger.balance(player).await.map_err(|err| {
                tracing::error!(%err, "store failure");
                Refusal::new(ErrorCode::Internal, "the balance could not be read")
            })?;
            if amount > balance {
                return refuse(
                    ErrorCode::InsufficientPoints,
                    format!("user {player} has only {balance} points"),
                );
            }
        }
        self.table_mut(id)?.offer_stake(user, amounts, terms)?;
        self.stake_changed(id);
        Ok(())
    }

    /// Agree or disagree; when both agree, move the points: into the game in progress at the table
    /// (through its actor, so never after it ended), or into the table's hold for the next game.
    async fn answer_stake(
        &mut self,
        id: TableId,
        user: UserId,
        agree: bool,
    ) -> Result<(), Refusal> {
        let table = self.table_mut(id)?;
        let both = table.answer_stake(user, agree)?;
        if !both {
            self.stake_changed(id);
            return Ok(());
        }
        let players = table.players()?;
        let dialog = table.stake.clone().expect("an answered dialog exists");
        let game = table.game;
        let entries = vec![
            (players[0], dialog.amounts[0]),
            (players[1], dialog.amounts[1]),
        ];
        let student = dialog.student_index().map(|index| players[index]);
        let key = format!("{id}:{}:{}", crate::unix_now_ms(), self.next_stake);
        self.next_stake += 1;
        let moved = match game {
            Some(game) => {
                let handle = self.games.get(game).await?;
                handle
                    .ask(|reply| GameCmd::Stakes {
                        entries,
                        student,
                        hold: None,
                        reply,
                    })
                    .await
            }
            None => self
                .ctx
                .ledger
                .hold_stakes(id, &key, &entries, student.is_some())
                .await
                .map_err(Refusal::from),
        };
        let table = self.table_mut(id)?;
        match moved {
            Ok(()) => table.stake_agreed(key, game)?,
            Err(refusal) => {
                table.stake_failed();
                self.stake_changed(id);
                return Err(refusal);
            }
        }
        self.stake_changed(id);
        Ok(())
    }

    /// A game started at a table with stakes held for it: move them into the game's escrow.
    async fn escrow_held_stakes(&mut self, id: TableId, game: GameId) {
        let Some(table) = self.tables.get_mut(&id) else {
            return;
        };
        let Some(dialog) = table.stake.as_mut() else {
            return;
        };
        let student = dialog.student_index();
        let Some(agreement) = dialog.agreed.as_mut() else {
            // Offers not agreed before the game stay open, now for this game.
            return;
        };
        agreement.game = Some(game);
        let entries = agreement.entries.to_vec();
        let student = student.map(|index| entries[index].0);
        let hold = Some((id, agreement.key.clone()));
        let moved = match self.games.get(game).await {
            Ok(handle) => {
                handle
                    .ask(|reply| GameCmd::Stakes {
                        entries,
                        student,
                        hold,
                        reply,
                    })
                    .await
            }
            Err(refusal) => Err(refusal),
        };
        if let Err(refusal) = moved {
            // The hold stays; the next restart's release returns it.
            tracing::error!(table = %id, %game, %refusal, "could not move held stakes into a game");
        }
        self.stake_changed(id);
    }

    fn propose(
        &mut self,
        id: TableId,
        user: UserId,
        settings: GameSettings,
    ) -> Result<(), Refusal> {
        self.table_mut(id)?.propose(user, settings)?;
        self.table_changed(id);
        Ok(())
    }

    async fn accept(
        &mut self,
        id: TableId,
        user: UserId,
        settings: GameSettings,
    ) -> Result<(), Refusal> {
        let (left, right, settings) = self.table_mut(id)?.confirm(user, &settings)?;
        let summary = self.start_game(Some(id), left, right, settings).await?;
        let table = self.table_mut(id)?;
        table.game = Some(summary.game);
        table.proposal = None;
        self.table_changed(id);
        self.escrow_held_stakes(id, summary.game).await;
        Ok(())
    }

    /// Draw colours if asked, start the game actor, and announce the game.
    async fn start_game(
        &mut self,
        table: Option<TableId>,
        first: PlayerInfo,
        second: PlayerInfo,
        settings: GameSettings,
    ) -> Result<GameSummary, Refusal> {
        let (black, white, nigiri_seed) = if settings.nigiri {
            let seed: u64 = rand::rng().random();
            if first_takes_black(seed) {
                (first, second, Some(seed))
            } else {
                (second, first, Some(seed))
            }
        } else {
            (first, second, None)
        };
        let start = StartGame {
            table,
            black,
            white,
            settings,
            nigiri_seed,
        };
        let summary = self.games.start(start, &self.ctx).await?;
        self.live.insert(summary.game, summary.clone());
        let started = ServerMsg::GameStarted {
            game: summary.game,
            table,
            black: summary.black.clone(),
            white: summary.white.clone(),
        };
        let audience = Audience {
            hall: false,
            room: None,
            table,
            users: [Some(summary.black.user), Some(summary.white.user)],
        };
        self.publish_text(audience, started.to_json().into(), Some(summary.game));
        self.publish(
            hall_audience(),
            &ServerMsg::GameListed {
                game: summary.clone(),
            },
        );
        Ok(summary)
    }

    fn challenge(
        &mut self,
        from: PlayerInfo,
        to: UserId,
        settings: GameSettings,
    ) -> Result<ChallengeId, Refusal> {
        if to == from.user {
            return refuse(ErrorCode::NoSuchUser, "you cannot challenge yourself");
        }
        if !self.online.contains_key(&to) {
            return refuse(ErrorCode::NoSuchUser, format!("user {to} is not online"));
        }
        table::validate_settings(&settings)?;
        let open = self
            .challenges
            .values()
            .filter(|c| c.from.user == from.user)
            .count();
        if open >= CHALLENGES_PER_USER_MAX {
            return refuse(
                ErrorCode::Busy,
                format!("at most {CHALLENGES_PER_USER_MAX} open challenges"),
            );
        }
        let id = ChallengeId(self.next_challenge);
        self.next_challenge += 1;
        let msg = ServerMsg::Challenged {
            challenge: id,
            from: from.clone(),
            settings,
        };
        self.challenges.insert(id, Challenge { from, to, settings });
        self.publish(users_audience([Some(to), None]), &msg);
        Ok(id)
    }

    /// A seeker joins the queue, or plays the first waiting player who fits at once.
    async fn seek(&mut self, seeker: automatch::Seeker) -> Result<(), Refusal> {
        automatch::validate(&seeker)?;
        automatch::remove(&mut self.automatch, seeker.player.user);
        let Some(index) = automatch::find(&self.automatch, &seeker) else {
            if self.automatch.len() >= automatch::AUTOMATCH_QUEUE_MAX {
                return refuse(ErrorCode::Busy, "the automatch queue is full; try again");
            }
            self.automatch.push(seeker);
            return Ok(());
        };
        let other = self.automatch.remove(index);
        let (first, second, settings) = automatch::game_for(&other, &seeker);
        self.start_game(None, first, second, settings)
            .await
            .map(|_| ())
    }

    fn take_challenge(&mut self, id: ChallengeId, user: UserId) -> Result<Challenge, Refusal> {
        match self.challenges.get(&id) {
            Some(c) if c.to == user => Ok(self.challenges.remove(&id).expect("just found")),
            _ => refuse(
                ErrorCode::NoSuchChallenge,
                format!("no open challenge {id} to you"),
            ),
        }
    }

    async fn accept_challenge(&mut self, id: ChallengeId, user: UserId) -> Result<(), Refusal> {
        let challenge = self.take_challenge(id, user)?;
        let to = self
            .online
            .get(&user)
            .map(|(p, _)| p.clone())
            .ok_or_else(|| Refusal::new(ErrorCode::NotLoggedIn, "you are not online"))?;
        self.start_game(None, challenge.from, to, challenge.settings)
            .await
            .map(|_| ())
    }

    fn decline_challenge(&mut self, id: ChallengeId, user: UserId) -> Result<(), Refusal> {
        let challenge = self.take_challenge(id, user)?;
        self.publish(
            users_audience([Some(challenge.from.user), None]),
            &ServerMsg::ChallengeDeclined { challenge: id },
        );
        Ok(())
    }

    fn chat(
        &mut self,
        channel: ChatChannel,
        from: PlayerInfo,
        text: String,
        at_ms: u64,
    ) -> Result<(), Refusal> {
        let text = chat::validate(&text)?;
        let audience = match channel {
            ChatChannel::Room { room } => {
                let members = self.rooms.get(&room).ok_or_else(|| {
                    Refusal::new(ErrorCode::NoSuchRoom, format!("no room {room}"))
                })?;
                if !members.users.contains_key(&from.user) {
                    return refuse(ErrorCode::NotThere, "you are not in that room");
                }
                Audience {
                    room: Some(room),
                    ..Audience::default()
                }
            }
            ChatChannel::Table { table } => {
                let table = self.table(table)?;
                if table.seat_of(from.user).is_none() {
                    return refuse(ErrorCode::NotSeated, "table chat is for the two players");
                }
                users_audience(table.seated_users())
            }
            ChatChannel::Kibitz { .. } => {
                return refuse(ErrorCode::BadMessage, "kibitz goes to the game");
            }
        };
        let frame = chat::frame(channel, from, text, at_ms);
        self.publish_text(audience, frame.into(), None);
        Ok(())
    }

    fn push_balances(&self, balances: Vec<(UserId, u64)>) {
        let tax_bp = self.ctx.ledger.tax_bp();
        for (user, balance) in balances {
            let audience = Audience {
                users: [Some(user), None],
                ..Audience::default()
            };
            let msg = ServerMsg::Balance {
                id: None,
                balance,
                tax_bp,
            };
            self.publish(audience, &msg);
        }
    }

    fn game_ended(&mut self, game: GameId, table: Option<TableId>) {
        self.live.remove(&game);
        self.publish(hall_audience(), &ServerMsg::GameUnlisted { game });
        let Some(id) = table else {
            return;
        };
        let Some(t) = self.tables.get_mut(&id) else {
            return;
        };
        if t.game == Some(game) {
            t.game = None;
            // The stakes were for this game: they lapse with it (settled by the game itself).
            if t.stake.as_ref().is_some_and(|d| d.agreed.is_some()) {
                t.stake = None;
                self.stake_changed(id);
            }
        }
        let Some(t) = self.tables.get_mut(&id) else {
            return;
        };
        // Seats were kept for players who dropped during the game; with the game over, free them.
        let gone: Vec<UserId> = t
            .seated_users()
            .into_iter()
            .flatten()
            .filter(|user| !self.online.contains_key(user))
            .collect();
        for user in gone {
            let _ = self.stand(id, user);
        }
        self.table_changed(id);
    }

    /// Put a restored game back on its table, with its players seated again.
    fn game_restored(&mut self, summary: GameSummary) {
        if let Some(id) = summary.table {
            if let Some(table) = self.tables.get_mut(&id) {
                table.left = Some(summary.black.clone());
                table.right = Some(summary.white.clone());
                table.game = Some(summary.game);
                self.seated.insert(summary.black.user, id);
                self.seated.insert(summary.white.user, id);
            }
        }
        self.live.insert(summary.game, summary);
    }
}

/// The nigiri draw: whether the first player (left seat or challenger) takes Black. The seed comes
/// from a CSPRNG seeded by the operating system (`rand::rng()`) and the draw is its lowest bit, so the rule is portable and anyone
/// can check a recorded draw by hand.
pub fn first_takes_black(seed: u64) -> bool {
    seed % 2 == 0
}

fn table_frame(table: &Table) -> Frame {
    ServerMsg::TableUpdated {
        table: table.info(),
    }
    .to_json()
    .into()
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
    use super::first_takes_black;
    use rand::Rng;

    #[test]
    fn nigiri_is_a_fair_function_of_the_seed() {
        let mut rng = rand::rng();
        let black_count = (0..10_000)
            .filter(|_| first_takes_black(rng.random()))
            .count();
        // Five standard deviations either side of 5,000: fails by chance far less than once in a million.
        assert!((4_750..=5_250).contains(&black_count), "{black_count}");
        assert!(first_takes_black(42) && !first_takes_black(43));
    }
}
