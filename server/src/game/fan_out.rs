//! How a game's frames reach the connections that follow it: a broadcast, woken in slices.
//!
//! The first [`FOLLOWERS_PER_SLICE`] followers read the game's own broadcast and are woken the
//! moment a frame is sent, as every follower of an everyday game is. A crowd beyond them is spread
//! over further broadcasts of the same size, the slices, which one relay task fills in turn: the
//! next slice is woken once half of the last has its frames (each follower counts itself in as its
//! frame arrives), or after [`SLICE_WAIT_MS`] if that slice stalls. (Yielding to the runtime after
//! each slice was not enough: tokio runs a yielded task again after 61 others, before a slice of
//! 128 is done, and the slices piled up in the shared queue all the same.)
//!
//! Why: a move sent to 15,000 followers at once woke 15,000 tasks in one go. A worker's
//! own run queue holds 256 tasks, so the rest went to the runtime's shared queue, in order, and
//! anything woken from outside the runtime after them (the store writer's answer to a bet or to
//! another game's move) waited behind the whole fan-out: a fifth of a second here, the bet acks'
//! and the background moves' p99. In slices the shared queue never holds more than about a slice,
//! so such a wake-up waits for a slice's worth of work, not a crowd's. The last follower is reached
//! as soon as before, since the slices go out as fast as the runtime runs them, and an everyday
//! game never starts the relay.
//!
//! Every frame carries its `number`, counted from the game's first, and a subscription says how
//! many were sent before its snapshot: a slice may still be behind the game when someone joins it,
//! and the frames they would get twice (in the snapshot and from the slice) are known by number.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tengen_protocol::UserId;
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::sync::{watch, Notify};

use super::GameFrame;
use crate::config::{
    FOLLOWERS_PER_SLICE, GAME_EVENT_QUEUE_LEN, RELAYED_WAIT_MAX_MS, SLICE_WAIT_MS,
};
use crate::{lock, Frame};

/// One game's delivery to its followers.
#[derive(Debug)]
pub struct FanOut {
    /// The game's own broadcast: the first followers, another node's mirror, and the relay.
    first: broadcast::Sender<GameFrame>,
    /// The slices beyond `first`, shared with the relay, which is their only sender.
    slices: Arc<Mutex<Vec<broadcast::Sender<GameFrame>>>>,
    relay_started: bool,
    /// Frames the relay has passed on to every slice (by count, as `sent`).
    relayed: watch::Sender<u64>,
    /// Frames sent so far: the next frame's number.
    sent: u64,
    capacity: usize,
    followers_per_slice: usize,
}

impl Default for FanOut {
    fn default() -> Self {
        FanOut::new(GAME_EVENT_QUEUE_LEN, FOLLOWERS_PER_SLICE)
    }
}

impl FanOut {
    /// A fan-out whose broadcasts hold `capacity` frames for a follower that falls behind, in
    /// slices of `followers_per_slice`.
    pub fn new(capacity: usize, followers_per_slice: usize) -> FanOut {
        assert!(capacity > 0 && followers_per_slice > 0);
        let (first, _) = broadcast::channel(capacity);
        FanOut {
            first,
            slices: Arc::default(),
            relay_started: false,
            relayed: watch::Sender::new(0),
            sent: 0,
            capacity,
            followers_per_slice,
        }
    }

    /// Send a frame to every follower. Nobody following is fine: a follower's snapshot has it all.
    pub fn send(&mut self, seq: Option<u64>, text: Frame, hidden_from: [Option<UserId>; 2]) {
        let frame = GameFrame {
            number: self.sent,
            seq,
            text,
            hidden_from,
            progress: None,
        };
        self.sent += 1;
        let _ = self.first.send(frame);
    }

    /// Frames sent so far: a snapshot taken now holds what every one of them said.
    pub fn sent(&self) -> u64 {
        self.sent
    }

