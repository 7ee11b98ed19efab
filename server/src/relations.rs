//! Friends, blocks and mutes: the rules of making and undoing a relation (not with yourself, not
//! with an unknown name, a bounded list, no following a player you block, a block ends a follow),
//! the lists as a player sees them, and what one connection hides from its user because of them
//! ([`Screen`]). The store keeps the lists (`store::Relations`); the hall decides what is refused
//! and pushes friends' presence (`hall::relations`); the session applies the screen to every frame
//! it writes, so chat said in any channel, hall list or game is hidden however it arrives, on
//! every node. [`answer`] answers every people message about the user's relations, so a new one
//! is added here and in its protocol area, not in the session.

use std::collections::HashSet;

use serde::Deserialize;
use tengen_protocol::{
    ErrorCode, Friend, GamesServerMsg, HallServerMsg, PeopleMsg, PeopleServerMsg, PlayerInfo,
    RelationsView, RequestId, ServerMsg, UserId,
};

use crate::config::RELATIONS_PER_LIST_MAX;
use crate::hall::{HallHandle, HallRequest, RelationChange};
use crate::store::{store_refusal, Added, RelationKind, StoreHandle};
use crate::{Frame, Refusal};

/// The verb of a kind, for messages.
fn verb(kind: RelationKind) -> &'static str {
    match kind {
        RelationKind::Follow => "follow",
        RelationKind::Block => "block",
        RelationKind::Mute => "mute",
    }
}

/// Why a change was refused in the store's call, before anything was written.
enum Refused {
    NoSuchUser,
    Yourself,
    Blocking(String),
    Full,
}

impl Refused {
    fn refusal(self, username: &str, kind: RelationKind) -> Refusal {
        let verb = verb(kind);
        match self {
            Refused::NoSuchUser => {
                Refusal::new(ErrorCode::NoSuchUser, format!("no user {username}"))
            }
            Refused::Yourself => Refusal::new(
                ErrorCode::BadRelation,
                format!("you cannot {verb} yourself"),
            ),
            Refused::Blocking(name) => Refusal::new(
                ErrorCode::BadRelation,
                format!("you block {name}: unblock them first"),
            ),
            Refused::Full => Refusal::new(
                ErrorCode::RelationsFull,
                format!("you {verb} {RELATIONS_PER_LIST_MAX} players already"),
            ),
        }
    }
}

/// Answer `me`'s people message about their relations, `id` its request's: a change (refused
/// with nothing changed, as [`change`] says) answered by the lists as they then stand, the lists
/// alone, or who follows `me`.
pub async fn answer(
    (store, hall): (&StoreHandle, &HallHandle),
    (me, screen): (UserId, &Screen),
    id: Option<RequestId>,
    msg: PeopleMsg,
) -> Result<PeopleServerMsg, Refusal> {
    use RelationKind::{Block, Follow, Mute};
    let asked = match msg {
        PeopleMsg::Relations => None,
        PeopleMsg::Follow { username } => Some((username, Follow, true)),
        PeopleMsg::Unfollow { username } => Some((username, Follow, false)),
        PeopleMsg::Block { username } => Some((username, Block, true)),
        PeopleMsg::Unblock { username } => Some((username, Block, false)),
        PeopleMsg::Mute { username } => Some((username, Mute, true)),
        PeopleMsg::Unmute { username } => Some((username, Mute, false)),
        PeopleMsg::Followers => return followers(store, me, id).await,
        PeopleMsg::Profile { .. } | PeopleMsg::FindPlayers { .. } => {
            return Err(Refusal::misrouted(&msg));
        }
    };
    if let Some((username, kind, on)) = asked {
        change(store, hall, me, &username, (kind, on)).await?;
    }
    let relations = view(store, hall, me, screen).await?;
    Ok(PeopleServerMsg::Relations { id, relations })
}

