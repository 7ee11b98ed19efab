// Unit tests for the timekeeper's calls (js/calls.js): the byo-yomi cadence of the rules (30, 40, 50, 55,
// 58 seconds; in the last period 30, 40, 50 and then 1..10), nothing at a turn's start, and the last ten
// seconds of other clocks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clockCall, periodCalls } from '../js/calls.js';
import { initialSide, tick } from '../js/clock.js';

const byoYomi = (periods, periodMs = 60000) => ({ kind: 'byo_yomi', main_time_ms: 0, periods, period_ms: periodMs });

/** Every call made while a side thinks `totalMs` from `side`, read every `stepMs` as the screen does. */
function callsOver(clock, side, totalMs, stepMs = 200) {
  const calls = [];
  let before = side;
  for (let used = stepMs; used <= totalMs; used += stepMs) {
    const after = tick(side, clock, used);
    const call = clockCall(clock, before, after);
    if (call) calls.push(call.kind === 'count' ? `#${call.n}` : call.kind === 'used' ? `${call.seconds}s` : `-${call.seconds}`);
    before = after;
  }
  return calls;
}

test('a 60 s period that is not the last: 30, 40, 50, 55, 58 seconds', () => {
  const clock = byoYomi(3);
  assert.deepEqual(callsOver(clock, initialSide(clock), 59800), ['30s', '40s', '50s', '55s', '58s']);
});

test('the last period: 30, 40, 50 seconds, then the last ten counted 1..10', () => {
  const clock = byoYomi(1);
  assert.deepEqual(callsOver(clock, initialSide(clock), 60000),
    ['30s', '40s', '50s', '#1', '#2', '#3', '#4', '#5', '#6', '#7', '#8', '#9', '#10']);
});

test('nothing is called at the start of a turn, nor when a reading is missing', () => {
  const clock = byoYomi(1, 10000);
  const fresh = initialSide(clock);
  assert.equal(clockCall(clock, fresh, fresh), null);
  assert.equal(clockCall(clock, null, fresh), null);
  // A 10 s last period counts from its first second: 1 at 1 s used.
  assert.deepEqual(callsOver(clock, fresh, 10000), ['#1', '#2', '#3', '#4', '#5', '#6', '#7', '#8', '#9', '#10']);
});

test('shorter periods keep the calls that fit, at the same times before the end', () => {
  assert.deepEqual(periodCalls(30000, false).map((c) => c.call.seconds), [10, 20, 25, 28]);
  const clock = byoYomi(2, 30000);
  // The first period's calls, then a new period begins (nothing called at its start), then the last one's.
  assert.deepEqual(callsOver(clock, initialSide(clock), 60000),
    ['10s', '20s', '25s', '28s', '10s', '20s', '#1', '#2', '#3', '#4', '#5', '#6', '#7', '#8', '#9', '#10']);
});

test('main time makes no call; other clocks count their last ten seconds down', () => {
  const withMain = { ...byoYomi(3), main_time_ms: 20000 };
  assert.deepEqual(callsOver(withMain, initialSide(withMain), 19800), []);
  const absolute = { kind: 'absolute', main_time_ms: 12000 };
  assert.deepEqual(callsOver(absolute, initialSide(absolute), 12000), ['-10', '-9', '-8', '-7', '-6', '-5', '-4', '-3', '-2', '-1']);
});
