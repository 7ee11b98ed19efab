//! The games one connection follows, read by the connection's own task. Each followed game is a
//! subscription to its broadcast; the session's loop waits on all of them beside its socket and
//! writes what arrives, in order, with the rest of its turn's frames in one flush. No task sits
//! between a game and a socket: a move reaches 15,000 watchers with 15,000 wake-ups and no queue
//! hand-off, where a forwarder task per watcher cost twice the wake-ups and held a 256-frame queue
//! per connection (the title match's server took 498 MiB instead of 656).
//!
//! Per game it skips the frames hidden from the viewer (kibitz, from the players during play) and the
//! events already in the snapshot. A follower that falls behind the broadcast (more than
//! `GAME_EVENT_QUEUE_LEN` frames: the connection stopped reading) is sent a fresh snapshot instead of
//! stalling the game or anyone else. A game whose actor stops before its end is looked for again
//! (restarted here by its supervisor, or, scaled out, taken over by another node) and followed there
//! from a fresh snapshot. After a login or logout the connection is counted in again as who it now is.
//!
//! Only the games that have something new are polled (`SelectAll` keeps a waker per game), so a
//! connection's other work (its requests, pings, the hall's pushes) never touches a game's broadcast.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use futures_util::stream::{AbortHandle, Abortable, SelectAll};
use futures_util::{FutureExt, Stream, StreamExt};
use tengen_protocol::{GameEvent, GameId, GamesServerMsg, PlayerInfo, ServerMsg};
use tokio_stream::wrappers::errors::BroadcastStreamRecvError;
use tokio_stream::wrappers::BroadcastStream;

use super::{subscribe, GameFrame, GameHandle, Games, PresenceGuard, Subscription, ViewerGuard};
use crate::config::{FOLLOW_ELSEWHERE_MS, FOLLOW_ELSEWHERE_RETRY_MS};
use crate::store::StoreHandle;
use crate::Frame;

/// What a followed game's broadcast brings.
#[derive(Debug)]
pub enum Arrival {
    Frame(GameFrame),
    /// The connection fell this many frames behind; they are gone.
    Lagged(u64),
    /// The game's actor stopped (the game ended, or its actor went away before the end).
    Closed,
}

/// The games one connection follows (at most `GAMES_PER_SESSION_MAX`, which the session enforces).
#[derive(Default)]
pub struct Following {
    games: HashMap<GameId, Followed>,
    arrivals: SelectAll<Abortable<Arrivals>>,
}

/// One followed game: where it comes from, how far this connection has it, and the guards that
/// count the connection in as present (a player) or watching.
struct Followed {
    source: Source,
    /// Stops this game's stream in `arrivals` (dropped there at its next poll).
    stop: AbortHandle,
    /// The events up to here were in the snapshot this connection was sent.
    snapshot_seq: u64,
    /// So were the frames numbered below this (see [`FanOut`](super::FanOut)).
    frames_sent: u64,
    /// The last event this connection has: in the snapshot, or delivered since.
    seq: u64,
    _presence: Option<PresenceGuard>,
    viewer: ViewerGuard,
}

impl Drop for Followed {
    fn drop(&mut self) {
        self.stop.abort();
    }
}

