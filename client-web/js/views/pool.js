// The watchers' pool panel (旁观者竞猜): total, each side's amount, bettors, the players' stakes, the tax
// rate, and a bet form. Hidden until the game model carries pool data (`game.pool`), which arrives with the
// ledger's protocol messages; `update(pool)` takes {total, black, white, bettors_count, tax_percent, stakes}.

import { h, fill } from '../dom.js';

export function createPoolPanel({ t, onBet }) {
  const body = h('div', {});
  const amount = h('input', { type: 'number', min: 1, step: 1, value: 10, 'aria-label': t('pool.bet') });
  const element = h('section', { class: 'pool panel', 'data-testid': 'pool', hidden: true }, h('h3', {}, t('pool.title')), body,
    h('div', { class: 'row' }, amount,
      h('button', { onclick: () => onBet('black', Number(amount.value)) }, `${t('pool.bet')} ${t('pool.onBlack')}`),
      h('button', { onclick: () => onBet('white', Number(amount.value)) }, `${t('pool.bet')} ${t('pool.onWhite')}`)));
  return {
    element,
    update(pool) {
      element.hidden = !pool;
      if (!pool) return;
      const share = (side) => (pool.total ? Math.round((100 * pool[side]) / pool.total) : 0);
      fill(body,
        h('p', {}, `${t('pool.total')}: ${pool.total} · ${t('pool.bettors', { count: pool.bettors_count })} · ${t('pool.tax', { rate: pool.tax_percent })}`),
        h('div', { class: 'pool-bar' }, h('span', { class: 'black', style: `width:${share('black')}%` }), h('span', { class: 'white', style: `width:${share('white')}%` })),
        h('p', { class: 'small' }, `${t('color.black')} ${pool.black} · ${t('color.white')} ${pool.white}`));
    },
  };
}
