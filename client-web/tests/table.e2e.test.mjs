// Table games as players expect them, in real Chromium against the real `tengen`: the stake
// dialog says whose turn it is and what its marks mean, the settings form offers "timeout is a pass" and
// remembers what this browser proposed last, the players list shows who is playing, and a finished table
// game is played again with the same settings from the result.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserSuite } from './suite.mjs';
import { waitForAddress } from './browser.mjs';

const suite = browserSuite();
const { newUser, shot } = suite;

test('the stake dialog says whose turn it is; timeout-is-a-pass is proposed; a rematch starts with the same settings; the form remembers', { timeout: 120000 }, async () => {
  const left = await newUser('tbla');
  const right = await newUser('tblb');
  const fortune = await left.evaluate(() => window.tengen.state.balance != null);
  await left.click('[data-testid=table-4]');
  await left.click('[data-testid=sit-left]');
  await right.click('[data-testid=table-4]');
  await right.waitForSelector('[data-testid=seat-left]:has-text("tbla")');
  await right.click('[data-testid=sit-right]');
  if (fortune) {
    // Left offers 20 a side: Right is told it is their turn to press OK, Left that it waits for Right.
    await left.waitForSelector('[data-testid=stake]:visible');
    await left.fill('[data-testid=stake] input[name=stake-left]', '20');
    await left.fill('[data-testid=stake] input[name=stake-right]', '20');
    await left.click('[data-testid=stake-ok]');
    await right.waitForSelector('[data-testid=stake-next]:has-text("Your turn: press OK")');
    await left.waitForSelector('[data-testid=stake-next]:has-text("Waiting for the Right seat (White) to press OK")');
    assert.match(await right.textContent('[data-testid=stake-legend]'), /✓ pressed OK/);
    await shot(right, 'stake-next-step.png');
    await right.click('[data-testid=stake-ok]');
    await left.waitForSelector('[data-testid=stake-next]:has-text("Your turn: both pressed OK")');
    await left.click('[data-testid=stake-disagree]');
  }
  // White proposes 9x9 byo-yomi with one 10 s period where a timeout is a pass; Black reads it and accepts.
  await right.selectOption('[data-testid=settings-form] select[name=size]', '9');
  await right.fill('[data-testid=settings-form] input[name=period]', '10');
  await right.fill('[data-testid=settings-form] input[name=periods]', '1');
  await right.check('[data-testid=settings-form] input[name=timeout_is_pass]');
  await right.click('[data-testid=propose]');
  await left.waitForSelector('[data-testid=proposal]:has-text("Timeout is a pass")');
  await left.click('[data-testid=accept-settings]');
  for (const page of [left, right]) await waitForAddress(page, /#\/game\/\d+/);
  const first = Number(left.url().match(/#\/game\/(\d+)/)[1]);
  const settings = await left.evaluate((game) => window.tengen.state.games.get(game)?.settings, first);
  assert.equal(settings.clock.timeout_is_pass, true);
  // A third user's players list shows both as playing, with a link to the game.
  const watcher = await newUser('tblc');
  await watcher.waitForSelector(`[data-testid=playing-tbla][href="#/game/${first}"]`);
  await watcher.waitForSelector(`[data-testid=playing-tblb][href="#/game/${first}"]`);
  await shot(watcher, 'players-playing.png');
  // Black resigns; Black asks for the rematch first, White then: the next game starts with the same settings.
  await left.waitForSelector('[data-testid=resign]');
  left.once('dialog', (dialog) => dialog.accept());
  await left.click('[data-testid=resign]');
  for (const page of [left, right]) await page.waitForSelector('[data-testid=rematch]');
  await shot(right, 'rematch-offer.png');
  await left.click('[data-testid=rematch]');
  await right.click('[data-testid=rematch]');
  for (const page of [left, right]) await waitForAddress(page, new RegExp(`#/game/(?!${first}$)\\d+$`));
  const second = Number(left.url().match(/#\/game\/(\d+)/)[1]);
  assert.notEqual(second, first);
  await left.waitForFunction((game) => window.tengen.state.games.has(game), second);
  const again = await left.evaluate((game) => window.tengen.state.games.get(game).settings, second);
  assert.deepEqual(again, settings);
  // White's browser remembers what it proposed: at another table its form starts from it.
  const other = await newUser('tbld');
  await other.click('[data-testid=table-5]');
  await other.click('[data-testid=sit-left]');
  right.once('dialog', (dialog) => dialog.accept());
  await right.click('[data-testid=resign]');
  await right.waitForSelector('[data-testid=result-banner]');
  await right.evaluate(() => { location.hash = '#/table/4'; });
  await right.click('text=Stand up');
  await right.evaluate(() => { location.hash = '#/table/5'; });
  await right.click('[data-testid=sit-right]');
  await right.waitForSelector('[data-testid=settings-form]');
  assert.equal(await right.inputValue('[data-testid=settings-form] select[name=size]'), '9');
  assert.equal(await right.inputValue('[data-testid=settings-form] input[name=period]'), '10');
  assert.equal(await right.isChecked('[data-testid=settings-form] input[name=timeout_is_pass]'), true);
});
