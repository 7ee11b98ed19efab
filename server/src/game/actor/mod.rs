//! One live game as a tokio actor around its pure core (`game::core::GameCore`: the rules'
//! `Game`, the clock, the scoring phase, undo, who is away, an event's rules, the `seq`). The actor
//! is the shell: its inbox, game time, the players' presence as connections, who watches
//! (pushing the list, coalesced), the broadcast its subscribers read, bets in flight, retry keys
//! and the store. Every change of the game takes one path, [`GameActor::change`]: the core
//! decides the events a command causes (or refuses it), each is appended to the store with the
//! game-time instant it happened (`at_ms`), *before* it is applied, acknowledged or broadcast,
//! then applied to the core and announced. Restoring a game folds the same `apply` over its log.
//!
//! Time: the actor keeps its own "game time", milliseconds on tokio's clock since the actor started
//! plus the game time at which the stored log ended (0 for a new game). Every deadline (the side to
//! move running out, the first move of a no-show, a player away too long, the scoring phase) is an
//! instant of game time the core names; the run loop sleeps until the nearest one with a single
//! `sleep_until`, so a timeout ends the game the moment it happens, with nobody sending anything. A
//! restarted actor resumes game time where the log ended, so the time the server was down is
//! charged to no one (nor is the mover's thinking time between their last recorded event and the
//! crash).
//!
//! Every ending is an `ended` event the core decides; the hall hears of it before the players,
//! and once the run loop sees the game is over, [`GameActor::finish`] settles the points, stores
//! the SGF and rates the game: the one place where "game over" happens.
//!
//! This module holds the actor itself: its state, game time, the run loop, the dispatch of
//! commands, and `change`, `append` and `announce`. The rest is split by concern into child
//! modules, each an `impl GameActor` block over the same private fields:
//! - `restore`: rebuilding a live game from its event log after a restart;
//! - `deadlines`: waking for the core's deadlines, and the players' presence;
//! - `ending`: telling the hall of the end, settling the game, and its SGF record;
//! - `event_rules`: an event's game on the actor's side: the director's acts, the hall's event log,
//!   and what the state shows of lateness, warnings and a halt;
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
mod supervisor;

pub(super) use keys::answer_from_log;
#[cfg(test)]
pub(super) use supervisor::panic_next_command;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32};
use std::sync::Arc;
use std::time::Duration;

