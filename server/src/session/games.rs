//! A connection and live games: following one (its state, then every frame, read by the
//! connection's own task through `game::Following`), and a player's moves, marking, undo and
//! answers, each one [`GameRequest`] to the game's actor; kibitz; a game's record and a player's
//! list of games.

use tengen_protocol::{
    ErrorCode, GameId, GamesMsg, GamesServerMsg, Point, RequestId, RequestKey, UserId,
};

use super::{Answer, Session, GAMES_PER_SESSION_MAX};
use crate::game::{self, GameRequest, PlayerMove};
use crate::{refuse, Refusal};

impl Session {
    /// The games' messages (`Session::handle` passes only these here).
    pub(super) async fn game_message(
        &mut self,
        id: Option<RequestId>,
        msg: GamesMsg,
    ) -> Result<Answer, Refusal> {
        use GamesMsg as M;
        match msg {
            M::Watch { game } => self.watch(game).await.map(|()| Answer::Ack),
            M::Unwatch { game } => self.unwatch(game),
            M::Play { game, point, key } => self.play(game, PlayerMove::Play(point), key).await,
            M::Pass { game, key } => self.play(game, PlayerMove::Pass, key).await,
            M::Resign { game, key } => self.play(game, PlayerMove::Resign, key).await,
            M::ToggleDead { game, point } => self.toggle_dead(game, point).await,
            M::AcceptScore { game, dead } => self.accept_score(game, dead).await,
            M::ResumePlay { game } => self.resume_play(game).await,
            M::Undo { game } => self.undo(game).await,
            M::AcceptUndo { game } => self.answer_undo(game, true).await,
            M::DeclineUndo { game } => self.answer_undo(game, false).await,
            M::GetRecord { game } => self.get_record(id, game).await,
            M::ListGames { username, before } => self.list_games(id, username, before).await,
        }
    }

    /// Follow a game: its full state now (before the request's `ack`), then every frame in order.
    pub(super) async fn watch(&mut self, game: GameId) -> Result<(), Refusal> {
        if !self.following.contains(game) && self.following.len() >= GAMES_PER_SESSION_MAX {
            return refuse(
                ErrorCode::Busy,
                format!("follow at most {GAMES_PER_SESSION_MAX} games at once"),
            );
        }
        let handle = self.state.games.get(game).await?;
        let subscription = game::subscribe(&handle, self.player.clone()).await?;
        self.pushes.push(subscription.snapshot.clone());
        let source = game::Source {
            games: self.state.games.clone(),
            game,
            handle,
            store: self.state.store.clone(),
        };
        self.following.follow(source, subscription);
        Ok(())
    }

    pub(super) fn unwatch(&mut self, game: GameId) -> Result<Answer, Refusal> {
        if self.following.unfollow(game) {
            Ok(Answer::Ack)
        } else {
            refuse(ErrorCode::NotThere, format!("you do not watch game {game}"))
        }
    }

    /// A game's handle: the one kept for a followed game (players follow theirs from its start), else
    /// from the registry. A game that ended answers `no_such_game` either way: its inbox is closed.
    pub(super) async fn game(&self, game: GameId) -> Result<game::GameHandle, Refusal> {
        match self.following.handle(game) {
            // A closed handle whose game goes on elsewhere (scaled out) is looked up again.
            Some(handle) if !handle.is_closed() => Ok(handle.clone()),
            _ => self.state.games.get(game).await,
        }
    }

    /// The logged-in user's request to `game`'s actor (a move, an answer, a marking), acknowledged
    /// once the actor took it.
    pub(super) async fn game_ack(
        &self,
        game: GameId,
        make: impl FnOnce(UserId) -> GameRequest,
    ) -> Result<Answer, Refusal> {
        let user = self.user()?;
        self.game(game).await?.ask(make(user)).await?.done()?;
        Ok(Answer::Ack)
    }

    pub(super) async fn play(
        &self,
        game: GameId,
        mv: PlayerMove,
        key: Option<RequestKey>,
    ) -> Result<Answer, Refusal> {
        let asked = self
            .game_ack(game, |user| GameRequest::Move {
                user,
                mv,
                key: key.clone(),
            })
            .await;
        match (asked, key) {
            // A keyed retry of the resignation (or last move) that ended the game: from its log.
            (Err(refusal), Some(key)) if refusal.code == ErrorCode::NoSuchGame => {
                let user = self.user()?;
                match game::retry_after_end(&self.state.store, game, user, key, mv).await? {
                    Some(()) => Ok(Answer::Ack),
                    None => Err(refusal),
                }
            }
            (asked, _) => asked,
        }
    }

    pub(super) async fn toggle_dead(&self, game: GameId, point: Point) -> Result<Answer, Refusal> {
        self.game_ack(game, |user| GameRequest::ToggleDead { user, point })
            .await
    }

    pub(super) async fn accept_score(
        &self,
        game: GameId,
        dead: Option<Vec<Point>>,
    ) -> Result<Answer, Refusal> {
        self.game_ack(game, |user| GameRequest::AcceptScore { user, dead })
            .await
    }

    pub(super) async fn resume_play(&self, game: GameId) -> Result<Answer, Refusal> {
        self.game_ack(game, |user| GameRequest::ResumePlay { user })
            .await
    }

    pub(super) async fn undo(&self, game: GameId) -> Result<Answer, Refusal> {
        self.game_ack(game, |user| GameRequest::Undo { user }).await
    }

    pub(super) async fn answer_undo(&self, game: GameId, accept: bool) -> Result<Answer, Refusal> {
        self.game_ack(game, |user| GameRequest::AnswerUndo { user, accept })
            .await
    }

    pub(super) async fn get_record(
        &self,
        id: Option<RequestId>,
        game: GameId,
    ) -> Result<Answer, Refusal> {
        let sgf = game::record(&self.state.games, &self.state.store, game).await?;
        Ok(Answer::msg(GamesServerMsg::GameRecord { id, game, sgf }))
    }

    pub(super) async fn list_games(
        &self,
        id: Option<RequestId>,
        username: String,
        before: Option<GameId>,
    ) -> Result<Answer, Refusal> {
        let games = game::list_games(&self.state.store, &username, before).await?;
        Ok(Answer::msg(GamesServerMsg::GameList {
            id,
            username,
            games,
        }))
    }
}
