// Playing by two taps (phones): the first tap shows a ghost stone, a second tap on it (or the Play
// button) plays it, a tap elsewhere moves it. A fat finger on a small board then never plays by mistake.
// On by default on small or touch screens, and a switch the browser remembers.
//
//   const confirm = createMoveConfirm({ t, onPlay: (point) => …, redraw: () => … });
//   confirm.tapped(point, seq) → true when the tap only placed the ghost
//   confirm.ghost(seq) → the ghost's point for the position `seq`, or null

import { h, fill } from '../dom.js';
import { pointName, samePoint } from '../geometry.js';

const CONFIRM_KEY = 'tengen.confirmMoves';
/** Screens where a move waits for a second tap unless the player switched it off. */
const CONFIRM_QUERY = '(max-width: 600px), (pointer: coarse)';

export function createMoveConfirm({ t, onPlay, redraw, storage = globalThis.localStorage }) {
  const stored = storage?.getItem(CONFIRM_KEY);
  const box = h('input', { type: 'checkbox', 'data-testid': 'confirm-switch',
    checked: stored ? stored === 'on' : !!globalThis.matchMedia?.(CONFIRM_QUERY).matches,
    onchange: () => {
      storage?.setItem(CONFIRM_KEY, box.checked ? 'on' : 'off');
      pending = null;
      redraw();
    } });
  const buttons = h('div', { class: 'confirm-move', 'data-testid': 'confirm-move' });
  let pending = null; // {point, seq}

  function play() {
    const point = pending?.point;
    pending = null;
    if (point) onPlay(point);
    redraw();
  }

  return {
    switchElement: h('label', { class: 'field check small' }, box, t('game.confirmMoves')),
    buttons,
    /** A tap on the board at my move: true when it placed (or moved) the ghost instead of playing. */
    tapped(point, seq) {
      if (!box.checked) return false;
      if (pending && pending.seq === seq && samePoint(pending.point, point)) {
        pending = null;
        return false;
      }
      pending = { point, seq };
      redraw();
      return true;
    },
    /** The ghost's point if it is for position `seq` (a move since drops it); draws the buttons. */
    ghost(seq, size) {
      if (pending && pending.seq !== seq) pending = null;
      fill(buttons, pending ? [
        h('button', { class: 'primary', 'data-testid': 'confirm-play', onclick: play }, t('game.confirmPlay', { point: pointName(pending.point, size) })),
        h('button', { 'data-testid': 'confirm-cancel', onclick: () => { pending = null; redraw(); } }, t('common.cancel')),
      ] : null);
      return pending?.point ?? null;
    },
  };
}
