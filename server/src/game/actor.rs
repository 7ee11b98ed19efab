//! One live game as a tokio actor: it owns the `tengen_rules::Game`, the scoring phase (dead-stone
//! marking and both players' acceptance), the per-game `seq`, and the broadcast its subscribers read.
//! Every accepted change becomes a `GameEvent` that is appended to the store *before* it is
//! acknowledged or broadcast; the same events replay the game after a restart. Authorization (is this
//! user a player, is it their turn, is this the right phase) is checked here, where the state is.
//!
//! Fortune points touch the actor in three delimited places: watchers' bets arrive in the inbox like
//! moves (so a bet is ordered exactly against the move that ends play: [`GameActor::betting_open`]),
//! each accepted bet pushes the pool to subscribers, and [`GameActor::finish`] settles the game
//! with the ledger once its result is stored.

use std::collections::BTreeSet;

use tengen_protocol::{
    ErrorCode, GameEvent, GameId, GameOutcome, GamePhase, GameSettings, GameState, GameSummary,
    PlayerInfo, ServerMsg, TableId, UserId,
};
use tengen_rules::sgf::{GameInfo, GameRecord};
use tengen_rules::{estimate_dead, Color, Game, Move, Phase, Point};
use tokio::sync::{broadcast, mpsc};

use super::wire::{self, color_from_wire, color_to_wire, point_from_wire, points_to_wire};
use super::{BetReceipt, GameCmd, GameContext, GameFrame, PlayerMove, StartGame, Subscription};
use crate::config::{GAME_EVENT_QUEUE_LEN, WATCHERS_PER_GAME_MAX};
use crate::hall::{chat, HallCmd};
use crate::ledger::{self, pool::Tally};
use crate::side::Side;
use crate::store::{LiveGameRow, UserRow};
use crate::{unix_now_ms, BoxError, Frame, Refusal};

/// The dead-stone marking and acceptances of the scoring phase.
#[derive(Debug, Clone, Default)]
struct Scoring {
    dead: BTreeSet<Point>,
    accepted: [bool; 2],
}

/// What a command did: carry on, or the game is over and the actor should wind up.
#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Over,
}

/// A failure that ends the actor: the store could not record an event, so the in-memory game may be
/// ahead of the log. The actor stops without acknowledging; a restart replays the log.
#[derive(Debug)]
struct Fatal(String);

pub(super) struct GameActor {
    id: GameId,
    table: Option<TableId>,
    black: PlayerInfo,
    white: PlayerInfo,
    settings: GameSettings,
    nigiri_seed: Option<u64>,
    game: Game,
    /// The `seq` of the last recorded event.
    seq: u64,
    scoring: Option<Scoring>,
    outcome: Option<GameOutcome>,
    /// The spectator pool's bets and the players' stakes, as in the book.
    tally: Tally,
    frames: broadcast::Sender<GameFrame>,
    ctx: GameContext,
}

impl std::fmt::Debug for GameActor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GameActor")
            .field("id", &self.id)
            .field("seq", &self.seq)
            .finish()
    }
}

fn side_of(color: Color) -> Side {
    match color {
        Color::Black => Side::Black,
        Color::White => Side::White,
    }
}

fn player_info(user: &UserRow) -> PlayerInfo {
    crate::auth::player_info(user)
}

impl GameActor {
    pub(super) fn new(id: GameId, start: StartGame, game: Game, ctx: GameContext) -> GameActor {
        let (frames, _) = broadcast::channel(GAME_EVENT_QUEUE_LEN);
        GameActor {
            id,
            table: start.table,
            black: start.black,
            white: start.white,
            settings: start.settings,
            nigiri_seed: start.nigiri_seed,
            game,
            seq: 0,
            scoring: None,
            outcome: None,
            tally: Tally::default(),
            frames,
            ctx,
        }
    }

