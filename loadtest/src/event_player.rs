//! One entrant of the event scenario: for each round it waits for the `event` push that pairs it,
//! finds its board and game there, and plays the game on schedule against its opponent (another
//! entrant doing the same), each side reading the other's moves from its own connection. A seeded
//! plan, the same for both players of a board, says how long the game lasts and how it ends: by
//! resignation of a drawn loser, or by two passes and both accepting the server's count. What the
//! player saw (its pairing, the `ended` event's result) and when (the pairing push, the end, the push
//! that shows the result in the event) goes into the run's `Tracker`.
//!
//! Every wait is bounded: the pairing by [`PAIRING_WAIT`] once the round started, the game by its
//! round's bound, the result's push by [`STANDINGS_WAIT`]; and the director's giving up ends them all.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tengen_protocol::{
    Color, EndReason, EventBoard, EventOutcome, EventView, EventsServerMsg, GameEvent, GameId,
    GameOutcome, GamesMsg, GamesServerMsg, Point, ServerMsg, UserId,
};
use tengen_rules::random::{random_move, SeededRng};
use tengen_rules::{Game, Move, Phase, Rules};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::client::{ClientHandle, Kind, Slot, Tapped};
use crate::event::{
    view_of, EventOptions, Seen, Tracker, FIRST_MOVE_LEAD, PAIRING_WAIT, STANDINGS_WAIT,
};
use crate::metrics::Metrics;

/// How often a wait with nothing to read looks again whether the director gave up.
const POLL: Duration = Duration::from_secs(1);

/// What every entrant's driver shares.
#[derive(Debug)]
pub struct Shared {
    pub options: EventOptions,
    pub metrics: Arc<Metrics>,
    pub tracker: Arc<Tracker>,
    /// Each board's slot (by board number − 1): its game and its moves' intended times, which the
    /// board's watchers read to time their deliveries.
    pub boards: Vec<Arc<Slot>>,
}

/// An entrant: its account, its connection and the pushes it hears.
#[derive(Debug)]
pub struct Entrant {
    pub index: usize,
    pub user: UserId,
    pub handle: ClientHandle,
    tap: mpsc::Receiver<Tapped>,
}

impl Entrant {
    pub fn new(
        index: usize,
        user: UserId,
        handle: ClientHandle,
        tap: mpsc::Receiver<Tapped>,
    ) -> Entrant {
        Entrant {
            index,
            user,
            handle,
            tap,
        }
    }

    /// Forget what was heard so far (setup's pushes, one per entrant who joined).
    pub fn drain(&mut self) {
        while self.tap.try_recv().is_ok() {}
    }
}

/// How a game is to end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// Both pass and accept the server's count.
    Count,
    /// This colour resigns.
    Resign(Color),
}

/// A game's plan, drawn from the run's seed, the round and the board, so both players of a board
/// draw the same one and a run is reproducible.
#[derive(Debug, Clone, Copy)]
struct Plan {
    length: usize,
    ending: Ending,
}

impl Plan {
    fn draw(options: &EventOptions, round: u32, board: u32) -> Plan {
        let mut rng = SeededRng::new(options.seed ^ (u64::from(round) << 32) ^ u64::from(board));
        let shortest = (options.moves / 2).max(1);
        let length = shortest + rng.below(options.moves.saturating_sub(shortest) + 1);
        let ending = if (rng.below(100) as u32) < options.count_percent {
            Ending::Count
        } else if rng.below(2) == 0 {
            Ending::Resign(Color::Black)
        } else {
            Ending::Resign(Color::White)
        };
        Plan { length, ending }
    }
}

/// Where an entrant is in a round.
enum Pairing {
    Board(EventBoard),
    Bye { resting: bool },
}

/// Play every round of the event, or until a pairing does not come.
pub async fn play(shared: Arc<Shared>, mut me: Entrant) {
    for round in 1..=shared.options.rounds {
        match await_pairing(&shared, &mut me, round).await {
            None => return,
            Some(Pairing::Bye { resting }) => shared.tracker.saw(Seen::Bye {
                round,
                player: me.user,
                resting,
            }),
            Some(Pairing::Board(board)) => play_board(&shared, &mut me, round, board).await,
        }
    }
}

