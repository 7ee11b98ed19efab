// Usernames in any script, in real Chromium against the real `tengen`: a Chinese name registers and
// shows in the hall to others, right-to-left names keep their order in a list, and a name that
// passes for another player's (Cyrillic letters that look Latin) is refused with the server's message
// on the registration form.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserSuite, PASSWORD } from './suite.mjs';

const suite = browserSuite();
const { newUser, shot } = suite;

/** A fresh page on the login form, with `name` tried for registration; resolves with the form's error. */
async function refusedRegistration(name) {
  const context = await suite.browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  await page.goto(suite.server.url);
  await page.fill('input[name=username]', name);
  await page.fill('input[name=password]', PASSWORD);
  await page.click('[data-testid=register]');
  const error = page.locator('.form-error');
  await error.filter({ hasText: /\S/ }).waitFor();
  return { page, context, text: await error.textContent() };
}

test('a Chinese name registers and others see it in the hall', async () => {
  const master = await newUser('棋圣');
  assert.equal(await master.locator('[data-testid=me] bdi.username').textContent(), '棋圣');
  const other = await newUser('lee');
  const listed = other.locator('[data-testid=players] li', { hasText: '棋圣' });
  await listed.waitFor();
  assert.equal(await listed.locator('bdi.username').textContent(), '棋圣');
  assert.ok(await other.locator('[data-testid="challenge-棋圣"]').isVisible());
  await shot(other, 'usernames-hall.png');
  await master.context().close();
  await other.context().close();
});

test('right-to-left names keep their order in a list', async () => {
  const page = await newUser('محمد');
  await page.locator('[data-testid=players] li', { hasText: 'محمد' }).locator('bdi.username').waitFor();
  // A game between two right-to-left names, written as the hall lists games (Black's name and rank,
  // then White's): through the client's helper, and as plain text for comparison, where bidi
  // reordering puts White's name first.
  const [isolated, plain] = await page.evaluate(async () => {
    const { h, userName } = await import('/js/dom.js');
    const left = (node, start, end) => {
      const range = document.createRange();
      range.setStart(node, start);
      range.setEnd(node, end);
      return range.getBoundingClientRect().left;
    };
    const withHelper = h('p', {}, 'x ', userName('محمد'), ' (?) ', userName('علي'), ' (?)');
    const asText = h('p', {}, 'x محمد (?) علي (?)');
    document.body.append(withHelper, asText);
    const [black, white] = withHelper.querySelectorAll('bdi');
    return [
      [black.getBoundingClientRect().left, white.getBoundingClientRect().left],
      [left(asText.firstChild, 2, 6), left(asText.firstChild, 11, 14)],
    ];
  });
  assert.ok(isolated[0] < isolated[1], `Black's name comes first: ${isolated}`);
  assert.ok(plain[0] > plain[1], `without isolation White's name would come first: ${plain}`);
  await page.context().close();
});

test('a name that passes for another is refused with the server’s message', async () => {
  const alice = await newUser('alice');
  // All Cyrillic: а, ӏ, і, с, е.
  const { page, context, text } = await refusedRegistration('аӏісе');
  assert.match(text, /looks too much like/);
  assert.match(text, /"alice"/);
  assert.equal(await page.locator('[data-testid=me]').count(), 0, 'nobody is logged in');
  await shot(page, 'usernames-confusable.png');
  await context.close();
  const invisible = await refusedRegistration('car\u202elo');
  assert.match(invisible.text, /invisible or direction-changing/);
  await invisible.context.close();
  await alice.context().close();
});
