// Review, in real Chromium against the real `tengen`: the ko point marked on the live board,
// in the replay and on the study board; a finished game's page showing its record with the result; the
// replay's slider, move list and move numbers; the study board's arrow keys, a loaded record's game info
// and its run to the end and back.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clickPoint, waitStone, waitForAddress } from './browser.mjs';
import { browserSuite } from './suite.mjs';
import { challengeGame, play } from './play.mjs';

const suite = browserSuite();
const { newUser, shot } = suite;

// . X O .     Black's ninth move, c8, takes White's b8: a ko, White may not take back at once.
// X O . O
// . X O .
const KO_MOVES = [
  ['black', { col: 1, row: 0 }], ['white', { col: 2, row: 0 }], ['black', { col: 0, row: 1 }], ['white', { col: 1, row: 1 }],
  ['black', { col: 1, row: 2 }], ['white', { col: 3, row: 1 }], ['black', { col: 8, row: 8 }], ['white', { col: 2, row: 2 }],
  ['black', { col: 2, row: 1 }],
];
const KO = { col: 1, row: 1 };
const koMarks = (page) => page.locator('svg.goban .ko-mark').count();

test('a ko is marked on the board until a move elsewhere; the replay steps by slider, move list and arrow keys, with move numbers', { timeout: 90000 }, async () => {
  const kim = await newUser('kora');
  const lou = await newUser('korb');
  const players = await challengeGame(kim, lou, 'korb');
  await play(players, KO_MOVES);
  for (const page of [players.black, players.white]) {
    await waitStone(page, KO, null);
    await page.waitForSelector('svg.goban .ko-mark');
  }
  await shot(players.white, 'ko-mark.png');
  // White plays elsewhere (a ko threat): the ko is over.
  await play(players, [['white', { col: 6, row: 6 }]]);
  for (const page of [players.black, players.white]) await page.waitForSelector('svg.goban .ko-mark', { state: 'detached' });
  players.white.once('dialog', (dialog) => dialog.accept());
  await players.white.click('[data-testid=resign]');
  await players.black.waitForSelector('[data-testid=result-banner]');

  // The finished game's page, reloaded, shows its record: the result at a glance, then the replay.
  const page = players.black;
  await page.reload();
  await waitForAddress(page, new RegExp(`#/replay/${players.gameId}$`));
  await page.waitForSelector('[data-testid=result-banner]:has-text("Black wins")');
  assert.match(await page.textContent('[data-testid=result-banner]'), /by resignation/);
  await page.waitForSelector('[data-testid=replay-move]:has-text("Move 10")');
  assert.equal(await page.locator('[data-testid=move-list] button').count(), 10);
  // The slider to the ninth move: the capture, and its ko.
  await page.locator('[data-testid=replay-slider]').fill('9');
  await page.waitForSelector('[data-testid=replay-move]:has-text("Move 9")');
  assert.equal(await koMarks(page), 1);
  assert.match(await page.getAttribute('[data-testid=move-9]', 'class'), /current/);
  // Move numbers on the stones still on the board (b8, taken, has none), the last one's in red.
  await page.check('[data-testid=numbers-switch]');
  await page.waitForSelector('svg.goban .move-number');
  const numbers = await page.locator('svg.goban .move-number').allTextContents();
  assert.deepEqual(numbers.map(Number).sort((a, b) => a - b), [1, 2, 3, 5, 6, 7, 8, 9]);
  await shot(page, 'replay-numbers.png');
  // A click in the move list, then the arrow keys (after a click on the board, which must not eat them).
  await page.click('[data-testid=move-3]');
  await page.waitForSelector('[data-testid=replay-move]:has-text("Move 3")');
  await clickPoint(page, 9, { col: 4, row: 4 });
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('[data-testid=replay-move]:has-text("Move 4")');
  assert.equal(await page.inputValue('[data-testid=replay-slider]'), '4');
  // The switch is remembered by the browser.
  await page.reload();
  await page.waitForSelector('[data-testid=replay-move]:has-text("Move 10")');
  assert.equal(await page.isChecked('[data-testid=numbers-switch]'), true);
});

