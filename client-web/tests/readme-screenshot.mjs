// Takes the README's screenshot (docs/screenshot-game.png): a 19x19 game in progress seen by Black on a
// 1366x768 laptop, with agreed stakes, a watcher who bet in the pool, and the preview stone under the
// pointer. Not a test (node --test skips this file name); run it by hand after
// `cargo build -p tengen-server --bin tengen`:   node client-web/tests/readme-screenshot.mjs

import { mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTengen } from './server.mjs';
import { launchChromium, waitForAddress } from './browser.mjs';
import { layout, pointToXY } from '../js/geometry.js';

const DOCS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs');
// An opening in SGF coordinates (column letter, row letter; 'a' is the top-left).
const MOVES = 'qd dc pq oc cp qo pe eq fp ep fo dn co dr jc qj nq ql ce cg be bf dd ed cc bd qn pn'.split(' ');
const sgfPoint = (s) => ({ col: s.charCodeAt(0) - 97, row: s.charCodeAt(1) - 97 });

const server = await startTengen();
const browser = await launchChromium();
try {
  const pages = {};
  for (const name of ['alice', 'bob', 'carol']) {
    const page = await (await browser.newContext({ viewport: { width: 1366, height: 768 }, locale: 'en-US' })).newPage();
    await page.goto(server.url);
    await page.fill('input[name=username]', name);
    await page.fill('input[name=password]', 'correct horse battery');
    await page.click('[data-testid=register]');
    await page.waitForSelector('[data-testid=table-1]');
    await page.click('[data-testid=table-1]');
    pages[name] = page;
  }
  await pages.alice.click('[data-testid=sit-left]');
  await pages.bob.waitForSelector('[data-testid=sit-right]');
  await pages.bob.click('[data-testid=sit-right]');
  // Stakes of 50 a side: both OK the same amounts, then both agree.
  const ask = (page, msg) => page.evaluate((m) => window.tengen.net.request(m), msg);
  const offer = { type: 'stake_offer', table: 1, left: 50, right: 50, terms: { kind: 'normal' } };
  await ask(pages.alice, offer);
  await ask(pages.bob, offer);
  await ask(pages.alice, { type: 'stake_answer', table: 1, agree: true });
  await ask(pages.bob, { type: 'stake_answer', table: 1, agree: true });
  await pages.bob.click('[data-testid=propose]');
  await pages.alice.click('[data-testid=accept-settings]');
  await waitForAddress(pages.alice, /#\/game\/\d+/);
  const game = Number(pages.alice.url().match(/#\/game\/(\d+)/)[1]);
  // Carol watches and bets 100 on Black.
  await pages.carol.evaluate((g) => { location.hash = `#/game/${g}`; }, game);
  await pages.carol.waitForSelector('svg.goban');
  await ask(pages.carol, { type: 'bet', game, side: 'black', amount: 100 });
  const say = (page, text) => page.evaluate(([table, line]) => window.tengen.net.request({ type: 'chat', channel: { kind: 'table', table }, text: line }), [1, text]);
  await say(pages.bob, 'Have a good game!');
  await say(pages.alice, '请多指教');
  for (const [i, move] of MOVES.entries()) {
    const page = i % 2 === 0 ? pages.alice : pages.bob;
    await page.evaluate(([g, point]) => window.tengen.net.request({ type: 'play', game: g, point }), [game, sgfPoint(move)]);
  }
  const last = sgfPoint(MOVES.at(-1));
  await pages.alice.waitForSelector(`circle.stone[data-point="${last.col},${last.row}"]`);
  // Hover where Black is thinking of playing, so the preview stone shows.
  const box = await pages.alice.locator('svg.goban').boundingBox();
  const at = pointToXY(layout(19, 1000), sgfPoint('op'));
  await pages.alice.mouse.move(box.x + (at.x / 1000) * box.width, box.y + (at.y / 1000) * box.height);
  await pages.alice.waitForTimeout(1500);
  mkdirSync(DOCS, { recursive: true });
  await pages.alice.screenshot({ path: join(DOCS, 'screenshot-game.png') });
  console.log(`saved ${join(DOCS, 'screenshot-game.png')}`);
} finally {
  await browser.close();
  await server.stop();
}
