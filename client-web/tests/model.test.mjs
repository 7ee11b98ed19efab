// Unit tests for the client's model: area counting for display, game events applied to a position, and the
// seq tracker that decides when to resync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { areaCount, halfPointsText } from '../js/score.js';
import { gameFromState, applyGameEvent, createState, applyMessage, outcomeReasonKey } from '../js/state.js';
import { SeqTracker, backoffMs } from '../js/net.js';

test('area count: stones, surrounded points, dame split, dead stones removed', () => {
  const board = ['.X.O.', '.X.O.', '.X.O.', '.X.O.', '.X.OX'];
  const plain = areaCount(board, []);
  // Black: 5 stones + column 0 (5) + the lone black stone; the middle column touches both (dame).
  // White: 4 stones + column 4 minus the black stone (4, touching only white? no: (4,3) touches (4,4) X).
  assert.equal(plain.owner[0][0], 'B');
  assert.equal(plain.owner[0][2], '');
  const withDead = areaCount(board, [{ col: 4, row: 4 }]);
  assert.equal(withDead.owner[4][4], 'W');
  assert.equal(withDead.owner[0][4], 'W');
  // 25 points in all, each counted once: the halves add up to 50.
  assert.equal(withDead.blackHalf + withDead.whiteHalf, 50);
  assert.equal(withDead.blackHalf, 2 * 10 + 5);
  assert.equal(withDead.whiteHalf, 2 * 10 + 5);
  assert.equal(halfPointsText(37), '18.5');
  assert.equal(halfPointsText(36), '18');
});

const state9 = {
  game: 7, seq: 2, table: 1,
  black: { user: 1, username: 'alice', rank: '?', rating: 1500 },
  white: { user: 2, username: 'bob', rank: '?', rating: 1500 },
  settings: { size: 9, komi_half_points: 15, handicap: 0, ko_rule: 'positional', clock: { kind: 'byo_yomi', main_time_ms: 600000, periods: 3, period_ms: 30000 }, nigiri: false },
  nigiri_seed: null, phase: 'playing', to_move: 'black',
  board: ['.........', '.........', '.........', '....O....', '...OX....', '.........', '.........', '.........', '.........'],
  captures_black: 0, captures_white: 0, moves_count: 2, dead: [], accepted_black: false, accepted_white: false, outcome: null, watchers_count: 2,
};

test('game events change the position: a capture, a pass, scoring, the result', () => {
  const game = gameFromState(state9);
  applyGameEvent(game, { seq: 3, event: 'played', color: 'black', point: { col: 4, row: 3 }, captured: [] }, Date.now());
  assert.equal(game.board[3], '....X....');
  assert.equal(game.toMove, 'white');
  applyGameEvent(game, { seq: 4, event: 'played', color: 'white', point: { col: 5, row: 4 }, captured: [] });
  applyGameEvent(game, { seq: 5, event: 'played', color: 'black', point: { col: 2, row: 4 }, captured: [{ col: 3, row: 4 }] });
  assert.equal(game.board[4], '..X.XO...');
  assert.equal(game.capturesBlack, 1);
  assert.deepEqual(game.lastMove, { point: { col: 2, row: 4 }, color: 'black' });
  applyGameEvent(game, { seq: 6, event: 'passed', color: 'white' });
  assert.equal(game.lastPass, 'white');
  assert.equal(game.movesCount, 6);
  applyGameEvent(game, { seq: 7, event: 'scoring_started', dead: [{ col: 5, row: 4 }] });
  assert.equal(game.phase, 'scoring');
  applyGameEvent(game, { seq: 8, event: 'score_accepted', color: 'black' });
  assert.ok(game.acceptedBlack);
  applyGameEvent(game, { seq: 9, event: 'dead_marked', by: 'white', dead: [] });
  assert.ok(!game.acceptedBlack);
  applyGameEvent(game, { seq: 10, event: 'ended', outcome: { winner: 'black', reason: 'score', sgf: 'B+4.5', chinese: '黑胜2又1/4子', black_count_half_points: 93, white_count_half_points: 69 } });
  assert.equal(game.phase, 'over');
  assert.equal(game.outcome.sgf, 'B+4.5');
});

test('the state follows the hall and chat', () => {
  const state = createState();
  applyMessage(state, { type: 'hall', rooms: [{ room: 1, name: 'Beginners', users_count: 1, tables_count: 2 }], players: [], games: [] });
  applyMessage(state, { type: 'player_online', player: { user: 3, username: 'carol', rank: '?', rating: 1500 } });
  applyMessage(state, { type: 'room_updated', room: { room: 1, name: 'Beginners', users_count: 4, tables_count: 2 } });
  applyMessage(state, { type: 'chat', channel: { kind: 'room', room: 1 }, from: { user: 3, username: 'carol', rank: '?', rating: 1500 }, text: 'hi', at_ms: 1 });
  assert.equal(state.hall.players.length, 1);
  assert.equal(state.hall.rooms[0].users_count, 4);
  assert.equal(state.chats.get('room:1')[0].text, 'hi');
  applyMessage(state, { type: 'player_offline', user: 3 });
  assert.equal(state.hall.players.length, 0);
});

test('seq tracking: in order applies, repeats drop, a gap asks for a resync until the state comes', () => {
  const seq = new SeqTracker();
  assert.equal(seq.accept(7, 1), 'drop'); // no state yet
  seq.reset(7, 3);
  assert.equal(seq.accept(7, 3), 'drop');
  assert.equal(seq.accept(7, 4), 'apply');
  assert.equal(seq.accept(7, 6), 'resync');
  assert.equal(seq.accept(7, 7), 'drop');
  seq.reset(7, 7);
  assert.equal(seq.accept(7, 8), 'apply');
});

