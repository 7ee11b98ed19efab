// What players expect of the game screen, in real Chromium against the real `tengen`: a sound
// for every move (players and watchers) and for a capture, a mute switch the browser remembers, the tab's
// title on your move, a desktop notification when asked for, a question before leaving your game, and the
// result at a glance. The sounds are observed where WebAudio starts them (an init script wraps `start`).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clickPoint, waitStone } from './browser.mjs';
import { browserSuite } from './suite.mjs';
import { challengeGame, play } from './play.mjs';

const suite = browserSuite();
const { newUser, shot } = suite;

/**
 * Record every WebAudio source started in window.__sounds: 'click' for noise, 'tone:<Hz>' for an
 * oscillator (a stone's knock is low, a byo-yomi call's beep is 880 Hz or, counting, 1320 Hz).
 */
function recordSounds() {
  window.__sounds = [];
  for (const [Node, kind] of [[window.AudioBufferSourceNode, 'click'], [window.OscillatorNode, 'tone']]) {
    if (!Node) continue;
    const start = Node.prototype.start;
    Node.prototype.start = function started(...args) {
      window.__sounds.push(kind === 'tone' ? `tone:${this.frequency.value}` : kind);
      return start.apply(this, args);
    };
  }
}

/** A Notification stand-in that grants when asked and records what is shown; `document.hidden` settable. */
function fakeNotifications() {
  window.__notes = [];
  window.Notification = class {
    constructor(title, options) {
      window.__notes.push({ title, body: options?.body });
    }
    static permission = 'default';
    static async requestPermission() {
      this.permission = 'granted';
      return 'granted';
    }
  };
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => !!window.__hidden });
}

/** A registered user's page with the sound recorder (and the notification stand-in) installed. */
async function listeningUser(name, options) {
  const page = await newUser(name, options);
  await page.context().addInitScript(recordSounds);
  await page.context().addInitScript(fakeNotifications);
  await page.reload();
  await page.waitForSelector('[data-testid=me]');
  return page;
}

const soundsOf = (page) => page.evaluate(() => window.__sounds.slice());
const count = (list, kind) => list.filter((k) => k === kind).length;

test('every move sounds for both players and a watcher, a capture sounds more, and mute is remembered', { timeout: 90000 }, async () => {
  const ann = await listeningUser('snda');
  const ben = await listeningUser('sndb');
  const cat = await listeningUser('sndc');
  const players = await challengeGame(ann, ben, 'sndb');
  await cat.click(`[data-testid=game-link-${players.gameId}]`);
  await cat.waitForSelector('[data-testid=game-status]:has-text("Watching")');
  const pages = [players.black, players.white, cat];
  const before = await Promise.all(pages.map(soundsOf));
  await play(players, [['black', { col: 2, row: 2 }]]);
  await waitStone(cat, { col: 2, row: 2 }, 'black');
  for (const [i, page] of pages.entries()) {
    await page.waitForFunction((n) => window.__sounds.length > n, before[i].length);
    const heard = (await soundsOf(page)).slice(before[i].length);
    assert.equal(count(heard, 'click'), 1, `one stone click: ${heard}`);
  }
  // A capture: Black takes White's stone at A9 (White plays into the corner).
  await play(players, [['white', { col: 0, row: 0 }], ['black', { col: 1, row: 0 }]]);
  const beforeCapture = await soundsOf(cat);
  await play(players, [['white', { col: 5, row: 5 }], ['black', { col: 0, row: 1 }]]);
  await waitStone(cat, { col: 0, row: 0 }, null);
  await cat.waitForFunction((n) => window.__sounds.filter((k) => k === 'click').length >= n + 3, count(beforeCapture, 'click'));
  assert.equal(count(await soundsOf(cat), 'click') - count(beforeCapture, 'click'), 3, 'two stone clicks and one lifted stone');
  // The watcher mutes: no sound for the next move, and the switch stays off after a reload.
  await cat.click('[data-testid=sound-switch]');
  await cat.waitForSelector('[data-testid=sound-switch]:has-text("Sound off")');
  const muted = (await soundsOf(cat)).length;
  await play(players, [['white', { col: 6, row: 6 }]]);
  await waitStone(cat, { col: 6, row: 6 }, 'white');
  assert.equal((await soundsOf(cat)).length, muted, 'a muted page makes no sound');
  await cat.reload();
  await cat.waitForSelector('[data-testid=sound-switch]:has-text("Sound off")');
  await waitStone(cat, { col: 6, row: 6 }, 'white');
  await shot(cat, 'sound-muted.png');
});

test('the tab title says when it is your move, a notification comes when asked for, and leaving your game asks first', { timeout: 90000 }, async () => {
  const dan = await listeningUser('ttla');
  const eve = await listeningUser('ttlb');
  const players = await challengeGame(dan, eve, 'ttlb');
  await players.black.waitForFunction(() => document.title.startsWith('Your move'));
  await players.white.waitForFunction(() => document.title === 'Tengen 天元');
  // White asks for notifications (the permission is asked on this click), then looks at another tab.
  await players.white.waitForSelector('[data-testid=leave-hint]:has-text("forfeit")');
  await players.white.click('[data-testid=notify-switch]');
  await players.white.waitForSelector('[data-testid=notify-switch]:has-text("Stop notifying")');
  await players.white.evaluate(() => { window.__hidden = true; });
  await play(players, [['black', { col: 4, row: 4 }]]);
  await players.white.waitForFunction(() => document.title.startsWith('Your move'));
  await players.black.waitForFunction(() => document.title === 'Tengen 天元');
  await players.white.waitForFunction(() => window.__notes.length === 1);
  const note = (await players.white.evaluate(() => window.__notes))[0];
  assert.equal(note.title, 'Tengen: your move');
  assert.match(note.body, /E5/);
  // Black never asked: no notification on White's move, hidden or not.
  await players.black.evaluate(() => { window.__hidden = true; });
  await play(players, [['white', { col: 2, row: 2 }]]);
  await players.black.waitForFunction(() => document.title.startsWith('Your move'));
  assert.equal(await players.black.evaluate(() => window.__notes.length), 0);
  // Closing the tab during the game asks first; staying keeps the game.
  const asked = new Promise((resolve) => players.black.once('dialog', (dialog) => {
    resolve(dialog.type());
    dialog.dismiss();
  }));
  await players.black.close({ runBeforeUnload: true });
  assert.equal(await asked, 'beforeunload');
  await players.black.waitForSelector('[data-testid=pass]');
  await shot(players.white, 'title-notify.png');
});

