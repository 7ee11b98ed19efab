// Unit tests for what a profile shows, read from the `profile` reply without a browser: the rating
// graph's geometry (time across, rating up, flat and single-point histories), the rated record's rows and
// totals by board size, a place in words in both languages, "last seen" as how long ago, each game as the
// player saw it, the pages of games joined, and the profile's address for names in any script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { graphGeometry, GRAPH_BOX, recordTable, ordinal, placeText, agoParts, gameFor, joinGames } from '../js/profile.js';
import { profileHref } from '../js/views/player-link.js';
import { translator } from '../js/i18n.js';

const DAY = 24 * 3600 * 1000;
const point = (day, rating, game = day) => ({ game, at_ms: 1767000000000 + day * DAY, rating });

test('the graph places ratings by time across and by rating up, inside the padding', () => {
  const box = { width: 100, height: 50, pad: 5 };
  const g = graphGeometry([point(0, 1500), point(1, 1600), point(4, 1400)], box);
  assert.equal(g.min, 1400);
  assert.equal(g.max, 1600);
  assert.equal(g.from, 1500);
  assert.equal(g.to, 1400);
  assert.equal(g.first, point(0, 0).at_ms);
  assert.equal(g.last, point(4, 0).at_ms);
  // x: 5 + day/4 * 90; y: 5 + (1600 - r)/200 * 40 (the highest rating at the top).
  assert.deepEqual(g.points.map(({ x, y }) => [x, y]), [[5, 25], [27.5, 5], [95, 45]]);
  assert.equal(g.polyline, '5,25 27.5,5 95,45');
  assert.equal(g.yMax, 5);
  assert.equal(g.yMin, 45);
  assert.deepEqual(g.points.map((p) => p.game), [0, 1, 4]);
});

test('no point is no graph; one point sits in the middle; a flat history is a level line', () => {
  assert.equal(graphGeometry([]), null);
  assert.equal(graphGeometry(undefined), null);
  const one = graphGeometry([point(0, 1662)]);
  assert.deepEqual(one.points.map(({ x, y }) => [x, y]), [[GRAPH_BOX.width / 2, GRAPH_BOX.height / 2]]);
  assert.equal(one.min, 1662);
  assert.equal(one.max, 1662);
  const flat = graphGeometry([point(0, 1500), point(2, 1500)], { width: 100, height: 50, pad: 5 });
  assert.deepEqual(flat.points.map(({ x, y }) => [x, y]), [[5, 25], [95, 25]]);
});

test('games on one instant are spread evenly rather than drawn on top of each other', () => {
  const g = graphGeometry([point(0, 1500, 1), point(0, 1550, 2), point(0, 1525, 3)], { width: 100, height: 50, pad: 5 });
  assert.deepEqual(g.points.map((p) => p.x), [5, 50, 95]);
  // Every point stays in the box whatever the ratings.
  for (const p of graphGeometry([point(0, 10), point(1, 3000), point(2, -40)]).points) {
    assert.ok(p.x >= 0 && p.x <= GRAPH_BOX.width && p.y >= 0 && p.y <= GRAPH_BOX.height, JSON.stringify(p));
  }
});

test('the rated record: a row per size, smallest first, with its games, and the totals', () => {
  const { rows, total } = recordTable([
    { size: 19, wins: 3, losses: 1, draws: 0 },
    { size: 9, wins: 1, losses: 2, draws: 1 },
    { size: 13, wins: 0, losses: 0, draws: 2 },
  ]);
  assert.deepEqual(rows.map((r) => r.size), [9, 13, 19]);
  assert.deepEqual(rows[0], { size: 9, wins: 1, losses: 2, draws: 1, games: 4 });
  assert.deepEqual(total, { wins: 4, losses: 3, draws: 3, games: 10 });
  assert.deepEqual(recordTable([]), { rows: [], total: { wins: 0, losses: 0, draws: 0, games: 0 } });
  assert.deepEqual(recordTable(), { rows: [], total: { wins: 0, losses: 0, draws: 0, games: 0 } });
});

