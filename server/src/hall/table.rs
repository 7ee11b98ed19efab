//! One table's seats, settings agreement and stake dialog (下棋者竞猜), as pure state transitions the
//! hall actor applies: who may sit, stand, propose and confirm, offer, OK, agree or disagree stakes,
//! and what each does to the table. No I/O and no channels here: moving the points is the hall's
//! call to the ledger once [`Table::answer_stake`] says both agreed.

use tengen_protocol::{
    ErrorCode, GameId, GameSettings, PlayerInfo, RoomId, Seat, StakeInfo, StakeTerms, TableId,
    TableInfo, UserId,
};

// The check lives with the game, so competitions (below the hall) check their settings the same way.
pub use crate::game::wire::validate_settings;
use crate::{refuse, Refusal};

/// A table in a room.
#[derive(Debug, Clone)]
pub struct Table {
    pub id: TableId,
    pub room: RoomId,
    pub left: Option<PlayerInfo>,
    pub right: Option<PlayerInfo>,
    pub proposal: Option<GameSettings>,
    pub game: Option<GameId>,
    /// Sessions that joined the table to watch it.
    pub watchers_count: u32,
    /// The stake dialog, from the first offer until the stakes lapse with their game or a player
    /// leaves.
    pub stake: Option<StakeDialog>,
}

/// Two players' stakes being negotiated, or agreed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StakeDialog {
    /// Left seat's stake, right seat's.
    pub amounts: [u64; 2],
    pub terms: StakeTerms,
    /// Left, right: pressed OK on exactly these amounts.
    pub ok: [bool; 2],
    /// Left, right: pressed Agree.
    pub agree: [bool; 2],
    /// Set once both agreed and the points moved: the key of the agreement (for transfer ids), and
    /// the game they are for (`None` until the next game at the table starts).
    pub agreed: Option<Agreement>,
}

/// Stakes both players agreed; the points are in escrow (or the table's hold).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agreement {
    pub key: String,
    pub game: Option<GameId>,
    /// (player, amount), left seat first, as held.
    pub entries: [(UserId, u64); 2],
}

fn seat_index(seat: Seat) -> usize {
    match seat {
        Seat::Left => 0,
        Seat::Right => 1,
    }
}

impl StakeDialog {
    /// The paid-coaching student's seat index, if coaching.
    pub fn student_index(&self) -> Option<usize> {
        match self.terms {
            StakeTerms::Normal => None,
            StakeTerms::Coaching { coach } => Some(1 - seat_index(coach)),
        }
    }
}

impl Table {
    pub fn new(id: TableId, room: RoomId) -> Table {
        Table {
            id,
            room,
            left: None,
            right: None,
            proposal: None,
            game: None,
            watchers_count: 0,
            stake: None,
        }
    }

    /// The stake dialog as the players and watchers see it.
    pub fn stake_info(&self) -> Option<StakeInfo> {
        self.stake.as_ref().map(|dialog| StakeInfo {
            table: self.id,
            left: dialog.amounts[0],
            right: dialog.amounts[1],
            terms: dialog.terms,
            ok_left: dialog.ok[0],
            ok_right: dialog.ok[1],
            agree_left: dialog.agree[0],
            agree_right: dialog.agree[1],
            agreed: dialog.agreed.is_some(),
            game: dialog.agreed.as_ref().and_then(|agreement| agreement.game),
        })
    }

    /// The seated player's seat index, or `not_seated`.
    fn seated_index(&self, user: UserId) -> Result<usize, Refusal> {
        self.seat_of(user)
            .map(seat_index)
            .ok_or_else(|| Refusal::new(ErrorCode::NotSeated, "you do not sit at this table"))
    }

    /// The two seated players (left, right), or `table_not_full`.
    pub fn players(&self) -> Result<[UserId; 2], Refusal> {
        match (&self.left, &self.right) {
            (Some(left), Some(right)) => Ok([left.user, right.user]),
            _ => refuse(ErrorCode::TableNotFull, "both seats must be taken first"),
        }
    }

