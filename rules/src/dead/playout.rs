//! Playouts with a simple policy, for what the static analysis leaves open: from the final position both
//! sides play until neither has a sensible move, many times, and each point's owner at the end is tallied.
//!
//! The policy plays as a weak but not careless player would, since pure random play kills living groups
//! (it fills liberties of its own groups until they are captured) and saves dead ones (it never finds the
//! one move that captures):
//! - capture what can be captured and answer ataris: of the chains in atari, the largest that can be
//!   taken is taken, or, when it is one of ours, saved by capturing a neighbour in atari or by
//!   extending to two liberties or more;
//! - otherwise a random move, but never onto one's own eye, never into a point the static analysis
//!   settled (the eyes of unconditionally alive groups), and never a self-atari of two stones or more
//!   (a single stone may throw in, which is how eyes are destroyed), which also leaves seki alone: in a
//!   seki every move onto a shared liberty is such a self-atari;
//! - three times in ten, that move answers the opponent's last move on one of the eight points around
//!   it, so a fight is fought out by both sides rather than won by whoever plays twice in it.
//!
//! The generator is seeded by the caller from the position, so the estimate is a function of the board.

use crate::board::Board;
use crate::color::Color;
use crate::point::Point;
use crate::random::SeededRng;

/// A playout stops after this many moves per point of the board at the latest: finished positions end in
/// well under one, and the bound only cuts off long ko fights, which random play can repeat forever.
const MOVES_PER_POINT_MAX: usize = 3;
/// How often (percent) a move with nothing urgent answers the opponent's last move, on one of the eight
/// points around it, instead of going anywhere. Fights are local: a random move elsewhere leaves the
/// last move unanswered, so whoever happens to play twice in a fight wins it. Answering locally is the
/// locality of MoGo's playouts; measured over four seeds on the 434 counted records (docs/dead-stones.md),
/// 30% gave 3 more identical sets on average than none, with the same winners, and 60% fewer.
const LOCAL_REPLY_PERCENT: usize = 30;
/// The eight points around a point, as (column, row) steps.
const AROUND: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// Per point, the sum over playouts of +1 when Black owned it at the end, -1 when White did.
#[derive(Debug, Clone)]
pub(super) struct Ownership {
    pub sums: Vec<i32>,
    pub runs: i32,
}

/// Runs `runs` playouts from `board`, Black and White alternately moving first. `barred` holds, per point
/// (row-major), the colour that may not play there, if any.
pub(super) fn ownership(
    board: &Board,
    barred: &[Option<Color>],
    runs: usize,
    seed: u64,
) -> Ownership {
    let size = board.size() as usize;
    let mut sums = vec![0i32; size * size];
    let mut rng = SeededRng::new(seed);
    for run in 0..runs {
        let first = if run % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        let mut playout = Playout::new(board.clone(), barred);
        playout.run(first, &mut rng, MOVES_PER_POINT_MAX * size * size);
        playout.tally(&mut sums);
    }
    Ownership {
        sums,
        runs: runs as i32,
    }
}

/// One playout's board with its empty points kept in a list, so a random move costs no scan of the board.
struct Playout<'a> {
    board: Board,
    size: usize,
    empty: Vec<Point>,
    /// Per point, its place in `empty` (`usize::MAX` when occupied).
    place: Vec<usize>,
    ko: Option<Point>,
    barred: &'a [Option<Color>],
    captured: Vec<Point>,
    /// Stones whose chains were in atari when last looked at (see `urgent`).
    watch: Vec<Point>,
}

