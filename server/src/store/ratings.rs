//! What the store keeps of players' strength, behind [`Ratings`] (which [`Store`](super::Store)
//! requires): each player's Glicko-2 state, rated once per game in one write with both players'
//! states, and the history of their rated games (their rating after each, and their wins, losses and
//! draws by board size). The rating maths is `crate::rating`'s; the store applies the update it is
//! given.

use tengen_protocol::{GameId, RatingPoint, SizeRecord, UserId};

use super::StoreError;

/// A player's Glicko-2 state, as stored. New players start at the Glicko-2 defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Glicko {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    pub games: u32,
}

/// How uncertain a declared rank's starting rating is: well below a stranger's 350 (the player
/// told us something), still far above a settled rating's, so the first games move it a lot and the
/// rank shows as provisional until they have.
pub const DECLARED_RANK_DEVIATION: f64 = 250.0;

impl Glicko {
    /// The start of a player who declared their rank: its rating, with [`DECLARED_RANK_DEVIATION`].
    pub fn declared(rating: f64) -> Glicko {
        Glicko {
            rating,
            deviation: DECLARED_RANK_DEVIATION,
            ..Glicko::default()
        }
    }
}

impl Default for Glicko {
    fn default() -> Glicko {
        Glicko {
            rating: 1500.0,
            deviation: 350.0,
            volatility: 0.06,
            games: 0,
        }
    }
}

/// How a rated game went for one of its players, as their history keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatedOutcome {
    Win,
    Loss,
    Draw,
}

impl RatedOutcome {
    /// Both players' (Black, White) outcomes of a game whose SGF `RE` is `result`: "B+3.5" and
    /// "W+R" have a winner, "0" and "Draw" are draws; `None` for anything else (a void game).
    pub fn of_result(result: &str) -> Option<[RatedOutcome; 2]> {
        use RatedOutcome::{Draw, Loss, Win};
        if result.starts_with("B+") {
            Some([Win, Loss])
        } else if result.starts_with("W+") {
            Some([Loss, Win])
        } else if result == "0" || result.eq_ignore_ascii_case("draw") {
            Some([Draw, Draw])
        } else {
            None
        }
    }

    /// As stored.
    pub fn as_str(self) -> &'static str {
        match self {
            RatedOutcome::Win => "win",
            RatedOutcome::Loss => "loss",
            RatedOutcome::Draw => "draw",
        }
    }

    pub fn parse(text: &str) -> Option<RatedOutcome> {
        [RatedOutcome::Win, RatedOutcome::Loss, RatedOutcome::Draw]
            .into_iter()
            .find(|outcome| outcome.as_str() == text)
    }
}

/// What a player's history keeps of one rated game: when it ended, on what board, how it went, and
/// their rating after it (`None` for games rated before the history was kept).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatedGameRow {
    pub game: GameId,
    pub at_ms: u64,
    pub size: u8,
    pub outcome: RatedOutcome,
    pub rating: Option<f64>,
}

impl RatedGameRow {
    /// Both players' (Black, White) entries of rated game `game`, from its stored record: its
    /// settings (for the board), its SGF result and when it ended. None for a game without a
    /// decisive or drawn result (none is rated); a board the settings do not give counts as 0.
    pub fn of_game(
        game: GameId,
        players: [UserId; 2],
        ratings: [Option<f64>; 2],
        (settings_json, result, at_ms): (Option<&str>, Option<&str>, u64),
    ) -> Vec<(UserId, RatedGameRow)> {
        let Some(outcomes) = result.and_then(RatedOutcome::of_result) else {
            return Vec::new();
        };
        let size = settings_json
            .and_then(|json| serde_json::from_str::<tengen_protocol::GameSettings>(json).ok())
            .map_or(0, |settings| settings.size);
        let entry = |outcome, rating| RatedGameRow {
            game,
            at_ms,
            size,
            outcome,
            rating,
        };
        let [black, white] = players;
        vec![
            (black, entry(outcomes[0], ratings[0])),
            (white, entry(outcomes[1], ratings[1])),
        ]
    }
}

/// Wins, losses and draws by board size, from how many of a player's rated games went each way on
/// each board (`(size, outcome, count)`, a size and outcome in as many entries as a backend gives).
pub fn record_by_size(
    counts: impl IntoIterator<Item = (u8, RatedOutcome, u64)>,
) -> Vec<SizeRecord> {
    let mut by_size: std::collections::BTreeMap<u8, SizeRecord> = Default::default();
    for (size, outcome, games) in counts {
        let record = by_size.entry(size).or_insert(SizeRecord {
            size,
            wins: 0,
            losses: 0,
            draws: 0,
        });
        let count = match outcome {
            RatedOutcome::Win => &mut record.wins,
            RatedOutcome::Loss => &mut record.losses,
            RatedOutcome::Draw => &mut record.draws,
        };
        *count = count.saturating_add(u32::try_from(games).unwrap_or(u32::MAX));
    }
    by_size.into_values().collect()
}

/// How a game's result moves both players' (Black, White) ratings: shared, so a backend may apply
/// it on its own writer thread.
pub type RatingUpdate = std::sync::Arc<dyn Fn([Glicko; 2]) -> [Glicko; 2] + Send + Sync>;

/// Ratings and rated games' history, durable.
pub trait Ratings {
    /// Rate a finished game once: in one transaction, read both players' (Black, White) ratings,
    /// apply `update`, and store the result. `Ok(None)` when the game was rated before (a restart
    /// finishing it again), so a game never moves ratings twice.
    fn rate_game(
        &self,
        game: GameId,
        players: [UserId; 2],
        update: RatingUpdate,
    ) -> Result<Option<[Glicko; 2]>, StoreError>;
    /// A player's rating after each of their last `limit` rated games, oldest first; games rated
    /// before the history was kept are left out.
    fn rating_history(&self, user: UserId, limit: usize) -> Result<Vec<RatingPoint>, StoreError>;
    /// A player's rated wins, losses and draws by board size, smallest board first.
    fn rated_record(&self, user: UserId) -> Result<Vec<SizeRecord>, StoreError>;
}
