// Friends, blocks and mutes in real Chromium against the real `tengen`. In English on a desktop: ann
// follows bob from his profile and finds him in the hall's friends list, online; bob finds her among those
// following him and follows her back; she blocks a troll from
// his profile, and his room chat goes, the lines he said before too, while others still read him; when
// bob starts a game she is told, with a link to watch it, and her list says he is in a game. In Chinese
// on a phone: 梅兰 follows ann, and mutes the troll from the mute beside his name in the room chat.
// Screenshots go to client-web/test-output/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { browserSuite, OUT } from './suite.mjs';
import { waitForAddress, explain } from './browser.mjs';

const suite = browserSuite();
const { newUser, shot } = suite;

const PHONE = { width: 390, height: 844 };
const NINE = { size: 9, komi_half_points: 15, handicap: 0, ko_rule: 'positional', clock: { kind: 'none' }, nigiri: false };

/** A request from `page`'s own connection (the tests' window on the client; views never use it). */
const request = (page, msg) => page.evaluate((m) => window.tengen.net.request(m), msg);

/** A page's horizontal overflow in pixels: 0 when nothing scrolls sideways. */
const overflow = (page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** `page` says `text` in the room chat. */
async function say(page, text) {
  await page.fill('[data-testid=room-chat] input', text);
  await page.press('[data-testid=room-chat] input', 'Enter');
}

const chatLine = (text) => `[data-testid=room-chat] li:has-text("${text}")`;

test('friends, a block and a mute: in English on a desktop and in Chinese on a phone', { timeout: 120000 }, async () => {
  const ann = await newUser('ann');
  const bob = await newUser('bob');
  const troll = await newUser('troll');
  const mei = await newUser('梅兰', { lang: 'zh-CN' });
  // A phone once registered (the registration helper waits for the tables, which a phone folds).
  await mei.setViewportSize(PHONE);

  // No friends yet: the hall says how to make one.
  await ann.waitForSelector('[data-testid=friends]:has-text("Follow players from their profile")');

  // Follow bob from his profile; the hall lists him, online.
  await ann.goto(`${suite.server.url}/#/user/bob`);
  await ann.click('[data-testid=relation-follow]');
  await ann.waitForSelector('[data-testid=relation-note-following]:has-text("You follow bob")');
  await shot(ann, 'relations-en-profile.png');
  await ann.goto(`${suite.server.url}/#/room/1`);
  await ann.waitForSelector('[data-testid=friend-bob]:has-text("online")');
  // Bob finds ann among those following him, asked for when he opens the list, and follows her back:
  // she joins his friends, and the button goes.
  await bob.click('[data-testid=followers] summary');
  await bob.waitForSelector('[data-testid=followers] summary:has-text("Following you (1)")');
  await bob.click('[data-testid=follow-back-ann]');
  await bob.waitForSelector('[data-testid=friend-ann]');
  await bob.waitForSelector('[data-testid=follower-ann]');
  assert.equal(await bob.locator('[data-testid=follow-back-ann]').count(), 0);
  await shot(bob, 'relations-en-followers.png');

  // The troll talks; ann blocks him from his profile: his lines go, old and new, not others'.
  await say(troll, 'first spam');
  await ann.waitForSelector(chatLine('first spam'));
  await ann.click(`${chatLine('first spam')} a.player-link`);
  await waitForAddress(ann, /#\/user\/troll$/);
  await ann.click('[data-testid=relation-block]');
  await ann.waitForSelector('[data-testid=relation-note-blocking]');
  // Following waits for an unblock: not offered meanwhile.
  assert.equal(await ann.locator('[data-testid=relation-follow]').count(), 0);
  await ann.goto(`${suite.server.url}/#/room/1`);
  // The hall keeps whom she blocks under her friends, folded.
  await ann.click('[data-testid=hidden-players] summary:has-text("Blocked and muted (1)")');
  await ann.waitForSelector('[data-testid=hidden-players] a[href="#/user/troll"]');
  await say(troll, 'second spam');
  await mei.waitForSelector(chatLine('second spam'));
  await say(bob, 'hello all');
  await ann.waitForSelector(chatLine('hello all'));
  assert.equal(await ann.locator(chatLine('spam')).count(), 0, 'no line of the troll is left');
  // Nor does the troll see ann in the hall's players.
  await troll.waitForSelector('[data-testid=players] a[href="#/user/bob"]');
  assert.equal(await troll.locator('[data-testid=players] a[href="#/user/ann"]').count(), 0);

  // In Chinese on a phone: 梅兰 follows ann, and mutes the troll from his name in the chat.
  await mei.goto(`${suite.server.url}/#/user/ann`);
  await mei.click('[data-testid=relation-follow]:has-text("关注")');
  await mei.waitForSelector('[data-testid=relation-note-following]:has-text("你关注了 ann")');
  assert.equal(await overflow(mei), 0, 'nothing scrolls sideways at 390 px');
  await shot(mei, 'relations-zh-phone-profile.png');
  await mei.goto(`${suite.server.url}/#/room/1`);
  await mei.waitForSelector('[data-testid=friends]:has-text("好友")');
  await mei.waitForSelector('[data-testid=friend-ann]:has-text("在线")');
  await mei.hover(chatLine('second spam'));
  await mei.locator('[data-testid=room-chat]').screenshot({ path: join(OUT, 'relations-zh-phone-chat-mute.png') });
  await mei.click('[data-testid=room-chat] [data-testid=mute-troll]');
  await explain(mei, mei.waitForSelector(chatLine('second spam'), { state: 'detached' }));
  await say(troll, 'third spam');
  await say(ann, '你好');
  await mei.waitForSelector(chatLine('你好'));
  assert.equal(await mei.locator(chatLine('spam')).count(), 0);
  assert.equal(await overflow(mei), 0);
  await mei.locator('[data-testid=friends]').scrollIntoViewIfNeeded();
  await mei.screenshot({ path: join(OUT, 'relations-zh-phone-hall.png'), fullPage: true });

  // Bob starts a game: ann is told, with a link to watch, and her list says he is in a game.
  const bobUser = await ann.evaluate(() => window.tengen.state.relations.friends[0].player.user);
  await request(troll, { type: 'sit', table: 3, seat: 'right' });
  await request(bob, { type: 'sit', table: 3, seat: 'left' });
  await request(troll, { type: 'propose_settings', table: 3, settings: NINE });
  await request(bob, { type: 'accept_settings', table: 3, settings: NINE });
  const notice = ann.locator('[data-testid^=friend-started-]');
  await explain(ann, notice.waitFor());
  assert.match(await notice.textContent(), /bob started a game against troll/);
  await ann.waitForSelector('[data-testid=friend-watch-bob]');
  await shot(ann, 'relations-en-hall.png');
  await notice.locator('a').click();
  await waitForAddress(ann, /#\/game\/\d+$/);
  assert.ok(bobUser > 0);
});
