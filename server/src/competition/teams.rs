//! Team events (团体赛, docs/competitions.md). The pairing core pairs the *teams* (its entrants are
//! [`TeamId`]s): each paired couple of teams is a match, and each match is `players` boards, one
//! game each, between the two line-ups. This module keeps what the core does not: who is in which
//! team, each round's boards (who plays whom, with which colour, and the result), and the relay.
//!
//! - Colours: on board 1 the home team (the one the core paired as Black) plays Black, on board 2
//!   White, and so on alternating, so each team has Black on half the boards.
//! - Fixed boards (分台定人制): the board order is set once, when round 1 starts, by rating,
//!   strongest on board 1. Free line-up (临场出人制): that order too, unless the captain has set an
//!   order for the next round, which is used once.
//! - All-play-all (全队循环制): two teams, one round per board: in round r the first-seeded team's
//!   board i meets the other team's board i + r − 1 (wrapping round), so after `players` rounds
//!   everyone has met everyone once.
//! - Relay (擂台赛): two teams, one game at a time, each started as soon as the one before ends; the
//!   newcomer plays Black (the first game: the first-seeded team's first player). The relay is the
//!   core's one match between the two teams; its result is recorded there once the relay is
//!   decided.
//! - A match's result goes into the core when its last board ends: more board points (局分) wins it.
//!   A team's bye counts as a match won on every board.

use serde::{Deserialize, Serialize};
use tengen_pairing::team::{
    board_points, match_points, team_standings, BoardOutcome, Relay, RelayState, TeamMatch,
};
use tengen_pairing::{Event, EventOutcome, PlayerId, Round};
use tengen_protocol::{
    ErrorCode, EventId, EventMatch, EventTeam, EventView, LineUp, PlayerInfo, RelayView, TeamId,
    TeamRules, TeamsView, UserId,
};

use super::record::{EventRecord, LogAbout};
use super::{Competitions, Venue};
use crate::config::{EVENT_NAME_CHARS_MAX, TEAM_PLAYERS_MAX};
use crate::{refuse, Refusal};

/// A team event's own state, kept in its event record.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct TeamPlay {
    pub(super) rules: TeamRules,
    teams: Vec<TeamEntry>,
    /// Every board of every round so far.
    boards: Vec<TeamBoard>,
    /// A relay's orders and games (players as account ids).
    #[serde(default)]
    relay: Option<Relay>,
    /// Players the director withdrew: their results stand, and their games from then on are lost
    /// by forfeit without being played (docs/competitions.md).
    #[serde(default)]
    withdrawn: Vec<UserId>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct TeamEntry {
    id: TeamId,
    name: String,
    captain: UserId,
    /// Board order from round 1 on; before it, the order they joined.
    players: Vec<UserId>,
    /// The captain's order for the next round only (free line-up).
    #[serde(default)]
    next_line_up: Option<Vec<UserId>>,
}

/// One board of a round: one game between two players of two teams.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct TeamBoard {
    pub(super) round: u32,
    /// The core's table of the match it belongs to.
    table: u32,
    /// Numbered from 1 across the round's matches.
    pub(super) board: u32,
    pub(super) black: UserId,
    pub(super) white: UserId,
    /// Whether Black plays for the match's home team.
    home_black: bool,
    pub(super) outcome: Option<EventOutcome>,
}

