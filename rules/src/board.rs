//! The board: stones, chains and liberties, kept incrementally so that a move costs a handful of array
//! writes. It knows captures and suicide but nothing of turns, ko or history; `Game` adds those.
//!
//! Representation: a padded array with a one-point border, so neighbours never need bounds checks. Each
//! chain is a circular linked list of its stones (`next`) with a shared `head`. Per chain we keep
//! pseudo-liberties (each stone–empty adjacency counted once) as a count, a sum and a sum of squares of
//! the liberty indices: the chain has no liberty when the count is zero, and exactly one distinct liberty
//! when `count * sum_sq == sum * sum` (Cauchy–Schwarz is an equality only when all terms are equal). That
//! answers "captured?" and "in atari?" in O(1) without liberty sets.

use crate::color::Color;
use crate::error::{IllegalMove, SetupError};
use crate::point::{Point, MAX_SIZE, MIN_SIZE};
use crate::zobrist::STONE_KEYS;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Cell {
    Empty,
    Black,
    White,
    Border,
}

impl Cell {
    fn of(color: Color) -> Cell {
        match color {
            Color::Black => Cell::Black,
            Color::White => Cell::White,
        }
    }

    fn color(self) -> Option<Color> {
        match self {
            Cell::Black => Some(Color::Black),
            Cell::White => Some(Color::White),
            Cell::Empty | Cell::Border => None,
        }
    }
}

/// What is stored per chain, at the chain's head.
#[derive(Debug, Clone, Copy, Default)]
struct ChainInfo {
    stones: u16,
    liberty_count: u16,
    liberty_sum: u32,
    liberty_sum_sq: u64,
    /// XOR of the Zobrist keys of the chain's stones: removing the chain from the hash is one XOR.
    hash: u64,
}

impl ChainInfo {
    fn add_liberty(&mut self, index: usize) {
        self.liberty_count += 1;
        self.liberty_sum += index as u32;
        self.liberty_sum_sq += (index * index) as u64;
    }

    fn remove_liberty(&mut self, index: usize) {
        self.liberty_count -= 1;
        self.liberty_sum -= index as u32;
        self.liberty_sum_sq -= (index * index) as u64;
    }

    fn has_no_liberty(&self) -> bool {
        self.liberty_count == 0
    }

    fn in_atari(&self) -> bool {
        let sum = self.liberty_sum as u64;
        self.liberty_count > 0 && self.liberty_count as u64 * self.liberty_sum_sq == sum * sum
    }
}

/// What a legal play would do, worked out before the board is touched.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlayPreview {
    /// The position hash after the play and its captures.
    pub hash_after: u64,
    /// The point a simple-ko rule forbids the opponent to play next, when this play takes a ko.
    pub ko_point: Option<u16>,
}

/// A Go board of any size from 2x2 to 25x25.
#[derive(Debug, Clone)]
pub struct Board {
    size: u8,
    stride: usize,
    cells: Box<[Cell]>,
    head: Box<[u16]>,
    next: Box<[u16]>,
    chains: Box<[ChainInfo]>,
    hash: u64,
}

impl PartialEq for Board {
    /// Two boards are equal when the same stones stand on the same points.
    fn eq(&self, other: &Board) -> bool {
        self.size == other.size && self.cells == other.cells
    }
}

impl Eq for Board {}

