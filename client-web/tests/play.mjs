// Starting and playing games in the browser tests, as players do: a challenge from the hall's players
// list and clicks on the board, each step waited for on both players' screens.

import { clickPoint, waitStone, waitForAddress } from './browser.mjs';

/**
 * `a` challenges `b` (whose screen is in English) from the players list (9x9, nigiri), `b` accepts:
 * {black, white, gameId}. `fields` fills the challenge form first (input name → value).
 */
export async function challengeGame(a, b, bName, fields = {}) {
  await a.click(`[data-testid=players] li:has-text("${bName}") button`);
  for (const [name, value] of Object.entries(fields)) await a.fill(`.modal [name=${name}]`, String(value));
  await a.click('.modal button.primary');
  await b.waitForSelector('.modal button.primary');
  await b.click('.modal button.primary');
  for (const page of [a, b]) {
    await waitForAddress(page, /#\/game\/\d+/);
    await page.waitForSelector('[data-testid=game-status]:has-text("You play"), [data-testid=game-status]:has-text("你执")');
  }
  const gameId = Number(a.url().match(/#\/game\/(\d+)/)[1]);
  const bIsBlack = (await b.textContent('[data-testid=game-status]')).includes('You play Black');
  return bIsBlack ? { black: b, white: a, gameId } : { black: a, white: b, gameId };
}

/** Play `moves` ([color, point] pairs) by clicking, waiting until both players see each stone. */
export async function play(players, moves, size = 9) {
  for (const [color, point] of moves) {
    await clickPoint(players[color], size, point);
    for (const page of [players.black, players.white]) await waitStone(page, point, color);
  }
}
