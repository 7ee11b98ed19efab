//! The dead-stone estimate the server proposes when the scoring phase opens.
//!
//! Method, in the order a player reads a finished position:
//! 1. Unconditional life (`benson`): chains no attack can capture are alive, and opponent stones inside
//!    their vital regions are dead.
//! 2. Playouts (`playout`) for everything else, with a policy that captures and answers ataris, never
//!    fills its own eyes and never plays a self-atari of two stones or more (so seki stays seki). Each
//!    chain gets its mean ownership: over its stones and all playouts, how often its points ended its
//!    owner's (+100%) or the opponent's (-100%).
//! 3. Local reading (`reading`) for the chains the playouts leave undecided and that are short of
//!    liberties: such a chain is dead when it is captured even if its owner moves first, and the
//!    opponent chains touching it, having won the race, are alive, unless the playouts still lose them
//!    once it is off the board (`races`).
//! 4. The rest by ownership: dead below `-DEAD_OWNERSHIP_PERCENT`, and dead too when it is in atari
//!    among living opponent chains and taking it is no ko (`taken_by_living`: extending it only runs
//!    into stones that live anyway); except a chain in atari that its owner can connect to a living
//!    chain (the owner connects the moment it is threatened, so a player counts it alive; the playouts
//!    lose it when the side to move captures something larger first).
//! 5. Last, a chain in atari inside a seki stays (`in_seki`): the playouts always take it, but the
//!    chains around it are living chains of both colours with two liberties each, which neither side
//!    can touch, and GNU Go, like a player who does not want to argue over a seki, counts it as part of
//!    the seki. A false "dead" costs more than a missed one, since players accept the proposal.
//!
//! docs/dead-stones.md has the reasons for each step and the measurement against GNU Go.
//!
//! The playouts are seeded from the position's hash, so the same position always gets the same proposal.

mod benson;
mod playout;
mod reading;

use crate::board::Board;
use crate::color::Color;
use crate::point::Point;
use playout::{slot, Ownership};

/// Playouts per estimate on a finished 19x19 position: enough for a stable ownership in about 25 ms.
const PLAYOUTS_MAX: usize = 256;
/// Playouts per estimate at least, however open the board: below this the ownership gets noisy.
const PLAYOUTS_MIN: usize = 64;
/// Moves all playouts together may play, about: a playout plays some two moves per empty point, so an
/// open board (players passing early, a 25x25 board) gets fewer playouts instead of a slower estimate,
/// which runs in the game's actor when the second pass lands. A second set of the same size runs only
/// when a race's winner is in doubt (`races`).
const PLAYOUT_MOVES_BUDGET: usize = 64_000;
/// A chain is dead when its mean ownership is below minus this (percent): the playouts take it more
/// often than not. The margin keeps alive a chain that only lives or dies by who moves first, which
/// sits at 0% because the playouts alternate the first player. Measured over four seeds on the 434
/// counted corpus records against GNU Go (docs/dead-stones.md): 3 and 4 gave the same figures, 15 (the
/// value chosen before the playouts answered the last move) 3 fewer identical sets per seed, 1 a chain
/// at the tie dead that GNU Go has alive.
const DEAD_OWNERSHIP_PERCENT: i32 = 4;
/// A chain whose mean ownership is within this of zero (percent) is undecided by the playouts, and is
/// read locally when it is short of liberties.
const UNDECIDED_PERCENT: i32 = 60;
/// In a race, an opponent chain below minus this mean ownership (percent) is taken as dead already.
const ATTACKER_DEAD_PERCENT: i32 = 35;
/// Chains with at most this many liberties are read locally when undecided.
const READ_LIBERTIES_MAX: usize = 3;
/// A living chain, for the connection rule: its mean ownership is at least this (percent).
const ALIVE_PERCENT: i32 = 60;
/// Mixed into the position's hash to seed the playouts ("dead").
const SEED: u64 = 0x6465_6164;

/// The stones (every point of each dead chain) the engine believes dead on `board`, sorted.
pub fn estimate_dead(board: &Board) -> Vec<Point> {
    let chains = judge(board);
    let mut dead: Vec<Point> = chains
        .into_iter()
        .filter(|c| c.dead)
        .flat_map(|c| c.stones)
        .collect();
    dead.sort();
    dead
}

