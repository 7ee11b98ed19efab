// The application shell: routes (#/, #/room/1, #/table/3, #/game/12, #/bets, #/games, #/replay/12,
// #/study, #/events, #/event/4, #/user/<name>, #/moderation) to views, turns view actions into requests through `net`, feeds every server message into
// `state`, re-renders the current view, and re-subscribes after a reconnect. The only module that knows all the others.

import { Connection, RequestError } from './net.js';
import { stakeOfferProblem, positiveProblem } from './amounts.js';
import { createState, applyMessage, balanceMoves, myLiveGame } from './state.js';
import { translator, detectLanguage } from './i18n.js';
import { h, fill, userName } from './dom.js';
import { mountLogin } from './views/login.js';
import { mountHall } from './views/hall.js';
import { mountTable } from './views/table.js';
import { mountGame } from './views/game.js';
import { mountMyBets } from './views/mybets.js';
import { mountGames } from './views/games.js';
import { mountReplay } from './views/replay.js';
import { mountStudy } from './views/study.js';
import { openChallengeDialog, openChallengedDialog, openReportDialog } from './views/dialogs.js';
import { mountModeration } from './views/moderation.js';
import { mountEvent } from './views/event.js';
import { mountProfile } from './views/profile.js';
import { eventActions, mountEvents } from './views/events.js';
import { createSounds } from './sound.js';
import { sameSettings } from './views/settings.js';

const LANG_KEY = 'tengen.lang';
const state = createState();
let lang = localStorage.getItem(LANG_KEY) ?? detectLanguage(navigator.languages ?? [navigator.language]);
let t = translator(lang);
let guest = false;
// Stones, captures and byo-yomi calls; muted per browser (the switch in the top bar).
const sounds = createSounds({ storage: localStorage });
let view = null;
let viewKey = '';
// What the current screen follows, so a reconnect can ask for it again.
const following = { room: null, table: null, games: new Set(), event: null, profile: null };
// Whether this user waits in the automatch queue; a game of theirs starting ends the wait.
let automatchSearching = false;
// A rematch the left seat (Black) asked for: {table, settings}, accepted when White proposes the same.
let pendingRematch = null;

const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
const net = new Connection({
  url: wsUrl,
  storage: localStorage,
  onMessage: (msg) => {
    // Points that moved without a new balance: ask for it (judged before the message changes the state).
    const moved = balanceMoves(state, msg);
    if (moved) net.refreshBalance({ soon: moved === 'soon' });
    applyMessage(state, msg);
    if (msg.type === 'game_started') following.games.add(msg.game);
    if (msg.type === 'game_started' && isMine(msg)) automatchSearching = false;
    // A game starting at the table I look at, or one I play anywhere, opens at once.
    if (msg.type === 'game_started' && (following.table === msg.table || isMine(msg))) location.hash = `#/game/${msg.game}`;
    if (msg.type === 'challenged') answerChallenges();
    if (msg.type === 'table_updated') acceptRematchIfProposed(msg.table.table);
    // The screen on show hears the message as it comes (a move's sound), before the batched redraw.
    view?.onMessage?.(msg);
    // Logged out on another tab or device: back to the login screen (the notice says why).
    if (msg.type === 'logged_out') {
      automatchSearching = false;
      guest = false;
      location.hash = '#/';
      route(true);
    }
    scheduleRender();
  },
  onStatus: (status) => {
    state.connection = status;
    if (status !== 'online') ready = false;
    renderHeader();
  },
  onReady: async ({ session }) => {
    if (session) applyMessage(state, session);
    await resubscribe();
    ready = true;
    for (const wake of readyWaiters.splice(0)) wake();
    route();
  },
});

const online = () => state.connection === 'online';
// Set once a (re)connection has said hello, resumed and re-subscribed; logging in waits for it, so the
// hall is known when it lands the user in a room.
let ready = false;
const readyWaiters = [];
const untilReady = () => (ready ? Promise.resolve() : new Promise((wake) => readyWaiters.push(wake)));
const isMine = (msg) => state.me && (msg.black.user === state.me.user || msg.white.user === state.me.user);

