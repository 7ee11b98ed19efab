// The watchers' pool panel (旁观者竞猜): total, each side's amount and share, the number of bettors, the
// players' stakes, the tax rate, whether betting is open, and a bet form for watchers. Props in, events
// out: `update({pool, canBet, balance})` with the wire's `pool` object ({game, open, total, black, white,
// bettors_count, stake_black, stake_white, tax_bp, settled}); `onBet(side, amount)` reports a bet.
// Hidden until the server has sent a pool for the game.

import { h, fill } from '../dom.js';

/** Basis points as a percentage people read: 500 → "5". */
export const taxPercent = (bp) => String(bp / 100);

export function createPoolPanel({ t, onBet }) {
  const body = h('div', {});
  const amount = h('input', { type: 'number', min: 1, step: 1, value: 10, name: 'bet-amount', 'aria-label': t('pool.amount') });
  const form = h('div', { class: 'row bet-form' }, amount,
    h('button', { 'data-testid': 'bet-black', onclick: () => onBet('black', Number(amount.value)) }, t('pool.betBlack')),
    h('button', { 'data-testid': 'bet-white', onclick: () => onBet('white', Number(amount.value)) }, t('pool.betWhite')));
  const element = h('section', { class: 'pool panel', 'data-testid': 'pool', hidden: true }, h('h3', {}, t('pool.title')), body, form);
  return {
    element,
    update({ pool, canBet, balance }) {
      element.hidden = !pool;
      if (!pool) return;
      const share = (side) => (pool.total ? Math.round((100 * pool[side]) / pool.total) : 50);
      fill(body,
        h('p', { 'data-testid': 'pool-total' }, h('b', {}, `${t('pool.total')}: ${pool.total}`), ' · ', t('pool.bettors', { count: pool.bettors_count }),
          ' · ', t('pool.tax', { rate: taxPercent(pool.tax_bp) }), ' · ', h('span', { class: pool.open ? 'ok' : 'muted' }, t(pool.open ? 'pool.open' : 'pool.closed'))),
        h('div', { class: 'pool-bar', 'aria-hidden': 'true' }, h('span', { class: 'black', style: `width:${share('black')}%` }), h('span', { class: 'white', style: `width:${share('white')}%` })),
        h('p', { class: 'small', 'data-testid': 'pool-sides' }, `${t('color.black')} ${pool.black} · ${t('color.white')} ${pool.white}`),
        pool.stake_black || pool.stake_white ? h('p', { class: 'small muted' }, t('pool.stakes', { black: pool.stake_black, white: pool.stake_white })) : null,
        canBet && balance != null ? h('p', { class: 'small muted' }, t('pool.balance', { balance })) : null);
      form.hidden = !(pool.open && canBet);
    },
  };
}
