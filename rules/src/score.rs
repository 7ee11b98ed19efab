//! Area scoring (数子法) and results. Everything is exact integer arithmetic in half points: a dame point
//! gives each side one half point, komi 7.5 is 15 half points, and a half point is a quarter stone, which is
//! how Chinese results (`黑胜3/4子`) are spoken.

use crate::board::Board;
use crate::color::Color;
use crate::point::Point;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Komi, exactly, in half points. The default is 7.5 points (3¾ stones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Komi {
    pub half_points: i32,
}

/// Komi is never more than this many points either way; anything larger is a typing error.
const KOMI_POINTS_MAX: i64 = 1000;

impl Default for Komi {
    fn default() -> Komi {
        Komi { half_points: 15 }
    }
}

impl Komi {
    pub fn from_half_points(half_points: i32) -> Komi {
        Komi { half_points }
    }

    /// Parses komi in points (`7.5`, `7`, `0`, `-3.5`, `7.500000`); it must be a multiple of 0.5.
    pub fn parse_points(text: &str) -> Result<Komi, KomiError> {
        let hundredths = parse_hundredths(text).ok_or_else(|| KomiError(text.to_string()))?;
        Komi::from_hundredths(hundredths).ok_or_else(|| KomiError(text.to_string()))
    }

    /// Parses SGF `KM` as written in the wild: points (`7.5`), points scaled by 100 (`750` = 7.5 points,
    /// from servers that store integers), and Chinese stone komi (`3.75` or `375` = 3¾ stones = 7.5 points),
    /// recognised by its quarter-stone fraction, which points never have.
    pub fn parse_sgf(text: &str) -> Result<Komi, KomiError> {
        let error = || KomiError(text.to_string());
        let mut hundredths = parse_hundredths(text).ok_or_else(error)?;
        let has_point = text.contains('.');
        if !has_point && hundredths.abs() >= 100 * 100 {
            hundredths /= 100;
        }
        if hundredths.rem_euclid(50) == 25 {
            hundredths *= 2;
        }
        Komi::from_hundredths(hundredths).ok_or_else(error)
    }

    fn from_hundredths(hundredths: i64) -> Option<Komi> {
        if hundredths % 50 != 0 || hundredths.abs() > KOMI_POINTS_MAX * 100 {
            return None;
        }
        Some(Komi {
            half_points: (hundredths / 50) as i32,
        })
    }

    /// The SGF `KM` spelling in points (`7.5`, `0`).
    pub fn to_sgf(self) -> String {
        format_half_points(self.half_points)
    }
}

impl fmt::Display for Komi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_sgf())
    }
}

/// Komi text that is not a number of points in steps of 0.5.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KomiError(pub String);

impl fmt::Display for KomiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "komi {:?} is not a number of points in steps of 0.5",
            self.0
        )
    }
}

impl std::error::Error for KomiError {}

/// Parses a decimal such as `-7.500` into hundredths, exactly; more than two significant decimals must be zeros.
fn parse_hundredths(text: &str) -> Option<i64> {
    let text = text.trim();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() && fraction.is_empty()
        || !all_digits(whole)
        || !all_digits(fraction)
        || whole.len() > 9
    {
        return None;
    }
    if fraction.len() > 2 && fraction[2..].bytes().any(|b| b != b'0') {
        return None;
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let mut cents = 0;
    for (place, b) in fraction.bytes().take(2).enumerate() {
        cents += (b - b'0') as i64 * if place == 0 { 10 } else { 1 };
    }
    let value = whole * 100 + cents;
    Some(if negative { -value } else { value })
}

/// `15` → `7.5`, `-4` → `-2`.
fn format_half_points(half_points: i32) -> String {
    let sign = if half_points < 0 { "-" } else { "" };
    let abs = half_points.unsigned_abs();
    if abs % 2 == 0 {
        format!("{sign}{}", abs / 2)
    } else {
        format!("{sign}{}.5", abs / 2)
    }
}

/// How a game was won.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum WinBy {
    /// Counted, with the margin in half points (always > 0).
    Score {
        margin_half_points: u32,
    },
    Resign,
    Time,
    /// The loser left the game (escape) or was disqualified.
    Forfeit,
}

/// The result of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum GameResult {
    Win {
        winner: Color,
        win_by: WinBy,
    },
    /// A whole-number komi and an even count (和棋).
    Draw,
    /// No result: the game never really started, or was cancelled.
    Void,
}

