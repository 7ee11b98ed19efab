//! An event as the store keeps it ([`EventRecord`]: the pairing core's `Event` plus who the players
//! are, which game each board is, the director's warnings and the log), and the pure rules over
//! it: entry, seeding, the boards of a round, recording a board's result, withdrawing and warning,
//! the summary and the view. No I/O here: the competitions store a changed record before anyone
//! hears of it.

use serde::{Deserialize, Serialize};
use tengen_pairing::{Event, EventError, EventOutcome, PlayerId};
use tengen_protocol::{
    Color, EndReason, ErrorCode, EventBoard, EventEntrant, EventId, EventLogEntry, EventRound,
    EventStatus, EventSummary, EventView, GameId, GameOutcome, GameSettings, PlayerInfo, RankRange,
    TeamId, UserId,
};

use super::teams::TeamPlay;
use crate::config::EVENT_LOG_MAX;
use crate::{refuse, unix_now_ms, Refusal};

/// An event as the store keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct EventRecord {
    pub(super) name: String,
    pub(super) director: PlayerInfo,
    /// Every game's settings.
    pub(super) settings: GameSettings,
    pub(super) players_max: u32,
    /// Who may enter, by rank.
    #[serde(default)]
    pub(super) ranks: Option<RankRange>,
    /// Who each entrant is (names and ranks as they entered).
    pub(super) players: Vec<PlayerInfo>,
    pub(super) event: Event,
    /// The game played on each board: `(round, board, game)`.
    pub(super) games: Vec<(u32, u32, GameId)>,
    /// The director's warnings given during a game: `(game, user)`, one entry per warning.
    #[serde(default)]
    pub(super) game_warnings: Vec<(GameId, UserId)>,
    pub(super) log: Vec<EventLogEntry>,
    /// A team event's teams and boards (its core's entrants are the teams).
    #[serde(default)]
    pub(super) teams: Option<TeamPlay>,
    /// When rounds start by themselves, round 1 first (see `EventSpec::round_starts_ms`).
    #[serde(default)]
    pub(super) round_starts_ms: Vec<u64>,
}

/// What a line of an event's log concerns besides its user and round (see `EventLogEntry`).
#[derive(Debug, Default)]
pub(super) struct LogAbout {
    pub(super) game: Option<GameId>,
    pub(super) team: Option<TeamId>,
    pub(super) until_ms: Option<u64>,
    /// The director's reason.
    pub(super) reason: Option<String>,
}

impl LogAbout {
    pub(super) fn team(team: TeamId) -> LogAbout {
        LogAbout {
            team: Some(team),
            ..LogAbout::default()
        }
    }
}

/// One board of a round as it is played, for individual and team events alike.
#[derive(Debug, Clone, Copy)]
pub(super) struct BoardLine {
    pub(super) board: u32,
    pub(super) black: UserId,
    pub(super) white: UserId,
    pub(super) outcome: Option<EventOutcome>,
}

/// Where a live game of an event sits in it.
pub(super) type BoardOf = (EventId, u32, u32);

/// A game's outcome as the event scores it: a void game (nobody played, or both absent) is lost by
/// both players, as the rules score a game both players missed.
pub(super) fn event_outcome(outcome: &GameOutcome) -> EventOutcome {
    match (outcome.winner, outcome.reason) {
        (Some(Color::Black), _) => EventOutcome::BlackWins,
        (Some(Color::White), _) => EventOutcome::WhiteWins,
        (None, EndReason::Void) => EventOutcome::BothLose,
        (None, _) => EventOutcome::Draw,
    }
}

/// An event's entry range as rank indexes (weakest, strongest), checked.
pub(super) fn entry_ranks(ranks: Option<&RankRange>) -> Result<Option<(i32, i32)>, Refusal> {
    let Some(range) = ranks else {
        return Ok(None);
    };
    let parse = |text: &str| {
        crate::rating::parse_rank(text).ok_or_else(|| {
            Refusal::new(
                ErrorCode::InvalidSettings,
                format!("{text:?} is not a rank (30k to 1k, 1d to 9d)"),
            )
        })
    };
    let (weakest, strongest) = (parse(&range.weakest)?, parse(&range.strongest)?);
    if weakest > strongest {
        return refuse(
            ErrorCode::InvalidSettings,
            "the weakest rank of the entry range is above its strongest",
        );
    }
    Ok(Some((weakest, strongest)))
}

