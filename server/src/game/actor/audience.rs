//! Everyone who follows the game, and what they are sent besides its events: a subscription (a
//! player's counts as presence, anyone else's as watching) starts from a snapshot of the whole
//! state; another node mirrors the game without being counted; the watchers list is pushed as it
//! changes, coalesced by a [`Pacer`]; and the watchers' chat (kibitz) is broadcast, hidden from the
//! players. Apart from the snapshot, none of this is a game event: it has no `seq` and never enters
//! the log.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tengen_protocol::{
    Away, ChatLineId, ErrorCode, GamePhase, GameState, PlayerInfo, ServerMsg, UserId,
};
use tengen_rules::{Color, Phase};
use tokio::time::Instant;

use super::{Flow, GameActor};
use crate::chat;
use crate::config::{
    POOL_FRAMES_PER_S_MAX, POOL_PUSH_MS, WATCHERS_LISTED_MAX, WATCHERS_LISTED_MIN,
    WATCHERS_PER_GAME_MAX, WATCHER_COUNT_PUSH_MS, WATCHER_LIST_FRAMES_PER_S_MAX,
    WATCHER_NAMES_FANNED_OUT_MAX,
};
use crate::game::wire;
use crate::game::{Mirror, PresenceGuard, Subscription, ViewerGuard};
use crate::{unix_now_ms, Frame, Refusal};

impl GameActor {
    /// Someone began or stopped watching: push the list now if the last push is an interval old,
    /// else when it is ([`WATCHER_COUNT_PUSH_MS`](crate::config::WATCHER_COUNT_PUSH_MS)), so a
    /// crowd arriving costs one push a second.
    pub(super) fn watchers_changed(&mut self) -> Flow {
        let followers = self.fan_out.receiver_count();
        self.watchers_pacer
            .set_interval_ms(watchers_push_ms(followers));
        self.pool_pacer.set_interval_ms(pool_push_ms(followers));
        self.watchers_pacer.changed();
        Flow::Continue
    }

    /// How many watchers the list names for the game's crowd now (see [`watchers_listed_max`]).
    fn watchers_listed(&self) -> usize {
        watchers_listed_max(self.fan_out.receiver_count())
    }

    /// Tell everyone following the game who watches it, unless that is what they were last told.
    ///
    /// Not a game event: the list is about the audience, not the game, so it has no `seq` and never
    /// enters the durable event log (a replay after a restart must not resurrect watchers who are
    /// gone, and hundreds of joins must not grow the record). Nothing is lost by that: every
    /// snapshot (`game_state`, including a resync after falling behind) carries the list as it is.
    pub(super) fn push_watchers(&mut self) -> Flow {
        self.watchers_pacer.due = None;
        let list = self.viewers.list(self.watchers_listed());
        if list == self.watchers_pushed {
            return Flow::Continue;
        }
        self.watchers_pacer.pushed();
        // The names only when some follower may hold others: a title match's crowd changes its
        // counts all the time and its strongest hundred rarely, and the list is several KiB to
        // every follower (15,000 of them stalled the game's fan-out for a second).
        let shown_differ = self.watchers_shown_differ.swap(false, Ordering::Relaxed);
        let names_changed = shown_differ || list.watchers != self.watchers_pushed.watchers;
        let frame = ServerMsg::Games(tengen_protocol::GamesServerMsg::Watchers {
            game: self.id,
            watchers_count: list.watchers_count,
            anonymous_watchers_count: list.anonymous_watchers_count,
            watchers: names_changed.then(|| list.watchers.clone()),
        })
        .to_json();
        // No subscribers is fine: the next one's snapshot has the list.
        self.fan_out.send(None, frame.into(), [None, None]);
        self.watchers_pushed = list;
        Flow::Continue
    }

    /// The state and the frames after it for another node, which counts its own watchers.
    pub(super) fn mirror(&self) -> Mirror {
        let snapshot = ServerMsg::Games(tengen_protocol::GamesServerMsg::GameState {
            state: Box::new(self.state()),
        })
        .to_json();
        Mirror {
            snapshot: Frame::from(snapshot),
            seq: self.core.seq,
            frames: self.fan_out.subscribe_first(),
        }
    }

