//! Live games as the hall sees them: starting one (the nigiri draw, the `game_started` push to its
//! players and table), the hall's list of games in play and its re-listing with fresh counts, a
//! game's end freeing its table, games restored at startup put back on their tables, and settled
//! balances pushed to their owners. Once started, a game belongs to `game`; these are the hall's
//! records of it.

use std::ops::Bound;

use rand::Rng;
use tengen_protocol::{
    GameId, GameSettings, GameSummary, HallServerMsg, MoneyServerMsg, PlayerInfo, ServerMsg,
    TableId, UserId,
};

use super::{hall_recipients, Hall, Recipients};
use crate::config::GAME_RELISTS_PER_PUSH_MAX;
use crate::game::StartGame;
use crate::Refusal;

impl Hall {
    /// Draw colours if asked, start the game actor, and announce the game.
    pub(super) async fn start_game(
        &mut self,
        table: Option<TableId>,
        first: PlayerInfo,
        second: PlayerInfo,
        settings: GameSettings,
        bettors_barred: Vec<UserId>,
    ) -> Result<GameSummary, Refusal> {
        let (black, white, nigiri_seed) = if settings.nigiri {
            let seed: u64 = rand::rng().random();
            if first_takes_black(seed) {
                (first, second, Some(seed))
            } else {
                (second, first, Some(seed))
            }
        } else {
            (first, second, None)
        };
        let start = StartGame {
            table,
            bettors_barred,
            black,
            white,
            settings,
            nigiri_seed,
        };
        let summary = self.games.start(start, &self.ctx).await?;
        self.live.insert(summary.game, summary.clone());
        let started = ServerMsg::Hall(HallServerMsg::GameStarted {
            game: summary.game,
            table,
            black: summary.black.clone(),
            white: summary.white.clone(),
        });
        let recipients = Recipients {
            hall: false,
            room: None,
            table,
            users: [Some(summary.black.user), Some(summary.white.user)],
        };
        self.publish_text(recipients, started.to_json().into(), Some(summary.game));
        self.publish(
            hall_recipients(),
            &HallServerMsg::GameListed {
                game: summary.clone(),
            }
            .into(),
        );
        self.friends_started(&summary);
        Ok(summary)
    }

    /// A player's new listing in the live games they play, each re-listed.
    pub(super) fn relist_live_games(&mut self, player: &PlayerInfo) {
        let mut changed = Vec::new();
        for summary in self.live.values_mut() {
            for side in [&mut summary.black, &mut summary.white] {
                if side.user == player.user {
                    *side = player.clone();
                    changed.push(summary.game);
                }
            }
        }
        for game in changed {
            if let Some(summary) = self.live.get(&game) {
                let game = self.listing(summary);
                self.publish(
                    hall_recipients(),
                    &HallServerMsg::GameListed { game }.into(),
                );
            }
        }
    }

    /// A live game's listing with its watchers counted now, from the game's own registry, so a hall
    /// snapshot agrees with what the game's followers are told. (Changes are pushed by
    /// `relist_changed_games`, at most once a second per game.)
    pub(super) fn listing(&self, game: &GameSummary) -> GameSummary {
        self.games.listing_now(game).unwrap_or_else(|| game.clone())
    }

    /// Re-list the live games whose watcher or move count changed since they were last listed, so
    /// the hall's list of games in play keeps its counts true. At most [`GAME_RELISTS_PER_PUSH_MAX`] a push
    /// (the rest wait for the next), so a hall with many busy games costs its sessions a bounded
    /// number of frames a second.
    pub(super) fn relist_changed_games(&mut self) {
        // Round the list from where the last push stopped, so every game gets its turn however
        // many change every second.
        let after = self.relisted_last;
        let in_turn = self
            .live
            .range((Bound::Excluded(after), Bound::Unbounded))
            .chain(self.live.range(..=after))
            .map(|(_, listed)| listed);
        let changed: Vec<GameSummary> = in_turn
            .filter_map(|listed| {
                let now = self.games.listing_now(listed)?;
                (now != *listed).then_some(now)
            })
            .take(GAME_RELISTS_PER_PUSH_MAX)
            .collect();
        for listing in changed {
            self.relisted_last = listing.game;
            self.relist(listing);
        }
    }