impl GameResult {
    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::Win { winner, .. } => Some(winner),
            GameResult::Draw | GameResult::Void => None,
        }
    }

    /// The result for a counted game with Black's margin (negative when White leads).
    pub fn from_margin(black_margin_half_points: i32) -> GameResult {
        let margin_half_points = black_margin_half_points.unsigned_abs();
        let winner = match black_margin_half_points.signum() {
            1 => Color::Black,
            -1 => Color::White,
            _ => return GameResult::Draw,
        };
        GameResult::Win {
            winner,
            win_by: WinBy::Score { margin_half_points },
        }
    }

    /// The SGF `RE` spelling: `B+1.5`, `W+R`, `B+T`, `W+F`, `0`, `Void`.
    pub fn to_sgf(self) -> String {
        match self {
            GameResult::Win { winner, win_by } => {
                let how = match win_by {
                    WinBy::Score { margin_half_points } => {
                        format_half_points(margin_half_points as i32)
                    }
                    WinBy::Resign => "R".to_string(),
                    WinBy::Time => "T".to_string(),
                    WinBy::Forfeit => "F".to_string(),
                };
                format!("{}+{how}", winner.letter())
            }
            GameResult::Draw => "0".to_string(),
            GameResult::Void => "Void".to_string(),
        }
    }

    /// The Chinese form: `黑胜3/4子`, `白胜1又1/2子`, `黑中盘胜`, `白超时胜`, `黑胜（白逃跑）`, `和棋`, `无胜负`.
    pub fn to_chinese(self) -> String {
        match self {
            GameResult::Win { winner, win_by } => {
                let w = winner.chinese();
                let l = winner.opponent().chinese();
                match win_by {
                    WinBy::Score { margin_half_points } => {
                        format!("{w}胜{}子", format_quarter_stones(margin_half_points))
                    }
                    WinBy::Resign => format!("{w}中盘胜"),
                    WinBy::Time => format!("{w}超时胜"),
                    WinBy::Forfeit => format!("{w}胜（{l}逃跑）"),
                }
            }
            GameResult::Draw => "和棋".to_string(),
            GameResult::Void => "无胜负".to_string(),
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_sgf())
    }
}

/// A half point is a quarter stone: 3 → `3/4`, 4 → `1`, 7 → `1又3/4`.
fn format_quarter_stones(quarters: u32) -> String {
    let whole = quarters / 4;
    let fraction = match quarters % 4 {
        0 => "",
        1 => "1/4",
        2 => "1/2",
        _ => "3/4",
    };
    match (whole, fraction) {
        (w, "") => w.to_string(),
        (0, f) => f.to_string(),
        (w, f) => format!("{w}又{f}"),
    }
}

/// What each side has on the board after dead stones are removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AreaCount {
    pub black_stones: u32,
    pub white_stones: u32,
    pub black_territory: u32,
    pub white_territory: u32,
    /// Empty points bordered by both colours (or by none), split half each.
    pub dame: u32,
}

impl AreaCount {
    /// A side's count in half points: stones and territory count whole, each dame point half.
    pub fn half_points(&self, color: Color) -> u32 {
        let (stones, territory) = match color {
            Color::Black => (self.black_stones, self.black_territory),
            Color::White => (self.white_stones, self.white_territory),
        };
        2 * (stones + territory) + self.dame
    }
}

/// A counted game: the area count and the result after komi and handicap compensation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    pub count: AreaCount,
    pub komi: Komi,
    /// Handicap stones Black gives back at counting (N points for N stones, i.e. N/2 stones).
    pub handicap_compensation: u8,
    /// Black's count minus White's, less komi and compensation, in half points.
    pub black_margin_half_points: i32,
    pub result: GameResult,
}

impl Score {
    pub fn new(count: AreaCount, komi: Komi, handicap_compensation: u8) -> Score {
        let black = count.half_points(Color::Black) as i32;
        let white = count.half_points(Color::White) as i32;
        // Saturating: a komi from outside (a study's, an engine's) may be anything an i32 holds,
        // and a count must not overflow over it.
        let margin = black
            .saturating_sub(white)
            .saturating_sub(komi.half_points)
            .saturating_sub(2 * handicap_compensation as i32);
        Score {
            count,
            komi,
            handicap_compensation,
            black_margin_half_points: margin,
            result: GameResult::from_margin(margin),
        }
    }
}

/// Counts the area of each side with the chains through `dead` removed first.
///
/// Each empty region (dead stones' points included) is the territory of the one colour whose live stones
/// border it; a region bordered by both colours is dame and split half each. Seki eyes are bordered by their
/// owner alone, so they count for the owner; the shared liberties of a seki are dame. A region bordered by no
/// stone at all (an empty board) is split too, so the two counts always add up to the board's points.
pub fn count_area(board: &Board, dead: &[Point]) -> AreaCount {
    let mut board = board.clone();
    let mut removed = Vec::new();
    for &point in dead {
        board.remove_chain(point, &mut removed);
    }
    let size = board.size() as usize;
    let mut count = AreaCount::default();
    let mut visited = vec![false; size * size];
    let mut stack = Vec::new();
    for point in board.points() {
        match board.get(point) {
            Some(Color::Black) => count.black_stones += 1,
            Some(Color::White) => count.white_stones += 1,
            None => {}
        }
        let slot = point.row as usize * size + point.col as usize;
        if board.get(point).is_some() || visited[slot] {
            continue;
        }
        let (region_points, borders) = flood_empty_region(&board, point, &mut visited, &mut stack);
        match borders {
            [true, false] => count.black_territory += region_points,
            [false, true] => count.white_territory += region_points,
            _ => count.dame += region_points,
        }
    }
    count
}

/// Fills the empty region through `start`; returns its size and which colours (`[black, white]`) border it.
fn flood_empty_region(
    board: &Board,
    start: Point,
    visited: &mut [bool],
    stack: &mut Vec<Point>,
) -> (u32, [bool; 2]) {
    let size = board.size() as usize;
    let mut borders = [false, false];
    let mut points = 0;
    stack.clear();
    stack.push(start);
    visited[start.row as usize * size + start.col as usize] = true;
    while let Some(point) = stack.pop() {
        points += 1;
        for n in board.adjacent(point) {
            match board.get(n) {
                Some(color) => borders[color.index()] = true,
                None => {
                    let slot = n.row as usize * size + n.col as usize;
                    if !visited[slot] {
                        visited[slot] = true;
                        stack.push(n);
                    }
                }
            }
        }
    }
    (points, borders)
}