impl Board {
    pub fn new(size: u8) -> Result<Board, SetupError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(SetupError::BoardSize(size));
        }
        let stride = size as usize + 2;
        let mut cells = vec![Cell::Border; stride * stride].into_boxed_slice();
        for row in 0..size {
            for col in 0..size {
                cells[(row as usize + 1) * stride + col as usize + 1] = Cell::Empty;
            }
        }
        Ok(Board {
            size,
            stride,
            cells,
            head: vec![0; stride * stride].into_boxed_slice(),
            next: vec![0; stride * stride].into_boxed_slice(),
            chains: vec![ChainInfo::default(); stride * stride].into_boxed_slice(),
            hash: 0,
        })
    }

    pub fn size(&self) -> u8 {
        self.size
    }

    /// The Zobrist hash of the stones on the board (who is to move is not part of it).
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The stone on `point`, or `None` when it is empty or off the board.
    pub fn get(&self, point: Point) -> Option<Color> {
        if !point.is_on_board(self.size) {
            return None;
        }
        self.cells[self.index(point)].color()
    }

    /// Every point of the board, row by row from the top left.
    pub fn points(&self) -> impl Iterator<Item = Point> + '_ {
        let size = self.size;
        (0..size).flat_map(move |row| (0..size).map(move |col| Point::new(col, row)))
    }

    /// Every stone on the board with its colour.
    pub fn stones(&self) -> impl Iterator<Item = (Point, Color)> + '_ {
        self.points().filter_map(|p| self.get(p).map(|c| (p, c)))
    }

    pub fn count_stones(&self, color: Color) -> usize {
        let wanted = Cell::of(color);
        self.cells.iter().filter(|&&cell| cell == wanted).count()
    }

    /// The points of the chain through `point` (empty when there is no stone there).
    pub fn chain(&self, point: Point) -> Vec<Point> {
        if self.get(point).is_none() {
            return Vec::new();
        }
        self.chain_indices(self.index(point))
            .map(|i| self.point_of(i))
            .collect()
    }

    /// The number of distinct liberties of the chain through `point` (0 for an empty point).
    pub fn liberties(&self, point: Point) -> usize {
        if self.get(point).is_none() {
            return 0;
        }
        let mut seen = Vec::new();
        for stone in self.chain_indices(self.index(point)) {
            for n in self.neighbours(stone) {
                if self.cells[n] == Cell::Empty && !seen.contains(&n) {
                    seen.push(n);
                }
            }
        }
        seen.len()
    }

    /// The on-board orthogonal neighbours of `point`.
    pub fn adjacent(&self, point: Point) -> impl Iterator<Item = Point> + '_ {
        let index = self.index(point);
        self.neighbours(index)
            .into_iter()
            .filter(|&n| self.cells[n] != Cell::Border)
            .map(|n| self.point_of(n))
    }

    /// Puts a stone on an empty point as setup (handicap, SGF `AB`/`AW`): no captures are made, but a
    /// setup stone that leaves any chain without liberties is refused, so the board stays a legal position.
    pub fn place_setup_stone(&mut self, point: Point, color: Color) -> Result<(), SetupError> {
        if !point.is_on_board(self.size) {
            return Err(SetupError::OffBoard(point));
        }
        let index = self.index(point);
        if self.cells[index] != Cell::Empty {
            return Err(SetupError::Occupied(point));
        }
        let mut captured = Vec::new();
        let before = self.clone();
        self.apply(index, color, &mut captured);
        let no_liberty = self.chains[self.head[index] as usize].has_no_liberty();
        if !captured.is_empty() || no_liberty {
            *self = before;
            return Err(SetupError::NoLiberties(point));
        }
        Ok(())
    }

    /// Checks a play for occupied and suicide, and previews its hash and captures, without changing anything.
    pub(crate) fn preview(&self, point: Point, color: Color) -> Result<PlayPreview, IllegalMove> {
        if !point.is_on_board(self.size) {
            return Err(IllegalMove::OffBoard);
        }
        let index = self.index(point);
        if self.cells[index] != Cell::Empty {
            return Err(IllegalMove::Occupied);
        }
        let own = Cell::of(color);
        let mut hash_after = self.hash ^ STONE_KEYS[index][color.index()];
        let mut captured_heads = [u16::MAX; 4];
        let mut captured_stones = 0u32;
        let mut has_empty_neighbour = false;
        let mut has_own_neighbour = false;
        let mut connects_to_safe_chain = false;
        for (slot, n) in self.neighbours(index).into_iter().enumerate() {
            match self.cells[n] {
                Cell::Empty => has_empty_neighbour = true,
                Cell::Border => {}
                cell => {
                    let head = self.head[n];
                    let chain = &self.chains[head as usize];
                    if cell == own {
                        has_own_neighbour = true;
                        connects_to_safe_chain |= !chain.in_atari();
                    } else if chain.in_atari() && !captured_heads.contains(&head) {
                        captured_heads[slot] = head;
                        captured_stones += chain.stones as u32;
                        hash_after ^= chain.hash;
                    }
                }
            }
        }
        if captured_stones == 0 && !has_empty_neighbour && !connects_to_safe_chain {
            return Err(IllegalMove::Suicide);
        }
        // Taking a single stone with a lone stone that is left with that one liberty is a ko.
        let takes_ko = captured_stones == 1 && !has_own_neighbour && !has_empty_neighbour;
        let ko_point = takes_ko.then(|| {
            let head = captured_heads.iter().find(|&&h| h != u16::MAX).copied();
            head.expect("one captured chain")
        });
        Ok(PlayPreview {
            hash_after,
            ko_point,
        })
    }

    /// Plays a stone already checked by `preview`, removing captures; their points are appended to `captured`.
    pub(crate) fn play_unchecked(&mut self, point: Point, color: Color, captured: &mut Vec<Point>) {
        let index = self.index(point);
        self.apply(index, color, captured);
    }

    /// Removes the chain through `point` from the board (used to clear dead stones for counting).
    pub(crate) fn remove_chain(&mut self, point: Point, removed: &mut Vec<Point>) {
        let index = self.index(point);
        if let Some(color) = self.cells[index].color() {
            self.capture(self.head[index] as usize, color.opponent(), removed);
        }
    }

    /// An id of the chain through `point` (its head), equal for every stone of the chain while the board
    /// is unchanged; `None` for an empty point.
    pub(crate) fn chain_id(&self, point: Point) -> Option<usize> {
        self.get(point)?;
        Some(self.head[self.index(point)] as usize)
    }

    /// The number of stones of the chain through `point` (0 for an empty point).
    pub(crate) fn chain_len(&self, point: Point) -> usize {
        self.chain_id(point)
            .map_or(0, |head| self.chains[head].stones as usize)
    }

    /// The one liberty of the chain through `point` when it is in atari, in O(1): with every pseudo-liberty
    /// on the same point, their sum divided by their count is that point.
    pub(crate) fn atari_liberty(&self, point: Point) -> Option<Point> {
        let chain = &self.chains[self.chain_id(point)?];
        chain
            .in_atari()
            .then(|| self.point_of(chain.liberty_sum as usize / chain.liberty_count as usize))
    }

    /// Up to `max` distinct liberties of the chain through `point`, other than `except`.
    pub(crate) fn liberties_up_to(&self, point: Point, max: usize, except: Point) -> Vec<Point> {
        let mut found = Vec::with_capacity(max);
        if self.get(point).is_none() {
            return found;
        }
        let except = self.index(except);
        for stone in self.chain_indices(self.index(point)) {
            for n in self.neighbours(stone) {
                if self.cells[n] == Cell::Empty && n != except && !found.contains(&self.point_of(n))
                {
                    found.push(self.point_of(n));
                    if found.len() >= max {
                        return found;
                    }
                }
            }
        }
        found
    }

    pub(crate) fn index(&self, point: Point) -> usize {
        (point.row as usize + 1) * self.stride + point.col as usize + 1
    }

    pub(crate) fn point_of(&self, index: usize) -> Point {
        Point::new(
            (index % self.stride - 1) as u8,
            (index / self.stride - 1) as u8,
        )
    }

    fn neighbours(&self, index: usize) -> [usize; 4] {
        [
            index - self.stride,
            index - 1,
            index + 1,
            index + self.stride,
        ]
    }

    fn chain_indices(&self, start: usize) -> impl Iterator<Item = usize> + '_ {
        let mut current = Some(start);
        std::iter::from_fn(move || {
            let index = current?;
            let next = self.next[index] as usize;
            current = (next != start).then_some(next);
            Some(index)
        })
    }

    /// Places a stone, merges chains, removes captured opponent chains.
    fn apply(&mut self, index: usize, color: Color, captured: &mut Vec<Point>) {
        let own = Cell::of(color);
        let key = STONE_KEYS[index][color.index()];
        self.cells[index] = own;
        self.head[index] = index as u16;
        self.next[index] = index as u16;
        self.chains[index] = ChainInfo {
            stones: 1,
            hash: key,
            ..ChainInfo::default()
        };
        self.hash ^= key;
        let neighbours = self.neighbours(index);
        for &n in &neighbours {
            match self.cells[n] {
                Cell::Empty => self.chains[index].add_liberty(n),
                Cell::Border => {}
                _ => {
                    let head = self.head[n] as usize;
                    self.chains[head].remove_liberty(index);
                }
            }
        }
        for &n in &neighbours {
            if self.cells[n] == own && self.head[n] != self.head[index] {
                self.merge(self.head[index] as usize, self.head[n] as usize);
            }
        }
        let enemy = Cell::of(color.opponent());
        for &n in &neighbours {
            if self.cells[n] == enemy && self.chains[self.head[n] as usize].has_no_liberty() {
                self.capture(self.head[n] as usize, color, captured);
            }
        }
    }

    /// Joins two chains, relabelling the smaller one.
    fn merge(&mut self, a: usize, b: usize) {
        let (big, small) = if self.chains[a].stones >= self.chains[b].stones {
            (a, b)
        } else {
            (b, a)
        };
        let mut stone = small;
        loop {
            self.head[stone] = big as u16;
            stone = self.next[stone] as usize;
            if stone == small {
                break;
            }
        }
        self.next.swap(big, small);
        let absorbed = self.chains[small];
        let chain = &mut self.chains[big];
        chain.stones += absorbed.stones;
        chain.liberty_count += absorbed.liberty_count;
        chain.liberty_sum += absorbed.liberty_sum;
        chain.liberty_sum_sq += absorbed.liberty_sum_sq;
        chain.hash ^= absorbed.hash;
    }

    /// Removes the chain at `head`, giving its points back as liberties to the `capturer`'s chains around it.
    fn capture(&mut self, head: usize, capturer: Color, captured: &mut Vec<Point>) {
        let capturer_cell = Cell::of(capturer);
        self.hash ^= self.chains[head].hash;
        let mut stone = head;
        loop {
            let next = self.next[stone] as usize;
            self.cells[stone] = Cell::Empty;
            captured.push(self.point_of(stone));
            for n in self.neighbours(stone) {
                if self.cells[n] == capturer_cell {
                    let h = self.head[n] as usize;
                    self.chains[h].add_liberty(stone);
                }
            }
            stone = next;
            if stone == head {
                break;
            }
        }
    }

    /// True when `point` is empty and every neighbour is `color` (or the edge) and the diagonals do not let
    /// the opponent cut it into a false eye. Used by random play, which must not fill its own eyes.
    pub fn is_eye_like(&self, point: Point, color: Color) -> bool {
        let index = self.index(point);
        if self.cells[index] != Cell::Empty {
            return false;
        }
        let own = Cell::of(color);
        if self
            .neighbours(index)
            .iter()
            .any(|&n| self.cells[n] != own && self.cells[n] != Cell::Border)
        {
            return false;
        }
        let s = self.stride;
        let diagonals = [index - s - 1, index - s + 1, index + s - 1, index + s + 1];
        let enemy = Cell::of(color.opponent());
        let enemy_diagonals = diagonals
            .iter()
            .filter(|&&d| self.cells[d] == enemy)
            .count();
        let on_edge = diagonals.iter().any(|&d| self.cells[d] == Cell::Border);
        enemy_diagonals == 0 || (!on_edge && enemy_diagonals == 1)
    }
}
