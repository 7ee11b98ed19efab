// Moderation in real Chromium against the real `tengen`: players report a chat line (the flag beside it),
// a player (from the profile) and a game (from its page), each with a reason; a moderator, made one
// through the admin API, reads the queue at #/moderation (the line with the lines around it, the game's
// link) and acts: removes the line (it disappears from the reporter's screen at once), mutes the player
// (who reads why and until when, and whose chat is refused), voids the game (its page says void) and bans
// the player (whose page goes back to the login screen with the ban's reason and end); the log lists
// each act. Then in Chinese on a 390 px phone: the queue, a dismissal and the log, without sideways
// scrolling. Screenshots go to client-web/test-output/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserSuite } from './suite.mjs';
import { challengeGame } from './play.mjs';
import { waitForAddress, explain } from './browser.mjs';

const ADMIN_TOKEN = 'moderation-e2e-admin';
const suite = browserSuite({ adminToken: ADMIN_TOKEN });
const { newUser, shot } = suite;

/** A page's horizontal overflow in pixels: 0 when nothing scrolls sideways. */
const overflow = (page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Make `name` a moderator through the admin API, then reload their page so its session says so. */
async function makeModerator(page, name) {
  const response = await fetch(`${suite.server.url}/api/admin/users/${encodeURIComponent(name)}/role`, {
    method: 'PUT', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body: 'moderator',
  });
  assert.equal(response.status, 200, await response.text());
  await page.reload();
  await page.waitForSelector('[data-testid=nav-moderation]');
}

/** Say `text` in the room chat of `page`. */
async function say(page, text) {
  await page.fill('[data-testid=room-chat] input', text);
  await page.press('[data-testid=room-chat] input', 'Enter');
}

/** Fill the report dialog's reason and send it; the thank-you toast follows. */
async function sendReport(page, reason) {
  await page.fill('[data-testid=report-reason]', reason);
  await page.click('[data-testid=report-send]');
  await page.waitForSelector('.toast');
}

/** Open the moderators' page afresh (it asks for the queue and the log on opening). */
async function openQueue(page) {
  await page.goto(`${suite.server.url}/#/`);
  await page.goto(`${suite.server.url}/#/moderation`);
  await page.waitForSelector('[data-testid=mod-queue] h3');
  await page.waitForSelector('[data-testid=mod-report], [data-testid=mod-empty]');
}

test('a moderator handles reports of a line, a player and a game, in English on a desktop', async () => {
  const mona = await newUser('mona');
  await makeModerator(mona, 'mona');
  const ann = await newUser('ann');
  const ben = await newUser('ben');

  // Ben reports Ann's line with the flag beside it.
  await say(ben, 'good evening');
  await say(ann, 'you are all weaklings, go away');
  await say(ben, 'no need for that');
  const rude = ben.locator('[data-testid=room-chat] li', { hasText: 'weaklings' });
  await rude.waitFor();
  assert.equal(await ben.locator('[data-testid=room-chat] li', { hasText: 'good evening' }).locator('[data-testid=report-line]').count(), 0,
    'no flag on my own line');
  await rude.locator('[data-testid=report-line]').click();
  await sendReport(ben, 'insulting the room');

  // The queue shows the line among the lines around it, marked.
  await openQueue(mona);
  const card = mona.locator('[data-testid=mod-report]').first();
  await card.locator('[data-testid=mod-context] li.reported', { hasText: 'weaklings' }).waitFor();
  assert.equal(await card.locator('[data-testid=mod-context] li').count(), 3);
  assert.match(await card.textContent(), /insulting the room/);
  await shot(mona, 'moderation-queue-en.png');

  // Removing it takes it off Ben's screen at once.
  await card.locator('[data-testid=mod-remove]').click();
  await explain(ben, rude.waitFor({ state: 'detached' }));
  await mona.waitForSelector('[data-testid=mod-empty]');

  // Ben reports Ann from her profile; Mona mutes her for 10 minutes.
  await ben.goto(`${suite.server.url}/#/user/ann`);
  await ben.click('[data-testid=report-user]');
  await sendReport(ben, 'keeps insulting people');
  await openQueue(mona);
  await mona.locator('[data-testid=mod-subject]', { hasText: 'ann' }).waitFor();
  await mona.click('[data-testid=mod-mute]');
  await mona.waitForSelector('[data-testid=mod-empty]');
  // The reason given is the reporter's, as the card starts with it.
  await explain(ann, ann.waitForSelector('[data-testid=chat-muted]:has-text("keeps insulting people")', { state: 'visible' }));
  await say(ann, 'hello?');
  await ann.waitForSelector('.toast:has-text("You cannot chat")');
  await shot(ann, 'moderation-muted-en.png');

  // A game between them, reported by Ben from its page and voided by Mona.
  await ann.goto(`${suite.server.url}/#/room/1`);
  await ben.goto(`${suite.server.url}/#/room/1`);
  await ann.waitForSelector('[data-testid=players] li:has-text("ben")');
  const { gameId } = await challengeGame(ann, ben, 'ben');
  await ben.click('[data-testid=report-game]');
  await sendReport(ben, 'they agreed the result beforehand');
  await openQueue(mona);
  const gameCard = mona.locator('[data-testid=mod-report]').first();
  await gameCard.locator(`a[href="#/game/${gameId}"]`).waitFor();
  await gameCard.locator('[data-testid=mod-void]').click();
  await mona.waitForSelector('[data-testid=mod-empty]');
  await explain(ben, ben.waitForSelector('[data-testid=result]:has-text("No result")'));

  // Ben reports Ann again; Mona bans her for 7 days: Ann is back at the login screen, told why and until when.
  await ben.goto(`${suite.server.url}/#/user/ann`);
  await ben.click('[data-testid=report-user]');
  await sendReport(ben, 'still insulting after the mute');
  await openQueue(mona);
  await mona.selectOption('[data-testid=mod-ban-length]', '1');
  await mona.click('[data-testid=mod-ban]');
  await mona.waitForSelector('[data-testid=mod-empty]');
  await explain(ann, ann.waitForSelector('[data-testid=banned]:has-text("still insulting after the mute")'));
  await shot(ann, 'moderation-banned-en.png');
  await ann.fill('input[name=username]', 'ann');
  await ann.fill('input[name=password]', 'correct horse battery');
  await ann.click('[data-testid=login]');
  await ann.waitForSelector('.form-error:has-text("You cannot log in")');

  // On appeal, Mona lifts the ban by name: Ann logs in again. Lifting it twice is refused.
  await mona.fill('[data-testid=mod-lift-name]', 'ann');
  await mona.fill('[data-testid=mod-lift-reason]', 'appeal granted');
  await mona.click('[data-testid=mod-unban]');
  await mona.locator('[data-testid=mod-log-entry]', { hasText: 'lifted the ban of ann' }).waitFor();
  await ann.click('[data-testid=login]');
  await explain(ann, ann.waitForSelector('[data-testid=logout-all]'));
  await mona.click('[data-testid=mod-unban]');
  await mona.waitForSelector('[data-testid=mod-error]:has-text("ann is not banned")');

  // The log lists each act, newest first.
  const entries = mona.locator('[data-testid=mod-log-entry]');
  await entries.nth(4).waitFor();
  const log = await entries.allTextContents();
  assert.equal(log.length, 5, log.join('\n'));
  assert.match(log[0], /lifted the ban of ann — appeal granted/);
  assert.match(log[1], /banned ann for 7 days/);
  assert.match(log[2], new RegExp(`voided game ${gameId}`));
  assert.match(log[3], /muted ann for 10 min/);
  assert.match(log[4], /removed chat line/);
  await shot(mona, 'moderation-log-en.png');
});

test('the queue, a dismissal and the log in Chinese on a phone', async () => {
  const zh = { lang: 'zh-CN' };
  const mei = await newUser('小梅', zh);
  await mei.setViewportSize({ width: 390, height: 844 });
  await makeModerator(mei, '小梅');
  const li = await newUser('李雷', zh);
  const han = await newUser('韩梅', zh);
  await say(li, '大家好，来下一盘吗？');
  const line = han.locator('[data-testid=room-chat] li', { hasText: '来下一盘' });
  await line.waitFor();
  await line.locator('[data-testid=report-line]').click();
  await sendReport(han, '我觉得这是广告');
  await openQueue(mei);
  assert.match(await mei.textContent('[data-testid=mod-queue]'), /待处理的举报/);
  assert.match(await mei.textContent('[data-testid=mod-report]'), /韩梅/);
  assert.equal(await overflow(mei), 0, 'the queue fits a phone');
  await shot(mei, 'moderation-queue-zh-phone.png');
  await mei.click('[data-testid=mod-dismiss]');
  await mei.waitForSelector('[data-testid=mod-empty]');
  const entry = mei.locator('[data-testid=mod-log-entry]').first();
  await entry.waitFor();
  assert.match(await entry.textContent(), /驳回了举报/);
  // A dismissal leaves the line where it was.
  await line.waitFor();
  assert.equal(await overflow(mei), 0, 'the log fits a phone');
  await shot(mei, 'moderation-log-zh-phone.png');
  await waitForAddress(mei, /#\/moderation/);
});
