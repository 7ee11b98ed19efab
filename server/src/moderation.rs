//! Moderation: reports, and what moderators do about them. Anyone logged in reports a user, a chat
//! line or a game with a reason (a few at once, then throttled like logins); the report keeps what
//! it is about as it was then (a line with the lines around it), so a moderator reads it later
//! however the chat moved on. Moderators (an account's stored role; admins are moderators who may
//! also act on moderators) read the queue and act: mute (chat refused everywhere until then, checked
//! where chat is accepted), ban (sessions ended on every node, login refused), remove a chat line
//! (its channel is told to drop it), void a game (through the game's own ending, or the ledger's
//! settlement for a finished game not yet settled), or dismiss. Every act is appended to the
//! moderation log. Nothing here moves points but voiding, and that only through settlement.
//!
//! Chat lines are kept here too: every line said anywhere is stored (bounded by
//! [`CHAT_KEPT_PER_CHANNEL_MAX`] and [`CHAT_KEPT_MS`]) before it is shown, which gives it the id its
//! `chat` frame carries. What the store keeps is `store::moderation`'s; who may say a line where is
//! the hall's and the games'. The moderators' acts, which reach the hall, the games and the ledger,
//! are the session's (`session/moderation/acts.rs`): this module needs nothing above the store.

use std::sync::atomic::{AtomicU64, Ordering};

use tengen_protocol::{
    ChatChannel, ChatLineId, ErrorCode, GameId, KeptChatLine, ModAction, ModLogEntry, PlayerInfo,
    ReportId, ReportTarget, ReportView, Reported, Role, UserId, MOD_LOG_PAGE_MAX,
    REPORTS_LISTED_MAX,
};

use crate::config::{
    BAN_DAYS_MAX, CHAT_KEPT_MS, CHAT_KEPT_PER_CHANNEL_MAX, MODERATION_REASON_CHARS_MAX,
    MUTE_MINUTES_MAX, MUTE_MINUTES_MIN, REPORTS_FREE, REPORT_CONTEXT_LINES, REPORT_DELAY_BASE_MS,
    REPORT_DELAY_MAX_MS, REPORT_FORGET_MS,
};
use crate::store::moderation::{ChatKeeping, Moderation, NewChatLine, Sanction, SanctionKind};
use crate::store::{store_refusal, Backoff, Store, StoreError, StoreHandle, UserRow};
use crate::{refuse, unix_now_ms, Refusal};

/// A moderator's act as asked: what, why, and the report it answers.
#[derive(Debug, Clone)]
pub struct Act {
    pub action: ModAction,
    pub reason: String,
    pub report: Option<ReportId>,
}

/// What moderation has done since this node started, for operators (`/api/admin/moderation`).
#[derive(Debug, Default)]
pub struct Counters {
    pub chat_lines_kept: AtomicU64,
    pub chat_refused_muted: AtomicU64,
    pub reports_filed: AtomicU64,
    pub acts: AtomicU64,
}

impl Counters {
    pub fn snapshot(&self) -> serde_json::Value {
        let read = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        serde_json::json!({
            "chat_lines_kept": read(&self.chat_lines_kept),
            "chat_refused_muted": read(&self.chat_refused_muted),
            "reports_filed": read(&self.reports_filed),
            "acts": read(&self.acts),
        })
    }
}

