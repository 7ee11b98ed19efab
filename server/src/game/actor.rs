//! One live game as a tokio actor: it owns the `tengen_rules::Game`, the players' [`Clock`], the
//! scoring phase (dead-stone marking and both players' acceptance), undo requests, the players'
//! presence, who watches (pushing the list, coalesced), the per-game `seq`, and the broadcast its
//! subscribers read. Every accepted change becomes
//! a `GameEvent` that is appended to the store, with the game-time instant it happened (`at_ms`),
//! *before* it is acknowledged or broadcast; the same events replay the game, clocks included, after
//! a restart.
//!
//! Time: the actor keeps its own "game time", milliseconds on tokio's clock since the actor started
//! plus the game time at which the stored log ended (0 for a new game). Every deadline (the side to
//! move running out, the first move of a no-show, a player away too long, the scoring phase) is an
//! instant of game time; the run loop sleeps until the nearest one with a single `sleep_until`, so a
//! timeout ends the game the moment it happens, with nobody sending anything. A restarted actor
//! resumes game time where the log ended, so the time the server was down is charged to no one (nor
//! is the mover's thinking time between their last recorded event and the crash).
//!
//! Every ending goes through [`GameActor::end`] (record the result) and then [`GameActor::finish`]
//! (store the SGF, tell the hall): the one place where "game over" happens.
//!
//! Rules decided here, in the players' terms:
//! - Undo (悔棋): a player may ask to take back their last move while play is on; the opponent accepts
//!   or declines. Accepted, the asker's last move is taken back, with the opponent's reply if one was
//!   made since, so the asker is to move again; time already used is not given back. Any move or pass
//!   withdraws a pending request. The log keeps the request and the answer, and the SGF root comment
//!   lists accepted undos.
//! - Scoring dispute: either player may send `resume_play` instead of accepting. Asking to resume
//!   means disputing the other player's claim that some stones are dead, so play restarts with the
//!   *other* player (the claimant) to move (以实战解决); two passes end it again with a fresh estimate.
//! - The scoring phase lasts at most `scoring_phase_ms`; then the marking on the board (the last one
//!   both were shown) is accepted for both and counted. Clocks are paused throughout.
//! - Escape (逃跑): when a player's last connection to the game closes, they have
//!   `disconnect_grace_ms` (their own clock still runs when it is their turn, and a timeout comes first
//!   if it is sooner) to return; otherwise they lose by forfeit. If both players are away when a
//!   forfeit falls due, nobody kept their seat and the game is void.
//! - No-show: a game whose first move is not made within `first_move_within_ms` is void.
//!
//! Fortune points touch the actor in three delimited places: watchers' bets arrive in the inbox like
//! moves (so a bet is ordered exactly against the move that ends play: [`GameActor::betting_open`]),
//! accepted bets push the pool to subscribers (coalesced: at most one push per `POOL_PUSH_MS`, and the
//! pool at the end of play exactly), and [`GameActor::finish`] settles the game
//! with the ledger once its result is stored.

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::sync::atomic::{AtomicBool, AtomicU32};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tengen_protocol::{
    Away, EndReason, ErrorCode, GameEvent, GameId, GameOutcome, GamePhase, GameSettings, GameState,
    GameSummary, PlayerInfo, ServerMsg, TableId, UserId,
};
use tengen_rules::sgf::{GameInfo, GameRecord};
use tengen_rules::{estimate_dead, Color, Game, GameResult, Move, Phase, Point, WinBy};
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use super::wire::{
    self, clocks_to_wire, color_from_wire, color_of_side, color_to_wire, point_from_wire,
    points_to_wire, side_of,
};
use super::{
    BetReceipt, GameCmd, GameContext, GameFrame, Mirror, PlayerMove, Presence, PresenceGuard,
    StartGame, Subscription, ViewerGuard, Viewers, WatcherList,
};
use crate::clock::{self, Clock, ClockError, ClockView, Expiry, SideView};
use crate::config::{
    GAME_EVENT_QUEUE_LEN, POOL_PUSH_MS, WATCHERS_LISTED_MAX, WATCHERS_PER_GAME_MAX,
    WATCHER_COUNT_PUSH_MS,
};
use crate::hall::{chat, HallCmd};
use crate::ledger::{self, pool::Tally};
use crate::side::Side;
use crate::store::{LiveGameRow, StoreError, UserRow};
use crate::{unix_now_ms, BoxError, Frame, Refusal};

/// Accepted undos the record's comment lists. A real game has a handful; a pair taking moves back
/// and forth for ever would otherwise grow the record without bound. Later undos are still in the
/// event log.
const UNDO_NOTES_MAX: usize = 50;

/// One event as the log stores it: the wire event plus the game-time instant it happened, from
/// which a restart replays the clocks exactly.
#[derive(Debug, Serialize, Deserialize)]
struct LoggedEvent {
    #[serde(flatten)]
    event: GameEvent,
    #[serde(default)]
    at_ms: u64,
}

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
/// ahead of the log. The actor stops without acknowledging; a restart (or, scaled out, the node that
/// owns the game now) replays the log.
#[derive(Debug)]
struct Fatal(String);

