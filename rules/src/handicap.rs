//! Fixed handicap placement on the star points, in the traditional order shared by Chinese rules and GTP:
//! 2 stones on Black's upper-right and lower-left star points, the 3rd in the lower right, 4 in all corners,
//! 5 adds the centre, 6 the left and right sides, 7 the centre again, 8 all but the centre, 9 all nine.

use crate::error::SetupError;
use crate::point::Point;

/// The handicap stones for `stones` on a `size` board, or why that handicap is impossible there.
///
/// Star points sit on the 4th line from 13x13 up and on the 3rd line below; a board needs at least 7 lines
/// to have star points at all, and an odd size for the side and centre points (so even sizes and 7x7 stop
/// at 4 stones).
pub fn fixed_handicap_points(stones: u8, size: u8) -> Result<Vec<Point>, SetupError> {
    let impossible = SetupError::Handicap { stones, size };
    let most = match size {
        0..=6 => 0,
        7 => 4,
        s if s % 2 == 0 => 4,
        _ => 9,
    };
    if !(2..=most).contains(&stones) {
        return Err(impossible);
    }
    let low = if size >= 13 { 3 } else { 2 };
    let high = size - 1 - low;
    let mid = size / 2;
    let upper_right = Point::new(high, low);
    let lower_left = Point::new(low, high);
    let lower_right = Point::new(high, high);
    let upper_left = Point::new(low, low);
    let centre = Point::new(mid, mid);
    let left = Point::new(low, mid);
    let right = Point::new(high, mid);
    let top = Point::new(mid, low);
    let bottom = Point::new(mid, high);
    let corners = [upper_right, lower_left, lower_right, upper_left];
    let mut points: Vec<Point> = corners
        .iter()
        .copied()
        .take(stones.min(4) as usize)
        .collect();
    match stones {
        5 => points.push(centre),
        6 => points.extend([left, right]),
        7 => points.extend([left, right, centre]),
        8 => points.extend([left, right, top, bottom]),
        9 => points.extend([left, right, top, bottom, centre]),
        _ => {}
    }
    Ok(points)
}