test('the result reads at a glance: the winner, the reason in words, and a count in the form of the rules', { timeout: 90000 }, async () => {
  const fay = await newUser('rsla');
  const gus = await newUser('rslb', { lang: 'zh-CN' });
  const players = await challengeGame(gus, fay, 'rsla');
  await play(players, [['black', { col: 2, row: 2 }], ['white', { col: 6, row: 6 }]]);
  // Two passes, and both accept the count: every empty point touches both colours, so it is all dame and
  // Black counts 40½ of 81, less komi 3¾ = 36¾ against 40½: White wins by 3¾ stones (W+7.5).
  await players.black.click('[data-testid=pass]');
  await players.white.waitForFunction(() => [...window.tengen.state.games.values()].some((g) => g.lastPass === 'black'));
  await players.white.click('[data-testid=pass]');
  for (const page of [players.black, players.white]) await page.waitForSelector('[data-testid=accept-score]');
  await players.black.click('[data-testid=accept-score]');
  await players.white.click('[data-testid=accept-score]');
  const english = players.black === fay ? players.black : players.white;
  const chinese = english === players.black ? players.white : players.black;
  await english.waitForSelector('[data-testid=result-banner]');
  assert.match(await english.textContent('[data-testid=result-banner]'), /White wins\s*by counting, 3¾ stones · 7\.5 points/);
  assert.equal(await english.textContent('[data-testid=count-black]'), 'Black 40½ − 3¾ = 36¾ (in stones: komi 7.5 points = 3¾)');
  assert.match(await english.textContent('[data-testid=count-lines]'), /break-even 40½/);
  await chinese.waitForSelector('[data-testid=result-banner]');
  assert.match(await chinese.textContent('[data-testid=result-banner]'), /白方胜\s*数子，胜 3又3\/4 子（7\.5 目）/);
  assert.match(await chinese.textContent('[data-testid=count-black]'), /黑 40又1\/2 − 3又3\/4 = 36又3\/4 子/);
  await shot(english, 'result-counted-en.png');
  await shot(chinese, 'result-counted-zh.png');
});

test('a resignation shows the winner and the reason in words', { timeout: 60000 }, async () => {
  const hal = await newUser('rsnh');
  const ivy = await newUser('rsni');
  const players = await challengeGame(hal, ivy, 'rsni');
  await play(players, [['black', { col: 4, row: 4 }]]);
  players.white.once('dialog', (dialog) => dialog.accept());
  await players.white.click('[data-testid=resign]');
  for (const page of [players.black, players.white]) {
    await page.waitForSelector('[data-testid=result-banner]');
    assert.match(await page.textContent('[data-testid=result-banner]'), /Black wins\s*by resignation/);
    assert.equal(await page.locator('[data-testid=count-lines]').count(), 0);
  }
  // The game is over: leaving asks nothing, and the title is the plain one.
  await players.black.waitForFunction(() => document.title === 'Tengen 天元');
  await shot(players.black, 'result-resigned.png');
});

test('in byo-yomi the title counts the clock down and the call comes at its time, not at the turn\'s start', { timeout: 60000 }, async () => {
  const jon = await listeningUser('byoa');
  const kay = await listeningUser('byob');
  // No main time: byo-yomi from the first move, three periods of 30 s (calls at 10, 20, 25, 28 s used).
  const players = await challengeGame(jon, kay, 'byob', { main: 0, period: 30 });
  await play(players, [['black', { col: 4, row: 4 }]]);
  // White's turn: the title shows White's period counting down.
  await players.white.waitForFunction(() => /^0:[0-3]\d Your move/.test(document.title));
  const started = await soundsOf(players.white);
  assert.equal(started.filter((k) => k === 'tone:880').length, 0, `no call at the turn's start: ${started}`);
  // Ten seconds into the period the timekeeper calls "10 seconds" to White (a beep with the spoken call).
  await players.white.waitForFunction(() => window.__sounds.includes('tone:880'), null, { timeout: 20000 });
  assert.match(await players.white.title(), /^0:\d\d Your move/);
  await shot(players.white, 'byo-yomi-title.png');
});

test('the players of a challenge game talk in the game\'s own chat', { timeout: 60000 }, async () => {
  const lia = await newUser('chta');
  const max = await newUser('chtb');
  const players = await challengeGame(lia, max, 'chtb');
  for (const page of [players.black, players.white]) await page.waitForSelector('[data-testid=game-chat] input');
  await players.black.fill('[data-testid=game-chat] input', 'have a good game');
  await players.black.press('[data-testid=game-chat] input', 'Enter');
  await players.white.waitForSelector('[data-testid=game-chat] li:has-text("have a good game")');
  // Not stored as the watchers' chat (the two channels have their own keys).
  assert.equal(await players.white.evaluate((game) => window.tengen.state.chats.has(`kibitz:${game}`), players.gameId), false);
});
