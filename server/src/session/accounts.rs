//! Ending a connection's session: `logout` (this token), `logout_all` (every token of the account),
//! and the revocation pushed to the account's other connections, on every node, through the hall's
//! per-user channel. A connection whose token was revoked goes back to not logged in (it stays
//! open, as an anonymous watcher, like a fresh one) and is told so with `logged_out`, as OGS and KGS
//! log the other tabs out.

use tengen_protocol::{LogoutReason, ServerMsg};

use super::{auth_refusal, Answer, Session};
use crate::auth::token_digest;
use crate::hall::{HallCmd, Revocation};
use crate::Refusal;

impl Session {
    /// Revoke this connection's token and log out here; every other connection using the token
    /// (here or on other nodes) is logged out by the hall's push.
    pub(super) async fn logout(&mut self) -> Result<Answer, Refusal> {
        let player = self.player()?;
        if let Some(token) = &self.token {
            self.state.auth.logout(token).await.map_err(auth_refusal)?;
            let token_digest = Some(token_digest(token));
            self.state
                .hall
                .send_or_busy(HallCmd::Revoked {
                    user: player.user,
                    token_digest,
                })
                .await?;
        }
        self.end_session().await?;
        Ok(Answer::Ack)
    }

    /// Revoke every token of this account and log out here and on every other connection.
    pub(super) async fn logout_all(&mut self) -> Result<Answer, Refusal> {
        let user = self.user()?;
        let revoked = self
            .state
            .auth
            .logout_all(user)
            .await
            .map_err(auth_refusal)?;
        tracing::info!(%user, revoked, "logged out everywhere");
        self.state
            .hall
            .send_or_busy(HallCmd::Revoked {
                user,
                token_digest: None,
            })
            .await?;
        self.end_session().await?;
        Ok(Answer::Ack)
    }

    /// A revocation pushed to this user: when it covers this connection's token, log out here and
    /// tell the client. (The connection that asked has logged out already and holds no token.)
    pub(super) async fn on_revoked(&mut self, revocation: Revocation) {
        let Some(token) = &self.token else {
            return;
        };
        if !revocation.ends(&token_digest(token)) {
            return;
        }
        let reason = match revocation.token_digest {
            Some(_) => LogoutReason::Logout,
            None => LogoutReason::LogoutAll,
        };
        // The session ends here whatever the hall says: a busy room keeps listing the user until the
        // connection leaves it, but nothing acts as them any more.
        let user = self.player.as_ref().map(|p| p.user);
        if let Some(room) = self.room {
            if let Err(refusal) = self.leave_room(room).await {
                tracing::warn!(%refusal, "a revoked session could not leave its room");
            }
        }
        let gone = HallCmd::SessionGone {
            user,
            room: None,
            tables: Vec::new(),
        };
        self.state.hall.send(gone).await;
        self.forget_session();
        self.push(&ServerMsg::LoggedOut { reason });
    }

    /// Leave the room as this user, go offline, and become an anonymous connection.
    async fn end_session(&mut self) -> Result<(), Refusal> {
        let player = self.player()?;
        if let Some(room) = self.room {
            self.leave_room(room).await?;
        }
        self.state
            .hall
            .send_or_busy(HallCmd::SessionGone {
                user: Some(player.user),
                room: None,
                tables: Vec::new(),
            })
            .await?;
        self.forget_session();
        Ok(())
    }

    fn forget_session(&mut self) {
        self.player = None;
        self.token = None;
        self.viewer.send_replace(None);
    }
}