/// Who follows `me`: counted, and up to [`RELATIONS_PER_LIST_MAX`] named (as many as a list of
/// one's own holds, so a popular player's answer stays a few KiB; the longest registered),
/// strongest first. Those `me` blocks are left out of both: they do not see `me` online, so
/// their following shows them nothing.
async fn followers(
    store: &StoreHandle,
    me: UserId,
    id: Option<RequestId>,
) -> Result<PeopleServerMsg, Refusal> {
    let (count, mut followers) = store
        .call(move |store| {
            let blocked: HashSet<UserId> = store
                .relations_of(me)?
                .into_iter()
                .filter(|&(kind, _)| kind == RelationKind::Block)
                .map(|(_, user)| user)
                .collect();
            let mut following: Vec<UserId> = store
                .relations_to(me, RelationKind::Follow)?
                .into_iter()
                .filter(|user| !blocked.contains(user))
                .collect();
            following.sort_unstable();
            let mut named = Vec::new();
            for &user in following.iter().take(RELATIONS_PER_LIST_MAX) {
                // An account is never deleted; one missing would only be left out.
                if let Some(row) = store.user_by_id(user)? {
                    named.push(crate::auth::player_info(&row));
                }
            }
            Ok((following.len(), named))
        })
        .await
        .map_err(|err| store_refusal(&err))?;
    followers.sort_by(|a, b| (b.rating.cmp(&a.rating)).then_with(|| a.username.cmp(&b.username)));
    Ok(PeopleServerMsg::Followers {
        id,
        followers_count: u32::try_from(count).unwrap_or(u32::MAX),
        followers,
    })
}

/// `me` makes (`on`) or undoes a relation of `kind` with the player named `username` (any spelling
/// that logs in): recorded in the store, then told to the hall, which keeps it and tells both
/// users' connections. Refused with nothing changed for an unknown name, oneself, a full list, or
/// following a player `me` blocks.
pub async fn change(
    store: &StoreHandle,
    hall: &HallHandle,
    me: UserId,
    username: &str,
    (kind, on): (RelationKind, bool),
) -> Result<(), Refusal> {
    let name = username.to_string();
    let now_ms = crate::unix_now_ms();
    let written = store
        .call(move |store| {
            let Some(other) = store.user_by_name(&name)? else {
                return Ok(Err(Refused::NoSuchUser));
            };
            if other.id == me {
                return Ok(Err(Refused::Yourself));
            }
            if !on {
                store.remove_relation(me, kind, other.id)?;
                return Ok(Ok(other.id));
            }
            if kind == RelationKind::Follow
                && store
                    .relations_of(me)?
                    .contains(&(RelationKind::Block, other.id))
            {
                return Ok(Err(Refused::Blocking(other.username)));
            }
            match store.add_relation(me, kind, other.id, RELATIONS_PER_LIST_MAX, now_ms)? {
                Added::Done => Ok(Ok(other.id)),
                Added::Full => Ok(Err(Refused::Full)),
            }
        })
        .await
        .map_err(|err| store_refusal(&err))?;
    let other = written.map_err(|refused| refused.refusal(username, kind))?;
    let change = RelationChange {
        holder: me,
        kind,
        other,
        on,
    };
    let related = HallRequest::Related { change };
    match hall.ask(related.clone()).await {
        Ok(reply) => reply.done(),
        // The store has it: the hall must hear of it too (telling it twice changes nothing), even if
        // that waits for room in its inbox.
        Err(_) => {
            hall.send(related).await;
            Ok(())
        }
    }
}

/// `me`'s lists as they now stand: friends with whether they are online and what they play (shown
/// offline when they block `me`, as `screen` says), the blocked and the muted.
pub async fn view(
    store: &StoreHandle,
    hall: &HallHandle,
    me: UserId,
    screen: &Screen,
) -> Result<RelationsView, Refusal> {
    let listed = store
        .call(move |store| {
            let mut listed = Vec::new();
            for (kind, other) in store.relations_of(me)? {
                // An account is never deleted; one missing would only be left out.
                if let Some(row) = store.user_by_id(other)? {
                    listed.push((kind, crate::auth::player_info(&row)));
                }
            }
            Ok(listed)
        })
        .await
        .map_err(|err| store_refusal(&err))?;
    let mut view = RelationsView::default();
    let mut friends = Vec::new();
    for (kind, player) in listed {
        match kind {
            RelationKind::Follow => friends.push(player),
            RelationKind::Block => view.blocked.push(player),
            RelationKind::Mute => view.muted.push(player),
        }
    }
    let users = friends.iter().map(|player| player.user).collect();
    let now = hall
        .ask(HallRequest::FriendsNow { users })
        .await?
        .friends_now()?;
    for (player, now) in friends.into_iter().zip(now) {
        let hidden = screen.hides_presence_of(player.user);
        view.friends.push(Friend {
            player,
            online: now.online && !hidden,
            playing: if hidden { Vec::new() } else { now.playing },
        });
    }
    Ok(view)
}