    /// Rebuild a live game from its stored row and event log. `Ok(None)` when the log shows the game
    /// already ended (it is then finished in the store).
    pub(super) async fn restore(
        row: LiveGameRow,
        ctx: GameContext,
    ) -> Result<Option<GameActor>, BoxError> {
        let settings: GameSettings = serde_json::from_str(&row.game.settings_json)?;
        let (black_id, white_id) = (row.game.black, row.game.white);
        let users = ctx
            .store
            .call(move |store| Ok((store.user_by_id(black_id)?, store.user_by_id(white_id)?)))
            .await?;
        let (Some(black), Some(white)) = users else {
            return Err(format!("game {} has a missing player", row.id).into());
        };
        let start = StartGame {
            table: row.game.table,
            black: player_info(&black),
            white: player_info(&white),
            settings,
            nigiri_seed: row.game.nigiri_seed,
        };
        let game = wire::new_engine_game(&settings)?;
        let (tally, _) = ctx.ledger.tally(row.id).await?;
        let mut actor = GameActor::new(row.id, start, game, ctx);
        actor.tally = tally;
        for (seq, text) in &row.events {
            let event: GameEvent = serde_json::from_str(text)?;
            actor.replay(&event)?;
            actor.seq = *seq;
        }
        if actor.outcome.is_some() {
            actor.finish().await;
            return Ok(None);
        }
        // A crash between the second pass and the scoring proposal leaves scoring unopened.
        if actor.game.phase() == Phase::Scoring && actor.scoring.is_none() {
            actor
                .open_scoring()
                .await
                .map_err(|Fatal(err)| -> BoxError { err.into() })?;
        }
        Ok(Some(actor))
    }

    /// Apply one recorded event to the state, as when it first happened.
    fn replay(&mut self, event: &GameEvent) -> Result<(), BoxError> {
        match event {
            GameEvent::Played { color, point, .. } => self
                .game
                .play(color_from_wire(*color), Move::Play(point_from_wire(*point)))?,
            GameEvent::Passed { color } => self.game.play(color_from_wire(*color), Move::Pass)?,
            GameEvent::ScoringStarted { dead } | GameEvent::DeadMarked { dead, .. } => {
                self.scoring = Some(Scoring {
                    dead: dead.iter().map(|p| point_from_wire(*p)).collect(),
                    accepted: [false, false],
                });
            }
            GameEvent::ScoreAccepted { color } => {
                if let Some(scoring) = &mut self.scoring {
                    scoring.accepted[color_from_wire(*color).index()] = true;
                }
            }
            GameEvent::Ended { outcome } => self.outcome = Some(outcome.clone()),
        }
        Ok(())
    }

    pub(super) fn id(&self) -> GameId {
        self.id
    }

    pub(super) fn players(&self) -> [UserId; 2] {
        [self.black.user, self.white.user]
    }

    pub(super) fn summary(&self) -> GameSummary {
        GameSummary {
            game: self.id,
            table: self.table,
            black: self.black.clone(),
            white: self.white.clone(),
            size: self.settings.size,
            moves_count: self.game.moves().len() as u32,
            watchers_count: self.frames.receiver_count() as u32,
        }
    }

    pub(super) async fn run(mut self, mut inbox: mpsc::Receiver<GameCmd>) {
        let _tasks = self.ctx.tasks.clone();
        let shutdown = self.ctx.shutdown.clone();
        loop {
            let cmd = tokio::select! {
                _ = shutdown.wait() => return,
                cmd = inbox.recv() => match cmd {
                    Some(cmd) => cmd,
                    None => return,
                },
            };
            match self.handle(cmd).await {
                Ok(Flow::Continue) => {}
                Ok(Flow::Over) => {
                    self.finish().await;
                    return;
                }
                Err(Fatal(err)) => {
                    tracing::error!(game = %self.id, %err, "stopping a game: its event could not be stored");
                    return;
                }
            }
        }
    }