async function resubscribe() {
  const quiet = (p) => p.catch(() => {});
  await quiet(net.request({ type: 'enter_hall' }));
  if (following.room) await quiet(net.request({ type: 'join_room', room: following.room }));
  if (following.table) await quiet(net.request({ type: 'join_table', table: following.table }));
  for (const game of following.games) await net.request({ type: 'watch', game }).catch((err) => notLive(game, err, true));
  // Competitions: the hall's list, and the event on screen (its pushes were missed while offline).
  await quiet(net.request({ type: 'list_events' }));
  if (following.event) await quiet(net.request({ type: 'get_event', event: following.event }));
  // My friends (online now?), blocked and muted players: asked afresh, the pushes were missed.
  if (state.me) await quiet(net.request({ type: 'relations' }));
  // A profile is a snapshot, not a subscription: asked afresh (online, last seen, new games).
  if (following.profile) await askProfile(following.profile);
}

/** Ask for `username`'s profile into `state.profiles` (keyed by the name as the route has it). */
async function askProfile(username) {
  try {
    const reply = await net.request({ type: 'profile', username });
    state.profiles.set(username, { profile: reply.profile });
  } catch (err) {
    // A lost connection keeps the profile shown; the reconnect asks again.
    if (err.code === 'no_such_user' || !state.profiles.get(username)?.profile) state.profiles.set(username, { error: err });
  }
  scheduleRender();
}

function errorText(err) {
  const key = `error.${err.code}`;
  // The server's sentence goes into the texts that show it (a refused SGF says where and why,
  // a refused username what to change or whose name it passes for).
  const text = t(key, { message: err.message });
  return text === key ? t('error.generic', { message: err.message }) : text;
}

/** Refuse, as the server would but with its own text, amounts that must not be sent (see amounts.js). */
function refuseLocally(code) {
  if (code) throw new RequestError(code, code);
}

