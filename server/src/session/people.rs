//! The session's people handler: profiles and finding players (no account needed), and the
//! logged-in user's friends, blocks and mutes, each answered by their lists as they now stand.

use tengen_protocol::{PeopleMsg, PeopleServerMsg, RequestId};

use super::{Answer, Session};
use crate::store::RelationKind;
use crate::Refusal;

impl Session {
    /// Answer a people message.
    pub(super) async fn people_message(
        &self,
        id: Option<RequestId>,
        msg: PeopleMsg,
    ) -> Result<Answer, Refusal> {
        use RelationKind::{Block, Follow, Mute};
        let change = match msg {
            PeopleMsg::Relations => None,
            PeopleMsg::Follow { username } => Some((username, Follow, true)),
            PeopleMsg::Unfollow { username } => Some((username, Follow, false)),
            PeopleMsg::Block { username } => Some((username, Block, true)),
            PeopleMsg::Unblock { username } => Some((username, Block, false)),
            PeopleMsg::Mute { username } => Some((username, Mute, true)),
            PeopleMsg::Unmute { username } => Some((username, Mute, false)),
            PeopleMsg::FindPlayers { .. } | PeopleMsg::Profile { .. } => {
                return self.profiles_message(id, msg).await;
            }
        };
        let me = self.user()?;
        let state = &self.state;
        if let Some((username, kind, on)) = change {
            crate::relations::change(&state.store, &state.hall, me, &username, (kind, on)).await?;
        }
        let relations = crate::relations::view(&state.store, &state.hall, me, &self.screen).await?;
        Ok(Answer::msg(PeopleServerMsg::Relations { id, relations }))
    }

    /// Profiles and finding players.
    async fn profiles_message(
        &self,
        id: Option<RequestId>,
        msg: PeopleMsg,
    ) -> Result<Answer, Refusal> {
        match msg {
            PeopleMsg::FindPlayers { prefix } => {
                let players = crate::people::find(&self.state.store, &prefix).await?;
                Ok(Answer::msg(PeopleServerMsg::PlayersFound { id, players }))
            }
            PeopleMsg::Profile { username } => {
                let state = &self.state;
                let profile =
                    crate::people::profile(&state.store, &state.hall, &username, &self.screen)
                        .await?;
                Ok(Answer::msg(PeopleServerMsg::Profile {
                    id,
                    profile: Box::new(profile),
                }))
            }
            other => Err(super::misrouted(&other)),
        }
    }
}
