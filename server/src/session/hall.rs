//! A connection in the hall: the lists, rooms, tables and seats, settings and challenges, the
//! automatch queue, room and table chat, and the hall's pushes this connection receives (with a
//! resync after missing some). Each request becomes one [`HallRequest`] for the hall actor.

use tengen_protocol::{
    ChallengeId, ChatChannel, ChatLineId, ErrorCode, GameSettings, HallMsg, HallServerMsg,
    PlayerInfo, RequestId, RoomId, Seat, TableId, TimeClass, UserId,
};
use tokio::sync::broadcast;

use super::{Answer, Next, Session, CLOSE_GOING_AWAY, TABLES_PER_SESSION_MAX};
use crate::game::GameRequest;
use crate::hall::{
    automatch::Seeker, HallEvent, HallRequest, Recipients, RelationChange, Relisting, Revocation,
};
use crate::{moderation, refuse, unix_now_ms, Refusal};

impl Session {
    /// The hall's messages (`Session::handle` passes only these here).
    pub(super) async fn hall_message(
        &mut self,
        id: Option<RequestId>,
        msg: HallMsg,
    ) -> Result<Answer, Refusal> {
        use HallMsg as M;
        match msg {
            M::EnterHall => self.enter_hall().await,
            M::LeaveHall => self.leave_hall(),
            M::JoinRoom { room } => self.join_room(room).await,
            M::LeaveRoom => self.leave_current_room().await,
            M::JoinTable { table } => self.join_table(table).await,
            M::LeaveTable { table } => self.leave_table(table).await,
            M::Sit { table, seat } => self.sit(table, seat).await,
            M::Stand { table } => self.stand(table).await,
            M::ProposeSettings { table, settings } => self.propose(table, settings).await,
            M::AcceptSettings { table, settings } => self.accept(table, settings).await,
            M::Challenge { user, settings } => self.challenge(id, user, settings).await,
            M::AcceptChallenge { challenge } => self.accept_challenge(challenge).await,
            M::DeclineChallenge { challenge } => self.decline_challenge(challenge).await,
            M::Automatch {
                size,
                time_class,
                rank_range,
            } => self.automatch(size, time_class, rank_range).await,
            M::CancelAutomatch => self.cancel_automatch().await,
            M::Chat { channel, text } => self.chat(channel, text).await,
        }
    }

    /// The logged-in user's request to the hall, acknowledged once the hall took it.
    pub(super) async fn hall_ack(
        &self,
        make: impl FnOnce(UserId) -> HallRequest,
    ) -> Result<Answer, Refusal> {
        let user = self.user()?;
        self.state.hall.ask(make(user)).await?.done()?;
        Ok(Answer::Ack)
    }

    pub(super) async fn enter_hall(&mut self) -> Result<Answer, Refusal> {
        // Subscribed before the snapshot is taken, so no update falls between them.
        let lobby = self.state.hall.subscribe_lobby();
        let frame = self
            .state
            .hall
            .ask(HallRequest::HallSnapshot)
            .await?
            .frame()?;
        self.pushes.push(frame);
        if !self.in_hall {
            self.lobby = Some(lobby);
        }
        self.in_hall = true;
        Ok(Answer::Ack)
    }

    pub(super) fn leave_hall(&mut self) -> Result<Answer, Refusal> {
        self.in_hall = false;
        Ok(Answer::Ack)
    }

    pub(super) async fn join_room(&mut self, room: RoomId) -> Result<Answer, Refusal> {
        if let Some(current) = self.room {
            self.leave_room(current).await?;
        }
        let player = self.player.clone();
        let join = HallRequest::JoinRoom { room, player };
        let frame = self.state.hall.ask(join).await?.frame()?;
        self.pushes.push(frame);
        self.room = Some(room);
        Ok(Answer::Ack)
    }

    pub(super) async fn leave_current_room(&mut self) -> Result<Answer, Refusal> {
        let room = self
            .room
            .ok_or_else(|| Refusal::new(ErrorCode::NotThere, "you are in no room"))?;
        self.leave_room(room).await?;
        Ok(Answer::Ack)
    }

    pub(super) async fn leave_room(&mut self, room: RoomId) -> Result<(), Refusal> {
        let user = self.player.as_ref().map(|p| p.user);
        let leave = HallRequest::LeaveRoom { room, user };
        self.state.hall.ask(leave).await?.done()?;
        self.room = None;
        Ok(())
    }

