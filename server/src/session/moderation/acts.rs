//! A moderator's acts, each checked in full before anything changes: the actor is a moderator,
//! the reason is given, the report (when answered) is open, the subject exists and may be acted on
//! (not oneself; a moderator only by an admin), the length is within bounds. Then the act, the
//! report's closing, and the log entry, in that order: an act that fails leaves no entry.

use tengen_protocol::{
    ChatChannel, ChatLineId, ErrorCode, GameId, ModAction, ModerationServerMsg, PlayerInfo,
    ReportId, Role, ServerMsg,
};

use crate::app::AppState;
use crate::game::GameRequest;
use crate::hall::{BanNotice, HallRequest};
use crate::ledger::book::{Account, Applied};
use crate::ledger::settle::MoneyOutcome;
use crate::moderation::{
    ban_ms, count, kept_context, log_entry, mute_ms, no_such_game, no_such_line, no_such_user,
    validate_reason, Act,
};
use crate::store::moderation::{Sanction, SanctionKind};
use crate::store::{store_refusal, StoreError, UserRow};
use crate::{refuse, unix_now_ms, Refusal};

fn internal(err: StoreError) -> Refusal {
    tracing::error!(%err, "store failure in moderation");
    store_refusal(&err)
}

/// Do `act` as `moderator`, close the report it answers, and log it.
pub(crate) async fn moderate(
    state: &AppState,
    moderator: &PlayerInfo,
    act: Act,
) -> Result<(), Refusal> {
    let role = role_of(state, moderator).await?;
    let act = Act {
        reason: validate_reason(&act.reason)?,
        ..act
    };
    if let Some(report) = act.report {
        open_report(state, report).await?;
    }
    let now_ms = unix_now_ms();
    let until_ms = match &act.action {
        ModAction::Mute { username, minutes } => {
            let until_ms = now_ms.saturating_add(mute_ms(*minutes)?);
            let user = subject(state, moderator, role, username).await?;
            mute(state, &user, until_ms, &act.reason).await?;
            Some(until_ms)
        }
        ModAction::Ban { username, days } => {
            let until_ms = ban_ms(*days)?.map(|ms| now_ms.saturating_add(ms));
            let user = subject(state, moderator, role, username).await?;
            ban(state, &user, until_ms, &act.reason).await?;
            until_ms
        }
        ModAction::RemoveChat { line } => {
            remove_chat(state, *line).await?;
            None
        }
        ModAction::VoidGame { game } => {
            void_game(state, *game).await?;
            None
        }
        ModAction::Dismiss if act.report.is_none() => {
            return refuse(ErrorCode::BadMessage, "dismiss answers a report: name it");
        }
        ModAction::Dismiss => None,
        ModAction::Unmute { username } => {
            let user = subject(state, moderator, role, username).await?;
            lift(state, &user, SanctionKind::Mute, (now_ms, &act.reason)).await?;
            None
        }
        ModAction::Unban { username } => {
            let user = subject(state, moderator, role, username).await?;
            lift(state, &user, SanctionKind::Ban, (now_ms, &act.reason)).await?;
            None
        }
    };
    finish(state, moderator, &act, (now_ms, until_ms)).await
}

/// Close the report the act answered and append the act to the log.
async fn finish(
    state: &AppState,
    moderator: &PlayerInfo,
    act: &Act,
    (now_ms, until_ms): (u64, Option<u64>),
) -> Result<(), Refusal> {
    let entry = log_entry(moderator, act, now_ms, until_ms);
    let json = serde_json::to_string(&entry).unwrap_or_default();
    let report = act.report;
    let logged = state
        .store
        .call(move |store| {
            if let Some(report) = report {
                // Closed by another moderator meanwhile: both acts stand and both are logged.
                store.close_report(report)?;
            }
            store.append_mod_log(&json)
        })
        .await
        .map_err(internal)?;
    count(&state.moderation.acts);
    tracing::info!(entry = logged, moderator = %moderator.username, action = ?act.action, "moderation");
    Ok(())
}

/// The actor's role, when it moderates.
pub(crate) async fn role_of(state: &AppState, actor: &PlayerInfo) -> Result<Role, Refusal> {
    let user = actor.user;
    let role = state
        .store
        .call(move |store| store.role(user))
        .await
        .map_err(internal)?;
    if !role.moderates() {
        return refuse(ErrorCode::NotModerator, "only moderators may do that");
    }
    Ok(role)
}