impl Fatal {
    /// The store refused because another node owns the game now: it goes on there.
    fn moved(&self, game: GameId) -> bool {
        self.0 == StoreError::NotOwner(game).to_string()
    }
}

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
    /// Both players' time; `None` for an untimed game.
    clock: Option<Clock>,
    /// The tokio instant at which game time was `offset_ms`.
    epoch: Instant,
    offset_ms: u64,
    /// Wall-clock start (Unix ms), for the record's date.
    started_at_ms: u64,
    /// A pending undo request, by the player who asked.
    undo_request: Option<Color>,
    /// Accepted undos, for the record's comment; at most [`UNDO_NOTES_MAX`].
    undo_notes: Vec<String>,
    /// When the scoring phase is accepted for both (game time).
    scoring_deadline_ms: Option<u64>,
    /// Players' connections, counted by their subscriptions.
    presence: Arc<Presence>,
    /// Whether each player has been counted present since this actor started: a player whose
    /// subscription has not arrived yet at the start of a game is not "away".
    seen: [bool; 2],
    /// Since when (game time) each player has been away, announced with `player_left`.
    away_since_ms: [Option<u64>; 2],
    /// Who watches, counted by the subscriptions' guards (and any a cluster layer holds).
    viewers: Arc<Viewers>,
    /// Set when the game is over, before the actor drops its broadcast: a subscriber that sees the
    /// broadcast close tells "the game ended" from "the actor stopped here" (scaled out, the game
    /// then goes on on another node).
    ended: Arc<AtomicBool>,
    /// Moves played, for the hall's list of games in play (read without asking the actor).
    moves_count: Arc<AtomicU32>,
    /// The watchers as last pushed, so a join undone within the interval pushes nothing.
    watchers_pushed: WatcherList,
    /// When the next `watchers` push is due, at most one per [`WATCHER_COUNT_PUSH_MS`].
    watchers_pacer: Pacer,
    /// When the next `pool` push is due, at most one per [`POOL_PUSH_MS`].
    pool_pacer: Pacer,
}

impl std::fmt::Debug for GameActor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GameActor")
            .field("id", &self.id)
            .field("seq", &self.seq)
            .finish()
    }
}

fn player_info(user: &UserRow) -> PlayerInfo {
    crate::auth::player_info(user)
}