    async fn handle(&mut self, cmd: GameCmd) -> Result<Flow, Fatal> {
        match cmd {
            GameCmd::Move { user, mv, reply } => {
                let result = self.play(user, mv).await;
                self.answer(reply, result)
            }
            GameCmd::ToggleDead { user, point, reply } => {
                let result = self.toggle_dead(user, point_from_wire(point)).await;
                self.answer(reply, result)
            }
            GameCmd::AcceptScore { user, reply } => {
                let result = self.accept_score(user).await;
                self.answer(reply, result)
            }
            GameCmd::Subscribe { reply } => {
                let _ = reply.send(self.subscribe());
                Ok(Flow::Continue)
            }
            GameCmd::Kibitz {
                from,
                text,
                at_ms,
                reply,
            } => {
                let _ = reply.send(self.kibitz(from, text, at_ms));
                Ok(Flow::Continue)
            }
            GameCmd::Bet {
                user,
                side,
                amount,
                reply,
            } => {
                let _ = reply.send(self.bet(user, side, amount).await);
                Ok(Flow::Continue)
            }
            GameCmd::Stakes {
                entries,
                student,
                hold,
                reply,
            } => {
                let _ = reply.send(self.stakes(entries, student, hold).await);
                Ok(Flow::Continue)
            }
            GameCmd::StakeRaise {
                user,
                amount,
                reply,
            } => {
                let _ = reply.send(self.raise_stake(user, amount).await);
                Ok(Flow::Continue)
            }
            GameCmd::Pool { reply } => {
                let _ = reply.send(Ok(self.pool_info()));
                Ok(Flow::Continue)
            }
        }
    }

    /// Send the reply of a command that may have changed the game, and tell the loop what follows.
    fn answer(
        &self,
        reply: super::Reply<()>,
        result: Result<Result<Flow, Refusal>, Fatal>,
    ) -> Result<Flow, Fatal> {
        match result {
            Ok(Ok(flow)) => {
                let _ = reply.send(Ok(()));
                Ok(flow)
            }
            Ok(Err(refusal)) => {
                let _ = reply.send(Err(refusal));
                Ok(Flow::Continue)
            }
            Err(fatal) => {
                let _ = reply.send(Err(Refusal::new(
                    ErrorCode::Internal,
                    "the game could not record that; it will resume after a restart",
                )));
                Err(fatal)
            }
        }
    }

    fn color_of(&self, user: UserId) -> Result<Color, Refusal> {
        if user == self.black.user {
            Ok(Color::Black)
        } else if user == self.white.user {
            Ok(Color::White)
        } else {
            Err(Refusal::new(
                ErrorCode::NotYourGame,
                format!("you are not a player of game {}", self.id),
            ))
        }
    }

    /// Store the event, then publish it; the caller acknowledges after this returns.
    async fn commit(&mut self, event: GameEvent) -> Result<(), Fatal> {
        let seq = self.seq + 1;
        let text = serde_json::to_string(&event).map_err(|err| Fatal(err.to_string()))?;
        let game = self.id;
        self.ctx
            .store
            .call(move |store| store.append_event(game, seq, &text))
            .await
            .map_err(|err| Fatal(err.to_string()))?;
        self.seq = seq;
        let frame = ServerMsg::GameEvent { game, seq, event }.to_json();
        // No subscribers is fine: the event is stored and snapshots include it.
        let _ = self.frames.send(GameFrame {
            seq: Some(seq),
            text: frame.into(),
            hidden_from: [None, None],
        });
        Ok(())
    }

    async fn play(&mut self, user: UserId, mv: PlayerMove) -> Result<Result<Flow, Refusal>, Fatal> {
        let color = match self.color_of(user) {
            Ok(color) => color,
            Err(refusal) => return Ok(Err(refusal)),
        };
        let engine_move = match mv {
            PlayerMove::Play(point) => Move::Play(point_from_wire(point)),
            PlayerMove::Pass => Move::Pass,
            PlayerMove::Resign => Move::Resign,
        };
        if let Err(reason) = self.game.play(color, engine_move) {
            return Ok(Err(wire::illegal(reason)));
        }
        let event = match engine_move {
            Move::Play(point) => GameEvent::Played {
                color: color_to_wire(color),
                point: wire::point_to_wire(point),
                captured: points_to_wire(self.game.last_captured().iter().copied()),
            },
            Move::Pass => GameEvent::Passed {
                color: color_to_wire(color),
            },
            Move::Resign => {
                let result = self.game.result().expect("resigning ends the game");
                return self.end(wire::outcome(result, None)).await.map(Ok);
            }
        };
        self.commit(event).await?;
        if self.game.phase() == Phase::Scoring {
            self.open_scoring().await?;
        }
        Ok(Ok(Flow::Continue))
    }

