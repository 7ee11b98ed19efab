// Pieces of the review screens (a game's replay, the study board): the switch for move numbers on the
// stones, remembered per browser, and the move list, one button per move, that jumps to the position
// after it.

import { h, fill } from '../dom.js';
import { pointName } from '../geometry.js';

const NUMBERS_KEY = 'tengen.numbers';

/** A checkbox "Move numbers"; `on()` tells its state, `onChange` hears each change. */
export function createNumbersSwitch({ t, onChange, storage = globalThis.localStorage }) {
  const box = h('input', { type: 'checkbox', 'data-testid': 'numbers-switch', checked: storage?.getItem(NUMBERS_KEY) === 'on',
    onchange: () => {
      storage?.setItem(NUMBERS_KEY, box.checked ? 'on' : 'off');
      onChange();
    } });
  return { element: h('label', { class: 'field check small' }, box, t('review.numbers')), on: () => box.checked };
}

/** The moves as a list of buttons ("12 ● D4"); a click picks the position after that move. */
export function createMoveList({ t, onPick }) {
  const list = h('ol', { class: 'move-list', 'data-testid': 'move-list' });
  let buttons = [];
  return {
    element: h('section', { class: 'panel move-list-panel' }, h('h3', {}, t('review.moves')), list),
    show(moves, size) {
      buttons = moves.map((move, i) => h('button', { class: 'move', 'data-testid': `move-${i + 1}`, onclick: () => onPick(i + 1) },
        h('span', { class: 'move-n' }, String(i + 1)), h('span', { class: `stone-icon ${move.color}`, 'aria-label': t(`color.${move.color}`) }),
        move.point ? pointName(move.point, size) : t('game.pass')));
      fill(list, buttons.map((b) => h('li', {}, b)));
    },
    /** Mark the move whose position is shown (0: the start, none marked) and keep it in view. */
    select(n) {
      buttons.forEach((b, i) => b.classList.toggle('current', i + 1 === n));
      const current = buttons[n - 1];
      if (current && list.scrollHeight > list.clientHeight) list.scrollTop = current.offsetTop - list.clientHeight / 2;
    },
  };
}