const send = (msg) => net.request(msg);
// Moves, bets and stake raises: keyed, and sent again with their key when the server could not take them.
const sendKeyed = (msg) => net.requestKeyed(msg);
const actions = {
  errorText,
  // A question a view asks of its own (once connected): the server's reply message, or its error. A view
  // whose request changes nothing else shown needs no action of its own here.
  ask: (msg) => untilReady().then(() => send(msg)),
  async login(username, password) {
    await untilReady();
    applyMessage(state, await net.authenticate({ type: 'login', username, password }));
    afterLogin();
  },
  async register(username, password, rank) {
    await untilReady();
    applyMessage(state, await net.authenticate({ type: 'register', username, password, ...(rank ? { rank } : {}) }));
    afterLogin();
  },
  guest() {
    guest = true;
    route(true);
  },
  async logout(everywhere = false) {
    await net.logout(everywhere ? 'logout_all' : 'logout').catch(() => {});
    state.me = null;
    automatchSearching = false;
    guest = false;
    location.hash = '#/';
    route(true);
  },
  // Subscriptions are remembered in `following`; when the connection is not up yet (a page load, a
  // reconnect in progress) `resubscribe` sends them once it is.
  joinRoom(room) {
    following.room = room;
    if (online()) send({ type: 'join_room', room }).catch(toast);
  },
  joinTable(table) {
    following.table = table;
    if (online()) send({ type: 'join_table', table }).catch(toast);
  },
  leaveTable(table) {
    const room = state.tables.get(table)?.room ?? following.room;
    following.table = null;
    send({ type: 'leave_table', table }).catch(() => {});
    location.hash = room ? `#/room/${room}` : '#/';
  },
  sit: (table, seat) => send({ type: 'sit', table, seat }).catch(toast),
  stand: (table) => send({ type: 'stand', table }).catch(toast),
  propose: (table, settings) => send({ type: 'propose_settings', table, settings }).catch(toast),
  acceptSettings: (table, settings) => send({ type: 'accept_settings', table, settings }).catch(toast),
  watch(game) {
    following.games.add(game);
    if (online() && !state.games.has(game)) send({ type: 'watch', game }).catch((err) => notLive(game, err));
  },
  unwatch(game) {
    following.games.delete(game);
    state.games.delete(game);
    send({ type: 'unwatch', game }).catch(() => {});
  },
  play: (game, point) => sendKeyed({ type: 'play', game, point }),
  pass: (game) => sendKeyed({ type: 'pass', game }),
  resign: (game) => sendKeyed({ type: 'resign', game }),
  toggleDead: (game, point) => send({ type: 'toggle_dead', game, point }),
  // The marking as shown: if the opponent toggled meanwhile, the server refuses (marking_changed).
  acceptScore: (game, dead) => send({ type: 'accept_score', game, dead }),
  resumePlay: (game) => send({ type: 'resume_play', game }),
  undo: (game) => send({ type: 'undo', game }),
  answerUndo: (game, yes) => send({ type: yes ? 'accept_undo' : 'decline_undo', game }),
  // The pool and bets (the ledger's messages): a server without them answers unknown_type, and the pool
  // panel simply stays hidden.
  askPool: (game) => send({ type: 'pool', game }).catch(() => {}),
  async bet(game, side, amount) {
    refuseLocally(positiveProblem(amount, 'bad_amount'));
    const placed = await sendKeyed({ type: 'bet', game, side, amount });
    toast({ text: t('pool.placed', { amount: placed.amount, side: t(`color.${placed.side}`), balance: placed.balance }) });
  },
  async stakeOffer(table, left, right, terms) {
    refuseLocally(stakeOfferProblem(left, right, terms));
    try {
      await send({ type: 'stake_offer', table, left, right, terms });
    } catch (err) {
      // The server's bad_amount here is a stake over its limit (the coach's 0 is checked above), not a bet.
      throw err.code === 'bad_amount' ? new RequestError('stake_amount', err.message) : err;
    }
  },
  stakeAnswer: (table, agree) => send({ type: 'stake_answer', table, agree }),
  // The same settings again at the table of a finished game: White proposes them; Black accepts them
  // now if White already did, or as soon as White does. Both go to the table meanwhile.
  async rematch(table, settings) {
    location.hash = `#/table/${table}`;
    const seats = state.tables.get(table);
    if (seats?.right?.user === state.me?.user) return send({ type: 'propose_settings', table, settings });
    pendingRematch = { table, settings };
    acceptRematchIfProposed(table);
  },
  rematchPending: (table) => pendingRematch?.table === table,
  async stakeRaise(game, amount) {
    refuseLocally(positiveProblem(amount, 'raise_amount'));
    await sendKeyed({ type: 'stake_raise', game, amount });
    toast({ text: t('stake.raised', { amount }) });
  },
  myBets() {
    // Settlements change the balance without a push; ask for it afresh beside the records.
    net.refreshBalance();
    return send({ type: 'my_bets' }).then((reply) => reply.records);
  },
  // Records: a user's games and one game's SGF.
  // These views ask on mount, which may come before the connection is up; they wait for it.
  // `before`: the next page, the games before that game id.
  listGames: (username, before) => untilReady().then(() => send({ type: 'list_games', username, ...(before != null ? { before } : {}) })).then((reply) => reply.games),
  // Players by the start of their name (the hall's search box).
  findPlayers: (prefix) => untilReady().then(() => send({ type: 'find_players', prefix })).then((reply) => reply.players),
  // Followed while on screen, so a reconnect asks again; before the first connection is ready, that is
  // what asks it.
  openProfile(username) {
    following.profile = username;
    if (ready) askProfile(username);
  },
  getRecord: (game) => untilReady().then(() => send({ type: 'get_record', game })).then((reply) => reply.sgf),
  // The study board: every request but the count answers with the board as it now stands.
  study: (msg) => untilReady().then(() => send(msg)).then((reply) => reply.study),
  studyCount: () => send({ type: 'study_count' }),
  automatchSearching: () => automatchSearching,
  automatch: (request) => send({ type: 'automatch', ...request }).then(() => { automatchSearching = true; }, toast),
  cancelAutomatch: () => send({ type: 'cancel_automatch' }).then(() => toast({ text: t('automatch.cancelled') }), (err) => {
    if (err.code !== 'not_there') toast(err);
  }).finally(() => { automatchSearching = false; }),
  chat: (channel, text) => send({ type: 'chat', channel, text }).catch(toast),
  // Follow, block, mute and their undoing (`kind` is the message's type); the reply, my lists as they
  // now stand, reaches the state as a data message.
  relation: (kind, username) => send({ type: kind, username }).catch(toast),
  ...eventActions({ send, untilReady, following, toast, go: (hash) => { location.hash = hash; } }),
  // Reports: a dialog asks the reason, then the server keeps the report for the moderators.
  reportLine(line) {
    report({ kind: 'chat_line', line: line.line }, t('report.whatLine', { name: line.from.username, text: line.text }));
  },
  reportUser: (username) => report({ kind: 'user', username }, t('report.whatUser', { name: username })),
  reportGame: (game) => report({ kind: 'game', game }, t('report.whatGame', { game })),
  // The moderators' queue and log (views/moderation.js); the server refuses anyone else.
  listReports: () => untilReady().then(() => send({ type: 'list_reports' })).then((reply) => reply.reports),
  moderationLog: (before) => untilReady().then(() => send({ type: 'moderation_log', ...(before != null ? { before } : {}) })).then((reply) => reply.entries),
  moderate: (act) => send({ type: 'moderate', ...act }),
  openChallenge(player) {
    openChallengeDialog({ t, player, onSend: (settings) => send({ type: 'challenge', user: player.user, settings })
      .then(() => toast({ text: t('challenge.sent', { name: player.username }) })).catch(toast) });
  },
};

