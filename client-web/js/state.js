// The client's picture of the server: who I am, the hall, my room and its tables, the games I follow, chat
// lines and pending challenges. `applyMessage(state, msg)` folds one server message into it (mutating in
// place, then subscribers re-render); `balanceMoves(state, msg)` says beforehand whether that message
// means the user's points moved, so the app asks for the balance. No socket and no DOM here: `net`
// feeds it and views read it.

import { initialSide, afterMove, tick as tickSide } from './clock.js';
import { EMPTY, STONE, otherColor } from './stones.js';
import { createEventsState, applyEventMessage } from './events.js';
import { eventRulesFrom, applyEventRule, clocksHalted } from './event-game.js';
import { koPoint } from './replay.js';

/** Chat lines kept per channel; older ones scroll away, so memory stays bounded in a busy room. */
export const CHAT_LINES_MAX = 200;

export function createState() {
  return {
    me: null, // {user, username, role: 'user' | 'moderator' | 'admin'}
    muted: null, // {until_ms, reason}: a moderator's mute on me, while it holds
    banned: null, // {reason, until_ms}: the ban that logged me out (shown on the login screen)
    connection: 'connecting',
    hall: { rooms: [], players: [], games: [] },
    room: null, // {room, name, tables: Map(table id → TableInfo), users: []}
    tables: new Map(), // tables I look at (and my room's)
    games: new Map(), // game id → game model
    chats: new Map(), // channel key → [{from, text, at_ms, line}] (`line`: the id a report or removal names)
    challenges: [], // incoming: {challenge, from, settings}
    balance: null, // fortune points, when the server keeps them
    pendingGrant: 0, // starting points not granted yet (a new account's, until its first finished game or a day)
    taxBp: null,
    pools: new Map(), // game id → the wire's pool object
    myBets: new Map(), // game id → {side, total}: my bet in that game's pool, from `bet_placed`
    stakes: new Map(), // table id → {stake: the wire's StakeInfo or null, taxBp, mine: my points are in it or I sit there}
    notices: [], // transient messages for the user
    events: createEventsState(), // competitions: the hall's list and the events opened (see events.js)
    profiles: new Map(), // name as asked → {profile} (the `profile` reply's) or {error}: see views/profile.js
    relations: noRelations(), // my friends ({player, online, playing}), blocked and muted players
  };
}

function noRelations() {
  return { friends: [], blocked: [], muted: [] };
}

/** My friends, online ones first (those in a game before those not), then by name. */
export function friendsInOrder(state) {
  const rank = (f) => (f.online ? (f.playing?.length ? 0 : 1) : 2);
  return [...state.relations.friends].sort((a, b) => rank(a) - rank(b) || a.player.username.localeCompare(b.player.username));
}

/** What I hold toward `user`: {follows, blocks, mutes}. */
export function relationTo(state, user) {
  const has = (list) => list.some((p) => (p.player ?? p).user === user);
  return { follows: has(state.relations.friends), blocks: has(state.relations.blocked), mutes: has(state.relations.muted) };
}

/** Whether chat from `user` is hidden from me (the server hides it too; this drops lines said before). */
function chatHidden(state, user) {
  const { blocks, mutes } = relationTo(state, user);
  return blocks || mutes;
}

export function channelKey(channel) {
  if (channel.kind === 'room') return `room:${channel.room}`;
  if (channel.kind === 'table') return `table:${channel.table}`;
  if (channel.kind === 'game') return `game:${channel.game}`;
  return `kibitz:${channel.game}`;
}

