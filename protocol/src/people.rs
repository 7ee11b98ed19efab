//! People on the wire: a participant as every list shows them (name, rank, rating), a player's
//! profile, what a client sends to open one or to find a player by name, and a player's relations to
//! others: whom they follow (their friends), block and mute; and what the server sends about them,
//! down to a friend coming online or starting a game.

use serde::{Deserialize, Serialize};

use crate::{is_false, EventId, EventStatus, GameId, GameListing, RequestId, UserId};

/// A participant as the hall lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerInfo {
    pub user: UserId,
    pub username: String,
    /// Kyu/dan rank ("3k", "1d"); "3k?" while the rating is provisional; "?" with no rating at all.
    pub rank: String,
    pub rating: i32,
    /// A computer player (an engine connected with `tengen bot`): the hall offers to play it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub computer: bool,
}

/// A player's profile: who they are, how they have played, and what they are doing now. The reply to
/// `profile`, and the body of `GET /api/users/{name}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileView {
    /// Name, rank (provisional or not) and rating, as every list shows them.
    pub player: PlayerInfo,
    /// When the account was made (Unix ms).
    pub member_since_ms: u64,
    /// Connected now.
    pub online: bool,
    /// When they were last connected (Unix ms), while offline; absent when never seen since this was
    /// kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_seen_ms: Option<u64>,
    /// The live games they play now (the client offers to watch them).
    pub playing: Vec<GameId>,
    /// The rating after each rated game, oldest first (at most the last
    /// [`RATING_HISTORY_SHOWN_MAX`]), for the graph.
    pub rating_history: Vec<RatingPoint>,
    /// Rated wins, losses and draws by board size, smallest board first.
    pub record: Vec<SizeRecord>,
    /// Their newest games, newest first (the first page of `list_games`).
    pub recent_games: Vec<GameListing>,
    /// The events they entered, newest first, with their placing.
    pub events: Vec<EventPlacing>,
}

/// How many points of a rating history a profile carries: a few years of steady play, and a graph
/// still readable on a phone.
pub const RATING_HISTORY_SHOWN_MAX: usize = 500;

/// A player's rating right after one rated game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingPoint {
    pub game: GameId,
    /// When the game ended (Unix ms).
    pub at_ms: u64,
    pub rating: i32,
}

/// A player's rated results on one board size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeRecord {
    pub size: u8,
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

/// An event a player entered, and where they stand in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventPlacing {
    pub event: EventId,
    pub name: String,
    pub status: EventStatus,
    /// Their place in the standings (1 is first; tied players share it); absent before round 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<u32>,
    pub entrants_count: u32,
}

/// What a client sends to learn about people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PeopleMsg {
    /// A player's profile (answered by `profile`); no account needed.
    Profile {
        username: String,
    },
    /// Players whose name starts with `prefix`, in any script and without regard to case or width,
    /// as logging in compares names (answered by `players_found`, at most [`PLAYERS_FOUND_MAX`], in
    /// the order of their names).
    FindPlayers {
        prefix: String,
    },
    /// Your friends, blocked and muted players (answered by `relations`).
    Relations,
    /// Follow a player: one-way, as KGS and OGS buddies are; you see when they are online and are
    /// told when they start a game. Answered by `relations`.
    Follow {
        username: String,
    },
    Unfollow {
        username: String,
    },
    /// Block a player: their chat is hidden from you on every channel, their challenges, stake offers
    /// and seat beside you are refused, and they do not see you online. Unfollows them. Answered by
    /// `relations`.
    Block {
        username: String,
    },
    Unblock {
        username: String,
    },
    /// Mute a player: their chat lines are hidden from you on every channel (room, table, game,
    /// kibitz), and nothing else changes. Answered by `relations`.
    Mute {
        username: String,
    },
    Unmute {
        username: String,
    },
    /// Who follows you (answered by `followers`): yours to look at, never pushed.
    Followers,
}

impl PeopleMsg {
    /// Every `type` of this area, for routing a frame to its area and telling "unknown type" from
    /// "bad fields".
    pub const TYPES: &'static [&'static str] = &[
        "profile",
        "find_players",
        "relations",
        "follow",
        "unfollow",
        "block",
        "unblock",
        "mute",
        "unmute",
        "followers",
    ];
}

/// What the server sends about people: profiles, players found by name, your relations, and
/// your friends' comings and goings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PeopleServerMsg {
    /// Reply to `profile`.
    Profile {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        profile: Box<ProfileView>,
    },
    /// Reply to `find_players`.
    PlayersFound {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        players: Vec<PlayerInfo>,
    },
    /// Reply to `relations`, `follow`, `unfollow`, `block`, `unblock`, `mute` and `unmute`: your
    /// lists as they now stand.
    Relations {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        relations: RelationsView,
    },
    /// Reply to `followers`: how many players follow you, and up to 300 of them (as many as a list
    /// of your own holds; the longest registered), strongest first. Players you block are left out
    /// of both: they do not see you online, so their following shows them nothing.
    Followers {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        followers_count: u32,
        followers: Vec<PlayerInfo>,
    },
    /// Pushed to your connections when a friend comes online, goes offline, or starts or ends a
    /// game: how they are now (a friend who blocks you is never pushed).
    FriendPresence { friend: Friend },
    /// Pushed to your connections when a friend starts a game (after `friend_presence`), for a
    /// notice that offers to watch it.
    FriendStartedGame {
        friend: PlayerInfo,
        game: GameId,
        opponent: PlayerInfo,
    },
}

impl PeopleServerMsg {
    /// Every `type` of this area, for reading a server frame by the area that lists its `type`.
    pub const TYPES: &'static [&'static str] = &[
        "profile",
        "players_found",
        "relations",
        "followers",
        "friend_presence",
        "friend_started_game",
    ];
}

/// The most players one search answers: a screenful; a longer prefix narrows it.
pub const PLAYERS_FOUND_MAX: usize = 20;

/// A friend (a player you follow) as your list shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Friend {
    pub player: PlayerInfo,
    /// Connected now (always false for a friend who blocks you).
    pub online: bool,
    /// The live games they play now (the client offers to watch them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub playing: Vec<GameId>,
}

/// A user's relations to others, each list in the order the user made them (oldest first): the
/// reply to `relations` and to every change of them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RelationsView {
    pub friends: Vec<Friend>,
    pub blocked: Vec<PlayerInfo>,
    pub muted: Vec<PlayerInfo>,
}
