// Unit tests for the competitions model (js/events.js): folding the event messages into the state,
// the hall's groups, fractions as people write them, the user's board, when the director may start a
// round, and the standings' columns in ranking order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createState, applyMessage } from '../js/state.js';
import { formatFraction, groupEvents, myBoard, nextRoundState, standingsColumns, playersOf, boardWinner } from '../js/events.js';

const player = (user, username) => ({ user, username, rank: '?', rating: 1500 });
const summary = (event, status, extra = {}) => ({ event, name: `e${event}`, director: player(1, 'alice'), format: { kind: 'swiss', rounds: 3, out_after_losses: null, ranking: 'total_score' }, status, entrants_count: 2, players_max: 8, rounds_count: 0, ...extra });
const view = (status, rounds, extra = {}) => ({
  summary: summary(7, status, { rounds_count: rounds.length, ...extra }),
  final_tie: 'stands',
  entrants: [{ player: player(2, 'bob'), warnings: 0, withdrawn: false }, { player: player(3, 'carol'), warnings: 0, withdrawn: false }],
  rounds,
  standings: { criteria: ['score', 'warnings'], final_tie: 'stands', highest_score: 0, rounds: rounds.length, rows: [] },
  winner: null,
  log: [],
});
const board = (n, black, white, game, outcome = null) => ({ board: n, black, white, game, outcome });

test('fractions read as whole numbers and proper fractions, with a true minus sign', () => {
  assert.equal(formatFraction({ num: 38, den: 3 }), '12 2/3');
  assert.equal(formatFraction({ num: 12, den: 1 }), '12');
  assert.equal(formatFraction({ num: 2, den: 3 }), '2/3');
  assert.equal(formatFraction({ num: 6, den: 4 }), '1 1/2');
  assert.equal(formatFraction({ num: 0, den: 5 }), '0');
  assert.equal(formatFraction({ num: -1, den: 1 }), '−1');
  assert.equal(formatFraction({ num: -4, den: 3 }), '−1 1/3');
  assert.equal(formatFraction({ num: -1, den: 3 }), '−1/3');
  assert.equal(formatFraction({ num: 1, den: 0 }), '?');
  assert.equal(formatFraction(null), '?');
});

test('the list, its pushes and whole events fold into the state; the hall groups them newest first', () => {
  const state = createState();
  applyMessage(state, { type: 'event_list', id: 1, events: [summary(1, 'open'), summary(2, 'playing'), summary(3, 'finished')] });
  applyMessage(state, { type: 'event_listed', event: summary(4, 'open') });
  applyMessage(state, { type: 'event_listed', event: summary(2, 'between_rounds') });
  const groups = groupEvents(state.events.list);
  assert.deepEqual(groups.open.map((e) => e.event), [4, 1]);
  assert.deepEqual(groups.running.map((e) => [e.event, e.status]), [[2, 'between_rounds']]);
  assert.deepEqual(groups.finished.map((e) => e.event), [3]);
  assert.equal(state.events.listedPushes.get(2), 1);
  // A whole event (reply or push) is kept, and updates the hall's line without counting as a push.
  applyMessage(state, { type: 'event', event: view('playing', []) });
  assert.equal(state.events.views.get(7).summary.status, 'playing');
  assert.equal(state.events.list.get(7).status, 'playing');
  assert.equal(state.events.listedPushes.get(7), undefined);
});

test('my board is the one of the latest round whose game has no result', () => {
  const rounds = [{ number: 1, boards: [board(1, 2, 3, 10, 'black_wins')], byes: [], resting: [] },
    { number: 2, boards: [board(1, 4, 5, 12), board(2, 3, 2, 11)], byes: [], resting: [] }];
  assert.deepEqual(myBoard(view('playing', rounds), 2), { round: 2, board: 2, game: 11 });
  assert.equal(myBoard(view('playing', rounds), 9), null);
  assert.equal(myBoard(view('playing', rounds), null), null);
  rounds[1].boards[1].outcome = 'white_wins';
  assert.equal(myBoard(view('between_rounds', rounds), 2), null);
  assert.equal(myBoard(view('open', []), 2), null);
});

test('the director may start a round when the event is open with two players or between rounds, and is told why not', () => {
  assert.deepEqual(nextRoundState(view('open', [])), { ok: true, round: 1 });
  assert.deepEqual(nextRoundState(view('open', [], { entrants_count: 1 })), { ok: false, round: 1, reason: 'event.why.fewPlayers', vars: { count: 1 } });
  const playing = [{ number: 1, boards: [board(1, 2, 3, 10, 'draw'), board(2, 4, 5, 11)], byes: [], resting: [] }];
  assert.deepEqual(nextRoundState(view('playing', playing)), { ok: false, round: 2, reason: 'event.why.inPlay', vars: { round: 1, done: 1, total: 2 } });
  assert.deepEqual(nextRoundState(view('between_rounds', playing)), { ok: true, round: 2 });
  assert.equal(nextRoundState(view('finished', playing)).reason, 'event.why.over');
});

test('standings columns follow the criteria, always with score and W/D/L', () => {
  const row = { score: 6, wins: 3, draws: 0, losses: 1, opponents_score: 10, beaten_opponents_score: { num: 17, den: 2 }, total_score: { num: 38, den: 3 }, warnings: 1, eliminated: true, eliminated_in: 3 };
  const read = (criteria) => standingsColumns(criteria).map((c) => [c.id, c.read(row)]);
  assert.deepEqual(read(['score', 'beaten_opponents_score', 'warnings']), [['score', '6'], ['beaten_opponents_score', '8 1/2'], ['warnings', '1'], ['wdl', '3/0/1']]);
  assert.deepEqual(read(['total_score', 'warnings']), [['total_score', '12 2/3'], ['warnings', '1'], ['score', '6'], ['wdl', '3/0/1']]);
  assert.deepEqual(read(['survival', 'score', 'warnings'])[0], ['survival', { key: 'event.outIn', vars: { round: 3 } }]);
  assert.deepEqual(read(['score', 'opponents_score', 'warnings']).map(([id]) => id), ['score', 'opponents_score', 'warnings', 'wdl']);
  // A figure newer than this client shows as sent.
  assert.deepEqual(read(['score', 'board_points'])[1], ['board_points', '—']);
  assert.deepEqual(standingsColumns(['median']).map((c) => c.read({ median: { num: 7, den: 2 } }))[0], '3 1/2');
});

test('players are named from the entrants and the director; boards say who won', () => {
  const names = playersOf(view('open', []));
  assert.deepEqual([...names.keys()].sort(), [1, 2, 3]);
  assert.equal(boardWinner(board(1, 2, 3, 1, 'white_wins')), 'white');
  assert.equal(boardWinner(board(1, 2, 3, 1, 'both_lose')), 'both_lose');
  assert.equal(boardWinner(board(1, 2, 3, 1)), null);
});