async fn open_report(state: &AppState, report: ReportId) -> Result<(), Refusal> {
    let row = state
        .store
        .call(move |store| store.report(report))
        .await
        .map_err(internal)?;
    match row {
        Some(row) if row.open => Ok(()),
        _ => refuse(ErrorCode::NoSuchReport, format!("no open report {report}")),
    }
}

/// The user a mute or ban (or its lifting) would fall on, if `moderator` may act on them.
async fn subject(
    state: &AppState,
    moderator: &PlayerInfo,
    role: Role,
    username: &str,
) -> Result<UserRow, Refusal> {
    let name = username.to_string();
    let found = state
        .store
        .call(move |store| {
            let Some(user) = store.user_by_name(&name)? else {
                return Ok(None);
            };
            let role = store.role(user.id)?;
            Ok(Some((user, role)))
        })
        .await
        .map_err(internal)?;
    let (user, their_role) = found.ok_or_else(|| no_such_user(username))?;
    if user.id == moderator.user {
        return refuse(
            ErrorCode::NotAllowed,
            "moderators do not mute, ban or lift a sanction of themselves",
        );
    }
    if their_role.moderates() && role != Role::Admin {
        return refuse(
            ErrorCode::NotModerator,
            "only an admin may act on a moderator",
        );
    }
    Ok(user)
}

/// Store the mute (it holds at every node's next line) and tell the user's connections.
async fn mute(
    state: &AppState,
    user: &UserRow,
    until_ms: u64,
    reason: &str,
) -> Result<(), Refusal> {
    let sanction = Sanction {
        until_ms: Some(until_ms),
        reason: reason.to_string(),
    };
    let id = user.id;
    state
        .store
        .call(move |store| store.set_sanction(id, SanctionKind::Mute, &sanction))
        .await
        .map_err(internal)?;
    let notice = ServerMsg::Moderation(ModerationServerMsg::Muted {
        until_ms,
        reason: reason.to_string(),
    });
    state
        .hall
        .tell(HallRequest::ToUser {
            user: id,
            msg: Box::new(notice),
        })
        .await
}

/// Store the ban, delete every session token, and end every connection of the user on every node.
async fn ban(
    state: &AppState,
    user: &UserRow,
    until_ms: Option<u64>,
    reason: &str,
) -> Result<(), Refusal> {
    let sanction = Sanction {
        until_ms,
        reason: reason.to_string(),
    };
    let id = user.id;
    let ended = state
        .store
        .call(move |store| {
            store.set_sanction(id, SanctionKind::Ban, &sanction)?;
            store.delete_user_sessions(id)
        })
        .await
        .map_err(internal)?;
    tracing::info!(user = %id, sessions = ended, "banned");
    let revoked = HallRequest::Revoked {
        user: id,
        token_digest: None,
        ban: Some(BanNotice {
            reason: reason.to_string(),
            until_ms,
        }),
    };
    state.hall.tell(revoked).await
}

/// End `user`'s mute or ban now, if one holds: the sanction is kept with `now_ms` as its end (and
/// the lifting reason), so every node's next check finds it over. A lifted mute is told to the
/// user's connections; a lifted ban has nobody connected to tell.
async fn lift(
    state: &AppState,
    user: &UserRow,
    kind: SanctionKind,
    (now_ms, reason): (u64, &str),
) -> Result<(), Refusal> {
    let id = user.id;
    let ended = Sanction {
        until_ms: Some(now_ms),
        reason: reason.to_string(),
    };
    let lifted = state
        .store
        .call(move |store| {
            let holds = store
                .sanction(id, kind)?
                .is_some_and(|sanction| sanction.holds_at(now_ms));
            if holds {
                store.set_sanction(id, kind, &ended)?;
            }
            Ok(holds)
        })
        .await
        .map_err(internal)?;
    if !lifted {
        let what = match kind {
            SanctionKind::Mute => "muted",
            SanctionKind::Ban => "banned",
        };
        return refuse(
            ErrorCode::NotAllowed,
            format!("{} is not {what}", user.username),
        );
    }
    if kind == SanctionKind::Mute {
        let notice = ServerMsg::Moderation(ModerationServerMsg::Unmuted {
            reason: reason.to_string(),
        });
        let to_user = HallRequest::ToUser {
            user: id,
            msg: Box::new(notice),
        };
        state.hall.tell(to_user).await?;
    }
    Ok(())
}