test('a place in words: English ordinals, and the Chinese form', () => {
  const cases = { 1: '1st', 2: '2nd', 3: '3rd', 4: '4th', 10: '10th', 11: '11th', 12: '12th', 13: '13th', 21: '21st', 22: '22nd', 23: '23rd', 101: '101st', 111: '111th', 112: '112th' };
  for (const [n, text] of Object.entries(cases)) assert.equal(ordinal(Number(n)), text);
  assert.equal(placeText(translator('en'), 2, 8), '2nd of 8');
  assert.equal(placeText(translator('en'), 1, 2), '1st of 2');
  assert.equal(placeText(translator('zh'), 2, 8), '第2名（共8人）');
});

test('last seen: just now, minutes, hours, days, then a date', () => {
  const now = 1767000000000;
  assert.deepEqual(agoParts(now - 20000, now), { unit: 'now', count: 0 });
  assert.deepEqual(agoParts(now + 5000, now), { unit: 'now', count: 0 }, 'a clock ahead of ours');
  assert.deepEqual(agoParts(now - 60000, now), { unit: 'minutes', count: 1 });
  assert.deepEqual(agoParts(now - 59 * 60000, now), { unit: 'minutes', count: 59 });
  assert.deepEqual(agoParts(now - 3 * 3600000 - 1000, now), { unit: 'hours', count: 3 });
  assert.deepEqual(agoParts(now - 2 * DAY, now), { unit: 'days', count: 2 });
  assert.equal(agoParts(now - 30 * DAY, now), null);
  const en = translator('en');
  assert.equal(en('profile.ago.minutes', { count: 1 }), '1 minute ago');
  assert.equal(en('profile.ago.hours', { count: 3 }), '3 hours ago');
  assert.equal(translator('zh')('profile.ago.days', { count: 2 }), '2 天前');
});

test('each game as the player played it: colour, opponent, and the outcome for them', () => {
  const game = (result, black = 'alice', white = 'bob') => ({ game: 1, black, white, size: 9, result, started_at_ms: 0 });
  assert.deepEqual(gameFor(game('B+R'), 'alice'), { color: 'black', opponent: 'bob', outcome: 'win' });
  assert.deepEqual(gameFor(game('B+R'), 'bob'), { color: 'white', opponent: 'alice', outcome: 'loss' });
  assert.deepEqual(gameFor(game('W+3.5'), 'bob'), { color: 'white', opponent: 'alice', outcome: 'win' });
  assert.equal(gameFor(game('0'), 'alice').outcome, 'draw');
  assert.equal(gameFor(game('Void'), 'alice').outcome, 'void');
  assert.equal(gameFor(game(null), 'bob').outcome, 'playing');
  assert.equal(gameFor(game('?'), 'bob').outcome, null);
  assert.deepEqual(gameFor(game('W+T', '棋圣', 'بهرام'), 'بهرام'), { color: 'white', opponent: '棋圣', outcome: 'win' });
});

test('pages of games join newest first, each game once', () => {
  const g = (game) => ({ game });
  assert.deepEqual(joinGames([g(30), g(29)], [g(29), g(28), g(27)]).map((x) => x.game), [30, 29, 28, 27]);
  assert.deepEqual(joinGames([], []), []);
  assert.deepEqual(joinGames(undefined, [g(1)]).map((x) => x.game), [1]);
});

test('a profile address keeps any name whole: scripts, spaces and the route\'s own characters', () => {
  assert.equal(profileHref('alice'), '#/user/alice');
  assert.equal(profileHref('棋圣'), '#/user/%E6%A3%8B%E5%9C%A3');
  assert.equal(profileHref('a/b#c%'), '#/user/a%2Fb%23c%25');
  for (const name of ['棋圣', 'بهرام', 'a/b#c%', 'x y']) assert.equal(decodeURIComponent(profileHref(name).slice('#/user/'.length)), name);
});
