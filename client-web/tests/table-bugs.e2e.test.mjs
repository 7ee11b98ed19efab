// Bugs of games played at a table, in real Chromium against the real `tengen` binary: the
// stake panel during a game (raising only agreed stakes, and showing the raise) and the hall's table card
// counting the game's watchers as the game does. Screenshots go to client-web/test-output/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserSuite } from './suite.mjs';
import { waitForAddress } from './browser.mjs';

const suite = browserSuite();
const { newUser, shot } = suite;

/**
 * `left` and `right` sit at table `n`, agree stakes of `stake` a side first when given, White proposes
 * 9x9 and Black confirms; resolves with the game id once both are on the game screen.
 */
async function tableGame(left, right, leftName, n, stake = 0) {
  await left.click(`[data-testid=table-${n}]`);
  await left.click('[data-testid=sit-left]');
  await right.click(`[data-testid=table-${n}]`);
  await right.waitForSelector(`[data-testid=seat-left]:has-text("${leftName}")`);
  await right.click('[data-testid=sit-right]');
  if (stake) {
    await left.waitForSelector('[data-testid=stake]:visible');
    await left.fill('[data-testid=stake] input[name=stake-left]', String(stake));
    await left.fill('[data-testid=stake] input[name=stake-right]', String(stake));
    await left.click('[data-testid=stake-ok]');
    await right.waitForSelector(`[data-testid=stake-status]:has-text("${stake}")`);
    await right.click('[data-testid=stake-ok]');
    for (const page of [left, right]) {
      await page.waitForSelector('[data-testid=stake-agree]:visible');
      await page.click('[data-testid=stake-agree]');
    }
    await left.waitForSelector('[data-testid=stake-status] .ok');
  }
  await right.selectOption('[data-testid=settings-form] select[name=size]', '9');
  await right.click('[data-testid=propose]');
  await left.waitForSelector('[data-testid=proposal]:has-text("9×9")');
  await left.click('[data-testid=accept-settings]');
  for (const page of [left, right]) await waitForAddress(page, /#\/game\/\d+/);
  await left.waitForSelector('svg.goban');
  return Number(left.url().match(/#\/game\/(\d+)/)[1]);
}

test('a raise shows in the stake panel at once, and there is no raise without agreed stakes', { timeout: 90000 }, async () => {
  const ann = await newUser('sara');
  const ben = await newUser('tom1');
  if (!(await ann.evaluate(() => window.tengen.state.balance != null))) return; // no fortune points on this server
  // Table 2: no stakes agreed, so there is nothing to raise.
  await tableGame(ann, ben, 'sara', 2);
  for (const page of [ann, ben]) {
    await page.waitForSelector('[data-testid=stake]:visible');
    assert.equal(await page.locator('[data-testid=stake-raise]:visible').count(), 0, 'no raise without agreed stakes');
  }
  await shot(ann, 'stake-none-in-game.png');
  const cid = await newUser('cid1');
  const dee = await newUser('dee1');
  // Table 3: 50 a side agreed; the left player raises by 10 and the panel says 60 for that seat.
  await tableGame(cid, dee, 'cid1', 3, 50);
  await cid.waitForSelector('[data-testid=stake-raise]:visible');
  await cid.fill('[data-testid=stake] input[name=stake-raise]', '10');
  await cid.click('[data-testid=stake-raise]');
  for (const page of [cid, dee]) await page.waitForSelector('[data-testid=stake-status] p:first-child:has-text("60")');
  assert.match(await dee.textContent('[data-testid=stake-status] p:first-child'), /60.*50/);
  await shot(cid, 'stake-raised.png');
});

test('the hall table card counts the watchers of its game, not its players', { timeout: 60000 }, async () => {
  const eve = await newUser('eve1');
  const fay = await newUser('fay1');
  const gus = await newUser('gus1');
  const hal = await newUser('hal1');
  const gameId = await tableGame(eve, fay, 'eve1', 4);
  // Gus watches the game; Hal, in the hall, reads the card of table 4 and the live games list.
  await gus.waitForSelector(`[data-testid=game-link-${gameId}]`);
  await gus.click(`[data-testid=game-link-${gameId}]`);
  await gus.waitForSelector('[data-testid=watchers]:has-text("1 watching")');
  await hal.waitForSelector(`[data-testid=game-link-${gameId}]:has-text("1 watching")`);
  await hal.waitForSelector('[data-testid=table-4]:has-text("Playing")');
  assert.match(await hal.textContent('[data-testid=table-4]'), /1 watching/);
  await shot(hal, 'hall-table-watchers.png');
});

test('choosing a handicap sets komi to 0, and no handicap sets it back', { timeout: 60000 }, async () => {
  const ida = await newUser('ida1');
  const jon = await newUser('jon1');
  await ida.click('[data-testid=table-5]');
  await ida.click('[data-testid=sit-left]');
  await jon.click('[data-testid=table-5]');
  await jon.waitForSelector('[data-testid=seat-left]:has-text("ida1")');
  await jon.click('[data-testid=sit-right]');
  const form = '[data-testid=settings-form]';
  assert.equal(await jon.inputValue(`${form} input[name=komi]`), '7.5');
  await jon.selectOption(`${form} select[name=handicap]`, '2');
  assert.equal(await jon.inputValue(`${form} input[name=komi]`), '0');
  await shot(jon, 'handicap-komi.png');
  await jon.click('[data-testid=propose]');
  await ida.waitForSelector('[data-testid=proposal]:has-text("Handicap 2")');
  assert.match(await ida.textContent('[data-testid=proposal]'), /Komi 0 /);
  await jon.selectOption(`${form} select[name=handicap]`, '0');
  assert.equal(await jon.inputValue(`${form} input[name=komi]`), '7.5');
});

test('a stake refused for a coach stake or a negative amount says why', { timeout: 60000 }, async () => {
  const kim = await newUser('kim1');
  const lou = await newUser('lou1');
  if (!(await kim.evaluate(() => window.tengen.state.balance != null))) return; // no fortune points on this server
  await kim.click('[data-testid=table-6]');
  await kim.click('[data-testid=sit-left]');
  await lou.click('[data-testid=table-6]');
  await lou.waitForSelector('[data-testid=seat-left]:has-text("kim1")');
  await lou.click('[data-testid=sit-right]');
  await kim.waitForSelector('[data-testid=stake]:visible');
  // Paid coaching with the left seat coaching, but a coach stake of 10.
  await kim.fill('[data-testid=stake] input[name=stake-left]', '10');
  await kim.fill('[data-testid=stake] input[name=stake-right]', '20');
  await kim.selectOption('[data-testid=stake] select[name=stake-terms]', 'coach-left');
  await kim.click('[data-testid=stake-ok]');
  await kim.waitForSelector('[data-testid=stake-error]:has-text("coach stakes 0")');
  await shot(kim, 'stake-coach-error.png');
  // A negative stake.
  await kim.selectOption('[data-testid=stake] select[name=stake-terms]', 'normal');
  await kim.fill('[data-testid=stake] input[name=stake-left]', '-5');
  await kim.click('[data-testid=stake-ok]');
  await kim.waitForSelector('[data-testid=stake-error]:has-text("whole numbers of points")');
  assert.doesNotMatch(await kim.textContent('[data-testid=stake-error]'), /serde|invalid value|u64/);
  // Nothing was offered.
  assert.match(await lou.textContent('[data-testid=stake-status]'), /No stakes offered/);
});