    /// Two passes: propose the engine's dead-stone estimate.
    async fn open_scoring(&mut self) -> Result<(), Fatal> {
        let dead: BTreeSet<Point> = estimate_dead(self.game.board()).into_iter().collect();
        let event = GameEvent::ScoringStarted {
            dead: points_to_wire(dead.iter().copied()),
        };
        self.scoring = Some(Scoring {
            dead,
            accepted: [false, false],
        });
        self.commit(event).await?;
        // Play has ended: betting is closed from here on; tell the pool's watchers.
        self.publish_pool();
        Ok(())
    }

    fn scoring_for(&self, user: UserId) -> Result<(Color, &Scoring), Refusal> {
        let color = self.color_of(user)?;
        match &self.scoring {
            Some(scoring) if self.game.phase() == Phase::Scoring => Ok((color, scoring)),
            _ => Err(Refusal::new(
                ErrorCode::WrongPhase,
                "the game is not in the scoring phase",
            )),
        }
    }

    async fn toggle_dead(
        &mut self,
        user: UserId,
        point: Point,
    ) -> Result<Result<Flow, Refusal>, Fatal> {
        let (color, scoring) = match self.scoring_for(user) {
            Ok(found) => found,
            Err(refusal) => return Ok(Err(refusal)),
        };
        if !point.is_on_board(self.settings.size) {
            return Ok(Err(Refusal::new(
                ErrorCode::OffBoard,
                "that point is off the board",
            )));
        }
        let chain = self.game.board().chain(point);
        if chain.is_empty() {
            return Ok(Err(Refusal::new(
                ErrorCode::NotAllowed,
                "there is no stone there to mark",
            )));
        }
        let mut dead = scoring.dead.clone();
        // The whole chain flips together: dead if any of it was alive, else alive.
        if chain.iter().all(|p| dead.contains(p)) {
            for p in &chain {
                dead.remove(p);
            }
        } else {
            dead.extend(chain);
        }
        let event = GameEvent::DeadMarked {
            by: color_to_wire(color),
            dead: points_to_wire(dead.iter().copied()),
        };
        self.scoring = Some(Scoring {
            dead,
            accepted: [false, false],
        });
        self.commit(event).await?;
        Ok(Ok(Flow::Continue))
    }

    async fn accept_score(&mut self, user: UserId) -> Result<Result<Flow, Refusal>, Fatal> {
        let (color, scoring) = match self.scoring_for(user) {
            Ok(found) => found,
            Err(refusal) => return Ok(Err(refusal)),
        };
        if scoring.accepted[color.index()] {
            return Ok(Ok(Flow::Continue));
        }
        let mut accepted = scoring.accepted;
        accepted[color.index()] = true;
        if let Some(scoring) = &mut self.scoring {
            scoring.accepted = accepted;
        }
        self.commit(GameEvent::ScoreAccepted {
            color: color_to_wire(color),
        })
        .await?;
        if accepted != [true, true] {
            return Ok(Ok(Flow::Continue));
        }
        let dead: Vec<Point> = self
            .scoring
            .as_ref()
            .map(|s| s.dead.iter().copied().collect())
            .unwrap_or_default();
        let score = self.game.score(&dead);
        self.game.end(score.result);
        self.end(wire::outcome(score.result, Some(&score)))
            .await
            .map(Ok)
    }

    async fn end(&mut self, outcome: GameOutcome) -> Result<Flow, Fatal> {
        self.outcome = Some(outcome.clone());
        self.commit(GameEvent::Ended { outcome }).await?;
        Ok(Flow::Over)
    }

