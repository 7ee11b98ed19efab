// Unit tests for the i18n module: language choice, placeholders, fallbacks, and both dictionaries complete.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectLanguage, translator, interpolate, DICTIONARIES } from '../js/i18n.js';

test('the language comes from the browser, else English', () => {
  assert.equal(detectLanguage(['zh-CN', 'en']), 'zh');
  assert.equal(detectLanguage(['zh-Hans']), 'zh');
  assert.equal(detectLanguage(['fr-FR', 'en-GB']), 'en');
  assert.equal(detectLanguage(['de']), 'en');
  assert.equal(detectLanguage([]), 'en');
});

test('placeholders are filled, unknown ones stay visible', () => {
  assert.equal(interpolate('Table {n}', { n: 3 }), 'Table 3');
  assert.equal(interpolate('{a} and {b}', { a: 1 }), '1 and {b}');
});

test('both languages translate and fall back', () => {
  const en = translator('en');
  const zh = translator('zh');
  assert.equal(en('game.pass'), 'Pass');
  assert.equal(zh('game.pass'), '虚着');
  assert.equal(zh('room.table', { n: 5 }), '5 号桌');
  assert.equal(en('no.such.key'), 'no.such.key');
  assert.equal(translator('xx')('game.resign'), 'Resign');
});

test('the two dictionaries have the same keys', () => {
  const en = Object.keys(DICTIONARIES.en).sort();
  const zh = Object.keys(DICTIONARIES.zh).sort();
  assert.deepEqual(zh, en);
});
