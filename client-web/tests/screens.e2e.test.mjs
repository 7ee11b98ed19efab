// Bugs of whole screens (issue 15), in real Chromium against the real `tengen` binary: what survives a
// language switch. Screenshots go to client-web/test-output/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clickPoint, waitStone } from './browser.mjs';
import { browserSuite } from './suite.mjs';

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
  await yan.waitForURL(/#\/game\/\d+/);
  await yan.waitForSelector('svg.goban');
  await check(yan, 'game');
});