pub(crate) fn count(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

/// A channel as the store keys its kept lines.
pub fn channel_key(channel: ChatChannel) -> String {
    match channel {
        ChatChannel::Room { room } => format!("room:{room}"),
        ChatChannel::Table { table } => format!("table:{table}"),
        ChatChannel::Kibitz { game } => format!("kibitz:{game}"),
        ChatChannel::Game { game } => format!("game:{game}"),
    }
}

/// A moment as people read it, in UTC to the minute ("2026-12-06 16:42 UTC").
pub fn utc_minute(unix_ms: u64) -> String {
    let minutes = unix_ms / 60_000;
    let (hour, minute) = ((minutes / 60) % 24, minutes % 60);
    format!("{} {hour:02}:{minute:02} UTC", crate::utc_date(unix_ms))
}

/// The refusal of a muted user's chat line: until when, and why.
fn muted(mute: &Sanction) -> Refusal {
    let until = mute.until_ms.map_or("further notice".into(), utc_minute);
    Refusal::new(
        ErrorCode::Muted,
        format!("a moderator muted you until {until}: {}", mute.reason),
    )
}

/// Keep a line `from` says on `channel` (already checked by `chat::validate`) and give it its
/// id, unless a moderator muted them. Called where chat is accepted, before the line is shown.
pub async fn keep_chat_line(
    store: &StoreHandle,
    counters: &Counters,
    from: &PlayerInfo,
    channel: ChatChannel,
    (text, at_ms): (String, u64),
) -> Result<ChatLineId, Refusal> {
    let user = from.user;
    let kept = KeptChatLine {
        line: ChatLineId(0),
        channel,
        user,
        username: from.username.clone(),
        text,
        at_ms,
    };
    let line = NewChatLine {
        channel_key: channel_key(channel),
        at_ms,
        line_json: serde_json::to_string(&kept).unwrap_or_default(),
    };
    let keeping = ChatKeeping {
        per_channel_max: CHAT_KEPT_PER_CHANNEL_MAX,
        kept_ms: CHAT_KEPT_MS,
    };
    let kept = store
        .call(move |store| {
            let mute = store.sanction(user, SanctionKind::Mute)?;
            if let Some(mute) = mute.filter(|mute| mute.holds_at(at_ms)) {
                return Ok(Err(mute));
            }
            store.keep_chat_line(&line, keeping).map(Ok)
        })
        .await
        .map_err(|err| store_refusal(&err))?;
    match kept {
        Ok(id) => {
            count(&counters.chat_lines_kept);
            Ok(id)
        }
        Err(mute) => {
            count(&counters.chat_refused_muted);
            Err(muted(&mute))
        }
    }
}

/// Forget a kept line the hall or its game refused to show (best effort: an unseen line left behind
/// only ages out).
pub async fn forget_chat_line(store: &StoreHandle, line: ChatLineId) {
    if let Err(err) = store.call(move |store| store.forget_chat_line(line)).await {
        tracing::warn!(%line, %err, "a refused chat line stays kept until it ages out");
    }
}

/// A user's role and the mute holding on them now, for their session.
pub async fn standing(
    store: &StoreHandle,
    user: UserId,
) -> Result<(Role, Option<Sanction>), Refusal> {
    let now_ms = unix_now_ms();
    store
        .call(move |store| {
            let role = store.role(user)?;
            let mute = store.sanction(user, SanctionKind::Mute)?;
            Ok((role, mute.filter(|mute| mute.holds_at(now_ms))))
        })
        .await
        .map_err(|err| store_refusal(&err))
}

/// The ban holding on `user` at `now_ms`, if any (login and resume are refused while it does).
pub fn ban_of(
    store: &dyn Moderation,
    user: UserId,
    now_ms: u64,
) -> Result<Option<Sanction>, StoreError> {
    Ok(store
        .sanction(user, SanctionKind::Ban)?
        .filter(|ban| ban.holds_at(now_ms)))
}

/// The sentence a banned user reads when logging in.
pub fn banned_message(ban: &Sanction) -> String {
    match ban.until_ms {
        Some(until) => format!(
            "this account is banned until {}: {}",
            utc_minute(until),
            ban.reason
        ),
        None => format!("this account is banned for good: {}", ban.reason),
    }
}

/// A reason as given, trimmed: 1..=[`MODERATION_REASON_CHARS_MAX`] characters, no control
/// characters (it is shown to moderators and to the user it concerns).
pub fn validate_reason(reason: &str) -> Result<String, Refusal> {
    let reason = reason.trim();
    let len = reason.chars().count();
    if len == 0 || len > MODERATION_REASON_CHARS_MAX || reason.chars().any(char::is_control) {
        return refuse(
            ErrorCode::BadReason,
            format!("a reason is 1..={MODERATION_REASON_CHARS_MAX} characters, without control characters"),
        );
    }
    Ok(reason.to_string())
}

/// The report throttle: [`REPORTS_FREE`] at once, then a growing wait.
const REPORT_BACKOFF: Backoff = Backoff {
    free: REPORTS_FREE,
    base_ms: REPORT_DELAY_BASE_MS,
    max_ms: REPORT_DELAY_MAX_MS,
    forget_ms: REPORT_FORGET_MS,
};

/// What a report keeps besides its subject.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct ReportRecord {
    at_ms: u64,
    reporter: String,
    reason: String,
    reported: Reported,
}

