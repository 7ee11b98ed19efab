//! [`Moderation`] on Redis. Roles and sanctions sit beside each account under its tag; chat lines
//! are keys that expire (so the time bound costs no sweep) listed per channel in a trimmed list (the
//! count bound); reports and the log are hashes under `{mod}`, numbered by counters. A report's
//! record and its place among the open ones are written in one MULTI, and closing it is one ZREM,
//! so two moderators cannot both close one report.

use redis::Connection;
use tengen_protocol::{ChatLineId, GameId, ReportId, Role, UserId};

use super::connections::Failure;
use super::records::parse_number;
use super::{keys, RedisStore};
use crate::store::moderation::{
    ChatKeeping, Moderation, NewChatLine, ReportRow, Sanction, SanctionKind,
};
use crate::store::StoreError;

impl Moderation for RedisStore {
    fn role(&self, user: UserId) -> Result<Role, StoreError> {
        self.read(|conn| {
            let role: Option<String> = ::redis::cmd("GET").arg(keys::role(user)).query(conn)?;
            match role {
                None => Ok(Role::User),
                Some(text) => Ok(Role::parse(&text)
                    .ok_or_else(|| StoreError::Backend(format!("unknown role {text:?}")))?),
            }
        })
    }

    fn set_role(&self, user: UserId, role: Role) -> Result<(), StoreError> {
        self.write(|conn| {
            ::redis::cmd("SET")
                .arg(keys::role(user))
                .arg(role.as_str())
                .exec(conn)?;
            Ok(())
        })
    }

    fn sanction(&self, user: UserId, kind: SanctionKind) -> Result<Option<Sanction>, StoreError> {
        self.read(|conn| {
            let fields: Vec<Option<String>> = ::redis::cmd("HMGET")
                .arg(keys::sanction(user, kind.as_str()))
                .arg(&["until_ms", "reason"])
                .query(conn)?;
            let [until, Some(reason)] = &fields[..] else {
                return Ok(None);
            };
            let until_ms = until
                .as_deref()
                .map(|text| parse_number("until_ms", text))
                .transpose()?;
            Ok(Some(Sanction {
                until_ms,
                reason: reason.clone(),
            }))
        })
    }

    fn set_sanction(
        &self,
        user: UserId,
        kind: SanctionKind,
        sanction: &Sanction,
    ) -> Result<(), StoreError> {
        let key = keys::sanction(user, kind.as_str());
        self.write(|conn| {
            let mut pipe = ::redis::pipe();
            pipe.atomic().del(&key);
            match sanction.until_ms {
                Some(until) => pipe.hset_multiple(
                    &key,
                    &[
                        ("until_ms", until.to_string()),
                        ("reason", sanction.reason.clone()),
                    ],
                ),
                None => pipe.hset(&key, "reason", &sanction.reason),
            };
            pipe.exec(conn)?;
            Ok(())
        })
    }

    fn keep_chat_line(
        &self,
        line: &NewChatLine,
        keeping: ChatKeeping,
    ) -> Result<ChatLineId, StoreError> {
        self.write(|conn| {
            let id = ChatLineId(::redis::cmd("INCR").arg(keys::CHAT_LINE_IDS).query(conn)?);
            let channel = keys::chat_channel(&line.channel_key);
            let kept = format!("{} {}", line.channel_key, line.line_json);
            let keep_count = -(keeping.per_channel_max.max(1) as isize);
            ::redis::pipe()
                .atomic()
                .cmd("SET")
                .arg(keys::chat_line(id))
                .arg(kept)
                .arg("PX")
                .arg(keeping.kept_ms.max(1))
                .rpush(&channel, id.0)
                .ltrim(&channel, keep_count, -1)
                .cmd("PEXPIRE")
                .arg(&channel)
                .arg(keeping.kept_ms.max(1))
                .exec(conn)?;
            Ok(id)
        })
    }

    fn forget_chat_line(&self, line: ChatLineId) -> Result<bool, StoreError> {
        self.write(|conn| {
            let deleted: i64 = ::redis::cmd("DEL").arg(keys::chat_line(line)).query(conn)?;
            Ok(deleted > 0)
        })
    }

    fn chat_context(
        &self,
        line: ChatLineId,
        around: usize,
    ) -> Result<Vec<(ChatLineId, String)>, StoreError> {
        self.read(|conn| chat_context(conn, line, around))
    }

    fn file_report(&self, record_json: &str) -> Result<ReportId, StoreError> {
        self.write(|conn| {
            let id: u64 = ::redis::cmd("INCR").arg(keys::REPORT_IDS).query(conn)?;
            ::redis::pipe()
                .atomic()
                .hset(keys::REPORTS, id, record_json)
                .zadd(keys::REPORTS_OPEN, id, id)
                .exec(conn)?;
            Ok(ReportId(id))
        })
    }

