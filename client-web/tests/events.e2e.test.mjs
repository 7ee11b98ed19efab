// Competitions in the browser, in real Chromium against the real `tengen` binary:
// a player creates a Swiss event from the hall, three players join it from the hall's events panel (one
// of them in Chinese), the director starts round 1 (the "Start round 2" button then waits, saying why),
// the round-1 call takes both paired players to their game, the event page shows "Your game: board 1",
// one resigns, and the standings after the round show every figure, in English and Chinese. Screenshots
// (1366x768) go to client-web/test-output/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserSuite } from './suite.mjs';
import { explain, waitForAddress } from './browser.mjs';

const suite = browserSuite();
const { newUser, shot } = suite;
const VIEWPORT = { width: 1366, height: 768 };

/** The event as `page`'s client last heard it (the tests' window on the state; views never use it). */
const eventOn = (page, event) => page.evaluate((id) => window.tengen.state.events.views.get(id) ?? null, event);
const userOf = (page) => page.evaluate(() => window.tengen.state.me.user);
/**
 * Until `page`'s client holds round `number` of `event` with a game on every board. The round is pushed
 * twice: once paired (stored before any game starts, so a restart starts them), then with its games.
 */
const roundStarted = (page, event, number) => page.waitForFunction(([id, n]) => {
  const round = window.tengen.state.events.views.get(id)?.rounds[n - 1];
  return round != null && round.boards.every((board) => board.game != null);
}, [event, number]);

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
  // A name of spaces is no name: said at once, nothing sent.
  await alice.fill('[data-testid=event-form] input[name=event-name]', '   ');
  await alice.click('[data-testid=event-submit]');
  await alice.waitForSelector('[data-testid=event-form] .form-error:has-text("Give the event a name")');
  await alice.fill('[data-testid=event-form] input[name=event-name]', 'Winter Swiss');
  await alice.selectOption('[data-testid=event-form] select[name=format]', 'swiss');
  await alice.fill('[data-testid=event-form] input[name=rounds]', '2');
  await alice.selectOption('[data-testid=event-settings] select[name=size]', '9');
  await shot(alice, 'event-create.png');
  await alice.click('[data-testid=event-submit]');
  await waitForAddress(alice, /#\/event\/\d+/);
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
  await roundStarted(alice, event, 1);
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
    await explain(page, waitForAddress(page, new RegExp(`#/game/${game}$`)));
    await page.waitForSelector('svg.goban');
  }
  await shot(black, 'event-game.png');
  // The player with the bye stays on the event page, which names the bye; the director's next round waits.
  await resting.waitForSelector('[data-testid=round-1] p');
  await alice.goto(`${suite.server.url}/#/event/${event}`);
  await alice.waitForSelector('[data-testid=start-round-why]');
  assert.equal(await alice.isDisabled('[data-testid=start-round]'), true);
  assert.match(await alice.textContent('[data-testid=start-round]'), /Start round 2|开始第 2 轮/);

  // The player with the bye watches the game from the pairing table.
  await resting.click(`[data-testid=event-game-${game}]`);
  await resting.waitForSelector('svg.goban');

  // Back on the event page, a player in the round is shown their board, with a link back to the game,
  // and the board's watchers.
  await openEventFromHall(white, event);
  await white.waitForSelector('[data-testid=your-game]');
  await white.waitForSelector('[data-testid=board-1-1]:has-text("1 watching"), [data-testid=board-1-1]:has-text("1 人观战")');
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
  // On a phone the page is one column and nothing scrolls sideways (the wide tables scroll in their box).
  for (const page of [alice, carol]) {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0);
  }
  await shot(carol, 'event-standings-zh-390.png');
  await bob.click('.brand');
  await bob.setViewportSize({ width: 390, height: 844 });
  await bob.waitForSelector(`[data-testid=events-running] [data-testid=event-link-${event}]`);
  assert.equal(await bob.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0);
  await shot(bob, 'events-hall-390.png');
});

