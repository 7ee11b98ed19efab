//! Who watches a game: a registry ([`Viewers`]) shared by the game actor and every subscription to
//! it, and the drop guard ([`ViewerGuard`]) through which a subscription is counted in for as long as
//! it lives. The count and the list are of people, not sockets: a user following the game on several
//! connections is one watcher, each anonymous connection is one watcher (nothing tells two guests
//! apart), and the game's own players are never watchers of it.
//!
//! A shared map rather than messages to the actor, so that a leave can never be lost to a full queue
//! (the same reason as the players' `Presence`): joining and leaving only take a short lock, and the
//! `Notify` wakes the actor, which pushes the list to subscribers at its own pace. The guard's
//! constructor is public so that a layer other than this node's sessions (a cluster node relaying a
//! remote session) can count a viewer in: get the registry with `GameHandle::viewers`, then hold a
//! `ViewerGuard::new(registry, viewer)` for as long as that viewer follows the game.

use std::cmp::Reverse;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use tengen_protocol::{PlayerInfo, UserId};
use tokio::sync::Notify;

/// The watchers of one game as people see them: the exact counts, and the strongest of the logged-in
/// watchers by name (at most the `listed_max` the caller asks for; the rest are only counted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WatcherList {
    /// Everyone watching: logged-in users (once each) plus anonymous connections.
    pub watchers_count: u32,
    /// Of those, the connections of nobody logged in.
    pub anonymous_watchers_count: u32,
    /// Logged-in watchers, strongest first, then by name.
    pub watchers: Vec<PlayerInfo>,
}

/// One game's watchers, shared between its actor and the guards of its subscriptions.
///
/// The map holds one entry per logged-in user with a live guard, so it is bounded by the guards
/// alive: on this node, by the game's subscriptions (`WATCHERS_PER_GAME_MAX`); a layer that creates
/// guards for remote sessions bounds its own.
#[derive(Debug)]
pub struct Viewers {
    /// The game's players (Black, White): their connections are presence, not watching.
    players: [UserId; 2],
    book: Mutex<Book>,
    /// Wakes the game actor after any join or leave; it coalesces pushes of the list.
    pub(super) changed: Notify,
}

#[derive(Debug, Default)]
struct Book {
    /// Each logged-in watcher's latest listing and how many of their guards are alive.
    users: HashMap<UserId, (PlayerInfo, u32)>,
    /// The same users in the list's order (strongest first, then by name), so the list's first
    /// entries are read without sorting every watcher: a title match has tens of thousands, and
    /// every new subscription's snapshot and every push of the list reads it.
    ranked: BTreeSet<Rank>,
    /// Live guards of anonymous connections.
    anonymous: u32,
}

/// Where a watcher stands in the list: rating (highest first), name, and the id that makes it unique.
type Rank = (Reverse<i32>, String, UserId);

fn rank(info: &PlayerInfo) -> Rank {
    (Reverse(info.rating), info.username.clone(), info.user)
}

impl Viewers {
    /// An empty registry for the game between `players` (Black, White).
    pub fn new(players: [UserId; 2]) -> Viewers {
        Viewers {
            players,
            book: Mutex::new(Book::default()),
            changed: Notify::new(),
        }
    }

    /// A panicking holder cannot leave the book half-changed (every change is one statement), so a
    /// poisoned lock is still good.
    fn book(&self) -> MutexGuard<'_, Book> {
        self.book
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// How many people watch: what `watchers_count` says everywhere (game state, hall lists).
    pub fn count(&self) -> u32 {
        let book = self.book();
        book.users.len() as u32 + book.anonymous
    }

    /// The counts and the first `listed_max` logged-in watchers, strongest first: a walk over the
    /// first `listed_max` of the ranked set, however many watch.
    pub fn list(&self, listed_max: usize) -> WatcherList {
        let book = self.book();
        let watchers = book
            .ranked
            .iter()
            .take(listed_max)
            .filter_map(|(_, _, user)| book.users.get(user).map(|(info, _)| info.clone()))
            .collect();
        WatcherList {
            watchers_count: book.users.len() as u32 + book.anonymous,
            anonymous_watchers_count: book.anonymous,
            watchers,
        }
    }

    /// Count one connection in; `false` when it does not watch (a player of the game).
    fn join(&self, viewer: Option<&PlayerInfo>) -> bool {
        match viewer {
            Some(info) if self.players.contains(&info.user) => return false,
            Some(info) => {
                let mut book = self.book();
                let book = &mut *book;
                let entry = book
                    .users
                    .entry(info.user)
                    .or_insert_with(|| (info.clone(), 0));
                // The latest listing wins (a rank may have changed since their first connection).
                book.ranked.remove(&rank(&entry.0));
                book.ranked.insert(rank(info));
                entry.0 = info.clone();
                entry.1 += 1;
            }
            None => self.book().anonymous += 1,
        }
        self.changed.notify_one();
        true
    }

