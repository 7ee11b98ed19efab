//! An exact rational for the tie-break figures that divide or halve: 胜者小分 (half the scores of drawn
//! opponents) and 总得分 (opponents' scores over half the highest score). Floats would make two equal
//! figures compare unequal after different sums, and a tie decided by rounding is no tie-break at all.

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt;

/// `num / den`, always reduced, with `den > 0`. Serializes as `{"num": .., "den": ..}` so a client shows
/// it as it likes (`12 2/3` or `12.67`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fraction {
    pub num: i64,
    pub den: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Fraction {
    pub const ZERO: Fraction = Fraction { num: 0, den: 1 };

    /// `num / den`, reduced; a zero denominator gives zero, as no figure here divides by zero on purpose.
    pub fn new(num: i64, den: u64) -> Fraction {
        if den == 0 {
            return Fraction::ZERO;
        }
        let g = gcd(num.unsigned_abs(), den).max(1);
        Fraction {
            num: num / g as i64,
            den: den / g,
        }
    }

    pub fn whole(n: i64) -> Fraction {
        Fraction { num: n, den: 1 }
    }

    /// The value as a float, for display only: comparisons use the exact value.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// Reduces a wide intermediate back to 64 bits. The figures here are sums of a few hundred scores
    /// over small denominators, so the reduced value always fits.
    fn from_wide(num: i128, den: i128) -> Fraction {
        let g = gcd128(num.unsigned_abs(), den.unsigned_abs()).max(1);
        let (num, den) = (num / g as i128, den / g as i128);
        Fraction {
            num: i64::try_from(num).unwrap_or(if num < 0 { i64::MIN } else { i64::MAX }),
            den: u64::try_from(den).unwrap_or(1).max(1),
        }
    }
}

fn gcd128(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl std::ops::Add for Fraction {
    type Output = Fraction;
    fn add(self, other: Fraction) -> Fraction {
        let num = i128::from(self.num) * i128::from(other.den)
            + i128::from(other.num) * i128::from(self.den);
        let den = i128::from(self.den) * i128::from(other.den);
        Fraction::from_wide(num, den)
    }
}

impl std::ops::Neg for Fraction {
    type Output = Fraction;
    fn neg(self) -> Fraction {
        Fraction::new(self.num.saturating_neg(), self.den)
    }
}

impl Ord for Fraction {
    fn cmp(&self, other: &Fraction) -> Ordering {
        let left = i128::from(self.num) * i128::from(other.den);
        let right = i128::from(other.num) * i128::from(self.den);
        left.cmp(&right)
    }
}

impl PartialOrd for Fraction {
    fn partial_cmp(&self, other: &Fraction) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Fraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduces_adds_and_orders_exactly() {
        assert_eq!(Fraction::new(6, 4), Fraction { num: 3, den: 2 });
        assert_eq!(Fraction::new(-6, 4), Fraction { num: -3, den: 2 });
        assert_eq!(
            Fraction::new(1, 3) + Fraction::new(1, 6),
            Fraction::new(1, 2)
        );
        assert!(Fraction::new(2, 3) > Fraction::new(3, 5));
        assert_eq!(Fraction::new(5, 0), Fraction::ZERO);
        assert_eq!(Fraction::new(7, 2).to_string(), "7/2");
        assert_eq!(-Fraction::new(7, 2), Fraction::new(-7, 2));
    }
}
