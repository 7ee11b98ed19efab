//! Ratings and ranks: the Glicko-2 update after a rated game (the `skillratings` crate does the
//! maths), the kyu/dan rank people see (30k..9d), and the handicap the rank difference suggests.
//! Storing the update once per game is the store's job (`Ratings::rate_game`); when a game is rated is
//! the game actor's (every game that ends with a winner or a draw; void games are not).

use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;
use tengen_protocol::{GameId, PlayerInfo, UserId};
use tengen_rules::{Color, GameResult};

use crate::store::{Glicko, StoreHandle, UserRow};

/// The rating of 1 dan. Ranks are 100 rating points apart, as in the European Go rating list, so a
/// new player (1500) shows 6k after their first games.
const SHODAN_RATING: f64 = 2100.0;

/// Rating points per rank (and per handicap stone).
const RATING_PER_RANK: f64 = 100.0;

/// The weakest and strongest ranks shown: 30 kyu and 9 dan.
const KYU_MAX: i32 = 30;
const DAN_MAX: i32 = 9;

/// The most handicap stones suggested, as the rules allow.
const HANDICAP_MAX: u8 = 9;

/// A rank as a signed index: 0 is 1d, 8 is 9d, -1 is 1k, -30 is 30k.
fn rank_index(rating: f64) -> i32 {
    let steps = ((rating - SHODAN_RATING) / RATING_PER_RANK).floor() as i32;
    steps.clamp(-KYU_MAX, DAN_MAX - 1)
}

/// A rank's signed index (see [`rank_index`]) from its text, "30k".."1k", "1d".."9d".
pub fn parse_rank(text: &str) -> Option<i32> {
    // The suffix is taken off as a character, never by byte position: the text is the player's,
    // and may end in any character.
    let text = text.trim().to_ascii_lowercase();
    if let Some(number) = text.strip_suffix('k') {
        let number: i32 = number.parse().ok()?;
        (1..=KYU_MAX).contains(&number).then_some(-number)
    } else {
        let number: i32 = text.strip_suffix('d')?.parse().ok()?;
        (1..=DAN_MAX).contains(&number).then_some(number - 1)
    }
}

/// The starting rating of a player who says they are `rank`: the middle of that rank's band.
pub fn starting_rating(rank: &str) -> Option<f64> {
    let index = parse_rank(rank)?;
    Some(SHODAN_RATING + f64::from(index) * RATING_PER_RANK + RATING_PER_RANK / 2.0)
}

/// Whether a player of `rating` is within the ranks `weakest..=strongest` (rank indexes).
pub fn within_ranks(rating: i32, (weakest, strongest): (i32, i32)) -> bool {
    (weakest..=strongest).contains(&rank_index(f64::from(rating)))
}

/// The kyu/dan rank of a rating: "6k", "1d".
pub fn rank(rating: f64) -> String {
    let index = rank_index(rating);
    if index >= 0 {
        format!("{}d", index + 1)
    } else {
        format!("{}k", -index)
    }
}

/// A rating more uncertain than this (its Glicko-2 deviation, in rating points) is provisional: its
/// rank is shown with a "?" ("3k?", as KGS marks it) until games settle it. 160 is where OGS stops
/// calling a rating provisional; from a stranger's 350 it takes five games against a settled
/// player of their strength, from a declared rank's 250 four (a unit test measures both).
pub const PROVISIONAL_DEVIATION_MIN: f64 = 160.0;

/// A user's rank as every list shows it: "?" while they have no rating at all (no rated game and no
/// declared rank), "3k?" while their rating is provisional, then "3k".
pub fn rank_of(user: &UserRow) -> String {
    match user.deviation {
        None => "?".into(),
        Some(deviation) => shown_rank(f64::from(user.rating), deviation),
    }
}

/// The rank of a rating as shown: provisional ("3k?") while `deviation` is above
/// [`PROVISIONAL_DEVIATION_MIN`].
pub fn shown_rank(rating: f64, deviation: f64) -> String {
    let rank = rank(rating);
    if deviation > PROVISIONAL_DEVIATION_MIN {
        format!("{rank}?")
    } else {
        rank
    }
}

/// How many ranks apart two ratings are.
pub fn rank_distance(rating_a: f64, rating_b: f64) -> u32 {
    (rank_index(rating_a) - rank_index(rating_b)).unsigned_abs()
}

/// Handicap stones the rank difference suggests for a game between these ratings: one stone per
/// rank, the weaker taking Black; 1 means taking Black without komi (让先), 0 an even game.
pub fn suggested_handicap(rating_a: f64, rating_b: f64) -> u8 {
    rank_distance(rating_a, rating_b).min(u32::from(HANDICAP_MAX)) as u8
}

fn to_skill(glicko: &Glicko) -> Glicko2Rating {
    Glicko2Rating {
        rating: glicko.rating,
        deviation: glicko.deviation,
        volatility: glicko.volatility,
    }
}

fn from_skill(rating: Glicko2Rating, games: u32) -> Glicko {
    Glicko {
        rating: rating.rating,
        deviation: rating.deviation,
        volatility: rating.volatility,
        games: games + 1,
    }
}

/// Both players' (Black, White) ratings after a game with `result`; `None` for a void game, which
/// is not rated.
pub fn after_game(before: [Glicko; 2], result: GameResult) -> Option<[Glicko; 2]> {
    let outcome = match result {
        GameResult::Win {
            winner: Color::Black,
            ..
        } => Outcomes::WIN,
        GameResult::Win {
            winner: Color::White,
            ..
        } => Outcomes::LOSS,
        GameResult::Draw => Outcomes::DRAW,
        GameResult::Void => return None,
    };
    let [black, white] = before;
    let (b, w) = glicko2(
        &to_skill(&black),
        &to_skill(&white),
        &outcome,
        &Glicko2Config::new(),
    );
    Some([from_skill(b, black.games), from_skill(w, white.games)])
}