    pub(super) async fn join_table(&mut self, table: TableId) -> Result<Answer, Refusal> {
        if self.tables.contains(&table) {
            let snapshot = HallRequest::TableSnapshot { table };
            let frame = self.state.hall.ask(snapshot).await?.frame()?;
            self.pushes.push(frame);
            return Ok(Answer::Ack);
        }
        if self.tables.len() >= TABLES_PER_SESSION_MAX {
            return refuse(
                ErrorCode::Busy,
                format!("watch at most {TABLES_PER_SESSION_MAX} tables at once"),
            );
        }
        let join = HallRequest::JoinTable { table };
        let (frame, game) = self.state.hall.ask(join).await?.table()?;
        self.tables.insert(table);
        self.pushes.push(frame);
        if let Some(game) = game {
            // Watching a table means watching its game; a game that just ended is simply missed.
            let _ = self.watch(game).await;
        }
        Ok(Answer::Ack)
    }

    pub(super) async fn leave_table(&mut self, table: TableId) -> Result<Answer, Refusal> {
        let user = self.player.as_ref().map(|p| p.user);
        let watching = self.tables.contains(&table);
        let leave = HallRequest::LeaveTable {
            table,
            user,
            watching,
        };
        self.state.hall.ask(leave).await?.done()?;
        self.tables.remove(&table);
        Ok(Answer::Ack)
    }

    pub(super) async fn sit(&self, table: TableId, seat: Seat) -> Result<Answer, Refusal> {
        let player = self.player()?;
        let sit = HallRequest::Sit {
            table,
            seat,
            player,
        };
        self.state.hall.ask(sit).await?.done()?;
        Ok(Answer::Ack)
    }

    pub(super) async fn stand(&self, table: TableId) -> Result<Answer, Refusal> {
        self.hall_ack(|user| HallRequest::Stand { table, user })
            .await
    }

    pub(super) async fn propose(
        &self,
        table: TableId,
        settings: GameSettings,
    ) -> Result<Answer, Refusal> {
        self.hall_ack(|user| HallRequest::Propose {
            table,
            user,
            settings,
        })
        .await
    }

    pub(super) async fn accept(
        &self,
        table: TableId,
        settings: GameSettings,
    ) -> Result<Answer, Refusal> {
        self.hall_ack(|user| HallRequest::Accept {
            table,
            user,
            settings,
        })
        .await
    }

    pub(super) async fn challenge(
        &self,
        id: Option<RequestId>,
        to: UserId,
        settings: GameSettings,
    ) -> Result<Answer, Refusal> {
        let from = self.player()?;
        let challenge = HallRequest::Challenge { from, to, settings };
        let challenge = self.state.hall.ask(challenge).await?.challenge()?;
        Ok(Answer::msg(HallServerMsg::ChallengeSent {
            id,
            challenge,
            to,
        }))
    }

    pub(super) async fn accept_challenge(&self, challenge: ChallengeId) -> Result<Answer, Refusal> {
        self.hall_ack(|user| HallRequest::AcceptChallenge { challenge, user })
            .await
    }

    pub(super) async fn decline_challenge(
        &self,
        challenge: ChallengeId,
    ) -> Result<Answer, Refusal> {
        self.hall_ack(|user| HallRequest::DeclineChallenge { challenge, user })
            .await
    }

    pub(super) async fn automatch(
        &self,
        size: u8,
        time_class: TimeClass,
        rank_range: u8,
    ) -> Result<Answer, Refusal> {
        let seeker = Seeker {
            player: self.player()?,
            size,
            time_class,
            rank_range,
        };
        self.state
            .hall
            .ask(HallRequest::Automatch { seeker })
            .await?
            .done()?;
        Ok(Answer::Ack)
    }

    pub(super) async fn cancel_automatch(&self) -> Result<Answer, Refusal> {
        self.hall_ack(|user| HallRequest::CancelAutomatch { user })
            .await
    }

    /// Room and table chat go to the hall; kibitz to the game. The line is kept first (refused if a
    /// moderator muted its sender), which gives it its id; a line its channel then refuses is
    /// forgotten again.
    pub(super) async fn chat(
        &mut self,
        channel: ChatChannel,
        text: String,
    ) -> Result<Answer, Refusal> {
        let from = self.player()?;
        let at_ms = unix_now_ms();
        let text = crate::chat::validate(&text)?;
        if matches!(channel, ChatChannel::Room { room } if self.room != Some(room)) {
            return refuse(ErrorCode::NotThere, "you are not in that room");
        }
        let state = &self.state;
        let said = (text.clone(), at_ms);
        let line =
            moderation::keep_chat_line(&state.store, &state.moderation, &from, channel, said)
                .await?;
        if let Err(refusal) = self.show_chat(channel, from, (text, at_ms), line).await {
            moderation::forget_chat_line(&self.state.store, line).await;
            return Err(refusal);
        }
        Ok(Answer::Ack)
    }