/// The outcome in which `colour` loses.
pub(super) fn loss_of(colour: Color) -> EventOutcome {
    match colour {
        Color::Black => EventOutcome::WhiteWins,
        Color::White => EventOutcome::BlackWins,
    }
}

pub(super) fn event_refusal(err: EventError) -> Refusal {
    let code = match err {
        EventError::Started => ErrorCode::EventStarted,
        EventError::Over => ErrorCode::EventOver,
        EventError::RoundUnfinished { .. } => ErrorCode::RoundInPlay,
        EventError::NotEntered(_) => ErrorCode::NotEntered,
        EventError::TooManyPlayers { .. } => ErrorCode::EventFull,
        EventError::TooFewPlayers { .. } | EventError::InvalidFormat(_) => {
            ErrorCode::InvalidSettings
        }
        _ => ErrorCode::BadMessage,
    };
    Refusal::new(code, err.to_string())
}

impl EventRecord {
    pub(super) fn json(&self) -> Result<String, Refusal> {
        serde_json::to_string(self).map_err(|err| {
            tracing::error!(%err, "an event record did not serialize");
            Refusal::new(
                ErrorCode::Internal,
                "the server could not do that; nothing changed",
            )
        })
    }

    pub(super) fn note(&mut self, action: &str, user: Option<UserId>, round: Option<u32>) {
        self.note_with(action, user, round, LogAbout::default());
    }

    /// A line in the log with what it concerns beyond a user and a round.
    pub(super) fn note_with(
        &mut self,
        action: &str,
        user: Option<UserId>,
        round: Option<u32>,
        about: LogAbout,
    ) {
        if self.log.len() >= EVENT_LOG_MAX {
            return;
        }
        self.log.push(EventLogEntry {
            at_ms: unix_now_ms(),
            action: action.to_string(),
            user,
            round,
            detail: about.reason,
            game: about.game,
            team: about.team,
            until_ms: about.until_ms,
        });
    }

    /// The game `user` plays now in the round in play (no result yet), and their colour in it.
    pub(super) fn game_in_play(&self, user: UserId) -> Option<(GameId, Color)> {
        let round = self.event.rounds().last()?.number;
        let line = self
            .round_lines(round)
            .into_iter()
            .filter(|line| line.outcome.is_none())
            .find(|line| line.black == user || line.white == user)?;
        let colour = if line.black == user {
            Color::Black
        } else {
            Color::White
        };
        Some((self.game_of(round, line.board)?, colour))
    }

    /// Where `game` is in the round in play.
    pub(super) fn board_in_play(&self, game: GameId) -> Option<(u32, u32)> {
        let round = self.event.rounds().last()?;
        let &(_, board, _) = self
            .games
            .iter()
            .find(|&&(r, _, g)| r == round.number && g == game)?;
        self.outcome(round.number, board)
            .is_none()
            .then_some((round.number, board))
    }

    /// Before round 1: the entrants in seeding order, strongest (highest rating) first, those of
    /// equal rating in the order they entered; warnings given meanwhile are kept.
    /// A team event seeds its teams (see `TeamPlay::prepare_round_one`).
    pub(super) fn seed_by_strength(&mut self) -> Result<(), Refusal> {
        self.players
            .sort_by_key(|player| std::cmp::Reverse(player.rating));
        let seeded: Vec<PlayerId> = match &mut self.teams {
            Some(teams) => teams
                .prepare_round_one(&self.players)?
                .into_iter()
                .map(|team| PlayerId(team.0))
                .collect(),
            None => self.players.iter().map(|p| PlayerId(p.user.0)).collect(),
        };
        let warnings: Vec<(PlayerId, u32)> = self
            .event
            .entrants()
            .iter()
            .map(|entrant| (entrant.player, entrant.warnings))
            .collect();
        let mut event = Event::new(*self.event.settings(), &seeded).map_err(event_refusal)?;
        for (player, count) in warnings {
            for _ in 0..count {
                event.warn(player).map_err(event_refusal)?;
            }
        }
        self.event = event;
        Ok(())
    }