/// Wait for the push that pairs this entrant in `round`, and record when it came.
async fn await_pairing(shared: &Shared, me: &mut Entrant, round: u32) -> Option<Pairing> {
    let (tracker, metrics) = (&shared.tracker, &shared.metrics);
    let waiting_since = Instant::now();
    loop {
        if tracker.abandoned.load(Ordering::SeqCst) {
            return None;
        }
        let limit = match tracker.round_start(metrics, round) {
            Some(start) => start + PAIRING_WAIT,
            None => waiting_since + shared.options.round_bound() + PAIRING_WAIT,
        };
        if Instant::now() >= limit {
            return None;
        }
        let Ok(frame) = tokio::time::timeout(POLL, me.tap.recv()).await else {
            continue;
        };
        let (at, msg) = frame?;
        let Some(pairing) = view_of(msg).and_then(|view| pairing_in(&view, round, me.user)) else {
            continue;
        };
        tracker.pairings_received.fetch_add(1, Ordering::Relaxed);
        if let Some(start) = tracker.round_start(metrics, round) {
            tracker
                .pairing_delay
                .record(at.saturating_duration_since(start));
        }
        if let Some(last) = tracker.last_pairing.get(round as usize) {
            last.fetch_max(metrics.nanos(at), Ordering::Relaxed);
        }
        return Some(pairing);
    }
}

/// Where `user` is in `round` of `view`, if the round is paired and names them: a board once its
/// game is there (the server pushes the round when it is paired, before its games start, and again
/// with their ids), or a bye.
fn pairing_in(view: &EventView, round: u32, user: UserId) -> Option<Pairing> {
    let paired = view.rounds.iter().find(|r| r.number == round)?;
    if let Some(board) = paired
        .boards
        .iter()
        .find(|b| b.black == user || b.white == user)
    {
        return board.game.is_some().then(|| Pairing::Board(board.clone()));
    }
    if paired.byes.contains(&user) {
        return Some(Pairing::Bye { resting: false });
    }
    paired
        .resting
        .contains(&user)
        .then_some(Pairing::Bye { resting: true })
}

/// Whether `view` shows a result for board `board` of `round`.
fn result_shown(view: &EventView, round: u32, board: u32) -> bool {
    view.rounds
        .iter()
        .find(|r| r.number == round)
        .and_then(|r| r.boards.iter().find(|b| b.board == board))
        .is_some_and(|b| b.outcome.is_some())
}

/// Play this entrant's game of `round`, then wait for the push that shows its result.
async fn play_board(shared: &Shared, me: &mut Entrant, round: u32, board: EventBoard) {
    let options = &shared.options;
    let colour = if board.black == me.user {
        Color::Black
    } else {
        Color::White
    };
    let start = shared
        .tracker
        .round_start(&shared.metrics, round)
        .unwrap_or_else(Instant::now);
    let boards = options.boards().max(1) as f64;
    let offset = f64::from(board.board.saturating_sub(1)) / boards;
    let Some(local) = new_local(options.size) else {
        shared.metrics.error("bad_size");
        return;
    };
    let mut game = Board {
        round,
        table: board.board,
        game: board.game.unwrap_or(GameId(0)),
        colour,
        plan: Plan::draw(options, round, board.board),
        slot: board_slot(shared, board.board),
        first: start + FIRST_MOVE_LEAD + options.interval().mul_f64(offset),
        deadline: start + options.round_bound(),
        local,
        rng: SeededRng::new(options.seed ^ me.user.0.rotate_left(17) ^ u64::from(round)),
        last_seq: 0,
        ended: None,
        standings_at: None,
        scoring_accepted: false,
    };
    if board.game.is_none() {
        shared.metrics.error("board_without_game");
    } else {
        game.play(shared, me).await;
    }
    game.record(shared, me, &board).await;
}

fn board_slot(shared: &Shared, board: u32) -> Arc<Slot> {
    let index = (board as usize).saturating_sub(1);
    shared
        .boards
        .get(index)
        .cloned()
        .unwrap_or_else(|| Arc::new(Slot::new()))
}