/// A chain and what the estimate makes of it.
#[derive(Debug, Clone)]
struct Chain {
    stones: Vec<Point>,
    color: Color,
    /// Mean ownership from the owner's side, -100..=100 (Benson's verdicts count as ±100).
    percent: i32,
    /// Captured in a local race even moving first (see `reading`).
    lost_race: bool,
    dead: bool,
}

/// Every chain of `board` with its verdict.
fn judge(board: &Board) -> Vec<Chain> {
    let size = board.size() as usize;
    let (alive, barred) = settle(board);
    let empty = board.points().filter(|&p| board.get(p).is_none()).count();
    let runs = (PLAYOUT_MOVES_BUDGET / (2 * empty + 1)).clamp(PLAYOUTS_MIN, PLAYOUTS_MAX);
    let ownership = playout::ownership(board, &barred, runs, board.hash() ^ SEED);
    let mut chains = chains_with_ownership(board, &ownership);
    for chain in &mut chains {
        let first = chain.stones.first().map_or(0, |&p| slot(size, p));
        if alive.get(first) == Some(&true) {
            chain.percent = 100;
        } else if barred.get(first) == Some(&Some(chain.color)) {
            chain.percent = -100;
        }
    }
    let percent_at = percent_by_point(size, &chains);
    let won_race = races(board, &mut chains, &percent_at, &barred, runs);
    for chain in &mut chains {
        let first = chain.stones.first().map_or(0, |&p| slot(size, p));
        chain.dead = if chain.percent.abs() == 100 || chain.lost_race {
            chain.percent < 0 || chain.lost_race
        } else if won_race.get(first) == Some(&true) {
            false
        } else {
            (chain.percent < -DEAD_OWNERSHIP_PERCENT
                || taken_by_living(board, chain, &percent_at, &won_race))
                && !connects_to_life(board, first_stone(chain), &percent_at)
        };
    }
    let mut dead_at = vec![false; size * size];
    for chain in chains.iter().filter(|c| c.dead) {
        for &p in &chain.stones {
            dead_at[slot(size, p)] = true;
        }
    }
    for chain in &mut chains {
        let stone = first_stone(chain);
        if chain.dead
            && barred[slot(size, stone)] != Some(chain.color)
            && in_seki(board, stone, &dead_at)
        {
            chain.dead = false;
        }
    }
    chains
}

fn first_stone(chain: &Chain) -> Point {
    chain.stones.first().copied().unwrap_or(Point::new(0, 0))
}

/// Whether `chain` is undecided by the playouts, short of liberties, up against opponent chains that
/// hold, and captured even when its owner moves first.
fn loses_race(board: &Board, chain: &Chain, percent_at: &[i32], nodes_left: &mut u32) -> bool {
    let stone = first_stone(chain);
    if chain.percent.abs() >= UNDECIDED_PERCENT {
        return false;
    }
    let liberties = board
        .liberties_up_to(stone, READ_LIBERTIES_MAX + 1, stone)
        .len();
    liberties <= READ_LIBERTIES_MAX
        && attackers_hold(board, chain, percent_at)
        && reading::dies_moving_first(board, stone, nodes_left) == Some(true)
}

/// Step 3: marks the chains that lose a race, and returns per point whether its stone belongs to a chain
/// that won one and lives. A winner the playouts call dead (below `-DEAD_OWNERSHIP_PERCENT`) lives only
/// if it still is not dead once the chains it captured are off the board: taking two stones inside the
/// opponent's area makes one small eye, not life (`01569.sgf`: White's ten stones around Black's J3 K3
/// win that race and stay dead, as GNU Go has them). A loser whose winners all stay dead is no loser:
/// its stones are then judged by the playouts like any other.
fn races(
    board: &Board,
    chains: &mut [Chain],
    percent_at: &[i32],
    barred: &[Option<Color>],
    runs: usize,
) -> Vec<bool> {
    let mut nodes_left = reading::NODES_TOTAL_MAX;
    for chain in chains.iter_mut() {
        chain.lost_race = loses_race(board, chain, percent_at, &mut nodes_left);
    }
    let mut won = race_winners(board, chains);
    let doubtful: Vec<usize> = (0..won.len())
        .filter(|&p| won[p] && (-99..-DEAD_OWNERSHIP_PERCENT).contains(&percent_at[p]))
        .collect();
    if doubtful.is_empty() {
        return won;
    }
    let mut taken = board.clone();
    for loser in chains.iter().filter(|c| c.lost_race) {
        taken.remove_chain(first_stone(loser), &mut Vec::new());
    }
    let ownership = playout::ownership(&taken, barred, runs, taken.hash() ^ SEED);
    let size = board.size() as usize;
    let percent_after = percent_by_point(size, &chains_with_ownership(&taken, &ownership));
    for p in doubtful {
        won[p] = percent_after[p] >= -DEAD_OWNERSHIP_PERCENT;
    }
    for loser in chains.iter_mut().filter(|c| c.lost_race) {
        let winner = Some(loser.color.opponent());
        let mut winners = loser
            .stones
            .iter()
            .flat_map(|&s| board.adjacent(s))
            .filter(|&n| board.get(n) == winner)
            .peekable();
        if winners.peek().is_some() && winners.all(|n| !won[slot(size, n)]) {
            loser.lost_race = false;
        }
    }
    won
}