    /// Every entrant's account: none of them may bet on the event's games.
    pub(super) fn entrant_ids(&self) -> Vec<UserId> {
        self.players.iter().map(|p| p.user).collect()
    }

    pub(super) fn player(&self, id: PlayerId) -> Option<PlayerInfo> {
        self.players.iter().find(|p| p.user.0 == id.0).cloned()
    }

    pub(super) fn game_of(&self, round: u32, board: u32) -> Option<GameId> {
        self.games
            .iter()
            .find(|&&(r, b, _)| (r, b) == (round, board))
            .map(|&(_, _, game)| game)
    }

    /// The boards of a round: the core's games, or a team event's boards of every match.
    pub(super) fn round_lines(&self, round: u32) -> Vec<BoardLine> {
        if let Some(teams) = &self.teams {
            return teams
                .round_boards(round)
                .map(|b| BoardLine {
                    board: b.board,
                    black: b.black,
                    white: b.white,
                    outcome: b.outcome,
                })
                .collect();
        }
        let Some(round) = self.event.rounds().iter().find(|r| r.number == round) else {
            return Vec::new();
        };
        round
            .games
            .iter()
            .map(|g| BoardLine {
                board: g.table,
                black: UserId(g.black.0),
                white: UserId(g.white.0),
                outcome: g.outcome,
            })
            .collect()
    }

    pub(super) fn line(&self, round: u32, board: u32) -> Option<BoardLine> {
        self.round_lines(round)
            .into_iter()
            .find(|line| line.board == board)
    }

    pub(super) fn outcome(&self, round: u32, board: u32) -> Option<EventOutcome> {
        self.line(round, board)?.outcome
    }

    /// A board's result; in a team event the match's too, once it is decided.
    pub(super) fn record_board(
        &mut self,
        round: u32,
        board: u32,
        outcome: EventOutcome,
    ) -> Result<(), EventError> {
        let Some(teams) = &mut self.teams else {
            return self.event.record(round, board, outcome);
        };
        if let Some(existing) = teams.board(round, board).and_then(|b| b.outcome) {
            return Err(EventError::AlreadyRecorded {
                round,
                table: board,
                existing,
            });
        }
        match teams.record(round, board, outcome) {
            Some((table, decided)) => self.event.record(round, table, decided),
            None => Ok(()),
        }
    }

    pub(super) fn status(&self) -> EventStatus {
        match self.event.rounds().last() {
            None => EventStatus::Open,
            Some(_) if self.event.is_over() => EventStatus::Finished,
            Some(round) if round.missing() > 0 => EventStatus::Playing,
            Some(_) => EventStatus::BetweenRounds,
        }
    }

    pub(super) fn summary(&self, id: EventId) -> EventSummary {
        EventSummary {
            event: id,
            name: self.name.clone(),
            director: self.director.clone(),
            format: self.event.settings().format,
            ranks: self.ranks.clone(),
            status: self.status(),
            entrants_count: match &self.teams {
                Some(teams) => teams.teams_count() as u32,
                None => self.players.len() as u32,
            },
            players_max: self.players_max,
            rounds_count: self.event.rounds().len() as u32,
            teams: self.teams.as_ref().map(|t| t.rules),
        }
    }

    pub(super) fn view(&self, id: EventId) -> EventView {
        let user = |p: &PlayerId| UserId(p.0);
        let rounds = self
            .event
            .rounds()
            .iter()
            .map(|round| EventRound {
                number: round.number,
                boards: self
                    .round_lines(round.number)
                    .into_iter()
                    .map(|line| EventBoard {
                        board: line.board,
                        black: line.black,
                        white: line.white,
                        game: self.game_of(round.number, line.board),
                        outcome: line.outcome,
                    })
                    .collect(),
                byes: round.byes.iter().map(user).collect(),
                resting: round.resting.iter().map(user).collect(),
            })
            .collect();
        let teams = self.teams.as_ref().map(|t| t.view(&self.event));
        EventView {
            summary: self.summary(id),
            final_tie: self.event.settings().final_tie,
            settings: self.settings,
            entrants: self.entrants(),
            rounds,
            standings: self.event.standings(),
            winner: self
                .event
                .winner()
                .map(|p| user(&p))
                .filter(|_| teams.is_none()),
            log: self.log.clone(),
            teams,
        }
    }