/// A local replica of the game (the command line allows only the sizes the rules take).
fn new_local(size: u8) -> Option<Game> {
    Game::new(Rules {
        size,
        ..Rules::default()
    })
    .ok()
}

/// One player's side of one game.
struct Board {
    round: u32,
    table: u32,
    game: GameId,
    colour: Color,
    plan: Plan,
    slot: Arc<Slot>,
    /// When the first move is due; move n is due `n` intervals later.
    first: Instant,
    /// The round's bound: past it the player gives up.
    deadline: Instant,
    /// The game as this player knows it, to choose legal moves.
    local: Game,
    rng: SeededRng,
    /// The last `seq` of the game heard (the next event has `seq + 1`).
    last_seq: u64,
    /// When the `ended` event came, and the result it told.
    ended: Option<(Instant, GameOutcome)>,
    /// When the first push that shows the result came.
    standings_at: Option<Instant>,
    scoring_accepted: bool,
}

impl Board {
    /// Move when it is this player's turn, read the game's frames otherwise, until the game ends
    /// (or the round's bound passes, or a request fails).
    async fn play(&mut self, shared: &Shared, me: &mut Entrant) {
        while self.ended.is_none() {
            if Instant::now() >= self.deadline || shared.tracker.abandoned.load(Ordering::SeqCst) {
                shared
                    .tracker
                    .games_unfinished
                    .fetch_add(1, Ordering::Relaxed);
                return;
            }
            let my_turn = self.local.phase() == Phase::Play && self.local.to_move() == self.colour;
            if my_turn {
                if self.act(shared, &me.handle).await.is_err() {
                    return;
                }
                continue;
            }
            let wait = POLL.min(self.deadline.saturating_duration_since(Instant::now()));
            match tokio::time::timeout(wait, me.tap.recv()).await {
                Err(_) => continue,
                Ok(None) => return,
                Ok(Some((at, msg))) => {
                    if self.on_frame(shared, &me.handle, at, msg).await.is_err() {
                        return;
                    }
                }
            }
        }
    }

    /// What to play as move `n`: random legal moves until the plan's length, then its ending.
    fn choose(&mut self) -> Move {
        let n = self.local.moves().len();
        let random = random_move(&self.local, self.colour, &mut self.rng);
        match (self.plan.ending, n >= self.plan.length, random) {
            (Ending::Count, true, _) | (Ending::Count, false, Move::Pass) => Move::Pass,
            (Ending::Resign(loser), true, _) if loser == self.colour => Move::Resign,
            // A player who cannot move resigns rather than pass into a count the plan did not want.
            (Ending::Resign(_), _, Move::Pass) => Move::Resign,
            (_, _, mv) => mv,
        }
    }

    /// Make this player's next move at its due time; its ack is timed from then.
    async fn act(&mut self, shared: &Shared, handle: &ClientHandle) -> Result<(), ()> {
        let n = self.local.moves().len();
        let due = self.first + shared.options.interval() * n as u32;
        tokio::time::sleep_until(due).await;
        let mv = self.choose();
        let seq = self.last_seq + 1;
        let ending = mv == Move::Resign || (mv == Move::Pass && n >= self.plan.length);
        if ending {
            // Its watchers hold their bets from here: play is about to end.
            self.slot.set_ending();
        }
        self.slot.set_intent(seq, shared.metrics.nanos(due));
        let game = self.game;
        let msg = match mv {
            Move::Play(point) => GamesMsg::Play {
                game,
                point: Point {
                    col: point.col,
                    row: point.row,
                },
                key: None,
            },
            Move::Pass => GamesMsg::Pass { game, key: None },
            Move::Resign => GamesMsg::Resign { game, key: None },
        };
        handle
            .request_at(msg, due, Kind::Move)
            .await
            .map_err(|_| ())?;
        self.last_seq = self.last_seq.max(seq);
        if self.local.play(self.colour, mv).is_err() {
            shared.metrics.error("replica_diverged");
            return Err(());
        }
        Ok(())
    }