impl<'a> Playout<'a> {
    fn new(board: Board, barred: &'a [Option<Color>]) -> Playout<'a> {
        let size = board.size() as usize;
        let mut place = vec![usize::MAX; size * size];
        let mut empty = Vec::with_capacity(size * size);
        for point in board.points().filter(|&p| board.get(p).is_none()) {
            place[slot(size, point)] = empty.len();
            empty.push(point);
        }
        let watch = board
            .points()
            .filter(|&p| board.atari_liberty(p).is_some())
            .collect();
        Playout {
            board,
            size,
            empty,
            place,
            ko: None,
            barred,
            captured: Vec::new(),
            watch,
        }
    }

    fn run(&mut self, first: Color, rng: &mut SeededRng, max_moves: usize) {
        let (mut to_move, mut passes) = (first, 0);
        let mut last: Option<Point> = None;
        for _ in 0..max_moves {
            let chosen = self
                .urgent(to_move)
                .or_else(|| {
                    let local = last.filter(|_| rng.below(100) < LOCAL_REPLY_PERCENT)?;
                    self.local_move(local, to_move, rng)
                })
                .or_else(|| self.random_move(to_move, rng));
            match chosen {
                Some((point, ko)) => {
                    self.play(point, to_move, ko);
                    self.watch_around(point);
                    last = Some(point);
                    passes = 0;
                }
                None => {
                    last = None;
                    self.ko = None;
                    passes += 1;
                    if passes == 2 {
                        return;
                    }
                }
            }
            to_move = to_move.opponent();
        }
    }

    fn play(&mut self, point: Point, color: Color, takes_ko: bool) {
        self.captured.clear();
        self.board.play_unchecked(point, color, &mut self.captured);
        self.remove_empty(point);
        for i in 0..self.captured.len() {
            let p = self.captured[i];
            self.place[slot(self.size, p)] = self.empty.len();
            self.empty.push(p);
        }
        self.ko = if takes_ko {
            self.captured.first().copied()
        } else {
            None
        };
    }

    fn remove_empty(&mut self, point: Point) {
        let at = self.place[slot(self.size, point)];
        if at >= self.empty.len() {
            return;
        }
        self.empty.swap_remove(at);
        if let Some(&moved) = self.empty.get(at) {
            self.place[slot(self.size, moved)] = at;
        }
        self.place[slot(self.size, point)] = usize::MAX;
    }

    /// The urgent move, if any: of the chains in atari, the largest one that can be captured or saved.
    /// Chains only fall into atari next to a move, so `watch` holds the stones in atari at the start and
    /// beside each move since; entries that are gone or out of atari are dropped as they are met.
    fn urgent(&mut self, color: Color) -> Option<(Point, bool)> {
        let mut best: Option<(usize, (Point, bool))> = None;
        let mut i = 0;
        while let Some(&stone) = self.watch.get(i) {
            let (Some(owner), Some(liberty)) =
                (self.board.get(stone), self.board.atari_liberty(stone))
            else {
                self.watch.swap_remove(i);
                continue;
            };
            i += 1;
            let stones = self.board.chain_len(stone);
            if best.is_some_and(|(most, _)| most >= stones) {
                continue;
            }
            let found = if owner == color {
                self.rescue(stone, liberty, color)
            } else {
                self.acceptable(liberty, color)
            };
            if let Some(found) = found {
                best = Some((stones, found));
            }
        }
        best.map(|(_, found)| found)
    }

    /// Adds the chains beside `point` (and its own) that are now in atari to `watch`.
    fn watch_around(&mut self, point: Point) {
        let around: Vec<Point> = std::iter::once(point)
            .chain(self.board.adjacent(point))
            .collect();
        for p in around {
            if self.board.atari_liberty(p).is_none() {
                continue;
            }
            let id = self.board.chain_id(p);
            if !self.watch.iter().any(|&w| self.board.chain_id(w) == id) {
                self.watch.push(p);
            }
        }
    }

    /// Saves our chain through `stone`, in atari at `liberty`: capture a neighbour in atari, or extend.
    fn rescue(&self, stone: Point, liberty: Point, color: Color) -> Option<(Point, bool)> {
        for s in self.board.chain(stone) {
            for n in self.board.adjacent(s) {
                if self.board.get(n) != Some(color.opponent()) {
                    continue;
                }
                let capture = self
                    .board
                    .atari_liberty(n)
                    .and_then(|p| self.acceptable(p, color));
                if capture.is_some() {
                    return capture;
                }
            }
        }
        let extended = self.acceptable(liberty, color)?;
        (self.self_atari_size(liberty, color).is_none()).then_some(extended)
    }

    /// A random `playable` move among the eight points around `last` (the opponent's last move).
    fn local_move(&self, last: Point, color: Color, rng: &mut SeededRng) -> Option<(Point, bool)> {
        let size = self.size as i32;
        let found: Vec<(Point, bool)> = AROUND
            .iter()
            .filter_map(|&(dc, dr)| {
                let (col, row) = (i32::from(last.col) + dc, i32::from(last.row) + dr);
                if col < 0 || row < 0 || col >= size || row >= size {
                    return None;
                }
                self.playable(Point::new(col as u8, row as u8), color)
            })
            .collect();
        (!found.is_empty()).then(|| found[rng.below(found.len())])
    }

    /// A random acceptable move: from a random place in the empty list, the first acceptable point.
    fn random_move(&self, color: Color, rng: &mut SeededRng) -> Option<(Point, bool)> {
        let count = self.empty.len();
        if count == 0 {
            return None;
        }
        let start = rng.below(count);
        (0..count).find_map(|k| self.playable(self.empty[(start + k) % count], color))
    }

    /// `acceptable`, and not a self-atari of two stones or more: the test of every move that is not
    /// urgent.
    fn playable(&self, point: Point, color: Color) -> Option<(Point, bool)> {
        let found = self.acceptable(point, color)?;
        match self.self_atari_size(point, color) {
            Some(stones) if stones > 1 => None,
            _ => Some(found),
        }
    }

    /// `point` when `color` may play it: legal, not the ko, not barred, not its own eye; with whether it
    /// takes a ko.
    fn acceptable(&self, point: Point, color: Color) -> Option<(Point, bool)> {
        if Some(point) == self.ko
            || self.barred[slot(self.size, point)] == Some(color)
            || self.board.is_eye_like(point, color)
        {
            return None;
        }
        let preview = self.board.preview(point, color).ok()?;
        Some((point, preview.ko_point.is_some()))
    }

    /// When playing `point` would leave the chain it joins with a single liberty and capture nothing, the
    /// number of stones in that chain.
    fn self_atari_size(&self, point: Point, color: Color) -> Option<usize> {
        let mut liberties: Vec<Point> = Vec::with_capacity(4);
        let mut stones = 1;
        let mut seen: [Option<usize>; 4] = [None; 4];
        for (i, n) in self.board.adjacent(point).enumerate() {
            match self.board.get(n) {
                None => push_new(&mut liberties, n),
                Some(c) if c == color => {
                    let id = self.board.chain_id(n);
                    if seen.contains(&id) {
                        continue;
                    }
                    seen[i] = id;
                    stones += self.board.chain_len(n);
                    for l in self.board.liberties_up_to(n, 2, point) {
                        push_new(&mut liberties, l);
                    }
                }
                Some(_) => {
                    if self.board.atari_liberty(n) == Some(point) {
                        return None;
                    }
                }
            }
            if liberties.len() >= 2 {
                return None;
            }
        }
        Some(stones)
    }

    /// Adds this playout's final owners to `sums`: a stone's colour, or the colour around an empty point.
    fn tally(&self, sums: &mut [i32]) {
        for point in self.board.points() {
            let owner = self.board.get(point).or_else(|| {
                let mut around = self.board.adjacent(point).map(|n| self.board.get(n));
                let first = around.next()??;
                around.all(|c| c == Some(first)).then_some(first)
            });
            sums[slot(self.size, point)] += match owner {
                Some(Color::Black) => 1,
                Some(Color::White) => -1,
                None => 0,
            };
        }
    }
}

fn push_new(points: &mut Vec<Point>, point: Point) {
    if !points.contains(&point) {
        points.push(point);
    }
}

/// A point's index in row-major per-point arrays.
pub(super) fn slot(size: usize, point: Point) -> usize {
    point.row as usize * size + point.col as usize
}