    pub(super) fn subscribe(
        &mut self,
        viewer: Option<PlayerInfo>,
    ) -> Result<Subscription, Refusal> {
        // Receivers, not people: each costs this node a follower's reads whoever holds it.
        if self.fan_out.receiver_count() >= WATCHERS_PER_GAME_MAX {
            return Err(Refusal::new(
                ErrorCode::TooManyWatchers,
                "this game has as many watchers as it takes",
            ));
        }
        let frames = self.fan_out.subscribe();
        let presence = viewer
            .as_ref()
            .and_then(|info| self.color_of(info.user).ok())
            .map(|color| PresenceGuard::new(Arc::clone(&self.presence), color.index()));
        // Counted in before the snapshot is taken, so a new watcher finds themselves in the list.
        let viewer = ViewerGuard::new(Arc::clone(&self.viewers), viewer);
        let snapshot = ServerMsg::Games(tengen_protocol::GamesServerMsg::GameState {
            state: Box::new(self.state()),
        })
        .to_json();
        Ok(Subscription {
            snapshot: Frame::from(snapshot),
            seq: self.core.seq,
            frames,
            frames_sent: self.fan_out.sent(),
            presence,
            viewer,
        })
    }

    fn phase(&self) -> GamePhase {
        match self.core.game.phase() {
            Phase::Over { .. } => GamePhase::Over,
            Phase::Scoring => GamePhase::Scoring,
            Phase::Play | Phase::PlacingHandicap => GamePhase::Playing,
        }
    }

    fn state(&self) -> GameState {
        let scoring = self.core.scoring.clone().unwrap_or_default();
        let now_ms = self.now_ms();
        let left = |due: Option<u64>| due.map(|due| due.saturating_sub(now_ms));
        let away = [Color::Black, Color::White]
            .into_iter()
            .filter(|color| self.core.away_since_ms[color.index()].is_some())
            .map(|color| Away {
                color,
                forfeit_in_ms: self.core.forfeit_in_ms(color, now_ms),
            })
            .collect();
        let live = self.core.outcome.is_none();
        let (awaited, [warnings_black, warnings_white], halt) = self.event_state(now_ms);
        let watching = self.viewers.list(self.watchers_listed());
        if watching.watchers != self.watchers_pushed.watchers {
            self.watchers_shown_differ.store(true, Ordering::Relaxed);
        }
        GameState {
            game: self.id,
            seq: self.core.seq,
            table: self.table,
            black: self.black.clone(),
            white: self.white.clone(),
            settings: self.core.settings,
            nigiri_seed: self.nigiri_seed,
            phase: self.phase(),
            to_move: (self.core.game.to_move()),
            board: wire::board_rows(self.core.game.board()),
            captures_black: self.core.game.prisoners(Color::Black),
            captures_white: self.core.game.prisoners(Color::White),
            moves_count: self.core.game.moves().len() as u32,
            dead: if self.core.game.phase() == Phase::Scoring {
                scoring.dead.iter().copied().collect()
            } else {
                Vec::new()
            },
            accepted_black: scoring.accepted[0],
            accepted_white: scoring.accepted[1],
            outcome: self.core.outcome.clone(),
            watchers_count: watching.watchers_count,
            anonymous_watchers_count: watching.anonymous_watchers_count,
            watchers: watching.watchers,
            clocks: self.clock_view(now_ms),
            server_time_ms: Some(unix_now_ms()),
            undo_requested_by: self.core.undo_request,
            first_move_in_ms: left(self.core.first_move_deadline_ms().filter(|_| live)),
            scoring_ends_in_ms: left(self.core.scoring_deadline_ms.filter(|_| live)),
            away,
            last_move: wire::last_move(&self.core.game),
            awaited,
            warnings_black,
            warnings_white,
            halt,
        }
    }

    /// Watchers' chat: never from, and never to, the players while the game is on.
    pub(super) fn kibitz(
        &mut self,
        from: PlayerInfo,
        said: (String, u64),
        line: Option<ChatLineId>,
    ) -> Result<(), Refusal> {
        if self.color_of(from.user).is_ok() {
            return Err(Refusal::new(
                ErrorCode::NotAllowed,
                "players may not use the watchers' chat of their own game during play",
            ));
        }
        let channel = tengen_protocol::ChatChannel::Kibitz { game: self.id };
        let players = [Some(self.black.user), Some(self.white.user)];
        self.publish_chat(channel, from, said, line, players)
    }

    /// The players' chat: from the two players only, read by everyone who follows the game.
    pub(super) fn player_chat(
        &mut self,
        from: PlayerInfo,
        said: (String, u64),
        line: Option<ChatLineId>,
    ) -> Result<(), Refusal> {
        if self.color_of(from.user).is_err() {
            return Err(Refusal::new(
                ErrorCode::NotYourGame,
                "only the game's players write in its players' chat; watchers use kibitz",
            ));
        }
        let channel = tengen_protocol::ChatChannel::Game { game: self.id };
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
        let frame = ServerMsg::Hall(tengen_protocol::HallServerMsg::ChatRemoved { channel, line })
            .to_json();
        self.fan_out.send(None, frame.into(), [None, None]);
    }
}