    /// Hand a kept line to the hall or its game, which checks who may say it there and shows it.
    async fn show_chat(
        &mut self,
        channel: ChatChannel,
        from: PlayerInfo,
        (text, at_ms): (String, u64),
        line: ChatLineId,
    ) -> Result<(), Refusal> {
        let line = Some(line);
        match channel {
            ChatChannel::Kibitz { game } => {
                let kibitz = GameRequest::Kibitz {
                    from,
                    text,
                    at_ms,
                    line,
                };
                self.game(game).await?.ask(kibitz).await?.done()
            }
            ChatChannel::Game { game } => {
                let chat = GameRequest::PlayerChat {
                    from,
                    text,
                    at_ms,
                    line,
                };
                self.game(game).await?.ask(chat).await?.done()
            }
            ChatChannel::Room { .. } | ChatChannel::Table { .. } => {
                let chat = HallRequest::Chat {
                    channel,
                    from,
                    text,
                    at_ms,
                    line,
                };
                self.state.hall.ask(chat).await?.done()
            }
        }
    }

    /// Whether a hall push is addressed to this connection.
    fn wants(&self, recipients: &Recipients) -> bool {
        let user = self.player.as_ref().map(|p| p.user);
        (recipients.hall && self.in_hall)
            || (recipients.room.is_some() && recipients.room == self.room)
            || recipients.table.is_some_and(|t| self.tables.contains(&t))
            || (user.is_some() && recipients.users.contains(&user))
    }

    /// This user's new listing (after a rated game): what this connection says of its user from now
    /// on (sitting, challenging, a new game) carries it.
    fn on_relisted(&mut self, player: PlayerInfo) {
        if let Some(own) = self.player.as_mut().filter(|own| own.user == player.user) {
            *own = player;
        }
    }

    pub(super) async fn on_hall_event(
        &mut self,
        event: Result<HallEvent, broadcast::error::RecvError>,
    ) -> Next {
        match event {
            Ok(event) => {
                if self.wants(&event.recipients) {
                    if let Some(revocation) = Revocation::from_frame(event.text.as_str()) {
                        return self.on_revoked(revocation).await;
                    }
                    if let Some(relisting) = Relisting::from_frame(event.text.as_str()) {
                        self.on_relisted(relisting.player);
                        return Next::Continue;
                    }
                    if let Some(change) = RelationChange::from_frame(event.text.as_str()) {
                        if let Some(me) = self.player.as_ref().map(|p| p.user) {
                            self.screen.apply(me, &change);
                        }
                        return Next::Continue;
                    }
                    self.pushes.push(event.text);
                    if let Some(game) = event.started_game {
                        // A game that ended already is simply missed.
                        let _ = self.watch(game).await;
                    }
                }
                Next::Continue
            }
            Err(broadcast::error::RecvError::Lagged(_)) => {
                self.resync_hall().await;
                Next::Continue
            }
            Err(broadcast::error::RecvError::Closed) => {
                Next::Close(CLOSE_GOING_AWAY, "server shutting down")
            }
        }
    }

    /// After missing hall pushes: send fresh snapshots of everything this connection follows.
    async fn resync_hall(&mut self) {
        let mut snapshots = Vec::new();
        if self.in_hall {
            snapshots.push(HallRequest::HallSnapshot);
        }
        if let Some(room) = self.room {
            snapshots.push(HallRequest::RoomSnapshot { room });
        }
        for &table in &self.tables {
            snapshots.push(HallRequest::TableSnapshot { table });
        }
        for snapshot in snapshots {
            if let Ok(frame) = self.state.hall.ask(snapshot).await.and_then(|r| r.frame()) {
                self.pushes.push(frame);
            }
        }
    }

    /// The user's `online` notice to the hall, on logging in.
    pub(super) async fn tell_online(&self, player: PlayerInfo) -> Result<(), Refusal> {
        self.state.hall.tell(HallRequest::Online { player }).await
    }
}
