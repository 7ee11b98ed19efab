// The study board (研究, #/study): this connection's private board on the server. Open a 9/13/19 board,
// click to play either colour (the server checks legality; its reason shows), step back and forward,
// choose among the variations from here, load an SGF file, and ask for the area count (点目). Every
// request goes through `actions.study(msg)`, which answers with the board as it now stands.

import { h, fill } from '../dom.js';
import { createBoard } from '../board.js';
import { pointName } from '../geometry.js';

const SIZES = [9, 13, 19];

// The board as the server last showed it, kept across re-mounts of this view: switching the language
// re-mounts every screen, and the study must not start again when only the words change. The study
// itself lives on the server, per connection; after a reload there is nothing kept and a new one opens.
let lastStudy = null;

export function mountStudy(root, { t, actions }) {
  const boardBox = h('div', { class: 'board-box' });
  const message = h('p', { class: 'game-message', role: 'alert', 'data-testid': 'study-message' });
  const status = h('p', { 'data-testid': 'study-status' });
  const variations = h('div', { class: 'row', 'data-testid': 'study-variations' });
  const countBox = h('p', { 'data-testid': 'study-count-result' });
  const sizeSelect = h('select', { 'data-testid': 'study-size' }, SIZES.map((n) => h('option', { value: String(n) }, `${n}×${n}`)));
  const fileInput = h('input', { type: 'file', accept: '.sgf,application/x-go-sgf,text/plain', 'data-testid': 'study-file', class: 'sr-only', onchange: () => loadFile() });
  const button = (key, testId, onclick) => h('button', { 'data-testid': testId, onclick }, t(key));
  const board = createBoard(boardBox, {
    onPoint: (point) => run({ type: 'study_play', point }),
    describe: (point, stone) => t(`game.point.${stone ?? 'empty'}`, { point: pointName(point, study?.size ?? 19) }),
  });
  root.appendChild(h('div', { class: 'game-view' },
    h('div', { class: 'board-column' }, boardBox),
    h('aside', { class: 'game-side' },
      h('div', { class: 'row spread' }, h('h2', {}, t('study.title')), h('a', { href: '#/', class: 'small' }, `← ${t('game.back')}`)),
      h('section', { class: 'panel' },
        h('div', { class: 'row' }, h('label', {}, `${t('settings.size')} `, sizeSelect),
          button('study.open', 'study-open', () => open()),
          h('button', { 'data-testid': 'study-load', onclick: () => fileInput.click() }, t('study.loadSgf')), fileInput),
        h('p', { class: 'muted small' }, t('study.hint'))),
      h('section', { class: 'panel' }, status, message,
        h('div', { class: 'row' },
          button('study.back', 'study-back', () => run({ type: 'study_back' })),
          button('study.forward', 'study-forward', () => run({ type: 'study_forward', variation: 0 })),
          button('study.pass', 'study-pass', () => run({ type: 'study_pass' })),
          button('study.count', 'study-count', () => count())),
        variations, countBox))));

  let study = null;

  function show(next) {
    study = next;
    lastStudy = next;
    sizeSelect.value = String(next.size);
    message.textContent = '';
    message.classList.remove('shown');
    countBox.textContent = '';
    board.update({ size: study.size, board: study.board, lastMove: study.last_move, preview: study.to_move });
    status.textContent = `${t('study.moveNumber', { n: study.move_number, color: t(`color.${study.to_move}`) })} · ${t('replay.captures', { black: study.captures_black, white: study.captures_white })}`;
    // One button per variation going on from here (null is a pass); none when there is only the main line's one move.
    fill(variations, study.next_moves.length > 1 ? [h('span', { class: 'muted small' }, t('study.variations')),
      study.next_moves.map((move, i) => h('button', { class: 'small', 'data-testid': `study-variation-${i}`, onclick: () => run({ type: 'study_forward', variation: i }) },
        t('study.variation', { n: i + 1, point: move ? pointName(move, study.size) : t('game.pass') })))] : []);
  }

  function showError(err) {
    message.textContent = actions.errorText(err);
    message.classList.add('shown');
  }

  function run(msg) {
    return actions.study(msg).then(show, showError);
  }

  function open() {
    return run({ type: 'study_open', size: Number(sizeSelect.value), komi_half_points: 15, handicap: 0 });
  }

  async function loadFile() {
    const file = fileInput.files?.[0];
    if (!file) return;
    const sgf = await file.text();
    fileInput.value = '';
    await run({ type: 'study_load_sgf', sgf });
  }

  async function count() {
    try {
      const c = await actions.studyCount();
      countBox.textContent = t('study.countResult', { black: c.black_count_half_points / 2, white: c.white_count_half_points / 2, result: c.result });
    } catch (err) {
      showError(err);
    }
  }

  if (lastStudy) show(lastStudy);
  else open();
  return { update() {}, unmount() {} };
}