/// File `reporter`'s report of `target`. Refused (nothing kept) for an unknown target, an empty or
/// overlong reason, or a reporter past the throttle.
pub async fn file_report(
    store: &StoreHandle,
    counters: &Counters,
    reporter: &PlayerInfo,
    target: ReportTarget,
    reason: &str,
) -> Result<ReportId, Refusal> {
    let reason = validate_reason(reason)?;
    let at_ms = unix_now_ms();
    let reporter_name = reporter.username.clone();
    let throttle_key = format!("report:user:{}", reporter.user);
    let filed = store
        .call(move |store| {
            let reported = match resolve(store, &target)? {
                Ok(reported) => reported,
                Err(refusal) => return Ok(Err(refusal)),
            };
            let counters = [(throttle_key, REPORT_BACKOFF)];
            if let Some(wait_ms) = store.throttle_attempt(&counters, at_ms)? {
                let wait_s = crate::throttle::seconds(wait_ms);
                return Ok(Err(Refusal::new(
                    ErrorCode::RateLimited,
                    format!("you reported a lot just now; try again in {wait_s} s"),
                )));
            }
            let record = ReportRecord {
                at_ms,
                reporter: reporter_name,
                reason,
                reported,
            };
            let json = serde_json::to_string(&record).unwrap_or_default();
            store.file_report(&json).map(Ok)
        })
        .await
        .map_err(|err| store_refusal(&err))??;
    count(&counters.reports_filed);
    Ok(filed)
}

pub(crate) fn no_such_user(username: &str) -> Refusal {
    Refusal::new(ErrorCode::NoSuchUser, format!("no user {username}"))
}

/// What `target` names, as a report keeps it; a refusal when it names nothing known.
fn resolve(
    store: &dyn Store,
    target: &ReportTarget,
) -> Result<Result<Reported, Refusal>, StoreError> {
    Ok(match target {
        ReportTarget::User { username } => match store.user_by_name(username)? {
            Some(user) => Ok(Reported::User {
                user: user.id,
                username: user.username,
            }),
            None => Err(no_such_user(username)),
        },
        ReportTarget::ChatLine { line } => {
            let context = kept_context(store, *line)?;
            match context.iter().find(|kept| kept.line == *line).cloned() {
                Some(line) => Ok(Reported::ChatLine { line, context }),
                None => Err(no_such_line(*line)),
            }
        }
        ReportTarget::Game { game } => match game_names(store, *game)? {
            Some([black, white]) => Ok(Reported::Game {
                game: *game,
                black,
                white,
            }),
            None => Err(no_such_game(*game)),
        },
    })
}

pub(crate) fn no_such_line(line: ChatLineId) -> Refusal {
    Refusal::new(
        ErrorCode::NoSuchChatLine,
        format!("no chat line {line} is kept (unknown, removed, or too old)"),
    )
}

pub(crate) fn no_such_game(game: GameId) -> Refusal {
    Refusal::new(ErrorCode::NoSuchGame, format!("no game {game}"))
}

/// A kept line and the lines around it in its channel, oldest first.
pub(crate) fn kept_context(
    store: &dyn Moderation,
    line: ChatLineId,
) -> Result<Vec<KeptChatLine>, StoreError> {
    let lines = store.chat_context(line, REPORT_CONTEXT_LINES)?;
    Ok(lines
        .into_iter()
        .filter_map(|(id, json)| {
            let kept = serde_json::from_str::<KeptChatLine>(&json).ok()?;
            Some(KeptChatLine { line: id, ..kept })
        })
        .collect())
}

/// The names of a game's players (Black, White).
fn game_names(store: &dyn Store, game: GameId) -> Result<Option<[String; 2]>, StoreError> {
    let Some(players) = store.game_players(game)? else {
        return Ok(None);
    };
    let name = |user: UserId| -> Result<String, StoreError> {
        Ok(store
            .user_by_id(user)?
            .map_or_else(|| user.to_string(), |row| row.username))
    };
    Ok(Some([name(players[0])?, name(players[1])?]))
}

