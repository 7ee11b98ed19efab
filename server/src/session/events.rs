//! A connection and competitions: creating one (and directing it), entering and leaving, the
//! director's rounds and actions, and reading an event or the list. Each is one [`EventRequest`]; the
//! hall keeps the events and pushes their changes to entrants and the lobby.

use tengen_protocol::{ClientMsg, EventId, RequestId, ServerMsg};

use super::{misrouted, Answer, Session};
use crate::hall::{EventRequest, HallReply, HallRequest};
use crate::Refusal;

impl Session {
    /// The event messages (`Session::handle` passes only these here), each one [`EventRequest`]
    /// made as the logged-in user (the director, for the director's actions).
    pub(super) async fn event_message(
        &self,
        id: Option<RequestId>,
        msg: ClientMsg,
    ) -> Result<Answer, Refusal> {
        use ClientMsg as M;
        use EventRequest as E;
        let request = match msg {
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
            M::ListEvents { before } => return self.list_events(id, before).await,
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
            other => return Err(misrouted(&other)),
        };
        self.event_reply(id, request).await
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
        Ok(Answer::Msg(Box::new(ServerMsg::EventList { id, events })))
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
        Ok(Answer::Msg(Box::new(ServerMsg::Event {
            id,
            event: Box::new(view),
        })))
    }
}
