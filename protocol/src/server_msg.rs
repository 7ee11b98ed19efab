//! Every message the server sends: replies to requests and pushes, in one enum tagged by `type`.

use serde::{Deserialize, Serialize};

use crate::{
    is_zero, ChallengeId, ChatChannel, ChatLine, ChatLineId, Clocks, Color, ErrorCode,
    EventSummary, EventView, Friend, GameEvent, GameId, GameListing, GameSettings, GameState,
    GameSummary, HistoryEntry, LogoutReason, ModLogEntry, PlayerInfo, Point, PoolInfo, ProfileView,
    RelationsView, ReportId, ReportView, RequestId, Role, RoomId, RoomInfo, StakeInfo, StudyView,
    TableId, TableInfo, UserId, WagerRecord,
};

/// A message from the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// Reply to `hello`.
    Welcome {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        version: u32,
        server: String,
    },
    /// Reply to `register`, `login` and `resume`: who you are and the token to resume with.
    Session {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        user: UserId,
        username: String,
        token: String,
        expires_at_ms: u64,
        /// Starting fortune points not granted yet: a new account's grant waits for its first
        /// finished game or a day. Absent (0) once granted.
        #[serde(default, skip_serializing_if = "is_zero")]
        pending_grant: u64,
        /// When the pending grant lands at the latest (at the next login or resume from then on).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grant_due_at_ms: Option<u64>,
        /// A moderator or an admin (absent for everyone else).
        #[serde(default, skip_serializing_if = "Role::is_user")]
        role: Role,
        /// While a moderator's mute holds: when it ends (Unix ms), and why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        muted_until_ms: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        muted_reason: Option<String>,
    },
    /// Pushed when this connection's session ended elsewhere (`logout` on another connection with the
    /// same token, or `logout_all` on any): the connection is not logged in any more.
    LoggedOut {
        reason: LogoutReason,
        /// For a ban: the moderator's reason.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ban_reason: Option<String>,
        /// For a ban that ends: when (Unix ms); absent for a permanent one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        banned_until_ms: Option<u64>,
    },
    /// A request succeeded.
    Ack {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
    },
    /// A request failed (or a frame could not be read); nothing changed.
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        code: ErrorCode,
        message: String,
    },
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
    /// A game's full state: after `watch`, when your game starts, or as a resync after falling behind.
    GameState {
        /// Boxed: the whole state is far larger than any other message.
        state: Box<GameState>,
    },
    /// One accepted event of a live game.
    GameEvent {
        game: GameId,
        seq: u64,
        #[serde(flatten)]
        event: GameEvent,
        /// Both clocks right after the event (for moves, passes, undo, resume and the end of a timed
        /// game).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clocks: Option<Clocks>,
        /// The server's wall clock (Unix ms) when `clocks` was taken.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        server_time_ms: Option<u64>,
    },
    /// Who watches a live game, with the same fields as in `game_state`; pushed to everyone following
    /// it when the set of watchers changes, at most about once a second (less often past 2,000
    /// followers). Not a game event: it has no `seq` and is not in the game's record. `watchers` (the
    /// names) is left out when only the counts changed: the names a follower holds, from its
    /// snapshot or the last push that had them, are still right. A crowd of guests coming and going
    /// then costs each follower a few bytes instead of the whole list.
    Watchers {
        game: GameId,
        watchers_count: u32,
        anonymous_watchers_count: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        watchers: Option<Vec<PlayerInfo>>,
    },
    /// Reply to `get_record`: the game's SGF so far (live) or in full (finished).
    GameRecord {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        game: GameId,
        sgf: String,
    },
    /// Reply to every study request but `study_count`: the study board as it now stands.
    Study {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        study: StudyView,
    },
    /// Reply to `study_count`.
    StudyCount {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        /// The stones the estimate takes as dead (removed before counting).
        dead: Vec<Point>,
        black_count_half_points: u32,
        white_count_half_points: u32,
        /// As SGF `RE` would say it if the game ended so: "B+3.5", "W+0.5", "0".
        result: String,
    },
    /// Reply to `list_games`.
    GameList {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        username: String,
        games: Vec<GameListing>,
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
    /// Pushed to a user a moderator muted: their chat is refused until `until_ms` (Unix ms).
    Muted {
        until_ms: u64,
        reason: String,
    },
    /// Pushed to a user whose mute a moderator lifted: their chat is taken again.
    Unmuted {
        reason: String,
    },
    /// Reply to `report`.
    ReportFiled {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        report: ReportId,
    },
    /// Reply to `list_reports`.
    Reports {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        reports: Vec<ReportView>,
    },
    /// Reply to `moderation_log`.
    ModerationLog {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        entries: Vec<ModLogEntry>,
    },
    /// Reply to `bet`: what you added, your whole bet on that side, and your balance after it.
    BetPlaced {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        game: GameId,
        side: Color,
        amount: u64,
        total: u64,
        balance: u64,
        tax_bp: u32,
    },
    /// A game's pool: the reply to `pool`, and pushed to everyone following the game whenever a bet
    /// changes it.
    Pool {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        pool: PoolInfo,
    },
    /// Your fortune points: the reply to `balance`, pushed once after logging in and again after
    /// each game your bet or stake was in settles.
    Balance {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        balance: u64,
        tax_bp: u32,
    },
    /// Reply to `my_bets`.
    MyBets {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        records: Vec<WagerRecord>,
    },
    /// Reply to `history`.
    History {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        entries: Vec<HistoryEntry>,
    },
    /// Reply to `house`: the house's takings so far.
    House {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        balance: u64,
        tax_bp: u32,
    },
    /// A table's stake dialog changed (`stake` is `null` once it lapsed or was withdrawn); pushed to
    /// the players and the table's watchers.
    StakeUpdated {
        table: TableId,
        stake: Option<StakeInfo>,
        tax_bp: u32,
    },
    /// An event's whole state: the reply to the event requests, and pushed to its entrants and
    /// director whenever it changes (an entry, a round paired, a result).
    Event {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        event: Box<EventView>,
    },
    /// Reply to `list_events`.
    EventList {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        events: Vec<EventSummary>,
    },
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
    /// Pushed to your connections when a friend comes online, goes offline, or starts or ends a
    /// game: how they are now (a friend who blocks you is never pushed).
    FriendPresence {
        friend: Friend,
    },
    /// Pushed to your connections when a friend starts a game (after `friend_presence`), for a
    /// notice that offers to watch it.
    FriendStartedGame {
        friend: PlayerInfo,
        game: GameId,
        opponent: PlayerInfo,
    },
    /// Pushed to the hall when an event is created or its status, entries or rounds change.
    EventListed {
        event: EventSummary,
    },
}

impl ServerMsg {
    /// Every `type` the server sends.
    pub const TYPES: &'static [&'static str] = &[
        "welcome",
        "session",
        "logged_out",
        "ack",
        "error",
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
        "game_state",
        "game_event",
        "watchers",
        "game_record",
        "game_list",
        "study",
        "study_count",
        "chat",
        "chat_removed",
        "muted",
        "report_filed",
        "reports",
        "moderation_log",
        "bet_placed",
        "pool",
        "balance",
        "my_bets",
        "history",
        "house",
        "stake_updated",
        "event",
        "event_list",
        "event_listed",
        "profile",
        "players_found",
        "relations",
        "friend_presence",
        "friend_started_game",
    ];

    /// An error reply.
    pub fn error(id: Option<RequestId>, code: ErrorCode, message: impl Into<String>) -> ServerMsg {
        ServerMsg::Error {
            id,
            code,
            message: message.into(),
        }
    }

    /// Serialize to the text of one frame. Serializing these types cannot fail (no maps with non-string
    /// keys, no floats), so a failure is a bug.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("ServerMsg always serializes")
    }
}
