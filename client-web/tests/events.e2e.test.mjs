// Competitions in the browser (issue 17 item 5), in real Chromium against the real `tengen` binary:
// a player creates a Swiss event from the hall, three players join it from the hall's events panel (one
// of them in Chinese), the director starts round 1 (the "Start round 2" button then waits, saying why),
// the round-1 call takes both paired players to their game, the event page shows "Your game: board 1",
// one resigns, and the standings after the round show every figure, in English and Chinese. Screenshots
// (1366x768) go to client-web/test-output/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserSuite } from './suite.mjs';

const suite = browserSuite();
const { newUser, shot } = suite;
const VIEWPORT = { width: 1366, height: 768 };

/** The event as `page`'s client last heard it (the tests' window on the state; views never use it). */
const eventOn = (page, event) => page.evaluate((id) => window.tengen.state.events.views.get(id) ?? null, event);
const userOf = (page) => page.evaluate(() => window.tengen.state.me.user);

async function openEventFromHall(page, event) {
  await page.click('.brand');
  await page.click(`[data-testid=event-link-${event}]`);
  await page.waitForSelector('[data-testid=event-name]');
}

test('an event is created, joined, its round 1 played, and its standings shown, in English and Chinese', { timeout: 120000 }, async () => {
  const alice = await newUser('alice', { viewport: VIEWPORT });
  const bob = await newUser('bob', { viewport: VIEWPORT });
  const carol = await newUser('carol', { lang: 'zh-CN', viewport: VIEWPORT });

  // Alice creates a 2-round Swiss event on 9x9 from the hall.
  await alice.click('[data-testid=create-event]');
  await alice.fill('[data-testid=event-form] input[name=event-name]', 'Winter Swiss');
  await alice.selectOption('[data-testid=event-form] select[name=format]', 'swiss');
  await alice.fill('[data-testid=event-form] input[name=rounds]', '2');
  await alice.selectOption('[data-testid=event-settings] select[name=size]', '9');
  await shot(alice, 'event-create.png');
  await alice.click('[data-testid=event-submit]');
  await alice.waitForURL(/#\/event\/\d+/);
  const event = Number(alice.url().match(/#\/event\/(\d+)/)[1]);
  await alice.waitForSelector('[data-testid=event-status]:has-text("Open for entries")');
  assert.match(await alice.textContent('.event-head'), /Swiss, 2 rounds/);
  // Only two entrants make a round: until then the director is told why the button waits.
  assert.equal(await alice.isDisabled('[data-testid=start-round]'), true);
  await alice.click('[data-testid=event-join]');
  await alice.waitForSelector('[data-testid=entrants] li:has-text("alice")');

  // Bob and Carol find it in the hall's events panel, pushed there live, and join.
  await bob.waitForSelector(`[data-testid=events-open] [data-testid=event-link-${event}]`);
  await shot(bob, 'events-hall.png');
  await openEventFromHall(bob, event);
  await bob.click('[data-testid=event-join]');
  await openEventFromHall(carol, event);
  await carol.waitForSelector('[data-testid=event-status]:has-text("报名中")');
  await carol.click('[data-testid=event-join]');
  await carol.waitForSelector('[data-testid=event-leave]');
  // Everyone entered sees the three entrants, pushed.
  for (const page of [alice, bob, carol]) await page.waitForSelector('[data-testid=entrants] li:has-text("carol")');
  await shot(carol, 'event-open-zh.png');

  // The director starts round 1: three players, so one board and a bye.
  await alice.click('[data-testid=start-round]');
  // (Alice may be paired herself, and taken to her game at once: read the round from her client's state.)
  await alice.waitForFunction((id) => window.tengen.state.events.views.get(id)?.rounds.length === 1, event);
  const round = (await eventOn(alice, event)).rounds[0];
  assert.equal(round.boards.length, 1);
  assert.equal(round.byes.length, 1);
  const pages = new Map([[await userOf(alice), alice], [await userOf(bob), bob], [await userOf(carol), carol]]);
  const black = pages.get(round.boards[0].black);
  const white = pages.get(round.boards[0].white);
  const resting = pages.get(round.byes[0]);
  const game = round.boards[0].game;

  // The round-1 call: both paired players are taken to their game, wherever they were.
  for (const page of [black, white]) {
    await page.waitForURL(new RegExp(`#/game/${game}$`));
    await page.waitForSelector('svg.goban');
  }
  await shot(black, 'event-game.png');
  // The player with the bye stays on the event page, which names the bye; the director's next round waits.
  await resting.waitForSelector('[data-testid=round-1] p');
  await alice.goto(`${suite.server.url}/#/event/${event}`);
  await alice.waitForSelector('[data-testid=start-round-why]');
  assert.equal(await alice.isDisabled('[data-testid=start-round]'), true);
  assert.match(await alice.textContent('[data-testid=start-round]'), /Start round 2|开始第 2 轮/);

  // Back on the event page, a player in the round is shown their board, with a link back to the game.
  await openEventFromHall(white, event);
  await white.waitForSelector('[data-testid=your-game]');
  assert.match(await white.textContent('[data-testid=your-game]'), /board 1|第 1 台/);
  await shot(white, 'event-your-game.png');
  await white.click('[data-testid=your-game-link]');
  await white.waitForSelector('svg.goban');

  // White resigns: Black wins board 1.
  white.once('dialog', (dialog) => dialog.accept());
  await white.click('[data-testid=resign]');
  await white.waitForSelector('[data-testid=result-sgf]');

  // The standings after round 1, live on every entrant's page: Black and the bye 2 points, White 0.
  for (const page of [alice, black, white, resting]) {
    if (!/#\/event\//.test(page.url())) await openEventFromHall(page, event);
    await page.waitForSelector('[data-testid=event-status]:has-text("Between rounds"), [data-testid=event-status]:has-text("轮间休息")');
  }
  assert.match(await alice.textContent('[data-testid=result-1-1]'), /Black wins/);
  assert.equal(await alice.isDisabled('[data-testid=start-round]'), false);
  const scoreOf = (page, user) => page.textContent(`[data-testid=standing-${user}] [data-col=score]`);
  assert.equal(await scoreOf(alice, round.boards[0].black), '2');
  assert.equal(await scoreOf(alice, round.byes[0]), '2');
  assert.equal(await scoreOf(alice, round.boards[0].white), '0');
  // Every figure the criteria rank by has its column (a Swiss by 总得分: total score, then warnings).
  const criteria = (await eventOn(alice, event)).standings.criteria;
  for (const c of criteria) assert.ok(await alice.locator(`[data-testid=standings] td[data-col=${c}]`).count() >= 3, c);
  const wdl = await alice.textContent(`[data-testid=standing-${round.boards[0].white}] [data-col=wdl]`);
  assert.equal(wdl, '0/0/1');
  await shot(alice, 'event-standings-en.png');
  // Carol reads the same page in Chinese, with the Chinese names of the figures.
  await carol.waitForSelector('[data-testid=standings] th:has-text("总得分")');
  assert.match(await carol.textContent('[data-testid=result-1-1]'), /黑胜/);
  await shot(carol, 'event-standings-zh.png');
  // And Alice switches to Chinese: the same standings, in the other language.
  await alice.click('[data-testid=lang-switch]');
  await alice.waitForSelector('[data-testid=event-status]:has-text("轮间休息")');
  await alice.waitForSelector('[data-testid=start-round]:has-text("开始第 2 轮")');
});
