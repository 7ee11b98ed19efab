// The watchers' pool panel (旁观者竞猜): total, each side's amount and share, the number of bettors, the
// players' stakes, the tax rate, whether betting is open, and a bet form for watchers. Props in, events
// out: `update({pool, canBet, balance, myBet, outcome})` with the wire's `pool` object ({game, open, total,
// black, white, bettors_count, stake_black, stake_white, tax_bp, settled}), my bet ({side, total}, if any),
// shown with what it would return at the current odds while the game is on and whether it won once the
// game's `outcome` is known; `onBet(side, amount)` reports a bet.
// Hidden until the server has sent a pool for the game.

import { h, fill } from '../dom.js';

/** Basis points as a percentage people read: 500 → "5". */
export const taxPercent = (bp) => String(bp / 100);

/**
 * What a bet of `stake` on `side` returns if that side wins, at the pool as it stands (docs/wagering.md):
 * `((T / W) · s − s) · (1 − tax) + s`, rounded down, with T the whole pool and W the total on `side`
 * (the bet included). Integer arithmetic (BigInt) so it agrees with the server to the point. Only an
 * estimate while betting is open: later bets change T and W, and a pool with one bettor is refunded.
 */
export function wouldReturn(pool, side, stake) {
  const total = BigInt(pool.total);
  const winners = BigInt(pool[side]);
  const s = BigInt(stake);
  if (winners === 0n || s === 0n) return Number(s);
  const gain = ((total - winners) * s * BigInt(10000 - pool.tax_bp)) / (winners * 10000n);
  return Number(s + gain);
}

export function createPoolPanel({ t, onBet }) {
  /** My bet: what it would return at the current odds while the game is on; once it ended, how it went. */
  function myBetText(myBet, pool, outcome) {
    const side = t(`color.${myBet.side}`);
    if (!outcome) return t('pool.myBet', { amount: myBet.total, side, returns: wouldReturn(pool, myBet.side, myBet.total) });
    const key = outcome.winner == null ? 'pool.myBetNoWinner' : outcome.winner === myBet.side ? 'pool.myBetWon' : 'pool.myBetLost';
    return t(key, { amount: myBet.total, side });
  }

  const body = h('div', {});
  const amount = h('input', { type: 'number', min: 1, step: 1, value: 10, name: 'bet-amount', 'aria-label': t('pool.amount') });
  const form = h('div', { class: 'row bet-form' }, amount,
    h('button', { 'data-testid': 'bet-black', onclick: () => onBet('black', Number(amount.value)) }, t('pool.betBlack')),
    h('button', { 'data-testid': 'bet-white', onclick: () => onBet('white', Number(amount.value)) }, t('pool.betWhite')));
  const element = h('section', { class: 'pool panel', 'data-testid': 'pool', hidden: true }, h('h3', {}, t('pool.title')), body, form);
  return {
    element,
    update({ pool, canBet, balance, myBet, outcome = null }) {
      element.hidden = !pool;
      if (!pool) return;
      const share = (side) => (pool.total ? Math.round((100 * pool[side]) / pool.total) : 50);
      fill(body,
        h('p', { 'data-testid': 'pool-total' }, h('b', {}, `${t('pool.total')}: ${pool.total}`), ' · ', t('pool.bettors', { count: pool.bettors_count }),
          ' · ', t('pool.tax', { rate: taxPercent(pool.tax_bp) }), ' · ', h('span', { class: pool.open ? 'ok' : 'muted' }, t(pool.open ? 'pool.open' : 'pool.closed'))),
        h('div', { class: 'pool-bar', 'aria-hidden': 'true' }, h('span', { class: 'black', style: `width:${share('black')}%` }), h('span', { class: 'white', style: `width:${share('white')}%` })),
        h('p', { class: 'small', 'data-testid': 'pool-sides' }, `${t('color.black')} ${pool.black} · ${t('color.white')} ${pool.white}`),
        pool.stake_black || pool.stake_white ? h('p', { class: 'small muted' }, t('pool.stakes', { black: pool.stake_black, white: pool.stake_white })) : null,
        myBet ? h('p', { class: 'small', 'data-testid': 'my-bet' }, myBetText(myBet, pool, outcome)) : null,
        canBet && balance != null ? h('p', { class: 'small muted' }, t('pool.balance', { balance })) : null);
      form.hidden = !(pool.open && canBet);
    },
  };
}