impl GameActor {
    pub(super) fn new(
        id: GameId,
        start: StartGame,
        game: Game,
        ctx: GameContext,
        started_at_ms: u64,
    ) -> Result<GameActor, Refusal> {
        let (frames, _) = broadcast::channel(GAME_EVENT_QUEUE_LEN);
        let clock = match wire::clock_settings(&start.settings.clock)? {
            Some(settings) => {
                let mut clock = Clock::new(settings)
                    .map_err(|err| Refusal::new(ErrorCode::InvalidSettings, err.to_string()))?;
                // A fresh clock always starts; the first mover's time runs from game time 0.
                let started = clock.start(0, side_of(game.to_move()));
                assert!(started.is_ok(), "a new clock starts: {started:?}");
                Some(clock)
            }
            None => None,
        };
        let viewers = Arc::new(Viewers::new([start.black.user, start.white.user]));
        Ok(GameActor {
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
            clock,
            epoch: Instant::now(),
            offset_ms: 0,
            started_at_ms,
            undo_request: None,
            undo_notes: Vec::new(),
            scoring_deadline_ms: None,
            presence: Arc::new(Presence::default()),
            seen: [false, false],
            away_since_ms: [None, None],
            viewers,
            ended: Arc::new(AtomicBool::new(false)),
            moves_count: Arc::default(),
            watchers_pushed: WatcherList::default(),
            watchers_pacer: Pacer::new(WATCHER_COUNT_PUSH_MS),
            pool_pacer: Pacer::new(POOL_PUSH_MS),
        })
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
        let mut actor = GameActor::new(row.id, start, game, ctx, row.game.started_at_ms)?;
        actor.tally = tally;
        let mut last_at_ms = 0;
        for (seq, text) in &row.events {
            let logged: LoggedEvent = serde_json::from_str(text)?;
            actor.replay(&logged.event, logged.at_ms)?;
            actor.seq = *seq;
            last_at_ms = last_at_ms.max(logged.at_ms);
        }
        let moves_count = actor.game.moves().len() as u32;
        actor
            .moves_count
            .store(moves_count, std::sync::atomic::Ordering::Relaxed);
        // Game time goes on from the last recorded instant: the downtime belongs to no one.
        actor.offset_ms = last_at_ms;
        actor.epoch = Instant::now();
        if actor.outcome.is_some() {
            actor.finish().await;
            return Ok(None);
        }
        // Nobody is connected to a freshly restored game: both count as away (and are announced so,
        // unless the log already did) until they come back; the grace runs from the restart.
        actor.seen = [true, true];
        for since in actor.away_since_ms.iter_mut().flatten() {
            *since = last_at_ms;
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

    /// Apply one recorded event to the state, as when it first happened at game time `at_ms`.
    fn replay(&mut self, event: &GameEvent, at_ms: u64) -> Result<(), BoxError> {
        match event {
            GameEvent::Played { color, point, .. } => {
                self.game
                    .play(color_from_wire(*color), Move::Play(point_from_wire(*point)))?;
                self.clock_moved(at_ms);
            }
            GameEvent::Passed { color, forced } => {
                if *forced {
                    if let Some(clock) = &mut self.clock {
                        clock.check(at_ms);
                    }
                } else {
                    self.clock_moved(at_ms);
                }
                self.game.play(color_from_wire(*color), Move::Pass)?;
                self.undo_request = None;
            }
            GameEvent::ScoringStarted { dead } => {
                self.scoring = Some(Scoring {
                    dead: dead.iter().map(|p| point_from_wire(*p)).collect(),
                    accepted: [false, false],
                });
                self.enter_scoring(at_ms);
            }
            GameEvent::DeadMarked { dead, .. } => {
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
            GameEvent::Ended { outcome } => {
                let result = self.result_of(outcome);
                self.game.end(result);
                self.outcome = Some(outcome.clone());
            }
            GameEvent::UndoRequested { color } => self.undo_request = Some(color_from_wire(*color)),
            GameEvent::UndoDeclined { .. } => self.undo_request = None,
            GameEvent::UndoAccepted { color, .. } => {
                self.take_back(color_from_wire(*color), at_ms);
            }
            GameEvent::PlayResumed { to_move, .. } => {
                self.restart_play(color_from_wire(*to_move), at_ms);
            }
            // Who was announced away; after a restart their grace starts again from the restart.
            GameEvent::PlayerLeft { color, .. } => {
                self.away_since_ms[color_from_wire(*color).index()] = Some(at_ms);
            }
            GameEvent::PlayerReturned { color } => {
                self.away_since_ms[color_from_wire(*color).index()] = None;
            }
        }
        Ok(())
    }

    /// The engine result a recorded outcome stands for (a count is counted again from the replayed
    /// marking, which gives the same margin).
    fn result_of(&self, outcome: &GameOutcome) -> GameResult {
        let win = |win_by| match outcome.winner {
            Some(winner) => GameResult::Win {
                winner: color_from_wire(winner),
                win_by,
            },
            None => GameResult::Void,
        };
        match outcome.reason {
            EndReason::Resignation => win(WinBy::Resign),
            EndReason::Time => win(WinBy::Time),
            EndReason::Forfeit => win(WinBy::Forfeit),
            EndReason::Void => GameResult::Void,
            EndReason::Score => {
                let dead: Vec<Point> = self
                    .scoring
                    .as_ref()
                    .map(|s| s.dead.iter().copied().collect())
                    .unwrap_or_default();
                self.game.score(&dead).result
            }
        }
    }

    pub(super) fn id(&self) -> GameId {
        self.id
    }

    pub(super) fn players(&self) -> [UserId; 2] {
        [self.black.user, self.white.user]
    }

    pub(super) fn viewers(&self) -> Arc<Viewers> {
        Arc::clone(&self.viewers)
    }

    pub(super) fn moves_count(&self) -> Arc<AtomicU32> {
        Arc::clone(&self.moves_count)
    }

    pub(super) fn ended_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.ended)
    }

    pub(super) fn summary(&self) -> GameSummary {
        GameSummary {
            game: self.id,
            table: self.table,
            black: self.black.clone(),
            white: self.white.clone(),
            size: self.settings.size,
            moves_count: self.game.moves().len() as u32,
            watchers_count: self.viewers.count(),
        }
    }

    /// Milliseconds of game time now.
    fn now_ms(&self) -> u64 {
        self.offset_ms + self.epoch.elapsed().as_millis() as u64
    }

    /// The tokio instant of a game-time instant.
    fn instant_of(&self, at_ms: u64) -> Instant {
        self.epoch + Duration::from_millis(at_ms.saturating_sub(self.offset_ms))
    }

    /// Run until the game ends (`true`) or the actor stops with the game still live (`false`: a
    /// shutdown, or an event the store would not take).
    pub(super) async fn run(mut self, mut inbox: mpsc::Receiver<GameCmd>) -> bool {
        let _tasks = self.ctx.tasks.clone();
        let shutdown = self.ctx.shutdown.clone();
        let presence = Arc::clone(&self.presence);
        let viewers = Arc::clone(&self.viewers);
        // A restored game looks at presence once at the start: nobody is connected yet.
        let mut first = Some(self.presence_changed().await);
        loop {
            let step = match first.take() {
                Some(step) => step,
                None => {
                    let wake = self.next_deadline_ms().map(|at_ms| self.instant_of(at_ms));
                    let timer = sleep_until_some(wake);
                    let push_timer = sleep_until_some(self.watchers_pacer.due);
                    let pool_timer = sleep_until_some(self.pool_pacer.due);
                    tokio::select! {
                        _ = shutdown.wait() => return false,
                        cmd = inbox.recv() => match cmd {
                            Some(cmd) => self.handle(cmd).await,
                            None => return false,
                        },
                        _ = presence.changed.notified() => self.presence_changed().await,
                        _ = viewers.changed.notified() => Ok(self.watchers_changed()),
                        _ = push_timer => Ok(self.push_watchers()),
                        _ = pool_timer => {
                            self.publish_pool();
                            Ok(Flow::Continue)
                        }
                        _ = timer => self.on_deadline().await,
                    }
                }
            };
            match step {
                Ok(Flow::Continue) => {}
                Ok(Flow::Over) => {
                    self.finish().await;
                    return true;
                }
                Err(Fatal(err)) => {
                    tracing::error!(game = %self.id, %err, "stopping a game: its event could not be stored");
                    return false;
                }
            }
        }
    }

    async fn handle(&mut self, cmd: GameCmd) -> Result<Flow, Fatal> {
        // A deadline that passed while the command waited in the inbox applies first.
        if self.on_deadline().await? == Flow::Over {
            cmd.refuse_ended();
            return Ok(Flow::Over);
        }
        match cmd {
            GameCmd::Move { user, mv, reply } => {
                let result = self.play(user, mv).await;
                self.answer(reply, result)
            }
            GameCmd::ToggleDead { user, point, reply } => {
                let result = self.toggle_dead(user, point_from_wire(point)).await;
                self.answer(reply, result)
            }
            GameCmd::AcceptScore { user, dead, reply } => {
                let seen = dead.map(|points| points.into_iter().map(point_from_wire).collect());
                let result = self.accept_score(user, seen).await;
                self.answer(reply, result)
            }
            GameCmd::ResumePlay { user, reply } => {
                let result = self.resume_play(user).await;
                self.answer(reply, result)
            }
            GameCmd::Undo { user, reply } => {
                let result = self.ask_undo(user).await;
                self.answer(reply, result)
            }
            GameCmd::AnswerUndo {
                user,
                accept,
                reply,
            } => {
                let result = self.answer_undo(user, accept).await;
                self.answer(reply, result)
            }
            GameCmd::Record { reply } => {
                let _ = reply.send(Ok(self.record_sgf(None)));
                Ok(Flow::Continue)
            }
            GameCmd::Subscribe { viewer, reply } => {
                let _ = reply.send(self.subscribe(viewer));
                Ok(Flow::Continue)
            }
            GameCmd::Summary { reply } => {
                let _ = reply.send(Ok(self.summary()));
                Ok(Flow::Continue)
            }
            GameCmd::Mirror { reply } => {
                let _ = reply.send(Ok(self.mirror()));
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
            Err(fatal) if fatal.moved(self.id) => {
                let _ = reply.send(Err(Refusal::new(
                    ErrorCode::Busy,
                    "the game is moving to another server node; try again",
                )));
                Err(fatal)
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

    /// Store the event with its game-time instant, then publish it with both clocks; the caller
    /// acknowledges after this returns.
    async fn commit(&mut self, event: GameEvent) -> Result<(), Fatal> {
        let logged = self.append(event).await?;
        self.announce(logged);
        Ok(())
    }

    /// Store `event` as the next in the log; it is durable when this returns.
    async fn append(&mut self, event: GameEvent) -> Result<LoggedEvent, Fatal> {
        let seq = self.seq + 1;
        let logged = LoggedEvent {
            event,
            at_ms: self.now_ms(),
        };
        let text = serde_json::to_string(&logged).map_err(|err| Fatal(err.to_string()))?;
        let game = self.id;
        self.ctx
            .store
            .call(move |store| store.append_event(game, seq, &text))
            .await
            .map_err(|err| Fatal(err.to_string()))?;
        self.seq = seq;
        let moves_count = self.game.moves().len() as u32;
        self.moves_count
            .store(moves_count, std::sync::atomic::Ordering::Relaxed);
        Ok(logged)
    }

    /// Send the last stored event, `logged`, to everyone following the game.
    fn announce(&mut self, logged: LoggedEvent) {
        let frame = ServerMsg::GameEvent {
            game: self.id,
            seq: self.seq,
            event: logged.event,
            clocks: self
                .clock_view(logged.at_ms)
                .map(|view| clocks_to_wire(&view)),
            server_time_ms: Some(unix_now_ms()),
        }
        .to_json();
        // No subscribers is fine: the event is stored and snapshots include it.
        let _ = self.frames.send(GameFrame {
            seq: Some(self.seq),
            text: frame.into(),
            hidden_from: [None, None],
        });
    }

    fn clock_view(&self, now_ms: u64) -> Option<ClockView> {
        self.clock.as_ref().map(|clock| clock.snapshot(now_ms))
    }

    /// The clock after a completed move at `at_ms`. The caller has applied any due expiry first, so
    /// the clock cannot refuse; an untimed game has nothing to do.
    fn clock_moved(&mut self, at_ms: u64) {
        if let Some(clock) = &mut self.clock {
            if let Err(err) = clock.on_move(at_ms) {
                tracing::warn!(game = %self.id, %err, "clock refused a move");
            }
        }
    }

    /// The nearest instant (game time) at which something happens without anyone sending anything.
    fn next_deadline_ms(&self) -> Option<u64> {
        if self.outcome.is_some() {
            return None;
        }
        [
            self.clock.as_ref().and_then(Clock::deadline_ms),
            self.first_move_deadline_ms(),
            self.scoring_deadline_ms,
            self.forfeit_deadline_ms(Color::Black),
            self.forfeit_deadline_ms(Color::White),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Before the first move of a game (handicap stones are not moves): when it becomes void.
    fn first_move_deadline_ms(&self) -> Option<u64> {
        let waiting = self.game.moves().is_empty() && self.game.phase() == Phase::Play;
        waiting.then_some(self.ctx.timing.first_move_within_ms)
    }

    fn forfeit_deadline_ms(&self, color: Color) -> Option<u64> {
        self.away_since_ms[color.index()].map(|since| since + self.ctx.timing.disconnect_grace_ms)
    }

    /// Apply everything due by now, in a fixed order: the clock, the no-show, the scoring limit, an
    /// escape.
    async fn on_deadline(&mut self) -> Result<Flow, Fatal> {
        if self.outcome.is_some() {
            return Ok(Flow::Over);
        }
        let now_ms = self.now_ms();
        let expiry = self.clock.as_mut().and_then(|clock| clock.check(now_ms));
        match expiry {
            Some(Expiry::Timeout(side)) => {
                let loser = color_of_side(side);
                return self
                    .end_with(GameResult::Win {
                        winner: loser.opponent(),
                        win_by: WinBy::Time,
                    })
                    .await;
            }
            Some(Expiry::ForcedPass(side)) => {
                let color = color_of_side(side);
                let passed = self.game.play(color, Move::Pass);
                assert!(passed.is_ok(), "a forced pass is the mover's: {passed:?}");
                self.undo_request = None;
                self.commit(GameEvent::Passed {
                    color: color_to_wire(color),
                    forced: true,
                })
                .await?;
                if self.game.phase() == Phase::Scoring {
                    self.open_scoring().await?;
                }
            }
            None => {}
        }
        if self
            .first_move_deadline_ms()
            .is_some_and(|due| now_ms >= due)
        {
            return self.end_with(GameResult::Void).await;
        }
        if self.scoring_deadline_ms.is_some_and(|due| now_ms >= due) {
            return self.count_and_end().await;
        }
        for color in [Color::Black, Color::White] {
            if self
                .forfeit_deadline_ms(color)
                .is_some_and(|due| now_ms >= due)
            {
                let result = if self.away_since_ms[color.opponent().index()].is_some() {
                    GameResult::Void
                } else {
                    GameResult::Win {
                        winner: color.opponent(),
                        win_by: WinBy::Forfeit,
                    }
                };
                return self.end_with(result).await;
            }
        }
        Ok(Flow::Continue)
    }

    /// A player's connections changed: announce a player who left or came back. Connections that
    /// close because the server is shutting down are not the players leaving.
    async fn presence_changed(&mut self) -> Result<Flow, Fatal> {
        if self.outcome.is_some() {
            return Ok(Flow::Over);
        }
        if self.ctx.shutdown.is_triggered() {
            return Ok(Flow::Continue);
        }
        let now_ms = self.now_ms();
        for color in [Color::Black, Color::White] {
            let index = color.index();
            let here = self.presence.counts[index].load(Ordering::SeqCst) > 0;
            if here {
                self.seen[index] = true;
            }
            match (here, self.away_since_ms[index]) {
                (false, None) if self.seen[index] => {
                    self.away_since_ms[index] = Some(now_ms);
                    let forfeit_in_ms = self.forfeit_in_ms(color, now_ms);
                    self.commit(GameEvent::PlayerLeft {
                        color: color_to_wire(color),
                        forfeit_in_ms,
                    })
                    .await?;
                }
                (true, Some(_)) => {
                    self.away_since_ms[index] = None;
                    self.commit(GameEvent::PlayerReturned {
                        color: color_to_wire(color),
                    })
                    .await?;
                }
                _ => {}
            }
        }
        Ok(Flow::Continue)
    }

    /// Someone began or stopped watching: push the list now if the last push is an interval old,
    /// else when it is ([`WATCHER_COUNT_PUSH_MS`]), so a crowd arriving costs one push a second.
    fn watchers_changed(&mut self) -> Flow {
        self.watchers_pacer.changed();
        Flow::Continue
    }

    /// Tell everyone following the game who watches it, unless that is what they were last told.
    ///
    /// Not a game event: the list is about the audience, not the game, so it has no `seq` and never
    /// enters the durable event log (a replay after a restart must not resurrect watchers who are
    /// gone, and hundreds of joins must not grow the record). Nothing is lost by that: every
    /// snapshot (`game_state`, including a resync after falling behind) carries the list as it is.
    fn push_watchers(&mut self) -> Flow {
        self.watchers_pacer.due = None;
        let list = self.viewers.list(WATCHERS_LISTED_MAX);
        if list == self.watchers_pushed {
            return Flow::Continue;
        }
        self.watchers_pacer.pushed();
        let frame = ServerMsg::Watchers {
            game: self.id,
            watchers_count: list.watchers_count,
            anonymous_watchers_count: list.anonymous_watchers_count,
            watchers: list.watchers.clone(),
        }
        .to_json();
        // No subscribers is fine: the next one's snapshot has the list.
        let _ = self.frames.send(GameFrame {
            seq: None,
            text: frame.into(),
            hidden_from: [None, None],
        });
        self.watchers_pushed = list;
        Flow::Continue
    }

    /// What a client shows as an away player's countdown: the grace left, or their own time if that
    /// runs out sooner (a timeout then ends the game first).
    fn forfeit_in_ms(&self, color: Color, now_ms: u64) -> u64 {
        let grace_ms = self
            .forfeit_deadline_ms(color)
            .map_or(0, |due| due.saturating_sub(now_ms));
        match &self.clock {
            Some(clock) => {
                let view = clock.snapshot(now_ms);
                grace_ms.min(time_left_ms(view.side(side_of(color)), clock.settings()))
            }
            None => grace_ms,
        }
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
        let now_ms = self.now_ms();
        self.undo_request = None;
        let event = match engine_move {
            Move::Play(point) => GameEvent::Played {
                color: color_to_wire(color),
                point: wire::point_to_wire(point),
                captured: points_to_wire(self.game.last_captured().iter().copied()),
            },
            Move::Pass => GameEvent::Passed {
                color: color_to_wire(color),
                forced: false,
            },
            Move::Resign => {
                let result = self.game.result().expect("resigning ends the game");
                return self.end_with(result).await.map(Ok);
            }
        };
        self.clock_moved(now_ms);
        self.commit(event).await?;
        if self.game.phase() == Phase::Scoring {
            self.open_scoring().await?;
        }
        Ok(Ok(Flow::Continue))
    }

    /// The clock pauses and the scoring phase's own limit starts.
    fn enter_scoring(&mut self, at_ms: u64) {
        if let Some(clock) = &mut self.clock {
            // A clock that is not running (already paused) has nothing to pause.
            let _ = clock.pause(at_ms);
        }
        self.undo_request = None;
        self.scoring_deadline_ms = Some(at_ms + self.ctx.timing.scoring_phase_ms);
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
        self.enter_scoring(self.now_ms());
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

    /// A player accepts the marking; `seen`, the marking they accept, must still be the marking.
    async fn accept_score(
        &mut self,
        user: UserId,
        seen: Option<BTreeSet<Point>>,
    ) -> Result<Result<Flow, Refusal>, Fatal> {
        let (color, scoring) = match self.scoring_for(user) {
            Ok(found) => found,
            Err(refusal) => return Ok(Err(refusal)),
        };
        if seen.is_some_and(|seen| seen != scoring.dead) {
            return Ok(Err(Refusal::new(
                ErrorCode::MarkingChanged,
                "the dead stones changed before your accept arrived; look at the marking again",
            )));
        }
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
        self.count_and_end().await.map(Ok)
    }

    /// Count the board with the current marking and end the game with that result.
    async fn count_and_end(&mut self) -> Result<Flow, Fatal> {
        let dead: Vec<Point> = self
            .scoring
            .as_ref()
            .map(|s| s.dead.iter().copied().collect())
            .unwrap_or_default();
        let score = self.game.score(&dead);
        self.game.end(score.result);
        self.end(wire::outcome(score.result, Some(&score))).await
    }

    /// Play restarts after a scoring dispute with `to_move` to play, at game time `at_ms`.
    fn restart_play(&mut self, to_move: Color, at_ms: u64) {
        let resumed = self.game.resume(to_move);
        assert!(resumed, "play resumes only from the scoring phase");
        self.scoring = None;
        self.scoring_deadline_ms = None;
        if let Some(clock) = &mut self.clock {
            if let Err(err) = clock.resume(at_ms, side_of(to_move)) {
                tracing::warn!(game = %self.id, %err, "clock refused to resume");
            }
        }
    }

    async fn resume_play(&mut self, user: UserId) -> Result<Result<Flow, Refusal>, Fatal> {
        let color = match self.scoring_for(user) {
            Ok((color, _)) => color,
            Err(refusal) => return Ok(Err(refusal)),
        };
        // The asker disputes the marking; the other player claimed the stones dead and moves first.
        let to_move = color.opponent();
        self.restart_play(to_move, self.now_ms());
        self.commit(GameEvent::PlayResumed {
            by: color_to_wire(color),
            to_move: color_to_wire(to_move),
        })
        .await?;
        Ok(Ok(Flow::Continue))
    }

    /// How many plies an undo by `color` takes back now: their last move, and the opponent's reply
    /// if one followed it. `None` when `color` has no move to take back.
    fn undo_plies(&self, color: Color) -> Option<usize> {
        if self.game.phase() != Phase::Play {
            return None;
        }
        let moves = self.game.moves();
        match moves {
            [.., (last, _)] if *last == color => Some(1),
            [.., (mine, _), _] if *mine == color => Some(2),
            _ => None,
        }
    }

    async fn ask_undo(&mut self, user: UserId) -> Result<Result<Flow, Refusal>, Fatal> {
        let color = match self.color_of(user) {
            Ok(color) => color,
            Err(refusal) => return Ok(Err(refusal)),
        };
        if self.undo_request.is_some() {
            return Ok(Err(Refusal::new(
                ErrorCode::NoUndo,
                "an undo request is already waiting for an answer",
            )));
        }
        if self.undo_plies(color).is_none() {
            return Ok(Err(Refusal::new(
                ErrorCode::NoUndo,
                "you have no move in play to take back",
            )));
        }
        self.undo_request = Some(color);
        self.commit(GameEvent::UndoRequested {
            color: color_to_wire(color),
        })
        .await?;
        Ok(Ok(Flow::Continue))
    }

    async fn answer_undo(
        &mut self,
        user: UserId,
        accept: bool,
    ) -> Result<Result<Flow, Refusal>, Fatal> {
        let color = match self.color_of(user) {
            Ok(color) => color,
            Err(refusal) => return Ok(Err(refusal)),
        };
        let asker = match self.undo_request {
            Some(asker) if asker == color.opponent() => asker,
            _ => {
                return Ok(Err(Refusal::new(
                    ErrorCode::NoUndo,
                    "your opponent has not asked to take a move back",
                )))
            }
        };
        if !accept {
            self.undo_request = None;
            self.commit(GameEvent::UndoDeclined {
                color: color_to_wire(asker),
            })
            .await?;
            return Ok(Ok(Flow::Continue));
        }
        let now_ms = self.now_ms();
        self.take_back(asker, now_ms);
        self.commit(GameEvent::UndoAccepted {
            color: color_to_wire(asker),
            by: color_to_wire(color),
            moves_count: self.game.moves().len() as u32,
            to_move: color_to_wire(self.game.to_move()),
            board: wire::board_rows(self.game.board()),
        })
        .await?;
        Ok(Ok(Flow::Continue))
    }

    /// Take back `asker`'s last move (and the reply after it) at game time `at_ms`; the clock goes
    /// to `asker` without giving back time already used.
    fn take_back(&mut self, asker: Color, at_ms: u64) {
        self.undo_request = None;
        let Some(plies) = self.undo_plies(asker) else {
            return;
        };
        let number = self.game.moves().len() + 1 - plies;
        for _ in 0..plies {
            self.game.undo();
        }
        if self.undo_notes.len() < UNDO_NOTES_MAX {
            self.undo_notes
                .push(format!("{asker} took back move {number} (undo accepted)"));
        }
        if let Some(clock) = &mut self.clock {
            let paused = clock.pause(at_ms);
            if paused.is_ok() {
                let _ = clock.resume(at_ms, side_of(self.game.to_move()));
            }
        }
    }

    /// Stop the clock and record `result` (the engine's game ends with it too).
    async fn end_with(&mut self, result: GameResult) -> Result<Flow, Fatal> {
        if self.game.result().is_none() {
            self.game.end(result);
        }
        self.end(wire::outcome(result, None)).await
    }

    /// Record the result: every ending (count, resignation, timeout, forfeit, void) comes here, and
    /// the run loop then calls [`GameActor::finish`].
    async fn end(&mut self, outcome: GameOutcome) -> Result<Flow, Fatal> {
        let now_ms = self.now_ms();
        if let Some(clock) = &mut self.clock {
            // A clock that already finished (a timeout) has nothing to stop.
            let _: Result<(), ClockError> = clock.stop(now_ms);
        }
        self.outcome = Some(outcome.clone());
        let logged = self.append(GameEvent::Ended { outcome }).await?;
        // The table is free once the result is stored. The hall hears it before the players do, so
        // a player who sees the end and proposes the next game at once finds the table free.
        self.ctx
            .hall
            .send(HallCmd::GameEnded {
                game: self.id,
                table: self.table,
            })
            .await;
        self.announce(logged);
        Ok(Flow::Over)
    }

    /// After the result is recorded: settle the game's points, store the SGF, rate it, and let
    /// the actor stop. Settling comes before marking the game finished, so a crash in between
    /// replays the end and settles again, which the ledger makes a no-op the second time.
    async fn finish(&mut self) {
        let Some(outcome) = self.outcome.clone() else {
            return;
        };
        self.ended.store(true, std::sync::atomic::Ordering::SeqCst);
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
            Ok(_) => {
                self.publish_pool();
                self.push_balances().await;
            }
            // The game stays unsettled in the store; the next start settles it.
            Err(err) => tracing::error!(game = %self.id, %err, "could not settle a game"),
        }
        let sgf = self.record_sgf(Some(&outcome));
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
        if let Some(result) = self.game.result() {
            let players = self.players();
            if let Err(err) = crate::rating::rate_game(&self.ctx.store, game, players, result).await
            {
                tracing::error!(game = %self.id, %err, "could not rate a finished game");
            }
        }
    }

    /// After settling: everyone whose points were in escrow hears their new balance on every
    /// connection, through the hall, whether or not they still follow this game.
    async fn push_balances(&self) {
        let accounts: Vec<UserId> = self.tally.accounts().into_iter().collect();
        if accounts.is_empty() {
            return;
        }
        match self.ctx.ledger.balances(accounts).await {
            Ok(balances) => self.ctx.hall.send(HallCmd::Balances { balances }).await,
            // They still see it when they next ask (`balance`, or their bets).
            Err(err) => tracing::warn!(game = %self.id, %err, "could not read balances to push"),
        }
    }

    /// The SGF FF[4] record: players, ranks, date, time settings, result, and accepted undos.
    fn record_sgf(&self, outcome: Option<&GameOutcome>) -> String {
        let (time_limit, overtime) = wire::sgf_time(&self.settings.clock);
        let comment = (!self.undo_notes.is_empty()).then(|| self.undo_notes.join("\n"));
        let info = GameInfo {
            black: Some(self.black.username.clone()),
            white: Some(self.white.username.clone()),
            black_rank: Some(self.black.rank.clone()),
            white_rank: Some(self.white.rank.clone()),
            date: Some(sgf_date(self.started_at_ms)),
            event: Some("Tengen".into()),
            result: outcome.map(|o| o.sgf.clone()),
            time_limit,
            overtime,
            comment,
            ..GameInfo::default()
        };
        GameRecord::from_game(&self.game, &info).to_sgf()
    }

    /// The state and the frames after it for another node, which counts its own watchers.
    fn mirror(&self) -> Mirror {
        let snapshot = ServerMsg::GameState {
            state: Box::new(self.state()),
        }
        .to_json();
        Mirror {
            snapshot: Frame::from(snapshot),
            seq: self.seq,
            frames: self.frames.subscribe(),
        }
    }

    fn subscribe(&self, viewer: Option<PlayerInfo>) -> Result<Subscription, Refusal> {
        // Receivers, not people: each costs this node a forwarder whoever holds it.
        if self.frames.receiver_count() >= WATCHERS_PER_GAME_MAX {
            return Err(Refusal::new(
                ErrorCode::TooManyWatchers,
                "this game has as many watchers as it takes",
            ));
        }
        let frames = self.frames.subscribe();
        let presence = viewer
            .as_ref()
            .and_then(|info| self.color_of(info.user).ok())
            .map(|color| PresenceGuard::new(Arc::clone(&self.presence), color.index()));
        // Counted in before the snapshot is taken, so a new watcher finds themselves in the list.
        let viewer = ViewerGuard::new(Arc::clone(&self.viewers), viewer);
        let snapshot = ServerMsg::GameState {
            state: Box::new(self.state()),
        }
        .to_json();
        Ok(Subscription {
            snapshot: Frame::from(snapshot),
            seq: self.seq,
            frames,
            presence,
            viewer,
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
        let now_ms = self.now_ms();
        let left = |due: Option<u64>| due.map(|due| due.saturating_sub(now_ms));
        let away = [Color::Black, Color::White]
            .into_iter()
            .filter(|color| self.away_since_ms[color.index()].is_some())
            .map(|color| Away {
                color: color_to_wire(color),
                forfeit_in_ms: self.forfeit_in_ms(color, now_ms),
            })
            .collect();
        let live = self.outcome.is_none();
        let watching = self.viewers.list(WATCHERS_LISTED_MAX);
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
            watchers_count: watching.watchers_count,
            anonymous_watchers_count: watching.anonymous_watchers_count,
            watchers: watching.watchers,
            clocks: self.clock_view(now_ms).map(|view| clocks_to_wire(&view)),
            server_time_ms: Some(unix_now_ms()),
            undo_requested_by: self.undo_request.map(color_to_wire),
            first_move_in_ms: left(self.first_move_deadline_ms().filter(|_| live)),
            scoring_ends_in_ms: left(self.scoring_deadline_ms.filter(|_| live)),
            away,
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

    /// The pool changed by a bet: push it now if the last push is [`POOL_PUSH_MS`] old, otherwise
    /// when it will be, so a burst of bets costs each follower one frame.
    fn pool_changed(&mut self) {
        self.pool_pacer.changed();
    }

    /// Tell everyone following the game how the pool stands, now (which also makes any coalesced
    /// push that was due unnecessary).
    fn publish_pool(&mut self) {
        self.pool_pacer.pushed();
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
        self.pool_changed();
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

/// When a coalesced push (the watchers list, the pool) is next due: a change is pushed at once when
/// the last push is an interval old, otherwise when it will be, so a burst of changes costs each
/// follower one frame per interval.
#[derive(Debug)]
struct Pacer {
    interval: Duration,
    pushed_at: Option<Instant>,
    /// `None`: nothing changed since the last push.
    due: Option<Instant>,
}

impl Pacer {
    fn new(interval_ms: u64) -> Pacer {
        Pacer {
            interval: Duration::from_millis(interval_ms),
            pushed_at: None,
            due: None,
        }
    }

    /// Something changed: schedule a push unless one is already due.
    fn changed(&mut self) {
        if self.due.is_none() {
            let now = Instant::now();
            let due = self
                .pushed_at
                .map_or(now, |at| (at + self.interval).max(now));
            self.due = Some(due);
        }
    }

    /// A push went out now (which makes any scheduled one unnecessary).
    fn pushed(&mut self) {
        self.due = None;
        self.pushed_at = Some(Instant::now());
    }
}

/// Sleep until `wake`, or for ever when there is nothing to wake for (a `select!` branch that never
/// fires).
async fn sleep_until_some(wake: Option<Instant>) {
    match wake {
        Some(wake) => tokio::time::sleep_until(wake).await,
        None => std::future::pending().await,
    }
}

/// All the time a side has before it runs out, from its displayed clock: main time plus whatever
/// overtime is left.
fn time_left_ms(view: &SideView, settings: &clock::ClockSettings) -> u64 {
    let overtime_ms = match *settings {
        clock::ClockSettings::ByoYomi { period_ms, .. } => {
            view.period_left_ms + u64::from(view.periods_left.saturating_sub(1)) * period_ms
        }
        clock::ClockSettings::Canadian { .. } => view.block_left_ms,
        clock::ClockSettings::Absolute { .. } | clock::ClockSettings::Fischer { .. } => 0,
    };
    view.main_left_ms + overtime_ms
}

/// SGF `DT` (YYYY-MM-DD, UTC) of a Unix time in ms, by the days-to-civil algorithm (H. Hinnant).
fn sgf_date(unix_ms: u64) -> String {
    let days = (unix_ms / 86_400_000) as i64 + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgf_dates_are_civil_utc_days() {
        assert_eq!(sgf_date(0), "1970-01-01");
        // 2000-02-29 12:00 UTC, a leap day in a century leap year.
        assert_eq!(sgf_date(951_825_600_000), "2000-02-29");
        // 2026-11-29 00:00 UTC.
        assert_eq!(sgf_date(1_795_910_400_000), "2026-11-29");
    }
}
