//! The hall's side of players' relations: whom each online user follows and blocks, loaded from the
//! store when they come online (the store is the record; this is its copy for deciding at once),
//! and what follows from them here: the refusals between a blocker and the blocked (challenges,
//! automatch, a seat beside them, stake offers), a friend's presence and new games pushed to their
//! online followers, and each change told to both users' connections on every node (a
//! [`RelationChange`]), which hide chat and presence for themselves. Mutes concern connections
//! alone, so the hall does not keep them.

use std::collections::{BTreeSet, HashMap};

use tengen_protocol::{
    ErrorCode, Friend, GameSummary, HallServerMsg, PeopleServerMsg, PlayerInfo, ServerMsg, UserId,
};

use super::{internal_body, internal_frame, users_recipients, Hall, HallRequest};
use crate::store::RelationKind;
use crate::{Frame, Refusal};

/// Whom one online user follows and blocks.
#[derive(Debug, Default)]
struct Held {
    follows: BTreeSet<UserId>,
    blocks: BTreeSet<UserId>,
}

/// The relations of the users online, with the reverse index of follows the presence pushes need.
/// Bounded by the users online times [`RELATIONS_PER_LIST_MAX`](crate::config::RELATIONS_PER_LIST_MAX)
/// per kind; a user's go when their last connection does.
#[derive(Debug, Default)]
pub(super) struct Ties {
    held: HashMap<UserId, Held>,
    /// Per user, the online users who follow them.
    followers: HashMap<UserId, BTreeSet<UserId>>,
    /// The load in flight per user: only the newest is taken (a change made meanwhile starts
    /// another, so an older read never overwrites it).
    loading: HashMap<UserId, u64>,
    next_load: u64,
}

impl Ties {
    fn follow(&mut self, user: UserId, other: UserId, on: bool) {
        let held = self.held.entry(user).or_default();
        if on {
            held.follows.insert(other);
            self.followers.entry(other).or_default().insert(user);
        } else {
            held.follows.remove(&other);
            if let Some(followers) = self.followers.get_mut(&other) {
                followers.remove(&user);
                if followers.is_empty() {
                    self.followers.remove(&other);
                }
            }
        }
    }

    fn forget(&mut self, user: UserId) {
        self.loading.remove(&user);
        let follows = self
            .held
            .get(&user)
            .map(|held| held.follows.clone())
            .unwrap_or_default();
        for other in follows {
            self.follow(user, other, false);
        }
        self.held.remove(&user);
    }

    fn blocks(&self, user: UserId, other: UserId) -> bool {
        self.held
            .get(&user)
            .is_some_and(|held| held.blocks.contains(&other))
    }
}

/// A relation made or undone, as it travels to both users' connections (across nodes, like any
/// push to a user): a frame no client sees. The holder's connections hide or show the other's chat;
/// the other's, for a block, stop or start hiding the holder from them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RelationChange {
    pub holder: UserId,
    pub kind: RelationKind,
    pub other: UserId,
    pub on: bool,
}

impl RelationChange {
    const TAG: &'static str = "related";

    fn frame(&self) -> Frame {
        internal_frame(Self::TAG, self)
    }

    /// The change a pushed frame carries, if it is one.
    pub fn from_frame(text: &str) -> Option<RelationChange> {
        internal_body(Self::TAG, text)
    }
}

/// A user's state now, as a friends list shows it (the hall's part: online and playing).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FriendNow {
    pub user: UserId,
    pub online: bool,
    pub playing: Vec<tengen_protocol::GameId>,
}

impl Hall {
    /// Read `user`'s relations from the store beside the hall's work (it never waits on the store);
    /// they arrive as [`HallRequest::RelationsLoaded`].
    pub(super) fn load_relations(&mut self, user: UserId) {
        self.ties.next_load += 1;
        let load = self.ties.next_load;
        self.ties.loading.insert(user, load);
        let store = self.ctx.store.clone();
        let hall = self.handle.clone();
        tokio::spawn(async move {
            let read = store.call(move |store| store.relations_of(user)).await;
            match read {
                Ok(held) => {
                    let loaded = HallRequest::RelationsLoaded { user, load, held };
                    hall.send(loaded).await;
                }
                Err(err) => tracing::warn!(%user, %err, "could not load a user's relations"),
            }
        });
    }

    /// A load's result: taken if it is the newest for a user still online.
    pub(super) fn relations_loaded(
        &mut self,
        user: UserId,
        load: u64,
        held: Vec<(RelationKind, UserId)>,
    ) {
        if self.ties.loading.get(&user) != Some(&load) || !self.online.contains_key(&user) {
            return;
        }
        self.ties.forget(user);
        self.ties.held.entry(user).or_default();
        for (kind, other) in held {
            match kind {
                RelationKind::Follow => self.ties.follow(user, other, true),
                RelationKind::Block => {
                    self.ties.held.entry(user).or_default().blocks.insert(other);
                }
                RelationKind::Mute => {}
            }
        }
        // Their followers hear they are online only now that their blocks are known here.
        if let Some((player, _)) = self.online.get(&user) {
            self.friend_changed(&player.clone());
        }
    }

    /// The user's last connection went: their relations leave the hall with them.
    pub(super) fn forget_relations(&mut self, user: UserId) {
        self.ties.forget(user);
    }

