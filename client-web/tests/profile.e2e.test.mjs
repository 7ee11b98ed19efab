// Players' profiles in real Chromium against the real `tengen`: two players finish a rated game and are
// paired in an event's first round; a third user opens their profiles from the hall's players list, the
// game page, a game's record and the event page (rank, what "provisional" means, the rated record, the
// game's link to its record, the rating graph, the event's place, the game they play now), pages through
// a long list of games with "More", and in Chinese on a phone opens profiles from the hall, and from the
// room chat the profile of 棋圣, a name in Chinese script. Screenshots go to client-web/test-output/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { browserSuite, PASSWORD, OUT } from './suite.mjs';
import { challengeGame } from './play.mjs';
import { waitForAddress, explain } from './browser.mjs';

const suite = browserSuite();
const { newUser, shot } = suite;

/** A request from `page`'s own connection (the tests' window on the client; views never use it). */
const request = (page, msg) => page.evaluate((m) => window.tengen.net.request(m), msg);

/** A page's horizontal overflow in pixels: 0 when nothing scrolls sideways. */
const overflow = (page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

const NINE = { size: 9, komi_half_points: 15, handicap: 0, ko_rule: 'positional', clock: { kind: 'none' }, nigiri: false };

/**
 * `count` finished games between two new players, `first` and `second`, made over two bare WebSockets
 * in a page of the server's origin (a challenge, its acceptance, a resignation before any move): enough
 * games for a profile to page through. Paced under the server's 20 messages a second per connection.
 */
async function quickGames(browser, url, { first, second, count }) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${url}/style.css`);
  await page.evaluate(async ({ first, second, count, password, settings }) => {
    const pause = (ms) => new Promise((wake) => setTimeout(wake, ms));
    function client() {
      const ws = new WebSocket(`ws://${location.host}/ws`);
      const waiting = new Map();
      const pushes = [];
      let next = 1;
      ws.onmessage = (e) => {
        const msg = JSON.parse(e.data);
        if (msg.id != null && waiting.has(msg.id)) {
          waiting.get(msg.id)(msg);
          waiting.delete(msg.id);
        } else pushes.push(msg);
      };
      const open = new Promise((wake) => { ws.onopen = wake; });
      return {
        async request(msg) {
          await open;
          await pause(60);
          const id = next++;
          const reply = await new Promise((wake) => { waiting.set(id, wake); ws.send(JSON.stringify({ ...msg, id })); });
          if (reply.type === 'error') throw new Error(`${msg.type}: ${reply.code} ${reply.message}`);
          return reply;
        },
        async push(type) {
          for (;;) {
            const at = pushes.findIndex((m) => m.type === type);
            if (at >= 0) return pushes.splice(at, 1)[0];
            await pause(10);
          }
        },
      };
    }
    const a = client();
    const b = client();
    for (const c of [a, b]) await c.request({ type: 'hello', version: 1 });
    await a.request({ type: 'register', username: first, password });
    const bUser = (await b.request({ type: 'register', username: second, password })).user;
    for (let n = 0; n < count; n++) {
      await a.request({ type: 'challenge', user: bUser, settings });
      const { challenge } = await b.push('challenged');
      await b.request({ type: 'accept_challenge', challenge });
      const { game } = await a.push('game_started');
      await a.request({ type: 'resign', game });
    }
  }, { first, second, count, password: PASSWORD, settings: NINE });
  return context;
}

