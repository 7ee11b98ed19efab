//! The edge between the wire and the engine: proposed settings checked (for a table, a challenge,
//! automatch or an event alike), agreed settings to the engine's `Rules`, engine failures to error
//! codes, results to `GameOutcome`, a result's SGF time properties, and the board as rows of text.
//! (Colours, points and ko rules are the engine's own types on the wire too.)

use tengen_protocol::{ClockSettings, EndReason, ErrorCode, GameOutcome, GameSettings, LastMove};
use tengen_rules::{
    Board, Color, Game, GameResult, HandicapPlacement, IllegalMove, Komi, Move, Point, Rules,
    Score, WinBy,
};

use crate::clock;
use crate::{refuse, Refusal};

/// The last stone or pass on the board (a resignation is not a move on it), so a client that joins
/// mid-game, reloads or sees an undo can mark it as one that followed every move does.
pub fn last_move(game: &Game) -> Option<LastMove> {
    game.moves().iter().rev().find_map(|&(color, mv)| {
        let point = match mv {
            Move::Play(point) => Some(point),
            Move::Pass => None,
            Move::Resign => return None,
        };
        Some(LastMove { color, point })
    })
}

pub fn rules_of(settings: &GameSettings) -> Rules {
    Rules {
        size: settings.size,
        komi: Komi::from_half_points(settings.komi_half_points),
        handicap: settings.handicap,
        handicap_placement: HandicapPlacement::Fixed,
        ko_rule: settings.ko_rule,
    }
}

/// A fresh engine game for agreed settings; the engine has the last word on what is possible.
pub fn new_engine_game(settings: &GameSettings) -> Result<Game, Refusal> {
    Game::new(rules_of(settings))
        .map_err(|err| Refusal::new(ErrorCode::InvalidSettings, err.to_string()))
}

/// A refused move's code and reason.
pub fn illegal(reason: IllegalMove) -> Refusal {
    let code = match reason {
        IllegalMove::Occupied => ErrorCode::Occupied,
        IllegalMove::Suicide => ErrorCode::Suicide,
        IllegalMove::Ko => ErrorCode::Ko,
        IllegalMove::OffBoard => ErrorCode::OffBoard,
        IllegalMove::NotYourTurn => ErrorCode::NotYourTurn,
        IllegalMove::GameOver | IllegalMove::HandicapNotPlaced => ErrorCode::WrongPhase,
    };
    Refusal::new(code, reason.to_string())
}

/// The board as `size` rows of `.`, `X` and `O`, top row first.
pub fn board_rows(board: &Board) -> Vec<String> {
    let size = board.size();
    (0..size)
        .map(|row| {
            (0..size)
                .map(|col| match board.get(Point::new(col, row)) {
                    None => '.',
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                })
                .collect()
        })
        .collect()
}

/// A result as the wire reports it, with the counts when the game was counted.
pub fn outcome(result: GameResult, score: Option<&Score>) -> GameOutcome {
    let reason = match result {
        GameResult::Win { win_by, .. } => match win_by {
            WinBy::Score { .. } => EndReason::Score,
            WinBy::Resign => EndReason::Resignation,
            WinBy::Time => EndReason::Time,
            WinBy::Forfeit => EndReason::Forfeit,
        },
        GameResult::Draw => EndReason::Score,
        GameResult::Void => EndReason::Void,
    };
    GameOutcome {
        winner: result.winner(),
        reason,
        sgf: result.to_sgf(),
        chinese: result.to_chinese(),
        black_count_half_points: score.map(|s| s.count.half_points(Color::Black)),
        white_count_half_points: score.map(|s| s.count.half_points(Color::White)),
    }
}

/// SGF `TM` (main time in seconds) and `OT` (overtime) for the record.
pub fn sgf_time(clock: &ClockSettings) -> (Option<String>, Option<String>) {
    let secs = |ms: u64| (ms / 1000).to_string();
    match *clock {
        ClockSettings::None => (None, None),
        ClockSettings::Absolute { main_time_ms } => (Some(secs(main_time_ms)), None),
        ClockSettings::ByoYomi {
            main_time_ms,
            periods,
            period_ms,
            ..
        } => (
            Some(secs(main_time_ms)),
            Some(format!("{periods}x{} byo-yomi", period_ms / 1000)),
        ),
        ClockSettings::Canadian {
            main_time_ms,
            moves,
            block_ms,
        } => (
            Some(secs(main_time_ms)),
            Some(format!("{moves}/{} Canadian", block_ms / 1000)),
        ),
        ClockSettings::Fischer {
            main_time_ms,
            increment_ms,
            ..
        } => (
            Some(secs(main_time_ms)),
            Some(format!("{} fischer", increment_ms / 1000)),
        ),
    }
}

/// A table's agreed clock checked for the game: `None` for an untimed game. Refuses settings the
/// clock cannot run (the clock module has the last word, as the engine does for rules).
pub fn clock_settings(clock: &ClockSettings) -> Result<Option<ClockSettings>, Refusal> {
    if *clock == ClockSettings::None {
        return Ok(None);
    }
    clock::validate(clock)
        .map_err(|err| Refusal::new(ErrorCode::InvalidSettings, err.to_string()))?;
    Ok(Some(*clock))
}

/// Largest komi in half points either way (±150 points): beyond any handicap compensation in use.
const KOMI_HALF_POINTS_MAX: i32 = 300;

/// Check the settings a player proposes, ending with the rules engine's own check (a handicap must fit
/// the board's star points), so a proposal that is accepted always starts.
pub fn validate_settings(settings: &GameSettings) -> Result<(), Refusal> {
    if !matches!(settings.size, 9 | 13 | 19) {
        return refuse(ErrorCode::InvalidSettings, "board size must be 9, 13 or 19");
    }
    if settings.komi_half_points.abs() > KOMI_HALF_POINTS_MAX {
        return refuse(ErrorCode::InvalidSettings, "komi is out of range");
    }
    if settings.handicap > 9 {
        return refuse(ErrorCode::InvalidSettings, "handicap is at most 9 stones");
    }
    if settings.lateness_limit_ms.is_some() {
        return refuse(
            ErrorCode::InvalidSettings,
            "a lateness limit is an event's (set it when creating the event)",
        );
    }
    if settings.event.is_some() {
        return refuse(
            ErrorCode::InvalidSettings,
            "a game's event is the server's to set",
        );
    }
    // The clock module has the one validator of clock settings (and their limits).
    clock_settings(&settings.clock)?;
    new_engine_game(settings).map(|_| ())
}