function report(target, what) {
  openReportDialog({ t, what, onSend: (reason) => send({ type: 'report', target, reason })
    .then(() => toast({ text: t('report.sent') })).catch(toast) });
}

function afterLogin() {
  state.banned = null;
  send({ type: 'relations' }).catch(() => {});
  // A player back after closing the tab mid-game goes straight to the game, before its forfeit countdown
  // runs out (watching it again is what tells the server the player is back).
  const live = myLiveGame(state);
  if (live != null) location.hash = `#/game/${live}`;
  else if (!location.hash || location.hash === '#/' || location.hash === '#') {
    const firstRoom = state.hall.rooms[0]?.room;
    if (firstRoom) location.hash = `#/room/${firstRoom}`;
  }
  route(true);
}

/**
 * A game that is not live (any more): its page shows the record instead, result and replay (a finished
 * game's page reloaded, or its link opened later).
 */
function notLive(game, err, quietly = false) {
  if (err?.code !== 'no_such_game') {
    if (!quietly) toast(err);
    return;
  }
  following.games.delete(game);
  // A game shown and ended meanwhile (a reconnect after its end) keeps its final screen.
  if (location.hash === `#/game/${game}` && !state.games.has(game)) location.replace(`#/replay/${game}`);
  else if (!quietly) toast(err);
}

function acceptRematchIfProposed(tableId) {
  const table = state.tables.get(tableId);
  if (pendingRematch?.table !== tableId || table?.left?.user !== state.me?.user) return;
  if (table.game != null || !table.right) {
    pendingRematch = null; // a game started meanwhile, or White left: nothing to accept
    return;
  }
  if (!sameSettings(table.proposal, pendingRematch.settings)) return;
  pendingRematch = null;
  send({ type: 'accept_settings', table: tableId, settings: table.proposal }).catch(toast);
}

function answerChallenges() {
  const next = state.challenges.shift();
  if (!next) return;
  openChallengedDialog({ t, challenge: next, onAnswer: (yes) => send({ type: yes ? 'accept_challenge' : 'decline_challenge', challenge: next.challenge }).catch(toast) });
}

const toasts = h('div', { class: 'toasts', 'aria-live': 'polite' });
function toast(errOrNotice) {
  const text = errOrNotice?.text ?? (errOrNotice?.code ? errorText(errOrNotice) : String(errOrNotice));
  // A notice may offer a link (a friend's new game: watch it).
  const link = errOrNotice?.href ? h('a', { href: errOrNotice.href, class: 'toast-link' }, errOrNotice.linkText) : null;
  const node = h('div', { class: 'toast', 'data-testid': errOrNotice?.testId }, text, link ? ' ' : null, link);
  toasts.appendChild(node);
  setTimeout(() => node.remove(), errOrNotice?.href ? 10000 : 5000);
}

const header = h('header', { class: 'topbar' });
const main = h('div', { class: 'screen' });
document.body.append(header, main, toasts);

function renderHeader() {
  const c = state.connection;
  const status = c === 'online' ? ['online', t('conn.online')]
    : c === 'connecting' ? ['connecting', t('conn.connecting')]
      : ['offline', t('conn.offline', { seconds: Math.ceil((c?.retryInMs ?? 0) / 1000) })];
  fill(header,
    h('a', { class: 'brand', href: '#/' }, h('span', { class: 'brand-mark' }, '天元'), h('span', {}, ` ${t('app.title') === '天元' ? '' : 'Tengen '}${t('app.tagline')}`)),
    h('span', { class: `conn conn-${status[0]}`, 'data-testid': 'connection' }, status[1]),
    h('span', { class: 'spacer' }),
    state.me && state.balance != null ? h('a', { class: 'balance', href: '#/bets', 'data-testid': 'balance' }, t('balance.short', { balance: state.balance })) : null,
    state.me ? h('a', { class: 'me', href: '#/bets', 'data-testid': 'me' }, userName(state.me.username)) : null,
    state.me ? h('a', { class: 'small', href: '#/games', 'data-testid': 'nav-games' }, t('nav.games')) : null,
    state.me && state.me.role !== 'user' ? h('a', { class: 'small', href: '#/moderation', 'data-testid': 'nav-moderation' }, t('nav.moderation')) : null,
    h('a', { class: 'small', href: '#/study', 'data-testid': 'nav-study' }, t('nav.study')),
    h('button', { class: 'small', 'data-testid': 'sound-switch', 'aria-pressed': String(!sounds.muted()), title: t(sounds.muted() ? 'sound.unmute' : 'sound.mute'),
      onclick: () => { sounds.setMuted(!sounds.muted()); renderHeader(); } }, t(sounds.muted() ? 'sound.off' : 'sound.on')),
    state.me && state.pendingGrant ? h('span', { class: 'small', 'data-testid': 'pending-grant', title: t('balance.pending_hint') }, t('balance.pending', { points: state.pendingGrant })) : null,
    state.me ? h('button', { class: 'small', onclick: () => actions.logout() }, t('auth.logout')) : null,
    state.me ? h('button', { class: 'small', 'data-testid': 'logout-all', onclick: () => actions.logout(true) }, t('auth.logout_all')) : null,
    h('button', { class: 'small', 'data-testid': 'lang-switch', 'aria-label': t('lang.label'), onclick: switchLanguage }, t('lang.switch')));
}