/// Forget a kept line and tell its channel to drop it.
async fn remove_chat(state: &AppState, line: ChatLineId) -> Result<(), Refusal> {
    let kept = state
        .store
        .call(move |store| {
            let context = kept_context(store, line)?;
            let kept = context.into_iter().find(|kept| kept.line == line);
            if kept.is_some() {
                store.forget_chat_line(line)?;
            }
            Ok(kept)
        })
        .await
        .map_err(internal)?
        .ok_or_else(|| no_such_line(line))?;
    let channel = kept.channel;
    match channel {
        ChatChannel::Room { .. } | ChatChannel::Table { .. } => {
            state
                .hall
                .tell(HallRequest::RemoveChat { channel, line })
                .await
        }
        ChatChannel::Kibitz { game } | ChatChannel::Game { game } => {
            // A game that has ended has nobody following its chat any more.
            if let Ok(handle) = state.games.get(game).await {
                let removal = GameRequest::RemoveChat { channel, line };
                if let Err(refusal) = handle.ask(removal).await {
                    tracing::info!(%game, %refusal, "a removed line's game has ended");
                }
            }
            Ok(())
        }
    }
}

/// Void a live game through its own ending, or settle a finished, unsettled one void.
async fn void_game(state: &AppState, game: GameId) -> Result<(), Refusal> {
    match state.games.get(game).await {
        Ok(handle) => match handle.ask(GameRequest::Void).await {
            Ok(reply) => return reply.done(),
            // Ended between the look-up and the request: settled by its actor, or unsettled below.
            Err(refusal) if refusal.code == ErrorCode::NoSuchGame => {}
            Err(refusal) => return Err(refusal),
        },
        Err(refusal) if refusal.code == ErrorCode::NoSuchGame => {}
        Err(refusal) => return Err(refusal),
    }
    void_finished(state, game).await
}

/// What a game that is not live is, for voiding it.
enum Finished {
    Unknown,
    Settled,
    /// Its log has no end (a node that owns it is not answering).
    NotEnded,
    Unsettled([tengen_protocol::UserId; 2]),
}

async fn void_finished(state: &AppState, game: GameId) -> Result<(), Refusal> {
    let found = state
        .store
        .call(move |store| {
            let Some(players) = store.game_players(game)? else {
                return Ok(Finished::Unknown);
            };
            if !store.settlements(game)?.is_empty() {
                return Ok(Finished::Settled);
            }
            // Ended is what its log says, whether or not the game's record was finished after.
            let ended = crate::store::logged_outcome(&store.game_events(game)?).is_some();
            Ok(match ended {
                true => Finished::Unsettled(players),
                false => Finished::NotEnded,
            })
        })
        .await
        .map_err(internal)?;
    let players = match found {
        Finished::Unknown => return Err(no_such_game(game)),
        Finished::Settled => return settled(game),
        Finished::NotEnded => {
            return refuse(
                ErrorCode::Unavailable,
                format!("game {game} is live on a node that does not answer; try again"),
            )
        }
        Finished::Unsettled(players) => players,
    };
    match state
        .ledger
        .settle_game(game, players, MoneyOutcome::Void)
        .await
    {
        Ok(Applied::Applied) => push_balances(state, game).await,
        // Settled by a restart's sweep meanwhile, with its own result.
        Ok(Applied::AlreadyApplied) => settled(game),
        Err(err) => {
            tracing::error!(%game, %err, "a void settlement failed");
            refuse(
                ErrorCode::Internal,
                "the game could not be settled void; nothing moved",
            )
        }
    }
}

fn settled(game: GameId) -> Result<(), Refusal> {
    refuse(
        ErrorCode::AlreadySettled,
        format!("game {game} is settled already; it can no longer be voided"),
    )
}

/// After a void settlement outside the game's actor: the refunded users' new balances, pushed.
async fn push_balances(state: &AppState, game: GameId) -> Result<(), Refusal> {
    let transfers = state
        .store
        .call(move |store| store.game_transfers(game))
        .await
        .map_err(internal)?;
    let mut users: Vec<_> = transfers
        .iter()
        .flat_map(|t| [t.from, t.to])
        .filter_map(|account| match account {
            Account::User(user) => Some(user),
            _ => None,
        })
        .collect();
    users.sort_unstable();
    users.dedup();
    let balances = state.ledger.balances(users).await.map_err(internal)?;
    state.hall.tell(HallRequest::Balances { balances }).await
}