    fn leave(&self, user: Option<UserId>) {
        let mut book = self.book();
        match user {
            Some(user) => {
                let gone = match book.users.get_mut(&user) {
                    Some(entry) => {
                        entry.1 -= 1;
                        (entry.1 == 0).then(|| rank(&entry.0))
                    }
                    None => None,
                };
                if let Some(gone) = gone {
                    book.users.remove(&user);
                    book.ranked.remove(&gone);
                }
            }
            None => book.anonymous = book.anonymous.saturating_sub(1),
        }
        drop(book);
        self.changed.notify_one();
    }
}

/// Held for as long as one connection follows a game (by its subscription, kept in the session's
/// `game::Following`): dropping it, however the connection ends, counts that connection out.
#[derive(Debug)]
pub struct ViewerGuard {
    viewers: Arc<Viewers>,
    /// Who was counted in: `None` for an anonymous connection; nothing at all for a player.
    counted: Option<Option<UserId>>,
}

impl ViewerGuard {
    /// Count `viewer` (`None`: an anonymous connection) in as a watcher of the game whose registry is
    /// `viewers`, until the guard is dropped. A player of the game is accepted and not counted.
    pub fn new(viewers: Arc<Viewers>, viewer: Option<PlayerInfo>) -> ViewerGuard {
        let counted = viewers
            .join(viewer.as_ref())
            .then(|| viewer.map(|info| info.user));
        ViewerGuard { viewers, counted }
    }

    /// The registry this guard counts in, to count the same connection in again under another name
    /// (after a login or logout): make the new guard first, then drop this one.
    pub fn viewers(&self) -> &Arc<Viewers> {
        &self.viewers
    }
}

impl Drop for ViewerGuard {
    fn drop(&mut self) {
        if let Some(user) = self.counted {
            self.viewers.leave(user);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(user: u64, name: &str, rating: i32) -> PlayerInfo {
        PlayerInfo {
            user: UserId(user),
            username: name.to_string(),
            rank: "1k".to_string(),
            rating,
            computer: false,
        }
    }

    fn registry() -> Arc<Viewers> {
        Arc::new(Viewers::new([UserId(1), UserId(2)]))
    }

    #[test]
    fn people_are_counted_once_players_never_and_guests_each() {
        let viewers = registry();
        let carol = info(3, "carol", 1600);
        let first = ViewerGuard::new(Arc::clone(&viewers), Some(carol.clone()));
        let second = ViewerGuard::new(Arc::clone(&viewers), Some(carol));
        let _player = ViewerGuard::new(Arc::clone(&viewers), Some(info(1, "alice", 1500)));
        let guest = ViewerGuard::new(Arc::clone(&viewers), None);
        let _guest2 = ViewerGuard::new(Arc::clone(&viewers), None);
        assert_eq!(viewers.count(), 3);
        let list = viewers.list(10);
        assert_eq!(list.anonymous_watchers_count, 2);
        assert_eq!(list.watchers.len(), 1);
        assert_eq!(list.watchers[0].username, "carol");

        // Carol is still watching on her other connection.
        drop(first);
        assert_eq!(viewers.list(10).watchers.len(), 1);
        drop(second);
        drop(guest);
        assert_eq!(
            viewers.list(10),
            WatcherList {
                watchers_count: 1,
                anonymous_watchers_count: 1,
                watchers: Vec::new()
            }
        );
    }

    #[test]
    fn the_list_is_bounded_strongest_first_and_the_count_stays_exact() {
        let viewers = registry();
        let guards: Vec<_> = (0..5)
            .map(|n| {
                let name = format!("w{n}");
                ViewerGuard::new(
                    Arc::clone(&viewers),
                    Some(info(10 + n, &name, 1500 + n as i32)),
                )
            })
            .collect();
        let list = viewers.list(2);
        assert_eq!(list.watchers_count, 5);
        let names: Vec<_> = list.watchers.iter().map(|p| p.username.as_str()).collect();
        assert_eq!(names, ["w4", "w3"]);
        drop(guards);
        assert_eq!(viewers.count(), 0);
    }

    /// A watcher whose listing changed (a new rating on a later connection) is listed once, where
    /// the new rating puts them, and leaves the list with their last connection.
    #[test]
    fn a_relisted_watcher_moves_and_leaves_once() {
        let viewers = registry();
        let first = ViewerGuard::new(Arc::clone(&viewers), Some(info(3, "carol", 1500)));
        let _dave = ViewerGuard::new(Arc::clone(&viewers), Some(info(4, "dave", 1600)));
        let second = ViewerGuard::new(Arc::clone(&viewers), Some(info(3, "carol", 1700)));
        let names = |list: WatcherList| -> Vec<String> {
            list.watchers.into_iter().map(|p| p.username).collect()
        };
        assert_eq!(names(viewers.list(10)), ["carol", "dave"]);
        drop(first);
        assert_eq!(names(viewers.list(10)), ["carol", "dave"]);
        drop(second);
        assert_eq!(names(viewers.list(10)), ["dave"]);
        assert_eq!(viewers.count(), 1);
    }

    /// Every join and leave wakes the actor, even when nobody is waiting yet (the permit is kept).
    #[tokio::test]
    async fn changes_wake_the_actor() {
        let viewers = registry();
        let guard = ViewerGuard::new(Arc::clone(&viewers), None);
        viewers.changed.notified().await;
        drop(guard);
        viewers.changed.notified().await;
    }
}
