//! Every message on Tengen's wire: [`ClientMsg`] (client to server) and [`ServerMsg`] (server to client),
//! serde JSON tagged by `type` in snake_case, with newtype ids and stable [`ErrorCode`]s. No I/O lives
//! here, so the server, the load generator and the browser client's reference (`protocol/README.md`)
//! share one definition of the protocol.
//!
//! Conventions:
//! - A request may carry an `id` (any unsigned integer the client picks); the one reply to it (`ack`,
//!   `error`, or a data reply such as `welcome` or `session`) echoes that `id`. Pushes carry no `id`.
//! - Game events carry `game` and `seq`; `seq` counts up by one per accepted event of that game, so a
//!   client detects a gap and asks for a resync by sending `watch` again.
//! - Times are integer milliseconds with the unit in the name (`main_time_ms`, `at_ms`).
//! - `Color`, `Point` and `KoRule` are the engine's own types (`tengen-rules`); a test here pins their
//!   JSON, so a change inside the engine can never silently change what browsers receive.
//!
//! # Layout
//!
//! One module per area of the product, each holding the data types of its area, the enum of what a
//! client sends there (`GamesMsg`, `MoneyMsg`, ...) and the enum of what the server sends there
//! (`GamesServerMsg`, `MoneyServerMsg`, ...). [`ClientMsg`] and [`ServerMsg`] are one variant per
//! area, made by one macro from one list of the areas, so the server hands each message to its
//! area's handler by matching on it, and adding a message, with its reply, is a change to one
//! area's file:
//!
//! - `ids`: the newtype ids and retry keys every area uses;
//! - `accounts`: two areas. The connection: `hello`, its `welcome`, and `ack` and `error`, the
//!   replies without data to a request of any area. Accounts: registering, logging in and out,
//!   the `session` a login opens and the `logged_out` pushed when it ends elsewhere;
//! - `people`: a participant as every list shows them, profiles, finding players, friends, blocks
//!   and mutes (`profile`, `players_found`, `relations`, `friend_presence`,
//!   `friend_started_game`);
//! - `hall`: rooms, tables, challenges, automatch, chat (`hall`, `room` and their changes,
//!   `player_online`, `game_listed`, `table_updated`, `game_started`, the challenges', `chat`,
//!   `chat_removed`);
//! - `game`: playing, watching and scoring games, and their records (`game_state`, `game_event`,
//!   `watchers`, `game_record`, `game_list`);
//! - `study`: the study board (`study`, `study_count`);
//! - `money`: bets, stakes and balances (`bet_placed`, `pool`, `balance`, `my_bets`, `history`,
//!   `house`, `stake_updated`);
//! - `events`: competitions (`event`, `event_list`, `event_listed`);
//! - `moderation`: reports, the moderators' queue and acts, the moderation log (`report_filed`,
//!   `reports`, `moderation_log`, `muted`, `unmuted`);
//! - `server_msg`: what every server message shares: its `type`s, reading one back, `ack` and
//!   `error`, the text of a frame;
//! - `error`: the stable error codes.
//!
//! A reply lives in the area of the request it answers. A push lives in the area whose requests
//! make or show the thing it reports, whichever area's act sends it, so a client finds it beside
//! the requests it goes with: `game_started` in the hall, where tables, challenges and automatch
//! start games; `chat_removed` in the hall beside `chat`, though a moderator removes the line;
//! `player_online` in the hall, though a game's end also re-sends a player's new rank; `logged_out`
//! in accounts, though a ban also ends sessions; `muted` and `unmuted` in moderation, where mutes
//! are made; `stake_updated` in money beside the stake requests, though it goes to a table's
//! watchers; `event_listed` in events, though the hall receives it.

mod accounts;
mod error;
mod events;
mod game;
mod hall;
mod ids;
mod moderation;
mod money;
mod people;
mod server_msg;
mod study;

