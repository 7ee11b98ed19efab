// The one module that touches the WebSocket. It owns: connecting and `hello`; request ids and their
// replies (as promises); resuming the session with the token kept in localStorage; reconnecting with
// exponential backoff; and per-game `seq` tracking, so a gap triggers a fresh `watch` (resync) and stale
// or duplicate events never reach the state; and asking for the user's balance when points moved, one
// request for a burst of reasons (`refreshBalance`). Everything else receives server messages through
// `onMessage` and sends through `request`; views never see the socket. Requests that change a game or
// move points go through `requestKeyed`: a fresh key per intent, and the same key when it is sent again
// after an answer that says it was not done or may have been (so the server acts on it once).

const PROTOCOL_VERSION = 1;
const TOKEN_KEY = 'tengen.token';
/** Backoff between reconnect attempts: doubles from the first to the cap, with jitter so a server restart
 * is not met by every client at the same instant. */
const BACKOFF_FIRST_MS = 500;
const BACKOFF_MAX_MS = 15000;
/** A request the server never answers (lost with a dropped socket) fails after this long. */
const REQUEST_TIMEOUT_MS = 15000;

/**
 * After the server says that agreed stakes held for a table's next game lapse (a player stood up), it
 * gives them back a moment later; the balance is asked for again after this long to show them.
 */
export const BALANCE_RECHECK_MS = 1000;

/**
 * Failures after which a keyed request is sent again with the same key: certainly not done (`busy`,
 * `unavailable`, `rate_limited`) or not known (`outcome_unknown`, no answer, a lost connection). The key
 * makes the server act on it at most once however many copies arrive.
 */
const RETRY_CODES = new Set(['busy', 'unavailable', 'rate_limited', 'outcome_unknown', 'timeout', 'disconnected']);
/** Sends of one keyed request at most; with `backoffMs` between them, about 8 seconds of trying. */
const KEYED_ATTEMPTS_MAX = 5;

/**
 * A fresh request key: 128 random bits in hex. From `getRandomValues`, which (unlike `randomUUID`) also
 * works on a page served over plain http from another host.
 */
export function freshKey(cryptoImpl = globalThis.crypto) {
  const bytes = new Uint8Array(16);
  cryptoImpl.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A failed request: the server's stable `code` and its human `message`. */
export class RequestError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** The next reconnect delay after `attempt` failures (0-based), with up to 20% jitter. */
export function backoffMs(attempt, random = Math.random) {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** attempt);
  return Math.round(base * (0.8 + 0.4 * random()));
}

/**
 * Tracks the last `seq` seen per game. `accept` says what to do with a game event: 'apply' it, 'drop' it
 * (already seen), or 'resync' (events were missed: ask for the whole state again and drop until it comes).
 */
export class SeqTracker {
  constructor() {
    this.lastSeq = new Map();
    this.resyncing = new Set();
  }
  /** A `game_state` arrived: it includes every event up to `seq`. */
  reset(game, seq) {
    this.lastSeq.set(game, seq);
    this.resyncing.delete(game);
  }
  accept(game, seq) {
    if (this.resyncing.has(game)) return 'drop';
    const last = this.lastSeq.get(game);
    if (last === undefined) return 'drop'; // an event before the state it builds on: wait for the state.
    if (seq <= last) return 'drop';
    if (seq === last + 1) {
      this.lastSeq.set(game, seq);
      return 'apply';
    }
    this.resyncing.add(game);
    return 'resync';
  }
  forget(game) {
    this.lastSeq.delete(game);
    this.resyncing.delete(game);
  }
}

/**
 * Coalesces the requests for the user's balance. Triggers that come together (one burst of frames) send a
 * single `balance` request at the end of the burst; a trigger while that request is in flight sends one
 * more once it is answered (the answer may predate the move the trigger reported); `refreshSoon` also asks
 * once more after `recheckMs`, for points the server moves just after telling of it. Pure apart from the
 * two functions passed in: `ask()` sends the request (a promise), `defer(fn, ms)` is `setTimeout`.
 */
export class BalanceRefresher {
  constructor({ ask, defer = (fn, ms) => setTimeout(fn, ms), recheckMs = BALANCE_RECHECK_MS }) {
    this.ask = ask;
    this.defer = defer;
    this.recheckMs = recheckMs;
    this.queued = false; // a request goes out at the end of this burst
    this.inFlight = false;
    this.again = false; // a trigger came while the request was in flight
    this.recheckQueued = false;
    this.sentCount = 0;
  }

  /** Points moved: the balance is asked for once, whatever else comes in the same burst. */
  refresh() {
    if (this.inFlight) {
      this.again = true;
      return;
    }
    if (this.queued) return;
    this.queued = true;
    this.defer(() => this.send(), 0);
  }

  /** Points move right after this: ask now, and once more in a moment (one recheck for many calls). */
  refreshSoon() {
    this.refresh();
    if (this.recheckQueued) return;
    this.recheckQueued = true;
    this.defer(() => {
      this.recheckQueued = false;
      this.refresh();
    }, this.recheckMs);
  }

  async send() {
    this.queued = false;
    this.inFlight = true;
    this.sentCount += 1;
    try {
      await this.ask();
    } catch {
      // Offline or logged out: a resumed session gets its balance pushed anyway.
    }
    this.inFlight = false;
    if (this.again) {
      this.again = false;
      this.refresh();
    }
  }
}