impl TeamPlay {
    /// Checks a team event's rules and the event around them; the core's format for the two-team
    /// ways of play (a round robin of the teams, `players` cycles for all-play-all, one for a relay).
    pub(super) fn new(
        rules: TeamRules,
        format: tengen_pairing::Format,
        teams_max: u32,
    ) -> Result<(TeamPlay, tengen_pairing::Format), Refusal> {
        if !(1..=TEAM_PLAYERS_MAX).contains(&rules.players) {
            return refuse(
                ErrorCode::InvalidSettings,
                format!("a team has 1 to {TEAM_PLAYERS_MAX} players"),
            );
        }
        let two_teams = matches!(rules.line_up, LineUp::AllPlayAll | LineUp::Relay);
        if two_teams && teams_max != 2 {
            return refuse(
                ErrorCode::InvalidSettings,
                "an all-play-all or a relay is between two teams: set players_max to 2",
            );
        }
        let format = match rules.line_up {
            LineUp::AllPlayAll => tengen_pairing::Format::RoundRobin {
                cycles: rules.players,
            },
            LineUp::Relay => tengen_pairing::Format::RoundRobin { cycles: 1 },
            _ if matches!(format, tengen_pairing::Format::Match { .. }) => {
                return refuse(
                    ErrorCode::InvalidSettings,
                    "teams are paired by knockout, round robin or Swiss, not a best-of match",
                )
            }
            _ => format,
        };
        let play = TeamPlay {
            rules,
            teams: Vec::new(),
            boards: Vec::new(),
            relay: None,
            withdrawn: Vec::new(),
        };
        Ok((play, format))
    }

    pub(super) fn has_player(&self, user: UserId) -> bool {
        self.team_of(user).is_some()
    }

    fn team_of(&self, user: UserId) -> Option<&TeamEntry> {
        self.teams.iter().find(|t| t.players.contains(&user))
    }

    fn team(&self, id: TeamId) -> Result<&TeamEntry, Refusal> {
        self.teams
            .iter()
            .find(|t| t.id == id)
            .ok_or_else(|| Refusal::new(ErrorCode::BadMessage, format!("no team {}", id.0)))
    }

    fn team_mut(&mut self, id: TeamId) -> Option<&mut TeamEntry> {
        self.teams.iter_mut().find(|t| t.id == id)
    }

    pub(super) fn teams_count(&self) -> usize {
        self.teams.len()
    }

    /// `user` leaves their team; the team goes when it is empty (its id is then returned, for the
    /// core to forget), and the next player captains it when its captain left.
    pub(super) fn leave(&mut self, user: UserId) -> Option<TeamId> {
        let team = self.teams.iter_mut().find(|t| t.players.contains(&user))?;
        team.players.retain(|&p| p != user);
        if team.captain == user {
            if let Some(&next) = team.players.first() {
                team.captain = next;
            }
        }
        let id = team.id;
        if team.players.is_empty() {
            self.teams.retain(|t| t.id != id);
            return Some(id);
        }
        None
    }

    /// Before round 1: every team complete, then each team's board order by rating (strongest
    /// first), and the teams' seeding by their players' total rating.
    pub(super) fn prepare_round_one(
        &mut self,
        players: &[PlayerInfo],
    ) -> Result<Vec<TeamId>, Refusal> {
        let size = self.rules.players as usize;
        if let Some(team) = self.teams.iter().find(|t| t.players.len() != size) {
            return refuse(
                ErrorCode::TeamSize,
                format!(
                    "team {:?} has {} of its {size} players: every team must be complete",
                    team.name,
                    team.players.len()
                ),
            );
        }
        let rating = |user: &UserId| {
            players
                .iter()
                .find(|p| p.user == *user)
                .map_or(0, |p| i64::from(p.rating))
        };
        for team in &mut self.teams {
            team.players.sort_by_key(|u| std::cmp::Reverse(rating(u)));
        }
        let mut seeded: Vec<(i64, TeamId)> = self
            .teams
            .iter()
            .map(|t| (t.players.iter().map(rating).sum(), t.id))
            .collect();
        seeded.sort_by_key(|&(total, id)| (std::cmp::Reverse(total), id));
        Ok(seeded.into_iter().map(|(_, id)| id).collect())
    }

