// Unit tests for the networking module with a fake WebSocket: hello then resume with the stored token,
// replies matched to requests, a seq gap answered by a fresh `watch`, and a reconnect after a drop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Connection } from '../js/net.js';

class FakeSocket {
  static all = [];
  constructor(url) {
    this.url = url;
    this.sent = [];
    this.readyState = 0;
    FakeSocket.all.push(this);
    setTimeout(() => { this.readyState = 1; this.onopen?.(); }, 0);
  }
  send(text) {
    const msg = JSON.parse(text);
    this.sent.push(msg);
    // A tiny server: hello and resume answer at once.
    if (msg.type === 'hello') this.reply({ type: 'welcome', id: msg.id, version: 1, server: 'fake' });
    if (msg.type === 'resume') this.reply({ type: 'session', id: msg.id, user: 1, username: 'alice', token: msg.token, expires_at_ms: 0 });
    if (msg.type === 'watch') this.reply({ type: 'ack', id: msg.id });
  }
  reply(msg) {
    setTimeout(() => this.onmessage?.({ data: JSON.stringify(msg) }), 0);
  }
  close() {
    this.readyState = 3;
    setTimeout(() => this.onclose?.(), 0);
  }
}

function memoryStorage(initial = {}) {
  const map = new Map(Object.entries(initial));
  return { getItem: (k) => map.get(k) ?? null, setItem: (k, v) => map.set(k, v), removeItem: (k) => map.delete(k) };
}

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));
/** Wait until `cond()` holds (the suite runs beside a browser, so fixed sleeps would be flaky). */
async function until(cond, timeoutMs = 5000) {
  for (let waited = 0; !cond(); waited += 10) {
    if (waited > timeoutMs) throw new Error('timed out waiting');
    await tick(10);
  }
}

test('hello, resume with the stored token, a seq gap triggers watch, a drop reconnects', async () => {
  FakeSocket.all = [];
  const received = [];
  const ready = [];
  const conn = new Connection({
    url: 'ws://test/ws',
    storage: memoryStorage({ 'tengen.token': 'abc' }),
    onMessage: (msg) => received.push(msg),
    onReady: (info) => ready.push(info),
    WebSocketImpl: FakeSocket,
  });
  conn.connect();
  await until(() => ready.length === 1);
  const socket = FakeSocket.all[0];
  assert.deepEqual(socket.sent.map((m) => m.type), ['hello', 'resume']);
  assert.equal(socket.sent[1].token, 'abc');
  assert.equal(ready.length, 1);
  assert.equal(ready[0].session.username, 'alice');

  // A game's state, then events in order, a repeat, and a gap.
  socket.reply({ type: 'game_state', state: { game: 9, seq: 3 } });
  socket.reply({ type: 'game_event', game: 9, seq: 4, event: 'passed', color: 'black' });
  socket.reply({ type: 'game_event', game: 9, seq: 4, event: 'passed', color: 'black' });
  socket.reply({ type: 'game_event', game: 9, seq: 6, event: 'passed', color: 'black' });
  await until(() => socket.sent.at(-1).type === 'watch');
  assert.deepEqual(received.filter((m) => m.type.startsWith('game_')).map((m) => `${m.type}:${m.seq ?? m.state.seq}`), ['game_state:3', 'game_event:4']);
  assert.deepEqual(socket.sent.at(-1), { type: 'watch', game: 9, id: socket.sent.at(-1).id });

  // The socket drops: pending work fails, and a new socket says hello again after the backoff.
  socket.close();
  // The first retry comes after about half a second.
  await until(() => ready.length === 2);
  assert.equal(FakeSocket.all.length, 2);
  assert.equal(FakeSocket.all[1].sent[0].type, 'hello');
  assert.equal(ready.length, 2);
  conn.close();
});

test('an unknown token is forgotten', async () => {
  FakeSocket.all = [];
  const storage = memoryStorage({ 'tengen.token': 'stale' });
  class RefusingSocket extends FakeSocket {
    send(text) {
      const msg = JSON.parse(text);
      if (msg.type === 'resume') {
        this.sent.push(msg);
        this.reply({ type: 'error', id: msg.id, code: 'invalid_token', message: 'unknown token' });
        return;
      }
      super.send(text);
    }
  }
  const ready = [];
  const conn = new Connection({ url: 'ws://test/ws', storage, onMessage: () => {}, onReady: (i) => ready.push(i), WebSocketImpl: RefusingSocket });
  conn.connect();
  await until(() => ready.length === 1);
  assert.equal(storage.getItem('tengen.token'), null);
  assert.equal(ready[0].session, null);
  conn.close();
});

test('a keyed request is sent again with the same key until the server can take it', async () => {
  FakeSocket.all = [];
  // The server cannot take the bet twice (store down, then an unknown outcome), then places it.
  const answers = ['unavailable', 'outcome_unknown', null];
  class FlakySocket extends FakeSocket {
    send(text) {
      const msg = JSON.parse(text);
      if (msg.type !== 'bet') return super.send(text);
      this.sent.push(msg);
      const code = answers.shift();
      if (code) this.reply({ type: 'error', id: msg.id, code, message: code });
      else this.reply({ type: 'bet_placed', id: msg.id, game: 3, side: 'black', amount: 5, total: 5, balance: 995, tax_bp: 500 });
    }
  }
  const ready = [];
  const conn = new Connection({ url: 'ws://test/ws', storage: memoryStorage(), onMessage: () => {}, onReady: (i) => ready.push(i), WebSocketImpl: FlakySocket });
  conn.connect();
  await until(() => ready.length === 1);
  const placed = await conn.requestKeyed({ type: 'bet', game: 3, side: 'black', amount: 5 }, { wait: () => tick(0) });
  assert.equal(placed.balance, 995);
  const bets = FakeSocket.all[0].sent.filter((m) => m.type === 'bet');
  assert.equal(bets.length, 3);
  // One key for the intent, 32 hex digits, on every copy; each copy has its own request id.
  assert.match(bets[0].key, /^[0-9a-f]{32}$/);
  assert.ok(bets.every((m) => m.key === bets[0].key));
  assert.equal(new Set(bets.map((m) => m.id)).size, 3);

  // A refusal that means "no" is not retried, and the next intent gets a fresh key.
  answers.push(null);
  await conn.requestKeyed({ type: 'bet', game: 3, side: 'black', amount: 5 }, { wait: () => tick(0) });
  const again = FakeSocket.all[0].sent.filter((m) => m.type === 'bet').at(-1);
  assert.notEqual(again.key, bets[0].key);
  answers.push('insufficient_points');
  await assert.rejects(conn.requestKeyed({ type: 'bet', game: 3, side: 'black', amount: 5000 }, { wait: () => tick(0) }), { code: 'insufficient_points' });
  assert.equal(FakeSocket.all[0].sent.filter((m) => m.type === 'bet').length, 5);
  conn.close();
});