use tengen_protocol::{
    ErrorCode, GameEvent, GameId, GameOutcome, GameSummary, HaltKind, PlayerInfo, RequestKey,
    ServerMsg, TableId, UserId,
};
use tengen_rules::{Color, Game};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{
    FanOut, GameCmd, GameContext, GameReply, GameRequest, PlayerMove, Presence, StartGame, Viewers,
    WatcherList,
};
use crate::config::{POOL_PUSH_MS, WATCHER_COUNT_PUSH_MS};
use crate::game::core::{Command, GameCore, KeyRecord, LoggedEvent};
use crate::ledger::pool::Tally;
use crate::store::StoreError;
use crate::{unix_now_ms, Refusal, Reply};
use audience::Pacer;

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
    /// A new game's actor, around its core as `game` is set up.
    pub(super) fn new(
        id: GameId,
        start: StartGame,
        game: Game,
        ctx: GameContext,
        started_at_ms: u64,
    ) -> Result<GameActor, Refusal> {
        let core = GameCore::start(start.settings, ctx.timing, game)?;
        Ok(GameActor::around(id, start, core, ctx, started_at_ms))
    }

    /// The actor of the game `core` is (new, or rebuilt from its log), started at `started_at_ms`
    /// (Unix ms); its settings are the core's.
    fn around(
        id: GameId,
        start: StartGame,
        core: GameCore,
        ctx: GameContext,
        started_at_ms: u64,
    ) -> GameActor {
        let viewers = Arc::new(Viewers::new([start.black.user, start.white.user]));
        GameActor {
            id,
            table: start.table,
            bettors_barred: start.bettors_barred,
            black: start.black,
            white: start.white,
            nigiri_seed: start.nigiri_seed,
            core,
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
            doubt: outage::Doubt::default(),
            announced_seq: 0,
            step_seq: 0,
            tally_stale: false,
            bets: bets::InFlight::default(),
            held: None,
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
            None => self
                .core
                .next_deadline()
                .map(|at_ms| self.instant_of(at_ms)),
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
        self.core
            .next_deadline()
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
                let result = self
                    .players_change(user, |color| Command::ToggleDead { color, point })
                    .await;
                return self.answer(reply, result);
            }
            R::AcceptScore { user, dead } => {
                let seen = dead.map(|points| points.into_iter().collect());
                let result = self
                    .players_change(user, |color| Command::AcceptScore { color, seen })
                    .await;
                return self.answer(reply, result);
            }
            R::ResumePlay { user } => {
                let result = self.players_change(user, Command::ResumePlay).await;
                return self.answer(reply, result);
            }
            R::Undo { user } => {
                let result = self.players_change(user, Command::AskUndo).await;
                return self.answer(reply, result);
            }
            R::AnswerUndo { user, accept } => {
                let result = self
                    .players_change(user, |color| Command::AnswerUndo { color, accept })
                    .await;
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
                let void = Command::Adjudicate(tengen_protocol::EventOutcome::BothLose);
                let result = self.change(void).await;
                return self.answer(reply, result);
            }
            R::Bet { user, .. } if self.bettors_barred.contains(&user) => Err(Refusal::new(
                ErrorCode::PlayersCannotBet,
                "players of an event may not bet on its games",
            )),
            R::Adjudicate { outcome } => {
                let result = self.change(Command::Adjudicate(outcome)).await;
                return self.answer(reply, result);
            }
            R::Warn { color } => {
                let result = self.change(Command::Warn(color)).await;
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
                let result = self.change(Command::Resume).await;
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
        // A late player arrives with their first move, even one that is refused.
        if let Err(refusal) = self.change(Command::Arrive(color)).await? {
            return Ok(Err(refusal));
        }
        let key = key.map(|key| KeyRecord { user, key });
        self.change(Command::Move { color, mv, key }).await
    }

    /// A player's command: refused unless `user` plays this game.
    async fn players_change(
        &mut self,
        user: UserId,
        command: impl FnOnce(Color) -> Command,
    ) -> Result<Result<Flow, Refusal>, Fatal> {
        match self.color_of(user) {
            Ok(color) => self.change(command(color)).await,
            Err(refusal) => Ok(Err(refusal)),
        }
    }

    /// Every change of the game, in one path: the core decides the events `command` causes now;
    /// each is stored (durable before anyone hears of it), applied to the game, then announced.
    /// `Over` once the game has ended.
    async fn change(&mut self, command: Command) -> Result<Result<Flow, Refusal>, Fatal> {
        let events = match self.core.decide(command, self.now_ms()) {
            Ok(events) => events,
            Err(refusal) => return Ok(Err(refusal)),
        };
        for logged in events {
            self.append(&logged).await?;
            let applied = self.core.apply(self.core.seq + 1, &logged);
            // The core decided the event by applying it to a copy of this very state.
            assert!(
                applied.is_ok(),
                "game {} cannot apply an event it decided: {applied:?}",
                self.id
            );
            self.remember_key(&logged);
            self.store_moves_count();
            if let GameEvent::Ended { outcome } = &logged.event {
                // The table is free once the result is stored. The hall hears it before the
                // players do, so a player who sees the end and proposes the next game at once
                // finds the table free.
                self.tell_ended(outcome.clone()).await;
            }
            let event = logged.event.clone();
            self.announce(logged);
            self.announced(&event).await;
        }
        let flow = match self.core.outcome {
            Some(_) => Flow::Over,
            None => Flow::Continue,
        };
        Ok(Ok(flow))
    }

    /// After an event is announced: what else hears of it. Scoring closes the betting (the
    /// pool's watchers are told); an event's director's acts go to the event's log in the hall.
    async fn announced(&mut self, event: &GameEvent) {
        match *event {
            GameEvent::ScoringStarted { .. } => self.publish_pool(),
            GameEvent::Paused { resume_at_ms, .. } => {
                self.tell_event("paused", None, Some(resume_at_ms)).await
            }
            GameEvent::Adjourned { resume_at_ms, .. } => {
                self.tell_event("adjourned", None, Some(resume_at_ms)).await
            }
            GameEvent::Sealed { color } => {
                let user = Some(self.user_of(color));
                self.tell_event("sealed", user, None).await
            }
            GameEvent::Resumed => self.tell_event("resumed", None, None).await,
            _ => {}
        }
    }

    /// Store `logged` as the next event in the log; it is durable when this returns.
    async fn append(&mut self, logged: &LoggedEvent) -> Result<(), Fatal> {
        // Precondition: the end is the log's last event. Every step checks the game is live before
        // it writes, and the actor stops once the end is stored.
        assert!(
            self.core.outcome.is_none(),
            "game {} logs {:?} after its end",
            self.id,
            logged.event
        );
        let seq = self.core.seq + 1;
        let text = serde_json::to_string(logged).map_err(|err| Fatal::Encode(err.to_string()))?;
        self.ctx
            .store
            .append_event(self.id, seq, text)
            .await
            .map_err(Fatal::Store)
    }

    /// Send the last stored event, `logged`, to everyone following the game.
    fn announce(&mut self, logged: LoggedEvent) {
        let frame = ServerMsg::Games(tengen_protocol::GamesServerMsg::GameEvent {
            game: self.id,
            seq: self.core.seq,
            event: logged.event,
            clocks: self.clock_view(logged.at_ms),
            server_time_ms: Some(unix_now_ms()),
        })
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
