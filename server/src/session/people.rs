//! The session's people handler: profiles and finding players. No account is needed for either.

use tengen_protocol::{PeopleMsg, RequestId, ServerMsg};

use super::{Answer, Session};
use crate::Refusal;

impl Session {
    /// Answer a people message.
    pub(super) async fn people_message(
        &self,
        id: Option<RequestId>,
        msg: PeopleMsg,
    ) -> Result<Answer, Refusal> {
        match msg {
            PeopleMsg::FindPlayers { prefix } => {
                let players = crate::people::find(&self.state.store, &prefix).await?;
                Ok(Answer::Msg(Box::new(ServerMsg::PlayersFound {
                    id,
                    players,
                })))
            }
            PeopleMsg::Profile { username } => {
                let state = &self.state;
                let profile = crate::people::profile(&state.store, &state.hall, &username).await?;
                Ok(Answer::Msg(Box::new(ServerMsg::Profile {
                    id,
                    profile: Box::new(profile),
                })))
            }
        }
    }
}
