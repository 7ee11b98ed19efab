// The rules inside an event's game on the board page (and the forced pass of a byo-yomi timeout), in
// real Chromium against the real `tengen`: a player who is not there when the round starts is awaited
// with the countdown to their forfeit, then arrives late and is told what it cost; the game links back
// to its event (also for a guest who opened the game alone); the director's warning shows per colour;
// the director pauses (banner with the resume time, no move taken) and resumes; adjourns, the player to
// move seals a point nobody else sees, and the sealed move is played at the resumption; the event page
// shows each live board's watchers and pool. And a byo-yomi timeout under "timeout is a pass" is said as
// such on both players' boards. English and Chinese; screenshots at 1366x768 in client-web/test-output/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clickPoint, waitStone, waitForAddress } from './browser.mjs';
import { browserSuite, PASSWORD } from './suite.mjs';

const suite = browserSuite();
const { newUser, shot } = suite;
const VIEWPORT = { width: 1366, height: 768 };

const eventOn = (page, event) => page.evaluate((id) => window.tengen.state.events.views.get(id) ?? null, event);
const userOf = (page) => page.evaluate(() => window.tengen.state.me.user);

async function login(name, lang) {
  const context = await suite.browser.newContext({ viewport: VIEWPORT, locale: lang });
  const page = await context.newPage();
  await page.goto(suite.server.url);
  await page.fill('input[name=username]', name);
  await page.fill('input[name=password]', PASSWORD);
  await page.click('[data-testid=login]');
  return page;
}

