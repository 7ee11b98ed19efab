// The browser scenario, in real Chromium against the real `tengen` binary: two players register, sit at a
// table, agree stakes (when the server keeps fortune points) and settings (White proposes, Black confirms),
// play a short 9x9 game with a capture and a refused ko recapture (the error is shown), survive a dropped
// socket and a page reload, play a move with the keyboard, pass twice, mark a dead chain, accept; a third
// user watches from the hall's live games (and appears, live, in the players' watcher list), bets in the
// pool (when there is one), sees every move and the result. A second scenario covers a challenge and a resignation. Screenshots go to client-web/test-output/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clickPoint, waitStone, stoneAt, waitForAddress } from './browser.mjs';
import { browserSuite } from './suite.mjs';

const DOCS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs');
const suite = browserSuite();
const { newUser, shot } = suite;

/** Wait until the header shows `points` as the balance ("950 pts", "950 财富点"); fail saying what it shows. */
async function waitBalance(page, points, who) {
  const shown = () => page.evaluate(() => document.querySelector('[data-testid=balance]')?.textContent ?? null);
  try {
    await page.waitForFunction((p) => document.querySelector('[data-testid=balance]')?.textContent.split(' ')[0] === String(p), points, { timeout: 10000 });
  } catch {
    assert.fail(`${who}'s header shows ${JSON.stringify(await shown())}, not ${points} points`);
  }
}