/// Rate a finished game, once (a game finished again after a restart is not rated twice): both
/// players' (Black, White) ratings after it, or `None` when it was not rated now (a void game, or
/// one rated before).
pub async fn rate_game(
    store: &StoreHandle,
    game: GameId,
    players: [UserId; 2],
    result: GameResult,
) -> Result<Option<[Glicko; 2]>, crate::store::StoreError> {
    if after_game([Glicko::default(); 2], result).is_none() {
        return Ok(None);
    }
    store
        .call(move |store| {
            let update = move |before: [Glicko; 2]| after_game(before, result).unwrap_or(before);
            store.rate_game(game, players, std::sync::Arc::new(update))
        })
        .await
}

/// A player's listing once a rated game moved their rating to `after`: as [`rank_of`] shows the
/// account the store now holds (the rating rounded as it is stored).
pub fn relisted(player: &PlayerInfo, after: &Glicko) -> PlayerInfo {
    let rating = after.rating.round() as i32;
    PlayerInfo {
        rank: shown_rank(f64::from(rating), after.deviation),
        rating,
        ..player.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_parse_and_bound_entries() {
        assert_eq!(parse_rank("30k"), Some(-30));
        assert_eq!(parse_rank("1k"), Some(-1));
        assert_eq!(parse_rank("1D"), Some(0));
        assert_eq!(parse_rank("9d"), Some(8));
        for bad in [
            "",
            "k",
            "0k",
            "31k",
            "10d",
            "5",
            "5x",
            "-1k",
            "1.5k",
            "\u{202e}\u{d7ff}",
            "5段",
            "é",
        ] {
            assert_eq!(parse_rank(bad), None, "{bad}");
        }
        // 1500 is 6k: within 10k..1k, not within 1d..9d.
        assert!(within_ranks(1500, (-10, -1)));
        assert_eq!(starting_rating("1d"), Some(2150.0));
        assert_eq!(rank(starting_rating("5k").unwrap()), "5k");
        assert_eq!(starting_rating("?"), None);
        assert!(!within_ranks(1500, (0, 8)));
    }
    use tengen_rules::WinBy;

    /// A stranger's first games, and a declared rank's, against a settled player of the same
    /// strength, winning and losing in turn: provisional at first, settled after a handful.
    #[test]
    fn a_rank_is_provisional_until_a_few_games_settle_it() {
        let settled = Glicko {
            rating: 1550.0,
            deviation: 60.0,
            ..Glicko::default()
        };
        let games_to_settle = |mut player: Glicko| {
            let mut games = 0;
            while player.deviation > PROVISIONAL_DEVIATION_MIN {
                let winner = if games % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                };
                let result = GameResult::Win {
                    winner,
                    win_by: WinBy::Resign,
                };
                [player, _] = after_game([player, settled], result).unwrap();
                games += 1;
                assert!(games < 50, "never settles");
            }
            games
        };
        let stranger = games_to_settle(Glicko::default());
        let declared = games_to_settle(Glicko::declared(1550.0));
        assert!((4..=8).contains(&stranger), "{stranger}");
        assert!((2..stranger).contains(&declared), "{declared}");
        assert_eq!(shown_rank(1550.0, 350.0), "6k?");
        assert_eq!(shown_rank(1550.0, PROVISIONAL_DEVIATION_MIN), "6k");
        assert_eq!(shown_rank(2150.0, 100.0), "1d");
    }

    #[test]
    fn ranks_run_from_30_kyu_to_9_dan() {
        assert_eq!(rank(2100.0), "1d");
        assert_eq!(rank(2099.0), "1k");
        assert_eq!(rank(1500.0), "6k");
        assert_eq!(rank(2900.0), "9d");
        assert_eq!(rank(5000.0), "9d");
        assert_eq!(rank(-2000.0), "30k");
    }

    #[test]
    fn the_handicap_is_one_stone_per_rank_up_to_nine() {
        assert_eq!(suggested_handicap(1500.0, 1550.0), 0);
        assert_eq!(suggested_handicap(1500.0, 1600.0), 1);
        assert_eq!(suggested_handicap(2000.0, 1500.0), 5);
        assert_eq!(suggested_handicap(2800.0, 1000.0), 9);
    }

    #[test]
    fn the_winner_gains_what_the_loser_loses_and_void_games_are_not_rated() {
        let win = GameResult::Win {
            winner: Color::White,
            win_by: WinBy::Resign,
        };
        let [black, white] = after_game([Glicko::default(); 2], win).unwrap();
        assert!(white.rating > 1500.0 && black.rating < 1500.0);
        assert!((white.rating - 1500.0 - (1500.0 - black.rating)).abs() < 1e-6);
        assert!(white.deviation < 350.0);
        assert_eq!((black.games, white.games), (1, 1));
        // An upset moves the ratings more than an expected result.
        let strong = Glicko {
            rating: 1900.0,
            deviation: 60.0,
            ..Glicko::default()
        };
        let weak = Glicko {
            rating: 1500.0,
            deviation: 60.0,
            ..Glicko::default()
        };
        let black_wins = GameResult::Win {
            winner: Color::Black,
            win_by: WinBy::Time,
        };
        let expected = after_game([strong, weak], black_wins).unwrap();
        let upset = after_game([weak, strong], black_wins).unwrap();
        assert!(upset[0].rating - 1500.0 > expected[0].rating - 1900.0);
        assert_eq!(after_game([strong, weak], GameResult::Void), None);
        let draw = after_game([strong, weak], GameResult::Draw).unwrap();
        assert!(draw[0].rating < 1900.0 && draw[1].rating > 1500.0);
    }
}
