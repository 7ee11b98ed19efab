//! Direct challenges (open, accepted, declined, withdrawn when either player goes offline) and the
//! hall's glue to the automatch queue: both end in a game without a table, started by `live`. The
//! queue's matching rules are in `automatch`.

use tengen_protocol::{
    ChallengeId, ErrorCode, GameSettings, HallServerMsg, PlayerInfo, ServerMsg, UserId,
};

use super::{automatch, refuse, table, users_recipients, Hall};
use crate::config::CHALLENGES_PER_USER_MAX;
use crate::Refusal;

/// An open challenge.
#[derive(Debug, Clone)]
pub(super) struct Challenge {
    from: PlayerInfo,
    to: UserId,
    settings: GameSettings,
}

impl Hall {
    pub(super) fn challenge(
        &mut self,
        from: PlayerInfo,
        to: UserId,
        settings: GameSettings,
    ) -> Result<ChallengeId, Refusal> {
        if to == from.user {
            return refuse(ErrorCode::NoSuchUser, "you cannot challenge yourself");
        }
        if !self.online.contains_key(&to) {
            return refuse(ErrorCode::NoSuchUser, format!("user {to} is not online"));
        }
        self.check_not_blocked(from.user, to)?;
        table::validate_settings(&settings)?;
        let open = self
            .challenges
            .values()
            .filter(|c| c.from.user == from.user)
            .count();
        if open >= CHALLENGES_PER_USER_MAX {
            return refuse(
                ErrorCode::Busy,
                format!("at most {CHALLENGES_PER_USER_MAX} open challenges"),
            );
        }
        let id = ChallengeId(self.next_challenge);
        self.next_challenge += 1;
        let msg = ServerMsg::Hall(HallServerMsg::Challenged {
            challenge: id,
            from: from.clone(),
            settings,
        });
        self.challenges.insert(id, Challenge { from, to, settings });
        self.publish(users_recipients([Some(to), None]), &msg);
        Ok(id)
    }

    fn take_challenge(&mut self, id: ChallengeId, user: UserId) -> Result<Challenge, Refusal> {
        match self.challenges.get(&id) {
            Some(c) if c.to == user => Ok(self.challenges.remove(&id).expect("just found")),
            _ => refuse(
                ErrorCode::NoSuchChallenge,
                format!("no open challenge {id} to you"),
            ),
        }
    }

    pub(super) async fn accept_challenge(
        &mut self,
        id: ChallengeId,
        user: UserId,
    ) -> Result<(), Refusal> {
        let challenge = self.take_challenge(id, user)?;
        // A block made since the challenge was sent stands between them too.
        self.check_not_blocked(user, challenge.from.user)?;
        let to = self
            .online
            .get(&user)
            .map(|(p, _)| p.clone())
            .ok_or_else(|| Refusal::new(ErrorCode::NotLoggedIn, "you are not online"))?;
        self.start_game(None, challenge.from, to, challenge.settings, Vec::new())
            .await
            .map(|_| ())
    }

    pub(super) fn decline_challenge(
        &mut self,
        id: ChallengeId,
        user: UserId,
    ) -> Result<(), Refusal> {
        let challenge = self.take_challenge(id, user)?;
        self.publish(
            users_recipients([Some(challenge.from.user), None]),
            &HallServerMsg::ChallengeDeclined { challenge: id }.into(),
        );
        Ok(())
    }

    pub(super) fn withdraw_challenges(&mut self, user: UserId) {
        let gone: Vec<(ChallengeId, Challenge)> = self
            .challenges
            .iter()
            .filter(|(_, c)| c.from.user == user || c.to == user)
            .map(|(id, c)| (*id, c.clone()))
            .collect();
        for (id, challenge) in gone {
            self.challenges.remove(&id);
            let audience = users_recipients([Some(challenge.from.user), Some(challenge.to)]);
            self.publish(
                audience,
                &HallServerMsg::ChallengeDeclined { challenge: id }.into(),
            );
        }
    }

    /// A seeker joins the queue, or plays the first waiting player who fits at once.
    pub(super) async fn seek(&mut self, seeker: automatch::Seeker) -> Result<(), Refusal> {
        automatch::validate(&seeker)?;
        automatch::remove(&mut self.automatch, seeker.player.user);
        let me = seeker.player.user;
        let fits = |other: UserId| !self.blocked_between(me, other);
        let Some(index) = automatch::find_allowed(&self.automatch, &seeker, fits) else {
            if self.automatch.len() >= automatch::AUTOMATCH_QUEUE_MAX {
                return refuse(ErrorCode::Busy, "the automatch queue is full; try again");
            }
            self.automatch.push(seeker);
            return Ok(());
        };
        let other = self.automatch.remove(index);
        let (first, second, settings) = automatch::game_for(&other, &seeker);
        self.start_game(None, first, second, settings, Vec::new())
            .await
            .map(|_| ())
    }
}
