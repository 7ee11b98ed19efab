// The board's colour encoding, in one place: a position is the wire's rows of text with '.' for an
// empty point, 'X' for Black and 'O' for White (as the server sends them), and a counted territory
// names its owner 'B' or 'W' (as SGF and the results do). Everything else says 'black' or 'white', as
// the protocol does; these convert between the two.

export const EMPTY = '.';
export const STONE = Object.freeze({ black: 'X', white: 'O' });
export const OWNER = Object.freeze({ black: 'B', white: 'W' });

/** The colour of the stone `char` on a board row, or null for an empty point. */
export function stoneColor(char) {
  if (char === STONE.black) return 'black';
  if (char === STONE.white) return 'white';
  return null;
}

/** The colour of a territory owner, or null for dame. */
export function ownerColor(owner) {
  if (owner === OWNER.black) return 'black';
  if (owner === OWNER.white) return 'white';
  return null;
}

/** The other player's colour. */
export function otherColor(color) {
  return color === 'black' ? 'white' : 'black';
}
