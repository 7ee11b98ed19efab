//! The pairer shared by Swiss and knockout rounds after the first: players in rank order, each with a
//! group (a score, or a number of losses), are paired top down, each player with the opponent the
//! format prefers, but only if the players still unpaired can then all be paired too.
//!
//! "Can all be paired" is asked of an exact matching ([`crate::matching`]) over the pairs a layer of
//! constraints allows. The layers are tried strictest first: never met and colours kept within two;
//! never met; colours within two; anything. The first layer under which the whole field pairs is the
//! one used, so a rematch happens only when no rematch-free pairing exists, and colours drift past two
//! only when keeping them would force a rematch.
//!
//! The greedy step takes the best-ranked unpaired player and tries opponents in the format's order of
//! preference: a Swiss pairs the top half of a score group against its bottom half (1 v 5, 2 v 6 in a
//! group of eight), then the nearest score below (the odd player floats down); a knockout pairs
//! neighbours in bracket order.

use crate::matching::{complete, is_perfect, NONE};
use crate::tally::Tally;
use tengen_rules::Color;

/// What a pair of players must satisfy under one layer of constraints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layer {
    FreshAndBalanced,
    Fresh,
    Balanced,
    Any,
}

/// Swiss events keep colours within two; knockouts keep the bracket and do not trade it for colours.
pub(crate) const SWISS_LAYERS: &[Layer] = &[
    Layer::FreshAndBalanced,
    Layer::Fresh,
    Layer::Balanced,
    Layer::Any,
];
pub(crate) const KNOCKOUT_LAYERS: &[Layer] = &[Layer::Fresh, Layer::Any];

/// Which opponent a player prefers among the unpaired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Preference {
    /// Top half of the score group against its bottom half (Swiss).
    HalfGroup,
    /// The next player in order (a bracket's neighbour).
    Adjacent,
}

/// The field to pair: seeds in rank order, and each one's group (higher is better).
#[derive(Debug)]
pub(crate) struct Field<'a> {
    pub tallies: &'a [Tally],
    pub order: Vec<usize>,
    pub group: Vec<i64>,
}

/// Colours kept within two: the lower balance takes Black, so only two players both at +2 (or both
/// at −2) would push one of them to three.
fn balanced(a: &Tally, b: &Tally) -> bool {
    let (x, y) = (a.colour_balance(), b.colour_balance());
    let both_owed_white = x >= 2 && y >= 2;
    let both_owed_black = x <= -2 && y <= -2;
    !(both_owed_white || both_owed_black)
}