test('a knockout of three: a bye, the bracket round by round, a winner; a watcher and a reconnect stay in step', { timeout: 120000 }, async () => {
  const dan = await newUser('dan', { viewport: VIEWPORT });
  const erin = await newUser('erin', { viewport: VIEWPORT });
  const fay = await newUser('fay', { lang: 'zh-CN', viewport: VIEWPORT });

  await dan.click('[data-testid=create-event]');
  await dan.fill('[data-testid=event-form] input[name=event-name]', 'Spring Cup');
  await dan.selectOption('[data-testid=event-form] select[name=format]', 'knockout');
  await dan.selectOption('[data-testid=event-settings] select[name=size]', '9');
  await dan.click('[data-testid=event-submit]');
  await waitForAddress(dan, /#\/event\/\d+/);
  const event = Number(dan.url().match(/#\/event\/(\d+)/)[1]);
  await dan.click('[data-testid=event-join]');
  await openEventFromHall(erin, event);
  await erin.click('[data-testid=event-join]');
  await erin.waitForSelector('[data-testid=event-leave]');

  // A guest follows the event without an account: no Join button, and every change reaches the page.
  const guestContext = await suite.browser.newContext({ viewport: VIEWPORT });
  const guest = await guestContext.newPage();
  await guest.goto(`${suite.server.url}/#/event/${event}`);
  await guest.waitForSelector('[data-testid=entrants] li:has-text("erin")');
  assert.equal(await guest.locator('[data-testid=event-join]').count(), 0);
  // An address with no event says so.
  const nowhere = await guestContext.newPage();
  await nowhere.goto(`${suite.server.url}/#/event/999`);
  await nowhere.waitForSelector('[data-testid=event-error]:has-text("There is no such event.")');
  await nowhere.close();

  // Erin's connection drops and stays down while Fay joins: the push is lost, and the page asks for the
  // event again once it is back.
  await erin.evaluate(() => {
    const net = window.tengen.net;
    window.realWebSocket = net.WebSocketImpl;
    // (The same server, at an address that is no socket: each attempt fails at once.)
    net.WebSocketImpl = class extends WebSocket { constructor(url) { super(url.replace(/\/ws$/, '/no-socket-here')); } };
    net.socket.close();
  });
  await erin.waitForSelector('[data-testid=connection]:not(:has-text("Connected"))');
  await openEventFromHall(fay, event);
  await fay.click('[data-testid=event-join]');
  await guest.waitForSelector('[data-testid=entrants] li:has-text("fay")');
  assert.equal(await erin.locator('[data-testid=entrants] li:has-text("fay")').count(), 0);
  await erin.evaluate(() => { window.tengen.net.WebSocketImpl = window.realWebSocket; });
  await erin.waitForSelector('[data-testid=entrants] li:has-text("fay")', { timeout: 30000 });

  // Round 1: the best seed has the bye, the other two play; whoever is White resigns.
  const playRound = async (number) => {
    await dan.goto(`${suite.server.url}/#/event/${event}`);
    await dan.click('[data-testid=start-round]');
    await roundStarted(dan, event, number);
    const round = (await eventOn(dan, event)).rounds[number - 1];
    const pages = new Map([[await userOf(dan), dan], [await userOf(erin), erin], [await userOf(fay), fay]]);
    const white = pages.get(round.boards[0].white);
    await explain(white, waitForAddress(white, new RegExp(`#/game/${round.boards[0].game}$`)));
    white.once('dialog', (dialog) => dialog.accept());
    await white.click('[data-testid=resign]');
    await guest.waitForSelector(`[data-testid=result-${number}-1]:not(:has-text("in play"))`);
    return round;
  };
  const first = await playRound(1);
  assert.equal(first.byes.length, 1);
  await guest.waitForSelector('[data-testid=bracket] .bracket-match.bye');
  await shot(guest, 'event-bracket-round1.png');

  // Round 2, the final: the bye's player meets round 1's winner; the winner is named.
  const final = await playRound(2);
  assert.deepEqual([final.boards[0].black, final.boards[0].white].sort(), [first.byes[0], first.boards[0].black].sort());
  await dan.waitForFunction((id) => window.tengen.state.events.views.get(id)?.summary.status === 'finished', event);
  assert.equal((await eventOn(dan, event)).winner, final.boards[0].black, 'White resigned the final');
  await guest.waitForSelector('[data-testid=event-winner]');
  await guest.waitForSelector('[data-testid=event-status]:has-text("Finished")');
  assert.equal(await guest.locator('[data-testid=bracket] .bracket-round').count(), 2);
  await shot(guest, 'event-bracket-final.png');
  // Fay reads the finished event in Chinese: the survival column and the bracket's rounds.
  await openEventFromHall(fay, event);
  await fay.waitForSelector('[data-testid=event-status]:has-text("已结束")');
  await fay.waitForSelector('[data-testid=standings] th:has-text("状态")');
  await shot(fay, 'event-bracket-zh.png');
  // The director has no round left to start: no button.
  await dan.goto(`${suite.server.url}/#/event/${event}`);
  await dan.waitForSelector('[data-testid=event-winner]');
  assert.equal(await dan.locator('[data-testid=start-round]').count(), 0);
  await guestContext.close();
});

test('the director (in Chinese) warns, adjudicates a game with a reason, and withdraws a player', { timeout: 120000 }, async () => {
  const hana = await newUser('hana', { lang: 'zh-CN', viewport: VIEWPORT });
  const ivan = await newUser('ivan', { viewport: VIEWPORT });
  const jack = await newUser('jack', { viewport: VIEWPORT });

  // A double round robin of two, directed by someone who does not play.
  await hana.click('[data-testid=create-event]');
  await hana.fill('[data-testid=event-form] input[name=event-name]', '双循环');
  await hana.selectOption('[data-testid=event-form] select[name=format]', 'round_robin');
  await hana.fill('[data-testid=event-form] input[name=cycles]', '2');
  await hana.selectOption('[data-testid=event-settings] select[name=size]', '9');
  await hana.click('[data-testid=event-submit]');
  await waitForAddress(hana, /#\/event\/\d+/);
  const event = Number(hana.url().match(/#\/event\/(\d+)/)[1]);
  for (const page of [ivan, jack]) {
    await openEventFromHall(page, event);
    await page.click('[data-testid=event-join]');
  }
  await hana.waitForSelector('[data-testid=entrants] li:has-text("jack")');

  // A warning, confirmed: on the entrant's line and in the log.
  hana.once('dialog', (dialog) => dialog.accept());
  await hana.click('[data-testid=warn-ivan]');
  await hana.waitForSelector('[data-testid=entrants] li:has-text("ivan"):has-text("警告 1 次")');
  await hana.waitForSelector('[data-testid=event-log] li:has-text("ivan 受到警告")');
  await ivan.waitForSelector('[data-testid=standing-' + (await userOf(ivan)) + '] [data-col=warnings]:has-text("1")');

  // Round 1; the director decides its game: a reason is required, then White wins.
  await hana.click('[data-testid=start-round]');
  await hana.waitForSelector('[data-testid=round-1]');
  const game = (await eventOn(hana, event)).rounds[0].boards[0].game;
  for (const page of [ivan, jack]) await waitForAddress(page, new RegExp(`#/game/${game}$`));
  await hana.click(`[data-testid=adjudicate-${game}] summary`);
  await hana.selectOption(`[data-testid=adjudicate-${game}] select[name=outcome]`, 'white_wins');
  await hana.click(`[data-testid=adjudicate-submit-${game}]`);
  await hana.waitForSelector(`[data-testid=adjudicate-${game}] .form-error:has-text("请写明理由")`);
  await hana.fill(`[data-testid=adjudicate-${game}] input[name=reason]`, 'Black left the hall');
  await shot(hana, 'event-adjudicate-zh.png');
  await hana.click(`[data-testid=adjudicate-submit-${game}]`);
  await hana.waitForSelector('[data-testid=result-1-1]:has-text("白胜")');
  await hana.waitForSelector('[data-testid=event-log] li:has-text("Black left the hall")');
  // The players see their game end.
  for (const page of [ivan, jack]) await page.waitForSelector('[data-testid=result-sgf]');

  // Round 2, and the director withdraws jack during it: his game is lost, and he is paired no more.
  await hana.click('[data-testid=start-round]');
  await hana.waitForSelector('[data-testid=round-2]');
  hana.once('dialog', (dialog) => dialog.accept());
  await hana.click('[data-testid=withdraw-jack]');
  await hana.waitForSelector('[data-testid=entrants] li:has-text("jack"):has-text("已退赛")');
  await hana.waitForSelector('[data-testid=result-2-1]:not(:has-text("对局中"))');
  await hana.waitForSelector('[data-testid=event-log] li:has-text("jack 被裁判长判令退赛")');
  await shot(hana, 'event-director-zh.png');
  await openEventFromHall(ivan, event);
  await ivan.waitForSelector('[data-testid=standings] td:has-text("withdrawn")');
  await shot(ivan, 'event-withdrawn-en.png');
});
