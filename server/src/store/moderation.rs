//! What moderation keeps, behind its own small trait ([`Moderation`], which [`super::Store`]
//! requires): each account's role, the mutes and bans in force, chat lines for a bounded time and
//! count (so a report can show a line's context), the reports, and the moderation log, which is
//! append-only and never deleted. Reports and log entries are kept as JSON the store does not read
//! (what they mean is `crate::moderation`'s), as competitions' records are.

use tengen_protocol::{ChatLineId, GameId, ReportId, Role, UserId};

use super::StoreError;

/// What a moderator may hold against a user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SanctionKind {
    /// Chat refused everywhere.
    Mute,
    /// Sessions ended and login refused.
    Ban,
}

impl SanctionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SanctionKind::Mute => "mute",
            SanctionKind::Ban => "ban",
        }
    }
}

/// A mute or ban as stored: until when (`None`: for good) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sanction {
    pub until_ms: Option<u64>,
    pub reason: String,
}

impl Sanction {
    /// Whether it still holds at `now_ms`.
    pub fn holds_at(&self, now_ms: u64) -> bool {
        self.until_ms.is_none_or(|until| until > now_ms)
    }
}

/// A chat line to keep: its channel's key (`ChatChannel` as `room:1`, `kibitz:7`, ...) and the
/// line's JSON, which the store keeps as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewChatLine {
    pub channel_key: String,
    pub at_ms: u64,
    pub line_json: String,
}

/// How many chat lines a channel keeps and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChatKeeping {
    pub per_channel_max: usize,
    pub kept_ms: u64,
}

/// A report as stored: its record's JSON, and whether it is still open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportRow {
    pub id: ReportId,
    pub record_json: String,
    pub open: bool,
}

/// Roles, sanctions, kept chat, reports and the moderation log.
pub trait Moderation {
    /// The account's role (`User` when none was granted).
    fn role(&self, user: UserId) -> Result<Role, StoreError>;
    fn set_role(&self, user: UserId, role: Role) -> Result<(), StoreError>;

    /// The mute or ban last set on `user`, whether or not it still holds.
    fn sanction(&self, user: UserId, kind: SanctionKind) -> Result<Option<Sanction>, StoreError>;
    fn set_sanction(
        &self,
        user: UserId,
        kind: SanctionKind,
        sanction: &Sanction,
    ) -> Result<(), StoreError>;

    /// Keep a chat line and give it its id; the channel keeps at most `keeping.per_channel_max`
    /// lines, none older than `keeping.kept_ms`.
    fn keep_chat_line(
        &self,
        line: &NewChatLine,
        keeping: ChatKeeping,
    ) -> Result<ChatLineId, StoreError>;
    /// Forget a kept line (refused before anyone saw it, or removed by a moderator); true when it
    /// was kept.
    fn forget_chat_line(&self, line: ChatLineId) -> Result<bool, StoreError>;
    /// The kept line `line` with up to `around` lines of its channel on each side (each its id and
    /// JSON), oldest first; empty when the line is not kept.
    fn chat_context(
        &self,
        line: ChatLineId,
        around: usize,
    ) -> Result<Vec<(ChatLineId, String)>, StoreError>;

    /// File a report (open) and give it its id.
    fn file_report(&self, record_json: &str) -> Result<ReportId, StoreError>;
    fn report(&self, id: ReportId) -> Result<Option<ReportRow>, StoreError>;
    /// The open reports, oldest first, at most `limit`.
    fn open_reports(&self, limit: usize) -> Result<Vec<ReportRow>, StoreError>;
    /// Close an open report; false when it is unknown or closed already (so two moderators
    /// answering one report at once cannot both close it).
    fn close_report(&self, id: ReportId) -> Result<bool, StoreError>;

    /// A game's players (Black, White), live or finished; `None` for a game never started. What a
    /// report of a game shows, and whom voiding it concerns.
    fn game_players(&self, game: GameId) -> Result<Option<[UserId; 2]>, StoreError>;

    /// Append an entry to the moderation log and give its number (from 1, in order).
    fn append_mod_log(&self, entry_json: &str) -> Result<u64, StoreError>;
    /// The log's entries numbered below `before` (all when `None`), newest first, at most `limit`.
    fn mod_log(&self, before: Option<u64>, limit: usize) -> Result<Vec<(u64, String)>, StoreError>;
}