    /// The director withdraws `user` from the event, after round 1 has started.
    pub(super) fn withdraw(&mut self, user: UserId) -> Result<(), Refusal> {
        if self.team_of(user).is_none() {
            return refuse(
                ErrorCode::NotEntered,
                "that player is in no team of this event",
            );
        }
        if !self.withdrawn.contains(&user) {
            self.withdrawn.push(user);
        }
        Ok(())
    }

    /// A board's result decided before play: a withdrawn player's game is lost by forfeit (both
    /// lose when both are withdrawn).
    fn forfeit(&self, black: UserId, white: UserId) -> Option<EventOutcome> {
        let out = |user| self.withdrawn.contains(&user);
        match (out(black), out(white)) {
            (true, true) => Some(EventOutcome::BothLose),
            (true, false) => Some(EventOutcome::WhiteWins),
            (false, true) => Some(EventOutcome::BlackWins),
            (false, false) => None,
        }
    }

    /// The boards of a newly paired round (for a relay: its first game). Returns the matches
    /// already decided, every board forfeited (table and result, for the core).
    pub(super) fn lay_out(
        &mut self,
        round: &Round,
        first_seed: Option<TeamId>,
    ) -> Vec<(u32, EventOutcome)> {
        if self.rules.line_up == LineUp::Relay {
            return self.start_relay(round).into_iter().collect();
        }
        let mut number = 0;
        for game in &round.games {
            let (home, away) = (TeamId(game.black.0), TeamId(game.white.0));
            let home_players = self.line_up(home);
            let mut away_players = self.line_up(away);
            if self.rules.line_up == LineUp::AllPlayAll && !away_players.is_empty() {
                // Rotate the second seed's order, whichever side it plays this round.
                let shift = (round.number as usize - 1) % away_players.len();
                if Some(home) == first_seed {
                    away_players.rotate_left(shift);
                } else {
                    away_players.rotate_right(shift);
                }
            }
            for (i, (&h, &a)) in home_players.iter().zip(&away_players).enumerate() {
                number += 1;
                let home_black = i % 2 == 0;
                let (black, white) = if home_black { (h, a) } else { (a, h) };
                self.boards.push(TeamBoard {
                    round: round.number,
                    table: game.table,
                    board: number,
                    black,
                    white,
                    home_black,
                    outcome: self.forfeit(black, white),
                });
            }
        }
        round
            .games
            .iter()
            .filter_map(|game| Some((game.table, self.match_decided(round.number, game.table)?)))
            .collect()
    }

    /// A match's result once every board of it has one.
    fn match_decided(&self, round: u32, table: u32) -> Option<EventOutcome> {
        let boards: Vec<&TeamBoard> = self.match_boards(round, table).collect();
        if boards.is_empty() || boards.iter().any(|b| b.outcome.is_none()) {
            return None;
        }
        let outcomes: Vec<BoardOutcome> = boards.iter().map(|b| home_outcome(b)).collect();
        Some(match_outcome(&outcomes))
    }

    /// A team's order for this round: the captain's, used once, else its board order.
    fn line_up(&mut self, id: TeamId) -> Vec<UserId> {
        match self.team_mut(id) {
            Some(team) => team
                .next_line_up
                .take()
                .unwrap_or_else(|| team.players.clone()),
            None => Vec::new(),
        }
    }

    fn start_relay(&mut self, round: &Round) -> Option<(u32, EventOutcome)> {
        let game = round.games.first()?;
        let order = |id: u64| {
            self.teams
                .iter()
                .find(|t| t.id.0 == id)
                .map(|t| t.players.iter().map(|u| PlayerId(u.0)).collect::<Vec<_>>())
                .unwrap_or_default()
        };
        match Relay::new(order(game.black.0), order(game.white.0)) {
            Ok(relay) => self.relay = Some(relay),
            Err(err) => tracing::error!(%err, "a relay's teams were refused"),
        }
        self.next_relay_game(round.number, game.table)
    }

