// Board geometry: where lines, star points and labels go, and which intersection a pixel is nearest.
// Pure functions only (no DOM), so the board view and the unit tests share one definition.

/** Column letters as Go players write them: A..Z without I (so 25 columns fit). */
export const COLUMN_LETTERS = 'ABCDEFGHJKLMNOPQRSTUVWXYZ';

/** The letter of column `col` (0 = left). */
export function columnLabel(col) {
  return COLUMN_LETTERS[col] ?? '?';
}

/** The number of row `row` (0 = top) as printed beside the board: the bottom row is 1. */
export function rowLabel(row, size) {
  return String(size - row);
}

/** A point's human name, e.g. {col: 3, row: 15} on 19x19 is "D4". */
export function pointName(point, size) {
  return columnLabel(point.col) + rowLabel(point.row, size);
}

/**
 * The star points (星位) of a board: the 3-3/4-4 style hoshi and tengen. 19x19 has nine, 13x13 five,
 * 9x9 five (3-3 points and the centre); small or even boards get fewer.
 */
export function starPoints(size) {
  if (size < 7) return [];
  const edge = size >= 13 ? 3 : 2;
  const far = size - 1 - edge;
  const centre = (size - 1) / 2;
  const lines = [edge, far];
  const odd = size % 2 === 1;
  if (odd && size >= 15) lines.splice(1, 0, centre);
  const points = [];
  for (const row of lines) for (const col of lines) points.push({ col, row });
  if (odd && size < 15) points.push({ col: centre, row: centre });
  return points;
}

/**
 * Pixel layout of a board drawn in a square of `viewSize` units with room for coordinates around it.
 * Returns the spacing between lines and the position of the first line.
 */
export function layout(size, viewSize = 1000) {
  // One and a bit cells of margin leaves room for the coordinate labels outside the grid.
  const cell = viewSize / (size + 1.2);
  const origin = cell * 1.1;
  return { size, viewSize, cell, origin };
}

/** The centre of intersection `point` in view units. */
export function pointToXY(geom, point) {
  return { x: geom.origin + point.col * geom.cell, y: geom.origin + point.row * geom.cell };
}

/** The intersection nearest to (x, y) in view units, or null when it is off the board or too far off. */
export function xyToPoint(geom, x, y) {
  // `|| 0` turns a rounded -0 (just left of or above the first line) into a plain 0.
  const col = Math.round((x - geom.origin) / geom.cell) || 0;
  const row = Math.round((y - geom.origin) / geom.cell) || 0;
  if (col < 0 || row < 0 || col >= geom.size || row >= geom.size) return null;
  // Outside the grid by more than half a cell means the pointer is on the margin, not on a point.
  const centre = pointToXY(geom, { col, row });
  if (Math.abs(centre.x - x) > geom.cell / 2 || Math.abs(centre.y - y) > geom.cell / 2) return null;
  return { col, row };
}

/** Move a keyboard cursor by (dCol, dRow), staying on the board. */
export function moveCursor(point, dCol, dRow, size) {
  const clamp = (v) => Math.max(0, Math.min(size - 1, v));
  return { col: clamp(point.col + dCol), row: clamp(point.row + dRow) };
}

/** A key for maps and sets of points. */
export function pointKey(point) {
  return `${point.col},${point.row}`;
}

export function samePoint(a, b) {
  return !!a && !!b && a.col === b.col && a.row === b.row;
}
