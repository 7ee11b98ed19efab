//! Everyone who follows the game, and what they are sent besides its events: [`Audience`] owns the
//! broadcast its followers read, the players' presence (their connections, and whether each was
//! seen since this actor started), who watches, the flags and counters the game's handle reads
//! without asking the actor (moves played, the game ended), and the watchers list as last pushed.
//! A subscription (a player's counts as presence, anyone else's as watching) starts from a
//! snapshot of the whole state; another node mirrors the game without being counted; the watchers
//! list is pushed as it changes, coalesced by a [`Pacer`]; and the watchers' chat (kibitz) is
//! broadcast, hidden from the players. Apart from the snapshot, none of this is a game event: it
//! has no `seq` and never enters the log. The audience reads the game (its core and seats, passed
//! in) but never changes it, and knows nothing of its money or its log.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

use tengen_protocol::{
    Away, ChatLineId, ErrorCode, GameId, GamePhase, GameState, GamesServerMsg, HallServerMsg,
    PlayerInfo, ServerMsg, UserId,
};
use tengen_rules::{Color, Phase};
use tokio::time::Instant;

use super::deadlines::clock_view;
use super::event_rules::event_state;
use super::pacer::Pacer;
use super::seats::Seats;
use crate::chat;
use crate::config::{
    WATCHERS_LISTED_MAX, WATCHERS_LISTED_MIN, WATCHERS_PER_GAME_MAX, WATCHER_COUNT_PUSH_MS,
    WATCHER_LIST_FRAMES_PER_S_MAX, WATCHER_NAMES_FANNED_OUT_MAX,
};
use crate::game::core::GameCore;
use crate::game::wire;
use crate::game::{
    FanOut, Mirror, Presence, PresenceGuard, Subscription, ViewerGuard, Viewers, WatcherList,
};
use crate::{unix_now_ms, Frame, Refusal};

/// Who follows the game and what they were last told of its watchers.
pub(super) struct Audience {
    fan_out: FanOut,
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
    /// names are back to the pushed ones. Atomic because `state` reads the audience shared.
    watchers_shown_differ: AtomicBool,
    /// When the next `watchers` push is due, at most one per [`WATCHER_COUNT_PUSH_MS`].
    watchers_pacer: Pacer,
}

/// What the game's handle and its subscriptions hold of the audience, kept across an actor's
/// restarts so that they keep counting watchers, presence, moves and the end of the game.
pub(super) struct Shared {
    viewers: Arc<Viewers>,
    pub(super) ended: Arc<AtomicBool>,
    moves_count: Arc<AtomicU32>,
    presence: Arc<Presence>,
}

impl Audience {
    /// Nobody following yet the game of `players` (Black, White), whom the watchers list leaves out.
    pub(super) fn new(players: [UserId; 2]) -> Audience {
        Audience {
            fan_out: FanOut::default(),
            presence: Arc::new(Presence::default()),
            seen: [false, false],
            viewers: Arc::new(Viewers::new(players)),
            ended: Arc::new(AtomicBool::new(false)),
            moves_count: Arc::default(),
            watchers_pushed: WatcherList::default(),
            watchers_shown_differ: AtomicBool::new(false),
            watchers_pacer: Pacer::new(WATCHER_COUNT_PUSH_MS, WATCHER_LIST_FRAMES_PER_S_MAX),
        }
    }

    /// The counters the game's handle and subscriptions hold, to keep across a restart.
    pub(super) fn shared(&self) -> Shared {
        Shared {
            viewers: Arc::clone(&self.viewers),
            ended: Arc::clone(&self.ended),
            moves_count: Arc::clone(&self.moves_count),
            presence: Arc::clone(&self.presence),
        }
    }

    /// A restarted actor's audience takes over the counters its predecessor's handle holds, with
    /// `moves_count` moves played.
    pub(super) fn rejoin(&mut self, shared: &Shared, moves_count: u32) {
        self.viewers = Arc::clone(&shared.viewers);
        self.ended = Arc::clone(&shared.ended);
        self.presence = Arc::clone(&shared.presence);
        shared.moves_count.store(moves_count, Ordering::Relaxed);
        self.moves_count = Arc::clone(&shared.moves_count);
    }

    pub(super) fn viewers(&self) -> Arc<Viewers> {
        Arc::clone(&self.viewers)
    }

    pub(super) fn presence(&self) -> Arc<Presence> {
        Arc::clone(&self.presence)
    }

