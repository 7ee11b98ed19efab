//! One live game as a tokio actor around its pure core (`game::core::GameCore`: the rules'
//! `Game`, the clock, the scoring phase, undo, who is away, an event's rules, the `seq`). The actor
//! is a thin shell: its inbox, appending each event before it is acknowledged, the fan-out to its
//! followers, coalesced pushes, bets in flight, retry keys and the store. Every change of the game
//! takes one path, [`GameActor::change`]: the core decides the events a command causes (or refuses
//! it), each is appended to the store with the game-time instant it happened (`at_ms`), *before* it
//! is applied, acknowledged or broadcast, then applied to the core and announced. Restoring a game
//! folds the same `apply` over its log.
//!
//! Time: the actor keeps its own "game time" ([`GameTime`]), milliseconds on tokio's clock since
//! the actor started plus the game time at which the stored log ended (0 for a new game). Every deadline (the side to
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
//! Around the core the actor holds values that each own their fields, so what a part of the actor
//! may change is what its value holds (each value, then the module it lives in):
//! - [`Seats`] (`seats`): which game, at which table, between whom, since when (set once);
//! - [`GameTime`] (`game_time`): game time now, and the tokio instant of a game-time instant;
//! - [`Audience`] (`audience`): who follows the game: the broadcast, the players' presence, the
//!   watchers and their list (pushed, coalesced), snapshots, subscriptions, mirrors, the chats;
//! - [`Wagers`] (`money`): the pool, the stakes, watchers' bets in flight (`money::bets`), and who
//!   may not bet;
//! - [`MoveKeys`] (`keys`): the clients' retry keys recorded with moves, and answering a retry;
//! - [`Writes`] (`outage`): whether the log is in doubt after a failed write, what was announced,
//!   where the step began; and how the actor puts the game back and reads its log again;
//! - `Pacer` (`pacer`): when a coalesced push (the watchers list, the pool) is next due.
//!
//! A value reads what it needs of the game as arguments (the seats, the core, the ledger) and never
//! holds another; the actor joins them (the pool a `Wagers` makes goes out through the
//! `Audience`). This module holds the actor itself: its fields, the run loop, the dispatch of
//! commands, and `change`, `append` and `announce`. What needs the whole actor (the core, the
//! store and the values at once) stays in `impl GameActor` blocks, in the child modules:
//! - `restore`: rebuilding a live game from its event log after a restart;
//! - `deadlines`: waking for the core's deadlines, and telling the core who is here;
//! - `ending`: telling the hall of the end, settling the game, and its SGF record;
//! - `event_rules`: an event's game on the actor's side: the director's acts, the hall's event log,
//!   and what the state shows of lateness, warnings and a halt;
//! - `supervisor`: restarting an actor that panicked from its log, a bounded number of times;
//! - and, joining their values to the rest, `money` (the pool pushed, stakes) and `outage` (a
//!   failed write, reading the log back).

mod audience;
mod deadlines;
mod ending;
mod event_rules;
mod game_time;
mod keys;
mod money;
mod outage;
mod pacer;
mod restore;
mod seats;
mod supervisor;

pub(super) use keys::answer_from_log;
#[cfg(test)]
pub(super) use supervisor::panic_next_command;

use std::sync::atomic::{AtomicBool, AtomicU32};
use std::sync::Arc;

use tengen_protocol::{
    ErrorCode, GameEvent, GameId, GameOutcome, GameSummary, GamesServerMsg, HaltKind, RequestKey,
    ServerMsg, UserId,
};
use tengen_rules::{Color, Game};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{GameCmd, GameContext, GameReply, GameRequest, PlayerMove, StartGame, Viewers};
use crate::game::core::{Command, GameCore, KeyRecord, LoggedEvent};
use crate::store::StoreError;
use crate::{unix_now_ms, Refusal, Reply};
use audience::Audience;
use deadlines::clock_view;
use game_time::GameTime;
use keys::MoveKeys;
use money::Wagers;
use outage::Writes;
use seats::Seats;

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
    /// Which game, at which table, between whom, since when.
    seats: Seats,
    /// The game itself: board, clock, scoring, undo, presence times, event rules, seq, outcome.
    core: GameCore,
    /// The store, the ledger, the hall and the shutdown signal the game works with.
    ctx: GameContext,
    /// Game time: what every instant the core names is counted in.
    time: GameTime,
    /// Who follows the game: its broadcast, the players' presence, the watchers and their list.
    audience: Audience,
    /// The money on the game: the pool, the stakes, bets in flight, who may not bet.
    wagers: Wagers,
    /// The keys players sent with their moves, passes and resignations (see `keys`).
    move_keys: MoveKeys,
    /// After a failed write, what the log may hold; what was announced; the current step.
    writes: Writes,
}