    /// After the result is recorded: settle the game's points, store the SGF, tell the hall, and let
    /// the actor stop. Settling comes before marking the game finished, so a crash in between
    /// replays the end and settles again, which the ledger makes a no-op the second time.
    async fn finish(&mut self) {
        let Some(outcome) = self.outcome.clone() else {
            return;
        };
        if self.ctx.fault_stop_before_settlement {
            tracing::warn!(game = %self.id, "fault injection: stopping before settlement");
            return;
        }
        let players = self.players();
        match self
            .ctx
            .ledger
            .settle_game(self.id, players, ledger::outcome_of(&outcome))
            .await
        {
            Ok(_) => self.publish_pool(),
            // The game stays unsettled in the store; the next start settles it.
            Err(err) => tracing::error!(game = %self.id, %err, "could not settle a game"),
        }
        let sgf = self.record_sgf(&outcome);
        let (game, result) = (self.id, outcome.sgf.clone());
        let now_ms = unix_now_ms();
        if let Err(err) = self
            .ctx
            .store
            .call(move |store| store.finish_game(game, &result, &sgf, now_ms))
            .await
        {
            tracing::error!(game = %self.id, %err, "could not store a finished game");
        }
        self.ctx
            .hall
            .send(HallCmd::GameEnded {
                game: self.id,
                table: self.table,
            })
            .await;
    }

    fn record_sgf(&self, outcome: &GameOutcome) -> String {
        let (time_limit, overtime) = wire::sgf_time(&self.settings.clock);
        let info = GameInfo {
            black: Some(self.black.username.clone()),
            white: Some(self.white.username.clone()),
            black_rank: Some(self.black.rank.clone()),
            white_rank: Some(self.white.rank.clone()),
            event: Some("Tengen".into()),
            result: Some(outcome.sgf.clone()),
            time_limit,
            overtime,
            ..GameInfo::default()
        };
        GameRecord::from_game(&self.game, &info).to_sgf()
    }

    fn subscribe(&self) -> Result<Subscription, Refusal> {
        if self.frames.receiver_count() >= WATCHERS_PER_GAME_MAX {
            return Err(Refusal::new(
                ErrorCode::TooManyWatchers,
                "this game has as many watchers as it takes",
            ));
        }
        let frames = self.frames.subscribe();
        let snapshot = ServerMsg::GameState {
            state: self.state(),
        }
        .to_json();
        Ok(Subscription {
            snapshot: Frame::from(snapshot),
            seq: self.seq,
            frames,
        })
    }

    fn phase(&self) -> GamePhase {
        match self.game.phase() {
            Phase::Over { .. } => GamePhase::Over,
            Phase::Scoring => GamePhase::Scoring,
            Phase::Play | Phase::PlacingHandicap => GamePhase::Playing,
        }
    }

    fn state(&self) -> GameState {
        let scoring = self.scoring.clone().unwrap_or_default();
        GameState {
            game: self.id,
            seq: self.seq,
            table: self.table,
            black: self.black.clone(),
            white: self.white.clone(),
            settings: self.settings,
            nigiri_seed: self.nigiri_seed,
            phase: self.phase(),
            to_move: color_to_wire(self.game.to_move()),
            board: wire::board_rows(self.game.board()),
            captures_black: self.game.prisoners(Color::Black),
            captures_white: self.game.prisoners(Color::White),
            moves_count: self.game.moves().len() as u32,
            dead: if self.game.phase() == Phase::Scoring {
                points_to_wire(scoring.dead.iter().copied())
            } else {
                Vec::new()
            },
            accepted_black: scoring.accepted[0],
            accepted_white: scoring.accepted[1],
            outcome: self.outcome.clone(),
            watchers_count: self.frames.receiver_count() as u32,
        }
    }

    /// Bets are taken while play goes on: not once two passes opened scoring, nor after any end.
    fn betting_open(&self) -> bool {
        self.outcome.is_none() && matches!(self.game.phase(), Phase::Play | Phase::PlacingHandicap)
    }

    fn pool_info(&self) -> tengen_protocol::PoolInfo {
        let settled = self.outcome.is_some();
        self.tally.info(
            self.id,
            self.betting_open(),
            self.ctx.ledger.tax_bp(),
            settled,
        )
    }