impl std::fmt::Debug for Following {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Following")
            .field("games", &self.games.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Following {
    pub fn len(&self) -> usize {
        self.games.len()
    }

    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    pub fn contains(&self, game: GameId) -> bool {
        self.games.contains_key(&game)
    }

    /// The followed game's handle, so that moves and kibitz reach its actor without the shared
    /// registry's lock.
    pub fn handle(&self, game: GameId) -> Option<&GameHandle> {
        self.games
            .get(&game)
            .map(|followed| &followed.source.handle)
    }

    /// Follow the game from `subscription`, whose snapshot the caller has sent, in place of any
    /// earlier following of it (whose guards go only after the new ones count the connection in).
    pub fn follow(&mut self, source: Source, subscription: Subscription) {
        let game = source.game;
        let (stop, registration) = AbortHandle::new_pair();
        let arrivals = Arrivals {
            game,
            frames: BroadcastStream::new(subscription.frames),
            closed: false,
        };
        self.arrivals.push(Abortable::new(arrivals, registration));
        let followed = Followed {
            source,
            stop,
            snapshot_seq: subscription.seq,
            frames_sent: subscription.frames_sent,
            seq: subscription.seq,
            _presence: subscription.presence,
            viewer: subscription.viewer,
        };
        self.games.insert(game, followed);
    }

    /// Stop following the game. False if it was not followed.
    pub fn unfollow(&mut self, game: GameId) -> bool {
        self.games.remove(&game).is_some()
    }

    /// Stop following every game (the connection is going).
    pub fn clear(&mut self) {
        self.games.clear();
    }

    /// Count the connection in again as `viewer` in every game it follows (after a login or
    /// logout): the new guard first, so a user who stays logged in is never counted out.
    pub fn count_in_as(&mut self, viewer: Option<&PlayerInfo>) {
        for followed in self.games.values_mut() {
            let registry = Arc::clone(followed.viewer.viewers());
            followed.viewer = ViewerGuard::new(registry, viewer.cloned());
        }
    }

    /// The next arrival from any followed game; waits for ever while nothing is followed.
    pub async fn next(&mut self) -> (GameId, Arrival) {
        match self.arrivals.next().await {
            Some(arrival) => arrival,
            None => std::future::pending().await,
        }
    }

    /// An arrival already waiting, if any, without waiting.
    pub fn ready(&mut self) -> Option<(GameId, Arrival)> {
        self.arrivals.next().now_or_never().flatten()
    }

    /// Add to `out` the frames an arrival means for this connection: the frame itself unless hidden
    /// from `viewer` or already in the snapshot; after a lag, a fresh snapshot; after the actor
    /// stopped, the game where it goes on, or its last events. A game that cannot be followed any
    /// more is dropped.
    pub async fn take(
        &mut self,
        game: GameId,
        arrival: Arrival,
        viewer: Option<&PlayerInfo>,
        out: &mut Vec<Frame>,
    ) {
        match arrival {
            Arrival::Frame(frame) => self.deliver(game, frame, viewer, out),
            Arrival::Lagged(skipped) => {
                tracing::debug!(skipped, %game, "a follower fell behind; resyncing");
                let Some(followed) = self.games.get(&game) else {
                    return;
                };
                let source = followed.source.clone();
                match subscribe(&source.handle, viewer.cloned()).await {
                    Ok(fresh) => self.restart(source, fresh, out),
                    Err(_) => {
                        self.unfollow(game);
                    }
                }
            }
            Arrival::Closed => self.find_elsewhere(game, viewer, out).await,
        }
    }

    fn deliver(
        &mut self,
        game: GameId,
        frame: GameFrame,
        viewer: Option<&PlayerInfo>,
        out: &mut Vec<Frame>,
    ) {
        let Some(followed) = self.games.get_mut(&game) else {
            return;
        };
        let user = viewer.map(|p| p.user);
        if user.is_some() && frame.hidden_from.contains(&user) {
            return;
        }
        // By number: anything sent here before the snapshot (a crowd's slice may still bring it).
        // By `seq`: events a mirrored game's snapshot, read from the owner, already held.
        let in_snapshot = frame.number < followed.frames_sent
            || frame.seq.is_some_and(|seq| seq <= followed.snapshot_seq);
        if in_snapshot {
            return;
        }
        followed.seq = frame.seq.unwrap_or(followed.seq);
        out.push(frame.text);
    }

    /// Follow again from a fresh subscription: its snapshot first, then what comes after it.
    fn restart(&mut self, source: Source, fresh: Subscription, out: &mut Vec<Frame>) {
        out.push(fresh.snapshot.clone());
        self.follow(source, fresh);
    }

    /// The game's actor stopped: follow the game where it goes on, or send its last events.
    async fn find_elsewhere(
        &mut self,
        game: GameId,
        viewer: Option<&PlayerInfo>,
        out: &mut Vec<Frame>,
    ) {
        let Some(followed) = self.games.get_mut(&game) else {
            return;
        };
        let seq = followed.seq;
        let found = followed.source.follow_elsewhere(viewer.cloned(), seq).await;
        match found {
            Some(Elsewhere::Running(fresh)) => {
                if let Some(followed) = self.games.get(&game) {
                    let source = followed.source.clone();
                    self.restart(source, fresh, out);
                }
            }
            Some(Elsewhere::Ended(frames)) => {
                out.extend(frames);
                self.unfollow(game);
            }
            None => {
                self.unfollow(game);
            }
        }
    }
}

/// One game's broadcast as a stream of arrivals, ending after `Closed`. `BroadcastStream` keeps the
/// receive in progress between polls, so a connection registers with the game's broadcast once per
/// frame, not once per turn of its loop.
struct Arrivals {
    game: GameId,
    frames: BroadcastStream<GameFrame>,
    closed: bool,
}

impl Stream for Arrivals {
    type Item = (GameId, Arrival);

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.closed {
            return Poll::Ready(None);
        }
        let arrival = match ready!(self.frames.poll_next_unpin(cx)) {
            Some(Ok(frame)) => {
                if let Some(progress) = &frame.progress {
                    progress.arrived();
                }
                Arrival::Frame(frame)
            }
            Some(Err(BroadcastStreamRecvError::Lagged(skipped))) => Arrival::Lagged(skipped),
            None => {
                self.closed = true;
                Arrival::Closed
            }
        };
        Poll::Ready(Some((self.game, arrival)))
    }
}

/// Where a followed game's frames come from: the game's handle, and how to find the game again if its
/// actor stops before the game ends (scaled out, when another node takes it over).
#[derive(Debug, Clone)]
pub struct Source {
    pub games: Games,
    pub game: GameId,
    pub handle: GameHandle,
    /// The game's log, for the events a follower missed when the game ended elsewhere first.
    pub store: StoreHandle,
}

/// Where a game whose actor stopped here went.
enum Elsewhere {
    /// It goes on on another node: follow it there.
    Running(Subscription),
    /// It ended on another node before this follower found it there: its last events.
    Ended(Vec<Frame>),
}

impl Source {
    /// The game where it runs now, if it did not end but goes on on another node. The takeover
    /// takes a few ticks, so this asks again until [`FOLLOW_ELSEWHERE_MS`]; the other node may also
    /// have finished the game by then, and the events after `seq` are then read from its log.
    async fn follow_elsewhere(
        &mut self,
        viewer: Option<PlayerInfo>,
        seq: u64,
    ) -> Option<Elsewhere> {
        if self.handle.has_ended() {
            return None;
        }
        if let Some(found) = self.follow_restarted(viewer.clone(), seq).await {
            return Some(found);
        }
        self.games.other_nodes()?;
        let deadline = tokio::time::Instant::now() + Duration::from_millis(FOLLOW_ELSEWHERE_MS);
        while tokio::time::Instant::now() < deadline {
            match self.games.get(self.game).await {
                Ok(handle) if !handle.is_closed() => {
                    if let Ok(subscription) = subscribe(&handle, viewer.clone()).await {
                        self.handle = handle;
                        return Some(Elsewhere::Running(subscription));
                    }
                }
                _ => {
                    if let Some(frames) = self.ended_after(seq).await {
                        return Some(Elsewhere::Ended(frames));
                    }
                }
            }
            tokio::time::sleep(Duration::from_millis(FOLLOW_ELSEWHERE_RETRY_MS)).await;
        }
        None
    }