impl std::fmt::Debug for GameActor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GameActor")
            .field("id", &self.seats.id)
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
        let players = [start.black.user, start.white.user];
        GameActor {
            seats: Seats {
                id,
                table: start.table,
                black: start.black,
                white: start.white,
                nigiri_seed: start.nigiri_seed,
                started_at_ms,
            },
            core,
            wagers: Wagers::new(start.bettors_barred),
            audience: Audience::new(players),
            ctx,
            time: GameTime::started_now(),
            move_keys: MoveKeys::default(),
            writes: Writes::default(),
        }
    }

    pub(super) fn id(&self) -> GameId {
        self.seats.id
    }

    pub(super) fn players(&self) -> [UserId; 2] {
        self.seats.players()
    }

    pub(super) fn viewers(&self) -> Arc<Viewers> {
        self.audience.viewers()
    }

    pub(super) fn moves_count(&self) -> Arc<AtomicU32> {
        self.audience.moves_count()
    }

    pub(super) fn ended_flag(&self) -> Arc<AtomicBool> {
        self.audience.ended_flag()
    }

    pub(super) fn summary(&self) -> GameSummary {
        GameSummary {
            game: self.seats.id,
            table: self.seats.table,
            black: self.seats.black.clone(),
            white: self.seats.white.clone(),
            size: self.core.settings.size,
            moves_count: self.core.game.moves().len() as u32,
            watchers_count: self.audience.watchers_count(),
        }
    }

    /// Someone began or stopped watching: the watchers list and the pool are pushed less often
    /// the larger the crowd.
    fn watchers_changed(&mut self) -> Flow {
        let followers = self.audience.watchers_changed();
        self.wagers.crowd_is(followers);
        Flow::Continue
    }

    /// Tell the hall's list how many moves the game has now.
    fn store_moves_count(&self) {
        let moves_count = self.core.game.moves().len() as u32;
        self.audience.store_moves_count(moves_count);
    }

    /// Run until the game ends (`true`) or the actor stops with the game still live (`false`: a
    /// shutdown, or another node owns the game now).
    pub(super) async fn run(mut self, inbox: &mut mpsc::Receiver<GameCmd>) -> bool {
        let _tasks = self.ctx.tasks.clone();
        let shutdown = self.ctx.shutdown.clone();
        let presence = self.audience.presence();
        let viewers = self.audience.viewers();
        self.writes.announced(self.core.seq);
        // A restored game looks at presence once at the start: nobody is connected yet.
        let mut first = Some(Step::Presence);
        loop {
            let step = match first.take() {
                Some(step) => self.step(step).await,
                None => {
                    let timer = sleep_until_some(self.wake_at());
                    let push_timer = sleep_until_some(self.audience.watchers_push_due());
                    let pool_timer = sleep_until_some(self.wagers.pool_push_due());
                    tokio::select! {
                        _ = shutdown.wait() => {
                            // Bets in flight are answered as their writes went.
                            self.wagers.drain_bets().await;
                            return stopped_here(inbox);
                        }
                        cmd = inbox.recv() => match cmd {
                            Some(cmd) => self.step(Step::Command(cmd)).await,
                            None => return false,
                        },
                        _ = presence.changed.notified() => self.step(Step::Presence).await,
                        _ = viewers.changed.notified() => Ok(self.watchers_changed()),
                        _ = push_timer => {
                            self.audience.push_watchers(self.seats.id);
                            Ok(Flow::Continue)
                        }
                        _ = pool_timer => {
                            self.publish_pool();
                            Ok(Flow::Continue)
                        }
                        done = self.wagers.next_bet_written(), if self.wagers.bets_in_flight() => {
                            self.wagers.bet_written(done);
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
                    tracing::warn!(game = %self.seats.id, %fatal, "another node owns this game now; stopping it here");
                    self.wagers.drain_bets().await;
                    return stopped_here(inbox);
                }
            }
        }
    }

    /// When the run loop next wakes by itself: the nearest deadline, or while the log is in
    /// doubt, the next attempt to read it back (deadlines wait for that).
    fn wake_at(&self) -> Option<Instant> {
        match self.writes.retry_at() {
            Some(retry) => Some(retry),
            None => self
                .core
                .next_deadline()
                .map(|at_ms| self.time.instant_of(at_ms)),
        }
    }

    /// One step that may write to the log: a command, a presence change, a deadline. A write that
    /// fails puts the game back as it was before the step (see `outage`); only a game that another
    /// node owns now ends the actor (`Err`).
    async fn step(&mut self, step: Step) -> Result<Flow, Fatal> {
        let step = match step {
            // Reads are served even while the store is out of reach; one that can write nothing
            // (no deadline is due) needs no checkpoint.
            Step::Command(cmd)
                if !cmd.writes() && (self.writes.in_doubt() || !self.deadline_due()) =>
            {
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
        self.writes.step_began(self.core.seq);
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
                if let Some(cmd) = self.writes.take_held() {
                    if cmd.writes() {
                        cmd.refuse(outage::refusal(&fatal, false));
                    } else {
                        return self.handle(cmd).await;
                    }
                }
                Ok(Flow::Continue)
            }
            other => {
                if let Some(cmd) = self.writes.take_held() {
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
            .is_some_and(|at_ms| at_ms <= self.time.now_ms())
    }

    async fn handle(&mut self, cmd: GameCmd) -> Result<Flow, Fatal> {
        #[cfg(test)]
        if supervisor::take_panic_fault() {
            panic!("test fault: a game actor panics");
        }
        // A deadline that passed while the command waited in the inbox applies first (while the log
        // is in doubt, deadlines wait for the store).
        if !self.writes.in_doubt() {
            match self.on_deadline().await {
                Ok(Flow::Continue) => {}
                Ok(Flow::Over) => {
                    cmd.refuse_ended();
                    return Ok(Flow::Over);
                }
                Err(fatal) => {
                    self.writes.hold(cmd);
                    return Err(fatal);
                }
            }
        }
        match cmd {
            GameCmd::Request { request, reply } => self.apply(request, reply).await,
            GameCmd::Subscribe { viewer, reply } => {
                let now_ms = self.time.now_ms();
                let subscribed = self
                    .audience
                    .subscribe(viewer, &self.seats, &self.core, now_ms);
                let _ = reply.send(subscribed);
                Ok(Flow::Continue)
            }
            GameCmd::Mirror { reply } => {
                let now_ms = self.time.now_ms();
                let mirror = self.audience.mirror(&self.seats, &self.core, now_ms);
                let _ = reply.send(Ok(mirror));
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
        let result = match request {
            R::Move { user, mv, key } => self.play(user, mv, key).await,
            R::ToggleDead { user, point } => {
                self.players_change(user, |color| Command::ToggleDead { color, point })
                    .await
            }
            R::AcceptScore { user, dead } => {
                let seen = dead.map(|points| points.into_iter().collect());
                self.players_change(user, |color| Command::AcceptScore { color, seen })
                    .await
            }
            R::ResumePlay { user } => self.players_change(user, Command::ResumePlay).await,
            R::Undo { user } => self.players_change(user, Command::AskUndo).await,
            R::AnswerUndo { user, accept } => {
                self.players_change(user, |color| Command::AnswerUndo { color, accept })
                    .await
            }
            R::Void => {
                let void = Command::Adjudicate(tengen_protocol::EventOutcome::BothLose);
                self.change(void).await
            }
            R::Adjudicate { outcome } => self.change(Command::Adjudicate(outcome)).await,
            R::Warn { color } => self.change(Command::Warn(color)).await,
            R::Pause { resume_at_ms } => self.halt(HaltKind::Pause, resume_at_ms).await,
            R::Adjourn { resume_at_ms } => self.halt(HaltKind::Adjournment, resume_at_ms).await,
            R::Resume => self.change(Command::Resume).await,
            R::Seal { user, point } => self.seal(user, point).await,
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
            other => {
                let answered = self.serve(other).await;
                if let Some(reply) = reply {
                    let _ = reply.send(answered);
                }
                return Ok(Flow::Continue);
            }
        };
        self.answer(reply, result)
    }

    /// A request that writes nothing to the game's log: a question, a chat line, the bettors
    /// barred, the players' stakes. (Every change of the game is in [`GameActor::apply`].)
    async fn serve(&mut self, request: GameRequest) -> Result<GameReply, Refusal> {
        use GameRequest as R;
        match request {
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
                .audience
                .player_chat(&self.seats, from, (text, at_ms), line)
                .map(|()| GameReply::Done),
            R::Kibitz {
                from,
                text,
                at_ms,
                line,
            } => self
                .audience
                .kibitz(&self.seats, from, (text, at_ms), line)
                .map(|()| GameReply::Done),
            R::RemoveChat { channel, line } => {
                self.audience.remove_chat(channel, line);
                Ok(GameReply::Done)
            }
            R::BarBettors { users } => {
                self.wagers.bar_bettors(users);
                Ok(GameReply::Done)
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
            // A change of the game's log, which `apply` does itself.
            change @ (R::Move { .. }
            | R::ToggleDead { .. }
            | R::AcceptScore { .. }
            | R::ResumePlay { .. }
            | R::Undo { .. }
            | R::AnswerUndo { .. }
            | R::Void
            | R::Adjudicate { .. }
            | R::Warn { .. }
            | R::Pause { .. }
            | R::Adjourn { .. }
            | R::Resume
            | R::Seal { .. }
            | R::Bet { .. }) => Err(Refusal::misrouted(&change)),
        }
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
                let partial = self.writes.partly_logged(self.core.seq);
                (Err(outage::refusal(&fatal, partial)), Err(fatal))
            }
        };
        if let Some(reply) = reply {
            let _ = reply.send(answer);
        }
        next
    }

    async fn play(
        &mut self,
        user: UserId,
        mv: PlayerMove,
        key: Option<RequestKey>,
    ) -> Result<Result<Flow, Refusal>, Fatal> {
        let color = match self.seats.color_of(user) {
            Ok(color) => color,
            Err(refusal) => return Ok(Err(refusal)),
        };
        if let Some(first) = key.as_ref().and_then(|key| self.move_keys.first(user, key)) {
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
        match self.seats.color_of(user) {
            Ok(color) => self.change(command(color)).await,
            Err(refusal) => Ok(Err(refusal)),
        }
    }

    /// Every change of the game, in one path: the core decides the events `command` causes now;
    /// each is stored (durable before anyone hears of it), applied to the game, then announced.
    /// `Over` once the game has ended.
    async fn change(&mut self, command: Command) -> Result<Result<Flow, Refusal>, Fatal> {
        let events = match self.core.decide(command, self.time.now_ms()) {
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
                self.seats.id
            );
            self.move_keys.remember(&logged);
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
                let user = Some(self.seats.user_of(color));
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
            self.seats.id,
            logged.event
        );
        let seq = self.core.seq + 1;
        let text = serde_json::to_string(logged).map_err(|err| Fatal::Encode(err.to_string()))?;
        self.ctx
            .store
            .append_event(self.seats.id, seq, text)
            .await
            .map_err(Fatal::Store)
    }

    /// Send the last stored event, `logged`, to everyone following the game.
    fn announce(&mut self, logged: LoggedEvent) {
        let frame = ServerMsg::from(GamesServerMsg::GameEvent {
            game: self.seats.id,
            seq: self.core.seq,
            event: logged.event,
            clocks: clock_view(&self.core, logged.at_ms),
            server_time_ms: Some(unix_now_ms()),
        })
        .to_json();
        self.writes.announced(self.core.seq);
        self.audience.send_event(self.core.seq, frame.into());
        // Coalesced pushes waiting for their time go with the event: every follower is woken for
        // it anyway and reads them in the same turn, where a push of their own later would wake
        // all of them again (a fan-out to 15,000 takes a fifth of a second here). With
        // none waiting, the next change waits an interval from this event, so that it rides with
        // the next one if that comes first. Not the pool once the game is over: `finish` pushes it
        // settled.
        if self.wagers.pool_push_due().is_some() && self.core.outcome.is_none() {
            self.publish_pool();
        } else {
            self.wagers.followers_woken();
        }
        self.audience.event_sent(self.seats.id);
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
