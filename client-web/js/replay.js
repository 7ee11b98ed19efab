// Replaying a record for display: setup stones, then each move with captures (a move removes the
// opponent's chains it leaves without liberties, then its own if it has none). Pure functions; no
// legality checks beyond that — the server checked the game when it was played.
//
//   const positions = replayPositions(parseMainLine(sgf));
//   positions[n] → { board: ['.X..', …], lastMove, moveNumber, capturesBlack, capturesWhite }

import { EMPTY, STONE, otherColor } from './stones.js';

function neighbours({ col, row }, size) {
  const out = [];
  if (col > 0) out.push({ col: col - 1, row });
  if (col < size - 1) out.push({ col: col + 1, row });
  if (row > 0) out.push({ col, row: row - 1 });
  if (row < size - 1) out.push({ col, row: row + 1 });
  return out;
}

/** The chain at `point` and whether it has a liberty. `grid` is rows of cell arrays. */
export function chainAt(grid, point) {
  const size = grid.length;
  const colour = grid[point.row][point.col];
  const stones = [];
  const seen = new Set([point.row * size + point.col]);
  const stack = [point];
  let hasLiberty = false;
  while (stack.length) {
    const p = stack.pop();
    stones.push(p);
    for (const n of neighbours(p, size)) {
      const c = grid[n.row][n.col];
      if (c === EMPTY) hasLiberty = true;
      else if (c === colour && !seen.has(n.row * size + n.col)) {
        seen.add(n.row * size + n.col);
        stack.push(n);
      }
    }
  }
  return { stones, hasLiberty };
}

/** Play `color` at `point` (null is a pass) on a grid; returns the new grid and how many stones it took. */
export function applyMove(grid, color, point) {
  if (!point) return { grid, captured: 0 };
  const next = grid.map((row) => [...row]);
  const size = next.length;
  const own = STONE[color];
  const enemy = STONE[otherColor(color)];
  next[point.row][point.col] = own;
  let captured = 0;
  for (const n of neighbours(point, size)) {
    if (next[n.row][n.col] !== enemy) continue;
    const chain = chainAt(next, n);
    if (chain.hasLiberty) continue;
    for (const s of chain.stones) next[s.row][s.col] = EMPTY;
    captured += chain.stones.length;
  }
  const self = chainAt(next, point);
  if (!self.hasLiberty) for (const s of self.stones) next[s.row][s.col] = EMPTY;
  return { grid: next, captured };
}

/** Every position of a parsed record, from the setup (index 0) to after the last move. */
export function replayPositions({ size, setup, moves }) {
  let grid = Array.from({ length: size }, () => Array(size).fill(EMPTY));
  for (const p of setup.black) grid[p.row][p.col] = STONE.black;
  for (const p of setup.white) grid[p.row][p.col] = STONE.white;
  const captures = { black: 0, white: 0 };
  const snapshot = (lastMove, moveNumber, color) => ({
    board: grid.map((row) => row.join('')), lastMove, moveNumber, color,
    capturesBlack: captures.black, capturesWhite: captures.white,
  });
  const positions = [snapshot(null, 0, null)];
  moves.forEach((move, i) => {
    const played = applyMove(grid, move.color, move.point);
    grid = played.grid;
    captures[move.color] += played.captured;
    positions.push(snapshot(move.point, i + 1, move.color));
  });
  return positions;
}