/// Per point, whether its stone belongs to a chain touching one that lost a race: the winner of a race
/// lives, however the playouts (which often lose the race for it) scored it (but see `races`).
fn race_winners(board: &Board, chains: &[Chain]) -> Vec<bool> {
    let size = board.size() as usize;
    let mut won = vec![false; size * size];
    for chain in chains.iter().filter(|c| c.lost_race) {
        let winner = Some(chain.color.opponent());
        for &s in &chain.stones {
            for n in board.adjacent(s).filter(|&n| board.get(n) == winner) {
                for p in board.chain(n) {
                    won[slot(size, p)] = true;
                }
            }
        }
    }
    won
}

/// Whether every opponent chain touching `chain` may live (not below `-ATTACKER_DEAD_PERCENT`): reading a
/// race against stones that are themselves dead would only find that they can capture first.
fn attackers_hold(board: &Board, chain: &Chain, percent_at: &[i32]) -> bool {
    every_opponent_beside(board, chain, |at| {
        percent_at
            .get(at)
            .is_some_and(|&p| p >= -ATTACKER_DEAD_PERCENT)
    })
}

/// Whether `holds` is true of every opponent stone touching `chain`, given the stone's per-point index.
fn every_opponent_beside(board: &Board, chain: &Chain, holds: impl Fn(usize) -> bool) -> bool {
    let size = board.size() as usize;
    let enemy = Some(chain.color.opponent());
    chain.stones.iter().all(|&s| {
        board
            .adjacent(s)
            .all(|n| board.get(n) != enemy || holds(slot(size, n)))
    })
}

/// Per point, the mean ownership of the chain its stone belongs to (0 where there is none).
fn percent_by_point(size: usize, chains: &[Chain]) -> Vec<i32> {
    let mut percent_at = vec![0i32; size * size];
    for chain in chains {
        for &p in &chain.stones {
            percent_at[slot(size, p)] = chain.percent;
        }
    }
    percent_at
}

/// Whether the chain through `stone`, in atari, is part of a seki: the opponent chain that would take it
/// has two liberties and still two after taking it, and liberties shared between living chains of two
/// liberties each lead from that chain to a living chain of the stone's own colour. Neither side can
/// fill a liberty shared across the colours without putting itself in atari, so the cluster stays as it
/// is, and GNU Go counts the stone in atari as part of the seki (`final_status` answers `seki`).
fn in_seki(board: &Board, stone: Point, dead_at: &[bool]) -> bool {
    let size = board.size() as usize;
    let (Some(color), Some(liberty)) = (board.get(stone), board.atari_liberty(stone)) else {
        return false;
    };
    let short = |p: Point| {
        board.get(p).is_some()
            && !dead_at[slot(size, p)]
            && board.liberties_up_to(p, 3, p).len() == 2
    };
    // When taking the stone gives the taker a third liberty, the taker is out of the seki and the
    // stone simply dead.
    if board.preview(liberty, color.opponent()).is_err() {
        return false;
    }
    let mut taken = board.clone();
    taken.play_unchecked(liberty, color.opponent(), &mut Vec::new());
    if taken.liberties_up_to(liberty, 3, liberty).len() != 2 {
        return false;
    }
    let mut seen: Vec<Option<usize>> = Vec::new();
    let mut queue: Vec<Point> = Vec::new();
    for n in board.adjacent(liberty) {
        if board.get(n) == Some(color.opponent()) && short(n) && !seen.contains(&board.chain_id(n))
        {
            seen.push(board.chain_id(n));
            queue.push(n);
        }
    }
    while let Some(p) = queue.pop() {
        if board.get(p) == Some(color) {
            return true;
        }
        for shared in board.liberties_up_to(p, 2, p) {
            for n in board.adjacent(shared) {
                if short(n) && !seen.contains(&board.chain_id(n)) {
                    seen.push(board.chain_id(n));
                    queue.push(n);
                }
            }
        }
    }
    false
}

