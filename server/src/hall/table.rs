//! One table's seats and settings agreement, as pure state transitions the hall actor applies: who may
//! sit, stand, propose and confirm, and what each does to the table. No I/O and no channels here.

use tengen_protocol::{
    ClockSettings, ErrorCode, GameId, GameSettings, PlayerInfo, RoomId, Seat, TableId, TableInfo,
    UserId,
};

use crate::Refusal;

/// Longest main time or period a clock may ask for: a day, far beyond any real game, so arithmetic on
/// clock values never overflows.
const CLOCK_MS_MAX: u64 = 24 * 60 * 60 * 1000;

/// Most byo-yomi periods or moves per Canadian block: generous, and keeps the clock display sane.
const CLOCK_COUNT_MAX: u32 = 100;

/// Largest komi in half points either way (±150 points): beyond any handicap compensation in use.
const KOMI_HALF_POINTS_MAX: i32 = 300;

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
}

fn refuse(code: ErrorCode, message: impl Into<String>) -> Refusal {
    Refusal::new(code, message)
}

/// Check the settings a player proposes, ending with the rules engine's own check (a handicap must fit
/// the board's star points), so a proposal that is accepted always starts.
pub fn validate_settings(settings: &GameSettings) -> Result<(), Refusal> {
    if !matches!(settings.size, 9 | 13 | 19) {
        return Err(refuse(
            ErrorCode::InvalidSettings,
            "board size must be 9, 13 or 19",
        ));
    }
    if settings.komi_half_points.abs() > KOMI_HALF_POINTS_MAX {
        return Err(refuse(ErrorCode::InvalidSettings, "komi is out of range"));
    }
    if settings.handicap > 9 {
        return Err(refuse(
            ErrorCode::InvalidSettings,
            "handicap is at most 9 stones",
        ));
    }
    let clock_ok = match settings.clock {
        ClockSettings::None => true,
        ClockSettings::Absolute { main_time_ms } => {
            main_time_ms > 0 && main_time_ms <= CLOCK_MS_MAX
        }
        ClockSettings::ByoYomi {
            main_time_ms,
            periods,
            period_ms,
            ..
        } => {
            main_time_ms <= CLOCK_MS_MAX
                && (1..=CLOCK_COUNT_MAX).contains(&periods)
                && period_ms > 0
                && period_ms <= CLOCK_MS_MAX
        }
        ClockSettings::Canadian {
            main_time_ms,
            moves,
            block_ms,
        } => {
            main_time_ms <= CLOCK_MS_MAX
                && (1..=CLOCK_COUNT_MAX).contains(&moves)
                && block_ms > 0
                && block_ms <= CLOCK_MS_MAX
        }
        ClockSettings::Fischer {
            main_time_ms,
            increment_ms,
            max_time_ms,
        } => {
            main_time_ms > 0
                && main_time_ms <= max_time_ms
                && increment_ms <= CLOCK_MS_MAX
                && max_time_ms <= CLOCK_MS_MAX
        }
    };
    if !clock_ok {
        return Err(refuse(
            ErrorCode::InvalidSettings,
            "clock settings are out of range",
        ));
    }
    crate::game::wire::clock_settings(&settings.clock)?;
    crate::game::wire::new_engine_game(settings).map(|_| ())
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
            return Err(refuse(
                ErrorCode::SeatTaken,
                format!("the {side} seat is taken"),
            ));
        }
        *place = Some(player);
        // A proposal was made to someone else; the newcomer has not seen it.
        self.proposal = None;
        Ok(())
    }

    /// Get `user` up from their seat (not during a game at this table).
    pub fn stand(&mut self, user: UserId) -> Result<(), Refusal> {
        let seat = self
            .seat_of(user)
            .ok_or_else(|| refuse(ErrorCode::NotSeated, "you do not sit at this table"))?;
        if self.game.is_some() {
            return Err(refuse(
                ErrorCode::GameInProgress,
                "a game is in progress at this table; resign to leave it",
            ));
        }
        *self.seat_mut(seat) = None;
        self.proposal = None;
        Ok(())
    }

    fn ready_for_settings(&self) -> Result<(), Refusal> {
        if self.game.is_some() {
            return Err(refuse(
                ErrorCode::GameInProgress,
                "a game is in progress at this table",
            ));
        }
        if self.left.is_none() || self.right.is_none() {
            return Err(refuse(
                ErrorCode::TableNotFull,
                "both seats must be taken first",
            ));
        }
        Ok(())
    }

    /// White (the right seat) proposes the next game's settings.
    pub fn propose(&mut self, user: UserId, settings: GameSettings) -> Result<(), Refusal> {
        if self.seat_of(user) != Some(Seat::Right) {
            return Err(refuse(
                ErrorCode::NotYourRole,
                "only the right seat (White) proposes settings",
            ));
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
            return Err(refuse(
                ErrorCode::NotYourRole,
                "only the left seat (Black) confirms settings",
            ));
        }
        self.ready_for_settings()?;
        match self.proposal {
            Some(proposal) if proposal == *settings => {}
            Some(_) => {
                return Err(refuse(
                    ErrorCode::ProposalMismatch,
                    "the proposal changed; confirm the current one",
                ))
            }
            None => {
                return Err(refuse(
                    ErrorCode::ProposalMismatch,
                    "nothing has been proposed",
                ))
            }
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
}
