// Unit tests for the result in the form of the rules (js/result.js): quarter stones written both ways,
// komi and handicap compensation, the break-even count and the margin, as docs/rules.md's examples read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quarterStones, pointsText, countedResult, outcomeFromSgf } from '../js/result.js';

test('quarter stones read as the rules write them, in English and in Chinese', () => {
  assert.equal(quarterStones(15), '3¾');
  assert.equal(quarterStones(15, 'zh'), '3又3/4');
  assert.equal(quarterStones(3, 'zh'), '3/4');
  assert.equal(quarterStones(2), '½');
  assert.equal(quarterStones(8), '2');
  assert.equal(quarterStones(-1), '−¼');
  assert.equal(pointsText(3), '1.5');
  assert.equal(pointsText(4), '2');
});

test('Black 185 on 19x19 with komi 7.5: 185 − 3¾ = 181¼ against 180½, Black by ¾ stone (B+1.5)', () => {
  const settings = { size: 19, komi_half_points: 15, handicap: 0 };
  const r = countedResult({ black_count_half_points: 370, white_count_half_points: 352 }, settings);
  assert.deepEqual([r.black, r.given.total, r.net, r.breakEven, r.margin], [740, 15, 725, 722, 3]);
  // Black 184 loses by ¼ stone.
  assert.equal(countedResult({ black_count_half_points: 368 }, settings).margin, -1);
});

test('a handicap game has no komi and Black gives back half a stone for each handicap stone', () => {
  const r = countedResult({ black_count_half_points: 380 }, { size: 19, komi_half_points: 0, handicap: 4 });
  assert.deepEqual([r.given.komi, r.given.handicap, r.net, r.margin], [0, 8, 752, 30]);
  assert.equal(countedResult({ black_count_half_points: null }, { size: 9, komi_half_points: 15, handicap: 0 }), null);
});

test('a record\'s result reads back as an outcome: winner, reason and a counted margin', () => {
  assert.deepEqual(outcomeFromSgf('B+R'), { winner: 'black', reason: 'resignation', sgf: 'B+R' });
  assert.deepEqual(outcomeFromSgf('W+T'), { winner: 'white', reason: 'time', sgf: 'W+T' });
  assert.deepEqual(outcomeFromSgf('W+7.5'), { winner: 'white', reason: 'score', sgf: 'W+7.5', margin_half_points: 15 });
  assert.equal(outcomeFromSgf('0').winner, null);
  assert.equal(outcomeFromSgf('Void').reason, 'void');
  assert.equal(outcomeFromSgf(undefined), null);
  assert.equal(outcomeFromSgf('B+x'), null);
});
