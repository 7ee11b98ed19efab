// "My bets and stakes": the records the server keeps of what you put in, what came back, the net, the tax
// rate and why a bet was refunded; also a coach's fee from paid coaching and a stake held at a table for
// its next game (given back if that game never starts). Asks once on mount; shows what arrives.

import { h, fill } from '../dom.js';
import { taxPercent } from './pool.js';

export function mountMyBets(root, { t, actions, state }) {
  const body = h('div', { 'data-testid': 'my-bets' }, h('p', { class: 'muted' }, '…'));
  const balance = h('p', {});
  root.appendChild(h('main', { class: 'panel narrow' }, h('div', { class: 'row spread' }, h('h2', {}, t('bets.title')), h('a', { href: '#/' }, `← ${t('game.back')}`)),
    balance, body));
  // A refund reason the dictionaries do not know yet shows as the server's code.
  const refundText = (code) => {
    const key = `bets.refund.${code}`;
    const text = t(key);
    return text === key ? code : text;
  };
  // A held stake has no game yet: it names the table it was agreed at.
  const where = (r) => (r.game != null ? h('a', { href: `#/game/${r.game}` }, String(r.game)) : t('bets.table', { table: r.table ?? '?' }));
  const hint = (kind) => {
    const key = `bets.kind.${kind}.hint`;
    const text = t(key);
    return text === key ? '' : text;
  };
  actions.myBets().then((records) => {
    fill(body, records.length === 0 ? h('p', { class: 'muted' }, t('bets.none')) : h('table', { class: 'records' },
      h('thead', {}, h('tr', {}, ['bets.game', 'bets.kind', 'bets.side', 'bets.staked', 'bets.returned', 'bets.net', 'bets.tax', 'bets.refund'].map((k) => h('th', {}, t(k))))),
      h('tbody', {}, records.map((r) => h('tr', {},
        h('td', {}, where(r)), h('td', { title: hint(r.kind) }, t(`bets.kind.${r.kind}`)), h('td', {}, r.side ? t(`color.${r.side}`) : ''),
        h('td', {}, String(r.staked)), h('td', {}, r.returned ?? '—'), h('td', { class: r.net > 0 ? 'ok' : r.net < 0 ? 'warn' : '' }, r.net ?? '—'),
        h('td', {}, `${taxPercent(r.tax_bp)}%`), h('td', { class: 'muted small' }, r.refund ? refundText(r.refund) : ''))))));
  }).catch((err) => fill(body, h('p', { class: 'muted' }, err.code === 'unknown_type' ? t('bets.unavailable') : actions.errorText(err))));
  return {
    update() {
      balance.textContent = state.balance != null ? t('pool.balance', { balance: state.balance }) : '';
    },
    unmount() {},
  };
}
