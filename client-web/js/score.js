// Area counting for display: which empty points each side surrounds once the marked dead stones are taken
// off, and both counts, so the scoring phase can shade territory and show live counts while players mark.
// The server's count is the one that decides (it arrives in the game's outcome); this is only a view of the
// marking on screen. Pure functions; flood fills use an explicit stack (no recursion as deep as the board).

import { pointKey } from './geometry.js';
import { EMPTY, OWNER, STONE } from './stones.js';

/**
 * Count a position by area (数子法). `board` is the wire's rows ('.', 'X', 'O'); `dead` the marked points.
 * Returns `owner[row][col]` ('B', 'W' or '' for dame) for every empty-or-dead point, and both counts in
 * half points (stones + territory, plus half of each dame point for each side).
 */
export function areaCount(board, dead) {
  const size = board.length;
  const deadKeys = new Set(dead.map(pointKey));
  const stone = (col, row) => {
    const c = board[row][col];
    if (c === EMPTY || deadKeys.has(pointKey({ col, row }))) return EMPTY;
    return c;
  };
  const owner = board.map((line) => Array.from(line, () => ''));
  const seen = board.map((line) => Array.from(line, () => false));
  let blackHalf = 0;
  let whiteHalf = 0;
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      const c = stone(col, row);
      if (c === STONE.black) blackHalf += 2;
      else if (c === STONE.white) whiteHalf += 2;
      else if (!seen[row][col]) {
        const region = [];
        let touchesBlack = false;
        let touchesWhite = false;
        const stack = [{ col, row }];
        seen[row][col] = true;
        while (stack.length) {
          const p = stack.pop();
          region.push(p);
          for (const [dc, dr] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
            const nc = p.col + dc;
            const nr = p.row + dr;
            if (nc < 0 || nr < 0 || nc >= size || nr >= size) continue;
            const n = stone(nc, nr);
            if (n === STONE.black) touchesBlack = true;
            else if (n === STONE.white) touchesWhite = true;
            else if (!seen[nr][nc]) {
              seen[nr][nc] = true;
              stack.push({ col: nc, row: nr });
            }
          }
        }
        const who = touchesBlack && !touchesWhite ? OWNER.black : touchesWhite && !touchesBlack ? OWNER.white : '';
        for (const p of region) owner[p.row][p.col] = who;
        if (who === OWNER.black) blackHalf += 2 * region.length;
        else if (who === OWNER.white) whiteHalf += 2 * region.length;
        else if (touchesBlack && touchesWhite) {
          // Dame (单官) count half to each side, as the Chinese rules count seki.
          blackHalf += region.length;
          whiteHalf += region.length;
        }
      }
    }
  }
  return { owner, blackHalf, whiteHalf };
}

/** Half points as people read them: 37 → "18.5", 36 → "18". */
export function halfPointsText(half) {
  return half % 2 === 0 ? String(half / 2) : `${(half - 1) / 2}.5`;
}
