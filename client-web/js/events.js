// Competitions as the client knows them: the hall's list of events (from `event_list` and the
// `event_listed` pushes) and the whole view of each event opened (from `event`, a reply or a push), and
// the pure readings the event screens make of them: exact fractions as "12 2/3", who is who, the
// user's own board in the round in play, and whether (and why not) the director can start a round.
// No socket and no DOM here: `state.js` folds the messages in through `applyEventMessage`.

/**
 * The part of the state this module keeps: summaries by event id, whole views of events opened, and
 * how many `event_listed` pushes each event had (a change that someone not sent the whole event hears of).
 */
export function createEventsState() {
  return { list: new Map(), views: new Map(), listedPushes: new Map() };
}

/** Fold an `event_list`, `event_listed` or `event` message into `state.events`. */
export function applyEventMessage(state, msg) {
  const events = state.events;
  switch (msg.type) {
    case 'event_list':
      events.list = new Map(msg.events.map((e) => [e.event, e]));
      break;
    case 'event_listed':
      events.list.set(msg.event.event, msg.event);
      events.listedPushes.set(msg.event.event, (events.listedPushes.get(msg.event.event) ?? 0) + 1);
      break;
    case 'event':
      events.views.set(msg.event.summary.event, msg.event);
      events.list.set(msg.event.summary.event, msg.event.summary);
      break;
    default:
      break;
  }
}

/** The hall's three lists: open for entries, running (a round in play or between rounds), finished; newest first. */
export function groupEvents(list) {
  const groups = { open: [], running: [], finished: [] };
  const newestFirst = [...list.values()].sort((a, b) => b.event - a.event);
  for (const e of newestFirst) {
    if (e.status === 'open') groups.open.push(e);
    else if (e.status === 'finished') groups.finished.push(e);
    else groups.running.push(e);
  }
  return groups;
}

/**
 * An exact fraction {num, den} as people write it: "12", "2/3", "12 2/3", "−1 1/3" (a true minus
 * sign). Anything that is not a fraction with a positive denominator shows as "?".
 */
export function formatFraction(f) {
  if (!f || !Number.isInteger(f.num) || !Number.isInteger(f.den) || f.den <= 0) return '?';
  const sign = f.num < 0 ? '−' : '';
  const n = Math.abs(f.num);
  const whole = Math.floor(n / f.den);
  const rest = n % f.den;
  if (rest === 0) return `${sign}${whole}`;
  const g = gcd(rest, f.den);
  const part = `${rest / g}/${f.den / g}`;
  return whole === 0 ? `${sign}${part}` : `${sign}${whole} ${part}`;
}

function gcd(a, b) {
  return b === 0 ? a : gcd(b, a % b);
}

/** user id → PlayerInfo for everyone the event names (its entrants and its director). */
export function playersOf(view) {
  const players = new Map([[view.summary.director.user, view.summary.director]]);
  for (const e of view.entrants) players.set(e.player.user, e.player);
  return players;
}

/** Whether `user` is entered in the event (withdrawn or not). */
export function isEntrant(view, user) {
  return user != null && view.entrants.some((e) => e.player.user === user);
}

/** The round being played or last played, or null before round 1. */
export function currentRound(view) {
  return view.rounds.length ? view.rounds[view.rounds.length - 1] : null;
}

/** The user's board in the latest round, while its game has no result: {round, board, game}, else null. */
export function myBoard(view, user) {
  const round = currentRound(view);
  if (user == null || !round) return null;
  const board = round.boards.find((b) => (b.black === user || b.white === user) && b.outcome == null);
  return board ? { round: round.number, board: board.board, game: board.game } : null;
}

/**
 * Whether the director may start the next round now: {ok: true, round: n} or {ok: false, reason, vars}
 * where `reason` is an i18n key saying why not (the same refusals the server makes, said beforehand).
 */
export function nextRoundState(view) {
  const next = view.rounds.length + 1;
  const { status, entrants_count: entrants } = view.summary;
  if (status === 'finished') return { ok: false, round: next, reason: 'event.why.over', vars: {} };
  if (status === 'open' && entrants < 2) return { ok: false, round: next, reason: view.summary.teams ? 'event.why.fewTeams' : 'event.why.fewPlayers', vars: { count: entrants } };
  const round = currentRound(view);
  if (status === 'playing' && round) {
    const done = round.boards.filter((b) => b.outcome != null).length;
    return { ok: false, round: next, reason: 'event.why.inPlay', vars: { round: round.number, done, total: round.boards.length } };
  }
  return { ok: true, round: next };
}

/** Which player won a board: 'black', 'white', 'draw', 'both_lose', or null while it is played. */
export function boardWinner(board) {
  switch (board.outcome) {
    case 'black_wins': return 'black';
    case 'white_wins': return 'white';
    case 'draw': return 'draw';
    case 'both_lose': return 'both_lose';
    default: return null;
  }
}

/**
 * The standings' figure columns, in ranking order: the event's criteria, then score and W/D/L when the
 * criteria leave them out (every table shows them). Each is an i18n key suffix and a reader of a row.
 */
export function standingsColumns(criteria) {
  const readers = {
    survival: (row) => (row.eliminated ? { key: 'event.outIn', vars: { round: row.eliminated_in ?? '?' } } : { key: 'event.stillIn', vars: {} }),
    score: (row) => String(row.score),
    beaten_opponents_score: (row) => formatFraction(row.beaten_opponents_score),
    total_score: (row) => formatFraction(row.total_score),
    opponents_score: (row) => String(row.opponents_score),
    warnings: (row) => String(row.warnings),
  };
  // A figure this client does not know yet still shows, as the server sends it.
  const raw = (c) => (row) => (typeof row[c] === 'object' && row[c] !== null ? formatFraction(row[c]) : String(row[c] ?? '—'));
  const columns = criteria.map((c) => ({ id: c, read: readers[c] ?? raw(c) }));
  if (!criteria.includes('score')) columns.push({ id: 'score', read: readers.score });
  columns.push({ id: 'wdl', read: (row) => `${row.wins}/${row.draws}/${row.losses}` });
  return columns;
}

/** Every rank the server knows, weakest first: 30k..1k, 1d..9d (for entry ranges and a stated rank). */
export const RANKS_WEAKEST_FIRST = [...Array.from({ length: 30 }, (_, i) => `${30 - i}k`), ...Array.from({ length: 9 }, (_, i) => `${i + 1}d`)];