test('two players play a 9x9 game in the browser while a third watches', { timeout: 120000 }, async () => {
  const alice = await newUser('alice');
  const bob = await newUser('bob');
  const carol = await newUser('carol', { lang: 'zh-CN' });

  // Carol's browser asked for Chinese: the hall speaks it.
  assert.match(await carol.textContent('.hall'), /在线棋手/);

  // Room chat.
  await alice.fill('[data-testid=room-chat] input', 'anyone for a 9x9?');
  await alice.press('[data-testid=room-chat] input', 'Enter');
  await bob.waitForSelector('[data-testid=room-chat] li:has-text("anyone for a 9x9?")');

  // Both sit at table 1: Alice on the left (Black), Bob on the right (White).
  await alice.click('[data-testid=table-1]');
  await alice.click('[data-testid=sit-left]');
  await bob.click('[data-testid=table-1]');
  await bob.waitForSelector('[data-testid=seat-left]:has-text("alice")');
  await bob.click('[data-testid=sit-right]');

  // Stakes, when the server keeps fortune points: Alice offers 50 a side and presses OK, Bob presses OK on
  // the same amounts, both agree, and the points go into escrow for the game about to start.
  const stakesOnServer = await alice.evaluate(() => window.tengen.state.balance != null);
  const STAKE = 50;
  const START = 1000;
  if (stakesOnServer) {
    for (const [page, who] of [[alice, 'alice'], [bob, 'bob']]) await waitBalance(page, START, who);
    await alice.waitForSelector('[data-testid=stake]:visible');
    await alice.fill('[data-testid=stake] input[name=stake-left]', '50');
    await alice.fill('[data-testid=stake] input[name=stake-right]', '50');
    await alice.click('[data-testid=stake-ok]');
    await bob.waitForSelector('[data-testid=stake-status]:has-text("50")');
    await bob.click('[data-testid=stake-ok]');
    await alice.waitForSelector('[data-testid=stake-agree]:visible');
    await alice.click('[data-testid=stake-agree]');
    await bob.waitForSelector('[data-testid=stake-agree]:visible');
    await bob.click('[data-testid=stake-agree]');
    await alice.waitForSelector('[data-testid=stake-status] .ok');
    await shot(alice, 'stakes.png');
  }

  // White proposes 9x9; Black sees the proposal and confirms; the game starts for both.
  await bob.selectOption('[data-testid=settings-form] select[name=size]', '9');
  await bob.click('[data-testid=propose]');
  await alice.waitForSelector('[data-testid=proposal]:has-text("9×9")');
  await shot(alice, 'table.png');
  await alice.click('[data-testid=accept-settings]');
  await waitForAddress(alice, /#\/game\/\d+/);
  await waitForAddress(bob, /#\/game\/\d+/);
  const gameId = Number(alice.url().match(/#\/game\/(\d+)/)[1]);
  // Black's clock ticks (10 minutes of main time, three 30-second periods); White's waits.
  await alice.waitForSelector('[data-testid=player-black] .clock.running');
  await alice.waitForFunction(() => /^9:5\d$/.test(document.querySelector('[data-testid=player-black] .clock-time').textContent));
  assert.equal(await alice.textContent('[data-testid=player-white] .clock-time'), '10:00');
  assert.match(await alice.textContent('[data-testid=player-white] .clock-extra'), /3 periods/);
  if (stakesOnServer) {
    // The agreed stakes left both players' accounts (no push says so: the client asked), and the header
    // and the stake panel show it.
    for (const [page, who] of [[alice, 'alice'], [bob, 'bob']]) {
      await waitBalance(page, START - STAKE, who);
      await page.waitForSelector(`[data-testid=stake]:has-text("Your fortune points: ${START - STAKE}")`);
    }
  }

  // Carol finds the game in the hall's live games and opens it.
  await carol.waitForSelector(`[data-testid=game-link-${gameId}]`);
  await carol.waitForSelector('[data-testid=table-1]:has-text("alice")');
  await shot(carol, 'hall.png');
  await carol.click(`[data-testid=game-link-${gameId}]`);
  await carol.waitForSelector('svg.goban');
  // The watchers are people, not the players: Carol is the one watcher, and she is named, with her rank,
  // on her own screen (in Chinese) and, pushed live, on the players'.
  await carol.waitForSelector('[data-testid=watchers]:has-text("1 人观战")');
  await carol.waitForSelector('[data-testid=watchers-list] [data-testid=watcher-carol]');
  for (const page of [alice, bob]) {
    await page.waitForSelector('[data-testid=watchers-list] [data-testid=watcher-carol]');
    assert.equal(await page.textContent('[data-testid=watchers]'), '1 watching');
    assert.match(await page.textContent('[data-testid=watcher-carol]'), /carol\s*\S+/);
  }

  // The watchers' pool, when the server keeps fortune points: Carol bets on Black, and everyone following
  // the game sees the pool grow. (A server without the ledger answers unknown_type and the panel stays
  // hidden.)
  const poolOnServer = await carol.evaluate((game) => window.tengen.net.request({ type: 'pool', game })
    .then(() => true, (err) => err.code !== 'unknown_type'), gameId);
  if (poolOnServer) {
    await carol.waitForSelector('[data-testid=pool]:visible');
    await carol.fill('[data-testid=pool] input[name=bet-amount]', '100');
    await carol.click('[data-testid=bet-black]');
    await carol.waitForSelector('[data-testid=pool-total]:has-text("100")');
    // Her own bet, with what it would return at the current odds (alone in the pool: her stake).
    assert.match(await carol.textContent('[data-testid=my-bet]'), /100/);
    await alice.waitForSelector('[data-testid=pool-total]:has-text("100")');
    assert.equal(await alice.locator('[data-testid=bet-black]:visible').count(), 0, 'players cannot bet');
    await waitBalance(carol, START - 100, 'carol');
    // One bettor, not "1 bettors".
    assert.match(await carol.textContent('[data-testid=pool-total]'), /1 人下注/);
    assert.match(await alice.textContent('[data-testid=pool-total]'), /· 1 bettor ·/);
    await shot(carol, 'pool.png');
  }

  // Table chat between the players; kibitz among watchers, which the players never see.
  await alice.fill('[data-testid=table-chat] input', 'have a nice game');
  await alice.press('[data-testid=table-chat] input', 'Enter');
  await bob.waitForSelector('[data-testid=table-chat] li:has-text("have a nice game")');
  await carol.fill('[data-testid=kibitz-chat] input', '黑棋要小心');
  await carol.press('[data-testid=kibitz-chat] input', 'Enter');
  await carol.waitForSelector('[data-testid=kibitz-chat] li:has-text("黑棋要小心")');

  // The game: a ko fight in the centre. Every move must appear for both players and the watcher.
  const players = { black: alice, white: bob };
  const moves = [
    ['black', { col: 3, row: 4 }], ['white', { col: 5, row: 3 }],
    ['black', { col: 4, row: 3 }], ['white', { col: 5, row: 5 }],
    ['black', { col: 4, row: 5 }], ['white', { col: 6, row: 4 }],
    ['black', { col: 5, row: 4 }], ['white', { col: 4, row: 4 }], // White captures at the ko.
  ];
  for (const [color, point] of moves) {
    await clickPoint(players[color], 9, point);
    for (const page of [alice, bob, carol]) await waitStone(page, point, color);
    if (moves.indexOf(moves.find(([, p]) => p === point)) === 5) {
      // From the top (the chat input scrolled the page), so the shot shows who watches.
      await alice.evaluate(() => window.scrollTo(0, 0));
      await shot(alice, 'game.png');
    }
  }
  // The capture: Black's ko stone is gone everywhere, and White's capture count shows it.
  for (const page of [alice, bob, carol]) await waitStone(page, { col: 5, row: 4 }, null);
  await carol.waitForSelector('[data-testid=player-white]:has-text("1")');

  // Black retakes the ko at once: refused, the reason is shown, and nothing changes.
  await clickPoint(alice, 9, { col: 5, row: 4 });
  await alice.waitForSelector('[data-testid=game-message]:has-text("Ko")');
  assert.equal(await stoneAt(alice, { col: 5, row: 4 }), null);
  assert.equal(await stoneAt(carol, { col: 4, row: 4 }), 'white');

  // White's connection drops: the client reconnects with backoff, resumes the session with its token, and
  // gets the game again.
  await bob.evaluate(() => { window.oldSocket = window.tengen.net.socket; window.tengen.net.socket.close(); });
  await bob.waitForFunction(() => window.tengen.net.socket !== window.oldSocket && window.tengen.state.connection === 'online');
  await bob.waitForSelector('[data-testid=connection]:has-text("Connected")');
  // And a reload: the token in localStorage resumes the session and the game comes back.
  await bob.reload();
  await bob.waitForSelector('[data-testid=me]:has-text("bob")');
  await waitStone(bob, { col: 4, row: 4 }, 'white');
  await bob.waitForSelector('[data-testid=player-white]:has-text("Captures: 1")');

  // Black plays elsewhere (a stone deep in White's side that will be marked dead), with the keyboard: the
  // first arrow key puts the cursor on the centre (E5), three more move it to H5, Enter plays.
  await alice.focus('svg.goban');
  for (const key of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowRight', 'Enter']) await alice.keyboard.press(key);
  for (const page of [alice, bob, carol]) await waitStone(page, { col: 7, row: 4 }, 'black');
  await shot(carol, 'game-watcher.png');
  await bob.click('[data-testid=pass]');
  await alice.waitForSelector('[data-testid=game-status]:has-text("White passed")');
  await alice.click('[data-testid=pass]');

  // Scoring: territory is shaded, counts are live; toggling a chain flips it for everyone.
  for (const page of [alice, bob, carol]) await page.waitForSelector('[data-testid=live-count]');
  const target = { col: 7, row: 4 };
  const deadSelector = `svg.goban circle.stone.dead[data-point="${target.col},${target.row}"]`;
  const wasDead = (await bob.locator(deadSelector).count()) > 0;
  const countBefore = await bob.textContent('[data-testid=live-count]');
  await clickPoint(bob, 9, target);
  for (const page of [alice, bob, carol]) {
    await page.waitForSelector(deadSelector, { state: wasDead ? 'detached' : 'attached' });
  }
  if (wasDead) {
    // The server's estimate had already marked it dead: mark it dead again, as White wants.
    await clickPoint(bob, 9, target);
    for (const page of [alice, bob, carol]) await page.waitForSelector(deadSelector);
  }
  assert.notEqual(await bob.textContent('[data-testid=live-count]'), wasDead ? '' : countBefore);
  assert.ok((await carol.locator('svg.goban rect.terr').count()) > 0, 'territory is shaded');
  await shot(alice, 'scoring.png');

  await alice.click('[data-testid=accept-score]');
  await bob.click('[data-testid=accept-score]');

  // The result, in both notations, for players and the watcher.
  for (const page of [alice, bob, carol]) {
    await page.waitForSelector('[data-testid=result-sgf]');
    assert.match(await page.textContent('[data-testid=result-sgf]'), /^[BW]\+\d+(\.5)?$|^0$/);
    assert.match(await page.textContent('[data-testid=result-chinese]'), /[黑白]胜|和棋/);
  }
  if (poolOnServer) {
    // Every screen that settles a bet shows what went in, what came back, the net and the tax rate.
    await carol.waitForSelector('[data-testid=settlement]:has-text("100")');
    await alice.waitForSelector('[data-testid=settlement]:has-text("50")');
  }
  if (stakesOnServer) {
    // After settlement every header shows the real figure: the winner has both stakes less the tax on the
    // gain, the loser has lost the stake, a draw refunds both; Carol, the only bettor, had her 100 back.
    const sgf = await alice.textContent('[data-testid=result-sgf]');
    const taxBp = await alice.evaluate(() => window.tengen.state.taxBp);
    const won = START + Math.floor((STAKE * (10000 - taxBp)) / 10000);
    const expected = sgf.startsWith('B+') ? { alice: won, bob: START - STAKE } : sgf.startsWith('W+') ? { alice: START - STAKE, bob: won } : { alice: START, bob: START };
    await waitBalance(alice, expected.alice, 'alice');
    await waitBalance(bob, expected.bob, 'bob');
    if (poolOnServer) await waitBalance(carol, START, 'carol');
  }
  await shot(carol, 'result.png');

  // A phone-sized screen: one column, the board as wide as the screen.
  await carol.setViewportSize({ width: 390, height: 844 });
  const board = await carol.locator('svg.goban').boundingBox();
  assert.ok(board.width <= 390 && board.width > 300, `board width ${board.width} on a phone`);
  await shot(carol, 'phone.png');

  if (poolOnServer) {
    // Carol was the only bettor, so her bet came back in full; her records say so, with the tax rate.
    await carol.setViewportSize({ width: 1280, height: 860 });
    await carol.evaluate(() => { location.hash = '#/bets'; });
    await carol.waitForSelector('[data-testid=my-bets] table');
    const record = await carol.textContent('[data-testid=my-bets] tbody tr');
    assert.match(record, new RegExp(`^${gameId}`));
    assert.match(record, /100/);
    assert.match(record, /5%/);
    await carol.waitForSelector('[data-testid=balance]:has-text("1000")');
    await shot(carol, 'my-bets.png');
  }

  // The language switch: Alice's screen turns Chinese and back.
  await alice.click('[data-testid=lang-switch]');
  await alice.waitForSelector('[data-testid=result-banner]:has-text("数子")');
  await alice.click('[data-testid=lang-switch]');
  await alice.waitForSelector('[data-testid=result-banner]:has-text("by counting")');

  // The players never received the watchers' kibitz.
  assert.equal(await alice.locator('text=黑棋要小心').count(), 0);
});

test('a challenge from the players list, accepted, then a resignation', { timeout: 60000 }, async () => {
  const dan = await newUser('dan');
  const erin = await newUser('erin');
  // A computer player comes online, registering as `tengen bot --register` does: the hall lists it
  // first and offers to play it.
  const botSocket = await dan.evaluateHandle((url) => new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`);
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: 'hello', id: 1, version: 1 }));
      ws.send(JSON.stringify({ type: 'register', id: 2, username: 'gnugo', password: 'bot password', computer: true }));
      ws.send(JSON.stringify({ type: 'enter_hall', id: 3 }));
    };
    ws.onmessage = (m) => { if (JSON.parse(m.data).id === 3) resolve(ws); };
    ws.onerror = reject;
  }), suite.server.url);
  const offer = await dan.waitForSelector('[data-testid=challenge-gnugo]');
  assert.equal(await offer.textContent(), 'Play the computer');
  assert.match(await dan.textContent('[data-testid=players] li:first-child'), /gnugo/);
  await botSocket.evaluate((ws) => ws.close());
  await botSocket.dispose();
  // Dan challenges Erin from the players online; the dialog offers 9x9 with nigiri.
  await dan.click('[data-testid=players] li:has-text("erin") button');
  await dan.click('.modal button.primary');
  await erin.waitForSelector('.modal:has-text("dan")');
  await erin.click('.modal button.primary');
  await waitForAddress(dan, /#\/game\/\d+/);
  await waitForAddress(erin, /#\/game\/\d+/);
  await erin.waitForSelector('svg.goban');
  const erinColor = (await erin.textContent('[data-testid=game-status]')).includes('You play White') ? 'white' : 'black';

  // Undo (悔棋), when the server takes it: Black plays, asks to take it back, White allows, the stone goes.
  const undoOnServer = await dan.evaluate(() => window.tengen.net.request({ type: 'undo', game: 0 })
    .then(() => true, (err) => err.code !== 'unknown_type'));
  if (undoOnServer) {
    const [black, white] = erinColor === 'black' ? [erin, dan] : [dan, erin];
    await clickPoint(black, 9, { col: 2, row: 2 });
    await waitStone(white, { col: 2, row: 2 }, 'black');
    await black.click('[data-testid=undo]');
    await white.waitForSelector('[data-testid=undo-accept]');
    await shot(white, 'undo.png');
    await white.click('[data-testid=undo-accept]');
    for (const page of [black, white]) await waitStone(page, { col: 2, row: 2 }, null);
  }

  // Whoever drew White resigns.
  erin.once('dialog', (dialog) => dialog.accept());
  await erin.click('[data-testid=resign]');
  for (const page of [dan, erin]) {
    await page.waitForSelector('[data-testid=result-sgf]');
    assert.equal(await page.textContent('[data-testid=result-sgf]'), erinColor === 'white' ? 'B+R' : 'W+R');
    assert.match(await page.textContent('[data-testid=result-chinese]'), /中盘胜/);
  }
});