    /// The entrants as the event shows them: a team event's every player (warnings given in its
    /// games), in the teams' order.
    fn entrants(&self) -> Vec<EventEntrant> {
        if self.teams.is_some() {
            return self
                .players
                .iter()
                .map(|player| EventEntrant {
                    player: player.clone(),
                    warnings: self
                        .game_warnings
                        .iter()
                        .filter(|(_, u)| *u == player.user)
                        .count() as u32,
                    withdrawn: false,
                })
                .collect();
        }
        self.event
            .entrants()
            .iter()
            .filter_map(|entrant| {
                Some(EventEntrant {
                    player: self.player(entrant.player)?,
                    warnings: entrant.warnings,
                    withdrawn: entrant.withdrawn.is_some(),
                })
            })
            .collect()
    }

    /// Withdraw `user`: before round 1 they leave (their team, in a team event); later they are
    /// paired no more (see the pairing core), in a team event their games from then are forfeits.
    pub(super) fn withdraw(&mut self, user: UserId) -> Result<(), Refusal> {
        let started = !self.event.rounds().is_empty();
        match &mut self.teams {
            Some(teams) if started => return teams.withdraw(user),
            Some(teams) if !teams.has_player(user) => {
                return refuse(
                    ErrorCode::NotEntered,
                    "that player is in no team of this event",
                )
            }
            Some(teams) => {
                if let Some(team) = teams.leave(user) {
                    self.event.leave(PlayerId(team.0)).map_err(event_refusal)?;
                }
            }
            None => self
                .event
                .withdraw(PlayerId(user.0))
                .map_err(event_refusal)?,
        }
        if !started {
            self.players.retain(|p| p.user != user);
        }
        Ok(())
    }

    /// A warning for `user` in the standings: the core counts an individual event's (fewer rank
    /// higher in a tie); a team event's ranking has no such figure, so there it only needs the
    /// player to be in a team (the warning then counts in their game).
    pub(super) fn count_warning(&mut self, user: UserId) -> Result<(), Refusal> {
        match &self.teams {
            Some(teams) if teams.has_player(user) => Ok(()),
            Some(_) => refuse(
                ErrorCode::NotEntered,
                "that player is in no team of this event",
            ),
            None => self.event.warn(PlayerId(user.0)).map_err(event_refusal),
        }
    }

    /// Whether `player` may enter now: the event open, their rank in its range.
    pub(super) fn check_entry(&self, player: &PlayerInfo) -> Result<(), Refusal> {
        if !self.event.rounds().is_empty() {
            return refuse(
                ErrorCode::EventStarted,
                "the event has started: entries are closed",
            );
        }
        if let Some(range) = entry_ranks(self.ranks.as_ref())? {
            if !crate::rating::within_ranks(player.rating, range) {
                return refuse(
                    ErrorCode::RankOutOfRange,
                    format!(
                        "your rank {} is outside this event's entry range",
                        player.rank
                    ),
                );
            }
        }
        Ok(())
    }

    pub(super) fn is_relay(&self) -> bool {
        self.teams
            .as_ref()
            .is_some_and(|t| t.rules.line_up == tengen_protocol::LineUp::Relay)
    }

    pub(super) fn team_play(&self) -> Option<&TeamPlay> {
        self.teams.as_ref()
    }

    pub(super) fn teams_mut(&mut self) -> Result<&mut TeamPlay, Refusal> {
        self.teams.as_mut().ok_or_else(|| {
            Refusal::new(
                ErrorCode::InvalidSettings,
                "this is not a team event: join it as a player",
            )
        })
    }

    pub(super) fn teams_max(&self) -> usize {
        self.players_max as usize
    }

    /// A new team enters the core, with its founder as its first player.
    pub(super) fn enter_team(&mut self, team: TeamId, founder: PlayerInfo) -> Result<(), Refusal> {
        self.event.enter(PlayerId(team.0)).map_err(event_refusal)?;
        self.add_player(founder);
        Ok(())
    }

    pub(super) fn add_player(&mut self, player: PlayerInfo) {
        self.players.push(player);
    }

    pub(super) fn is_over(&self) -> bool {
        self.event.is_over()
    }
}