    /// A receiver for a new follower, in the first slice with room (a new one if none has).
    pub fn subscribe(&mut self) -> broadcast::Receiver<GameFrame> {
        let relay_receiver = usize::from(self.relay_started);
        let first_followers = self.first.receiver_count().saturating_sub(relay_receiver);
        if first_followers < self.followers_per_slice {
            return self.first.subscribe();
        }
        let mut slices = lock(&self.slices);
        if let Some(slice) = slices
            .iter()
            .find(|slice| slice.receiver_count() < self.followers_per_slice)
        {
            return slice.subscribe();
        }
        let (slice, receiver) = broadcast::channel(self.capacity);
        slices.push(slice);
        drop(slices);
        if !self.relay_started {
            self.relay_started = true;
            let slices = Arc::clone(&self.slices);
            tokio::spawn(relay(self.first.subscribe(), slices, self.relayed.clone()));
        }
        receiver
    }

    /// Once every frame sent so far has gone out to every slice (at once without a crowd). The end
    /// of a title match waits for this before it settles, so that 15,000 balance pushes do not wake
    /// their sessions in the middle of the end's own fan-out.
    pub async fn relayed(&self) {
        if !self.relay_started {
            return;
        }
        let sent = self.sent;
        let mut relayed = self.relayed.subscribe();
        // Bounded all the same: a game's end must never hang on its audience.
        let wait = Duration::from_millis(RELAYED_WAIT_MAX_MS);
        let _ = tokio::time::timeout(wait, relayed.wait_for(|relayed| *relayed >= sent)).await;
    }

    /// A receiver of the game's own broadcast, never delayed by a slice: for the relay to other
    /// nodes, which has followers of its own.
    pub fn subscribe_first(&self) -> broadcast::Receiver<GameFrame> {
        self.first.subscribe()
    }

    /// Receivers of the game's frames (followers here, and other nodes' mirrors), the relay not
    /// counted.
    pub fn receiver_count(&self) -> usize {
        let in_slices: usize = lock(&self.slices)
            .iter()
            .map(broadcast::Sender::receiver_count)
            .sum();
        let relay_receiver = usize::from(self.relay_started);
        self.first.receiver_count().saturating_sub(relay_receiver) + in_slices
    }
}

/// Pass each frame of the game's broadcast on to the slices, the next slice once half of this one
/// has its frames (or [`SLICE_WAIT_MS`] has passed: a stalled follower holds nobody up). Frames that
/// arrived together go out together. Ends when the game's broadcast closes (its actor stopped),
/// which closes the slices after their last frames.
async fn relay(
    mut from: broadcast::Receiver<GameFrame>,
    slices: Arc<Mutex<Vec<broadcast::Sender<GameFrame>>>>,
    relayed: watch::Sender<u64>,
) {
    let mut frames: Vec<GameFrame> = Vec::new();
    loop {
        match from.recv().await {
            Ok(frame) => frames.push(frame),
            Err(RecvError::Closed) => return,
            Err(RecvError::Lagged(skipped)) => {
                // The slices cannot be told which frames are gone: closing them sends their
                // followers to the game for a fresh snapshot, as an actor's restart does.
                tracing::warn!(skipped, "a crowd's relay fell behind; its followers resync");
                lock(&slices).clear();
                continue;
            }
        }
        while let Ok(frame) = from.try_recv() {
            frames.push(frame);
        }
        let count = lock(&slices).len();
        for index in 0..count {
            // Cloned out of the lock: a follower joining meanwhile must not wait for the slice.
            let Some(slice) = lock(&slices).get(index).cloned() else {
                break;
            };
            let progress = Arc::new(SliceProgress::new(slice.receiver_count()));
            let last = frames.len() - 1;
            for (position, frame) in frames.iter().enumerate() {
                let mut frame = frame.clone();
                if position == last {
                    frame.progress = Some(Arc::clone(&progress));
                }
                let _ = slice.send(frame);
            }
            let wait = Duration::from_millis(SLICE_WAIT_MS);
            let _ = tokio::time::timeout(wait, progress.half_arrived.notified()).await;
        }
        if let Some(last) = frames.last() {
            relayed.send_replace(last.number + 1);
        }
        frames.clear();
    }
}

/// How far a slice is with the frames the relay last sent it: its followers count themselves in
/// as the last of them arrives, and the relay is woken when half have.
#[derive(Debug)]
pub struct SliceProgress {
    /// Followers yet to take the frames.
    waiting: AtomicUsize,
    /// Wakes the relay when `waiting` comes down to this.
    half: usize,
    half_arrived: Notify,
}