    fn report(&self, id: ReportId) -> Result<Option<ReportRow>, StoreError> {
        self.read(|conn| {
            let record: Option<String> = ::redis::cmd("HGET")
                .arg(keys::REPORTS)
                .arg(id.0)
                .query(conn)?;
            let Some(record_json) = record else {
                return Ok(None);
            };
            let open: Option<f64> = ::redis::cmd("ZSCORE")
                .arg(keys::REPORTS_OPEN)
                .arg(id.0)
                .query(conn)?;
            Ok(Some(ReportRow {
                id,
                record_json,
                open: open.is_some(),
            }))
        })
    }

    fn open_reports(&self, limit: usize) -> Result<Vec<ReportRow>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.read(|conn| {
            let ids: Vec<u64> = ::redis::cmd("ZRANGE")
                .arg(keys::REPORTS_OPEN)
                .arg(0)
                .arg(limit as i64 - 1)
                .query(conn)?;
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let records: Vec<Option<String>> = ::redis::cmd("HMGET")
                .arg(keys::REPORTS)
                .arg(&ids)
                .query(conn)?;
            Ok(ids
                .into_iter()
                .zip(records)
                .filter_map(|(id, record)| {
                    Some(ReportRow {
                        id: ReportId(id),
                        record_json: record?,
                        open: true,
                    })
                })
                .collect())
        })
    }

    fn close_report(&self, id: ReportId) -> Result<bool, StoreError> {
        self.write(|conn| {
            let removed: i64 = ::redis::cmd("ZREM")
                .arg(keys::REPORTS_OPEN)
                .arg(id.0)
                .query(conn)?;
            Ok(removed > 0)
        })
    }

    fn game_players(&self, game: GameId) -> Result<Option<[UserId; 2]>, StoreError> {
        self.read(|conn| {
            let players: Vec<Option<String>> = ::redis::cmd("HMGET")
                .arg(keys::game(game))
                .arg(&["black", "white"])
                .query(conn)?;
            let [Some(black), Some(white)] = &players[..] else {
                return Ok(None);
            };
            Ok(Some([
                UserId(parse_number("black", black)?),
                UserId(parse_number("white", white)?),
            ]))
        })
    }

    fn append_mod_log(&self, entry_json: &str) -> Result<u64, StoreError> {
        self.write(|conn| {
            let id: u64 = ::redis::cmd("INCR").arg(keys::MOD_LOG_IDS).query(conn)?;
            ::redis::cmd("HSET")
                .arg(keys::MOD_LOG)
                .arg(id)
                .arg(entry_json)
                .exec(conn)?;
            Ok(id)
        })
    }

    fn mod_log(&self, before: Option<u64>, limit: usize) -> Result<Vec<(u64, String)>, StoreError> {
        self.read(|conn| {
            let last: Option<String> = ::redis::cmd("GET").arg(keys::MOD_LOG_IDS).query(conn)?;
            let last = last
                .map(|text| parse_number("log id", &text))
                .transpose()?
                .unwrap_or(0);
            let below = before.map_or(last, |before| before.saturating_sub(1).min(last));
            let ids: Vec<u64> = (1..=below).rev().take(limit).collect();
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let entries: Vec<Option<String>> = ::redis::cmd("HMGET")
                .arg(keys::MOD_LOG)
                .arg(&ids)
                .query(conn)?;
            // A number taken by a node that died before writing its entry is a gap, skipped.
            Ok(ids
                .into_iter()
                .zip(entries)
                .filter_map(|(id, entry)| Some((id, entry?)))
                .collect())
        })
    }
}

/// The kept line and up to `around` lines of its channel on each side, oldest first.
fn chat_context(
    conn: &mut Connection,
    line: ChatLineId,
    around: usize,
) -> Result<Vec<(ChatLineId, String)>, Failure> {
    let kept: Option<String> = ::redis::cmd("GET").arg(keys::chat_line(line)).query(conn)?;
    let Some((channel_key, _)) = kept.as_deref().and_then(|kept| kept.split_once(' ')) else {
        return Ok(Vec::new());
    };
    let ids: Vec<u64> = ::redis::cmd("LRANGE")
        .arg(keys::chat_channel(channel_key))
        .arg(0)
        .arg(-1)
        .query(conn)?;
    let Some(at) = ids.iter().position(|&id| id == line.0) else {
        return Ok(Vec::new());
    };
    let first = at.saturating_sub(around);
    let last = at.saturating_add(around).min(ids.len() - 1);
    let wanted: Vec<ChatLineId> = ids
        .get(first..=last)
        .unwrap_or_default()
        .iter()
        .map(|&id| ChatLineId(id))
        .collect();
    let line_keys: Vec<String> = wanted.iter().map(|&id| keys::chat_line(id)).collect();
    let lines: Vec<Option<String>> = ::redis::cmd("MGET").arg(&line_keys).query(conn)?;
    // A line forgotten (removed, or expired) since its id was listed is left out.
    Ok(wanted
        .into_iter()
        .zip(lines)
        .filter_map(|(id, kept)| {
            let kept = kept?;
            let (_, json) = kept.split_once(' ')?;
            Some((id, json.to_string()))
        })
        .collect())
}