    /// A player sets both stakes and presses OK. Offering the amounts and terms already on the
    /// table is the other player's OK; different ones start over with only this player's OK.
    /// Balances are the hall's check (it asks the ledger) before this; each amount is 0 or points
    /// checked where the offer came in (`Amount::stake`).
    pub fn offer_stake(
        &mut self,
        user: UserId,
        amounts: [u64; 2],
        terms: StakeTerms,
    ) -> Result<(), Refusal> {
        let me = self.seated_index(user)?;
        self.players()?;
        if self.stake.as_ref().is_some_and(|d| d.agreed.is_some()) {
            return refuse(
                ErrorCode::StakeAgreed,
                "the stakes are agreed; only raising your own is possible now",
            );
        }
        if let StakeTerms::Coaching { coach } = terms {
            if amounts[seat_index(coach)] != 0 {
                return refuse(
                    ErrorCode::BadAmount,
                    "in paid coaching the coach's stake is 0",
                );
            }
        }
        let same = self
            .stake
            .as_ref()
            .is_some_and(|d| d.amounts == amounts && d.terms == terms);
        let dialog = self.stake.get_or_insert(StakeDialog {
            amounts,
            terms,
            ok: [false, false],
            agree: [false, false],
            agreed: None,
        });
        if !same {
            dialog.amounts = amounts;
            dialog.terms = terms;
            dialog.ok = [false, false];
        }
        dialog.ok[me] = true;
        dialog.agree = [false, false];
        Ok(())
    }

    /// Agree or Disagree, after both pressed OK. Returns true when this completes the agreement
    /// (both agreed): the hall then moves the points and calls [`Table::stake_agreed`].
    pub fn answer_stake(&mut self, user: UserId, agree: bool) -> Result<bool, Refusal> {
        let me = self.seated_index(user)?;
        let Some(dialog) = self.stake.as_mut() else {
            return refuse(ErrorCode::StakeNotReady, "no stakes were offered");
        };
        if dialog.agreed.is_some() {
            return refuse(ErrorCode::StakeAgreed, "the stakes are agreed");
        }
        if dialog.ok != [true, true] {
            return refuse(
                ErrorCode::StakeNotReady,
                "both players must press OK on the same amounts first",
            );
        }
        if !agree {
            // Back to editing: both OK again before anyone agrees.
            dialog.ok = [false, false];
            dialog.agree = [false, false];
            return Ok(false);
        }
        dialog.agree[me] = true;
        Ok(dialog.agree == [true, true])
    }

    /// Record that the agreed stakes moved (into `game`'s escrow, or the hold when `None`).
    pub fn stake_agreed(&mut self, key: String, game: Option<GameId>) -> Result<(), Refusal> {
        let players = self.players()?;
        let dialog = self.stake.as_mut().expect("agreed stakes have a dialog");
        dialog.agreed = Some(Agreement {
            key,
            game,
            entries: [
                (players[0], dialog.amounts[0]),
                (players[1], dialog.amounts[1]),
            ],
        });
        Ok(())
    }

    /// Agreeing failed (a balance fell meanwhile): the agreement is undone, back to editing.
    pub fn stake_failed(&mut self) {
        if let Some(dialog) = self.stake.as_mut() {
            dialog.ok = [false, false];
            dialog.agree = [false, false];
        }
    }

    /// The stakes held for a next game that will not be played here (a seat changed): the dialog
    /// ends, and the caller refunds what it returns.
    fn drop_stake(&mut self) -> Option<Agreement> {
        match self.stake.take() {
            Some(StakeDialog {
                agreed: Some(agreement),
                ..
            }) if agreement.game.is_none() => Some(agreement),
            Some(dialog) if dialog.agreed.is_some() => {
                // Stakes in a game's escrow stay with that game; keep the dialog until it ends.
                self.stake = Some(dialog);
                None
            }
            _ => None,
        }
    }

