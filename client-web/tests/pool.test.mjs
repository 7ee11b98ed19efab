// The pool panel's payout estimate must agree with the server's settlement formula (docs/wagering.md) to the point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wouldReturn } from '../js/views/pool.js';

const pool = (black, white) => ({ total: black + white, black, white, tax_bp: 500 });

test('a winning bet returns its stake plus the taxed share of the losers, rounded down', () => {
  // The ledger test's numbers: T = 470, W = 300 on White, a bet of 300 returns 461.
  assert.equal(wouldReturn(pool(170, 300), 'white', 300), 461);
  // T = 1000, Black 600 (400 + 200), White 400: 400 → 400 + floor(400·400·0.95/600) = 653.
  assert.equal(wouldReturn(pool(600, 400), 'black', 400), 653);
  assert.equal(wouldReturn(pool(600, 400), 'black', 200), 326);
});

test('a side nobody else bet against returns the stake', () => {
  assert.equal(wouldReturn(pool(100, 0), 'black', 100), 100);
  assert.equal(wouldReturn(pool(0, 0), 'black', 0), 0);
});

test('large pools stay exact', () => {
  const big = 2 ** 52;
  assert.equal(wouldReturn({ total: big * 2, black: big, white: big, tax_bp: 0 }, 'black', big), big * 2);
});