/// What one connection hides from its logged-in user: the chat of those they mute or block, and
/// those who block them from the hall's players and room lists. Loaded at login, kept up to date
/// by the hall's [`RelationChange`] pushes.
#[derive(Debug, Default, Clone)]
pub struct Screen {
    muted: HashSet<UserId>,
    blocked: HashSet<UserId>,
    blockers: HashSet<UserId>,
}

/// The sender of a chat frame, read alone (whatever else the frame holds).
#[derive(Deserialize)]
struct ChatSender {
    from: Sender,
}

#[derive(Deserialize)]
struct Sender {
    user: UserId,
}

/// Who a `player_online` or `room_joined` frame is about.
#[derive(Deserialize)]
struct PlayerOf {
    player: Sender,
}

impl Screen {
    /// `me`'s screen as the store has it.
    pub async fn load(store: &StoreHandle, me: UserId) -> Result<Screen, Refusal> {
        let (held, blockers) = store
            .call(move |store| {
                let held = store.relations_of(me)?;
                let blockers = store.relations_to(me, RelationKind::Block)?;
                Ok((held, blockers))
            })
            .await
            .map_err(|err| store_refusal(&err))?;
        let mut screen = Screen {
            blockers: blockers.into_iter().collect(),
            ..Screen::default()
        };
        for (kind, other) in held {
            match kind {
                RelationKind::Follow => {}
                RelationKind::Block => {
                    screen.blocked.insert(other);
                }
                RelationKind::Mute => {
                    screen.muted.insert(other);
                }
            }
        }
        Ok(screen)
    }

    /// Take a change the hall pushed to `me`'s connections.
    pub fn apply(&mut self, me: UserId, change: &RelationChange) {
        let set = match change.kind {
            RelationKind::Block if change.other == me => (&mut self.blockers, change.holder),
            _ if change.holder != me => return,
            RelationKind::Block => (&mut self.blocked, change.other),
            RelationKind::Mute => (&mut self.muted, change.other),
            RelationKind::Follow => return,
        };
        let (set, user) = set;
        if change.on {
            set.insert(user);
        } else {
            set.remove(&user);
        }
    }

    /// Whether `user`'s chat lines are hidden.
    pub fn hides_chat_of(&self, user: UserId) -> bool {
        self.muted.contains(&user) || self.blocked.contains(&user)
    }

    /// Whether `user` blocks this one, and so is never shown online.
    pub fn hides_presence_of(&self, user: UserId) -> bool {
        self.blockers.contains(&user)
    }