    /// A relation the store just recorded: kept here if its holder is online, told to both users'
    /// connections, and for a block, the blocked user stops seeing the holder (and sees them again
    /// on an unblock).
    pub(super) fn related(&mut self, change: RelationChange) {
        let RelationChange {
            holder,
            kind,
            other,
            on,
        } = change;
        if self.online.contains_key(&holder) {
            if self.ties.loading.contains_key(&holder) {
                self.load_relations(holder);
            }
            match kind {
                RelationKind::Follow => self.ties.follow(holder, other, on),
                RelationKind::Block => self.set_block(holder, other, on),
                RelationKind::Mute => {}
            }
        }
        // The other user's connections hear only of a block (which hides the holder from them).
        let told = if kind == RelationKind::Block {
            [Some(holder), Some(other)]
        } else {
            [Some(holder), None]
        };
        self.publish_text(users_recipients(told), change.frame(), None);
        if kind == RelationKind::Block {
            self.reveal(holder, other, !on);
        }
    }

    fn set_block(&mut self, holder: UserId, other: UserId, on: bool) {
        let held = self.ties.held.entry(holder).or_default();
        if on {
            held.blocks.insert(other);
            self.ties.follow(holder, other, false);
        } else {
            held.blocks.remove(&other);
        }
    }

    /// Show `holder` to `other` as they are now (after an unblock), or as gone (after a block): in
    /// the hall's players, and in `other`'s friends list if they follow `holder`.
    fn reveal(&self, holder: UserId, other: UserId, shown: bool) {
        let audience = users_recipients([Some(other), None]);
        let Some((player, _)) = self.online.get(&holder) else {
            return;
        };
        let msg = if shown {
            ServerMsg::Hall(HallServerMsg::PlayerOnline {
                player: player.clone(),
            })
        } else {
            ServerMsg::Hall(HallServerMsg::PlayerOffline { user: holder })
        };
        self.publish(audience, &msg);
        let follows = self
            .ties
            .followers
            .get(&holder)
            .is_some_and(|followers| followers.contains(&other));
        if follows {
            let mut friend = self.friend(player.clone());
            if !shown {
                friend.online = false;
                friend.playing.clear();
            }
            self.publish(audience, &PeopleServerMsg::FriendPresence { friend }.into());
        }
    }

    /// Refused when either of two players blocks the other: what they may not do together.
    pub(super) fn check_not_blocked(&self, user: UserId, other: UserId) -> Result<(), Refusal> {
        if self.ties.blocks(user, other) {
            return Err(Refusal::new(ErrorCode::Blocked, "you block this player"));
        }
        if self.ties.blocks(other, user) {
            return Err(Refusal::new(
                ErrorCode::Blocked,
                "this player does not accept that from you",
            ));
        }
        Ok(())
    }

    /// Whether either of two players blocks the other (for automatch, which skips such a pair).
    pub(super) fn blocked_between(&self, user: UserId, other: UserId) -> bool {
        self.ties.blocks(user, other) || self.ties.blocks(other, user)
    }

    /// How a player is now, as their friends see them.
    fn friend(&self, player: PlayerInfo) -> Friend {
        let now = self.friends_now(vec![player.user]).pop();
        let (online, playing) = now.map_or((false, Vec::new()), |now| (now.online, now.playing));
        Friend {
            player,
            online,
            playing,
        }
    }

    /// Whether each of `users` is online and the live games they play, in their order, with one
    /// pass over the live games (a list may hold hundreds of friends, the hall thousands of games).
    pub(super) fn friends_now(&self, users: Vec<UserId>) -> Vec<FriendNow> {
        let mut now: Vec<FriendNow> = users
            .into_iter()
            .map(|user| FriendNow {
                user,
                online: self.online.contains_key(&user),
                playing: Vec::new(),
            })
            .collect();
        let mut at: HashMap<UserId, Vec<usize>> = HashMap::new();
        for (index, friend) in now.iter().enumerate() {
            at.entry(friend.user).or_default().push(index);
        }
        for game in self.live.values() {
            for user in [game.black.user, game.white.user] {
                for &index in at.get(&user).into_iter().flatten() {
                    now[index].playing.push(game.game);
                }
            }
        }
        now
    }

    /// Push `player`'s presence now to their online followers, but to none they block.
    pub(super) fn friend_changed(&self, player: &PlayerInfo) {
        let followers = self.followers_shown(player.user);
        // Most players have no follower online: nothing to look up.
        if followers.is_empty() {
            return;
        }
        let friend = self.friend(player.clone());
        let msg = ServerMsg::People(PeopleServerMsg::FriendPresence { friend });
        let text: Frame = msg.to_json().into();
        for follower in followers {
            self.publish_text(users_recipients([Some(follower), None]), text.clone(), None);
        }
    }

    /// A game started: both players' followers hear of it, with a notice offering to watch.
    pub(super) fn friends_started(&self, summary: &GameSummary) {
        let sides = [
            (&summary.black, &summary.white),
            (&summary.white, &summary.black),
        ];
        for (friend, opponent) in sides {
            self.friend_changed(friend);
            let followers = self.followers_shown(friend.user);
            if followers.is_empty() {
                continue;
            }
            let msg = ServerMsg::People(PeopleServerMsg::FriendStartedGame {
                friend: friend.clone(),
                game: summary.game,
                opponent: opponent.clone(),
            });
            let text: Frame = msg.to_json().into();
            for follower in followers {
                self.publish_text(users_recipients([Some(follower), None]), text.clone(), None);
            }
        }
    }

    /// The online followers of `user` whom `user` does not block.
    fn followers_shown(&self, user: UserId) -> Vec<UserId> {
        self.ties
            .followers
            .get(&user)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&follower| !self.ties.blocks(user, follower))
            .collect()
    }
}
