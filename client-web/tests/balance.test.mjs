// Unit tests for keeping the shown balance true: which server messages mean the user's points moved
// (`balanceMoves`, pure over the state), and the coalescing of the `balance` requests that follow
// (`BalanceRefresher`, with a fake request and a fake timer), also through a Connection on a fake socket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createState, applyMessage, balanceMoves } from '../js/state.js';
import { BalanceRefresher, Connection } from '../js/net.js';

const alice = { user: 1, username: 'alice', rank: '?', rating: 1500 };
const bob = { user: 2, username: 'bob', rank: '?', rating: 1500 };
const carol = { user: 3, username: 'carol', rank: '?', rating: 1500 };
const settings = { size: 9, komi_half_points: 15, handicap: 0, ko_rule: 'positional', clock: { kind: 'none' }, nigiri: false };
const empty9 = Array(9).fill('.........');

const stake = (fields = {}) => ({
  table: 1, left: 50, right: 50, terms: { kind: 'normal' }, ok_left: true, ok_right: true, agree_left: true, agree_right: true, agreed: true, game: null, ...fields,
});
const stakeUpdated = (s) => ({ type: 'stake_updated', table: 1, stake: s, tax_bp: 500 });
const pool = (fields = {}) => ({
  game: 12, open: true, total: 0, black: 0, white: 0, bettors_count: 0, stake_black: 0, stake_white: 0, tax_bp: 500, settled: false, ...fields,
});
const gameState = { type: 'game_state', state: {
  game: 12, seq: 0, table: 1, black: alice, white: bob, settings, nigiri_seed: null, phase: 'playing', to_move: 'black', board: empty9,
  captures_black: 0, captures_white: 0, moves_count: 0, dead: [], accepted_black: false, accepted_white: false, outcome: null, watchers_count: 1,
} };
const ended = { type: 'game_event', game: 12, seq: 1, event: 'ended', outcome: { winner: 'black', reason: 'resignation', sgf: 'B+R', chinese: '黑中盘胜', black_count_half_points: null, white_count_half_points: null } };

/** A state as `who` sees it: logged in, table 1 with alice left and bob right. */
function seen(who, { seated = true } = {}) {
  const state = createState();
  applyMessage(state, { type: 'session', user: who.user, username: who.username, token: 't', expires_at_ms: 0 });
  applyMessage(state, { type: 'balance', balance: 1000, tax_bp: 500 });
  applyMessage(state, { type: 'table_updated', table: { table: 1, room: 1, left: seated ? alice : null, right: seated ? bob : null, proposal: null, game: null, watchers_count: 1 } });
  return state;
}

/** Apply `msg` after asking what it means for the balance, as the app does. */
function step(state, msg) {
  const moved = balanceMoves(state, msg);
  applyMessage(state, msg);
  return moved;
}

test('stakes: offers move nothing; agreement escrows; the held stakes entering the game change nothing', () => {
  const state = seen(alice);
  assert.equal(step(state, stakeUpdated(stake({ ok_right: false, agree_left: false, agree_right: false, agreed: false }))), null);
  assert.equal(step(state, stakeUpdated(stake({ agree_right: false, agreed: false }))), null);
  assert.equal(step(state, stakeUpdated(stake())), 'now');
  assert.equal(step(state, stakeUpdated(stake({ game: 12 }))), null);
  // The game ended and was settled; the hall drops the stakes.
  assert.equal(step(state, stakeUpdated(null)), 'now');
  // Watchers of the table see the same frames; their points do not move.
  const watcher = seen(carol);
  for (const s of [stake(), stake({ game: 12 }), null]) assert.equal(step(watcher, stakeUpdated(s)), null);
  // Nobody logged in: nothing to ask.
  const guest = createState();
  assert.equal(balanceMoves(guest, stakeUpdated(stake())), null);
});

test('stakes held for the next game come back after a player stands up: ask now and again soon', () => {
  const state = seen(bob);
  assert.equal(step(state, stakeUpdated(stake())), 'now');
  // Bob stood up (the seat update comes first), yet the held stakes were his.
  applyMessage(state, { type: 'table_updated', table: { table: 1, room: 1, left: alice, right: null, proposal: null, game: null, watchers_count: 1 } });
  assert.equal(step(state, stakeUpdated(null)), 'soon');
  // And nothing more once they are gone.
  assert.equal(step(state, stakeUpdated(null)), null);
});

