// Ranks that change live, in real Chromium against the real `tengen`: two players finish a rated game
// and a third user's hall (in Chinese, on a phone too) shows both new ranks without reloading, written
// as Chinese players write them (5级?: provisional after one game); the players' own game page shows
// them too. And a player found from the hall's search by the start of their name, in any case or width.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserSuite } from './suite.mjs';
import { challengeGame } from './play.mjs';

const suite = browserSuite();
const { newUser, shot } = suite;

const playerLine = (page, name) => page.locator(`[data-testid=players] li:has-text("${name}")`);

test('a finished rated game moves both ranks in a watching hall, in Chinese, on desktop and phone', { timeout: 90000 }, async () => {
  const alice = await newUser('alice');
  const bob = await newUser('bob');
  const carol = await newUser('carol', { lang: 'zh-CN' });
  const dora = await newUser('dora', { lang: 'zh-CN' });
  await dora.setViewportSize({ width: 390, height: 844 });
  for (const page of [carol, dora]) {
    await playerLine(page, 'alice').waitFor();
    assert.match(await playerLine(page, 'alice').textContent(), /alice\s*\?/);
  }

  const { black, white, gameId } = await challengeGame(alice, bob, 'bob');
  const loser = black === bob ? bob : white;
  loser.once('dialog', (dialog) => dialog.accept());
  await loser.click('[data-testid=resign]');

  // From 1500 ± 350 one win makes 5k and one loss 8k, both provisional.
  for (const page of [carol, dora]) {
    await page.waitForSelector('[data-testid=players] li:has-text("alice"):has-text("5级?")');
    await page.waitForSelector('[data-testid=players] li:has-text("bob"):has-text("8级?")');
  }
  await shot(carol, 'ranks-hall-zh.png');
  await shot(dora, 'ranks-hall-zh-phone.png');
  // The players' game page shows the new ranks beside their names.
  await alice.waitForSelector(`.player-name:has-text("alice"):has-text("5k?")`);
  await alice.waitForSelector(`.player-name:has-text("bob"):has-text("8k?")`);
  await shot(alice, `ranks-game-${gameId}.png`);
});

test('a player is found by the start of their name from the hall, in any case, and opens their profile', { timeout: 60000 }, async () => {
  const erin = await newUser('erin');
  const frank = await newUser('frank', { lang: 'zh-CN' });
  await frank.fill('[data-testid=player-search]', 'ER');
  const found = frank.locator('[data-testid=player-search-results] a:has-text("erin")');
  await found.waitFor();
  await frank.fill('[data-testid=player-search]', 'zzz');
  await frank.waitForSelector('[data-testid=player-search-results] li:has-text("没有这个名字的棋手")');
  await frank.fill('[data-testid=player-search]', 'Ｅｒ');
  await found.waitFor();
  await shot(frank, 'player-search-zh.png');
  await found.click();
  await frank.waitForFunction(() => decodeURIComponent(location.hash) === '#/user/erin');
  await erin.close();
});