    /// Lays out the relay's next game as a new board, if the relay goes on; a withdrawn player's
    /// game is forfeited at once and the relay moves on. Returns the relay's result once decided.
    fn next_relay_game(&mut self, round: u32, table: u32) -> Option<(u32, EventOutcome)> {
        let relay = self.relay.as_mut()?;
        let stayer = relay.games.last().and_then(|g| match g.outcome {
            Some(BoardOutcome::HomeWins) => Some(true),
            Some(BoardOutcome::AwayWins) => Some(false),
            _ => None,
        });
        let (home, away) = relay.start_next().ok()?;
        // The newcomer plays Black; in the first game (or after both went out) the home side does.
        let home_black = stayer != Some(true);
        let (home, away) = (UserId(home.0), UserId(away.0));
        let (black, white) = if home_black {
            (home, away)
        } else {
            (away, home)
        };
        let board = self.boards.iter().filter(|b| b.round == round).count() as u32 + 1;
        let forfeit = self.forfeit(black, white);
        self.boards.push(TeamBoard {
            round,
            table,
            board,
            black,
            white,
            home_black,
            outcome: None,
        });
        // Each forfeit puts a player out, so this recursion ends with the relay.
        self.record(round, board, forfeit?)
    }

    /// A board's result. Returns the match's table and result for the core once the match is
    /// decided (every board in, or the relay over).
    pub(super) fn record(
        &mut self,
        round: u32,
        board: u32,
        outcome: EventOutcome,
    ) -> Option<(u32, EventOutcome)> {
        let entry = self
            .boards
            .iter_mut()
            .find(|b| (b.round, b.board) == (round, board) && b.outcome.is_none())?;
        entry.outcome = Some(outcome);
        let (table, side_outcome) = (entry.table, home_outcome(entry));
        if self.rules.line_up == LineUp::Relay {
            return self.relay_recorded(round, table, side_outcome);
        }
        Some((table, self.match_decided(round, table)?))
    }

    fn relay_recorded(
        &mut self,
        round: u32,
        table: u32,
        outcome: BoardOutcome,
    ) -> Option<(u32, EventOutcome)> {
        let state = self.relay.as_mut()?.record(outcome).ok()?;
        match state {
            RelayState::Won { side } => Some((
                table,
                match side {
                    tengen_pairing::team::Side::Home => EventOutcome::BlackWins,
                    tengen_pairing::team::Side::Away => EventOutcome::WhiteWins,
                },
            )),
            RelayState::Drawn => Some((table, EventOutcome::Draw)),
            RelayState::Next { .. } | RelayState::Playing { .. } => {
                self.next_relay_game(round, table)
            }
        }
    }

    fn match_boards(&self, round: u32, table: u32) -> impl Iterator<Item = &TeamBoard> {
        self.boards
            .iter()
            .filter(move |b| b.round == round && b.table == table)
    }

    /// The boards of round `round`.
    pub(super) fn round_boards(&self, round: u32) -> impl Iterator<Item = &TeamBoard> {
        self.boards.iter().filter(move |b| b.round == round)
    }

    pub(super) fn board(&self, round: u32, board: u32) -> Option<&TeamBoard> {
        self.boards
            .iter()
            .find(|b| (b.round, b.board) == (round, board))
    }

    /// What the event page shows of the teams.
    pub(super) fn view(&self, event: &Event) -> TeamsView {
        let teams = self
            .teams
            .iter()
            .map(|t| EventTeam {
                team: t.id,
                name: t.name.clone(),
                captain: t.captain,
                players: t.players.clone(),
                next_line_up: t.next_line_up.clone(),
            })
            .collect();
        let matches = self.matches(event);
        let standings = self.standings(event);
        let relay = self.relay.as_ref().map(|r| RelayView {
            home: r.home.iter().map(|p| UserId(p.0)).collect(),
            away: r.away.iter().map(|p| UserId(p.0)).collect(),
            state: r.state(),
        });
        let winner = event.winner().map(|p| TeamId(p.0));
        TeamsView {
            rules: self.rules,
            teams,
            matches,
            standings,
            relay,
            winner,
        }
    }

