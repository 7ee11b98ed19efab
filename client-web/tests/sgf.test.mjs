// Unit tests for reading SGF main lines (js/sgf.js) and replaying them with captures (js/replay.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMainLine, mainLineNodes, sgfPoint } from '../js/sgf.js';
import { replayPositions, applyMove } from '../js/replay.js';

const SERVER_RECORD = '(;FF[4]GM[1]CA[UTF-8]AP[Tengen]SZ[9]KM[7.5]RU[Chinese]PB[alice]PW[bob]BR[?]WR[?]DT[2026-11-29]EV[Tengen]TM[600]OT[3x30 byo-yomi]RE[B+4.5];B[ee];W[cc])';

test('a server record: size, players, result and the moves', () => {
  const record = parseMainLine(SERVER_RECORD);
  assert.equal(record.size, 9);
  assert.equal(record.info.PB, 'alice');
  assert.equal(record.info.RE, 'B+4.5');
  assert.deepEqual(record.moves, [
    { color: 'black', point: { col: 4, row: 4 } },
    { color: 'white', point: { col: 2, row: 2 } },
  ]);
});

test('the main line follows the first variation; values may hold brackets and escapes', () => {
  const nodes = mainLineNodes('(;SZ[9]C[a \\] tricky (comment); x];B[aa](;W[bb];B[cc])(;W[dd]))');
  assert.equal(nodes[0].C[0], 'a ] tricky (comment); x');
  const record = parseMainLine('(;SZ[9];B[aa](;W[bb](;B[cc])(;B[ee]))(;W[dd]))');
  assert.deepEqual(record.moves.map((m) => m.point), [{ col: 0, row: 0 }, { col: 1, row: 1 }, { col: 2, row: 2 }]);
});

test('passes, handicap setup with compressed lists, and a default size of 19', () => {
  assert.equal(sgfPoint('', 9), null);
  assert.equal(sgfPoint('tt', 19), null);
  const record = parseMainLine('(;AB[dd][pp]AW[aa:ab];W[];B[tt])');
  assert.equal(record.size, 19);
  assert.deepEqual(record.setup.black, [{ col: 3, row: 3 }, { col: 15, row: 15 }]);
  assert.deepEqual(record.setup.white, [{ col: 0, row: 0 }, { col: 0, row: 1 }]);
  assert.deepEqual(record.moves, [{ color: 'white', point: null }, { color: 'black', point: null }]);
  assert.throws(() => parseMainLine('no record here'));
});

test('replay captures a stone and counts it', () => {
  // Black surrounds the white stone at b2 (bb) on 5x5.
  const record = parseMainLine('(;SZ[5];B[ba];W[bb];B[ab];W[ee];B[cb];W[ed];B[bc])');
  const positions = replayPositions(record);
  assert.equal(positions.length, 8);
  assert.equal(positions[0].board.join('/'), '...../...../...../...../.....');
  assert.equal(positions[2].board[1], '.O...');
  const last = positions[7];
  assert.equal(last.board[1], 'X.X..');
  assert.equal(last.capturesBlack, 1);
  assert.equal(last.capturesWhite, 0);
  assert.deepEqual(last.lastMove, { col: 1, row: 2 });
  assert.equal(last.moveNumber, 7);
});

test('a corner capture of a chain, and a pass leaves the board alone', () => {
  const grid = ['OX..', 'OX..', '....', '....'].map((r) => [...r]);
  const passed = applyMove(grid, 'white', null);
  assert.equal(passed.grid, grid);
  const played = applyMove(grid, 'black', { col: 0, row: 2 });
  assert.equal(played.captured, 2);
  assert.deepEqual(played.grid.map((r) => r.join('')), ['.X..', '.X..', 'X...', '....']);
});

test('a ko is marked where one stone was just taken by a lone stone left in atari; move numbers follow the stones', () => {
  // . X O .      Black plays c2 (col 2, row 1) and takes White's b2: White may not take back at once.
  // X O . O
  // . X O .
  const record = parseMainLine('(;SZ[5]AB[ba][ab][bc]AW[ca][bb][db][cc];B[cb];W[ee];B[dd])');
  const positions = replayPositions(record);
  assert.deepEqual(positions[1].ko, { col: 1, row: 1 });
  assert.equal(positions[1].capturesBlack, 1);
  // A move elsewhere ends the ko; so does a capture that leaves the capturing stone with other liberties.
  assert.equal(positions[2].ko, null);
  assert.deepEqual([...positions[3].numbers], [['2,1', 1], ['4,4', 2], ['3,3', 3]]);
  const open = replayPositions(parseMainLine('(;SZ[5]AB[ba][ab][bc]AW[bb];B[cb])'));
  assert.equal(open[1].capturesBlack, 1);
  assert.equal(open[1].ko, null);
});
