//! Team events' pure parts (团体赛): board points (局分) and match points (场分), the team ranking, and
//! the relay (擂台赛).
//!
//! Each board of a team match scores as an individual game: 2 for a win, 1 each for a draw, 0 for a
//! loss (both players forfeiting scores 0 each). The team with more board points wins the match: 2
//! match points, a drawn match 1 each, a lost one 0 (docs/competitions.md). Teams rank by match points, then board
//! points, then board 1's points, board 2's, and so on; a tie on all of them stands (shared rank).
//!
//! In a relay each side sets its order; one game at a time; the loser is out and the winner stays to
//! meet the other side's next player; the side whose last player loses has lost. A drawn game (only
//! possible with integral komi) puts both players out, a choice the rules leave open: it keeps the
//! relay finite and treats both sides alike; if that empties both sides at once, the relay is drawn.

use crate::event::PlayerId;
use crate::tally::{DRAW_POINTS, WIN_POINTS};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use thiserror::Error;

/// A team as the server knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TeamId(pub u64);

/// The two sides of a team match or a relay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Home,
    Away,
}

/// How one board (or one relay game) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoardOutcome {
    HomeWins,
    AwayWins,
    Draw,
    BothLose,
}

/// Why a team request was refused; nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TeamError {
    #[error("teams must have the same number of players ({home} against {away})")]
    UnequalTeams { home: usize, away: usize },
    #[error("a team needs at least one player")]
    EmptyTeam,
    #[error("player {0} appears twice")]
    DuplicatePlayer(PlayerId),
    #[error("a match has {expected} boards, not {got}")]
    WrongBoards { expected: usize, got: usize },
    #[error("no relay game is being played")]
    NoGameInProgress,
    #[error("a relay game is still being played")]
    GameInProgress,
    #[error("the relay is decided")]
    Decided,
}

/// Board points (局分) of each side: (home, away).
pub fn board_points(boards: &[BoardOutcome]) -> (u32, u32) {
    boards.iter().fold((0, 0), |(h, a), board| match board {
        BoardOutcome::HomeWins => (h + WIN_POINTS, a),
        BoardOutcome::AwayWins => (h, a + WIN_POINTS),
        BoardOutcome::Draw => (h + DRAW_POINTS, a + DRAW_POINTS),
        BoardOutcome::BothLose => (h, a),
    })
}

/// Match points (场分) of each side: 2 to the side with more board points, 1 each when level.
pub fn match_points(boards: &[BoardOutcome]) -> (u32, u32) {
    let (h, a) = board_points(boards);
    match h.cmp(&a) {
        std::cmp::Ordering::Greater => (WIN_POINTS, 0),
        std::cmp::Ordering::Less => (0, WIN_POINTS),
        std::cmp::Ordering::Equal => (DRAW_POINTS, DRAW_POINTS),
    }
}

/// One team match: the teams and each board's outcome, board 1 first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamMatch {
    pub home: TeamId,
    pub away: TeamId,
    pub boards: Vec<BoardOutcome>,
}

/// A team's line in the standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamStanding {
    pub rank: u32,
    pub team: TeamId,
    pub matches: u32,
    pub match_points: u32,
    pub board_points: u32,
    /// Points won on each board, board 1 first.
    pub board_points_by_board: Vec<u32>,
    pub tied: bool,
}

/// Team standings over `matches` of teams of `board_count` players: match points, board points, then
/// board 1, board 2, ... Every match must have `board_count` boards.
pub fn team_standings(
    teams: &[TeamId],
    board_count: usize,
    matches: &[TeamMatch],
) -> Result<Vec<TeamStanding>, TeamError> {
    if let Some(m) = matches.iter().find(|m| m.boards.len() != board_count) {
        return Err(TeamError::WrongBoards {
            expected: board_count,
            got: m.boards.len(),
        });
    }
    let mut rows: Vec<TeamStanding> = teams
        .iter()
        .map(|&team| TeamStanding {
            rank: 0,
            team,
            matches: 0,
            match_points: 0,
            board_points: 0,
            board_points_by_board: vec![0; board_count],
            tied: false,
        })
        .collect();
    for m in matches {
        let (home_mp, away_mp) = match_points(&m.boards);
        for (team, side, points) in [(m.home, Side::Home, home_mp), (m.away, Side::Away, away_mp)] {
            if let Some(row) = rows.iter_mut().find(|r| r.team == team) {
                add_match(row, side, points, &m.boards);
            }
        }
    }
    rank_teams(&mut rows);
    Ok(rows)
}