test('an event game: lateness, the link to its event, a warning, a pause, an adjournment with a sealed move, and the event page\'s pools', { timeout: 180000 }, async () => {
  const hana = await newUser('hana', { lang: 'zh-CN', viewport: VIEWPORT });
  const ivan = await newUser('ivan', { viewport: VIEWPORT });
  let jack = await newUser('jack', { lang: 'zh-CN', viewport: VIEWPORT });
  const jackId = await userOf(jack);

  // Hana directs a round robin of two on 9x9 and does not play.
  await hana.click('[data-testid=create-event]');
  await hana.fill('[data-testid=event-form] input[name=event-name]', 'Rules Cup');
  await hana.selectOption('[data-testid=event-form] select[name=format]', 'round_robin');
  await hana.selectOption('[data-testid=event-settings] select[name=size]', '9');
  await hana.click('[data-testid=event-submit]');
  await waitForAddress(hana, /#\/event\/\d+/);
  const event = Number(hana.url().match(/#\/event\/(\d+)/)[1]);
  for (const page of [ivan, jack]) {
    await page.click('.brand');
    await page.click(`[data-testid=event-link-${event}]`);
    await page.click('[data-testid=event-join]');
  }
  await hana.waitForSelector('[data-testid=entrants] li:has-text("jack")');

  // Jack closes his browser; the round starts without him.
  await jack.context().close();
  await hana.click('[data-testid=start-round]');
  await hana.waitForSelector('[data-testid=round-1]');
  const board = (await eventOn(hana, event)).rounds[0].boards[0];
  const game = board.game;
  const jackColor = board.black === jackId ? 'black' : 'white';
  const ivanColor = jackColor === 'black' ? 'white' : 'black';
  await waitForAddress(ivan, new RegExp(`#/game/${game}$`));
  // Ivan's board: the way back to the event, and Jack awaited with the countdown to his forfeit (15 minutes).
  await ivan.waitForSelector(`[data-testid=event-link][href="#/event/${event}"]`);
  await ivan.waitForSelector(`[data-testid=lateness]:has-text("${jackColor === 'black' ? 'Black' : 'White'} has not arrived: loses by forfeit in 14:")`);
  await shot(ivan, 'event-game-awaited-en.png');

  // A guest who opens the game alone (never the event) is given the event's link too.
  const guestContext = await suite.browser.newContext({ viewport: VIEWPORT });
  const guest = await guestContext.newPage();
  await guest.goto(`${suite.server.url}/#/game/${game}`);
  await guest.waitForSelector(`[data-testid=event-link][href="#/event/${event}"]:has-text("Rules Cup")`);

  // Jack comes back over a second late: taken to his game, and everyone reads his lateness and its cost.
  await ivan.waitForFunction(() => /in 14:5[0-8]/.test(document.querySelector('[data-testid=lateness]')?.textContent ?? ''));
  jack = await login('jack', 'zh-CN');
  await waitForAddress(jack, new RegExp(`#/game/${game}$`));
  await ivan.waitForSelector(`[data-testid=arrivals]:has-text("arrived"):has-text("late")`);
  await jack.waitForSelector('[data-testid=arrivals]:has-text("迟到")');
  await ivan.waitForSelector('[data-testid=lateness]', { state: 'hidden' });

  // The director warns Jack: one point off his count, on both boards.
  await hana.goto(`${suite.server.url}/#/event/${event}`);
  hana.once('dialog', (dialog) => dialog.accept());
  await hana.click('[data-testid=warn-jack]');
  await ivan.waitForSelector('[data-testid=warnings]:has-text("1 warning from the director")');
  await jack.waitForSelector('[data-testid=warnings]:has-text("被裁判警告 1 次")');

  // The event page: the live board's watchers and pool.
  await hana.waitForSelector(`[data-testid=event-pool-${game}]`);
  assert.match(await hana.textContent(`[data-testid=event-pool-${game}]`), /竞猜池 0/);

  // A pause for 10 minutes: the banner with the resume time on both boards; a click plays nothing.
  await hana.click(`[data-testid=halt-${game}] summary`);
  await hana.click(`[data-testid=pause-${game}]`);
  await hana.waitForSelector(`[data-testid=halt-${game}]:has-text("已暂停")`);
  await ivan.waitForSelector('[data-testid=halt]:has-text("Paused by the director: resumes at")');
  await jack.waitForSelector('[data-testid=halt]:has-text("裁判暂停对局")');
  // No pass, undo or resignation while the game stands still; the log says it in the director's language.
  assert.equal(await ivan.locator('[data-testid=pass]').count(), 0);
  await hana.waitForSelector(`[data-testid=event-log] li:has-text("对局 ${game} 暂停至")`);
  await shot(ivan, 'event-game-paused-en.png');
  await shot(hana, 'event-director-halt-zh.png');
  const mover = (await ivan.evaluate((id) => window.tengen.state.games.get(id).toMove, game)) === ivanColor ? ivan : jack;
  await clickPoint(mover, 9, { col: 2, row: 2 });
  await hana.click(`[data-testid=resume-${game}]`);
  await ivan.waitForSelector('[data-testid=halt]', { state: 'hidden' });
  await jack.waitForSelector('[data-testid=halt]', { state: 'hidden' });
  assert.equal(await mover.evaluate((id) => window.tengen.state.games.get(id).movesCount, game), 0, 'nothing was played while paused');

  // An adjournment: the player to move seals E5; the other reads only that a move is sealed.
  await hana.click(`[data-testid=adjourn-${game}]`);
  await mover.waitForSelector('[data-testid=seal-dialog]');
  const other = mover === ivan ? jack : ivan;
  await other.waitForSelector('[data-testid=halt]:has-text("Adjourned"), [data-testid=halt]:has-text("封棋中")');
  await clickPoint(mover, 9, { col: 4, row: 4 });
  await mover.waitForSelector('[data-testid=seal-move]:has-text("E5")');
  await shot(mover, mover === jack ? 'event-game-seal-zh.png' : 'event-game-seal-en.png');
  await mover.click('[data-testid=seal-move]');
  for (const page of [ivan, jack]) await page.waitForSelector('[data-testid=halt]:has-text("Move sealed by"), [data-testid=halt]:has-text("已封棋")');
  await waitStone(other, { col: 4, row: 4 }, null);
  await shot(other, other === jack ? 'event-game-sealed-zh.png' : 'event-game-sealed-en.png');
  // The director resumes: the sealed move is played on every board.
  await hana.click(`[data-testid=resume-${game}]`);
  const moverColor = mover === ivan ? ivanColor : jackColor;
  for (const page of [ivan, jack, guest]) await waitStone(page, { col: 4, row: 4 }, moverColor);
  await ivan.waitForSelector('[data-testid=halt]', { state: 'hidden' });
  await shot(hana, 'event-director-zh.png');
  await guestContext.close();
});

test('a byo-yomi timeout under "timeout is a pass" is announced as a pass played for that player, in English and Chinese', { timeout: 90000 }, async () => {
  const kay = await newUser('kay', { viewport: VIEWPORT });
  const lee = await newUser('lee', { lang: 'zh-CN', viewport: VIEWPORT });
  // Kay challenges Lee: no main time, one byo-yomi period of 2 s, a timeout is a pass.
  await kay.click('[data-testid=players] li:has-text("lee") button');
  await kay.fill('.modal [name=main]', '0');
  await kay.fill('.modal [name=periods]', '1');
  await kay.fill('.modal [name=period]', '2');
  await kay.check('.modal input[name=timeout_is_pass]');
  await kay.click('.modal button.primary');
  await lee.waitForSelector('.modal button.primary');
  await lee.click('.modal button.primary');
  for (const page of [kay, lee]) await waitForAddress(page, /#\/game\/\d+/);
  // Nobody moves: the side to move's period runs out and a pass is played for them (then the other's).
  await kay.waitForSelector('[data-testid=forced-pass]:has-text("ran out of time: a pass was played for them.")', { timeout: 20000 });
  await lee.waitForSelector('[data-testid=forced-pass]:has-text("超时：按规定判为虚着一手。")', { timeout: 20000 });
  await shot(kay, 'forced-pass-en.png');
  await shot(lee, 'forced-pass-zh.png');
});