    pub(super) fn moves_count(&self) -> Arc<AtomicU32> {
        Arc::clone(&self.moves_count)
    }

    pub(super) fn ended_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.ended)
    }

    pub(super) fn watchers_count(&self) -> u32 {
        self.viewers.count()
    }

    /// Receivers of the game's frames (each costs this node a follower's reads whoever holds it).
    pub(super) fn followers(&self) -> usize {
        self.fan_out.receiver_count()
    }

    /// The game is over: set before the broadcast closes (see `ended`).
    pub(super) fn mark_ended(&self) {
        self.ended.store(true, Ordering::SeqCst);
    }

    /// Tell the hall's list (read without asking the actor) how many moves are played.
    pub(super) fn store_moves_count(&self, moves_count: u32) {
        self.moves_count.store(moves_count, Ordering::Relaxed);
    }

    /// Whether each player was counted present since this actor started.
    pub(super) fn seen(&self) -> [bool; 2] {
        self.seen
    }

    /// Back to what a checkpoint saw, when the step that followed it failed.
    pub(super) fn restore_seen(&mut self, seen: [bool; 2]) {
        self.seen = seen;
    }

    /// A restored game's players were both here before the restart: from now on each counts as
    /// away until they come back (nobody is connected to a freshly restored game yet).
    pub(super) fn both_seen_before(&mut self) {
        self.seen = [true, true];
    }

    /// Look at the players' connections: who is here now, and who has been seen since this actor
    /// started (now included).
    pub(super) fn look_at_players(&mut self) -> ([bool; 2], [bool; 2]) {
        let here =
            Color::BOTH.map(|color| self.presence.counts[color.index()].load(Ordering::SeqCst) > 0);
        for (seen, here) in self.seen.iter_mut().zip(here) {
            *seen |= here;
        }
        (here, self.seen)
    }

    /// Wait until the whole crowd has every frame sent so far (see `FanOut::relayed`).
    pub(super) async fn relayed(&self) {
        self.fan_out.relayed().await;
    }

    /// Send a frame that is no game event to everyone following the game. No subscribers is
    /// fine: the next one's snapshot has what it says.
    pub(super) fn send_to_all(&mut self, frame: Frame) {
        self.fan_out.send(None, frame, [None, None]);
    }

    /// Send the frame of the stored event `seq` to everyone following the game.
    pub(super) fn send_event(&mut self, seq: u64, frame: Frame) {
        // No subscribers is fine: the event is stored and snapshots include it.
        self.fan_out.send(Some(seq), frame, [None, None]);
    }

    /// Every follower of `game` was just woken for an event: a watchers push waiting for its time
    /// goes with it (see `GameActor::announce`); with none waiting, the next change waits an
    /// interval from now.
    pub(super) fn event_sent(&mut self, game: GameId) {
        if self.watchers_pacer.due.is_some() {
            self.push_watchers(game);
        } else {
            self.watchers_pacer.followers_woken();
        }
    }

    /// When the next coalesced push of the watchers list is due, if one waits.
    pub(super) fn watchers_push_due(&self) -> Option<Instant> {
        self.watchers_pacer.due
    }

    /// Someone began or stopped watching: push the list now if the last push is an interval old,
    /// else when it is ([`WATCHER_COUNT_PUSH_MS`], or less often for a crowd), so a crowd
    /// arriving costs one push a second. Returns how many follow the game now.
    pub(super) fn watchers_changed(&mut self) -> usize {
        let followers = self.followers();
        self.watchers_pacer.crowd_is(followers);
        self.watchers_pacer.changed();
        followers
    }

    /// How many watchers the list names for the game's crowd now (see [`watchers_listed_max`]).
    fn watchers_listed(&self) -> usize {
        watchers_listed_max(self.followers())
    }

    /// Tell everyone following `game` who watches it, unless that is what they were last told.
    ///
    /// Not a game event: the list is about the audience, not the game, so it has no `seq` and never
    /// enters the durable event log (a replay after a restart must not resurrect watchers who are
    /// gone, and hundreds of joins must not grow the record). Nothing is lost by that: every
    /// snapshot (`game_state`, including a resync after falling behind) carries the list as it is.
    pub(super) fn push_watchers(&mut self, game: GameId) {
        self.watchers_pacer.due = None;
        let list = self.viewers.list(self.watchers_listed());
        if list == self.watchers_pushed {
            return;
        }
        self.watchers_pacer.pushed();
        // The names only when some follower may hold others: a title match's crowd changes its
        // counts all the time and its strongest hundred rarely, and the list is several KiB to
        // every follower (15,000 of them stalled the game's fan-out for a second).
        let shown_differ = self.watchers_shown_differ.swap(false, Ordering::Relaxed);
        let names_changed = shown_differ || list.watchers != self.watchers_pushed.watchers;
        let frame = ServerMsg::from(GamesServerMsg::Watchers {
            game,
            watchers_count: list.watchers_count,
            anonymous_watchers_count: list.anonymous_watchers_count,
            watchers: names_changed.then(|| list.watchers.clone()),
        })
        .to_json();
        // No subscribers is fine: the next one's snapshot has the list.
        self.fan_out.send(None, frame.into(), [None, None]);
        self.watchers_pushed = list;
    }

    /// The state and the frames after it for another node, which counts its own watchers.
    pub(super) fn mirror(&self, seats: &Seats, core: &GameCore, now_ms: u64) -> Mirror {
        let snapshot = ServerMsg::from(GamesServerMsg::GameState {
            state: Box::new(self.state(seats, core, now_ms)),
        })
        .to_json();
        Mirror {
            snapshot: Frame::from(snapshot),
            seq: core.seq,
            frames: self.fan_out.subscribe_first(),
        }
    }

    /// A new follower, `viewer` (`None`: not logged in): counted in as a player's connection or
    /// as a watcher, and started from a snapshot of the game as it is at `now_ms`.
    pub(super) fn subscribe(
        &mut self,
        viewer: Option<PlayerInfo>,
        seats: &Seats,
        core: &GameCore,
        now_ms: u64,
    ) -> Result<Subscription, Refusal> {
        // Receivers, not people: each costs this node a follower's reads whoever holds it.
        if self.followers() >= WATCHERS_PER_GAME_MAX {
            return Err(Refusal::new(
                ErrorCode::TooManyWatchers,
                "this game has as many watchers as it takes",
            ));
        }
        let frames = self.fan_out.subscribe();
        let presence = viewer
            .as_ref()
            .and_then(|info| seats.color_of(info.user).ok())
            .map(|color| PresenceGuard::new(Arc::clone(&self.presence), color.index()));
        // Counted in before the snapshot is taken, so a new watcher finds themselves in the list.
        let viewer = ViewerGuard::new(Arc::clone(&self.viewers), viewer);
        let snapshot = ServerMsg::from(GamesServerMsg::GameState {
            state: Box::new(self.state(seats, core, now_ms)),
        })
        .to_json();
        Ok(Subscription {
            snapshot: Frame::from(snapshot),
            seq: core.seq,
            frames,
            frames_sent: self.fan_out.sent(),
            presence,
            viewer,
        })
    }

    /// The whole game as a snapshot at game time `now_ms`, with the watchers as they are now.
    fn state(&self, seats: &Seats, core: &GameCore, now_ms: u64) -> GameState {
        let scoring = core.scoring.clone().unwrap_or_default();
        let left = |due: Option<u64>| due.map(|due| due.saturating_sub(now_ms));
        let away = [Color::Black, Color::White]
            .into_iter()
            .filter(|color| core.away_since_ms[color.index()].is_some())
            .map(|color| Away {
                color,
                forfeit_in_ms: core.forfeit_in_ms(color, now_ms),
            })
            .collect();
        let live = core.outcome.is_none();
        let (awaited, [warnings_black, warnings_white], halt) = event_state(core, now_ms);
        let watching = self.viewers.list(self.watchers_listed());
        if watching.watchers != self.watchers_pushed.watchers {
            self.watchers_shown_differ.store(true, Ordering::Relaxed);
        }
        GameState {
            game: seats.id,
            seq: core.seq,
            table: seats.table,
            black: seats.black.clone(),
            white: seats.white.clone(),
            settings: core.settings,
            nigiri_seed: seats.nigiri_seed,
            phase: phase(core),
            to_move: (core.game.to_move()),
            board: wire::board_rows(core.game.board()),
            captures_black: core.game.prisoners(Color::Black),
            captures_white: core.game.prisoners(Color::White),
            moves_count: core.game.moves().len() as u32,
            dead: if core.game.phase() == Phase::Scoring {
                scoring.dead.iter().copied().collect()
            } else {
                Vec::new()
            },
            accepted_black: scoring.accepted[0],
            accepted_white: scoring.accepted[1],
            outcome: core.outcome.clone(),
            watchers_count: watching.watchers_count,
            anonymous_watchers_count: watching.anonymous_watchers_count,
            watchers: watching.watchers,
            clocks: clock_view(core, now_ms),
            server_time_ms: Some(unix_now_ms()),
            undo_requested_by: core.undo_request,
            first_move_in_ms: left(core.first_move_deadline_ms().filter(|_| live)),
            scoring_ends_in_ms: left(core.scoring_deadline_ms.filter(|_| live)),
            away,
            last_move: wire::last_move(&core.game),
            awaited,
            warnings_black,
            warnings_white,
            halt,
        }
    }

    /// Watchers' chat: never from, and never to, the players while the game is on.
    pub(super) fn kibitz(
        &mut self,
        seats: &Seats,
        from: PlayerInfo,
        said: (String, u64),
        line: Option<ChatLineId>,
    ) -> Result<(), Refusal> {
        if seats.color_of(from.user).is_ok() {
            return Err(Refusal::new(
                ErrorCode::NotAllowed,
                "players may not use the watchers' chat of their own game during play",
            ));
        }
        let channel = tengen_protocol::ChatChannel::Kibitz { game: seats.id };
        let players = [Some(seats.black.user), Some(seats.white.user)];
        self.publish_chat(channel, from, said, line, players)
    }

    /// The players' chat: from the two players only, read by everyone who follows the game.
    pub(super) fn player_chat(
        &mut self,
        seats: &Seats,
        from: PlayerInfo,
        said: (String, u64),
        line: Option<ChatLineId>,
    ) -> Result<(), Refusal> {
        if seats.color_of(from.user).is_err() {
            return Err(Refusal::new(
                ErrorCode::NotYourGame,
                "only the game's players write in its players' chat; watchers use kibitz",
            ));
        }
        let channel = tengen_protocol::ChatChannel::Game { game: seats.id };
        self.publish_chat(channel, from, said, line, [None, None])
    }

    /// A chat line of the game to everyone following it but `hidden_from`: no event, no `seq`.
    fn publish_chat(
        &mut self,
        channel: tengen_protocol::ChatChannel,
        from: PlayerInfo,
        (text, at_ms): (String, u64),
        line: Option<ChatLineId>,
        hidden_from: [Option<UserId>; 2],
    ) -> Result<(), Refusal> {
        let text = chat::validate(&text)?;
        let frame = chat::frame(channel, from, (text, at_ms), line);
        self.fan_out.send(None, frame.into(), hidden_from);
        Ok(())
    }

    /// A moderator removed `line` from one of the game's chats: everyone following drops it (the
    /// players never had a kibitz line, and dropping one they lack costs nothing).
    pub(super) fn remove_chat(&mut self, channel: tengen_protocol::ChatChannel, line: ChatLineId) {
        let frame = ServerMsg::from(HallServerMsg::ChatRemoved { channel, line }).to_json();
        self.fan_out.send(None, frame.into(), [None, None]);
    }
}

/// The phase the state shows.
fn phase(core: &GameCore) -> GamePhase {
    match core.game.phase() {
        Phase::Over { .. } => GamePhase::Over,
        Phase::Scoring => GamePhase::Scoring,
        Phase::Play | Phase::PlacingHandicap => GamePhase::Playing,
    }
}

/// How many names the watchers list of a game with `followers` shows: [`WATCHERS_LISTED_MAX`],
/// fewer past a crowd of a thousand (see [`WATCHER_NAMES_FANNED_OUT_MAX`]).
fn watchers_listed_max(followers: usize) -> usize {
    (WATCHER_NAMES_FANNED_OUT_MAX / followers.max(1))
        .clamp(WATCHERS_LISTED_MIN, WATCHERS_LISTED_MAX)
}

#[cfg(test)]
mod tests {
    use super::watchers_listed_max;

    #[test]
    fn a_crowd_is_named_fewer_in_proportion() {
        assert_eq!(watchers_listed_max(0), 100);
        assert_eq!(watchers_listed_max(1_000), 100);
        assert_eq!(watchers_listed_max(2_000), 50);
        assert_eq!(watchers_listed_max(15_000), 10);
        assert_eq!(watchers_listed_max(25_000), 10);
    }
}
