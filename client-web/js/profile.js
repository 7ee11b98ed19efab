// A player's profile read for showing (the `profile` reply, protocol/README.md "Profiles"): the rating
// graph's geometry from the rating history, the rated record's rows and totals by board size, a place in
// an event in words, how long ago someone was last seen, each game's opponent and outcome for this
// player, and the games' pages joined. Pure functions (no DOM, no Date.now), shared by views/profile.js
// and the unit tests.

import { outcomeFromSgf } from './result.js';

/**
 * The graph's drawing box. The SVG stretches to its column (a 390 px phone or a desktop), so these are
 * only the units the points are placed in; the labels are HTML around it and keep their size.
 */
export const GRAPH_BOX = { width: 1000, height: 300, pad: 14 };

/**
 * Where each rating of `points` ({at_ms, rating, game}, oldest first) goes in the box: x by time, y by
 * rating (the highest at the top). Null when there is no point. A history on one instant (one game, or
 * games the same millisecond) is spread evenly instead; a rating that never moved is a level line in the
 * middle. `polyline` is the SVG points attribute; min/max and first/last are what the axes say.
 */
export function graphGeometry(points, box = GRAPH_BOX) {
  if (!points?.length) return null;
  const { width, height, pad } = box;
  const ratings = points.map((p) => p.rating);
  const min = Math.min(...ratings);
  const max = Math.max(...ratings);
  const first = points[0].at_ms;
  const last = points[points.length - 1].at_ms;
  const spanX = width - 2 * pad;
  const spanY = height - 2 * pad;
  const round = (v) => Math.round(v * 10) / 10;
  const xOf = (p, i) => {
    if (last > first) return pad + ((p.at_ms - first) / (last - first)) * spanX;
    return points.length === 1 ? width / 2 : pad + (i / (points.length - 1)) * spanX;
  };
  const yOf = (p) => (max > min ? pad + ((max - p.rating) / (max - min)) * spanY : height / 2);
  const placed = points.map((p, i) => ({ x: round(xOf(p, i)), y: round(yOf(p)), rating: p.rating, at_ms: p.at_ms, game: p.game }));
  return {
    width,
    height,
    min,
    max,
    first,
    last,
    from: points[0].rating,
    to: points[points.length - 1].rating,
    points: placed,
    polyline: placed.map((p) => `${p.x},${p.y}`).join(' '),
    // Where the lowest and highest ratings lie, for their guide lines.
    yMin: round(max > min ? pad + spanY : height / 2),
    yMax: round(max > min ? pad : height / 2),
  };
}

/**
 * The rated record as a table: a row per board size, smallest board first, each with its game count,
 * and the totals over every size.
 */
export function recordTable(record = []) {
  const rows = [...record]
    .sort((a, b) => a.size - b.size)
    .map((r) => ({ size: r.size, wins: r.wins, losses: r.losses, draws: r.draws, games: r.wins + r.losses + r.draws }));
  const total = rows.reduce((sum, r) => ({ wins: sum.wins + r.wins, losses: sum.losses + r.losses, draws: sum.draws + r.draws, games: sum.games + r.games }),
    { wins: 0, losses: 0, draws: 0, games: 0 });
  return { rows, total };
}

/** An English ordinal: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 102nd, 111th. */
export function ordinal(n) {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${{ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th'}`;
}

/** A place in an event: "2nd of 8", "第2名（共8人）". */
export function placeText(t, place, count) {
  return t('profile.place', { place, ordinal: ordinal(place), count });
}

/** Days after which "last seen" gives the date rather than how long ago. */
export const AGO_DAYS_MAX = 30;

/**
 * How long before `nowMs` the moment `thenMs` was, in the largest unit that fits: {unit: 'now'} under a
 * minute (a clock a little ahead of ours too), else minutes, hours or days with their count; null from
 * AGO_DAYS_MAX days on, when a date says more.
 */
export function agoParts(thenMs, nowMs) {
  const minutes = Math.floor((nowMs - thenMs) / 60000);
  if (minutes < 1) return { unit: 'now', count: 0 };
  if (minutes < 60) return { unit: 'minutes', count: minutes };
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return { unit: 'hours', count: hours };
  const days = Math.floor(hours / 24);
  return days < AGO_DAYS_MAX ? { unit: 'days', count: days } : null;
}

/**
 * A listed game ({game, black, white, result}) as `username` played it: their colour, the opponent's
 * name, and the outcome for them: 'win', 'loss', 'draw', 'void', 'playing' (no result yet), or null for a
 * result this client cannot read.
 */
export function gameFor(game, username) {
  const color = game.white === username && game.black !== username ? 'white' : 'black';
  const opponent = color === 'black' ? game.white : game.black;
  if (game.result == null) return { color, opponent, outcome: 'playing' };
  const read = outcomeFromSgf(game.result);
  const outcome = !read ? null
    : read.reason === 'void' ? 'void'
      : read.winner == null ? 'draw'
        : read.winner === color ? 'win' : 'loss';
  return { color, opponent, outcome };
}

/** The games shown: the profile's first page, then the pages asked for after it, each game once. */
export function joinGames(first = [], more = []) {
  const seen = new Set();
  return [...first, ...more].filter((g) => !seen.has(g.game) && seen.add(g.game));
}
