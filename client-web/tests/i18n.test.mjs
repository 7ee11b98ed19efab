// Unit tests for the i18n module: language choice, placeholders, plural forms, fallbacks, and both
// dictionaries complete.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { detectLanguage, translator, interpolate, pluralCategory, DICTIONARIES } from '../js/i18n.js';

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

test('plural categories: English singular and plural, Chinese none', () => {
  assert.equal(pluralCategory('en', 1), 'one');
  assert.equal(pluralCategory('en', '1'), 'one');
  for (const n of [0, 2, 5, 1.5, 21]) assert.equal(pluralCategory('en', n), 'other', `en ${n}`);
  for (const n of [0, 1, 2]) assert.equal(pluralCategory('zh', n), 'other', `zh ${n}`);
});

test('word forms follow the number in the named placeholder', () => {
  assert.equal(interpolate('{count} {count|bettor|bettors}', { count: 1 }), '1 bettor');
  assert.equal(interpolate('{count} {count|bettor|bettors}', { count: 0 }), '0 bettors');
  assert.equal(interpolate('{count} {count|bettor|bettors}', { count: 2 }), '2 bettors');
  assert.equal(interpolate('{n} {n|move|moves} of {total}', { n: 1, total: 3 }), '1 move of 3');
  // An unknown name stays visible, forms and all.
  assert.equal(interpolate('{x|a|b}', {}), '{x|a|b}');
  // Under a language without plurals the plural form is the only one.
  assert.equal(interpolate('{count|a|b}', { count: 1 }, 'zh'), 'b');
});

test('English counts agree with their nouns; Chinese ones need no forms', () => {
  const en = translator('en');
  const zh = translator('zh');
  assert.equal(en('pool.bettors', { count: 1 }), '1 bettor');
  assert.equal(en('pool.bettors', { count: 3 }), '3 bettors');
  assert.equal(en('game.periods', { count: 1 }), '1 period');
  assert.equal(en('game.periods', { count: 3 }), '3 periods');
  assert.equal(en('game.moves', { count: 1 }), '1 move in block');
  assert.equal(en('hall.tables', { count: 1 }), '1 table');
  assert.equal(en('hall.tables', { count: 20 }), '20 tables');
  assert.equal(en('balance.short', { balance: 1 }), '1 pt');
  assert.equal(en('balance.short', { balance: 950 }), '950 pts');
  assert.equal(en('settings.summary.canadian', { main: '10:00', moves: 1, block: '5:00' }), '10:00 + 1 move / 5:00');
  assert.equal(zh('pool.bettors', { count: 1 }), '1 人下注');
  assert.equal(zh('game.periods', { count: 1 }), '读秒 1 次');
});

test('no English string puts a fixed plural noun after a number', () => {
  // "{count} bettors" would read "1 bettors": such a noun must use {count|bettor|bettors}. (The
  // placeholders that hold numbers; "{name} challenges you" is a verb.)
  const fixedPlural = /\{(count|n|moves|periods|total|amount|balance|returns|staked|returned)\} [a-z]+s\b/;
  for (const [key, text] of Object.entries(DICTIONARIES.en)) assert.doesNotMatch(text, fixedPlural, `${key}: ${text}`);
  // Chinese strings have no word forms to choose.
  for (const [key, text] of Object.entries(DICTIONARIES.zh)) assert.doesNotMatch(text, /\{\w+\|/, key);
});

test('every error code the protocol defines has its own text in both languages', () => {
  // The codes are read from the protocol crate itself, so a new code without client text fails here.
  const source = readFileSync(new URL('../../protocol/src/error.rs', import.meta.url), 'utf8');
  // `ErrorCode` and its `ALL` are made from the one list given to the `error_codes!` macro.
  const start = source.indexOf('\nerror_codes! {');
  assert.ok(start >= 0, 'the error_codes! list found in protocol/src/error.rs');
  const body = source.slice(start, source.indexOf('\n}', start));
  const codes = [...body.matchAll(/^ {4}([A-Z][A-Za-z]+),?$/gm)]
    .map(([, name]) => name.replace(/[A-Z]/g, (c, i) => (i ? '_' : '') + c.toLowerCase()));
  assert.ok(codes.length >= 50, `found ${codes.length} codes`);
  for (const lang of ['en', 'zh']) {
    const missing = codes.filter((code) => !(`error.${code}` in DICTIONARIES[lang]));
    assert.deepEqual(missing, [], `${lang} has no text for these codes`);
  }
});