    pub fn info(&self) -> TableInfo {
        TableInfo {
            table: self.id,
            room: self.room,
            left: self.left.clone(),
            right: self.right.clone(),
            proposal: self.proposal,
            game: self.game,
            watchers_count: self.watchers_count,
        }
    }

    fn seat_mut(&mut self, seat: Seat) -> &mut Option<PlayerInfo> {
        match seat {
            Seat::Left => &mut self.left,
            Seat::Right => &mut self.right,
        }
    }

    /// The seat `user` occupies here.
    pub fn seat_of(&self, user: UserId) -> Option<Seat> {
        if self.left.as_ref().is_some_and(|p| p.user == user) {
            Some(Seat::Left)
        } else if self.right.as_ref().is_some_and(|p| p.user == user) {
            Some(Seat::Right)
        } else {
            None
        }
    }

    /// The two seated players' ids.
    pub fn seated_users(&self) -> [Option<UserId>; 2] {
        [
            self.left.as_ref().map(|p| p.user),
            self.right.as_ref().map(|p| p.user),
        ]
    }

    /// Sit `player` in `seat`. The caller has checked the player sits nowhere else.
    pub fn sit(&mut self, seat: Seat, player: PlayerInfo) -> Result<(), Refusal> {
        let place = self.seat_mut(seat);
        if place.is_some() {
            let side = match seat {
                Seat::Left => "left",
                Seat::Right => "right",
            };
            return refuse(ErrorCode::SeatTaken, format!("the {side} seat is taken"));
        }
        *place = Some(player);
        // A proposal was made to someone else; the newcomer has not seen it.
        self.proposal = None;
        Ok(())
    }

    /// Get `user` up from their seat (not during a game at this table). Stakes held for a next
    /// game that will now not be played are returned for the caller to refund.
    pub fn stand(&mut self, user: UserId) -> Result<Option<Agreement>, Refusal> {
        let seat = self
            .seat_of(user)
            .ok_or_else(|| Refusal::new(ErrorCode::NotSeated, "you do not sit at this table"))?;
        if self.game.is_some() {
            return refuse(
                ErrorCode::GameInProgress,
                "a game is in progress at this table; resign to leave it",
            );
        }
        *self.seat_mut(seat) = None;
        self.proposal = None;
        Ok(self.drop_stake())
    }

    fn ready_for_settings(&self) -> Result<(), Refusal> {
        if self.game.is_some() {
            return refuse(
                ErrorCode::GameInProgress,
                "a game is in progress at this table",
            );
        }
        if self.left.is_none() || self.right.is_none() {
            return refuse(ErrorCode::TableNotFull, "both seats must be taken first");
        }
        Ok(())
    }

    /// White (the right seat) proposes the next game's settings.
    pub fn propose(&mut self, user: UserId, settings: GameSettings) -> Result<(), Refusal> {
        if self.seat_of(user) != Some(Seat::Right) {
            return refuse(
                ErrorCode::NotYourRole,
                "only the right seat (White) proposes settings",
            );
        }
        self.ready_for_settings()?;
        validate_settings(&settings)?;
        self.proposal = Some(settings);
        Ok(())
    }

