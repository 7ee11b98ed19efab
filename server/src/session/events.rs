//! A connection and competitions: creating one (and directing it), entering and leaving, the
//! director's rounds and actions, and reading an event or the list. Each is one [`EventRequest`]; the
//! hall keeps the events and pushes their changes to entrants and the lobby.

use tengen_protocol::{EventId, EventsMsg, EventsServerMsg, GameId, RequestId};

use super::{Answer, Session};
use crate::competition::EventRequest;
use crate::game::GameRequest;
use crate::hall::{HallReply, HallRequest};
use crate::Refusal;

impl Session {
    /// The event messages (`Session::handle` passes only these here): most are one
    /// [`EventRequest`] made as the logged-in user (the director, for the director's actions); those
    /// that act on an event's game go on to the game.
    pub(super) async fn event_message(
        &self,
        id: Option<RequestId>,
        msg: EventsMsg,
    ) -> Result<Answer, Refusal> {
        use EventsMsg as M;
        match msg {
            M::ListEvents { before } => self.list_events(id, before).await,
            msg @ (M::EventPause { .. }
            | M::EventResume { .. }
            | M::EventAdjourn { .. }
            | M::SealMove { .. }) => self.event_game_message(msg).await,
            msg => {
                let request = self.event_request(msg)?;
                self.event_reply(id, request).await
            }
        }
    }

    /// The hall's request for an event message, made as the logged-in user.
    fn event_request(&self, msg: EventsMsg) -> Result<EventRequest, Refusal> {
        use EventRequest as E;
        use EventsMsg as M;
        Ok(match msg {
            M::CreateEvent { spec } => E::CreateEvent {
                director: self.player()?,
                spec,
            },
            M::JoinEvent { event } => E::JoinEvent {
                event,
                player: self.player()?,
            },
            M::LeaveEvent { event } => E::LeaveEvent {
                event,
                user: self.user()?,
            },
            M::StartRound { event } => E::StartRound {
                event,
                user: self.user()?,
            },
            M::GetEvent { event } => E::GetEvent { event },
            M::EventWithdraw { event, user } => E::EventWithdraw {
                event,
                director: self.user()?,
                user,
            },
            M::EventWarn { event, user } => E::EventWarn {
                event,
                director: self.user()?,
                user,
            },
            M::EventAdjudicate {
                event,
                game,
                outcome,
                reason,
            } => E::EventAdjudicate {
                event,
                director: self.user()?,
                game,
                outcome,
                reason,
            },
            M::CreateTeam { event, name } => E::CreateTeam {
                event,
                player: self.player()?,
                name,
            },
            M::JoinTeam { event, team } => E::JoinTeam {
                event,
                player: self.player()?,
                team,
            },
            M::SetLineUp { event, players } => E::SetLineUp {
                event,
                captain: self.user()?,
                players,
            },
            other => return Err(Refusal::misrouted(&other)),
        })
    }

    /// The director's pause, resumption and adjournment of an event's game, and a player's sealed
    /// move: each answered `ack` once the game has it.
    async fn event_game_message(&self, msg: EventsMsg) -> Result<Answer, Refusal> {
        use EventsMsg as M;
        match msg {
            M::EventPause {
                event,
                game,
                resume_at_ms,
            } => {
                let pause = GameRequest::Pause { resume_at_ms };
                self.direct_game(event, game, pause).await
            }
            M::EventResume { event, game } => {
                self.direct_game(event, game, GameRequest::Resume).await
            }
            M::EventAdjourn {
                event,
                game,
                resume_at_ms,
            } => {
                let adjourn = GameRequest::Adjourn { resume_at_ms };
                self.direct_game(event, game, adjourn).await
            }
            M::SealMove { game, point } => {
                self.game_ack(game, |user| GameRequest::Seal { user, point })
                    .await
            }
            other => Err(Refusal::misrouted(&other)),
        }
    }

    /// The director's action on a game of their event: the hall checks that they direct it and the
    /// game is in its round, then the game does it (durably) and the director hears `ack`.
    async fn direct_game(
        &self,
        event: EventId,
        game: GameId,
        request: GameRequest,
    ) -> Result<Answer, Refusal> {
        let directed = EventRequest::EventGameDirected {
            event,
            director: self.user()?,
            game,
        };
        self.state
            .hall
            .ask(HallRequest::Event(directed))
            .await?
            .done()?;
        self.game(game).await?.ask(request).await?.done()?;
        Ok(Answer::Ack)
    }

    async fn list_events(
        &self,
        id: Option<RequestId>,
        before: Option<EventId>,
    ) -> Result<Answer, Refusal> {
        let events = self
            .state
            .hall
            .ask(HallRequest::Event(EventRequest::ListEvents { before }))
            .await?
            .events()?;
        Ok(Answer::msg(EventsServerMsg::EventList { id, events }))
    }

    /// Ask the hall `request` and answer with the event's view.
    async fn event_reply(
        &self,
        id: Option<RequestId>,
        request: EventRequest,
    ) -> Result<Answer, Refusal> {
        let view = self
            .state
            .hall
            .ask(HallRequest::Event(request))
            .await
            .and_then(HallReply::event)?;
        Ok(Answer::msg(EventsServerMsg::Event {
            id,
            event: Box::new(view),
        }))
    }
}
