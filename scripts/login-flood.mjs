// A login flood against a running `tengen` on loopback, for measuring what it costs the server:
// SOCKETS connections send wrong passwords (for unknown names, so the per-account throttle never
// spares the hash) as fast as they are answered for SECONDS, while one more connection logs in with
// the right password once a second (retrying at once on `busy`). Prints the server's RSS before,
// the highest during and after the flood, the answers by code, and how long each legitimate login
// took. Bounded: it stops by itself after SECONDS plus a few seconds' wind-down.
//
//   node --experimental-websocket scripts/login-flood.mjs ws://127.0.0.1:18080/ws <server pid> [sockets] [seconds]

import { readFileSync } from 'node:fs';

const [url, pid, socketsArg = '60', secondsArg = '10'] = process.argv.slice(2);
if (!url || !pid || !/^ws:\/\/(127\.|localhost|\[::1\])/.test(url)) {
  console.error('usage: login-flood.mjs ws://127.0.0.1:PORT/ws PID [sockets] [seconds] (loopback only)');
  process.exit(2);
}
const SOCKETS = Number(socketsArg);
const SECONDS = Number(secondsArg);
const PASSWORD = 'correct horse battery';

function rssMiB() {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmRSS:\s+(\d+)/)[1]) / 1024;
}

/** A socket that has said hello, with `ask(msg)` resolving to the reply carrying its id. */
async function connect() {
  const ws = new WebSocket(url);
  const waiting = new Map();
  let next = 1;
  ws.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    const reply = waiting.get(msg.id);
    if (reply) { waiting.delete(msg.id); reply(msg); }
  };
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
  const ask = (msg) => new Promise((resolve) => {
    const id = next++;
    waiting.set(id, resolve);
    ws.send(JSON.stringify({ ...msg, id }));
  });
  await ask({ type: 'hello', version: 1 });
  return { ws, ask };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const user = `legit${Date.now() % 100000}`;
const setup = await connect();
const registered = await setup.ask({ type: 'register', username: user, password: PASSWORD });
if (registered.type !== 'session') throw new Error(`register: ${JSON.stringify(registered)}`);
setup.ws.close();
await sleep(1000);
const before = rssMiB();

const codes = {};
let floodRss = before;
const deadline = Date.now() + SECONDS * 1000;
const flooders = await Promise.all(Array.from({ length: SOCKETS }, () => connect()));
const sampler = setInterval(() => { floodRss = Math.max(floodRss, rssMiB()); }, 100);
const flood = flooders.map(async ({ ask }, index) => {
  for (let n = 0; Date.now() < deadline; n++) {
    const reply = await ask({ type: 'login', username: `nobody${index}x${n}`, password: 'wrong password 1' });
    const code = reply.code ?? reply.type;
    codes[code] = (codes[code] ?? 0) + 1;
  }
});
const logins = [];
const legit = (async () => {
  while (Date.now() < deadline) {
    const { ws, ask } = await connect();
    const started = Date.now();
    let busy = 0;
    for (;;) {
      const reply = await ask({ type: 'login', username: user, password: PASSWORD });
      if (reply.type === 'session') break;
      if (reply.code !== 'busy') throw new Error(`legitimate login: ${JSON.stringify(reply)}`);
      busy++;
    }
    logins.push({ ms: Date.now() - started, busy });
    ws.close();
    await sleep(1000);
  }
})();
await Promise.all([...flood, legit]);
clearInterval(sampler);
for (const { ws } of flooders) ws.close();
await sleep(3000);
const after = rssMiB();
const sorted = logins.map((l) => l.ms).sort((a, b) => a - b);
console.log(JSON.stringify({
  sockets: SOCKETS, seconds: SECONDS,
  rss_mib: { before: before.toFixed(1), flood_max: floodRss.toFixed(1), after_3s: after.toFixed(1) },
  answers: codes,
  legit_logins: { count: logins.length, ms_min: sorted[0], ms_median: sorted[Math.floor(sorted.length / 2)], ms_max: sorted.at(-1), busy_answers: logins.reduce((s, l) => s + l.busy, 0) },
}, null, 1));
process.exit(0);
