//! Profiles and finding players. A profile is what the store keeps of a player (their account, rating history, rated record, games,
//! when they were last seen) and what the hall knows of them now (online, the games they play, the
//! events they entered), put together for the `profile` request and `GET /api/users/{name}`. It reads
//! only; nothing here changes what it reads.

use tengen_protocol::{
    ErrorCode, PlayerInfo, ProfileView, PLAYERS_FOUND_MAX, RATING_HISTORY_SHOWN_MAX,
};

use crate::game::{list_game_rows, GAME_LIST_LEN_MAX};
use crate::hall::{HallHandle, HallRequest};
use crate::relations::Screen;
use crate::store::{store_refusal, StoreHandle};
use crate::Refusal;

/// Games a profile lists: its first page; `list_games` with `before` pages on.
pub const PROFILE_GAMES_MAX: usize = 20;
const _: () = assert!(PROFILE_GAMES_MAX <= GAME_LIST_LEN_MAX);

/// The profile of the player named `username` (as they would log in: any case or width), as
/// `viewer` sees it: a player who blocks the viewer shows offline and playing nothing.
pub async fn profile(
    store: &StoreHandle,
    hall: &HallHandle,
    username: &str,
    viewer: &Screen,
) -> Result<ProfileView, Refusal> {
    let name = username.to_string();
    let stored = store
        .call(move |store| {
            let Some(found) = store.user_by_name(&name)? else {
                return Ok(None);
            };
            let history = store.rating_history(found.id, RATING_HISTORY_SHOWN_MAX)?;
            let record = store.rated_record(found.id)?;
            let games = store.games_of_user(found.id, None, PROFILE_GAMES_MAX)?;
            let last_seen_ms = store.last_seen(found.id)?;
            // The account once more, after its history: a game rated between the two reads would
            // otherwise show a graph newer than the rating beside it. A rating and its history
            // point are written together, so the account read last is at least as new.
            let user = store.user_by_id(found.id)?.unwrap_or(found);
            Ok(Some((user, history, record, games, last_seen_ms)))
        })
        .await
        .map_err(|err| store_refusal(&err))?;
    let Some((user, rating_history, record, games, last_seen_ms)) = stored else {
        return Err(Refusal::new(
            ErrorCode::NoSuchUser,
            format!("no user {username}"),
        ));
    };
    let mut presence = hall
        .ask(HallRequest::Presence { user: user.id })
        .await?
        .presence()?;
    if viewer.hides_presence_of(user.id) {
        presence.online = false;
        presence.playing.clear();
    }
    Ok(ProfileView {
        player: crate::auth::player_info(&user),
        member_since_ms: user.created_at_ms,
        online: presence.online,
        last_seen_ms: last_seen_ms
            .max(presence.left_at_ms)
            .filter(|_| !presence.online),
        playing: presence.playing,
        rating_history,
        record,
        recent_games: list_game_rows(games),
        events: presence.events,
    })
}

/// The players whose name starts with `prefix` (any script, without regard to case or width), at
/// most [`PLAYERS_FOUND_MAX`].
pub async fn find(store: &StoreHandle, prefix: &str) -> Result<Vec<PlayerInfo>, Refusal> {
    let prefix = prefix.to_string();
    let users = store
        .call(move |store| store.find_users(&prefix, PLAYERS_FOUND_MAX))
        .await
        .map_err(|err| store_refusal(&err))?;
    Ok(users.iter().map(crate::auth::player_info).collect())
}