/** A game model built from a `game_state`: the position plus what the views show beside it. */
export function gameFromState(s) {
  return {
    id: s.game,
    seq: s.seq,
    table: s.table,
    black: s.black,
    white: s.white,
    settings: s.settings,
    nigiriSeed: s.nigiri_seed,
    phase: s.phase,
    toMove: s.to_move,
    board: s.board.slice(),
    capturesBlack: s.captures_black,
    capturesWhite: s.captures_white,
    movesCount: s.moves_count,
    dead: s.dead.slice(),
    acceptedBlack: s.accepted_black,
    acceptedWhite: s.accepted_white,
    outcome: s.outcome,
    watchersCount: s.watchers_count,
    // Who watches: the named watchers (strongest first) and the guests; older servers send neither.
    watching: watchingFrom(s),
    // The last move, when the server says (a join mid-game, a reload, a reconnect); older servers do not.
    ...lastFrom(s.last_move),
    // The ko point, derived from the last move's capture as it arrives (the state carries none).
    ko: null,
    // Clocks: the server's `ClockView` when the wire carries it; until then a local display from the
    // settings, counted down on the side to move (see clock.js).
    clocks: s.clocks ?? { black: initialSide(s.settings.clock), white: initialSide(s.settings.clock) },
    clockAtMs: Date.now(),
    // Fields of the game lifecycle (undo, escape countdowns); absent on servers that do not send them.
    undoRequestedBy: s.undo_requested_by ?? null,
    // The player whose undo request was just refused (a computer player always refuses), until the next move.
    undoRefused: null,
    away: awayFrom(s.away ?? [], Date.now()),
    // Before the first move: the local time by which it must be made, or the game is void.
    firstMoveBy: s.first_move_in_ms != null ? Date.now() + s.first_move_in_ms : null,
    // An event game's lateness, warnings, pause or adjournment, and a pass the clock forced (event-game.js).
    ...eventRulesFrom(s, Date.now()),
  };
}

/** A wire `last_move` ({color, point}, a null point for a pass) as the model's lastMove and lastPass. */
function lastFrom(last) {
  if (!last) return { lastMove: null, lastPass: null };
  return last.point ? { lastMove: { point: last.point, color: last.color }, lastPass: null } : { lastMove: null, lastPass: last.color };
}

/**
 * The i18n key saying how a finished game ended: its outcome's reason, and for a void game why, as far
 * as the client can tell (no move at all means the first move was not made in time).
 */
export function outcomeReasonKey(game) {
  const reason = game.outcome?.reason;
  if (reason === 'void' && game.movesCount === 0) return 'game.reason.voidNoFirstMove';
  return `game.reason.${reason}`;
}

/** The watchers part of a `game_state` or a `watchers` push (the same fields in both). */
export function watchingFrom(msg) {
  return { count: msg.watchers_count ?? 0, anonymous: msg.anonymous_watchers_count ?? 0, watchers: msg.watchers ?? [] };
}

/** Players away from the game: color → the local time at which they forfeit. */
function awayFrom(list, nowMs) {
  const away = {};
  for (const a of list) away[a.color] = nowMs + a.forfeit_in_ms;
  return away;
}

function setPoint(board, point, char) {
  const line = board[point.row];
  board[point.row] = line.slice(0, point.col) + char + line.slice(point.col + 1);
}


