// Unit tests for the amount checks made before a bet, stake offer or raise is sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stakeOfferProblem, positiveProblem } from '../js/amounts.js';

test('stake offers: whole points, 0 or more; a coach stakes 0', () => {
  assert.equal(stakeOfferProblem(50, 50, { kind: 'normal' }), null);
  assert.equal(stakeOfferProblem(0, 0, { kind: 'normal' }), null);
  assert.equal(stakeOfferProblem(-5, 50, { kind: 'normal' }), 'stake_amount');
  assert.equal(stakeOfferProblem(1.5, 50, { kind: 'normal' }), 'stake_amount');
  assert.equal(stakeOfferProblem(Number.NaN, 50, { kind: 'normal' }), 'stake_amount');
  assert.equal(stakeOfferProblem(0, 200, { kind: 'coaching', coach: 'left' }), null);
  assert.equal(stakeOfferProblem(10, 200, { kind: 'coaching', coach: 'left' }), 'coach_stake');
  assert.equal(stakeOfferProblem(200, 10, { kind: 'coaching', coach: 'right' }), 'coach_stake');
});

test('bets and raises: whole points, at least 1', () => {
  assert.equal(positiveProblem(1, 'bad_amount'), null);
  for (const n of [0, -5, 2.5, Number.NaN]) assert.equal(positiveProblem(n, 'raise_amount'), 'raise_amount');
});