    /// A listed game's line changed (new counts): keep it and list it again. A game no longer
    /// listed (it ended meanwhile) is left out, and an unchanged line is not pushed.
    pub(super) fn relist(&mut self, summary: GameSummary) {
        let Some(listed) = self.live.get_mut(&summary.game) else {
            return;
        };
        if *listed != summary {
            *listed = summary.clone();
            self.publish(
                hall_recipients(),
                &HallServerMsg::GameListed { game: summary }.into(),
            );
        }
    }

    pub(super) fn game_ended(&mut self, game: GameId, table: Option<TableId>) {
        let ended = self.live.remove(&game);
        self.publish(
            hall_recipients(),
            &HallServerMsg::GameUnlisted { game }.into(),
        );
        if let Some(ended) = ended {
            self.friend_changed(&ended.black);
            self.friend_changed(&ended.white);
        }
        let Some(id) = table else {
            return;
        };
        let Some(t) = self.tables.get_mut(&id) else {
            return;
        };
        if t.game == Some(game) {
            t.game = None;
            // The stakes were for this game: they lapse with it (settled by the game itself).
            if t.stake.as_ref().is_some_and(|d| d.agreed.is_some()) {
                t.stake = None;
                self.stake_changed(id);
            }
        }
        let Some(t) = self.tables.get_mut(&id) else {
            return;
        };
        // Seats were kept for players who dropped during the game; with the game over, free them.
        let gone: Vec<UserId> = t
            .seated_users()
            .into_iter()
            .flatten()
            .filter(|user| !self.online.contains_key(user))
            .collect();
        for user in gone {
            let _ = self.stand(id, user);
        }
        self.table_changed(id);
    }

    /// Put a restored game back on its table, with its players seated again.
    pub(super) fn game_restored(&mut self, summary: GameSummary) {
        if let Some(id) = summary.table {
            if let Some(table) = self.tables.get_mut(&id) {
                table.left = Some(summary.black.clone());
                table.right = Some(summary.white.clone());
                table.game = Some(summary.game);
                self.seated.insert(summary.black.user, id);
                self.seated.insert(summary.white.user, id);
            }
        }
        self.live.insert(summary.game, summary);
    }

    pub(super) fn push_balances(&self, balances: Vec<(UserId, u64)>) {
        let tax_bp = self.ctx.ledger.tax_bp();
        for (user, balance) in balances {
            let recipients = Recipients {
                users: [Some(user), None],
                ..Recipients::default()
            };
            let msg = ServerMsg::Money(MoneyServerMsg::Balance {
                id: None,
                balance,
                tax_bp,
            });
            self.publish(recipients, &msg);
        }
    }
}

/// The nigiri draw: whether the first player (left seat or challenger) takes Black. The seed comes
/// from a CSPRNG seeded by the operating system (`rand::rng()`) and the draw is its lowest bit, so the rule is portable and anyone
/// can check a recorded draw by hand.
pub fn first_takes_black(seed: u64) -> bool {
    seed % 2 == 0
}

#[cfg(test)]
mod tests {
    use super::first_takes_black;
    use rand::Rng;

    #[test]
    fn nigiri_is_a_fair_function_of_the_seed() {
        let mut rng = rand::rng();
        let black_count = (0..10_000)
            .filter(|_| first_takes_black(rng.random()))
            .count();
        // Five standard deviations either side of 5,000: fails by chance far less than once in a million.
        assert!((4_750..=5_250).contains(&black_count), "{black_count}");
        assert!(first_takes_black(42) && !first_takes_black(43));
    }
}