/** Apply one game event (already checked for order by `net`) to a game model. */
export function applyGameEvent(game, msg, nowMs = Date.now()) {
  game.seq = msg.seq;
  chargeClock(game, nowMs);
  switch (msg.event) {
    case 'played': {
      setPoint(game.board, msg.point, STONE[msg.color]);
      for (const p of msg.captured) setPoint(game.board, p, EMPTY);
      if (msg.color === 'black') game.capturesBlack += msg.captured.length;
      else game.capturesWhite += msg.captured.length;
      game.lastMove = { point: msg.point, color: msg.color };
      game.forcedPass = null;
      game.ko = koPoint(game.board, msg.point, msg.captured);
      game.lastPass = null;
      game.movesCount += 1;
      game.firstMoveBy = null;
      game.undoRefused = null;
      game.toMove = otherColor(msg.color);
      moved(game, msg.color);
      break;
    }
    case 'passed':
      game.ko = null;
      game.lastPass = msg.color;
      // A byo-yomi timeout under `timeout_is_pass`: the clock passed for them.
      game.forcedPass = msg.forced ? msg.color : null;
      game.lastMove = null;
      game.movesCount += 1;
      game.firstMoveBy = null;
      game.undoRefused = null;
      game.toMove = otherColor(msg.color);
      moved(game, msg.color);
      break;
    case 'scoring_started':
      game.phase = 'scoring';
      game.dead = msg.dead.slice();
      game.acceptedBlack = game.acceptedWhite = false;
      break;
    case 'dead_marked':
      game.dead = msg.dead.slice();
      game.acceptedBlack = game.acceptedWhite = false;
      break;
    case 'score_accepted':
      if (msg.color === 'black') game.acceptedBlack = true;
      else game.acceptedWhite = true;
      break;
    case 'ended':
      game.phase = 'over';
      game.firstMoveBy = null;
      game.outcome = msg.outcome;
      break;
    case 'undo_requested':
      game.undoRequestedBy = msg.color;
      game.undoRefused = null;
      break;
    case 'undo_declined':
      game.undoRequestedBy = null;
      game.undoRefused = msg.color;
      break;
    case 'undo_accepted':
      game.undoRequestedBy = null;
      game.forcedPass = null;
      game.board = msg.board.slice();
      game.movesCount = msg.moves_count;
      game.toMove = msg.to_move;
      // A taken-back capture no longer counts; older servers send no counts (keep ours).
      game.capturesBlack = msg.captures_black ?? game.capturesBlack;
      game.capturesWhite = msg.captures_white ?? game.capturesWhite;
      Object.assign(game, lastFrom(msg.last_move));
      game.ko = null;
      break;
    case 'play_resumed':
      game.phase = 'playing';
      game.toMove = msg.to_move;
      game.dead = [];
      game.acceptedBlack = game.acceptedWhite = false;
      break;
    case 'player_left':
      game.away = { ...game.away, [msg.color]: nowMs + msg.forfeit_in_ms };
      break;
    case 'player_returned': {
      const { [msg.color]: _gone, ...rest } = game.away;
      game.away = rest;
      break;
    }
    default:
      // An event game's rules (event-game.js); events this client does not know yet change nothing it shows.
      applyEventRule(game, msg, nowMs);
      break;
  }
  // The server's clocks, when the wire carries them, replace the local count.
  if (msg.clocks) {
    game.clocks = msg.clocks;
    game.clockAtMs = nowMs;
  }
}

/** Count the side to move's clock down to now, so a move charges the time it took. */
export function chargeClock(game, nowMs) {
  const { clocks } = game;
  const clock = game.settings.clock;
  if (!clocks?.black || game.phase !== 'playing' || clock.kind === 'none' || clocksHalted(game)) {
    game.clockAtMs = nowMs;
    return;
  }
  const side = game.toMove;
  clocks[side] = tickSide(clocks[side], clock, nowMs - game.clockAtMs);
  game.clockAtMs = nowMs;
}

function moved(game, color) {
  const clock = game.settings.clock;
  if (game.clocks?.[color] && clock.kind !== 'none') game.clocks[color] = afterMove(game.clocks[color], clock);
}

function upsert(list, keyName, item) {
  const i = list.findIndex((x) => x[keyName] === item[keyName]);
  if (i >= 0) list[i] = item;
  else list.push(item);
}

/**
 * A player's new listing (pushed after a rated game moves their rank) in every place the client shows
 * them: the room's users, the tables' seats, the hall's live games and the games it holds.
 */
function relist(state, player) {
  const same = (p) => p?.user === player.user;
  if (state.room?.users.some(same)) upsert(state.room.users, 'user', player);
  for (const table of state.tables.values()) {
    if (same(table.left)) table.left = player;
    if (same(table.right)) table.right = player;
  }
  for (const listed of state.hall.games) {
    if (same(listed.black)) listed.black = player;
    if (same(listed.white)) listed.white = player;
  }
  for (const game of state.games.values()) {
    if (same(game.black)) game.black = player;
    if (same(game.white)) game.white = player;
  }
}

function addChat(state, key, line) {
  const lines = state.chats.get(key) ?? [];
  lines.push(line);
  if (lines.length > CHAT_LINES_MAX) lines.splice(0, lines.length - CHAT_LINES_MAX);
  state.chats.set(key, lines);
}

/** A moderator removed a line: it goes from the screen (a new array, so the chat panel redraws). */
function removeChat(state, key, line) {
  const lines = state.chats.get(key);
  if (lines) state.chats.set(key, lines.filter((kept) => kept.line !== line));
}

/** Whether the logged-in user sits at `table`, as the state last heard. */
function seatedAt(state, table) {
  const me = state.me?.user;
  const seats = state.tables.get(table);
  return me != null && (seats?.left?.user === me || seats?.right?.user === me);
}

