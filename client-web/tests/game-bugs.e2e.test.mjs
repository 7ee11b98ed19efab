// Bugs of the game screen found by playing it, each in real Chromium against the real `tengen`
// binary: two players start a game by a challenge from the players list, and the screen must agree with
// the server after an undo, a reload and a watcher's late arrival. Screenshots go to client-web/test-output/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clickPoint, waitStone, waitForAddress } from './browser.mjs';
import { browserSuite, PASSWORD } from './suite.mjs';
import { challengeGame, play } from './play.mjs';
import { pointName } from '../js/geometry.js';

const suite = browserSuite();
const { newUser, shot } = suite;

const lastMoveText = (point) => `Last move: ${pointName(point, 9)}`;

test('a refused undo is told to the asker; an accepted undo of a capture takes the capture off the count and marks the move now last', { timeout: 60000 }, async () => {
  const alice = await newUser('anna');
  const bob = await newUser('bert');
  const players = await challengeGame(alice, bob, 'bert');
  // Black captures White's corner stone at A9, then asks to take the capture back.
  await play(players, [['black', { col: 1, row: 0 }], ['white', { col: 0, row: 0 }], ['black', { col: 0, row: 1 }]]);
  for (const page of [players.black, players.white]) {
    await waitStone(page, { col: 0, row: 0 }, null);
    await page.waitForSelector('[data-testid=player-black] .captures:has-text("Captures: 1")');
  }
  // White refuses the first request: the asker is told (a computer player refuses the same way).
  await players.black.click('[data-testid=undo]');
  await players.white.click('[data-testid=undo-decline]');
  await players.black.waitForSelector('[data-testid=undo-refused]:has-text("refused")');
  await shot(players.black, 'undo-refused.png');
  // The second is allowed.
  await players.black.click('[data-testid=undo]');
  await players.black.waitForSelector('[data-testid=undo-refused]', { state: 'detached' });
  await players.white.click('[data-testid=undo-accept]');
  for (const page of [players.black, players.white]) {
    await waitStone(page, { col: 0, row: 1 }, null);
    await waitStone(page, { col: 0, row: 0 }, 'white');
    // The server counts no capture now; the screen agrees, and White's A9 is the last move again.
    await page.waitForSelector('[data-testid=player-black] .captures:has-text("Captures: 0")');
    await page.waitForSelector(`[data-testid=game-status]:has-text("${lastMoveText({ col: 0, row: 0 })}")`);
    assert.equal(await page.locator('svg.goban .last-move').count(), 1);
  }
  await shot(players.black, 'undo-capture.png');
});

test('the last move is marked after a reload and for a watcher who joins mid-game', { timeout: 60000 }, async () => {
  const alice = await newUser('lena');
  const bob = await newUser('mark');
  const carol = await newUser('cleo', { lang: 'zh-CN' });
  const players = await challengeGame(alice, bob, 'mark');
  const last = { col: 4, row: 4 };
  await play(players, [['black', { col: 2, row: 2 }], ['white', last]]);
  await players.black.reload();
  await waitStone(players.black, last, 'white');
  await players.black.waitForSelector(`[data-testid=game-status]:has-text("${lastMoveText(last)}")`);
  assert.equal(await players.black.locator('svg.goban .last-move').count(), 1);
  // Carol opens the game from the hall's live games after the moves were made.
  await carol.waitForSelector(`[data-testid=game-link-${players.gameId}]`);
  await carol.click(`[data-testid=game-link-${players.gameId}]`);
  await waitStone(carol, last, 'white');
  await carol.waitForSelector(`[data-testid=game-status]:has-text("最后一手：${pointName(last, 9)}")`);
  assert.equal(await carol.locator('svg.goban .last-move').count(), 1);
  await shot(carol, 'watcher-last-move.png');
});

test('a move error clears once the game moves on', { timeout: 60000 }, async () => {
  const nia = await newUser('nina');
  const oli = await newUser('olaf');
  const players = await challengeGame(nia, oli, 'olaf');
  await play(players, [['black', { col: 2, row: 2 }]]);
  // Black clicks again out of turn: refused, and the reason shows.
  await clickPoint(players.black, 9, { col: 6, row: 6 });
  await players.black.waitForSelector('[data-testid=game-message].shown');
  const refused = await players.black.textContent('[data-testid=game-message]');
  assert.ok(refused.length > 0, 'the refusal is shown');
  // White moves: the refusal was about the position before it, and goes.
  await play(players, [['white', { col: 6, row: 2 }]]);
  await players.black.waitForSelector('[data-testid=game-message].shown', { state: 'detached' });
  assert.equal(await players.black.textContent('[data-testid=game-message]'), '');
});