impl Field<'_> {
    fn tally(&self, seed: usize) -> Option<&Tally> {
        self.tallies.get(seed)
    }

    fn allowed(&self, a: usize, b: usize, layer: Layer) -> bool {
        let (Some(ta), Some(tb)) = (self.tally(a), self.tally(b)) else {
            return false;
        };
        let fresh = !ta.has_met(b);
        match layer {
            Layer::FreshAndBalanced => fresh && balanced(ta, tb),
            Layer::Fresh => fresh,
            Layer::Balanced => balanced(ta, tb),
            Layer::Any => true,
        }
    }

    /// The allowed pairs under `layer`, by position.
    fn matrix(&self, layer: Layer) -> Vec<Vec<bool>> {
        self.order
            .iter()
            .map(|&a| {
                self.order
                    .iter()
                    .map(|&b| a != b && self.allowed(a, b, layer))
                    .collect()
            })
            .collect()
    }

    /// The bye and the layer: the first candidate (in the format's order) leaving a field that pairs
    /// under the strictest layer possible. `candidates` are positions; an even field takes no bye.
    pub fn choose_bye(&self, candidates: &[usize], layers: &[Layer]) -> (Option<usize>, Layer) {
        let n = self.order.len();
        for &layer in layers {
            let matrix = self.matrix(layer);
            let mut active = vec![true; n];
            let mut mate = vec![NONE; n];
            complete(&matrix, &active, &mut mate);
            if n % 2 == 0 {
                if is_perfect(&active, &mate) {
                    return (None, layer);
                }
                continue;
            }
            for &c in candidates.iter().filter(|&&c| c < n) {
                let mut trial = mate.clone();
                detach(&mut trial, c);
                active[c] = false;
                complete(&matrix, &active, &mut trial);
                if is_perfect(&active, &trial) {
                    return (Some(c), layer);
                }
                active[c] = true;
            }
        }
        let bye = if n % 2 == 1 {
            candidates.first().copied()
        } else {
            None
        };
        (bye, Layer::Any)
    }

    /// Pairs every position but `bye` under `layer`, top down; returns pairs of seeds, best first.
    pub fn pair(
        &self,
        bye: Option<usize>,
        layer: Layer,
        preference: Preference,
    ) -> Vec<(usize, usize)> {
        let n = self.order.len();
        let matrix = self.matrix(layer);
        let mut active: Vec<bool> = (0..n).map(|p| Some(p) != bye).collect();
        let mut mate = vec![NONE; n];
        complete(&matrix, &active, &mut mate);
        let mut pairs = Vec::new();
        while let Some(top) = active.iter().position(|&a| a) {
            let rest: Vec<usize> = (top + 1..n)
                .filter(|&p| active.get(p) == Some(&true))
                .collect();
            let fits = |q: usize| {
                matrix
                    .get(top)
                    .and_then(|row| row.get(q))
                    .copied()
                    .unwrap_or(false)
            };
            let mut chosen = None;
            for q in self
                .preferences(top, &rest, preference)
                .into_iter()
                .filter(|&q| fits(q))
            {
                if let Some(next) = self.pairing_after(&matrix, &active, &mate, top, q) {
                    chosen = Some((q, next));
                    break;
                }
            }
            // Without a fitting opponent (a layer the whole field does not pair under), the next
            // player keeps the round whole rather than leaving anyone out.
            let (q, next) = match chosen {
                Some(found) => found,
                None => match rest.first() {
                    Some(&q) => (q, mate.clone()),
                    None => break,
                },
            };
            for p in [top, q] {
                if let Some(a) = active.get_mut(p) {
                    *a = false;
                }
            }
            mate = next;
            for p in [top, q] {
                detach(&mut mate, p);
            }
            if let (Some(&a), Some(&b)) = (self.order.get(top), self.order.get(q)) {
                pairs.push((a, b));
            }
        }
        pairs
    }

    /// The matching of everyone left if `top` and `q` pair now, or `None` if the rest cannot all pair.
    fn pairing_after(
        &self,
        matrix: &[Vec<bool>],
        active: &[bool],
        mate: &[usize],
        top: usize,
        q: usize,
    ) -> Option<Vec<usize>> {
        if mate.get(top) == Some(&q) {
            return Some(mate.to_vec());
        }
        let mut trial = mate.to_vec();
        let mut left = active.to_vec();
        for p in [top, q] {
            detach(&mut trial, p);
            if let Some(a) = left.get_mut(p) {
                *a = false;
            }
        }
        complete(matrix, &left, &mut trial);
        is_perfect(&left, &trial).then_some(trial)
    }

    /// `rest` ordered by how much `top` prefers each (positions in, positions out).
    fn preferences(&self, top: usize, rest: &[usize], preference: Preference) -> Vec<usize> {
        let group_of = |p: usize| self.group.get(p).copied().unwrap_or(i64::MIN);
        let own = group_of(top);
        let same: Vec<usize> = rest
            .iter()
            .copied()
            .filter(|&p| group_of(p) == own)
            .collect();
        // The ideal opponent's index in `same`: half the group down (Swiss), or the next (knockout).
        let ideal = match preference {
            Preference::HalfGroup => same.len().div_ceil(2),
            Preference::Adjacent => 1,
        }
        .saturating_sub(1);
        let mut ranked: Vec<(u64, usize, usize, usize)> = rest
            .iter()
            .map(|&p| {
                let distance = group_of(p).abs_diff(own);
                let (side, offset) = match same.iter().position(|&s| s == p) {
                    Some(i) if i >= ideal => (0, i - ideal),
                    Some(i) => (1, ideal - i),
                    None => (0, 0),
                };
                (distance, side, offset, p)
            })
            .collect();
        ranked.sort_unstable();
        ranked.into_iter().map(|(_, _, _, p)| p).collect()
    }
}

/// Takes `v` and its partner, if any, out of the matching `mate`.
fn detach(mate: &mut [usize], v: usize) {
    let Some(&partner) = mate.get(v) else {
        return;
    };
    if let Some(back) = mate.get_mut(partner) {
        *back = NONE;
    }
    if let Some(own) = mate.get_mut(v) {
        *own = NONE;
    }
}

/// Black and White for the pair (`higher` ranked, `lower`): the one owed Black by balance takes it;
/// then each takes the colour they did not have last; then the higher-ranked alternates; a player with
/// no games yet takes Black if `lot`.
pub(crate) fn colours(tallies: &[Tally], higher: usize, lower: usize, lot: bool) -> (usize, usize) {
    let (Some(h), Some(l)) = (tallies.get(higher), tallies.get(lower)) else {
        return if lot {
            (higher, lower)
        } else {
            (lower, higher)
        };
    };
    let higher_black = match h.colour_balance().cmp(&l.colour_balance()) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => match (h.last_colour, l.last_colour) {
            (Some(Color::White), Some(Color::Black)) => true,
            (Some(Color::Black), Some(Color::White)) => false,
            (Some(last), _) => last == Color::White,
            (None, Some(last)) => last == Color::Black,
            (None, None) => lot,
        },
    };
    if higher_black {
        (higher, lower)
    } else {
        (lower, higher)
    }
}
