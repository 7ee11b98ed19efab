// Unit tests for the board geometry: labels, star points, and pixel ↔ intersection mapping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnLabel, rowLabel, pointName, starPoints, layout, pointToXY, xyToPoint, moveCursor } from '../js/geometry.js';

test('column letters skip I and rows count from the bottom', () => {
  assert.equal(columnLabel(0), 'A');
  assert.equal(columnLabel(7), 'H');
  assert.equal(columnLabel(8), 'J');
  assert.equal(columnLabel(18), 'T');
  assert.equal(columnLabel(24), 'Z');
  assert.equal(rowLabel(0, 19), '19');
  assert.equal(rowLabel(18, 19), '1');
  assert.equal(pointName({ col: 3, row: 15 }, 19), 'D4');
  assert.equal(pointName({ col: 4, row: 4 }, 9), 'E5');
});

test('star points: nine on 19x19, five on 13x13 and 9x9, none on tiny boards', () => {
  const key = (ps) => ps.map((p) => `${p.col},${p.row}`).sort();
  assert.equal(starPoints(19).length, 9);
  assert.ok(key(starPoints(19)).includes('9,9'));
  assert.ok(key(starPoints(19)).includes('3,15'));
  assert.deepEqual(key(starPoints(13)), key([{ col: 3, row: 3 }, { col: 9, row: 3 }, { col: 3, row: 9 }, { col: 9, row: 9 }, { col: 6, row: 6 }]));
  assert.deepEqual(key(starPoints(9)), key([{ col: 2, row: 2 }, { col: 6, row: 2 }, { col: 2, row: 6 }, { col: 6, row: 6 }, { col: 4, row: 4 }]));
  assert.deepEqual(starPoints(5), []);
});

test('pixels map back to the intersection they were drawn at', () => {
  for (const size of [9, 13, 19, 25]) {
    const geom = layout(size, 1000);
    for (const point of [{ col: 0, row: 0 }, { col: size - 1, row: size - 1 }, { col: 2, row: size - 3 }]) {
      const { x, y } = pointToXY(geom, point);
      assert.deepEqual(xyToPoint(geom, x, y), point);
      // A little off centre still finds the same point.
      assert.deepEqual(xyToPoint(geom, x + geom.cell * 0.4, y - geom.cell * 0.4), point);
    }
    // The margin around the grid is not a point.
    assert.equal(xyToPoint(geom, 2, 2), null);
    assert.equal(xyToPoint(geom, 999, 500), null);
  }
});

test('the grid fits inside the view with room for labels', () => {
  const geom = layout(19, 1000);
  const last = pointToXY(geom, { col: 18, row: 18 });
  assert.ok(geom.origin > geom.cell * 0.9);
  assert.ok(last.x < 1000 - geom.cell * 0.9);
});

test('the keyboard cursor stays on the board', () => {
  assert.deepEqual(moveCursor({ col: 0, row: 0 }, -1, -1, 9), { col: 0, row: 0 });
  assert.deepEqual(moveCursor({ col: 8, row: 3 }, 1, 1, 9), { col: 8, row: 4 });
});