    /// `frame` as this user may see it: `None` to drop it (a hidden user's chat line or coming
    /// online), a list without the hidden (a room's recent chat and members, the hall's players, a
    /// game's named watchers), or the frame itself. Only frames that may name a hidden user are read, and only when
    /// someone is hidden: every other frame passes as it is.
    pub fn screen(&self, frame: Frame) -> Option<Frame> {
        let chat_hidden = !self.muted.is_empty() || !self.blocked.is_empty();
        let presence_hidden = !self.blockers.is_empty();
        let text = frame.as_str();
        if chat_hidden && text.starts_with(r#"{"type":"chat","#) {
            return match serde_json::from_str::<ChatSender>(text) {
                Ok(sender) if self.hides_chat_of(sender.from.user) => None,
                _ => Some(frame),
            };
        }
        if presence_hidden
            && (text.starts_with(r#"{"type":"player_online","#)
                || text.starts_with(r#"{"type":"room_joined","#))
        {
            return match serde_json::from_str::<PlayerOf>(text) {
                Ok(about) if self.hides_presence_of(about.player.user) => None,
                _ => Some(frame),
            };
        }
        let lists =
            text.starts_with(r#"{"type":"room","#) || text.starts_with(r#"{"type":"hall","#);
        if (chat_hidden || presence_hidden) && lists {
            return Some(self.screen_lists(frame));
        }
        let watchers = text.starts_with(r#"{"type":"watchers","#)
            || text.starts_with(r#"{"type":"game_state","#);
        if presence_hidden && watchers {
            return Some(self.screen_lists(frame));
        }
        Some(frame)
    }

    /// A `room`, `hall`, `watchers` or `game_state` frame without the hidden users' lines and
    /// listings.
    fn screen_lists(&self, frame: Frame) -> Frame {
        let Ok(mut msg) = serde_json::from_str::<ServerMsg>(frame.as_str()) else {
            return frame;
        };
        let shown = |player: &PlayerInfo| !self.hides_presence_of(player.user);
        match &mut msg {
            ServerMsg::Hall(HallServerMsg::Room {
                users, recent_chat, ..
            }) => {
                users.retain(shown);
                recent_chat.retain(|line| !self.hides_chat_of(line.from.user));
            }
            ServerMsg::Hall(HallServerMsg::Hall { players, .. }) => players.retain(shown),
            // The names only: the counts still count them, as they count guests.
            ServerMsg::Games(GamesServerMsg::Watchers {
                watchers: Some(watchers),
                ..
            }) => watchers.retain(shown),
            ServerMsg::Games(GamesServerMsg::GameState { state }) => state.watchers.retain(shown),
            _ => return frame,
        }
        msg.to_json().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_protocol::{ChatChannel, ChatLine, RoomId};

    fn player(user: u64) -> PlayerInfo {
        PlayerInfo {
            user: UserId(user),
            username: format!("p{user}"),
            rank: "?".into(),
            rating: 1500,
            computer: false,
        }
    }

    fn chat(from: u64) -> Frame {
        let channel = ChatChannel::Room { room: RoomId(1) };
        let msg = ServerMsg::Hall(HallServerMsg::Chat {
            channel,
            from: player(from),
            text: "hi".into(),
            at_ms: 1,
            line: None,
        });
        msg.to_json().into()
    }

    #[test]
    fn a_screen_hides_the_muted_and_blocked_lines_and_the_blockers() {
        let me = UserId(1);
        let mut screen = Screen::default();
        let change = |holder, kind, other, on| RelationChange {
            holder: UserId(holder),
            kind,
            other: UserId(other),
            on,
        };
        screen.apply(me, &change(1, RelationKind::Mute, 2, true));
        screen.apply(me, &change(1, RelationKind::Block, 3, true));
        screen.apply(me, &change(4, RelationKind::Block, 1, true));
        // Another's mute of me, or my follow, hides nothing.
        screen.apply(me, &change(5, RelationKind::Mute, 1, true));
        screen.apply(me, &change(1, RelationKind::Follow, 5, true));
        assert!(screen.screen(chat(2)).is_none());
        assert!(screen.screen(chat(3)).is_none());
        assert!(screen.screen(chat(4)).is_some());
        assert!(screen.screen(chat(5)).is_some());
        let online = |user| -> Frame {
            ServerMsg::Hall(HallServerMsg::PlayerOnline {
                player: player(user),
            })
            .to_json()
            .into()
        };
        assert!(screen.screen(online(4)).is_none());
        assert!(screen.screen(online(3)).is_some());
        let room: Frame = ServerMsg::Hall(HallServerMsg::Room {
            room: RoomId(1),
            name: "r".into(),
            tables: vec![],
            users: vec![player(3), player(4)],
            recent_chat: [2, 5]
                .map(|from| ChatLine {
                    from: player(from),
                    text: "x".into(),
                    at_ms: 1,
                    line: None,
                })
                .to_vec(),
        })
        .to_json()
        .into();
        let Ok(ServerMsg::Hall(HallServerMsg::Room {
            users, recent_chat, ..
        })) = serde_json::from_str(screen.screen(room).unwrap().as_str())
        else {
            panic!("a room frame stays one");
        };
        assert_eq!(users, vec![player(3)]);
        assert_eq!(recent_chat.len(), 1);
        assert_eq!(recent_chat[0].from, player(5));
        screen.apply(me, &change(1, RelationKind::Mute, 2, false));
        screen.apply(me, &change(4, RelationKind::Block, 1, false));
        assert!(screen.screen(chat(2)).is_some());
        assert!(screen.screen(online(4)).is_some());
    }
}
