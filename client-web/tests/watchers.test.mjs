// Unit tests for the watcher list: what the game view shows of a game's watchers (names, the folded rest,
// the ones the server counted without naming, guests), and the model following `game_state` and the
// `watchers` pushes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { watchersSummary } from '../js/views/watchers.js';
import { createState, applyMessage, gameFromState } from '../js/state.js';

const person = (n) => ({ user: 100 + n, username: `w${n}`, rank: '1k', rating: 1500 });
const people = (count) => Array.from({ length: count }, (_, n) => person(n));

test('a few watchers are all named, guests are counted apart', () => {
  const s = watchersSummary({ count: 3, anonymous: 1, watchers: people(2) });
  assert.deepEqual(s.shown.map((p) => p.username), ['w0', 'w1']);
  assert.equal(s.more, 0);
  assert.equal(s.anonymous, 1);
  assert.equal(s.empty, false);
});

test('beyond the names shown, the rest fold into "and N more", with those the server did not name', () => {
  // The server named 100 of 140 people (5 of them guests); the view shows 12.
  const s = watchersSummary({ count: 140, anonymous: 5, watchers: people(100) }, 12);
  assert.equal(s.shown.length, 12);
  assert.equal(s.folded.length, 88);
  assert.equal(s.more, 88 + 35);
  assert.equal(s.anonymous, 5);
});

test('nobody watching, and a server that sends no list at all', () => {
  assert.equal(watchersSummary({ count: 0, anonymous: 0, watchers: [] }).empty, true);
  const old = watchersSummary({});
  assert.equal(old.empty, true);
  assert.equal(old.more, 0);
});

const state = {
  game: 7, seq: 2, table: 1,
  black: { user: 1, username: 'alice', rank: '?', rating: 1500 },
  white: { user: 2, username: 'bob', rank: '?', rating: 1500 },
  settings: { size: 9, komi_half_points: 15, handicap: 0, ko_rule: 'positional', clock: { kind: 'none' }, nigiri: false },
  nigiri_seed: null, phase: 'playing', to_move: 'black', board: Array(9).fill('.........'),
  captures_black: 0, captures_white: 0, moves_count: 0, dead: [], accepted_black: false, accepted_white: false, outcome: null,
  watchers_count: 2, anonymous_watchers_count: 1, watchers: [person(1)],
};

test('the model takes the list from the snapshot, then from each push', () => {
  const s = createState();
  applyMessage(s, { type: 'game_state', state });
  assert.deepEqual(s.games.get(7).watching, { count: 2, anonymous: 1, watchers: [person(1)] });
  applyMessage(s, { type: 'watchers', game: 7, watchers_count: 3, anonymous_watchers_count: 0, watchers: people(3) });
  const game = s.games.get(7);
  assert.equal(game.watchersCount, 3);
  assert.deepEqual(game.watching.watchers.map((p) => p.username), ['w0', 'w1', 'w2']);
  // A push without names changes the counts and keeps the names held.
  applyMessage(s, { type: 'watchers', game: 7, watchers_count: 5, anonymous_watchers_count: 2 });
  assert.equal(game.watchersCount, 5);
  assert.deepEqual(game.watching, { count: 5, anonymous: 2, watchers: people(3) });
  // A push for a game this client does not follow changes nothing.
  applyMessage(s, { type: 'watchers', game: 8, watchers_count: 1, anonymous_watchers_count: 1, watchers: [] });
  assert.equal(s.games.has(8), false);
});

test('a snapshot from a server without the list still gives an empty one', () => {
  const { anonymous_watchers_count: _a, watchers: _w, ...old } = state;
  assert.deepEqual(gameFromState(old).watching, { count: 2, anonymous: 0, watchers: [] });
});