pub use accounts::{
    AccountsMsg, AccountsServerMsg, ConnectionMsg, ConnectionServerMsg, LogoutReason,
};
pub use error::ErrorCode;
pub use events::{
    Criterion, EventBoard, EventEntrant, EventFormat, EventLogEntry, EventMatch, EventOutcome,
    EventRound, EventSpec, EventStatus, EventSummary, EventTeam, EventView, EventsMsg,
    EventsServerMsg, FinalTie, Fraction, LineUp, RankRange, RelayState, RelayView, Standing,
    Standings, SwissRanking, TeamId, TeamRules, TeamSide, TeamStanding, TeamsView,
};
pub use game::{
    Awaited, Away, ClockSettings, Clocks, Color, EndReason, GameEvent, GameListing, GameOutcome,
    GamePhase, GameSettings, GameState, GamesMsg, GamesServerMsg, Halt, HaltKind, KoRule, LastMove,
    Point, SideClock,
};
pub use hall::{
    ChatChannel, ChatLine, GameSummary, HallMsg, HallServerMsg, RoomInfo, Seat, TableInfo,
    TimeClass,
};
pub use ids::{
    ChallengeId, ChatLineId, EventId, GameId, ReportId, RequestId, RequestKey, RoomId, TableId,
    UserId, REQUEST_KEY_LEN_MAX,
};
pub use moderation::{
    KeptChatLine, ModAction, ModLogEntry, ModerationMsg, ModerationServerMsg, ReportTarget,
    ReportView, Reported, Role, MOD_LOG_PAGE_MAX, REPORTS_LISTED_MAX,
};
pub use money::{
    Amount, BadAmount, HistoryEntry, MoneyMsg, MoneyServerMsg, Points, PoolInfo, StakeInfo,
    StakeTerms, WagerKind, WagerRecord,
};
pub use people::{
    EventPlacing, Friend, PeopleMsg, PeopleServerMsg, PlayerInfo, ProfileView, RatingPoint,
    RelationsView, SizeRecord, PLAYERS_FOUND_MAX, RATING_HISTORY_SHOWN_MAX,
};
pub use study::{CharsetFrom, KoRuleFrom, StudyMsg, StudyRecord, StudyServerMsg, StudyView};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};

/// The protocol version a client announces in `hello`; the server refuses versions it does not speak.
pub const PROTOCOL_VERSION: u32 = 1;

/// Serde helper: leave a count out of the JSON when it is zero.
fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

