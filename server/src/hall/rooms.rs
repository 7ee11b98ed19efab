//! Rooms and who is where: users coming online and their sessions going away (which frees what
//! they held: room places, watched tables, seats without a game, challenges, their automatch
//! place), joining and leaving rooms, the `hall` and `room` snapshots, and room and table chat,
//! whose recipients are a room's members and a table's two players.

use std::collections::{BTreeMap, VecDeque};

use tengen_protocol::{
    ChatChannel, ChatLine, ChatLineId, ErrorCode, EventPlacing, HallServerMsg, PlayerInfo, RoomId,
    RoomInfo, ServerMsg, TableId, UserId,
};

use super::request::Presence;
use super::{automatch, hall_recipients, refuse, users_recipients, Hall, Recipients, Relisting};
use crate::chat;
use crate::config::{RECENTLY_GONE_MAX, ROOM_CHAT_KEPT};
use crate::{Frame, Refusal};

/// A room's name and who is in it.
#[derive(Debug)]
pub(super) struct Room {
    pub(super) id: RoomId,
    pub(super) name: String,
    /// Logged-in users in the room, with how many of their sessions are; bounded by sessions online.
    pub(super) users: BTreeMap<UserId, (PlayerInfo, u32)>,
    pub(super) tables: Vec<TableId>,
    /// The last [`ROOM_CHAT_KEPT`] chat lines, oldest first, sent to whoever enters.
    pub(super) recent_chat: VecDeque<ChatLine>,
}

impl Hall {
    pub(super) fn online(&mut self, player: PlayerInfo) {
        let entry = self
            .online
            .entry(player.user)
            .or_insert_with(|| (player.clone(), 0));
        entry.1 += 1;
        if entry.1 == 1 {
            self.recently_gone.remove(&player.user);
            // Their followers are told once their relations are loaded (see `relations_loaded`).
            self.load_relations(player.user);
            self.publish(
                hall_recipients(),
                &HallServerMsg::PlayerOnline { player }.into(),
            );
        }
    }

    /// A player's listing changed (a rated game moved their rank or rating): every list that
    /// shows them takes the new one and is pushed (the hall's players, their room, the table they
    /// sit at, the live games they play), and their own connections hear it (a [`Relisting`]). The
    /// events they entered or direct are the competitions' to relist.
    pub(super) fn relist_player(&mut self, player: PlayerInfo) {
        let user = player.user;
        if let Some(entry) = self.online.get_mut(&user) {
            entry.0 = player.clone();
            let msg = ServerMsg::Hall(HallServerMsg::PlayerOnline {
                player: player.clone(),
            });
            self.publish(hall_recipients(), &msg);
        }
        let mut rooms = Vec::new();
        for room in self.rooms.values_mut() {
            if let Some(entry) = room.users.get_mut(&user) {
                entry.0 = player.clone();
                rooms.push(room.id);
            }
        }
        for room in rooms {
            let msg = ServerMsg::Hall(HallServerMsg::RoomJoined {
                room,
                player: player.clone(),
            });
            let recipients = Recipients {
                room: Some(room),
                ..Recipients::default()
            };
            self.publish(recipients, &msg);
        }
        if let Some(&table) = self.seated.get(&user) {
            if let Some(table) = self.tables.get_mut(&table) {
                for seated in [&mut table.left, &mut table.right].into_iter().flatten() {
                    if seated.user == user {
                        *seated = player.clone();
                    }
                }
            }
            self.table_changed(table);
        }
        self.relist_live_games(&player);
        self.friend_changed(&player);
        let text = Relisting { player }.frame();
        self.publish_text(users_recipients([Some(user), None]), text, None);
    }

    /// Keep when `user`'s last connection ended, for their profile: at once in the hall, and in the
    /// store beside the hall's work (it never waits on the store); a failed write only leaves an
    /// older time there.
    fn remember_last_seen(&mut self, user: UserId) {
        let store = self.ctx.store.clone();
        let now_ms = crate::unix_now_ms();
        if self.recently_gone.len() >= RECENTLY_GONE_MAX {
            self.recently_gone.clear();
        }
        self.recently_gone.insert(user, now_ms);
        tokio::spawn(async move {
            let written = store.call(move |store| store.set_last_seen(user, now_ms));
            if let Err(err) = written.await {
                tracing::warn!(%user, %err, "could not keep when a user was last seen");
            }
        });
    }

    /// What the hall knows of `user` now, for their profile, with the events they entered.
    pub(super) fn presence(&self, user: UserId, events: Vec<EventPlacing>) -> Presence {
        let playing = self
            .live
            .values()
            .filter(|game| game.black.user == user || game.white.user == user)
            .map(|game| game.game)
            .collect();
        Presence {
            online: self.online.contains_key(&user),
            left_at_ms: self.recently_gone.get(&user).copied(),
            playing,
            events,
        }
    }

    pub(super) fn session_gone(
        &mut self,
        user: Option<UserId>,
        room: Option<RoomId>,
        tables: Vec<TableId>,
    ) {
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
        if let Some((player, _)) = self.online.remove(&user) {
            self.friend_changed(&player);
        }
        self.forget_relations(user);
        self.remember_last_seen(user);
        automatch::remove(&mut self.automatch, user);
        self.publish(
            hall_recipients(),
            &HallServerMsg::PlayerOffline { user }.into(),
        );
        self.withdraw_challenges(user);
        // A player keeps their seat through a disconnect only while a game is on; otherwise the seat
        // is freed so the table does not look taken by someone who is gone.
        if let Some(&table) = self.seated.get(&user) {
            if self.tables.get(&table).is_some_and(|t| t.game.is_none()) {
                let _ = self.stand(table, user);
            }
        }
    }