/** The colour the logged-in user plays in `game` (a game model), or null. */
function myColorIn(state, game) {
  const me = state.me?.user;
  if (me == null || !game) return null;
  if (game.black.user === me) return 'black';
  if (game.white.user === me) return 'white';
  return null;
}

/**
 * Whether `msg`, not yet applied to `state`, tells that the user's fortune points moved without a new
 * balance coming with it (the server pushes `balance` only at login and in replies: `balance`,
 * `bet_placed`). Returns 'now' (they moved: ask for the balance), 'soon' (the server moves them just
 * after this frame: ask now and once more in a moment) or null. Pure: the app asks through `net`.
 * - `stake_updated` of a table where I sit (or whose agreed stakes hold my points): agreement puts the
 *   stakes in escrow; agreed stakes going away were settled with their game, or come back ('soon': the
 *   server releases a hold after announcing it) when a player stood up before the game.
 * - `pool` of a game I play whose stake on my side changed (agreed during the game, or my raise), or a
 *   pool settled (pushed after settlement; or first seen settled) in a game I play or bet on.
 * - `game_event` `ended` of a game I play.
 */
export function balanceMoves(state, msg) {
  if (state.me?.user == null) return null;
  switch (msg.type) {
    case 'stake_updated': {
      const before = state.stakes.get(msg.table);
      const wasAgreed = !!before?.stake?.agreed;
      const isAgreed = !!msg.stake?.agreed;
      if (!wasAgreed && !isAgreed) return null; // offers, OKs and answers move nothing
      if (!seatedAt(state, msg.table) && !(wasAgreed && before.mine)) return null;
      if (wasAgreed && isAgreed) {
        // The held stakes moving into the game that started hold the same points as before.
        const same = before.stake.left === msg.stake.left && before.stake.right === msg.stake.right;
        return same ? null : 'now';
      }
      if (wasAgreed && before.stake.game == null) return 'soon';
      return 'now';
    }
    case 'pool': {
      const pool = msg.pool;
      const before = state.pools.get(pool.game);
      const color = myColorIn(state, state.games.get(pool.game));
      const pushedOrNew = msg.id === undefined || !before?.settled;
      if (pool.settled && pushedOrNew && (color || state.myBets.has(pool.game))) return 'now';
      if (color && before && pool[`stake_${color}`] !== before[`stake_${color}`]) return 'now';
      return null;
    }
    case 'game_event':
      return msg.event === 'ended' && myColorIn(state, state.games.get(msg.game)) ? 'now' : null;
    default:
      return null;
  }
}

/** The id of a live game the logged-in user plays, from the hall's list (the oldest first), or null. */
export function myLiveGame(state) {
  const me = state.me?.user;
  if (me == null) return null;
  const mine = state.hall.games.filter((g) => g.black.user === me || g.white.user === me);
  return mine.length ? Math.min(...mine.map((g) => g.game)) : null;
}