    /// Black (the left seat) confirms exactly the current proposal; returns the two players, left first.
    pub fn confirm(
        &mut self,
        user: UserId,
        settings: &GameSettings,
    ) -> Result<(PlayerInfo, PlayerInfo, GameSettings), Refusal> {
        if self.seat_of(user) != Some(Seat::Left) {
            return refuse(
                ErrorCode::NotYourRole,
                "only the left seat (Black) confirms settings",
            );
        }
        self.ready_for_settings()?;
        match self.proposal {
            Some(proposal) if proposal == *settings => {}
            Some(_) => {
                return refuse(
                    ErrorCode::ProposalMismatch,
                    "the proposal changed; confirm the current one",
                )
            }
            None => return refuse(ErrorCode::ProposalMismatch, "nothing has been proposed"),
        }
        let (Some(left), Some(right)) = (self.left.clone(), self.right.clone()) else {
            unreachable!("ready_for_settings checked both seats");
        };
        Ok((left, right, *settings))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_protocol::ClockSettings;
    use tengen_protocol::KoRule;

    fn player(id: u64) -> PlayerInfo {
        PlayerInfo {
            user: UserId(id),
            username: format!("p{id}"),
            rank: "?".into(),
            rating: 1500,
            computer: false,
        }
    }

    fn settings() -> GameSettings {
        GameSettings {
            size: 9,
            komi_half_points: 15,
            handicap: 0,
            ko_rule: KoRule::Positional,
            clock: ClockSettings::None,
            nigiri: false,
            lateness_limit_ms: None,
            unrated: false,
            event: None,
        }
    }

    #[test]
    fn agreement_needs_white_to_propose_and_black_to_confirm_the_same() {
        let mut table = Table::new(TableId(1), RoomId(1));
        table.sit(Seat::Left, player(1)).unwrap();
        assert_eq!(
            table.propose(UserId(1), settings()).unwrap_err().code,
            ErrorCode::NotYourRole
        );
        assert_eq!(
            table.sit(Seat::Left, player(2)).unwrap_err().code,
            ErrorCode::SeatTaken
        );
        table.sit(Seat::Right, player(2)).unwrap();
        assert_eq!(
            table.confirm(UserId(1), &settings()).unwrap_err().code,
            ErrorCode::ProposalMismatch
        );
        table.propose(UserId(2), settings()).unwrap();
        let mut other = settings();
        other.size = 19;
        assert_eq!(
            table.confirm(UserId(1), &other).unwrap_err().code,
            ErrorCode::ProposalMismatch
        );
        assert_eq!(
            table.confirm(UserId(2), &settings()).unwrap_err().code,
            ErrorCode::NotYourRole
        );
        let (left, right, _) = table.confirm(UserId(1), &settings()).unwrap();
        assert_eq!((left.user, right.user), (UserId(1), UserId(2)));
    }

    #[test]
    fn standing_clears_the_proposal_but_not_during_a_game() {
        let mut table = Table::new(TableId(1), RoomId(1));
        table.sit(Seat::Left, player(1)).unwrap();
        table.sit(Seat::Right, player(2)).unwrap();
        table.propose(UserId(2), settings()).unwrap();
        table.stand(UserId(1)).unwrap();
        assert_eq!(table.proposal, None);
        assert_eq!(
            table.stand(UserId(1)).unwrap_err().code,
            ErrorCode::NotSeated
        );
        table.game = Some(GameId(3));
        assert_eq!(
            table.stand(UserId(2)).unwrap_err().code,
            ErrorCode::GameInProgress
        );
    }

    #[test]
    fn settings_are_range_checked() {
        let mut bad = settings();
        bad.size = 10;
        assert!(validate_settings(&bad).is_err());
        let mut bad = settings();
        bad.clock = ClockSettings::ByoYomi {
            main_time_ms: 0,
            periods: 0,
            period_ms: 30_000,
            timeout_is_pass: false,
        };
        assert!(validate_settings(&bad).is_err());
        assert!(validate_settings(&settings()).is_ok());
    }

    /// The table has no clock limits of its own: it refuses exactly what the clock module refuses, with
    /// the clock's own reason, and accepts what the clock can run.
    #[test]
    fn clock_settings_are_the_clock_modules_to_judge() {
        let with_clock = |clock| GameSettings {
            clock,
            ..settings()
        };
        let too_long = with_clock(ClockSettings::Absolute {
            main_time_ms: crate::clock::TIME_MS_MAX + 1,
        });
        let refusal = validate_settings(&too_long).unwrap_err();
        assert_eq!(refusal.code, ErrorCode::InvalidSettings);
        assert!(refusal.message.contains("main_time_ms"), "{refusal}");
        let many_moves = with_clock(ClockSettings::Canadian {
            main_time_ms: 60_000,
            moves: crate::clock::MOVES_PER_BLOCK_MAX,
            block_ms: 60_000,
        });
        assert_eq!(validate_settings(&many_moves), Ok(()));
    }
}