    pub(super) fn hall_frame(&self) -> Frame {
        ServerMsg::Hall(HallServerMsg::Hall {
            rooms: self.rooms.values().map(Self::room_info).collect(),
            players: self.online.values().map(|(p, _)| p.clone()).collect(),
            games: self.live.values().map(|game| self.listing(game)).collect(),
        })
        .to_json()
        .into()
    }

    fn room_info(room: &Room) -> RoomInfo {
        RoomInfo {
            room: room.id,
            name: room.name.clone(),
            users_count: room.users.len() as u32,
            tables_count: room.tables.len() as u32,
        }
    }

    pub(super) fn room_changed(&self, id: RoomId) {
        if let Some(room) = self.rooms.get(&id) {
            let msg = ServerMsg::Hall(HallServerMsg::RoomUpdated {
                room: Self::room_info(room),
            });
            self.publish(hall_recipients(), &msg);
        }
    }

    pub(super) fn join_room(
        &mut self,
        id: RoomId,
        player: Option<PlayerInfo>,
    ) -> Result<Frame, Refusal> {
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
            let recipients = Recipients {
                room: Some(id),
                ..Recipients::default()
            };
            self.publish(
                recipients,
                &HallServerMsg::RoomJoined { room: id, player }.into(),
            );
            self.room_recount.insert(id);
        }
        Ok(frame)
    }

    pub(super) fn room_frame(&self, id: RoomId) -> Result<Frame, Refusal> {
        let room = self
            .rooms
            .get(&id)
            .ok_or_else(|| Refusal::new(ErrorCode::NoSuchRoom, format!("no room {id}")))?;
        Ok(ServerMsg::Hall(HallServerMsg::Room {
            room: id,
            name: room.name.clone(),
            tables: room.tables.iter().map(|t| self.tables[t].info()).collect(),
            users: room.users.values().map(|(p, _)| p.clone()).collect(),
            recent_chat: room.recent_chat.iter().cloned().collect(),
        })
        .to_json()
        .into())
    }

    pub(super) fn leave_room(&mut self, id: RoomId, user: Option<UserId>) -> Result<(), Refusal> {
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
            let recipients = Recipients {
                room: Some(id),
                ..Recipients::default()
            };
            self.publish(
                recipients,
                &HallServerMsg::RoomLeft { room: id, user }.into(),
            );
            self.room_recount.insert(id);
        }
        Ok(())
    }

    pub(super) fn chat(
        &mut self,
        channel: ChatChannel,
        from: PlayerInfo,
        (text, at_ms): (String, u64),
        line: Option<ChatLineId>,
    ) -> Result<(), Refusal> {
        let text = chat::validate(&text)?;
        let recipients = match channel {
            ChatChannel::Room { room } => {
                let members = self.rooms.get(&room).ok_or_else(|| {
                    Refusal::new(ErrorCode::NoSuchRoom, format!("no room {room}"))
                })?;
                if !members.users.contains_key(&from.user) {
                    return refuse(ErrorCode::NotThere, "you are not in that room");
                }
                Recipients {
                    room: Some(room),
                    ..Recipients::default()
                }
            }
            ChatChannel::Table { table } => {
                let table = self.table(table)?;
                if table.seat_of(from.user).is_none() {
                    return refuse(ErrorCode::NotSeated, "table chat is for the two players");
                }
                users_recipients(table.seated_users())
            }
            ChatChannel::Kibitz { .. } | ChatChannel::Game { .. } => {
                return refuse(ErrorCode::BadMessage, "a game's chat goes to the game");
            }
        };
        if let ChatChannel::Room { room } = channel {
            self.keep_room_chat(
                room,
                ChatLine {
                    from: from.clone(),
                    text: text.clone(),
                    at_ms,
                    line,
                },
            );
        }
        let frame = chat::frame(channel, from, (text, at_ms), line);
        self.publish_text(recipients, frame.into(), None);
        Ok(())
    }

    /// A moderator removed `line`: a room forgets it from its recent chat; whoever may have it on
    /// screen (the room, the table's players) is told to drop it.
    pub(super) fn remove_chat(&mut self, channel: ChatChannel, line: ChatLineId) {
        let recipients = match channel {
            ChatChannel::Room { room } => {
                if let Some(room) = self.rooms.get_mut(&room) {
                    room.recent_chat.retain(|kept| kept.line != Some(line));
                }
                Recipients {
                    room: Some(room),
                    ..Recipients::default()
                }
            }
            ChatChannel::Table { table } => match self.table(table) {
                Ok(table) => users_recipients(table.seated_users()),
                // The table is gone, and its players' chat with it.
                Err(_) => return,
            },
            ChatChannel::Kibitz { .. } | ChatChannel::Game { .. } => return,
        };
        self.publish(
            recipients,
            &HallServerMsg::ChatRemoved { channel, line }.into(),
        );
    }

    fn keep_room_chat(&mut self, room: RoomId, line: ChatLine) {
        let Some(room) = self.rooms.get_mut(&room) else {
            return;
        };
        if room.recent_chat.len() >= ROOM_CHAT_KEPT {
            room.recent_chat.pop_front();
        }
        room.recent_chat.push_back(line);
    }
}
