// The hall's automatch panel (自动配对): board size, time class and the widest rank difference accepted,
// "Find a game" and "Cancel". Whether the user is queued lives in the app (`actions.automatchSearching`),
// which clears it when a game of theirs starts and opens that game.

import { h } from '../dom.js';

const SIZES = [9, 13, 19];
const TIME_CLASSES = ['blitz', 'rapid', 'classical'];
const MAX_RANK_RANGE = 38;

export function createAutomatchPanel({ t, actions }) {
  const size = h('select', { 'data-testid': 'automatch-size' }, SIZES.map((n) => h('option', { value: String(n) }, `${n}×${n}`)));
  const timeClass = h('select', { 'data-testid': 'automatch-time' }, TIME_CLASSES.map((c) => h('option', { value: c }, t(`automatch.${c}`))));
  const rankRange = h('input', { type: 'number', min: 0, max: MAX_RANK_RANGE, value: '3', 'data-testid': 'automatch-range', class: 'narrow-input' });
  const status = h('p', { class: 'muted small', 'data-testid': 'automatch-status', 'aria-live': 'polite' });
  const find = h('button', { 'data-testid': 'automatch-find', onclick: () => {
    const range = Math.max(0, Math.min(MAX_RANK_RANGE, Number.parseInt(rankRange.value, 10) || 0));
    actions.automatch({ size: Number(size.value), time_class: timeClass.value, rank_range: range }).then(update);
  } }, t('automatch.find'));
  const cancel = h('button', { 'data-testid': 'automatch-cancel', onclick: () => actions.cancelAutomatch().then(update) }, t('automatch.cancel'));
  const element = h('section', { class: 'panel', 'data-testid': 'automatch' }, h('h3', {}, t('automatch.title')),
    h('div', { class: 'row' }, h('label', {}, `${t('settings.size')} `, size), h('label', {}, `${t('automatch.timeClass')} `, timeClass)),
    h('div', { class: 'row' }, h('label', {}, `${t('automatch.rankRange')} `, rankRange)),
    h('div', { class: 'row' }, find, cancel), status);

  function update() {
    const searching = actions.automatchSearching();
    find.disabled = searching;
    cancel.disabled = !searching;
    status.textContent = searching ? t('automatch.waiting') : '';
  }
  update();
  return { element, update };
}