    fn matches(&self, event: &Event) -> Vec<EventMatch> {
        let mut matches = Vec::new();
        for round in event.rounds() {
            for game in &round.games {
                let boards: Vec<&TeamBoard> = self.match_boards(round.number, game.table).collect();
                let outcomes: Vec<BoardOutcome> = boards
                    .iter()
                    .filter(|b| b.outcome.is_some())
                    .map(|b| home_outcome(b))
                    .collect();
                let (h, a) = board_points(&outcomes);
                let decided = game.outcome.is_some();
                matches.push(EventMatch {
                    round: round.number,
                    home: TeamId(game.black.0),
                    away: TeamId(game.white.0),
                    boards: boards.iter().map(|b| b.board).collect(),
                    board_points: [h, a],
                    match_points: decided.then(|| {
                        let (h, a) = match_points(&outcomes);
                        [h, a]
                    }),
                });
            }
        }
        matches
    }

    /// The competition rules' team ranking (docs/competitions.md) over the decided matches; a bye counts as a match won on every
    /// board. A relay is its one match, each of its games a board, so its board points are the
    /// games each side won (as its match line shows them) and the side that won the relay, having
    /// put out every opponent, has more of them.
    fn standings(&self, event: &Event) -> Vec<tengen_protocol::TeamStanding> {
        let ids: Vec<TeamId> = self.teams.iter().map(|t| t.id).collect();
        let mut board_count = self.rules.players as usize;
        let mut matches = Vec::new();
        for round in event.rounds() {
            for game in round.games.iter().filter(|g| g.outcome.is_some()) {
                let boards: Vec<BoardOutcome> = self
                    .match_boards(round.number, game.table)
                    .map(home_outcome)
                    .collect();
                if self.rules.line_up == LineUp::Relay {
                    board_count = boards.len();
                }
                matches.push(TeamMatch {
                    home: TeamId(game.black.0),
                    away: TeamId(game.white.0),
                    boards,
                });
            }
            for bye in &round.byes {
                matches.push(TeamMatch {
                    home: TeamId(bye.0),
                    away: TeamId(0),
                    boards: vec![BoardOutcome::HomeWins; board_count],
                });
            }
        }
        team_standings(&ids, board_count, &matches).unwrap_or_else(|err| {
            tracing::error!(%err, "team standings could not be computed");
            Vec::new()
        })
    }
}

/// A board's result from the home team's side.
fn home_outcome(board: &TeamBoard) -> BoardOutcome {
    match (board.outcome, board.home_black) {
        (Some(EventOutcome::BlackWins), true) | (Some(EventOutcome::WhiteWins), false) => {
            BoardOutcome::HomeWins
        }
        (Some(EventOutcome::BlackWins), false) | (Some(EventOutcome::WhiteWins), true) => {
            BoardOutcome::AwayWins
        }
        (Some(EventOutcome::Draw), _) => BoardOutcome::Draw,
        (Some(EventOutcome::BothLose), _) | (None, _) => BoardOutcome::BothLose,
    }
}

/// A match's result for the core (home as Black): the side with more board points wins it.
fn match_outcome(boards: &[BoardOutcome]) -> EventOutcome {
    let (h, a) = board_points(boards);
    match h.cmp(&a) {
        std::cmp::Ordering::Greater => EventOutcome::BlackWins,
        std::cmp::Ordering::Less => EventOutcome::WhiteWins,
        std::cmp::Ordering::Equal => EventOutcome::Draw,
    }
}