/// Whether the chain through `stone` is in atari at a point where its owner's stone would join it to a
/// living chain with three liberties or more.
fn connects_to_life(board: &Board, stone: Point, percent_at: &[i32]) -> bool {
    let size = board.size() as usize;
    let (Some(owner), Some(liberty)) = (board.get(stone), board.atari_liberty(stone)) else {
        return false;
    };
    let joins_living = board.adjacent(liberty).any(|n| {
        board.get(n) == Some(owner)
            && percent_at
                .get(slot(size, n))
                .is_some_and(|&p| p >= ALIVE_PERCENT)
    });
    if !joins_living || board.preview(liberty, owner).is_err() {
        return false;
    }
    let mut joined = board.clone();
    joined.play_unchecked(liberty, owner, &mut Vec::new());
    joined.liberties_up_to(liberty, 3, liberty).len() >= 3
}

/// Every chain with its mean ownership from its owner's side, in percent.
fn chains_with_ownership(board: &Board, ownership: &Ownership) -> Vec<Chain> {
    let size = board.size() as usize;
    let mut seen = vec![false; size * size];
    let mut chains = Vec::new();
    for (point, color) in board.stones() {
        if seen[slot(size, point)] {
            continue;
        }
        let stones = board.chain(point);
        let sign = if color == Color::Black { 1 } else { -1 };
        let mut sum = 0i64;
        for &p in &stones {
            seen[slot(size, p)] = true;
            sum += i64::from(sign * ownership.sums[slot(size, p)]);
        }
        let total = i64::from(ownership.runs.max(1)) * stones.len() as i64;
        let percent = (sum * 100 / total) as i32;
        chains.push(Chain {
            stones,
            color,
            percent,
            lost_race: false,
            dead: false,
        });
    }
    chains
}

/// Benson's verdicts for both colours: per point, whether its stone is unconditionally alive, and which
/// colour may not play there (the opponent of the colour whose vital region it is).
fn settle(board: &Board) -> (Vec<bool>, Vec<Option<Color>>) {
    let size = board.size() as usize;
    let mut alive = vec![false; size * size];
    let mut barred: Vec<Option<Color>> = vec![None; size * size];
    for color in [Color::Black, Color::White] {
        let settled = benson::settle(board, color);
        for p in settled.alive {
            alive[slot(size, p)] = true;
        }
        for p in settled.vital {
            barred[slot(size, p)] = Some(color.opponent());
        }
    }
    (alive, barred)
}

/// Whether `chain`, not settled by the playouts (below `UNDECIDED_PERCENT`), is in atari with every
/// opponent chain touching it alive (`ALIVE_PERCENT` or more, or the winner of a race), and taking it is
/// no ko. Its owner can only extend it against stones that live anyway, so a player counts it dead.
/// The playouts can leave such a chain near 0% when the extension threatens something on the way:
/// in `06358.sgf` Black's C16 extending at B16 puts White's nine stones in atari, which White answers
/// by taking D17 D18 (dead, lost their race), so C16 is lost either way. A ko is left out: the owner
/// can fight it, and GNU Go keeps such a stone alive (`05151.sgf` H7, `05234.sgf` A7).
fn taken_by_living(board: &Board, chain: &Chain, percent_at: &[i32], won_race: &[bool]) -> bool {
    if chain.percent >= UNDECIDED_PERCENT {
        return false;
    }
    let Some(liberty) = board.atari_liberty(first_stone(chain)) else {
        return false;
    };
    let taken = board.preview(liberty, chain.color.opponent());
    taken.is_ok_and(|t| t.ko_point.is_none())
        && every_opponent_beside(board, chain, |at| {
            won_race.get(at) == Some(&true)
                || percent_at.get(at).is_some_and(|&p| p >= ALIVE_PERCENT)
        })
}
