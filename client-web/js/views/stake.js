// The players' stake dialog (下棋者竞猜) of a table: each player may set both stakes and press OK; when
// both have OK'd the same amounts, each presses Agree (points go into escrow) or Disagree (keep editing).
// Normal terms or paid coaching (有偿指导, the coach stakes 0 and receives the student's stake). During a
// game a player may raise their own agreed stake (追加). Props in (`update({stake, taxBp, mySeat, game, balance,
// inGame})` with the wire's `StakeInfo`, and the stakes by seat as the game's pool tells them, raises included), events out (`onOffer`, `onAnswer`, `onRaise`); watchers see it read-only.

import { h, fill } from '../dom.js';
import { taxPercent } from './pool.js';

export function createStakePanel({ t, onOffer, onAnswer, onRaise }) {
  const left = h('input', { type: 'number', min: 0, step: 1, value: 0, name: 'stake-left', 'aria-label': t('stake.left') });
  const right = h('input', { type: 'number', min: 0, step: 1, value: 0, name: 'stake-right', 'aria-label': t('stake.right') });
  const terms = h('select', { name: 'stake-terms', 'aria-label': t('stake.terms') },
    h('option', { value: 'normal' }, t('stake.terms.normal')),
    h('option', { value: 'coach-left' }, t('stake.terms.coachLeft')),
    h('option', { value: 'coach-right' }, t('stake.terms.coachRight')));
  const raise = h('input', { type: 'number', min: 1, step: 1, value: 10, name: 'stake-raise', 'aria-label': t('stake.raise') });
  const status = h('div', { class: 'stake-status', 'data-testid': 'stake-status' });
  const editor = h('div', { class: 'stake-editor' },
    h('div', { class: 'row' }, h('label', { class: 'field' }, h('span', {}, t('stake.left')), left), h('label', { class: 'field' }, h('span', {}, t('stake.right')), right),
      h('label', { class: 'field' }, h('span', {}, t('stake.terms')), terms)),
    h('button', { 'data-testid': 'stake-ok', onclick: () => onOffer(Number(left.value), Number(right.value), readTerms()) }, t('common.ok')));
  const answer = h('div', { class: 'row' },
    h('button', { class: 'primary', 'data-testid': 'stake-agree', onclick: () => onAnswer(true) }, t('stake.agree')),
    h('button', { 'data-testid': 'stake-disagree', onclick: () => onAnswer(false) }, t('stake.disagree')));
  const raiser = h('div', { class: 'row' }, raise, h('button', { 'data-testid': 'stake-raise', onclick: () => onRaise(Number(raise.value)) }, t('stake.raise')));
  const element = h('section', { class: 'stake panel', 'data-testid': 'stake', hidden: true }, h('h3', {}, t('stake.title')), status, editor, answer, raiser);

  function readTerms() {
    if (terms.value === 'coach-left') return { kind: 'coaching', coach: 'left' };
    if (terms.value === 'coach-right') return { kind: 'coaching', coach: 'right' };
    return { kind: 'normal' };
  }
  let shownOffer = '';

  return {
    element,
    update({ stake, taxBp, mySeat, game, balance, visible, inGame = null }) {
      element.hidden = !visible;
      if (!visible) return;
      const mark = (yes) => (yes ? '✓' : '·');
      // Agreed stakes in a game grow with raises, which the game's pool tells (the table's offer does not).
      const amounts = stake?.agreed && inGame ? inGame : stake;
      fill(status,
        stake ? [
          h('p', {}, `${t('stake.left')}: `, h('b', {}, String(amounts.left)), ` ${mark(stake.ok_left)}${stake.agree_left ? ` ${t('stake.agreedMark')}` : ''} · ${t('stake.right')}: `,
            h('b', {}, String(amounts.right)), ` ${mark(stake.ok_right)}${stake.agree_right ? ` ${t('stake.agreedMark')}` : ''}`),
          h('p', { class: 'small muted' }, stake.terms.kind === 'coaching' ? t(stake.terms.coach === 'left' ? 'stake.terms.coachLeft' : 'stake.terms.coachRight') : t('stake.terms.normal'),
            ' · ', t('pool.tax', { rate: taxPercent(taxBp ?? 0) })),
          stake.agreed ? h('p', { class: 'ok' }, t(stake.game ? 'stake.inEscrowGame' : 'stake.inEscrowNext')) : h('p', { class: 'stake-next', 'data-testid': 'stake-next' }, nextStep(stake, mySeat, t)),
          stake.agreed ? null : h('p', { class: 'small muted', 'data-testid': 'stake-legend' }, t('stake.legend')),
        ] : h('p', { class: 'muted small' }, t('stake.none')),
        mySeat && balance != null ? h('p', { class: 'small muted' }, t('pool.balance', { balance })) : null);
      // Keep what the player typed; take the other player's offer into the inputs when it changes.
      const offerKey = stake ? `${stake.left}/${stake.right}/${JSON.stringify(stake.terms)}` : '';
      if (stake && offerKey !== shownOffer) {
        shownOffer = offerKey;
        left.value = stake.left;
        right.value = stake.right;
        terms.value = stake.terms.kind === 'coaching' ? `coach-${stake.terms.coach}` : 'normal';
      }
      const agreed = !!stake?.agreed;
      editor.hidden = !mySeat || agreed;
      const bothOk = !!stake && stake.ok_left && stake.ok_right;
      answer.hidden = !mySeat || agreed || !bothOk;
      // Only agreed stakes can be raised (the server refuses others with stake_not_ready).
      raiser.hidden = !mySeat || !game || !agreed;
    },
  };
}

/** Whose move it is in the stake dialog, in words: who must press OK, or Agree, next. */
export function nextStep(stake, mySeat, t) {
  const other = mySeat === 'left' ? 'right' : 'left';
  const seatName = (seat) => t(seat === 'left' ? 'stake.left' : 'stake.right');
  const waiting = (flag) => ['left', 'right'].filter((seat) => !stake[`${flag}_${seat}`]);
  if (!stake.ok_left || !stake.ok_right) {
    const missing = waiting('ok');
    if (mySeat && missing.includes(mySeat)) return t('stake.next.yourOk');
    return t('stake.next.waitOk', { seat: seatName(mySeat && missing.includes(other) ? other : missing[0]) });
  }
  const missing = waiting('agree');
  if (mySeat && missing.includes(mySeat)) return t('stake.next.yourAgree');
  return t('stake.next.waitAgree', { seat: seatName(mySeat && missing.includes(other) ? other : missing[0]) });
}