test('the Chinese screen shows every refusal and the room names in Chinese', { timeout: 60000 }, async () => {
  const qin = await newUser('qing', { lang: 'zh-CN' });
  const rex = await newUser('rexx');
  // The default rooms have Chinese names.
  await qin.waitForSelector('.hall :text("入门 — ")');
  assert.equal(await qin.locator('.hall :text("Beginners")').count(), 0);
  await challengeGame(qin, rex, 'rexx');
  // Undo with no move of hers played: the server refuses (no_undo), and the reason is in Chinese, not
  // the server's English message.
  await qin.click('[data-testid=undo]');
  await qin.waitForSelector('[data-testid=game-message].shown');
  const text = await qin.textContent('[data-testid=game-message]');
  assert.doesNotMatch(text, /[A-Za-z]/, `refusal text: ${text}`);
  assert.match(text, /悔/);
  await shot(qin, 'refusal-zh.png');
});

test('after the game a losing bettor reads that the bet lost, not the odds', { timeout: 60000 }, async () => {
  const pam = await newUser('pam1');
  const quin = await newUser('quin');
  const ray = await newUser('ray1');
  const players = await challengeGame(pam, quin, 'quin');
  const poolOnServer = await ray.evaluate((game) => window.tengen.net.request({ type: 'pool', game })
    .then(() => true, (err) => err.code !== 'unknown_type'), players.gameId);
  if (!poolOnServer) return;
  await ray.click(`[data-testid=game-link-${players.gameId}]`);
  await ray.waitForSelector('[data-testid=pool]:visible');
  await ray.fill('[data-testid=pool] input[name=bet-amount]', '100');
  await ray.click('[data-testid=bet-black]');
  await ray.waitForSelector('[data-testid=my-bet]:has-text("current odds")');
  // Black resigns: Ray's bet on Black lost.
  players.black.once('dialog', (dialog) => dialog.accept());
  await players.black.click('[data-testid=resign]');
  await ray.waitForSelector('[data-testid=result-sgf]');
  await ray.waitForSelector('[data-testid=my-bet]:has-text("Black lost")');
  assert.doesNotMatch(await ray.textContent('[data-testid=my-bet]'), /odds|returns/);
  await shot(ray, 'bet-lost.png');
});

test('a player who closed the tab mid-game and logs in again lands in the game, and the hall calls them back', { timeout: 60000 }, async () => {
  const sam = await newUser('sam1');
  const tia = await newUser('tia1');
  const players = await challengeGame(sam, tia, 'tia1');
  await play(players, [['black', { col: 2, row: 2 }]]);
  // Black closes the tab (the whole browser context): White sees the forfeit countdown.
  const blackName = players.black === sam ? 'sam1' : 'tia1';
  await players.black.context().close();
  await players.white.waitForSelector('[data-testid=away]:has-text("left the game")');
  // Black logs in again in a new browser: straight to the game, and the countdown stops.
  const context = await suite.browser.newContext({ viewport: { width: 1280, height: 860 } });
  const back = await context.newPage();
  await back.goto(suite.server.url);
  await back.fill('input[name=username]', blackName);
  await back.fill('input[name=password]', PASSWORD);
  await back.click('[data-testid=login]');
  await waitForAddress(back, new RegExp(`#/game/${players.gameId}$`));
  await waitStone(back, { col: 2, row: 2 }, 'black');
  await back.waitForSelector('[data-testid=game-status]:has-text("You play Black")');
  await players.white.waitForSelector('[data-testid=away]:has-text("left the game")', { state: 'hidden' });
  // In the hall, a call to return to the game.
  await back.click('a:has-text("Back to the hall")');
  await back.waitForSelector('[data-testid=return-to-game]:visible');
  await shot(back, 'hall-return-to-game.png');
  await back.click('[data-testid=return-to-game] a');
  await waitForAddress(back, new RegExp(`#/game/${players.gameId}$`));
});

test('before the first move both players see the countdown to a void game', { timeout: 60000 }, async () => {
  const uma = await newUser('uma1');
  const vic = await newUser('vic1');
  const players = await challengeGame(uma, vic, 'vic1');
  for (const page of [players.black, players.white]) {
    await page.waitForSelector('[data-testid=first-move]:has-text("Black to make the first move within")');
    assert.match(await page.textContent('[data-testid=first-move]'), /within [0-2]:\d\d, or the game is void/);
  }
  await shot(players.white, 'first-move-countdown.png');
  await play(players, [['black', { col: 4, row: 4 }]]);
  for (const page of [players.black, players.white]) await page.waitForSelector('[data-testid=first-move]', { state: 'hidden' });
});

test('a guest watching a game reads the watchers chat with no box to type in', { timeout: 60000 }, async () => {
  const wes = await newUser('wes1');
  const xia = await newUser('xia1');
  const players = await challengeGame(wes, xia, 'xia1');
  const context = await suite.browser.newContext({ viewport: { width: 1280, height: 860 } });
  const guest = await context.newPage();
  await guest.goto(suite.server.url);
  await guest.click('text=Watch as a guest');
  await guest.evaluate((game) => { location.hash = `#/game/${game}`; }, players.gameId);
  await guest.waitForSelector('[data-testid=kibitz-chat]');
  assert.equal(await guest.locator('[data-testid=kibitz-chat] input').count(), 0, 'no chat box for a guest');
  assert.match(await guest.textContent('[data-testid=kibitz-chat]'), /Log in to chat/);
  await shot(guest, 'guest-chat.png');
  await context.close();
});
