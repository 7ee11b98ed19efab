//! Stable error codes: clients switch on these, people read the message beside them.

use serde::{Deserialize, Serialize};

/// Defines [`ErrorCode`] and its [`ErrorCode::ALL`] from one list, so a new code cannot be left out of
/// `ALL` (and so out of the README check that walks it).
macro_rules! error_codes {
    ($($(#[$meta:meta])* $code:ident,)*) => {
        /// Stable error codes: clients switch on these, people read the `message`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum ErrorCode {
            $($(#[$meta])* $code,)*
        }

        impl ErrorCode {
            /// Every code, in declaration order, so tests can check each one is documented.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$code),*];
        }
    };
}

error_codes! {
    /// The frame is not JSON.
    BadJson,
    /// JSON, but not a known message shape (missing or mistyped fields).
    BadMessage,
    /// The `type` is not one the server knows.
    UnknownType,
    /// The frame is larger than the server accepts.
    FrameTooLarge,
    /// Too many messages too fast; this one was dropped.
    RateLimited,
    /// `hello` named a protocol version the server does not speak.
    VersionUnsupported,
    /// `hello` must come first.
    HelloRequired,
    /// This needs an account: `register`, `login` or `resume` first.
    NotLoggedIn,
    AlreadyLoggedIn,
    /// Wrong username or password (deliberately not saying which).
    BadCredentials,
    /// Too many failed logins (for this account, from this address, or both); the message says how
    /// long to wait.
    LoginThrottled,
    /// Too many new accounts from this address; the message says how long to wait.
    RegistrationThrottled,
    /// The session token is unknown or expired.
    InvalidToken,
    /// Someone has that username, in this or another case or width.
    UsernameTaken,
    /// The username passes for someone else's (their confusable skeletons match, as "аӏісе" in
    /// Cyrillic and "alice"); the message names whose.
    UsernameConfusable,
    InvalidUsername,
    InvalidPassword,
    NoSuchRoom,
    NoSuchTable,
    NoSuchGame,
    NoSuchUser,
    NoSuchChallenge,
    SeatTaken,
    /// You already sit at a table (one seat per player).
    AlreadySeated,
    NotSeated,
    /// Only White (the right seat) proposes; only Black (the left seat) confirms.
    NotYourRole,
    /// Nothing proposed yet, or the proposal changed since you looked.
    ProposalMismatch,
    InvalidSettings,
    /// A game is in progress at the table or for the player.
    GameInProgress,
    /// Both seats must be taken.
    TableNotFull,
    /// You are not a player of this game.
    NotYourGame,
    NotYourTurn,
    Occupied,
    Suicide,
    /// Ko or superko: the move would repeat a position.
    Ko,
    OffBoard,
    /// The game is not in the phase this needs (playing, scoring).
    WrongPhase,
    /// The dead stones changed before this accept arrived; look at the new marking.
    MarkingChanged,
    /// You are not in that room or at that table.
    NotThere,
    /// Chat text is empty or longer than the limit.
    BadChat,
    /// Players may not use the watchers' chat of their own game while it is in play.
    NotAllowed,
    /// The game has as many watchers as it takes.
    TooManyWatchers,
    /// The game or hall is too busy to take this request now; it was certainly not done: try again.
    Busy,
    /// No undo request is pending, or there is no move of yours to take back.
    NoUndo,
    /// A bet or stake of 0 points, or of more than any balance can hold.
    BadAmount,
    /// Not enough fortune points for that bet or stake.
    InsufficientPoints,
    /// Play has ended (or the game is over): no more bets.
    BettingClosed,
    /// Players may not bet in their own game's spectator pool.
    PlayersCannotBet,
    /// You already bet on the other side of this game; you may only add to your bet.
    SideChange,
    /// No study board is open on this connection (`study_open` or `study_load_sgf` first).
    NoStudy,
    /// Back at the start, forward past the end, or a variation that does not exist.
    NoSuchMove,
    /// The SGF could not be read or replayed.
    BadSgf,
    /// The stakes were agreed: they can no longer be edited (only raised during the game).
    StakeAgreed,
    /// Agree or Disagree needs both players to have pressed OK on the same amounts first.
    StakeNotReady,
    /// The server failed; nothing was changed.
    Internal,
    /// This request's `key` was already used by you in this game for a different request.
    KeyReused,
    /// The server cannot tell whether the request took effect (another node did not answer in
    /// time, or a store write broke off before its commit was confirmed): send it again with the
    /// same `key`, which answers with its first outcome if it did.
    OutcomeUnknown,
    /// The store is unreachable; nothing changed: try again.
    Unavailable,
    /// No event with that id.
    NoSuchEvent,
    /// The event has as many entrants as it takes.
    EventFull,
    /// The event's first round is paired: entries are closed and nobody leaves (withdrawals are the
    /// director's).
    EventStarted,
    /// Only the event's director may do that.
    NotDirector,
    /// You are not entered in that event.
    NotEntered,
    /// The round in play has games without a result yet.
    RoundInPlay,
    /// The event is over.
    EventOver,
    /// Your rank is outside the event's entry range.
    RankOutOfRange,
    /// A team or a line-up has the wrong number of players (a team event's round 1 starts only when
    /// every team is complete).
    TeamSize,
    /// Only the team's captain may do that.
    NotCaptain,
    /// Only a moderator may do that (and only an admin may act on a moderator).
    NotModerator,
    /// A moderator muted you: your chat is refused until the time the message says.
    Muted,
    /// The account is banned: the message says why and until when.
    Banned,
    /// No report with that id (or it was handled already).
    NoSuchReport,
    /// No chat line with that id is kept (unknown, removed, or older than the server keeps).
    NoSuchChatLine,
    /// The game's points were settled already: it can no longer be voided.
    AlreadySettled,
    /// A mute or ban of a length outside the allowed range.
    BadDuration,
    /// A report's or a moderator's reason is empty or too long.
    BadReason,
    /// One of you blocks the other: no challenge, stake offer or seat beside them.
    Blocked,
    /// A relation that cannot be: with yourself, or following a player you block.
    BadRelation,
    /// The list (followed, blocked or muted) holds as many players as it may.
    RelationsFull,
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The serde name is the stable one; reuse it so logs and the wire agree.
        let json = serde_json::to_string(self).map_err(|_| std::fmt::Error)?;
        f.write_str(json.trim_matches('"'))
    }
}
