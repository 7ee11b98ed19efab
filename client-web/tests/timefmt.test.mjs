// Unit tests for time formatting, the last-seconds announcements, and the clock display model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatClock, formatDuration, formatChatTime, secondToAnnounce } from '../js/timefmt.js';
import { initialSide, tick, afterMove, displayMs, inOvertime } from '../js/clock.js';

test('clocks read m:ss, h:mm:ss, rounding up', () => {
  assert.equal(formatClock(600000), '10:00');
  assert.equal(formatClock(59001), '1:00');
  assert.equal(formatClock(59000), '0:59');
  assert.equal(formatClock(1), '0:01');
  assert.equal(formatClock(0), '0:00');
  assert.equal(formatClock(-5), '0:00');
  assert.equal(formatClock(3723000), '1:02:03');
});

test('durations and chat times', () => {
  assert.equal(formatDuration(600000), '10 min');
  assert.equal(formatDuration(30000), '30 s');
  assert.equal(formatDuration(5400000), '1 h 30 min');
  assert.equal(formatDuration(600000, { h: '小时', min: '分', s: '秒' }), '10 分');
  assert.equal(formatChatTime(Date.UTC(2026, 0, 1, 14, 5)), '14:05');
  assert.equal(formatChatTime(Date.UTC(2026, 0, 1, 23, 30), 60), '00:30');
});

test('the last ten seconds are announced once each', () => {
  assert.equal(secondToAnnounce(10500, 10400), null); // still "11"
  assert.equal(secondToAnnounce(10100, 9900), 10);
  assert.equal(secondToAnnounce(9900, 9800), null);
  assert.equal(secondToAnnounce(1100, 900), 1);
  assert.equal(secondToAnnounce(20000, 15000), null);
  assert.equal(secondToAnnounce(500, 0), null);
});

test('byo-yomi: main time, then periods, a move refreshes the period', () => {
  const clock = { kind: 'byo_yomi', main_time_ms: 60000, periods: 3, period_ms: 30000 };
  let side = initialSide(clock);
  assert.equal(displayMs(side), 60000);
  side = tick(side, clock, 70000);
  assert.equal(side.main_left_ms, 0);
  assert.ok(inOvertime(side));
  assert.equal(side.periods_left, 3);
  assert.equal(displayMs(side), 20000);
  side = afterMove(side, clock);
  assert.equal(displayMs(side), 30000);
  side = tick(side, clock, 65000);
  assert.equal(side.periods_left, 1);
  assert.equal(displayMs(side), 25000);
  assert.ok(!side.flagged);
  side = tick(side, clock, 25000);
  assert.ok(side.flagged);
});

test('Fischer adds the increment up to the cap; moves-in-time refills the block', () => {
  const fischer = { kind: 'fischer', main_time_ms: 60000, increment_ms: 10000, max_time_ms: 65000 };
  let side = afterMove(initialSide(fischer), fischer);
  assert.equal(side.main_left_ms, 65000);
  const canadian = { kind: 'canadian', main_time_ms: 0, moves: 2, block_ms: 60000 };
  side = initialSide(canadian);
  side = tick(side, canadian, 10000);
  side = afterMove(side, canadian);
  assert.equal(side.moves_left_in_block, 1);
  side = afterMove(tick(side, canadian, 10000), canadian);
  assert.equal(side.moves_left_in_block, 2);
  assert.equal(side.block_left_ms, 40000 + 60000);
  assert.equal(initialSide({ kind: 'none' }), null);
});
