//! A connection and competitions: creating one (and directing it), entering and leaving, the
//! director starting rounds, and reading an event or the list. Each is one [`HallRequest`]; the
//! hall keeps the events and pushes their changes to entrants and the lobby.

use tengen_protocol::{EventId, EventSpec, RequestId, ServerMsg};

use super::{Answer, Session};
use crate::hall::{HallReply, HallRequest};
use crate::Refusal;

impl Session {
    pub(super) async fn create_event(
        &self,
        id: Option<RequestId>,
        spec: EventSpec,
    ) -> Result<Answer, Refusal> {
        let director = self.player()?;
        self.event_reply(id, HallRequest::CreateEvent { director, spec })
            .await
    }

    pub(super) async fn join_event(
        &self,
        id: Option<RequestId>,
        event: EventId,
    ) -> Result<Answer, Refusal> {
        let player = self.player()?;
        self.event_reply(id, HallRequest::JoinEvent { event, player })
            .await
    }

    pub(super) async fn leave_event(
        &self,
        id: Option<RequestId>,
        event: EventId,
    ) -> Result<Answer, Refusal> {
        let user = self.user()?;
        self.event_reply(id, HallRequest::LeaveEvent { event, user })
            .await
    }

    pub(super) async fn start_round(
        &self,
        id: Option<RequestId>,
        event: EventId,
    ) -> Result<Answer, Refusal> {
        let user = self.user()?;
        self.event_reply(id, HallRequest::StartRound { event, user })
            .await
    }

    pub(super) async fn get_event(
        &self,
        id: Option<RequestId>,
        event: EventId,
    ) -> Result<Answer, Refusal> {
        self.event_reply(id, HallRequest::GetEvent { event }).await
    }

    pub(super) async fn list_events(&self, id: Option<RequestId>) -> Result<Answer, Refusal> {
        let events = self
            .state
            .hall
            .ask(HallRequest::ListEvents)
            .await?
            .events()?;
        Ok(Answer::Msg(Box::new(ServerMsg::EventList { id, events })))
    }

    /// Ask the hall `request` and answer with the event's view.
    async fn event_reply(
        &self,
        id: Option<RequestId>,
        request: HallRequest,
    ) -> Result<Answer, Refusal> {
        let view = self
            .state
            .hall
            .ask(request)
            .await
            .and_then(HallReply::event)?;
        Ok(Answer::Msg(Box::new(ServerMsg::Event {
            id,
            event: Box::new(view),
        })))
    }
}
