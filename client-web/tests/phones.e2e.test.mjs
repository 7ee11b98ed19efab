// Phones and small laptops, in real Chromium against the real `tengen`: on a 390x844 phone a
// move is a tap that shows a ghost stone and a second tap (or the Play button) that plays it, and the hall
// shows the live games and the players before the folded tables; on a 1366x768 laptop the whole board
// stays in view while the side column scrolls to the chat.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clickPoint, waitStone } from './browser.mjs';
import { browserSuite } from './suite.mjs';
import { challengeGame } from './play.mjs';

const suite = browserSuite();
const { newUser, shot } = suite;
const PHONE = { width: 390, height: 844 };

/** Resize `page` and mount its screen afresh (layouts chosen at mount follow the new size). */
async function resize(page, viewport) {
  await page.setViewportSize(viewport);
  await page.reload();
  await page.waitForSelector('[data-testid=me]');
}

const top = async (page, selector) => (await page.locator(selector).boundingBox()).y;

test('on a phone the hall shows live games and players first with the tables folded, and a move takes two taps', { timeout: 90000 }, async () => {
  const pia = await newUser('phna');
  const quy = await newUser('phnb');
  const players = await challengeGame(pia, quy, 'phnb');
  const watcher = await newUser('phnc');
  await resize(watcher, PHONE);
  await watcher.waitForSelector(`[data-testid=game-link-${players.gameId}]`);
  const tablesTop = await top(watcher, '[data-testid=tables-panel]');
  assert.ok(await top(watcher, '[data-testid=live-games]') < tablesTop, 'live games above the tables');
  assert.ok(await top(watcher, '[data-testid=players]') < tablesTop, 'players above the tables');
  assert.equal(await watcher.locator('[data-testid=tables-panel]').getAttribute('open'), null, 'tables folded');
  await shot(watcher, 'phone-hall.png');
  await watcher.click('[data-testid=tables-panel] summary');
  await watcher.waitForSelector('[data-testid=table-1]');

  for (const page of [players.black, players.white]) await resize(page, PHONE);
  for (const page of [players.black, players.white]) await page.waitForSelector('svg.goban');
  assert.equal(await players.black.isChecked('[data-testid=confirm-switch]'), true, 'two taps by default on a phone');
  // Black's first tap shows the ghost stone and the Play button; nothing is played yet.
  const d4 = { col: 3, row: 5 };
  await clickPoint(players.black, 9, d4);
  await players.black.waitForSelector('svg.goban .ghost');
  await players.black.waitForSelector('[data-testid=confirm-play]:has-text("D4")');
  assert.equal(await players.black.locator('svg.goban circle.stone').count(), 0);
  await shot(players.black, 'phone-ghost.png');
  // A tap elsewhere moves the ghost; a second tap on it plays.
  const e5 = { col: 4, row: 4 };
  await clickPoint(players.black, 9, e5);
  await players.black.waitForSelector('[data-testid=confirm-play]:has-text("E5")');
  await clickPoint(players.black, 9, e5);
  for (const page of [players.black, players.white]) await waitStone(page, e5, 'black');
  assert.equal(await players.black.locator('svg.goban .ghost').count(), 0);
  // White taps, then confirms with the button.
  const c3 = { col: 2, row: 6 };
  await clickPoint(players.white, 9, c3);
  await players.white.click('[data-testid=confirm-play]');
  for (const page of [players.black, players.white]) await waitStone(page, c3, 'white');
  // The switch off (remembered): one tap plays.
  await players.black.uncheck('[data-testid=confirm-switch]');
  await players.black.reload();
  await players.black.waitForSelector('svg.goban');
  assert.equal(await players.black.isChecked('[data-testid=confirm-switch]'), false);
  await clickPoint(players.black, 9, d4);
  await waitStone(players.white, d4, 'black');
});

test('at 1366x768 the whole board stays in view while the side column scrolls to the chat', { timeout: 60000 }, async () => {
  const laptop = { viewport: { width: 1366, height: 768 } };
  const ria = await newUser('lpta', laptop);
  const sol = await newUser('lptb', laptop);
  const tim = await newUser('lptc', laptop);
  const { gameId } = await challengeGame(ria, sol, 'lptb');
  // A watcher's side column holds the pool and the watchers' chat under the players: taller than the screen.
  await tim.click(`[data-testid=game-link-${gameId}]`);
  await tim.waitForSelector('[data-testid=kibitz-chat]');
  const inView = async () => {
    const board = await tim.locator('svg.goban').boundingBox();
    return board.y >= 0 && board.y + board.height <= 768 && board.x + board.width <= 1366;
  };
  assert.ok(await inView(), 'the board fits the screen');
  await tim.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await tim.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
  assert.ok(await tim.evaluate(() => window.scrollY) > 0, 'the side column is taller than the screen');
  assert.ok(await inView(), 'the board is still in view with the page scrolled to the chat');
  const chat = await tim.locator('[data-testid=kibitz-chat]').boundingBox();
  assert.ok(chat.y + chat.height <= 768, 'the chat is on screen beside the board');
  await shot(tim, 'laptop-game-scrolled.png');
});
