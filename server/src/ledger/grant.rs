//! The starting grant (docs/wagering.md), deferred so that farming it does not pay: a new account's grant lands
//! with its first finished game, or at its first login or resume a day (`Config::grant_delay_ms`)
//! after it was made, whichever comes first. Until then it is pending: shown to the user, and not in
//! the book, so the audit's "everything held = everything granted" needs no exception. The grant is
//! one transfer whose id is derived from the user id, so it lands once, ever, however often it is
//! tried (a game's end and a login at once, or a retry after a restart).
//!
//! Landing at login rather than by a periodic sweep: the user is there to see it (the balance comes
//! with the session), nobody is granted who never comes back, and no task has to scan every account.
//! A user online when the day passes sees it at their next login or resume, or sooner by finishing a game.

use tengen_protocol::UserId;

use super::book::{Account, Applied, Batch, Transfer, TransferKind};
use super::Ledger;
use crate::store::StoreError;
use crate::unix_now_ms;

/// What a user holds and is still owed, at login.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opened {
    pub balance: u64,
    /// The grant not landed yet (0 once it has).
    pub pending_grant: u64,
    /// When the pending grant lands at the latest (at a login from then on).
    pub grant_due_at_ms: Option<u64>,
}

/// The one id of `user`'s grant.
fn grant_id(user: UserId) -> String {
    format!("grant:{user}")
}

impl Ledger {
    /// At login: land `user`'s grant if it is due (the account is old enough, or has finished a
    /// game), and return their balance with what is still pending.
    pub async fn open_account(
        &self,
        user: UserId,
        created_at_ms: u64,
        now_ms: u64,
    ) -> Result<Opened, StoreError> {
        let due_at_ms = created_at_ms.saturating_add(self.grant_delay_ms);
        let pending =
            self.grant_points > 0 && now_ms < due_at_ms && !self.granted_or_played(user).await?;
        if pending {
            return Ok(Opened {
                balance: self.balance(user).await?,
                pending_grant: self.grant_points,
                grant_due_at_ms: Some(due_at_ms),
            });
        }
        self.grant(user).await?;
        Ok(Opened {
            balance: self.balance(user).await?,
            pending_grant: 0,
            grant_due_at_ms: None,
        })
    }

    /// After a game finished: land the pending grants of its players. Returns those granted now, who
    /// should hear their new balance.
    pub async fn grant_after_game(&self, players: [UserId; 2]) -> Result<Vec<UserId>, StoreError> {
        let mut granted = Vec::new();
        for user in players {
            let id = grant_id(user);
            let known = self
                .store
                .call(move |store| store.has_transfer(&id))
                .await?;
            if !known && self.grant(user).await? {
                granted.push(user);
            }
        }
        Ok(granted)
    }

    /// Whether `user` was granted already or has a finished game (the grant is due either way).
    async fn granted_or_played(&self, user: UserId) -> Result<bool, StoreError> {
        let id = grant_id(user);
        self.store
            .call(move |store| Ok(store.has_transfer(&id)? || store.has_finished_game(user)?))
            .await
    }

    /// Apply `user`'s grant (once, ever). True when it landed now.
    async fn grant(&self, user: UserId) -> Result<bool, StoreError> {
        if self.grant_points == 0 {
            return Ok(false);
        }
        let written = self
            .write(Batch::one(Transfer {
                id: grant_id(user),
                from: Account::Mint,
                to: Account::User(user),
                amount: self.grant_points,
                kind: TransferKind::Grant,
                game: None,
                side: None,
                at_ms: unix_now_ms(),
            }))
            .await?;
        Ok(written.applied == Applied::Applied)
    }
}
