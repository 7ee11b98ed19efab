// Whole screens, in real Chromium against the real `tengen` binary: what survives a language
// switch, no sideways scrolling, and the screenshots people look at: the hall, a game, its result and its
// review, in English and Chinese, at 1366x768 and 390x844. Screenshots go to client-web/test-output/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clickPoint, waitStone, waitForAddress } from './browser.mjs';
import { browserSuite } from './suite.mjs';
import { challengeGame, play } from './play.mjs';

const suite = browserSuite();
const { newUser, shot } = suite;

test('switching the language keeps the study board', { timeout: 60000 }, async () => {
  const page = await newUser('paula');
  await page.click('[data-testid=nav-study]');
  await page.waitForSelector('[data-testid=study-status]:has-text("Move 0")');
  await clickPoint(page, 9, { col: 2, row: 2 });
  await waitStone(page, { col: 2, row: 2 }, 'black');
  await page.click('[data-testid=lang-switch]');
  await page.waitForSelector('[data-testid=study-status]:has-text("第 1 手")', { timeout: 10000 });
  assert.equal(await page.locator('svg.goban circle.stone').count(), 1);
  await waitStone(page, { col: 2, row: 2 }, 'black');
  await shot(page, 'study-zh.png');
  // And it goes on from there: the next stone is White's.
  await clickPoint(page, 9, { col: 6, row: 6 });
  await waitStone(page, { col: 6, row: 6 }, 'white');
});

test('no screen scrolls sideways at 1366, 1280 or 390 px', { timeout: 90000 }, async () => {
  const yan = await newUser('yann');
  const zoe = await newUser('zoey');
  const overflow = (page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  const widths = [[1366, 768], [1280, 800], [390, 844]];
  const check = async (page, screen) => {
    for (const [width, height] of widths) {
      await page.setViewportSize({ width, height });
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
      assert.equal(await overflow(page), 0, `${screen} at ${width} px scrolls sideways`);
      await shot(page, `overflow-${screen}-${width}.png`);
    }
  };
  await check(yan, 'hall');
  // The table with its settings form and stake panel, both seats taken.
  await yan.click('[data-testid=table-1]');
  await yan.click('[data-testid=sit-left]');
  await zoe.click('[data-testid=table-1]');
  await zoe.waitForSelector('[data-testid=seat-left]:has-text("yann")');
  await zoe.click('[data-testid=sit-right]');
  await zoe.waitForSelector('[data-testid=settings-form]');
  await check(zoe, 'table');
  await zoe.setViewportSize({ width: 1280, height: 860 });
  await zoe.selectOption('[data-testid=settings-form] select[name=size]', '9');
  await zoe.click('[data-testid=propose]');
  await yan.waitForSelector('[data-testid=proposal]:has-text("9×9")');
  await yan.click('[data-testid=accept-settings]');
  await waitForAddress(yan, /#\/game\/\d+/);
  await yan.waitForSelector('svg.goban');
  await check(yan, 'game');
});

const SIZES = [{ width: 1366, height: 768 }, { width: 390, height: 844 }];

/**
 * Shoot `page` at both sizes as `screen-lang-width.png`, the screen mounted afresh at each size unless
 * `remount` is false (a finished game is not live any more: a reload would not bring it back).
 */
async function shootBoth(page, screen, lang, ready, remount = true) {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    if (remount) await page.reload();
    await page.waitForSelector(ready);
    await page.evaluate(() => new Promise((resolve) => { window.scrollTo(0, 0); requestAnimationFrame(() => resolve()); }));
    await shot(page, `screen-${screen}-${lang}-${size.width}.png`);
  }
}

test('screenshots: the hall, a game, its result and its review, in both languages at 1366x768 and 390x844', { timeout: 180000 }, async () => {
  const zh = await newUser('shzh', { lang: 'zh-CN' });
  const en = await newUser('shen');
  const players = await challengeGame(zh, en, 'shen');
  await play(players, [
    ['black', { col: 2, row: 2 }], ['white', { col: 6, row: 6 }], ['black', { col: 6, row: 2 }], ['white', { col: 2, row: 6 }],
    ['black', { col: 4, row: 4 }], ['white', { col: 5, row: 3 }], ['black', { col: 4, row: 3 }], ['white', { col: 4, row: 5 }],
    ['black', { col: 5, row: 4 }], ['white', { col: 3, row: 5 }], ['black', { col: 5, row: 5 }], ['white', { col: 6, row: 5 }],
  ]);
  const pages = { en, zh };
  for (const [lang, page] of Object.entries(pages)) await shootBoth(page, 'game', lang, 'svg.goban circle.stone');
  for (const [lang, page] of Object.entries(pages)) {
    await page.evaluate(() => { location.hash = '#/room/1'; });
    await shootBoth(page, 'hall', lang, '[data-testid=return-to-game] a');
    await page.evaluate((game) => { location.hash = `#/game/${game}`; }, players.gameId);
    await page.waitForSelector('[data-testid=pass]');
  }
  // Both pass and accept the count.
  await players.black.click('[data-testid=pass]');
  await players.white.waitForFunction(() => [...window.tengen.state.games.values()].some((g) => g.lastPass === 'black'));
  await players.white.click('[data-testid=pass]');
  for (const page of [players.black, players.white]) await page.waitForSelector('[data-testid=accept-score]');
  await shot(en, 'screen-scoring-en-390.png');
  // The server's estimate of the dead stones may land after the first acceptance and clear it: accept
  // again what is shown until the game is over (a few rounds at most).
  for (let round = 0; round < 5 && !(await en.locator('[data-testid=result-banner]').count()); round++) {
    for (const page of [players.black, players.white]) {
      const accept = page.locator('[data-testid=accept-score]:not([disabled])');
      if (await accept.count()) await accept.click().catch(() => {});
    }
    await en.waitForSelector('[data-testid=result-banner]', { timeout: 3000 }).catch(() => {});
  }
  for (const [lang, page] of Object.entries(pages)) await shootBoth(page, 'result', lang, '[data-testid=result-banner]', false);
  for (const [lang, page] of Object.entries(pages)) {
    await page.evaluate((game) => { location.hash = `#/replay/${game}`; }, players.gameId);
    await page.waitForSelector('[data-testid=move-list] button');
    if (!(await page.isChecked('[data-testid=numbers-switch]'))) await page.check('[data-testid=numbers-switch]');
    await shootBoth(page, 'review', lang, 'svg.goban .move-number');
  }
  // The review lists the twelve moves and the two passes.
  assert.equal(await en.locator('[data-testid=move-list] button').count(), 14);
});