/// How often a game with `followers` pushes its watchers list: every
/// [`WATCHER_COUNT_PUSH_MS`], or less often past [`WATCHER_LIST_FRAMES_PER_S_MAX`] followers, so
/// the list costs at most that many frames a second however many follow the game.
fn watchers_push_ms(followers: usize) -> u64 {
    let per_push = followers.div_ceil(WATCHER_LIST_FRAMES_PER_S_MAX).max(1) as u64;
    WATCHER_COUNT_PUSH_MS.saturating_mul(per_push)
}

/// How many names the watchers list of a game with `followers` shows: [`WATCHERS_LISTED_MAX`],
/// fewer past a crowd of a thousand (see [`WATCHER_NAMES_FANNED_OUT_MAX`]).
fn watchers_listed_max(followers: usize) -> usize {
    (WATCHER_NAMES_FANNED_OUT_MAX / followers.max(1))
        .clamp(WATCHERS_LISTED_MIN, WATCHERS_LISTED_MAX)
}

/// How often a game with `followers` pushes its pool: every [`POOL_PUSH_MS`], or less often past
/// [`POOL_FRAMES_PER_S_MAX`] followers.
fn pool_push_ms(followers: usize) -> u64 {
    let per_push = followers.div_ceil(POOL_FRAMES_PER_S_MAX).max(1) as u64;
    POOL_PUSH_MS.saturating_mul(per_push)
}

/// When a coalesced push (the watchers list, the pool) is next due: a change is pushed at once when
/// the last push is an interval old, otherwise when it will be, so a burst of changes costs each
/// follower one frame per interval.
#[derive(Debug)]
pub(super) struct Pacer {
    interval: Duration,
    pushed_at: Option<Instant>,
    /// `None`: nothing changed since the last push.
    pub(super) due: Option<Instant>,
}

impl Pacer {
    pub(super) fn new(interval_ms: u64) -> Pacer {
        Pacer {
            interval: Duration::from_millis(interval_ms),
            pushed_at: None,
            due: None,
        }
    }

    /// Push at most once per `interval_ms` from now on (a push already scheduled keeps its time).
    pub(super) fn set_interval_ms(&mut self, interval_ms: u64) {
        self.interval = Duration::from_millis(interval_ms);
    }

    /// Something changed: schedule a push unless one is already due.
    pub(super) fn changed(&mut self) {
        if self.due.is_none() {
            let now = Instant::now();
            let due = self
                .pushed_at
                .map_or(now, |at| (at + self.interval).max(now));
            self.due = Some(due);
        }
    }

    /// Every follower was just sent something else (a game event): a change from now on waits the
    /// interval as after a push. Nothing is scheduled here, and a push already due keeps its time.
    pub(super) fn followers_woken(&mut self) {
        if self.due.is_none() {
            self.pushed_at = Some(Instant::now());
        }
    }

    /// A push went out now (which makes any scheduled one unnecessary).
    pub(super) fn pushed(&mut self) {
        self.due = None;
        self.pushed_at = Some(Instant::now());
    }
}

#[cfg(test)]
mod tests {
    use super::{pool_push_ms, watchers_listed_max, watchers_push_ms};

    #[test]
    fn a_crowd_hears_the_list_less_often_in_proportion() {
        assert_eq!(watchers_push_ms(0), 1_000);
        assert_eq!(watchers_push_ms(2_000), 1_000);
        assert_eq!(watchers_push_ms(2_001), 2_000);
        assert_eq!(watchers_push_ms(20_000), 10_000);
    }

    #[test]
    fn a_crowd_hears_the_pool_less_often_in_proportion() {
        assert_eq!(pool_push_ms(10), 1_000);
        assert_eq!(pool_push_ms(5_000), 1_000);
        assert_eq!(pool_push_ms(15_000), 3_000);
        assert_eq!(pool_push_ms(20_000), 4_000);
    }

    #[test]
    fn a_crowd_is_named_fewer_in_proportion() {
        assert_eq!(watchers_listed_max(0), 100);
        assert_eq!(watchers_listed_max(1_000), 100);
        assert_eq!(watchers_listed_max(2_000), 50);
        assert_eq!(watchers_listed_max(15_000), 10);
        assert_eq!(watchers_listed_max(25_000), 10);
    }
}
