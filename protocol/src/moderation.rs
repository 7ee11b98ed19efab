//! Moderation on the wire: what anyone reports (a user, a chat line, a game, with a reason), what a
//! moderator sees (the queue of open reports, each with its context) and does (mute, ban, remove a
//! chat line, void a game, dismiss a report), the moderation log that keeps every such act, and
//! what the server answers and pushes (to a user a moderator muted, or whose mute was lifted).
//! Who may do what, and the bounds of each act, are the server's.

use serde::{Deserialize, Serialize};

use crate::{ChatChannel, ChatLineId, GameId, ReportId, RequestId, UserId};

/// What an account may do beyond playing: a moderator handles reports and acts on users; an admin is
/// a moderator who may also act on moderators. Granted by the operator (`tengen admin`, the admin
/// API), never over this protocol.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    #[default]
    User,
    Moderator,
    Admin,
}

impl Role {
    /// Whether the role handles reports and acts on users.
    pub fn moderates(self) -> bool {
        self >= Role::Moderator
    }

    pub fn is_user(&self) -> bool {
        *self == Role::User
    }

    /// As stored and as the admin command line names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Moderator => "moderator",
            Role::Admin => "admin",
        }
    }

    pub fn parse(text: &str) -> Option<Role> {
        [Role::User, Role::Moderator, Role::Admin]
            .into_iter()
            .find(|role| role.as_str() == text)
    }
}

/// What a report is about, as the reporter names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReportTarget {
    User {
        username: String,
    },
    /// A chat line, by the `line` id its `chat` frame carried.
    ChatLine {
        line: ChatLineId,
    },
    Game {
        game: GameId,
    },
}

/// A chat line as the server keeps it for moderation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptChatLine {
    pub line: ChatLineId,
    pub channel: ChatChannel,
    pub user: UserId,
    pub username: String,
    pub text: String,
    pub at_ms: u64,
}

/// What a report is about, as the moderators see it: the user, the line with the lines around it
/// in its channel (as they were when it was reported), or the game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reported {
    User {
        user: UserId,
        username: String,
    },
    ChatLine {
        line: KeptChatLine,
        /// The lines of its channel around it, oldest first, the reported line included.
        context: Vec<KeptChatLine>,
    },
    Game {
        game: GameId,
        black: String,
        white: String,
    },
}

/// A report in the moderators' queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportView {
    pub report: ReportId,
    pub at_ms: u64,
    pub reporter: String,
    pub reason: String,
    pub reported: Reported,
}

/// What a moderator does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum ModAction {
    /// The user's chat is refused everywhere for `minutes` (1 minute to 30 days).
    Mute { username: String, minutes: u32 },
    /// The user's sessions end on every node and logging in is refused for `days` (1 to 365), or
    /// for good when `days` is absent.
    Ban {
        username: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        days: Option<u32>,
    },
    /// The chat line disappears for everyone who has it on screen.
    RemoveChat { line: ChatLineId },
    /// A live game ends void, or a finished game not yet settled is settled void: every stake and
    /// bet goes back through the normal settlement.
    VoidGame { game: GameId },
    /// Close a report without acting on anyone.
    Dismiss,
    /// End a mute that holds now: the user's chat is taken again at once, and they are told.
    Unmute { username: String },
    /// End a ban that holds now: the user may log in again.
    Unban { username: String },
}

/// One act in the moderation log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModLogEntry {
    /// Counts up from 1 in the order acts were taken.
    pub entry: u64,
    pub at_ms: u64,
    pub moderator: String,
    #[serde(flatten)]
    pub action: ModAction,
    pub reason: String,
    /// The report the act answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<ReportId>,
    /// When a mute or a ban ends (absent for a permanent ban and for other acts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_ms: Option<u64>,
}

/// What a client sends to report and to moderate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ModerationMsg {
    /// Report a user, a chat line or a game to the moderators (answered by `report_filed`). Any
    /// logged-in user; a few a minute at most.
    Report {
        target: ReportTarget,
        reason: String,
    },
    /// Moderators: the open reports, oldest first (answered by `reports`).
    ListReports,
    /// Moderators: act, giving a reason, in answer to `report` when there is one (which closes it).
    Moderate {
        #[serde(flatten)]
        action: ModAction,
        reason: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        report: Option<ReportId>,
    },
    /// Moderators: the moderation log, newest first, the page before entry `before` when given
    /// (answered by `moderation_log`).
    ModerationLog {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        before: Option<u64>,
    },
}

impl ModerationMsg {
    /// Every `type` of this area, for routing a frame to its area and telling "unknown type" from
    /// "bad fields".
    pub const TYPES: &'static [&'static str] =
        &["report", "list_reports", "moderate", "moderation_log"];
}

/// What the server sends about moderation: the replies to reports and to the moderators'
/// requests, and the pushes that tell a user a moderator muted them or lifted the mute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ModerationServerMsg {
    /// Pushed to a user a moderator muted: their chat is refused until `until_ms` (Unix ms).
    Muted { until_ms: u64, reason: String },
    /// Pushed to a user whose mute a moderator lifted: their chat is taken again.
    Unmuted { reason: String },
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
}

impl ModerationServerMsg {
    /// Every `type` of this area, for reading a server frame by the area that lists its `type`.
    pub const TYPES: &'static [&'static str] = &[
        "muted",
        "unmuted",
        "report_filed",
        "reports",
        "moderation_log",
    ];
}

/// The most reports one `reports` answer lists: a moderator's screenful; more wait their turn.
pub const REPORTS_LISTED_MAX: usize = 50;

/// The most entries one page of the moderation log holds.
pub const MOD_LOG_PAGE_MAX: usize = 50;