test('profiles open from every name: rank, record, games, graph, events, in English and in Chinese on a phone', { timeout: 120000 }, async () => {
  const alice = await newUser('alice');
  const bob = await newUser('bob');
  const carol = await newUser('carol');
  const sage = await newUser('棋圣');
  const dora = await newUser('dora', { lang: 'zh-CN' });
  await dora.setViewportSize({ width: 390, height: 844 });
  // The pages that open profiles say nothing wrong on the console (page errors are printed by browser.mjs).
  const consoleErrors = [];
  for (const [name, page] of [['carol', carol], ['dora', dora]]) {
    page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(`[${name}] ${msg.text()}`); });
    page.on('pageerror', (err) => consoleErrors.push(`[${name}] ${err.message}`));
  }

  // A rated game: Bob resigns, so Alice's profile has a win, Bob's a loss, both a point on the graph.
  const { black, white, gameId } = await challengeGame(alice, bob, 'bob');
  const loser = black === bob ? bob : white;
  loser.once('dialog', (dialog) => dialog.accept());
  await loser.click('[data-testid=resign]');
  await alice.waitForSelector('[data-testid=result-sgf]');

  // Both enter an event, whose first round pairs them: a place on their profiles and a game in play.
  const created = await request(alice, { type: 'create_event', spec: { name: 'Spring cup', format: { kind: 'round_robin', cycles: 1 }, final_tie: 'stands', settings: NINE, players_max: 4 } });
  const event = created.event.summary.event;
  await request(alice, { type: 'join_event', event });
  await request(bob, { type: 'join_event', event });
  await request(alice, { type: 'start_round', event });
  await explain(alice, waitForAddress(alice, new RegExp(`#/game/(?!${gameId}$)\\d+$`)));
  const eventGame = Number(alice.url().match(/#\/game\/(\d+)/)[1]);

  // Carol opens Alice's profile from the hall's players list.
  await carol.click('[data-testid=players] a[href="#/user/alice"]');
  await waitForAddress(carol, /#\/user\/alice$/);
  await carol.waitForSelector('[data-testid=profile-name]:has-text("alice")');
  await carol.waitForSelector(`[data-testid=profile-watch-${eventGame}]`);
  assert.equal(await carol.textContent('[data-testid=profile-rank]'), '5k?');
  assert.match(await carol.textContent('[data-testid=profile-rank-note]'), /Provisional/);
  assert.match(await carol.textContent('[data-testid=profile-rating]'), /^\d+$/);
  assert.match(await carol.textContent('[data-testid=profile-presence]'), /Online now · member since/);
  const record = (page, size, col) => page.textContent(`[data-testid=record-${size}] [data-col=${col}]`);
  assert.deepEqual([await record(carol, 9, 'wins'), await record(carol, 9, 'losses'), await record(carol, 9, 'draws')], ['1', '0', '0']);
  assert.equal(await carol.getAttribute(`[data-testid=profile-game-link-${gameId}]`, 'href'), `#/replay/${gameId}`);
  assert.match(await carol.textContent(`[data-testid=profile-game-${gameId}]`), /Won/);
  assert.equal(await carol.getAttribute(`[data-testid=profile-game-link-${eventGame}]`, 'href'), `#/game/${eventGame}`);
  assert.equal(await carol.locator('[data-testid=rating-graph] polyline').count(), 1);
  assert.match(await carol.textContent(`[data-testid=profile-place-${event}]`), /^(1st|2nd) of 2$/);
  assert.match(await carol.textContent('[data-testid=profile-playing]'), new RegExp(`Playing game ${eventGame} — Watch`));
  await shot(carol, 'profile-en.png');
  // After a lost connection the profile is asked for again (it is a snapshot, not a subscription).
  await carol.evaluate(() => {
    window.profileBefore = window.tengen.state.profiles.get('alice');
    window.tengen.net.socket.close();
  });
  await carol.waitForFunction(() => window.tengen.state.profiles.get('alice') !== window.profileBefore);
  await carol.waitForSelector('[data-testid=profile-name]:has-text("alice")');

  // The opponent's name in the games opens Bob's profile; the game's link opens its record.
  await carol.click(`[data-testid=profile-game-${gameId}] a.player-link`);
  await waitForAddress(carol, /#\/user\/bob$/);
  await carol.waitForSelector('[data-testid=profile-rank]:has-text("8k?")');
  assert.deepEqual([await record(carol, 9, 'wins'), await record(carol, 9, 'losses')], ['0', '1']);
  await carol.click(`[data-testid=profile-game-link-${gameId}]`);
  await waitForAddress(carol, new RegExp(`#/replay/${gameId}$`));
  await carol.waitForSelector('[data-testid=replay-info] a[href="#/user/alice"]');

  // From the game page: the player's name in the live event game opens their profile.
  await carol.goto(`${suite.server.url}/#/game/${eventGame}`);
  await carol.click('[data-testid=player-white] a.player-link');
  await waitForAddress(carol, /#\/user\/(alice|bob)$/);
  await carol.waitForSelector('[data-testid=profile-playing]');

  // From the profile to the event, and from the event's entrants to a profile.
  await carol.click(`[data-testid=profile-event-${event}] a`);
  await waitForAddress(carol, new RegExp(`#/event/${event}$`));
  await carol.click('[data-testid=entrants] a[href="#/user/bob"]');
  await waitForAddress(carol, /#\/user\/bob$/);
  await carol.waitForSelector('[data-testid=profile-name]:has-text("bob")');

  // A name nobody has says so.
  await carol.goto(`${suite.server.url}/#/user/nobody-here`);
  await carol.waitForSelector('[data-testid=profile-error]:has-text("There is no player with this name")');

  // A long list of games pages on with "More": 20 first, then the rest.
  const pagers = await quickGames(suite.browser, suite.server.url, { first: 'pager', second: 'foil', count: 21 });
  await carol.goto(`${suite.server.url}/#/user/pager`);
  await carol.waitForSelector('[data-testid=profile-more]');
  assert.equal(await carol.locator('[data-testid=profile-games] tbody tr').count(), 20);
  await shot(carol, 'profile-en-many-games.png');
  await carol.click('[data-testid=profile-more]');
  await carol.waitForSelector('[data-testid=profile-no-more]');
  assert.equal(await carol.locator('[data-testid=profile-games] tbody tr').count(), 21);
  assert.equal(await record(carol, 9, 'wins'), '0');
  assert.equal(await record(carol, 9, 'losses'), '21');
  // The player leaves: the profile follows the hall and says when they were last seen.
  await pagers.close();
  await carol.waitForSelector('[data-testid=profile-presence]:has-text("Last seen just now")');

  // In Chinese on a phone: Alice's profile from the hall's players list.
  await dora.click('[data-testid=players] a[href="#/user/alice"]');
  await dora.waitForSelector('[data-testid=profile-rank]:has-text("5级?")');
  assert.match(await dora.textContent('[data-testid=profile-rank-note]'), /暂定段位/);
  assert.match(await dora.textContent(`[data-testid=profile-place-${event}]`), /^第[12]名（共2人）$/);
  assert.match(await dora.textContent('[data-testid=profile-playing]'), new RegExp(`正在下第 ${eventGame} 局`));
  assert.equal(await dora.locator('[data-testid=rating-graph]').count(), 1);
  assert.equal(await overflow(dora), 0, 'nothing scrolls sideways at 390 px');
  await dora.screenshot({ path: join(OUT, 'profile-zh-phone.png'), fullPage: true });

  // 棋圣 speaks in the room; the name in the chat opens the profile, its address encoded: no rated game,
  // no rank, no graph yet.
  await dora.goto(`${suite.server.url}/#/room/1`);
  await sage.fill('[data-testid=room-chat] input', '大家好');
  await sage.press('[data-testid=room-chat] input', 'Enter');
  await dora.click('[data-testid=room-chat] li:has-text("大家好") a.player-link');
  await waitForAddress(dora, /#\/user\/%E6%A3%8B%E5%9C%A3$/);
  await dora.waitForSelector('[data-testid=profile-name]:has-text("棋圣")');
  assert.match(await dora.textContent('[data-testid=profile-rank-note]'), /尚无段位/);
  await dora.waitForSelector('[data-testid=graph-empty]');
  assert.equal(await overflow(dora), 0);
  await shot(dora, 'profile-zh-phone-new-player.png');

  // A name nobody has, in Chinese script: said so in the reader's language, the name shown whole.
  await dora.goto(`${suite.server.url}/#/user/${encodeURIComponent('无名氏')}`);
  await dora.waitForSelector('[data-testid=profile-error] bdi:has-text("无名氏")');
  assert.match(await dora.textContent('[data-testid=profile-error]'), /没有叫这个名字的棋手/);
  // A name in another case and width is the same player, shown as they write it.
  await dora.goto(`${suite.server.url}/#/user/${encodeURIComponent('ＡＬＩＣＥ')}`);
  await dora.waitForSelector('[data-testid=profile-name]:has-text("alice")');
  assert.deepEqual(consoleErrors, []);
});
