//! The automatch queue as pure data: who is waiting for which board size and time class within
//! which rank range, how two seekers are matched, and the settings their game gets (the clock of the
//! time class, the handicap of their rank difference). The hall actor owns one queue and starts the
//! games; nothing here does I/O.

use tengen_protocol::{
    ClockSettings, ErrorCode, GameSettings, KoRule, PlayerInfo, TimeClass, UserId,
};

use crate::rating;
use crate::Refusal;

/// Players waiting at once. Far more than a hall of this size has seekers at one time; beyond it a
/// new seeker is told `busy` rather than growing the queue.
pub const AUTOMATCH_QUEUE_MAX: usize = 1_000;

/// Widest rank range a seeker may ask for: 30k to 9d is 38 ranks apart.
pub const RANK_RANGE_MAX: u8 = 38;

/// Komi of an even automatch game, in half points (7.5).
const EVEN_KOMI_HALF_POINTS: i32 = 15;

/// One player waiting.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Seeker {
    pub player: PlayerInfo,
    pub size: u8,
    pub time_class: TimeClass,
    pub rank_range: u8,
}

/// The fixed clock of a time class.
pub fn clock_of(class: TimeClass) -> ClockSettings {
    let (main_time_ms, period_ms) = match class {
        TimeClass::Blitz => (5 * 60_000, 10_000),
        TimeClass::Rapid => (10 * 60_000, 30_000),
        TimeClass::Classical => (30 * 60_000, 60_000),
    };
    ClockSettings::ByoYomi {
        main_time_ms,
        periods: 3,
        period_ms,
        timeout_is_pass: false,
    }
}

/// Refuse a seek no game could come of.
pub fn validate(seeker: &Seeker) -> Result<(), Refusal> {
    if !matches!(seeker.size, 9 | 13 | 19) {
        return Err(Refusal::new(
            ErrorCode::InvalidSettings,
            "board size must be 9, 13 or 19",
        ));
    }
    if seeker.rank_range > RANK_RANGE_MAX {
        return Err(Refusal::new(
            ErrorCode::InvalidSettings,
            format!("the rank range is at most {RANK_RANGE_MAX}"),
        ));
    }
    Ok(())
}

fn ranks_apart(a: &PlayerInfo, b: &PlayerInfo) -> u8 {
    rating::suggested_handicap(f64::from(a.rating), f64::from(b.rating))
}

/// The first waiting seeker `seeker` can play: same size and class, each within the other's range.
pub fn find(queue: &[Seeker], seeker: &Seeker) -> Option<usize> {
    find_allowed(queue, seeker, |_| true)
}

/// As [`find`], among the waiting seekers `allowed` lets `seeker` play (not one blocking them or
/// blocked by them).
pub fn find_allowed(
    queue: &[Seeker],
    seeker: &Seeker,
    allowed: impl Fn(UserId) -> bool,
) -> Option<usize> {
    queue.iter().position(|other| {
        other.player.user != seeker.player.user
            && allowed(other.player.user)
            && other.size == seeker.size
            && other.time_class == seeker.time_class
            && rating::rank_distance(
                f64::from(other.player.rating),
                f64::from(seeker.player.rating),
            ) <= u32::from(other.rank_range.min(seeker.rank_range))
    })
}

/// Remove `user` from the queue; whether they were in it.
pub fn remove(queue: &mut Vec<Seeker>, user: UserId) -> bool {
    let before = queue.len();
    queue.retain(|s| s.player.user != user);
    queue.len() != before
}

/// The game two matched seekers play: (first, second, settings), where `first` takes Black unless
/// the settings ask for nigiri. Equal ranks play an even game with nigiri; otherwise the weaker
/// takes Black with one handicap stone per rank of difference (1 = Black without komi, 让先).
pub fn game_for(a: &Seeker, b: &Seeker) -> (PlayerInfo, PlayerInfo, GameSettings) {
    let handicap = ranks_apart(&a.player, &b.player);
    let (weaker, stronger) = if a.player.rating <= b.player.rating {
        (a, b)
    } else {
        (b, a)
    };
    let settings = GameSettings {
        size: a.size,
        komi_half_points: if handicap == 0 {
            EVEN_KOMI_HALF_POINTS
        } else {
            0
        },
        handicap,
        ko_rule: KoRule::Positional,
        clock: clock_of(a.time_class),
        nigiri: handicap == 0,
        lateness_limit_ms: None,
        unrated: false,
        event: None,
    };
    (weaker.player.clone(), stronger.player.clone(), settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seeker(user: u64, rating: i32, size: u8, time_class: TimeClass, rank_range: u8) -> Seeker {
        Seeker {
            player: PlayerInfo {
                user: UserId(user),
                username: format!("p{user}"),
                rank: "?".into(),
                rating,
                computer: false,
            },
            size,
            time_class,
            rank_range,
        }
    }

    #[test]
    fn seekers_match_on_size_class_and_both_rank_ranges() {
        let queue = vec![
            seeker(1, 1500, 19, TimeClass::Rapid, 5),
            seeker(2, 1500, 9, TimeClass::Blitz, 5),
            seeker(3, 1900, 9, TimeClass::Blitz, 1),
            seeker(4, 1800, 9, TimeClass::Blitz, 9),
        ];
        // 1500 and 1900 are 4 ranks apart: too far for player 3's range of 1.
        let me = seeker(5, 1500, 9, TimeClass::Blitz, 9);
        assert_eq!(find(&queue[2..], &me), Some(1));
        assert_eq!(find(&queue, &me), Some(1));
        assert_eq!(
            find(&queue, &seeker(6, 1500, 13, TimeClass::Blitz, 9)),
            None
        );
        assert_eq!(
            find(&queue, &seeker(1, 1500, 19, TimeClass::Rapid, 9)),
            None,
            "not yourself"
        );
        let mut queue = queue;
        assert!(remove(&mut queue, UserId(2)));
        assert!(!remove(&mut queue, UserId(2)));
    }

    #[test]
    fn the_weaker_takes_black_with_a_stone_per_rank() {
        let weak = seeker(1, 1500, 19, TimeClass::Rapid, 9);
        let strong = seeker(2, 1800, 19, TimeClass::Rapid, 9);
        let (first, second, settings) = game_for(&strong, &weak);
        assert_eq!((first.user, second.user), (UserId(1), UserId(2)));
        assert_eq!(
            (
                settings.handicap,
                settings.komi_half_points,
                settings.nigiri
            ),
            (3, 0, false)
        );
        assert_eq!(settings.clock, clock_of(TimeClass::Rapid));
        crate::hall::table::validate_settings(&settings).unwrap();
        let (_, _, even) = game_for(&weak, &seeker(3, 1550, 19, TimeClass::Rapid, 9));
        assert_eq!(
            (even.handicap, even.komi_half_points, even.nigiri),
            (0, 15, true)
        );
        assert!(validate(&seeker(1, 1500, 10, TimeClass::Blitz, 1)).is_err());
        assert!(validate(&seeker(1, 1500, 9, TimeClass::Blitz, 39)).is_err());
    }
}