test('a loaded record shows its game info, runs to its end and back, and the arrow keys step through it', { timeout: 60000 }, async () => {
  const page = await newUser('stdy', { lang: 'zh-CN' });
  await page.click('[data-testid=nav-study]');
  await page.waitForSelector('[data-testid=study-status]');
  const sgf = '(;FF[4]GM[1]SZ[9]KM[7.5]PB[Honinbo Shusaku]BR[7d]PW[Gennan Inseki]WR[8d]RE[B+2]DT[1846-09-11]EV[Castle game]'
    + ';B[ee];W[cc];B[gc];W[cg];B[gg];W[ec])';
  await page.setInputFiles('[data-testid=study-file]', { name: 'old.sgf', mimeType: 'application/x-go-sgf', buffer: Buffer.from(sgf) });
  await page.waitForSelector('[data-testid=study-info]:has-text("Honinbo Shusaku")');
  const info = await page.textContent('[data-testid=study-info]');
  for (const part of ['7d', 'Gennan Inseki', 'B+2', '1846-09-11', 'Castle game', '6']) assert.ok(info.includes(part), `${part} in ${info}`);
  await page.click('[data-testid=study-end]');
  await waitStone(page, { col: 4, row: 2 }, 'white');
  await page.waitForSelector('[data-testid=study-status]:has-text("第 6 手")');
  await shot(page, 'study-record-zh.png');
  await page.keyboard.press('ArrowLeft');
  await waitStone(page, { col: 4, row: 2 }, null);
  await page.keyboard.press('ArrowRight');
  await waitStone(page, { col: 4, row: 2 }, 'white');
  await page.keyboard.press('Home');
  await page.waitForSelector('[data-testid=study-status]:has-text("第 0 手")');
  await waitStone(page, { col: 4, row: 4 }, null);
});

test('the study board marks a ko too', { timeout: 60000 }, async () => {
  const page = await newUser('stko');
  await page.click('[data-testid=nav-study]');
  await page.waitForSelector('[data-testid=study-status]:has-text("Move 0")');
  for (const [color, point] of KO_MOVES) {
    await clickPoint(page, 9, point);
    await waitStone(page, point, color);
  }
  await waitStone(page, KO, null);
  await page.waitForSelector('svg.goban .ko-mark');
  // A move elsewhere ends it.
  await clickPoint(page, 9, { col: 6, row: 6 });
  await page.waitForSelector('svg.goban .ko-mark', { state: 'detached' });
});

/** A legal 19x19 record of 180 moves without a capture: rows of 18 stones, Black on even rows, White on odd, column 19 left free. */
function longRecord() {
  const letter = (n) => String.fromCharCode(97 + n);
  let moves = '';
  for (let pair = 0; pair < 5; pair++) {
    for (let col = 0; col < 18; col++) moves += `;B[${letter(col)}${letter(2 * pair)}];W[${letter(col)}${letter(2 * pair + 1)}]`;
  }
  return `(;FF[4]GM[1]SZ[19]KM[7.5]PB[Long]PW[Record]${moves})`;
}

test('a long loaded record jumps to its end, its start and any move number in one request each', { timeout: 60000 }, async () => {
  const page = await newUser('stgo', { viewport: { width: 1366, height: 768 } });
  // Count the study requests the page sends (its socket is open already: watch its send).
  await page.evaluate(() => {
    window.studySent = [];
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      const type = String(data).match(/"type":"(study_[a-z_]+)"/)?.[1];
      if (type) window.studySent.push(type);
      return send.call(this, data);
    };
  });
  const sentNow = () => page.evaluate(() => window.studySent.splice(0));
  await page.click('[data-testid=nav-study]');
  await page.waitForSelector('[data-testid=study-status]:has-text("Move 0")');
  await page.setInputFiles('[data-testid=study-file]', { name: 'long.sgf', mimeType: 'application/x-go-sgf', buffer: Buffer.from(longRecord()) });
  await page.waitForSelector('[data-testid=study-info]:has-text("Long")');
  await sentNow();
  await page.click('[data-testid=study-end]');
  await page.waitForSelector('[data-testid=study-status]:has-text("Move 180")');
  await waitStone(page, { col: 17, row: 9 }, 'white');
  assert.deepEqual(await sentNow(), ['study_goto']);
  // The move-number box: to move 37 (Black's 19th stone: row 2, column 1), then a bad number is refused here.
  await page.fill('[data-testid=study-move]', '37');
  await page.click('[data-testid=study-goto-submit]');
  await page.waitForSelector('[data-testid=study-status]:has-text("Move 37")');
  await waitStone(page, { col: 0, row: 2 }, 'black');
  await waitStone(page, { col: 1, row: 2 }, null);
  await shot(page, 'study-goto.png');
  await page.fill('[data-testid=study-move]', '-3');
  await page.click('[data-testid=study-goto-submit]');
  await page.waitForSelector('[data-testid=study-message]:has-text("Type a move number")');
  await page.waitForSelector('[data-testid=study-status]:has-text("Move 37")');
  // Home: the start, again in one request.
  await sentNow();
  await page.keyboard.press('Home');
  await page.waitForSelector('[data-testid=study-status]:has-text("Move 0")');
  assert.deepEqual(await sentNow(), ['study_goto']);
});
