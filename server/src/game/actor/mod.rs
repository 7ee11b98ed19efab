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
//! Every ending goes through [`GameActor::end`] (record the result and tell the hall, before the
//! players hear of the end) and then [`GameActor::finish`] (settle the points, store the SGF, rate
//! the game): the one place where "game over" happens.
//!
//! This module holds the actor itself: its state, game time, the run loop and the dispatch of
//! commands, moves, and the one way every change goes into the log and out to subscribers
//! (`append`, then `announce`; `commit` does both). The rest is split by concern into child
//! modules, each an `impl GameActor` block over the same private fields, and each says in its own
//! doc which rules it decides, in the players' terms:
//! - `restore`: rebuilding a live game from its event log after a restart;
//! - `deadlines`: the clock, and what happens at a deadline with nobody sending anything
//!   (timeout, forced pass, no-show, escape), and the players' presence;
//! - `scoring`: the scoring phase, from two passes to a count or a dispute;
//! - `undo`: undo requests and taking moves back;
//! - `ending`: ending a game, settling it, and its SGF record;
//! - `event_rules`: an event's game: lateness, the director's warnings, pauses and adjournments
//!   with a sealed move;
//! - `audience`: subscribers, snapshots, the watchers list, the watchers' chat, coalesced pushes;
//! - `money`: fortune points, the spectator pool, bets and the players' stakes;
//! - `keys`: the clients' retry keys, recorded with moves, and answering a retry;
//! - `outage`: a store write that failed or whose outcome is unknown: the game goes on as its log
//!   says;
//! - `supervisor`: restarting an actor that panicked from its log, a bounded number of times.

mod audience;
mod bets;
mod deadlines;
mod ending;
mod event_rules;
mod keys;
mod money;
mod outage;
mod restore;
mod scoring;
mod supervisor;
mod undo;

pub(super) use keys::answer_from_log;
#[cfg(test)]
pub(super) use supervisor::panic_next_command;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tengen_protocol::{
    ErrorCode, GameEvent, GameId, GameOutcome, GameSummary, HaltKind, PlayerInfo, RequestKey,
    ServerMsg, TableId, UserId,
};
use tengen_rules::{Color, Game, GameResult, Move, Phase, WinBy};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::wire;
use super::{
    FanOut, GameCmd, GameContext, GameReply, GameRequest, PlayerMove, Presence, StartGame, Viewers,
    WatcherList,
};
use crate::clock::Clock;
use crate::config::{POOL_PUSH_MS, WATCHER_COUNT_PUSH_MS};
use crate::game::core::GameCore;
use crate::ledger::pool::Tally;
use crate::store::StoreError;
use crate::{unix_now_ms, Refusal, Reply};
use audience::Pacer;

/// One event as the log stores it: the wire event plus the game-time instant it happened, from
/// which a restart replays the clocks exactly.
#[derive(Debug, Serialize, Deserialize)]
struct LoggedEvent {
    #[serde(flatten)]
    event: GameEvent,
    #[serde(default)]
    at_ms: u64,
    /// The key the player sent with the move, pass or resignation this event records, so a retry
    /// is recognised after a restart, on another node, and after the game ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    key: Option<KeyRecord>,
    /// With a `sealed` event only: the sealed move, which no frame carries (see `event_rules`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sealed: Option<Sealed>,
}

/// A sealed move as its log entry keeps it: a stone at `point`, or a pass when it is `None`.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Sealed {
    point: Option<tengen_protocol::Point>,
}

/// A client's retry key and whose it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct KeyRecord {
    user: UserId,
    key: RequestKey,
}

/// What a command did: carry on, or the game is over and the actor should wind up.
#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Over,
}

/// An event the store did not record, so the in-memory game may be ahead of the log. Nothing is
/// acknowledged. When another node owns the game now, the actor stops (the game goes on there);
/// otherwise the run loop puts the game back as it was before the command and catches up with the
/// log once the store answers again (see `outage`), so a store outage never ends a game.
#[derive(Debug)]
enum Fatal {
    Store(StoreError),
    /// The event could not be encoded (a bug): nothing was written.
    Encode(String),
}

impl Fatal {
    /// The store refused because another node owns the game now: it goes on there.
    fn moved(&self) -> bool {
        matches!(self, Fatal::Store(StoreError::NotOwner(_)))
    }
}

impl std::fmt::Display for Fatal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fatal::Store(err) => err.fmt(f),
            Fatal::Encode(err) => write!(f, "could not encode an event: {err}"),
        }
    }
}

