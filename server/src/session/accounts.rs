//! Ending a connection's session: `logout` (this token), `logout_all` (every token of the account),
//! and the revocation pushed to the account's other connections, on every node, through the hall's
//! per-user channel. A connection whose token was revoked goes back to not logged in (it stays
//! open, as an anonymous watcher, like a fresh one) and is told so with `logged_out`, as OGS and KGS
//! log the other tabs out.

use tengen_protocol::{
    AccountsMsg, AccountsServerMsg, ConnectionServerMsg, ErrorCode, LogoutReason, MoneyServerMsg,
    RequestId, PROTOCOL_VERSION,
};

use super::{internal, Answer, Next, Session, CLOSE_POLICY};
use crate::auth::{token_digest, AuthError, Authenticated};
use crate::hall::{HallRequest, Revocation};
use crate::relations::Screen;
use crate::{refuse, unix_now_ms, Refusal};

/// An account request refused: failures of the server (the store, password hashing) are logged and
/// answered without their details; the others say what the user can do.
fn auth_refusal(err: AuthError) -> Refusal {
    match err {
        AuthError::Store(err) => internal(err),
        AuthError::Internal(detail) => {
            tracing::error!(%detail, "account service failure");
            Refusal::new(ErrorCode::Internal, "the account service failed; try again")
        }
        err => Refusal::new(err.code(), err.to_string()),
    }
}

impl Session {
    /// The account messages (`Session::handle` passes only these here).
    pub(super) async fn account_message(
        &mut self,
        id: Option<RequestId>,
        msg: AccountsMsg,
    ) -> Result<Answer, Refusal> {
        use AccountsMsg as M;
        match msg {
            M::Register {
                username,
                password,
                computer,
                rank,
            } => {
                let account = (username.as_str(), password.as_str());
                self.register(id, account, computer, rank.as_deref()).await
            }
            M::Login { username, password } => self.login(id, &username, &password).await,
            M::Resume { token } => self.resume(id, &token).await,
            M::Logout => self.logout().await,
            M::LogoutAll => self.logout_all().await,
        }
    }

    async fn register(
        &mut self,
        id: Option<RequestId>,
        (username, password): (&str, &str),
        computer: bool,
        rank: Option<&str>,
    ) -> Result<Answer, Refusal> {
        self.not_logged_in()?;
        let starting_rating = match rank {
            None => None,
            Some(rank) => Some(crate::rating::starting_rating(rank).ok_or_else(|| {
                Refusal::new(
                    ErrorCode::BadMessage,
                    format!("{rank:?} is not a rank: say 30k to 1k, or 1d to 9d"),
                )
            })?),
        };
        let auth = &self.state.auth;
        let result = auth
            .register(
                username,
                password,
                (computer, starting_rating),
                self.peer,
                unix_now_ms(),
            )
            .await;
        self.logged_in(id, result).await
    }

    async fn login(
        &mut self,
        id: Option<RequestId>,
        username: &str,
        password: &str,
    ) -> Result<Answer, Refusal> {
        self.not_logged_in()?;
        let auth = &self.state.auth;
        let result = auth
            .login(username, password, self.peer, unix_now_ms())
            .await;
        self.logged_in(id, result).await
    }

    async fn resume(&mut self, id: Option<RequestId>, token: &str) -> Result<Answer, Refusal> {
        self.not_logged_in()?;
        let result = self.state.auth.resume(token, unix_now_ms()).await;
        self.logged_in(id, result).await
    }

    pub(super) fn hello(&mut self, id: Option<RequestId>, version: u32) -> Result<Answer, Refusal> {
        if version != PROTOCOL_VERSION {
            return refuse(
                ErrorCode::VersionUnsupported,
                format!("this server speaks protocol version {PROTOCOL_VERSION}"),
            );
        }
        self.said_hello = true;
        Ok(Answer::msg(ConnectionServerMsg::Welcome {
            id,
            version: PROTOCOL_VERSION,
            server: format!("tengen {}", env!("CARGO_PKG_VERSION")),
        }))
    }

    fn not_logged_in(&self) -> Result<(), Refusal> {
        match self.player {
            Some(_) => refuse(ErrorCode::AlreadyLoggedIn, "this connection is logged in"),
            None => Ok(()),
        }
    }