/// The open reports, oldest first, at most [`REPORTS_LISTED_MAX`].
pub async fn open_reports(store: &StoreHandle) -> Result<Vec<ReportView>, Refusal> {
    let rows = store
        .call(|store| store.open_reports(REPORTS_LISTED_MAX))
        .await
        .map_err(|err| store_refusal(&err))?;
    Ok(rows
        .into_iter()
        .filter_map(|row| {
            let record = serde_json::from_str::<ReportRecord>(&row.record_json).ok()?;
            Some(ReportView {
                report: row.id,
                at_ms: record.at_ms,
                reporter: record.reporter,
                reason: record.reason,
                reported: record.reported,
            })
        })
        .collect())
}

/// A page of the moderation log, newest first: the entries numbered below `before`.
pub async fn log_page(
    store: &StoreHandle,
    before: Option<u64>,
) -> Result<Vec<ModLogEntry>, Refusal> {
    let rows = store
        .call(move |store| store.mod_log(before, MOD_LOG_PAGE_MAX))
        .await
        .map_err(|err| store_refusal(&err))?;
    Ok(rows
        .into_iter()
        .filter_map(|(entry, json)| {
            let logged = serde_json::from_str::<ModLogEntry>(&json).ok()?;
            Some(ModLogEntry { entry, ..logged })
        })
        .collect())
}

/// The role of the account named `username`, as the operator grants it (`tengen admin`, the admin
/// API): the account, or `None` when there is no such user.
pub fn grant(store: &dyn Store, username: &str, role: Role) -> Result<Option<UserRow>, StoreError> {
    let Some(user) = store.user_by_name(username)? else {
        return Ok(None);
    };
    store.set_role(user.id, role)?;
    tracing::info!(user = %user.id, role = role.as_str(), "role granted");
    Ok(Some(user))
}

/// How long a mute of `minutes` lasts, in ms, if it is within bounds.
pub fn mute_ms(minutes: u32) -> Result<u64, Refusal> {
    if !(MUTE_MINUTES_MIN..=MUTE_MINUTES_MAX).contains(&minutes) {
        return refuse(
            ErrorCode::BadDuration,
            format!("a mute lasts {MUTE_MINUTES_MIN} to {MUTE_MINUTES_MAX} minutes (30 days)"),
        );
    }
    Ok(u64::from(minutes) * 60_000)
}

/// How long a ban of `days` lasts, in ms (`None`: for good), if it is within bounds.
pub fn ban_ms(days: Option<u32>) -> Result<Option<u64>, Refusal> {
    match days {
        None => Ok(None),
        Some(days) if (1..=BAN_DAYS_MAX).contains(&days) => {
            Ok(Some(u64::from(days) * 24 * 60 * 60_000))
        }
        Some(_) => refuse(
            ErrorCode::BadDuration,
            format!("a ban lasts 1 to {BAN_DAYS_MAX} days, or is permanent (no days)"),
        ),
    }
}

/// The log entry of an act (its number is the store's).
pub(crate) fn log_entry(
    moderator: &PlayerInfo,
    act: &Act,
    at_ms: u64,
    until_ms: Option<u64>,
) -> ModLogEntry {
    ModLogEntry {
        entry: 0,
        at_ms,
        moderator: moderator.username.clone(),
        action: act.action.clone(),
        reason: act.reason.clone(),
        report: act.report,
        until_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_of_mutes_and_bans() {
        assert!(mute_ms(0).is_err());
        assert_eq!(mute_ms(1).unwrap(), 60_000);
        assert!(mute_ms(MUTE_MINUTES_MAX).is_ok());
        assert!(mute_ms(10 * 365 * 24 * 60).is_err());
        assert_eq!(ban_ms(None).unwrap(), None);
        assert!(ban_ms(Some(0)).is_err());
        assert!(ban_ms(Some(3650)).is_err());
        assert_eq!(ban_ms(Some(1)).unwrap(), Some(86_400_000));
    }

    #[test]
    fn reasons_are_trimmed_and_bounded() {
        assert_eq!(validate_reason("  spam ").unwrap(), "spam");
        assert!(validate_reason("  ").is_err());
        assert!(validate_reason(&"x".repeat(MODERATION_REASON_CHARS_MAX + 1)).is_err());
        assert!(validate_reason("a\u{7}").is_err());
    }

    #[test]
    fn times_read_in_utc_minutes() {
        assert_eq!(utc_minute(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc_minute(1_796_574_120_000), "2026-12-06 16:22 UTC");
    }
}
