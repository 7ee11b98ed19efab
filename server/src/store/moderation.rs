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

/// The behaviour both backends must show (run by the store conformance suite): roles, sanctions,
/// kept chat (bounded by count per channel and by time), reports that close once, and the
/// append-only log paged newest first.
#[cfg(test)]
pub(crate) fn conformance(store: &dyn Moderation, alice: UserId, bob: UserId) {
    assert_eq!(store.role(alice).unwrap(), Role::User);
    store.set_role(alice, Role::Moderator).unwrap();
    store.set_role(bob, Role::Admin).unwrap();
    store.set_role(bob, Role::User).unwrap();
    assert_eq!(store.role(alice).unwrap(), Role::Moderator);
    assert_eq!(store.role(bob).unwrap(), Role::User);

    assert_eq!(store.sanction(bob, SanctionKind::Mute).unwrap(), None);
    let mute = Sanction {
        until_ms: Some(9_000),
        reason: "spam".into(),
    };
    store.set_sanction(bob, SanctionKind::Mute, &mute).unwrap();
    let ban = Sanction {
        until_ms: None,
        reason: "cheating".into(),
    };
    store.set_sanction(bob, SanctionKind::Ban, &ban).unwrap();
    assert_eq!(store.sanction(bob, SanctionKind::Mute).unwrap(), Some(mute));
    assert_eq!(store.sanction(bob, SanctionKind::Ban).unwrap(), Some(ban));
    let lifted = Sanction {
        until_ms: Some(1),
        reason: "lifted".into(),
    };
    store.set_sanction(bob, SanctionKind::Ban, &lifted).unwrap();
    assert_eq!(
        store.sanction(bob, SanctionKind::Ban).unwrap(),
        Some(lifted)
    );
    assert_eq!(store.sanction(alice, SanctionKind::Ban).unwrap(), None);

    // Three lines kept per channel: the first of four is forgotten; another channel is apart.
    let keeping = ChatKeeping {
        per_channel_max: 3,
        kept_ms: 60_000,
    };
    let keep = |channel: &str, text: &str| {
        let line = NewChatLine {
            channel_key: channel.into(),
            at_ms: 1_000,
            line_json: format!("{text:?}"),
        };
        store.keep_chat_line(&line, keeping).unwrap()
    };
    let first = keep("room:1", "one");
    let other = keep("room:2", "elsewhere");
    let ids: Vec<_> = ["two", "three", "four"]
        .iter()
        .map(|text| keep("room:1", text))
        .collect();
    assert!(ids.iter().all(|&id| id > first && id != other));
    assert_eq!(store.chat_context(first, 5).unwrap(), vec![]);
    let texts = |line, around| -> Vec<String> {
        let lines = store.chat_context(line, around).unwrap();
        lines.into_iter().map(|(_, json)| json).collect()
    };
    assert_eq!(texts(ids[1], 5), ["\"two\"", "\"three\"", "\"four\""]);
    assert_eq!(texts(ids[1], 0), ["\"three\""]);
    assert_eq!(store.chat_context(ids[0], 1).unwrap()[0].0, ids[0]);
    assert!(store.forget_chat_line(ids[1]).unwrap());
    assert!(!store.forget_chat_line(ids[1]).unwrap());
    assert_eq!(texts(ids[0], 5), ["\"two\"", "\"four\""]);
    assert_eq!(texts(other, 5), ["\"elsewhere\""]);

    // Reports: open until closed, closed once.
    let report = store.file_report("{\"r\":1}").unwrap();
    let second = store.file_report("{\"r\":2}").unwrap();
    assert!(second > report);
    let open = store.open_reports(10).unwrap();
    assert_eq!(
        open.iter().map(|r| r.id).collect::<Vec<_>>(),
        [report, second]
    );
    assert_eq!(open[0].record_json, "{\"r\":1}");
    assert_eq!(store.open_reports(1).unwrap().len(), 1);
    assert!(store.close_report(report).unwrap());
    assert!(!store.close_report(report).unwrap());
    assert!(!store.close_report(ReportId(9_999)).unwrap());
    assert!(!store.report(report).unwrap().unwrap().open);
    assert!(store.report(second).unwrap().unwrap().open);
    assert_eq!(store.report(ReportId(9_999)).unwrap(), None);
    assert_eq!(store.open_reports(10).unwrap().len(), 1);

    assert_eq!(store.game_players(GameId(9_999)).unwrap(), None);

    // The log: numbered from 1, newest first, paged by number.
    assert_eq!(store.mod_log(None, 10).unwrap(), vec![]);
    for n in 1..=5u64 {
        assert_eq!(store.append_mod_log(&format!("{{\"n\":{n}}}")).unwrap(), n);
    }
    let numbers = |page: Vec<(u64, String)>| page.into_iter().map(|(n, _)| n).collect::<Vec<_>>();
    assert_eq!(numbers(store.mod_log(None, 2).unwrap()), [5, 4]);
    assert_eq!(numbers(store.mod_log(Some(4), 2).unwrap()), [3, 2]);
    assert_eq!(numbers(store.mod_log(Some(2), 5).unwrap()), [1]);
    assert_eq!(store.mod_log(Some(1), 5).unwrap(), vec![]);
    assert_eq!(store.mod_log(Some(3), 1).unwrap()[0].1, "{\"n\":2}");
}