    /// A frame this player heard: its game's state and events, and the event's pushes.
    async fn on_frame(
        &mut self,
        shared: &Shared,
        handle: &ClientHandle,
        at: Instant,
        msg: ServerMsg,
    ) -> Result<(), ()> {
        match msg {
            ServerMsg::Games(GamesServerMsg::GameState { state }) if state.game == self.game => {
                self.last_seq = self.last_seq.max(state.seq);
            }
            ServerMsg::Games(GamesServerMsg::GameEvent {
                game, seq, event, ..
            }) if game == self.game => {
                self.last_seq = self.last_seq.max(seq);
                return self.on_event(shared, handle, at, event).await;
            }
            ServerMsg::Events(EventsServerMsg::Event { event, .. })
                if self.standings_at.is_none() && result_shown(&event, self.round, self.table) =>
            {
                self.standings_at = Some(at);
            }
            _ => {}
        }
        Ok(())
    }

    async fn on_event(
        &mut self,
        shared: &Shared,
        handle: &ClientHandle,
        at: Instant,
        event: GameEvent,
    ) -> Result<(), ()> {
        let opponent = self.colour.opponent();
        let mv = match event {
            GameEvent::Played { color, point, .. } => Move::Play(Point {
                col: point.col,
                row: point.row,
            })
            .into_opponent(color, self.colour),
            GameEvent::Passed { color, .. } => Move::Pass.into_opponent(color, self.colour),
            GameEvent::ScoringStarted { .. } => {
                if !self.scoring_accepted {
                    self.scoring_accepted = true;
                    let msg = GamesMsg::AcceptScore {
                        game: self.game,
                        dead: None,
                    };
                    handle.request(msg).await.map_err(|_| ())?;
                }
                None
            }
            GameEvent::Ended { outcome } => {
                self.ended = Some((at, outcome));
                None
            }
            _ => None,
        };
        if let Some(mv) = mv {
            if self.local.play(opponent, mv).is_err() {
                shared.metrics.error("replica_diverged");
                return Err(());
            }
        }
        Ok(())
    }

    /// After the game: wait (bounded) for the push that shows its result, then record what this
    /// player saw and the time from the end to that push.
    async fn record(&mut self, shared: &Shared, me: &mut Entrant, board: &EventBoard) {
        let tracker = &shared.tracker;
        if let Some(ended_at) = self.ended.as_ref().map(|(at, _)| *at) {
            let limit = ended_at + STANDINGS_WAIT;
            while self.standings_at.is_none() && Instant::now() < limit {
                let wait = POLL.min(limit.saturating_duration_since(Instant::now()));
                match tokio::time::timeout(wait, me.tap.recv()).await {
                    Err(_) => {}
                    Ok(None) => break,
                    Ok(Some((at, msg))) => {
                        let _ = self.on_frame(shared, &me.handle, at, msg).await;
                    }
                }
            }
            match self.standings_at {
                Some(at) => tracker
                    .end_to_standings
                    .record(at.saturating_duration_since(ended_at)),
                None => {
                    tracker.standings_missing.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        let result = self.ended.as_ref().map(|(_, outcome)| outcome);
        tracker.saw(Seen::Board {
            round: self.round,
            board: board.board,
            black: board.black,
            white: board.white,
            game: board.game,
            outcome: result.map(event_outcome),
            counted: result.is_some_and(|outcome| outcome.reason == EndReason::Score),
        });
    }
}

/// The event's result for a game's outcome: no winner is a draw, unless the game was void.
pub fn event_outcome(outcome: &GameOutcome) -> EventOutcome {
    match (outcome.winner, outcome.reason) {
        (Some(Color::Black), _) => EventOutcome::BlackWins,
        (Some(Color::White), _) => EventOutcome::WhiteWins,
        (None, EndReason::Void) => EventOutcome::BothLose,
        (None, _) => EventOutcome::Draw,
    }
}

/// A move heard from the game, kept when the opponent made it (this player's own are applied at
/// their ack).
trait FromOpponent {
    fn into_opponent(self, mover: Color, me: Color) -> Option<Move>;
}

impl FromOpponent for Move {
    fn into_opponent(self, mover: Color, me: Color) -> Option<Move> {
        (mover != me).then_some(self)
    }
}