pub(super) struct GameActor {
    id: GameId,
    table: Option<TableId>,
    black: PlayerInfo,
    white: PlayerInfo,
    nigiri_seed: Option<u64>,
    /// The game itself: board, clock, scoring, undo, presence times, event rules, seq, outcome.
    core: GameCore,
    /// The spectator pool's bets and the players' stakes, as in the book.
    tally: Tally,
    fan_out: FanOut,
    ctx: GameContext,
    /// The tokio instant at which game time was `offset_ms`.
    epoch: Instant,
    offset_ms: u64,
    /// Wall-clock start (Unix ms), for the record's date.
    started_at_ms: u64,
    /// Players' connections, counted by their subscriptions.
    presence: Arc<Presence>,
    /// Whether each player has been counted present since this actor started: a player whose
    /// subscription has not arrived yet at the start of a game is not "away".
    seen: [bool; 2],
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
    /// Set when a state went out naming other watchers than the last push did (a subscription's
    /// snapshot, taken between pushes): the next push must then name them all again, even if the
    /// names are back to the pushed ones. Atomic because `state` reads the actor shared.
    watchers_shown_differ: AtomicBool,
    /// When the next `watchers` push is due, at most one per [`WATCHER_COUNT_PUSH_MS`].
    watchers_pacer: Pacer,
    /// When the next `pool` push is due, at most one per [`POOL_PUSH_MS`].
    pool_pacer: Pacer,
    /// The moves, passes and resignations players sent with a key, by player and key: a retry is
    /// answered from here. One entry per keyed event, so bounded by the game's log.
    move_keys: HashMap<(UserId, RequestKey), PlayerMove>,
    /// The key of the resignation being recorded, for the `ended` event that records it.
    ending_key: Option<KeyRecord>,
    /// After a failed write: the log may hold events this actor does not (see `outage`).
    doubt: outage::Doubt,
    /// The `seq` of the last event sent to subscribers (an event stored but not yet announced when
    /// a later write of the same command failed is announced when the log is read back).
    announced_seq: u64,
    /// The `seq` when the current step (a command, a deadline) began: a failure after it appended
    /// something left part of the step in the log.
    step_seq: u64,
    /// The tally may lack a bet or stake whose write had an unknown outcome: read the book again
    /// before the next one.
    tally_stale: bool,
    /// Watchers' bets on their way to the book (see `bets`).
    bets: bets::InFlight,
    /// A command whose step failed in a deadline's write before it was handled, for the run loop
    /// to answer after putting the game back.
    held: Option<GameCmd>,
    /// Who may not bet besides the players (an event's entrants on its games).
    bettors_barred: Vec<UserId>,
}

impl std::fmt::Debug for GameActor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GameActor")
            .field("id", &self.id)
            .field("seq", &self.core.seq)
            .finish()
    }
}