export class Connection {
  /**
   * `url`: the WebSocket address; `storage`: where the session token lives (localStorage);
   * `onMessage(msg)`: every push and data message in order; `onStatus(status)`: 'connecting' | 'online' |
   * {offline, retryInMs}; `onReady({resumed, session})`: after each (re)connect is set up, so the app can
   * re-subscribe to what it was looking at.
   */
  constructor({ url, storage, onMessage, onStatus, onReady, WebSocketImpl = globalThis.WebSocket }) {
    this.url = url;
    this.storage = storage;
    this.onMessage = onMessage;
    this.onStatus = onStatus ?? (() => {});
    this.onReady = onReady ?? (() => {});
    this.WebSocketImpl = WebSocketImpl;
    this.nextId = 1;
    this.pending = new Map();
    this.seq = new SeqTracker();
    // The reply is a data message (`balance`), so it reaches `onMessage` and the state like a push.
    this.balance = new BalanceRefresher({ ask: () => this.request({ type: 'balance' }) });
    this.attempt = 0;
    this.socket = null;
    this.open = false;
    this.closedByUs = false;
  }

  get token() {
    return this.storage?.getItem(TOKEN_KEY) ?? null;
  }
  set token(value) {
    if (value) this.storage?.setItem(TOKEN_KEY, value);
    else this.storage?.removeItem(TOKEN_KEY);
  }

  connect() {
    this.closedByUs = false;
    this.onStatus('connecting');
    const socket = new this.WebSocketImpl(this.url);
    this.socket = socket;
    socket.onopen = () => this.handshake(socket);
    socket.onmessage = (event) => this.receive(event.data);
    socket.onclose = () => this.dropped(socket);
    socket.onerror = () => {}; // onclose follows and does the work.
  }

  close() {
    this.closedByUs = true;
    this.socket?.close();
  }

  async handshake(socket) {
    this.open = true;
    try {
      await this.request({ type: 'hello', version: PROTOCOL_VERSION });
      let session = null;
      if (this.token) {
        try {
          session = await this.request({ type: 'resume', token: this.token });
        } catch (err) {
          if (err.code === 'invalid_token') this.token = null;
          else throw err;
        }
      }
      if (socket !== this.socket) return;
      this.attempt = 0;
      this.onStatus('online');
      this.onReady({ session });
    } catch (err) {
      console.warn('handshake failed', err);
      socket.close();
    }
  }

  dropped(socket) {
    if (socket !== this.socket) return;
    this.open = false;
    for (const { reject, timer } of this.pending.values()) {
      clearTimeout(timer);
      reject(new RequestError('disconnected', 'the connection was lost'));
    }
    this.pending.clear();
    // Every game's state must be fetched again after a reconnect.
    this.seq = new SeqTracker();
    if (this.closedByUs) return;
    const delay = backoffMs(this.attempt++);
    this.onStatus({ offline: true, retryInMs: delay });
    setTimeout(() => this.connect(), delay);
  }

  /** Send a request; resolves with the reply (ack, session, …), rejects with a RequestError. */
  request(msg) {
    if (!this.open || this.socket?.readyState !== 1) {
      return Promise.reject(new RequestError('disconnected', 'not connected'));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RequestError('timeout', 'the server did not answer'));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.socket.send(JSON.stringify({ ...msg, id }));
    });
  }

  /**
   * Send a request that changes something (a move, a bet, a stake raise) with a fresh key, and send it
   * again with the same key while the answer says it was not done or may have been, a few times with
   * backoff. Resolves with the first real answer; rejects with the last failure.
   */
  async requestKeyed(msg, { attempts = KEYED_ATTEMPTS_MAX, wait = (ms) => new Promise((r) => setTimeout(r, ms)) } = {}) {
    const keyed = { ...msg, key: msg.key ?? freshKey() };
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.request(keyed);
      } catch (err) {
        if (!RETRY_CODES.has(err.code) || attempt >= attempts) throw err;
        await wait(backoffMs(attempt - 1));
      }
    }
  }

  /**
   * The user's points moved without the server sending the new balance: ask for it (coalesced). `soon`:
   * they move just after the frame that told of it, so ask once more in a moment.
   */
  refreshBalance({ soon = false } = {}) {
    if (soon) this.balance.refreshSoon();
    else this.balance.refresh();
  }

  /** Log in, register or resume: remember the token for the next connection. */
  async authenticate(msg) {
    const session = await this.request(msg);
    this.token = session.token;
    return session;
  }

  /** Log out this session (`logout`) or every session of the account (`logout_all`). */
  async logout(type = 'logout') {
    try {
      await this.request({ type });
    } finally {
      this.token = null;
    }
  }

  receive(text) {
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (msg.type === 'game_state') this.seq.reset(msg.state.game, msg.state.seq);
    // Logged out elsewhere: the token is dead, so the next connection must not resume with it.
    if (msg.type === 'logged_out') this.token = null;
    if (msg.type === 'game_event') {
      const verdict = this.seq.accept(msg.game, msg.seq);
      if (verdict === 'resync') {
        this.request({ type: 'watch', game: msg.game }).catch(() => {});
        return;
      }
      if (verdict === 'drop') return;
    }
    if (msg.id !== undefined && this.pending.has(msg.id)) {
      const { resolve, reject, timer } = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      clearTimeout(timer);
      if (msg.type === 'error') reject(new RequestError(msg.code, msg.message));
      else resolve(msg);
      // Data replies (session, challenge_sent) are also news for the state.
      if (msg.type === 'ack' || msg.type === 'error') return;
    }
    this.onMessage(msg);
  }
}