fn is_false(value: &bool) -> bool {
    !*value
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// Reads a message already known to be of one area into the umbrella enum `M` ([`ClientMsg`] or
/// [`ServerMsg`]).
type AreaReader<M> = fn(serde_json::Value) -> serde_json::Result<M>;

/// Every area's `type`s and the reader for them, in one direction of the wire.
type AreaTable<M> = &'static [(&'static [&'static str], AreaReader<M>)];

/// Reads a message of the area whose enum is `T`: one entry of a table.
fn read_area<T: DeserializeOwned + Into<M>, M>(value: serde_json::Value) -> serde_json::Result<M> {
    serde_json::from_value::<T>(value).map(Into::into)
}

/// The message `value` holds, read by the area of `areas` whose list has `kind`; `None` when no
/// area knows that type. Routing by the `type` reads each frame once, where an untagged enum would
/// try every area in turn and, on a bad field, report only that no area matched.
fn read_routed<M>(
    areas: AreaTable<M>,
    kind: &str,
    value: serde_json::Value,
) -> Option<serde_json::Result<M>> {
    let (_, read) = areas.iter().find(|(types, _)| types.contains(&kind))?;
    Some(read(value))
}

/// Deserializes a whole frame of one direction by its `type`, for the `Deserialize` of
/// [`ClientMsg`] and [`ServerMsg`].
fn deserialize_routed<'de, D: Deserializer<'de>, M>(
    deserializer: D,
    areas: AreaTable<M>,
) -> Result<M, D::Error> {
    use serde::de::Error;
    let value = serde_json::Value::deserialize(deserializer)?;
    let kind = value
        .get("type")
        .and_then(|kind| kind.as_str())
        .ok_or_else(|| D::Error::custom("a message has a string \"type\""))?
        .to_owned();
    match read_routed(areas, &kind, value) {
        Some(read) => read.map_err(D::Error::custom),
        None => Err(D::Error::custom(format!("unknown message type {kind:?}"))),
    }
}

/// Every area once: its variant, the enum of what a client sends there and the enum of what the
/// server sends there, each of which gives the `type`s it answers. Makes [`ClientMsg`] and
/// [`ServerMsg`], each area's `From` into them and the tables [`CLIENT_AREAS`] and
/// [`SERVER_AREAS`] they are read by, so an area cannot be in one and not the others.
macro_rules! areas {
    ($($(#[$doc:meta])* $area:ident($msg:ident, $server_msg:ident),)*) => {
        /// A message from a client: one variant per area of the server that answers it. On the wire
        /// it is the area's message alone (`{"type":"play",...}`); the `type` names the area. Every
        /// message may be sent inside a [`Request`] with an `id`.
        #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
        #[serde(untagged)]
        pub enum ClientMsg {
            $($(#[$doc])* $area($msg),)*
        }

        /// A message from the server, a reply or a push: one variant per area, the same areas as
        /// [`ClientMsg`]. On the wire it is the area's message alone (`{"type":"ack","id":3}`);
        /// the `type` names the area.
        #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
        #[serde(untagged)]
        pub enum ServerMsg {
            $($(#[$doc])* $area($server_msg),)*
        }

        $(impl From<$msg> for ClientMsg {
            fn from(msg: $msg) -> ClientMsg {
                ClientMsg::$area(msg)
            }
        }

        impl From<$server_msg> for ServerMsg {
            fn from(msg: $server_msg) -> ServerMsg {
                ServerMsg::$area(msg)
            }
        })*

        /// Every area: the `type`s a client sends it and how to read them. A `type` is in exactly
        /// one area (a unit test checks it).
        const CLIENT_AREAS: AreaTable<ClientMsg> = &[$(($msg::TYPES, read_area::<$msg, ClientMsg>)),*];

        /// Every area: the `type`s the server sends from it and how to read them. A `type` is in
        /// exactly one area (a unit test checks it).
        const SERVER_AREAS: AreaTable<ServerMsg> =
            &[$(($server_msg::TYPES, read_area::<$server_msg, ServerMsg>)),*];
    };
}

areas! {
    /// The connection: `hello`, its `welcome`, and `ack` and `error`, which answer every area.
    Connection(ConnectionMsg, ConnectionServerMsg),
    /// Registering, logging in and out, and the session.
    Accounts(AccountsMsg, AccountsServerMsg),
    /// Rooms, tables, challenges, automatch and chat.
    Hall(HallMsg, HallServerMsg),
    /// Watching and playing games, and their records.
    Games(GamesMsg, GamesServerMsg),
    /// The study board.
    Study(StudyMsg, StudyServerMsg),
    /// Fortune points: bets, stakes, balances.
    Money(MoneyMsg, MoneyServerMsg),
    /// Competitions.
    Events(EventsMsg, EventsServerMsg),
    /// Profiles, finding players, friends, blocks and mutes.
    People(PeopleMsg, PeopleServerMsg),
    /// Reports and moderation.
    Moderation(ModerationMsg, ModerationServerMsg),
}

impl ClientMsg {
    /// Every `type` a client may send, area by area.
    pub fn types() -> impl Iterator<Item = &'static str> {
        CLIENT_AREAS
            .iter()
            .flat_map(|(types, _)| types.iter().copied())
    }
}

impl<'de> Deserialize<'de> for ClientMsg {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ClientMsg, D::Error> {
        deserialize_routed(deserializer, CLIENT_AREAS)
    }
}

/// A client frame: a message plus the optional request `id` its reply echoes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    #[serde(flatten)]
    pub msg: ClientMsg,
}

/// Why a frame could not be read as a [`Request`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The `id`, when the frame was JSON with a readable `id`, so the error can still be matched.
    pub id: Option<RequestId>,
    pub code: ErrorCode,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ParseError {}

impl Request {
    /// Parse one text frame, telling apart malformed JSON, an unknown `type` and bad fields.
    pub fn parse(text: &str) -> Result<Request, ParseError> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|err| ParseError {
            id: None,
            code: ErrorCode::BadJson,
            message: format!("not JSON: {err}"),
        })?;
        let id = value.get("id").and_then(|v| v.as_u64()).map(RequestId);
        let refuse = |code, message| ParseError { id, code, message };
        let Some(kind) = value
            .get("type")
            .and_then(|v| v.as_str())
            .map(str::to_owned)
        else {
            return Err(refuse(
                ErrorCode::BadMessage,
                "a message is a JSON object with a string \"type\"".into(),
            ));
        };
        match read_routed(CLIENT_AREAS, &kind, value) {
            None => Err(refuse(
                ErrorCode::UnknownType,
                format!("unknown message type {kind:?}"),
            )),
            Some(Err(err)) => Err(refuse(ErrorCode::BadMessage, format!("bad message: {err}"))),
            Some(Ok(msg)) => Ok(Request { id, msg }),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, HashSet};

    use super::*;

    #[test]
    fn unknown_type_is_told_apart_from_bad_fields() {
        let err = Request::parse(r#"{"type":"fly","id":4}"#).unwrap_err();
        assert_eq!(err.code, ErrorCode::UnknownType);
        assert_eq!(err.id, Some(RequestId(4)));
        let err = Request::parse(r#"{"type":"play","id":5,"game":1}"#).unwrap_err();
        assert_eq!(err.code, ErrorCode::BadMessage);
        assert_eq!(err.id, Some(RequestId(5)));
        let err = Request::parse("{not json").unwrap_err();
        assert_eq!(err.code, ErrorCode::BadJson);
        let err = Request::parse("[1,2]").unwrap_err();
        assert_eq!(err.code, ErrorCode::BadMessage);
    }

    /// The engine's board types travel as they are; these are their wire shapes, which browsers
    /// and stored games rely on.
    #[test]
    fn the_board_types_keep_their_wire_shapes() {
        let json = |value: serde_json::Value| value.to_string();
        assert_eq!(json(serde_json::json!(Color::Black)), r#""black""#);
        assert_eq!(json(serde_json::json!(Color::White)), r#""white""#);
        let point = Point { col: 3, row: 15 };
        assert_eq!(json(serde_json::json!(point)), r#"{"col":3,"row":15}"#);
        let rules = [KoRule::Simple, KoRule::Positional, KoRule::Situational];
        let names: Vec<String> = rules
            .iter()
            .map(|rule| json(serde_json::json!(rule)))
            .collect();
        assert_eq!(
            names,
            [r#""simple""#, r#""positional""#, r#""situational""#]
        );
        assert_eq!(KoRule::default(), KoRule::Positional);
    }

    #[test]
    fn error_codes_display_as_their_wire_names() {
        assert_eq!(ErrorCode::BadCredentials.to_string(), "bad_credentials");
        assert_eq!(ErrorCode::Ko.to_string(), "ko");
    }

    /// `ALL` is generated from the enum itself, so it holds every code once (it used to be a hand-kept
    /// list that had missed `marking_changed`).
    #[test]
    fn all_holds_every_error_code_once() {
        assert!(ErrorCode::ALL.contains(&ErrorCode::MarkingChanged));
        assert!(ErrorCode::ALL.contains(&ErrorCode::Unavailable));
        let distinct: std::collections::HashSet<_> = ErrorCode::ALL.iter().collect();
        assert_eq!(distinct.len(), ErrorCode::ALL.len());
    }

    #[test]
    fn keys_are_bounded_and_plain() {
        let ok = Request::parse(r#"{"type":"pass","game":1,"key":"a-b_C9"}"#).unwrap();
        let key = RequestKey::new("a-b_C9").unwrap();
        assert_eq!(
            ok.msg,
            ClientMsg::Games(GamesMsg::Pass {
                game: GameId(1),
                key: Some(key)
            })
        );
        let long = "k".repeat(REQUEST_KEY_LEN_MAX + 1);
        for bad in ["", "a:b", "sp ace", "é", long.as_str()] {
            let text = format!(r#"{{"type":"pass","id":3,"game":1,"key":"{bad}"}}"#);
            let err = Request::parse(&text).unwrap_err();
            assert_eq!(err.code, ErrorCode::BadMessage, "{bad:?}");
            assert_eq!(err.id, Some(RequestId(3)));
        }
        assert!(RequestKey::new("k".repeat(REQUEST_KEY_LEN_MAX)).is_ok());
    }

    /// Each area's enum names its own types, in each direction: a name listed in two areas, or read
    /// into another area than the one listing it, would route a message to the wrong handler (or,
    /// from the server, to the wrong part of a client). A name may be both a request and a reply
    /// (`balance`).
    #[test]
    fn every_type_belongs_to_one_area() {
        let client: Vec<&str> = ClientMsg::types().collect();
        let server: Vec<&str> = ServerMsg::types().collect();
        for all in [client, server] {
            let distinct: HashSet<_> = all.iter().collect();
            assert_eq!(distinct.len(), all.len());
        }
        let hello = Request::parse(r#"{"type":"hello","version":1}"#).unwrap();
        assert_eq!(
            hello.msg,
            ClientMsg::Connection(ConnectionMsg::Hello { version: 1 })
        );
        let bet = Request::parse(r#"{"type":"balance","id":2}"#).unwrap();
        assert_eq!(bet.msg, ClientMsg::Money(MoneyMsg::Balance));
        assert_eq!(bet.id, Some(RequestId(2)));
        let ack: ServerMsg = serde_json::from_str(r#"{"type":"ack","id":3}"#).unwrap();
        assert_eq!(ack, ServerMsg::ack(Some(RequestId(3))));
        let balance = r#"{"type":"balance","balance":5,"tax_bp":500}"#;
        assert_eq!(
            serde_json::from_str::<ServerMsg>(balance).unwrap(),
            ServerMsg::Money(MoneyServerMsg::Balance {
                id: None,
                balance: 5,
                tax_bp: 500
            })
        );
        let unknown = serde_json::from_str::<ServerMsg>(r#"{"type":"fly"}"#).unwrap_err();
        assert!(
            unknown.to_string().contains("unknown message type"),
            "{unknown}"
        );
    }

    /// The names serde knows for an area's enum, read from the error it gives for a `type` that none
    /// of them has: "unknown variant `?`, expected one of `a`, `b`".
    fn variants_of<M>(read: AreaReader<M>) -> BTreeSet<String> {
        let Err(err) = read(serde_json::json!({"type": "?"})) else {
            panic!("a variant is named ?");
        };
        let err = err.to_string();
        let (_, expected) = err
            .split_once("expected")
            .unwrap_or_else(|| panic!("{err}"));
        expected
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    }

    /// Each area's `TYPES` is exactly its enum's variants, in each direction: a variant missing
    /// from the list could be sent but never read back, and a listed name that is no variant would
    /// be routed to an area that cannot read it.
    #[test]
    fn every_area_lists_exactly_its_variants() {
        let listed = |types: &[&str]| types.iter().map(|kind| kind.to_string()).collect();
        for (types, read) in CLIENT_AREAS {
            assert_eq!(variants_of(*read), listed(types));
        }
        for (types, read) in SERVER_AREAS {
            assert_eq!(variants_of(*read), listed(types));
        }
    }
}
