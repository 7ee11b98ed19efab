//! A connection and competitions: creating one (and directing it), entering and leaving, the
//! director starting rounds, and reading an event or the list. Each is one [`HallRequest`]; the
//! hall keeps the events and pushes their changes to entrants and the lobby.

use tengen_protocol::{
    ClientMsg, EventId, EventOutcome, EventSpec, GameId, RequestId, ServerMsg, UserId,
};

use super::{misrouted, Answer, Session};
use crate::hall::{EventRequest, HallReply, HallRequest};
use crate::Refusal;

impl Session {
    /// The event messages (`Session::handle` passes only these here).
    pub(super) async fn event_message(
        &self,
        id: Option<RequestId>,
        msg: ClientMsg,
    ) -> Result<Answer, Refusal> {
        use ClientMsg as M;
        match msg {
            M::CreateEvent { spec } => self.create_event(id, spec).await,
            M::JoinEvent { event } => self.join_event(id, event).await,
            M::LeaveEvent { event } => self.leave_event(id, event).await,
            M::StartRound { event } => self.start_round(id, event).await,
            M::GetEvent { event } => self.get_event(id, event).await,
            M::ListEvents => self.list_events(id).await,
            M::EventWithdraw { event, user } => self.event_withdraw(id, event, user).await,
            M::EventWarn { event, user } => self.event_warn(id, event, user).await,
            M::EventAdjudicate {
                event,
                game,
                outcome,
                reason,
            } => {
                self.event_adjudicate(id, (event, game), outcome, reason)
                    .await
            }
            other => Err(misrouted(&other)),
        }
    }

    pub(super) async fn create_event(
        &self,
        id: Option<RequestId>,
        spec: EventSpec,
    ) -> Result<Answer, Refusal> {
        let director = self.player()?;
        self.event_reply(id, EventRequest::CreateEvent { director, spec })
            .await
    }

    pub(super) async fn join_event(
        &self,
        id: Option<RequestId>,
        event: EventId,
    ) -> Result<Answer, Refusal> {
        let player = self.player()?;
        self.event_reply(id, EventRequest::JoinEvent { event, player })
            .await
    }

    pub(super) async fn leave_event(
        &self,
        id: Option<RequestId>,
        event: EventId,
    ) -> Result<Answer, Refusal> {
        let user = self.user()?;
        self.event_reply(id, EventRequest::LeaveEvent { event, user })
            .await
    }

    pub(super) async fn start_round(
        &self,
        id: Option<RequestId>,
        event: EventId,
    ) -> Result<Answer, Refusal> {
        let user = self.user()?;
        self.event_reply(id, EventRequest::StartRound { event, user })
            .await
    }

    pub(super) async fn get_event(
        &self,
        id: Option<RequestId>,
        event: EventId,
    ) -> Result<Answer, Refusal> {
        self.event_reply(id, EventRequest::GetEvent { event }).await
    }

    pub(super) async fn event_withdraw(
        &self,
        id: Option<RequestId>,
        event: EventId,
        user: UserId,
    ) -> Result<Answer, Refusal> {
        let director = self.user()?;
        let withdraw = EventRequest::EventWithdraw {
            event,
            director,
            user,
        };
        self.event_reply(id, withdraw).await
    }

    pub(super) async fn event_warn(
        &self,
        id: Option<RequestId>,
        event: EventId,
        user: UserId,
    ) -> Result<Answer, Refusal> {
        let director = self.user()?;
        let warn = EventRequest::EventWarn {
            event,
            director,
            user,
        };
        self.event_reply(id, warn).await
    }

    pub(super) async fn event_adjudicate(
        &self,
        id: Option<RequestId>,
        (event, game): (EventId, GameId),
        outcome: EventOutcome,
        reason: String,
    ) -> Result<Answer, Refusal> {
        let director = self.user()?;
        let adjudicate = EventRequest::EventAdjudicate {
            event,
            director,
            game,
            outcome,
            reason,
        };
        self.event_reply(id, adjudicate).await
    }

    pub(super) async fn list_events(&self, id: Option<RequestId>) -> Result<Answer, Refusal> {
        let events = self
            .state
            .hall
            .ask(HallRequest::Event(EventRequest::ListEvents))
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