/** Fold one server message into the state. */
export function applyMessage(state, msg) {
  switch (msg.type) {
    case 'session':
      state.me = { user: msg.user, username: msg.username, role: msg.role ?? 'user' };
      state.pendingGrant = msg.pending_grant ?? 0;
      state.muted = msg.muted_until_ms ? { until_ms: msg.muted_until_ms, reason: msg.muted_reason ?? '' } : null;
      break;
    case 'logged_out':
      state.me = null;
      state.relations = noRelations();
      state.pendingGrant = 0;
      state.muted = null;
      // A ban says why and until when; the notice stays on the login screen (`state.banned`).
      if (msg.reason === 'banned') state.banned = { reason: msg.ban_reason ?? '', until_ms: msg.banned_until_ms ?? null };
      state.notices.push({ key: `auth.logged_out.${msg.reason}` });
      break;
    case 'muted':
      state.muted = { until_ms: msg.until_ms, reason: msg.reason };
      state.notices.push({ key: 'moderation.youAreMuted' });
      break;
    case 'unmuted':
      state.muted = null;
      state.notices.push({ key: 'moderation.youAreUnmuted' });
      break;
    case 'chat_removed':
      removeChat(state, channelKey(msg.channel), msg.line);
      break;
    case 'hall':
      state.hall = { rooms: msg.rooms, players: msg.players, games: msg.games };
      break;
    case 'room_updated':
      upsert(state.hall.rooms, 'room', msg.room);
      break;
    case 'player_online':
      upsert(state.hall.players, 'user', msg.player);
      relist(state, msg.player);
      break;
    case 'player_offline':
      state.hall.players = state.hall.players.filter((p) => p.user !== msg.user);
      break;
    case 'game_listed':
      upsert(state.hall.games, 'game', msg.game);
      break;
    case 'game_unlisted':
      state.hall.games = state.hall.games.filter((g) => g.game !== msg.game);
      break;
    case 'room':
      state.room = { room: msg.room, name: msg.name, users: msg.users };
      for (const t of msg.tables) state.tables.set(t.table, t);
      state.room.tableIds = msg.tables.map((t) => t.table);
      // Entering a room shows what was being said there (the room's recent lines, oldest first).
      if (!state.chats.get(`room:${msg.room}`)?.length && msg.recent_chat?.length) {
        state.chats.set(`room:${msg.room}`, msg.recent_chat.map(({ from, text, at_ms, line }) => ({ from, text, at_ms, line })));
      }
      break;
    case 'room_joined':
      if (state.room?.room === msg.room) upsert(state.room.users, 'user', msg.player);
      break;
    case 'room_left':
      if (state.room?.room === msg.room) state.room.users = state.room.users.filter((u) => u.user !== msg.user);
      break;
    case 'table_updated':
      state.tables.set(msg.table.table, msg.table);
      break;
    case 'game_state':
      state.games.set(msg.state.game, gameFromState(msg.state));
      break;
    case 'game_event': {
      const game = state.games.get(msg.game);
      if (game) applyGameEvent(game, msg);
      break;
    }
    case 'watchers': {
      // Not a game event (no seq): the latest push replaces the counts, and the names when it has
      // them (the server leaves them out when only the counts changed).
      const game = state.games.get(msg.game);
      if (game) {
        const watchers = msg.watchers ?? game.watching?.watchers ?? [];
        game.watching = watchingFrom({ ...msg, watchers });
        game.watchersCount = msg.watchers_count;
      }
      break;
    }
    case 'challenged':
      state.challenges.push({ challenge: msg.challenge, from: msg.from, settings: msg.settings });
      break;
    case 'challenge_declined':
      state.notices.push({ key: 'challenge.declined' });
      break;
    case 'balance':
      state.balance = msg.balance;
      state.taxBp = msg.tax_bp;
      // A pending grant's account holds nothing until the grant lands (it can neither bet nor stake).
      if (msg.balance > 0) state.pendingGrant = 0;
      break;
    case 'bet_placed':
      state.balance = msg.balance;
      state.myBets.set(msg.game, { side: msg.side, total: msg.total });
      break;
    case 'stake_updated': {
      // Agreed stakes stay mine after I stand up, until they come back (see `balanceMoves`).
      const before = state.stakes.get(msg.table);
      const mine = seatedAt(state, msg.table) || (!!before?.mine && !!before.stake?.agreed);
      state.stakes.set(msg.table, { stake: msg.stake, taxBp: msg.tax_bp, mine });
      break;
    }
    case 'pool':
      state.pools.set(msg.pool.game, msg.pool);
      break;
    case 'event':
    case 'event_list':
    case 'event_listed':
      applyEventMessage(state, msg);
      break;
    case 'chat':
      if (!chatHidden(state, msg.from.user)) addChat(state, channelKey(msg.channel), { from: msg.from, text: msg.text, at_ms: msg.at_ms, line: msg.line });
      break;
    case 'relations':
      state.relations = msg.relations;
      // Lines already shown from someone just muted or blocked go too.
      for (const [key, lines] of state.chats) state.chats.set(key, lines.filter((line) => !chatHidden(state, line.from.user)));
      break;
    case 'friend_presence': {
      const i = state.relations.friends.findIndex((f) => f.player.user === msg.friend.player.user);
      if (i >= 0) state.relations.friends[i] = msg.friend;
      break;
    }
    case 'friend_started_game':
      state.notices.push({ key: 'friends.started', params: { name: msg.friend.username, opponent: msg.opponent.username },
        href: `#/game/${msg.game}`, linkKey: 'friends.watch', testId: `friend-started-${msg.game}` });
      break;
    default:
      break;
  }
}