test('the pool: my side’s stake raised, a settlement for a player or a bettor; others’ bets move nothing', () => {
  const state = seen(alice);
  applyMessage(state, gameState);
  assert.equal(step(state, { type: 'pool', id: 5, pool: pool({ stake_black: 50, stake_white: 50 }) }), null); // first sight
  assert.equal(step(state, { type: 'pool', pool: pool({ total: 100, black: 100, bettors_count: 1, stake_black: 50, stake_white: 50 }) }), null);
  assert.equal(step(state, { type: 'pool', pool: pool({ total: 100, black: 100, bettors_count: 1, stake_black: 50, stake_white: 80 }) }), null); // bob raised
  assert.equal(step(state, { type: 'pool', pool: pool({ total: 100, black: 100, bettors_count: 1, stake_black: 70, stake_white: 80 }) }), 'now'); // I raised
  assert.equal(step(state, ended), 'now');
  assert.equal(step(state, { type: 'pool', pool: pool({ open: false, stake_black: 70, stake_white: 80, settled: true }) }), 'now');

  // Carol watches: only the settlement of a pool she bet in matters to her.
  const watcher = seen(carol, { seated: false });
  applyMessage(watcher, gameState);
  assert.equal(step(watcher, { type: 'pool', pool: pool({ total: 100, black: 100, bettors_count: 1 }) }), null);
  assert.equal(step(watcher, { type: 'bet_placed', id: 9, game: 12, side: 'black', amount: 100, total: 100, balance: 900, tax_bp: 500 }), null);
  assert.equal(watcher.balance, 900, 'the bet’s reply carries the balance');
  assert.equal(step(watcher, ended), null);
  assert.equal(step(watcher, { type: 'pool', pool: pool({ open: false, total: 100, black: 100, bettors_count: 1, settled: true }) }), 'now');
  // A later reply about the same settled pool is old news; a push is the settlement itself.
  assert.equal(step(watcher, { type: 'pool', id: 10, pool: pool({ open: false, total: 100, black: 100, bettors_count: 1, settled: true }) }), null);
  const other = seen(carol, { seated: false });
  applyMessage(other, gameState);
  assert.equal(step(other, { type: 'pool', pool: pool({ settled: true }) }), null, 'no bet, no player: nothing moved');
});

/** A fake timer: `defer` queues, `run` fires what is due. */
function fakeTimers() {
  let now = 0;
  const queue = [];
  return {
    defer: (fn, ms) => queue.push({ at: now + ms, fn }),
    async advance(ms) {
      now += ms;
      for (;;) {
        queue.sort((a, b) => a.at - b.at);
        if (!queue.length || queue[0].at > now) break;
        queue.shift().fn();
        await Promise.resolve();
      }
    },
    get pending() { return queue.length; },
  };
}

test('coalescing: a burst of triggers sends one request; a trigger in flight sends one more after it', async () => {
  const timers = fakeTimers();
  const answers = [];
  const refresher = new BalanceRefresher({ ask: () => new Promise((resolve) => answers.push(resolve)), defer: timers.defer, recheckMs: 1000 });
  refresher.refresh();
  refresher.refresh();
  refresher.refresh();
  assert.equal(answers.length, 0, 'nothing is sent before the burst ends');
  await timers.advance(0);
  assert.equal(answers.length, 1);
  // Two more triggers while it is in flight: one follow-up, after the answer.
  refresher.refresh();
  refresher.refresh();
  await timers.advance(0);
  assert.equal(answers.length, 1);
  answers[0]();
  await new Promise((r) => setTimeout(r, 0));
  await timers.advance(0);
  assert.equal(answers.length, 2);
  answers[1]();
  await new Promise((r) => setTimeout(r, 0));
  await timers.advance(0);
  assert.equal(answers.length, 2, 'quiet after the follow-up');
  assert.equal(timers.pending, 0);
});

test('coalescing: refreshSoon asks now and once more after the recheck delay; a failed ask is not retried', async () => {
  const timers = fakeTimers();
  let asked = 0;
  const refresher = new BalanceRefresher({ ask: async () => { asked += 1; throw new Error('offline'); }, defer: timers.defer, recheckMs: 1000 });
  refresher.refreshSoon();
  refresher.refreshSoon();
  await timers.advance(0);
  assert.equal(asked, 1);
  await timers.advance(999);
  assert.equal(asked, 1);
  await timers.advance(1);
  await timers.advance(0);
  assert.equal(asked, 2);
  await timers.advance(5000);
  assert.equal(asked, 2);
});

test('through the connection: several triggers at once send one `balance` request and the reply reaches the state', async () => {
  const sent = [];
  class Socket {
    constructor() {
      this.readyState = 1;
      setTimeout(() => this.onopen?.(), 0);
    }
    send(text) {
      const msg = JSON.parse(text);
      sent.push(msg);
      const reply = msg.type === 'hello' ? { type: 'welcome', id: msg.id, version: 1, server: 'fake' }
        : msg.type === 'balance' ? { type: 'balance', id: msg.id, balance: 950, tax_bp: 500 } : { type: 'ack', id: msg.id };
      setTimeout(() => this.onmessage?.({ data: JSON.stringify(reply) }), 0);
    }
    close() {}
  }
  const received = [];
  let ready;
  const readyNow = new Promise((r) => { ready = r; });
  const net = new Connection({ url: 'ws://fake', storage: null, WebSocketImpl: Socket, onMessage: (m) => received.push(m), onReady: () => ready() });
  net.connect();
  await readyNow;
  net.refreshBalance();
  net.refreshBalance();
  net.refreshBalance({ soon: false });
  for (let i = 0; i < 50 && !received.some((m) => m.type === 'balance'); i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(sent.filter((m) => m.type === 'balance').length, 1);
  assert.equal(received.find((m) => m.type === 'balance').balance, 950);
  net.close();
});