function switchLanguage() {
  lang = lang === 'zh' ? 'en' : 'zh';
  localStorage.setItem(LANG_KEY, lang);
  t = translator(lang);
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  route(true);
}

function parseHash() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const id = Number(parts[1]);
  if (parts[0] === 'room' && id) return { name: 'hall', params: { room: id } };
  if (parts[0] === 'table' && id) return { name: 'table', params: { table: id } };
  if (parts[0] === 'game' && id) return { name: 'game', params: { game: id } };
  if (parts[0] === 'bets') return { name: 'bets', params: {} };
  if (parts[0] === 'study') return { name: 'study', params: {} };
  if (parts[0] === 'games') return { name: 'games', params: {} };
  if (parts[0] === 'replay' && id) return { name: 'replay', params: { game: id } };
  if (parts[0] === 'event' && id) return { name: 'event', params: { event: id } };
  if (parts[0] === 'events') return { name: 'events', params: {} };
  if (parts[0] === 'moderation') return { name: 'moderation', params: {} };
  if (parts[0] === 'user' && parts[1]) {
    // A name in any script comes encoded (player-link.js); a mangled one is a name nobody has.
    try {
      return { name: 'profile', params: { username: decodeURIComponent(parts[1]) } };
    } catch {
      return { name: 'profile', params: { username: parts[1] } };
    }
  }
  return { name: 'hall', params: {} };
}

function route(force = false) {
  let { name, params } = parseHash();
  if (!state.me && !guest && !['game', 'replay', 'study', 'event', 'profile'].includes(name)) name = 'login';
  const key = `${name}:${JSON.stringify(params)}:${lang}`;
  renderHeader();
  if (!force && key === viewKey) return render();
  view?.unmount();
  viewKey = key;
  if (name !== 'table') following.table = name === 'game' ? following.table : null;
  if (name !== 'event') following.event = null;
  if (name !== 'profile') following.profile = null;
  main.replaceChildren();
  const ctx = { state, t, actions, lang, sounds };
  const mount = { login: mountLogin, hall: mountHall, table: mountTable, game: mountGame, bets: mountMyBets, games: mountGames, replay: mountReplay, study: mountStudy, event: mountEvent, events: mountEvents, profile: mountProfile, moderation: mountModeration }[name];
  view = mount(main, ctx, params);
  render();
}

let renderQueued = false;
function scheduleRender() {
  if (renderQueued) return;
  renderQueued = true;
  // A macrotask rather than requestAnimationFrame: a burst of frames renders once, and a tab in the
  // background still keeps its state drawn.
  setTimeout(() => {
    renderQueued = false;
    render();
  }, 0);
}
function render() {
  renderHeader();
  view?.update();
  while (state.notices.length) {
    const notice = state.notices.shift();
    toast({ text: t(notice.key, { ...noticeVars(), ...notice.params }), href: notice.href, linkText: notice.linkKey && t(notice.linkKey), testId: notice.testId });
  }
}

/** What a notice may say of my mute or ban: why and until when. */
function noticeVars() {
  const until = (ms) => (ms ? new Date(ms).toLocaleString(lang === 'zh' ? 'zh-CN' : 'en-GB') : t('moderation.forever'));
  return {
    reason: state.muted?.reason ?? state.banned?.reason ?? '',
    until: until(state.muted?.until_ms ?? state.banned?.until_ms),
  };
}

document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
window.addEventListener('hashchange', () => route());
route();
net.connect();
// Exposed for debugging in the console and for the browser tests' waits; views never use it.
window.tengen = { state, net };