impl GameActor {
    pub(super) fn new(
        id: GameId,
        start: StartGame,
        game: Game,
        ctx: GameContext,
        started_at_ms: u64,
    ) -> Result<GameActor, Refusal> {
        let clock = match wire::clock_settings(&start.settings.clock)? {
            Some(settings) => {
                let mut clock = Clock::new(settings)
                    .map_err(|err| Refusal::new(ErrorCode::InvalidSettings, err.to_string()))?;
                // A fresh clock always starts; the first mover's time runs from game time 0.
                let started = clock.start(0, game.to_move());
                assert!(started.is_ok(), "a new clock starts: {started:?}");
                Some(clock)
            }
            None => None,
        };
        let viewers = Arc::new(Viewers::new([start.black.user, start.white.user]));
        Ok(GameActor {
            id,
            table: start.table,
            bettors_barred: start.bettors_barred,
            black: start.black,
            white: start.white,
            nigiri_seed: start.nigiri_seed,
            core: GameCore::new(start.settings, ctx.timing, game, clock),
            tally: Tally::default(),
            fan_out: FanOut::default(),
            ctx,
            epoch: Instant::now(),
            offset_ms: 0,
            started_at_ms,
            presence: Arc::new(Presence::default()),
            seen: [false, false],
            viewers,
            ended: Arc::new(AtomicBool::new(false)),
            moves_count: Arc::default(),
            watchers_pushed: WatcherList::default(),
            watchers_shown_differ: AtomicBool::new(false),
            watchers_pacer: Pacer::new(WATCHER_COUNT_PUSH_MS),
            pool_pacer: Pacer::new(POOL_PUSH_MS),
            move_keys: HashMap::new(),
            ending_key: None,
            doubt: outage::Doubt::default(),
            announced_seq: 0,
            step_seq: 0,
            tally_stale: false,
            bets: bets::InFlight::default(),
            held: None,
        })
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
            size: self.core.settings.size,
            moves_count: self.core.game.moves().len() as u32,
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
    /// shutdown, or another node owns the game now).
    pub(super) async fn run(mut self, inbox: &mut mpsc::Receiver<GameCmd>) -> bool {
        let _tasks = self.ctx.tasks.clone();
        let shutdown = self.ctx.shutdown.clone();
        let presence = Arc::clone(&self.presence);
        let viewers = Arc::clone(&self.viewers);
        self.announced_seq = self.core.seq;
        // A restored game looks at presence once at the start: nobody is connected yet.
        let mut first = Some(Step::Presence);
        loop {
            let step = match first.take() {
                Some(step) => self.step(step).await,
                None => {
                    let timer = sleep_until_some(self.wake_at());
                    let push_timer = sleep_until_some(self.watchers_pacer.due);
                    let pool_timer = sleep_until_some(self.pool_pacer.due);
                    tokio::select! {
                        _ = shutdown.wait() => {
                            // Bets in flight are answered as their writes went.
                            self.drain_bets().await;
                            return stopped_here(inbox);
                        }
                        cmd = inbox.recv() => match cmd {
                            Some(cmd) => self.step(Step::Command(cmd)).await,
                            None => return false,
                        },
                        _ = presence.changed.notified() => self.step(Step::Presence).await,
                        _ = viewers.changed.notified() => Ok(self.watchers_changed()),
                        _ = push_timer => Ok(self.push_watchers()),
                        _ = pool_timer => {
                            self.publish_pool();
                            Ok(Flow::Continue)
                        }
                        done = self.bets.next_written(), if !self.bets.is_empty() => {
                            self.bet_written(done);
                            Ok(Flow::Continue)
                        }
                        _ = timer => self.step(Step::Deadline).await,
                    }
                }
            };
            match step {
                Ok(Flow::Continue) => {}
                Ok(Flow::Over) => {
                    self.finish().await;
                    self.answer_after_the_end(inbox);
                    return true;
                }
                Err(fatal) => {
                    tracing::warn!(game = %self.id, %fatal, "another node owns this game now; stopping it here");
                    self.drain_bets().await;
                    return stopped_here(inbox);
                }
            }
        }
    }

    /// When the run loop next wakes by itself: the nearest deadline, or while the log is in
    /// doubt, the next attempt to read it back (deadlines wait for that).
    fn wake_at(&self) -> Option<Instant> {
        match self.doubt.retry_at() {
            Some(retry) => Some(retry),
            None => self.next_deadline_ms().map(|at_ms| self.instant_of(at_ms)),
        }
    }

    /// One step that may write to the log: a command, a presence change, a deadline. A write that
    /// fails puts the game back as it was before the step (see `outage`); only a game that another
    /// node owns now ends the actor (`Err`).
    async fn step(&mut self, step: Step) -> Result<Flow, Fatal> {
        let step = match step {
            // Reads are served even while the store is out of reach; one that can write nothing
            // (no deadline is due) needs no checkpoint.
            Step::Command(cmd) if !cmd.writes() && (self.in_doubt() || !self.deadline_due()) => {
                return self.handle(cmd).await;
            }
            step => step,
        };
        match self.settle_doubt().await {
            Ok(Flow::Continue) => {}
            Ok(Flow::Over) => {
                if let Step::Command(cmd) = step {
                    cmd.refuse_ended();
                }
                return Ok(Flow::Over);
            }
            Err(refusal) => {
                if let Step::Command(cmd) = step {
                    cmd.refuse(refusal);
                }
                return Ok(Flow::Continue);
            }
        }
        let before = self.checkpoint();
        self.step_seq = self.core.seq;
        let result = match step {
            Step::Command(cmd) => self.handle(cmd).await,
            Step::Presence => self.presence_changed().await,
            Step::Deadline => match self.presence_changed().await {
                Ok(Flow::Continue) => self.on_deadline().await,
                other => other,
            },
        };
        match result {
            Err(fatal) if !fatal.moved() => {
                self.write_failed(before, &fatal);
                // A command held up by a deadline whose write failed: refused, or served as a read.
                if let Some(cmd) = self.held.take() {
                    if cmd.writes() {
                        cmd.refuse(outage::refusal(&fatal, false));
                    } else {
                        return self.handle(cmd).await;
                    }
                }
                Ok(Flow::Continue)
            }
            other => {
                if let Some(cmd) = self.held.take() {
                    cmd.refuse(moving());
                }
                other
            }
        }
    }

    /// Once the game is over and settled: close the inbox and answer the questions that waited
    /// in it while the game was being settled (the final pool and record) instead of dropping them.
    /// Anything else is dropped, and its sender hears `no_such_game`, as for a finished game.
    fn answer_after_the_end(&self, inbox: &mut mpsc::Receiver<GameCmd>) {
        inbox.close();
        while let Ok(cmd) = inbox.try_recv() {
            let GameCmd::Request {
                request,
                reply: Some(reply),
            } = cmd
            else {
                continue;
            };
            let answer = match request {
                GameRequest::Pool => GameReply::Pool {
                    pool: self.pool_info(),
                },
                GameRequest::Record => self.record_reply(self.core.outcome.as_ref()),
                GameRequest::Summary => GameReply::Summary {
                    summary: self.summary(),
                },
                _ => continue,
            };
            let _ = reply.send(Ok(answer));
        }
    }

    /// A deadline has passed and not been applied yet.
    fn deadline_due(&self) -> bool {
        self.next_deadline_ms()
            .is_some_and(|at_ms| at_ms <= self.now_ms())
    }

    fn in_doubt(&self) -> bool {
        self.doubt.retry_at().is_some()
    }

    async fn handle(&mut self, cmd: GameCmd) -> Result<Flow, Fatal> {
        #[cfg(test)]
        if supervisor::take_panic_fault() {
            panic!("test fault: a game actor panics");
        }
        // A deadline that passed while the command waited in the inbox applies first (while the log
        // is in doubt, deadlines wait for the store).
        if !self.in_doubt() {
            match self.on_deadline().await {
                Ok(Flow::Continue) => {}
                Ok(Flow::Over) => {
                    cmd.refuse_ended();
                    return Ok(Flow::Over);
                }
                Err(fatal) => {
                    self.held = Some(cmd);
                    return Err(fatal);
                }
            }
        }
        match cmd {
            GameCmd::Request { request, reply } => self.apply(request, reply).await,
            GameCmd::Subscribe { viewer, reply } => {
                let _ = reply.send(self.subscribe(viewer));
                Ok(Flow::Continue)
            }
            GameCmd::Mirror { reply } => {
                let _ = reply.send(Ok(self.mirror()));
                Ok(Flow::Continue)
            }
        }
    }

    /// Do what a request asks and answer it (when someone waits).
    async fn apply(
        &mut self,
        request: GameRequest,
        reply: Option<Reply<GameReply>>,
    ) -> Result<Flow, Fatal> {
        use GameRequest as R;
        let answered = match request {
            R::Move { user, mv, key } => {
                let result = self.play(user, mv, key).await;
                return self.answer(reply, result);
            }
            R::ToggleDead { user, point } => {
                let result = self.toggle_dead(user, point).await;
                return self.answer(reply, result);
            }
            R::AcceptScore { user, dead } => {
                let seen = dead.map(|points| points.into_iter().collect());
                let result = self.accept_score(user, seen).await;
                return self.answer(reply, result);
            }
            R::ResumePlay { user } => {
                let result = self.resume_play(user).await;
                return self.answer(reply, result);
            }
            R::Undo { user } => {
                let result = self.ask_undo(user).await;
                return self.answer(reply, result);
            }
            R::AnswerUndo { user, accept } => {
                let result = self.answer_undo(user, accept).await;
                return self.answer(reply, result);
            }
            R::Record => Ok(self.record_reply(None)),
            R::Summary => Ok(GameReply::Summary {
                summary: self.summary(),
            }),
            R::Pool => Ok(GameReply::Pool {
                pool: self.pool_info(),
            }),
            R::PlayerChat {
                from,
                text,
                at_ms,
                line,
            } => self
                .player_chat(from, (text, at_ms), line)
                .map(|()| GameReply::Done),
            R::Kibitz {
                from,
                text,
                at_ms,
                line,
            } => self
                .kibitz(from, (text, at_ms), line)
                .map(|()| GameReply::Done),
            R::RemoveChat { channel, line } => {
                self.remove_chat(channel, line);
                Ok(GameReply::Done)
            }
            R::Void => {
                let result = self
                    .adjudicate(tengen_protocol::EventOutcome::BothLose)
                    .await;
                return self.answer(reply, result);
            }
            R::Bet { user, .. } if self.bettors_barred.contains(&user) => Err(Refusal::new(
                ErrorCode::PlayersCannotBet,
                "players of an event may not bet on its games",
            )),
            R::Adjudicate { outcome } => {
                let result = self.adjudicate(outcome).await;
                return self.answer(reply, result);
            }
            R::Warn { color } => {
                let result = self.warn(color).await;
                return self.answer(reply, result);
            }
            R::Pause { resume_at_ms } => {
                let result = self.halt(HaltKind::Pause, resume_at_ms).await;
                return self.answer(reply, result);
            }
            R::Adjourn { resume_at_ms } => {
                let result = self.halt(HaltKind::Adjournment, resume_at_ms).await;
                return self.answer(reply, result);
            }
            R::Resume => {
                let result = self.resume_halted().await;
                return self.answer(reply, result);
            }
            R::Seal { user, point } => {
                let result = self.seal(user, point).await;
                return self.answer(reply, result);
            }
            R::BarBettors { users } => {
                self.bettors_barred = users;
                Ok(GameReply::Done)
            }
            R::Bet {
                user,
                side,
                amount,
                key,
            } => {
                // Answered when its write is durable (see `bets`), not here.
                self.bet((user, side, amount), key, reply).await;
                return Ok(Flow::Continue);
            }
            R::Stakes {
                entries,
                student,
                hold,
            } => self
                .stakes(entries, student, hold)
                .await
                .map(|()| GameReply::Done),
            R::StakeRaise { user, amount, key } => self
                .raise_stake(user, amount, key)
                .await
                .map(|()| GameReply::Done),
        };
        if let Some(reply) = reply {
            let _ = reply.send(answered);
        }
        Ok(Flow::Continue)
    }

    fn record_reply(&self, outcome: Option<&GameOutcome>) -> GameReply {
        GameReply::Record {
            sgf: self.record_sgf(outcome),
        }
    }

    /// Send the reply of a command that may have changed the game, and tell the loop what follows.
    fn answer(
        &self,
        reply: Option<Reply<GameReply>>,
        result: Result<Result<Flow, Refusal>, Fatal>,
    ) -> Result<Flow, Fatal> {
        let (answer, next) = match result {
            Ok(Ok(flow)) => (Ok(GameReply::Done), Ok(flow)),
            Ok(Err(refusal)) => (Err(refusal), Ok(Flow::Continue)),
            Err(fatal) if fatal.moved() => (Err(moving()), Err(fatal)),
            Err(fatal) => {
                // Part of this step already in the log means part of it happened.
                let partial = self.core.seq > self.step_seq;
                (Err(outage::refusal(&fatal, partial)), Err(fatal))
            }
        };
        if let Some(reply) = reply {
            let _ = reply.send(answer);
        }
        next
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

    async fn play(
        &mut self,
        user: UserId,
        mv: PlayerMove,
        key: Option<RequestKey>,
    ) -> Result<Result<Flow, Refusal>, Fatal> {
        let color = match self.color_of(user) {
            Ok(color) => color,
            Err(refusal) => return Ok(Err(refusal)),
        };
        if let Some(first) = key.as_ref().and_then(|key| self.keyed_move(user, key)) {
            // A retry: the first outcome, without playing it again.
            return Ok(keys::repeat(first, mv).map(|()| Flow::Continue));
        }
        self.arrive(color).await?;
        if let Err(refusal) = self.refuse_if_halted() {
            return Ok(Err(refusal));
        }
        let record = key.map(|key| KeyRecord { user, key });
        let engine_move = match mv {
            PlayerMove::Play(point) => Move::Play(point),
            PlayerMove::Pass => Move::Pass,
            PlayerMove::Resign => Move::Resign,
        };
        if let Err(reason) = self.core.game.play(color, engine_move) {
            return Ok(Err(wire::illegal(reason)));
        }
        let now_ms = self.now_ms();
        self.core.undo_request = None;
        let event = match engine_move {
            Move::Play(point) => GameEvent::Played {
                color,
                point,
                captured: self.core.game.last_captured().to_vec(),
            },
            Move::Pass => GameEvent::Passed {
                color,
                forced: false,
            },
            Move::Resign => {
                // The engine ended the game with the resignation; `end_with` keeps its result.
                let result = self.core.game.result().unwrap_or(GameResult::Win {
                    winner: color.opponent(),
                    win_by: WinBy::Resign,
                });
                self.ending_key = record;
                return self.end_with(result).await.map(Ok);
            }
        };
        self.clock_moved(now_ms);
        let logged = self.append_keyed(event, record).await?;
        self.announce(logged);
        if self.core.game.phase() == Phase::Scoring {
            self.open_scoring().await?;
        }
        Ok(Ok(Flow::Continue))
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
        self.append_keyed(event, None).await
    }

    /// [`GameActor::append`], with the key the player sent with the move it records, stored in
    /// the same log entry and remembered once it is.
    async fn append_keyed(
        &mut self,
        event: GameEvent,
        key: Option<KeyRecord>,
    ) -> Result<LoggedEvent, Fatal> {
        let at_ms = self.now_ms();
        self.append_logged(event, key, None, at_ms).await
    }

    /// [`GameActor::append_keyed`] at game time `at_ms` (the instant the clocks were changed at, so
    /// the event replays them exactly), with a sealed move kept in the log entry only.
    async fn append_logged(
        &mut self,
        event: GameEvent,
        key: Option<KeyRecord>,
        sealed: Option<Sealed>,
        at_ms: u64,
    ) -> Result<LoggedEvent, Fatal> {
        // Precondition: the end is the log's last event. Every step checks the game is live before
        // it writes, and the actor stops once the end is stored.
        assert!(
            self.core.outcome.is_none() || matches!(event, GameEvent::Ended { .. }),
            "game {} logs {event:?} after its end",
            self.id
        );
        let seq = self.core.seq + 1;
        let logged = LoggedEvent {
            event,
            at_ms,
            key,
            sealed,
        };
        let text = serde_json::to_string(&logged).map_err(|err| Fatal::Encode(err.to_string()))?;
        let game = self.id;
        self.ctx
            .store
            .append_event(game, seq, text)
            .await
            .map_err(Fatal::Store)?;
        self.remember_key(&logged);
        self.core.seq = seq;
        let moves_count = self.core.game.moves().len() as u32;
        self.moves_count
            .store(moves_count, std::sync::atomic::Ordering::Relaxed);
        Ok(logged)
    }

    /// Send the last stored event, `logged`, to everyone following the game.
    fn announce(&mut self, logged: LoggedEvent) {
        let frame = ServerMsg::GameEvent {
            game: self.id,
            seq: self.core.seq,
            event: logged.event,
            clocks: self.clock_view(logged.at_ms),
            server_time_ms: Some(unix_now_ms()),
        }
        .to_json();
        self.announced_seq = self.announced_seq.max(self.core.seq);
        // No subscribers is fine: the event is stored and snapshots include it.
        self.fan_out
            .send(Some(self.core.seq), frame.into(), [None, None]);
        // Coalesced pushes waiting for their time go with the event: every follower is woken for
        // it anyway and reads them in the same turn, where a push of their own later would wake
        // all of them again (a fan-out to 15,000 takes a fifth of a second here). With
        // none waiting, the next change waits an interval from this event, so that it rides with
        // the next one if that comes first. Not the pool once the game is over: `finish` pushes it
        // settled.
        if self.pool_pacer.due.is_some() && self.core.outcome.is_none() {
            self.publish_pool();
        } else {
            self.pool_pacer.followers_woken();
        }
        if self.watchers_pacer.due.is_some() {
            self.push_watchers();
        } else {
            self.watchers_pacer.followers_woken();
        }
    }
}

/// The actor stops with the game still live (a shutdown, or another node owns it now): commands
/// still queued were not done, so they are refused `busy` rather than dropped (which their senders
/// would read as the game having ended). Returns `false` for the run loop to return.
fn stopped_here(inbox: &mut mpsc::Receiver<GameCmd>) -> bool {
    inbox.close();
    while let Ok(cmd) = inbox.try_recv() {
        cmd.refuse(moving());
    }
    false
}

/// `busy` for a command this node will not do because another node owns the game now.
fn moving() -> Refusal {
    Refusal::new(
        ErrorCode::Busy,
        "the game is moving to another server node; try again",
    )
}

/// What the run loop hands to [`GameActor::step`].
enum Step {
    Command(GameCmd),
    /// A player's connections changed (and, at the start, the first look at them).
    Presence,
    /// A deadline (or a retry of the log after a failed write) is due.
    Deadline,
}

/// Sleep until `wake`, or for ever when there is nothing to wake for (a `select!` branch that never
/// fires).
async fn sleep_until_some(wake: Option<Instant>) {
    match wake {
        Some(wake) => tokio::time::sleep_until(wake).await,
        None => std::future::pending().await,
    }
}