impl SliceProgress {
    fn new(followers: usize) -> SliceProgress {
        let progress = SliceProgress {
            waiting: AtomicUsize::new(followers),
            half: followers / 2,
            half_arrived: Notify::new(),
        };
        if followers == 0 {
            progress.half_arrived.notify_one();
        }
        progress
    }

    /// One follower took the frames. Called once per follower per slice's send; one who joined the
    /// slice after it was counted may come on top, and changes nothing.
    pub fn arrived(&self) {
        let counted = self
            .waiting
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |waiting| {
                waiting.checked_sub(1)
            });
        if counted == Ok(self.half + 1) {
            // A permit if the relay is not waiting yet: it then goes on at once.
            self.half_arrived.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    fn send(fan_out: &mut FanOut, text: &str) {
        fan_out.send(None, Frame::from(text.to_string()), [None, None]);
    }

    async fn received(receiver: &mut broadcast::Receiver<GameFrame>) -> Vec<(u64, String)> {
        let mut got = Vec::new();
        loop {
            match receiver.recv().await {
                Ok(frame) => got.push((frame.number, frame.text.as_str().to_string())),
                Err(RecvError::Closed) => return got,
                Err(RecvError::Lagged(skipped)) => panic!("lagged by {skipped}"),
            }
        }
    }

    /// Followers beyond the first slice get every frame, in order, from the relay; each is
    /// counted once; a follower who joins a slice that is behind can tell by number the frames its
    /// snapshot already held; `relayed` waits for the relay; and the slices close after their
    /// last frame when the game goes.
    #[tokio::test]
    async fn a_crowd_gets_every_frame_in_order_in_slices() {
        let mut fan_out = FanOut::new(16, 2);
        let mut early: Vec<_> = (0..5).map(|_| fan_out.subscribe()).collect();
        assert_eq!(fan_out.receiver_count(), 5);
        assert_eq!(
            lock(&fan_out.slices).len(),
            2,
            "2 first, then slices of 2, 2 and 1"
        );
        send(&mut fan_out, "a");
        send(&mut fan_out, "b");
        // Joins before the relay has passed "a" and "b" on: the snapshot at 2 holds them.
        let joined_at = fan_out.sent();
        let mut late = fan_out.subscribe();
        assert_eq!(fan_out.receiver_count(), 6);
        send(&mut fan_out, "c");
        fan_out.relayed().await;
        assert_eq!(*fan_out.relayed.borrow(), 3, "every slice has all three");
        drop(fan_out);

        let all = [(0, "a"), (1, "b"), (2, "c")].map(|(n, text)| (n, text.to_string()));
        for receiver in &mut early {
            assert_eq!(received(receiver).await, all);
        }
        let after_snapshot: Vec<_> = received(&mut late)
            .await
            .into_iter()
            .filter(|(number, _)| *number >= joined_at)
            .collect();
        assert_eq!(after_snapshot, [(2, "c".to_string())]);
    }

    /// The relay is woken once, when half the slice has its frames, and not again by late-comers.
    #[tokio::test]
    async fn half_a_slice_wakes_the_relay() {
        let progress = SliceProgress::new(4);
        progress.arrived();
        assert!(progress.half_arrived.notified().now_or_never().is_none());
        progress.arrived();
        assert!(progress.half_arrived.notified().now_or_never().is_some());
        for _ in 0..4 {
            progress.arrived();
        }
        assert_eq!(progress.waiting.load(Ordering::Relaxed), 0);
        assert!(progress.half_arrived.notified().now_or_never().is_none());
    }

    /// A follower who leaves makes room in their slice for the next, and the count follows.
    #[tokio::test]
    async fn leaving_makes_room_in_a_slice() {
        let mut fan_out = FanOut::new(16, 2);
        let followers: Vec<_> = (0..4).map(|_| fan_out.subscribe()).collect();
        assert_eq!(lock(&fan_out.slices).len(), 1);
        drop(followers);
        assert_eq!(fan_out.receiver_count(), 0);
        let _again: Vec<_> = (0..4).map(|_| fan_out.subscribe()).collect();
        assert_eq!(lock(&fan_out.slices).len(), 1);
        assert_eq!(fan_out.receiver_count(), 4);
    }
}
