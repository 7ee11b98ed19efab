// Ranks as each language writes them: 5k / 1d in English, 5级 / 1段 in Chinese, the provisional mark
// kept, and anything unexpected shown as it came rather than hidden.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { translator } from '../js/i18n.js';
import { formatRank, nameWithRank } from '../js/rank.js';

test('ranks are written in each language, provisional ones marked', () => {
  const en = translator('en');
  const zh = translator('zh');
  assert.equal(formatRank(en, '5k'), '5k');
  assert.equal(formatRank(en, '3k?'), '3k?');
  assert.equal(formatRank(zh, '5k'), '5级');
  assert.equal(formatRank(zh, '1d'), '1段');
  assert.equal(formatRank(zh, '30k?'), '30级?');
  assert.equal(formatRank(zh, '?'), '?');
  assert.equal(formatRank(en, 'odd'), 'odd');
  assert.equal(formatRank(en, undefined), '?');
  assert.equal(nameWithRank(zh, { username: '棋圣', rank: '9d' }), '棋圣 (9段)');
});