    async fn logged_in(
        &mut self,
        id: Option<RequestId>,
        result: Result<Authenticated, AuthError>,
    ) -> Result<Answer, Refusal> {
        let session = result.map_err(auth_refusal)?;
        let (role, mute) =
            crate::moderation::standing(&self.state.store, session.player.user).await?;
        // The starting grant when due (once per account), and the balance shown with the session.
        let opened = self
            .state
            .ledger
            .open_account(session.player.user, session.created_at_ms, unix_now_ms())
            .await
            .map_err(internal)?;
        // Subscribed before the hall hears of this user, so no push to them falls in between.
        self.user_events = Some(self.state.hall.subscribe_user(session.player.user));
        // Read after subscribing, so a change made meanwhile is in it or comes as a push.
        self.screen = Screen::load(&self.state.store, session.player.user).await?;
        self.tell_online(session.player.clone()).await?;
        self.player = Some(session.player.clone());
        self.token = Some(session.token.clone());
        self.following.count_in_as(Some(&session.player));
        // Entered a room while anonymous: enter it again as this user, so the room lists them.
        if let Some(room) = self.room {
            self.join_room(room).await?;
        }
        // A player coming back gets their games' whole state at once (before this reply).
        for game in self.state.games.of_player(session.player.user).await {
            // A game that ends meanwhile is simply missed.
            let _ = self.watch(game).await;
        }
        // Last before the reply, so the games' states keep coming first.
        self.push(
            &MoneyServerMsg::Balance {
                id: None,
                balance: opened.balance,
                tax_bp: self.state.ledger.tax_bp(),
            }
            .into(),
        );
        Ok(Answer::msg(AccountsServerMsg::Session {
            id,
            user: session.player.user,
            username: session.player.username,
            token: session.token,
            expires_at_ms: session.expires_at_ms,
            pending_grant: opened.pending_grant,
            grant_due_at_ms: opened.grant_due_at_ms,
            role,
            muted_until_ms: mute.as_ref().and_then(|mute| mute.until_ms),
            muted_reason: mute.map(|mute| mute.reason),
        }))
    }

    /// Revoke this connection's token and log out here; every other connection using the token
    /// (here or on other nodes) is logged out by the hall's push.
    async fn logout(&mut self) -> Result<Answer, Refusal> {
        let player = self.player()?;
        if let Some(token) = &self.token {
            self.state.auth.logout(token).await.map_err(auth_refusal)?;
            let token_digest = Some(token_digest(token));
            let revoked = HallRequest::Revoked {
                user: player.user,
                token_digest,
                ban: None,
            };
            self.state.hall.tell(revoked).await?;
        }
        self.end_session().await?;
        Ok(Answer::Ack)
    }

    /// Revoke every token of this account and log out here and on every other connection.
    async fn logout_all(&mut self) -> Result<Answer, Refusal> {
        let user = self.user()?;
        let revoked = self
            .state
            .auth
            .logout_all(user)
            .await
            .map_err(auth_refusal)?;
        tracing::info!(%user, revoked, "logged out everywhere");
        let revoked = HallRequest::Revoked {
            user,
            token_digest: None,
            ban: None,
        };
        self.state.hall.tell(revoked).await?;
        self.end_session().await?;
        Ok(Answer::Ack)
    }

    /// A revocation pushed to this user: when it covers this connection's token, log out here and
    /// tell the client. (The connection that asked has logged out already and holds no token.) A
    /// ban ends every connection of the user, saying why and until when, and closes it.
    pub(super) async fn on_revoked(&mut self, revocation: Revocation) -> Next {
        let Some(token) = &self.token else {
            return Next::Continue;
        };
        if !revocation.ends(&token_digest(token)) {
            return Next::Continue;
        }
        let reason = match (&revocation.ban, &revocation.token_digest) {
            (Some(_), _) => LogoutReason::Banned,
            (None, Some(_)) => LogoutReason::Logout,
            (None, None) => LogoutReason::LogoutAll,
        };
        // The session ends here whatever the hall says: a busy room keeps listing the user until the
        // connection leaves it, but nothing acts as them any more.
        let user = self.player.as_ref().map(|p| p.user);
        if let Some(room) = self.room {
            if let Err(refusal) = self.leave_room(room).await {
                tracing::warn!(%refusal, "a revoked session could not leave its room");
            }
        }
        let gone = HallRequest::SessionGone {
            user,
            room: None,
            tables: Vec::new(),
        };
        self.state.hall.send(gone).await;
        self.forget_session();
        let ban = revocation.ban;
        self.push(
            &AccountsServerMsg::LoggedOut {
                reason,
                ban_reason: ban.as_ref().map(|ban| ban.reason.clone()),
                banned_until_ms: ban.as_ref().and_then(|ban| ban.until_ms),
            }
            .into(),
        );
        match ban {
            Some(_) => Next::Close(CLOSE_POLICY, "banned"),
            None => Next::Continue,
        }
    }

    /// Leave the room as this user, go offline, and become an anonymous connection.
    async fn end_session(&mut self) -> Result<(), Refusal> {
        let player = self.player()?;
        if let Some(room) = self.room {
            self.leave_room(room).await?;
        }
        let gone = HallRequest::SessionGone {
            user: Some(player.user),
            room: None,
            tables: Vec::new(),
        };
        self.state.hall.tell(gone).await?;
        self.forget_session();
        Ok(())
    }

    fn forget_session(&mut self) {
        self.player = None;
        self.screen = Screen::default();
        self.token = None;
        self.following.count_in_as(None);
    }
}