test('reconnect backoff grows, is capped, and jitters', () => {
  assert.equal(backoffMs(0, () => 0.5), 500);
  assert.equal(backoffMs(3, () => 0.5), 4000);
  assert.equal(backoffMs(20, () => 0.5), 15000);
  assert.ok(backoffMs(0, () => 0) < backoffMs(0, () => 1));
});

test('lifecycle events: server clocks, undo, play resumed after a dispute, a player away', () => {
  const side = (ms) => ({ main_left_ms: ms, periods_left: 3, period_left_ms: 30000, moves_left_in_block: 0, block_left_ms: 0, running: false });
  const game = gameFromState({ ...state9, clocks: { black: side(500000), white: side(400000) }, away: [{ color: 'white', forfeit_in_ms: 60000 }] });
  assert.equal(game.clocks.white.main_left_ms, 400000);
  assert.ok(game.away.white > Date.now());
  applyGameEvent(game, { seq: 3, event: 'played', color: 'black', point: { col: 0, row: 0 }, captured: [], clocks: { black: side(490000), white: side(400000) } }, 1000);
  assert.equal(game.clocks.black.main_left_ms, 490000);
  assert.equal(game.clockAtMs, 1000);
  applyGameEvent(game, { seq: 4, event: 'undo_requested', color: 'black' }, 1000);
  assert.equal(game.undoRequestedBy, 'black');
  applyGameEvent(game, { seq: 5, event: 'undo_accepted', color: 'black', by: 'white', moves_count: 2, to_move: 'black', board: state9.board }, 1000);
  assert.equal(game.undoRequestedBy, null);
  assert.equal(game.board[0], '.........');
  assert.equal(game.toMove, 'black');
  applyGameEvent(game, { seq: 6, event: 'player_returned', color: 'white' }, 1000);
  assert.deepEqual(game.away, {});
  applyGameEvent(game, { seq: 7, event: 'scoring_started', dead: [] }, 1000);
  applyGameEvent(game, { seq: 8, event: 'play_resumed', by: 'black', to_move: 'white' }, 1000);
  assert.equal(game.phase, 'playing');
  assert.equal(game.toMove, 'white');
});

test('a pending grant shows until points arrive; logged_out forgets the user and says why', () => {
  const state = createState();
  applyMessage(state, { type: 'session', user: 3, username: 'carol', token: 't', expires_at_ms: 1, pending_grant: 1000, grant_due_at_ms: 2 });
  assert.equal(state.pendingGrant, 1000);
  applyMessage(state, { type: 'balance', balance: 0, tax_bp: 500 });
  assert.equal(state.pendingGrant, 1000);
  applyMessage(state, { type: 'balance', balance: 1000, tax_bp: 500 });
  assert.equal(state.pendingGrant, 0);
  applyMessage(state, { type: 'logged_out', reason: 'logout_all' });
  assert.equal(state.me, null);
  assert.deepEqual(state.notices.at(-1), { key: 'auth.logged_out.logout_all' });
});

test('a void game with no move says the first move was not made in time', () => {
  assert.equal(outcomeReasonKey({ outcome: { reason: 'void' }, movesCount: 0 }), 'game.reason.voidNoFirstMove');
  assert.equal(outcomeReasonKey({ outcome: { reason: 'void' }, movesCount: 12 }), 'game.reason.void');
  assert.equal(outcomeReasonKey({ outcome: { reason: 'resignation' }, movesCount: 0 }), 'game.reason.resignation');
});

test('entering a room shows its recent chat, once', () => {
  const state = createState();
  const carol = { user: 3, username: 'carol', rank: '2k', rating: 1900 };
  const room = { type: 'room', room: 2, name: 'Open', tables: [], users: [], recent_chat: [{ from: carol, text: 'anyone for a 9x9?', at_ms: 5 }] };
  applyMessage(state, room);
  assert.deepEqual(state.chats.get('room:2').map((l) => l.text), ['anyone for a 9x9?']);
  applyMessage(state, { type: 'chat', channel: { kind: 'room', room: 2 }, from: carol, text: 'hello', at_ms: 6 });
  // A resync's room frame does not repeat the lines already shown.
  applyMessage(state, room);
  assert.deepEqual(state.chats.get('room:2').map((l) => l.text), ['anyone for a 9x9?', 'hello']);
});

test('a player relisted after a rated game is relisted everywhere the client shows them', () => {
  const state = createState();
  const alice = { user: 1, username: 'alice', rank: '5k?', rating: 1550 };
  const bob = { user: 2, username: 'bob', rank: '?', rating: 1500 };
  applyMessage(state, { type: 'hall', rooms: [], players: [alice, bob], games: [{ game: 7, table: 1, black: alice, white: bob, size: 9, moves_count: 3, watchers_count: 0 }] });
  applyMessage(state, { type: 'room', room: 1, name: 'Room', users: [alice], tables: [{ table: 1, room: 1, left: alice, right: bob, proposal: null, game: 7, watchers_count: 0 }] });
  const newer = { ...alice, rank: '4k?', rating: 1712 };
  applyMessage(state, { type: 'player_online', player: newer });
  assert.deepEqual(state.hall.players.find((p) => p.user === 1), newer);
  assert.deepEqual(state.room.users[0], newer);
  assert.deepEqual(state.tables.get(1).left, newer);
  assert.deepEqual(state.tables.get(1).right, bob);
  assert.deepEqual(state.hall.games[0].black, newer);
  assert.deepEqual(state.hall.games[0].white, bob);
});
