//! The hall on the wire: rooms, tables and seats, the live games it lists, challenges, automatch and
//! chat, what a client sends to move about in it, and what the server sends there: the hall and its
//! rooms and their changes, the games tables and challenges start, and chat lines.

use serde::{Deserialize, Serialize};

use crate::{
    ChallengeId, ChatLineId, GameId, GameSettings, PlayerInfo, RequestId, RoomId, TableId, UserId,
};

/// A seat at a table. The left seat plays Black and the right seat White, unless the table's settings ask
/// for nigiri, in which case the server draws the colours when the game starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Seat {
    Left,
    Right,
}

/// The time classes of the automatch queue, each a fixed Chinese byo-yomi clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeClass {
    /// 5 minutes, then 3 periods of 10 seconds.
    Blitz,
    /// 10 minutes, then 3 periods of 30 seconds.
    Rapid,
    /// 30 minutes, then 3 periods of 60 seconds.
    Classical,
}

/// A room as the hall lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomInfo {
    pub room: RoomId,
    pub name: String,
    pub users_count: u32,
    pub tables_count: u32,
}

/// A table's public state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableInfo {
    pub table: TableId,
    pub room: RoomId,
    pub left: Option<PlayerInfo>,
    pub right: Option<PlayerInfo>,
    /// The settings White proposed and Black has not yet confirmed.
    pub proposal: Option<GameSettings>,
    /// The game being played at this table, if any.
    pub game: Option<GameId>,
    pub watchers_count: u32,
}

/// A live game as the hall lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSummary {
    pub game: GameId,
    pub table: Option<TableId>,
    pub black: PlayerInfo,
    pub white: PlayerInfo,
    pub size: u8,
    /// Moves played when this summary was sent; the hall re-lists a game (`game_listed`) about once
    /// a second while its counts change.
    pub moves_count: u32,
    /// People watching (players excluded, a user on several connections once, each anonymous
    /// connection once) when this summary was sent.
    pub watchers_count: u32,
}

/// Where a chat line was said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChatChannel {
    Room {
        room: RoomId,
    },
    /// Between the two seated players of a table.
    Table {
        table: TableId,
    },
    /// Watchers of a game; its players do not receive it while the game is in play.
    Kibitz {
        game: GameId,
    },
    /// The two players of a game (any game: a table's, a challenge's, an automatch's, against a
    /// computer); its watchers read it too, as on KGS and OGS, and may not send it.
    Game {
        game: GameId,
    },
}

/// A chat line kept for those who come later (a room's recent chat).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    pub from: PlayerInfo,
    pub text: String,
    pub at_ms: u64,
    /// The line's id, as its `chat` frame carried it (for reporting it, and for `chat_removed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<ChatLineId>,
}

/// What a client sends in the hall: enter it, move between rooms and tables, sit, agree on a game, challenge, automatch and chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HallMsg {
    /// Receive the hall (rooms, players online, live games) and its live updates.
    EnterHall,
    LeaveHall,
    /// Enter a room (leaving any other): receive its tables, its users and its chat.
    JoinRoom {
        room: RoomId,
    },
    LeaveRoom,
    /// Watch a table (and its game, when one starts there).
    JoinTable {
        table: TableId,
    },
    /// Leave a table entirely, standing up first if seated.
    LeaveTable {
        table: TableId,
    },
    Sit {
        table: TableId,
        seat: Seat,
    },
    /// Get up from a seat but keep watching the table.
    Stand {
        table: TableId,
    },
    /// White (the right seat) proposes the settings of the next game.
    ProposeSettings {
        table: TableId,
        settings: GameSettings,
    },
    /// Black (the left seat) confirms the proposal, repeated so a changed proposal is never accepted
    /// blindly; the game starts.
    AcceptSettings {
        table: TableId,
        settings: GameSettings,
    },
    Challenge {
        user: UserId,
        settings: GameSettings,
    },
    AcceptChallenge {
        challenge: ChallengeId,
    },
    DeclineChallenge {
        challenge: ChallengeId,
    },
    /// Join the automatch queue: play the next player waiting for the same board size and time
    /// class whose rank is within `rank_range` ranks of yours (and yours within theirs). The game
    /// starts with `game_started` at once or when such a player arrives; the handicap follows the
    /// rank difference. Sent again, it replaces your place in the queue.
    Automatch {
        size: u8,
        time_class: TimeClass,
        rank_range: u8,
    },
    /// Leave the automatch queue.
    CancelAutomatch,
    Chat {
        channel: ChatChannel,
        text: String,
    },
}