impl Competitions {
    /// A player founds a team of an open team event, and captains it.
    pub(super) async fn create_team(
        &mut self,
        id: EventId,
        player: PlayerInfo,
        name: String,
        venue: &mut dyn Venue,
    ) -> Result<EventView, Refusal> {
        let name = name.trim().to_string();
        let chars = name.chars().count();
        if chars == 0 || chars > EVENT_NAME_CHARS_MAX || name.chars().any(char::is_control) {
            return refuse(
                ErrorCode::InvalidSettings,
                format!("a team's name is 1 to {EVENT_NAME_CHARS_MAX} characters"),
            );
        }
        let mut record = self.open_team_event(id, &player)?;
        let teams_max = record.teams_max();
        let teams = record.teams_mut()?;
        if teams.teams.len() >= teams_max {
            return refuse(
                ErrorCode::EventFull,
                "the event has as many teams as it takes",
            );
        }
        if teams.teams.iter().any(|t| t.name == name) {
            return refuse(ErrorCode::InvalidSettings, "another team has that name");
        }
        let team = TeamId(teams.teams.iter().map(|t| t.id.0).max().unwrap_or(0) + 1);
        teams.teams.push(TeamEntry {
            id: team,
            name,
            captain: player.user,
            players: vec![player.user],
            next_line_up: None,
        });
        let founder = player.user;
        record.enter_team(team, player)?;
        record.note_with("team_created", Some(founder), None, LogAbout::team(team));
        self.save_event(id, record, venue).await
    }

    /// A player joins a team of an open team event.
    pub(super) async fn join_team(
        &mut self,
        id: EventId,
        player: PlayerInfo,
        team: TeamId,
        venue: &mut dyn Venue,
    ) -> Result<EventView, Refusal> {
        let mut record = self.open_team_event(id, &player)?;
        let teams = record.teams_mut()?;
        let size = teams.rules.players as usize;
        if teams.team(team)?.players.len() >= size {
            return refuse(ErrorCode::EventFull, "the team is full");
        }
        if let Some(entry) = teams.team_mut(team) {
            entry.players.push(player.user);
        }
        let user = player.user;
        record.add_player(player);
        record.note_with("team_joined", Some(user), None, LogAbout::team(team));
        self.save_event(id, record, venue).await
    }

    /// A captain sets the board order of their team's next match (free line-up).
    pub(super) async fn set_line_up(
        &mut self,
        id: EventId,
        captain: UserId,
        players: Vec<UserId>,
        venue: &mut dyn Venue,
    ) -> Result<EventView, Refusal> {
        let mut record = self.event_record(id)?.clone();
        if record.is_over() {
            return refuse(ErrorCode::EventOver, "the event is over");
        }
        let teams = record.teams_mut()?;
        if teams.rules.line_up != LineUp::FreeLineUp {
            return refuse(
                ErrorCode::InvalidSettings,
                "only a free line-up event takes a line-up for each match",
            );
        }
        let team = match teams.team_of(captain) {
            Some(team) if team.captain == captain => team,
            _ => {
                return refuse(
                    ErrorCode::NotCaptain,
                    "only a team's captain sets its line-up",
                )
            }
        };
        let mut given = players.clone();
        let mut own = team.players.clone();
        given.sort();
        own.sort();
        if given != own {
            return refuse(
                ErrorCode::TeamSize,
                format!(
                    "a line-up names each of the team's {} players once",
                    own.len()
                ),
            );
        }
        let team = team.id;
        if let Some(entry) = teams.team_mut(team) {
            entry.next_line_up = Some(players);
        }
        record.note_with("line_up_set", Some(captain), None, LogAbout::team(team));
        self.save_event(id, record, venue).await
    }

    /// A copy of team event `id`, open for entries, that `player` may enter (in range, in no team).
    fn open_team_event(&self, id: EventId, player: &PlayerInfo) -> Result<EventRecord, Refusal> {
        let record = self.event_record(id)?.clone();
        record.check_entry(player)?;
        if record
            .team_play()
            .is_some_and(|t| t.team_of(player.user).is_some())
        {
            return refuse(
                ErrorCode::InvalidSettings,
                "you are in a team of this event already",
            );
        }
        Ok(record)
    }
}
