// Browser scenarios for the study board, automatch and records, in real Chromium against the real
// `tengen` binary: a study board plays, refuses an occupied point, steps back, counts and loads an SGF; two players
// automatch into a 9x9 game, one resigns, and "My games" replays it step by step with the SGF link.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTengen } from './server.mjs';
import { launchChromium, clickPoint, waitStone, registerInNewContext, waitForAddress } from './browser.mjs';

const PASSWORD = 'correct horse battery';
let server;
let browser;

before(async () => {
  server = await startTengen();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const newUser = (name) => registerInNewContext(browser, server.url, name, PASSWORD);

test('the study board plays, refuses, steps back and counts', { timeout: 30000 }, async () => {
  const page = await newUser('stella');
  await page.click('[data-testid=nav-study]');
  await page.waitForSelector('[data-testid=study-status]:has-text("Move 0")');
  await clickPoint(page, 9, { col: 2, row: 2 });
  await waitStone(page, { col: 2, row: 2 }, 'black');
  await clickPoint(page, 9, { col: 6, row: 6 });
  await waitStone(page, { col: 6, row: 6 }, 'white');
  await page.waitForSelector('[data-testid=study-status]:has-text("Move 2")');
  // The server refuses an occupied point and says why.
  await clickPoint(page, 9, { col: 2, row: 2 });
  await page.waitForSelector('[data-testid=study-message]:has-text("occupied")');
  // Back, then a different move branches: two variations from move 1.
  await page.click('[data-testid=study-back]');
  await waitStone(page, { col: 6, row: 6 }, null);
  await clickPoint(page, 9, { col: 4, row: 4 });
  await waitStone(page, { col: 4, row: 4 }, 'white');
  await page.click('[data-testid=study-back]');
  await page.waitForSelector('[data-testid=study-variation-1]');
  await page.click('[data-testid=study-variation-0]');
  await waitStone(page, { col: 6, row: 6 }, 'white');
  await page.click('[data-testid=study-count]');
  await page.waitForSelector('[data-testid=study-count-result]:has-text("Count: Black")');
  // Loading a record starts at its first position; forward plays its first move.
  await page.setInputFiles('[data-testid=study-file]', { name: 'game.sgf', mimeType: 'application/x-go-sgf', buffer: Buffer.from('(;FF[4]GM[1]SZ[13]KM[7.5];B[dd];W[jj])') });
  await page.waitForSelector('[data-testid=study-status]:has-text("Move 0")');
  await waitStone(page, { col: 2, row: 2 }, null);
  await page.click('[data-testid=study-forward]');
  await waitStone(page, { col: 3, row: 3 }, 'black');
});

test('automatch starts a game; after a resignation My games replays it', { timeout: 45000 }, async () => {
  const ann = await newUser('ann');
  const ben = await newUser('ben');
  for (const page of [ann, ben]) {
    await page.selectOption('[data-testid=automatch-size]', '9');
    await page.click('[data-testid=automatch-find]');
  }
  for (const page of [ann, ben]) await waitForAddress(page, /#\/game\/\d+/);
  const gameId = Number(ann.url().match(/#\/game\/(\d+)/)[1]);
  await ann.waitForSelector('svg.goban');
  const annIsBlack = (await ann.textContent('[data-testid=player-black]')).includes('ann');
  const [black, white] = annIsBlack ? [ann, ben] : [ben, ann];
  await clickPoint(black, 9, { col: 4, row: 4 });
  await waitStone(white, { col: 4, row: 4 }, 'black');
  await clickPoint(white, 9, { col: 2, row: 2 });
  await waitStone(black, { col: 2, row: 2 }, 'white');
  white.once('dialog', (dialog) => dialog.accept());
  await white.click('[data-testid=resign]');
  await black.waitForSelector('[data-testid=result-sgf]');

  await ann.click('[data-testid=nav-games]');
  await ann.click(`[data-testid=replay-link-${gameId}]`);
  await ann.waitForSelector('[data-testid=replay-move]:has-text("Move 2")');
  await waitStone(ann, { col: 2, row: 2 }, 'white');
  await ann.click('[data-testid=replay-first]');
  await ann.waitForSelector('[data-testid=replay-move]:has-text("Start")');
  await waitStone(ann, { col: 4, row: 4 }, null);
  await ann.keyboard.press('ArrowRight');
  await waitStone(ann, { col: 4, row: 4 }, 'black');
  assert.match(await ann.textContent('[data-testid=replay-info]'), /B\+R/);
  assert.equal(await ann.getAttribute('[data-testid=replay-download]', 'href'), `/api/games/${gameId}.sgf`);
});