    /// Tell everyone following the game how the pool stands.
    fn publish_pool(&self) {
        let frame = ServerMsg::Pool {
            id: None,
            pool: self.pool_info(),
        }
        .to_json();
        // No subscribers is fine: `pool` asks for it.
        let _ = self.frames.send(GameFrame {
            seq: None,
            text: frame.into(),
            hidden_from: [None, None],
        });
    }

    /// A watcher's bet: refused once play has ended or from a player; otherwise the ledger moves it
    /// into escrow (durably) before it counts in the pool or anyone hears of it.
    async fn bet(&mut self, user: UserId, side: Side, amount: u64) -> Result<BetReceipt, Refusal> {
        if self.color_of(user).is_ok() {
            return Err(ledger::BetRejected::Player.into());
        }
        if !self.betting_open() {
            return Err(ledger::BetRejected::Closed.into());
        }
        let balance = self
            .ctx
            .ledger
            .place_bet(self.id, &self.tally, user, side, amount)
            .await?;
        self.tally.add_bet(user, side, amount);
        self.publish_pool();
        let total = self.tally.bettor(user).map_or(amount, |(_, total)| total);
        Ok(BetReceipt { total, balance })
    }

    /// Agreed stakes into escrow, any time before the game ends.
    async fn stakes(
        &mut self,
        entries: Vec<(UserId, u64)>,
        student: Option<UserId>,
        hold: Option<(TableId, String)>,
    ) -> Result<(), Refusal> {
        if self.outcome.is_some() {
            return Err(Refusal::new(ErrorCode::WrongPhase, "the game is over"));
        }
        if self.tally.has_stakes() {
            return Err(Refusal::new(
                ErrorCode::StakeAgreed,
                "stakes were already agreed for this game",
            ));
        }
        let mut sided = Vec::with_capacity(entries.len());
        for (user, amount) in entries {
            sided.push((user, side_of(self.color_of(user)?), amount));
        }
        let coaching = student.is_some();
        if let Some(student) = student {
            assert!(
                sided
                    .iter()
                    .all(|&(user, _, amount)| user == student || amount == 0),
                "the hall lets a coach stake nothing"
            );
        }
        self.ctx
            .ledger
            .stake(self.id, &self.tally, sided.clone(), coaching, hold)
            .await?;
        for (user, side, amount) in sided {
            // A zero stake is recorded too, so the game knows stakes were agreed.
            self.tally
                .add_stake(user, side, amount, coaching && student == Some(user));
        }
        self.publish_pool();
        Ok(())
    }

    /// A player adds to their own stake before the game ends; in paid coaching only the student.
    async fn raise_stake(&mut self, user: UserId, amount: u64) -> Result<(), Refusal> {
        let side = side_of(self.color_of(user)?);
        if self.outcome.is_some() {
            return Err(Refusal::new(ErrorCode::WrongPhase, "the game is over"));
        }
        if !self.tally.has_stakes() {
            return Err(Refusal::new(
                ErrorCode::StakeNotReady,
                "no stakes were agreed for this game",
            ));
        }
        if amount == 0 || self.tally.student().is_some_and(|student| student != side) {
            return Err(ledger::BetRejected::BadAmount { amount }.into());
        }
        let coaching = self.tally.student().is_some();
        self.ctx
            .ledger
            .stake(
                self.id,
                &self.tally,
                vec![(user, side, amount)],
                coaching,
                None,
            )
            .await?;
        self.tally.add_stake(user, side, amount, coaching);
        self.publish_pool();
        Ok(())
    }

    /// Watchers' chat: never from, and never to, the players while the game is on.
    fn kibitz(&self, from: PlayerInfo, text: String, at_ms: u64) -> Result<(), Refusal> {
        if self.color_of(from.user).is_ok() {
            return Err(Refusal::new(
                ErrorCode::NotAllowed,
                "players may not use the watchers' chat of their own game during play",
            ));
        }
        let text = chat::validate(&text)?;
        let channel = tengen_protocol::ChatChannel::Kibitz { game: self.id };
        let frame = chat::frame(channel, from, text, at_ms);
        let _ = self.frames.send(GameFrame {
            seq: None,
            text: frame.into(),
            hidden_from: [Some(self.black.user), Some(self.white.user)],
        });
        Ok(())
    }
}