impl HallMsg {
    /// Every `type` of this area, for routing a frame to its area and telling "unknown type" from
    /// "bad fields".
    pub const TYPES: &'static [&'static str] = &[
        "enter_hall",
        "leave_hall",
        "join_room",
        "leave_room",
        "join_table",
        "leave_table",
        "sit",
        "stand",
        "propose_settings",
        "accept_settings",
        "challenge",
        "accept_challenge",
        "decline_challenge",
        "automatch",
        "cancel_automatch",
        "chat",
    ];
}

/// What the server sends in the hall: the hall and its rooms in full and their changes, who is
/// online, the live games listed, tables, the games they and challenges start, and chat on every
/// channel (with the lines a moderator removes, so a client drops them where it shows them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HallServerMsg {
    /// The hall, in full (after `enter_hall`, or as a resync).
    Hall {
        rooms: Vec<RoomInfo>,
        players: Vec<PlayerInfo>,
        games: Vec<GameSummary>,
    },
    RoomUpdated {
        room: RoomInfo,
    },
    /// A player came online (or their listing changed).
    PlayerOnline {
        player: PlayerInfo,
    },
    PlayerOffline {
        user: UserId,
    },
    /// A live game started or changed its listing.
    GameListed {
        game: GameSummary,
    },
    /// A live game ended and left the list.
    GameUnlisted {
        game: GameId,
    },
    /// A room in full (after `join_room`, or as a resync).
    Room {
        room: RoomId,
        name: String,
        tables: Vec<TableInfo>,
        users: Vec<PlayerInfo>,
        /// The room's last chat lines, oldest first, so someone entering sees what was being said.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        recent_chat: Vec<ChatLine>,
    },
    /// A user entered the room you are in.
    RoomJoined {
        room: RoomId,
        player: PlayerInfo,
    },
    RoomLeft {
        room: RoomId,
        user: UserId,
    },
    /// A table of your room (or the table you are at) changed.
    TableUpdated {
        table: TableInfo,
    },
    /// Settings agreed at a table: the game starts; the server sends its state next.
    GameStarted {
        game: GameId,
        table: Option<TableId>,
        black: PlayerInfo,
        white: PlayerInfo,
    },
    /// Reply to `challenge`: the id under which a decline will be reported.
    ChallengeSent {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        challenge: ChallengeId,
        to: UserId,
    },
    /// Someone challenges you.
    Challenged {
        challenge: ChallengeId,
        from: PlayerInfo,
        settings: GameSettings,
    },
    /// Your challenge was declined (or withdrawn because a player left).
    ChallengeDeclined {
        challenge: ChallengeId,
    },
    Chat {
        channel: ChatChannel,
        from: PlayerInfo,
        text: String,
        at_ms: u64,
        /// The line's id, for reporting it and for `chat_removed`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line: Option<ChatLineId>,
    },
    /// A moderator removed a chat line of this channel: clients drop it.
    ChatRemoved {
        channel: ChatChannel,
        line: ChatLineId,
    },
}

impl HallServerMsg {
    /// Every `type` of this area, for reading a server frame by the area that lists its `type`.
    pub const TYPES: &'static [&'static str] = &[
        "hall",
        "room_updated",
        "player_online",
        "player_offline",
        "game_listed",
        "game_unlisted",
        "room",
        "room_joined",
        "room_left",
        "table_updated",
        "game_started",
        "challenge_sent",
        "challenged",
        "challenge_declined",
        "chat",
        "chat_removed",
    ];
}