fn add_match(row: &mut TeamStanding, side: Side, points: u32, boards: &[BoardOutcome]) {
    row.matches += 1;
    row.match_points += points;
    for (board, outcome) in row.board_points_by_board.iter_mut().zip(boards) {
        let (h, a) = board_points(std::slice::from_ref(outcome));
        let own = if side == Side::Home { h } else { a };
        *board += own;
        row.board_points += own;
    }
}

fn rank_teams(rows: &mut [TeamStanding]) {
    let key = |r: &TeamStanding| {
        (
            std::cmp::Reverse(r.match_points),
            std::cmp::Reverse(r.board_points),
            r.board_points_by_board
                .iter()
                .map(|&p| std::cmp::Reverse(p))
                .collect::<Vec<_>>(),
        )
    };
    rows.sort_by_key(|r| (key(r), r.team));
    for i in 0..rows.len() {
        let same_as_previous = i > 0 && rows.get(i - 1).map(key) == rows.get(i).map(key);
        let same_as_next = rows.get(i + 1).map(key) == rows.get(i).map(key);
        let previous_rank = if i > 0 {
            rows.get(i - 1).map_or(0, |p| p.rank)
        } else {
            0
        };
        if let Some(row) = rows.get_mut(i) {
            row.rank = if same_as_previous {
                previous_rank
            } else {
                i as u32 + 1
            };
            row.tied = same_as_previous || same_as_next;
        }
    }
}

/// Checks two line-ups: equal sizes, at least one player, nobody twice.
pub fn check_line_ups(home: &[PlayerId], away: &[PlayerId]) -> Result<(), TeamError> {
    if home.len() != away.len() {
        return Err(TeamError::UnequalTeams {
            home: home.len(),
            away: away.len(),
        });
    }
    if home.is_empty() {
        return Err(TeamError::EmptyTeam);
    }
    let mut seen = BTreeSet::new();
    match home.iter().chain(away).find(|p| !seen.insert(**p)) {
        Some(&p) => Err(TeamError::DuplicatePlayer(p)),
        None => Ok(()),
    }
}

/// One relay game: the two players and, once over, the outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelayGame {
    pub home: PlayerId,
    pub away: PlayerId,
    pub outcome: Option<BoardOutcome>,
}

/// Where a relay stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum RelayState {
    /// These two play next.
    Next {
        home: PlayerId,
        away: PlayerId,
    },
    /// This game is being played.
    Playing {
        home: PlayerId,
        away: PlayerId,
    },
    Won {
        side: Side,
    },
    Drawn,
}

/// A relay (擂台赛): each side's order and the games so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Relay {
    pub home: Vec<PlayerId>,
    pub away: Vec<PlayerId>,
    pub games: Vec<RelayGame>,
}

impl Relay {
    pub fn new(home: Vec<PlayerId>, away: Vec<PlayerId>) -> Result<Relay, TeamError> {
        check_line_ups(&home, &away)?;
        Ok(Relay {
            home,
            away,
            games: Vec::new(),
        })
    }

    /// How many players of each side are out: (home, away).
    fn out(&self) -> (usize, usize) {
        self.games
            .iter()
            .filter_map(|g| g.outcome)
            .fold((0, 0), |(h, a), outcome| match outcome {
                BoardOutcome::HomeWins => (h, a + 1),
                BoardOutcome::AwayWins => (h + 1, a),
                BoardOutcome::Draw | BoardOutcome::BothLose => (h + 1, a + 1),
            })
    }

    pub fn state(&self) -> RelayState {
        if let Some(g) = self.games.last().filter(|g| g.outcome.is_none()) {
            return RelayState::Playing {
                home: g.home,
                away: g.away,
            };
        }
        let (h, a) = self.out();
        match (self.home.get(h), self.away.get(a)) {
            (Some(&home), Some(&away)) => RelayState::Next { home, away },
            (Some(_), None) => RelayState::Won { side: Side::Home },
            (None, Some(_)) => RelayState::Won { side: Side::Away },
            (None, None) => RelayState::Drawn,
        }
    }

    /// Starts the next game and returns its players.
    pub fn start_next(&mut self) -> Result<(PlayerId, PlayerId), TeamError> {
        match self.state() {
            RelayState::Next { home, away } => {
                self.games.push(RelayGame {
                    home,
                    away,
                    outcome: None,
                });
                Ok((home, away))
            }
            RelayState::Playing { .. } => Err(TeamError::GameInProgress),
            RelayState::Won { .. } | RelayState::Drawn => Err(TeamError::Decided),
        }
    }

    /// Records the game being played.
    pub fn record(&mut self, outcome: BoardOutcome) -> Result<RelayState, TeamError> {
        let game = self
            .games
            .last_mut()
            .filter(|g| g.outcome.is_none())
            .ok_or(TeamError::NoGameInProgress)?;
        game.outcome = Some(outcome);
        Ok(self.state())
    }
}
