//! The session's people area: profiles and finding players (no account needed), answered by
//! `people`; and the logged-in user's friends, blocks and mutes, routed whole to
//! `relations`, so a new relations message does not pass through here.

use tengen_protocol::{PeopleMsg, PeopleServerMsg, RequestId};

use super::{Answer, Session};
use crate::Refusal;

impl Session {
    /// Answer a people message: profiles and finding players here; every other one is about the
    /// logged-in user's relations, which `relations::answer` answers whole.
    pub(super) async fn people_message(
        &self,
        id: Option<RequestId>,
        msg: PeopleMsg,
    ) -> Result<Answer, Refusal> {
        let state = &self.state;
        match msg {
            PeopleMsg::FindPlayers { prefix } => {
                let players = crate::people::find(&state.store, &prefix).await?;
                Ok(Answer::msg(PeopleServerMsg::PlayersFound { id, players }))
            }
            PeopleMsg::Profile { username } => {
                let profile =
                    crate::people::profile(&state.store, &state.hall, &username, &self.screen)
                        .await?;
                Ok(Answer::msg(PeopleServerMsg::Profile {
                    id,
                    profile: Box::new(profile),
                }))
            }
            about_relations => {
                let me = self.user()?;
                let at = (&state.store, &state.hall);
                let reply =
                    crate::relations::answer(at, (me, &self.screen), id, about_relations).await?;
                Ok(Answer::msg(reply))
            }
        }
    }
}