    /// The game where its supervisor restarted it on this node after a panic: the same inbox
    /// answers again, from a fresh snapshot. If the supervisor ended the game instead (it kept
    /// panicking), its last events from the log.
    async fn follow_restarted(
        &mut self,
        viewer: Option<PlayerInfo>,
        seq: u64,
    ) -> Option<Elsewhere> {
        let handle = self.games.get_local(self.game)?;
        // The subscription waits in the inbox while the actor is rebuilt; it fails once the
        // supervisor has stopped.
        match subscribe(&handle, viewer).await {
            Ok(subscription) => {
                self.handle = handle;
                Some(Elsewhere::Running(subscription))
            }
            Err(_) => self.ended_after(seq).await.map(Elsewhere::Ended),
        }
    }

    /// The game's events after `seq` as frames, if its log ends with the game's end.
    async fn ended_after(&self, seq: u64) -> Option<Vec<Frame>> {
        let game = self.game;
        let logged = self.store.call(move |store| store.game_events(game)).await;
        let events: Vec<(u64, GameEvent)> = logged
            .ok()?
            .into_iter()
            .filter(|(logged_seq, _)| *logged_seq > seq)
            .map(|(seq, json)| serde_json::from_str(&json).ok().map(|event| (seq, event)))
            .collect::<Option<_>>()?;
        if !matches!(events.last(), Some((_, GameEvent::Ended { .. }))) {
            return None;
        }
        let frame = |(seq, event)| {
            // The clocks at each moment are gone with the actor; the end needs none.
            let msg = ServerMsg::Games(GamesServerMsg::GameEvent {
                game,
                seq,
                event,
                clocks: None,
                server_time_ms: None,
            });
            Frame::from(msg.to_json())
        };
        Some(events.into_iter().map(frame).collect())
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GAME_INBOX_LEN;
    use crate::game::{GameCmd, Viewers};
    use tengen_protocol::UserId;
    use tokio::sync::{broadcast, mpsc};

    fn frame(seq: Option<u64>, text: &str, hidden_from: [Option<UserId>; 2]) -> GameFrame {
        GameFrame {
            // This test's snapshots are told apart by `seq` alone (`frames_sent` 0).
            number: 0,
            progress: None,
            seq,
            text: Frame::from(text.to_string()),
            hidden_from,
        }
    }

    /// The frames the next arrival means for a connection of `viewer`.
    async fn next_frames(following: &mut Following, viewer: Option<&PlayerInfo>) -> Vec<String> {
        let (game, arrival) = following.next().await;
        let mut out = Vec::new();
        following.take(game, arrival, viewer, &mut out).await;
        out.iter().map(|frame| frame.as_str().to_string()).collect()
    }

    /// A follower that falls behind the broadcast gets a fresh snapshot, then the events after it,
    /// and never a frame hidden from it; a logout counts it in again as a guest, and unfollowing
    /// counts it out.
    #[tokio::test]
    async fn a_lagging_follower_is_resynced_and_hidden_frames_are_skipped() {
        const CAPACITY: usize = 4;
        let (frames, _) = broadcast::channel(CAPACITY);
        let (inbox_tx, mut inbox_rx) = mpsc::channel(GAME_INBOX_LEN);
        let viewers = Arc::new(Viewers::new([UserId(1), UserId(2)]));
        let handle = GameHandle::new(inbox_tx, Arc::clone(&viewers), Arc::default());
        let carol = PlayerInfo {
            user: UserId(7),
            username: "carol".into(),
            rank: "3k".into(),
            rating: 1700,
            computer: false,
        };
        let subscription = Subscription {
            snapshot: Frame::from("snapshot-0".to_string()),
            seq: 0,
            frames: frames.subscribe(),
            frames_sent: 0,
            presence: None,
            viewer: ViewerGuard::new(Arc::clone(&viewers), Some(carol.clone())),
        };
        // Overflow the channel before the follower reads anything.
        for seq in 1..=10 {
            frames
                .send(frame(Some(seq), &format!("event-{seq}"), [None, None]))
                .unwrap();
        }
        // A stand-in actor answers the resubscription with its state at seq 10.
        let actor_frames = frames.clone();
        let actor_viewers = Arc::clone(&viewers);
        tokio::spawn(async move {
            while let Some(GameCmd::Subscribe { reply, viewer }) = inbox_rx.recv().await {
                let _ = reply.send(Ok(Subscription {
                    snapshot: Frame::from("snapshot-10".to_string()),
                    seq: 10,
                    frames: actor_frames.subscribe(),
                    frames_sent: 0,
                    presence: None,
                    viewer: ViewerGuard::new(Arc::clone(&actor_viewers), viewer),
                }));
            }
        });
        let dir = tempfile::tempdir().unwrap();
        let sqlite = crate::store::sqlite::SqliteStore::open(dir.path()).unwrap();
        let source = Source {
            games: Games::new(),
            game: GameId(1),
            handle,
            store: StoreHandle::new(Arc::new(sqlite)),
        };
        let mut following = Following::default();
        following.follow(source, subscription);

        assert_eq!(
            next_frames(&mut following, Some(&carol)).await,
            ["snapshot-10"]
        );
        frames
            .send(frame(None, "kibitz", [Some(UserId(7)), None]))
            .unwrap();
        frames
            .send(frame(Some(11), "event-11", [None, None]))
            .unwrap();
        assert!(next_frames(&mut following, Some(&carol)).await.is_empty());
        assert_eq!(
            next_frames(&mut following, Some(&carol)).await,
            ["event-11"]
        );
        assert!(following.ready().is_none());
        // Resynced, Carol is still one watcher, counted once.
        assert_eq!(viewers.list(10).watchers[0].username, "carol");
        assert_eq!(viewers.count(), 1);

        // She logs out: the same connection watches on as a guest, and sees the kibitz.
        following.count_in_as(None);
        assert_eq!(viewers.list(10).anonymous_watchers_count, 1);
        assert_eq!(viewers.count(), 1);
        frames
            .send(frame(None, "kibitz", [Some(UserId(7)), None]))
            .unwrap();
        assert_eq!(next_frames(&mut following, None).await, ["kibitz"]);

        // Unfollowed, the connection counts out and hears nothing more of the game.
        assert!(following.unfollow(GameId(1)));
        assert_eq!(viewers.count(), 0);
        frames
            .send(frame(Some(12), "event-12", [None, None]))
            .unwrap();
        assert!(following.ready().is_none());
        assert!(following.is_empty());
    }
}
