// The study board (研究, #/study): this connection's private board on the server. Open a 9/13/19 board,
// click to play either colour (the server checks legality; its reason shows), step back and forward,
// choose among the variations from here, load an SGF file (its game info and comments show, and the
// record can be run to its end or back to its start, or to any move number typed in, each in one
// `study_goto` request), and ask for the area count (点目). The left and right arrow keys step back and
// forward, Home and End go to the start and the end. Every request goes through `actions.study(msg)`,
// which answers with the board as it now stands.
//
// A file is sent as its bytes (base64), never decoded here: records come in GB2312, Shift_JIS, EUC-KR,
// Big5, Latin-1 …, and only the server reads them in their own charset (by `CA`, or by detection). The
// names, comments and the ko rule the record is replayed under all come from the server's answer.

import { h, fill } from '../dom.js';
import { createBoard } from '../board.js';
import { pointName } from '../geometry.js';
import { koPoint } from '../replay.js';
import { EMPTY, STONE, otherColor } from '../stones.js';

const SIZES = [9, 13, 19];
/** The largest file a study opens (the server's `STUDY_SGF_BYTES_MAX`): a larger one is not sent. */
const SGF_BYTES_MAX = 1024 * 1024;
/** "Go to the end" asks for a move past any record's end: the server stops at the line's end. */
const END_MOVE = 4_000_000_000;

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
  const infoBox = h('div', { class: 'small', 'data-testid': 'study-info' });
  const koLine = h('p', { class: 'muted small', 'data-testid': 'study-ko-rule' });
  const commentBox = h('p', { class: 'study-comment', 'data-testid': 'study-comment' });
  const sizeSelect = h('select', { 'data-testid': 'study-size' }, SIZES.map((n) => h('option', { value: String(n) }, `${n}×${n}`)));
  const fileInput = h('input', { type: 'file', accept: '.sgf,application/x-go-sgf,text/plain', 'data-testid': 'study-file', class: 'sr-only', onchange: () => loadFile() });
  const button = (key, testId, onclick) => h('button', { 'data-testid': testId, onclick }, t(key));
  // "Go to move N": one request, however far; a number past the end stops at the end.
  const moveInput = h('input', { type: 'number', min: '0', step: '1', name: 'move', class: 'narrow-input', 'data-testid': 'study-move', 'aria-label': t('study.gotoLabel') });
  const gotoForm = h('form', { class: 'row', novalidate: true, 'data-testid': 'study-goto', onsubmit: (event) => {
    event.preventDefault();
    const n = Number(moveInput.value);
    if (moveInput.value.trim() === '' || !Number.isInteger(n) || n < 0) return showError({ text: t('study.gotoBad') });
    goTo(Math.min(n, END_MOVE));
  } }, h('label', {}, `${t('study.gotoLabel')} `, moveInput), h('button', { type: 'submit', 'data-testid': 'study-goto-submit' }, t('study.goto')));
  const board = createBoard(boardBox, {
    arrowsToPage: true,
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
      h('section', { class: 'panel' }, status, koLine, message,
        h('div', { class: 'row' },
          button('study.start', 'study-start', () => goTo(0)),
          button('study.back', 'study-back', () => run({ type: 'study_back' })),
          button('study.forward', 'study-forward', () => run({ type: 'study_forward', variation: 0 })),
          button('study.end', 'study-end', () => goTo(END_MOVE)),
          button('study.pass', 'study-pass', () => run({ type: 'study_pass' })),
          button('study.count', 'study-count', () => count())),
        gotoForm, variations, countBox, commentBox, h('p', { class: 'muted small' }, t('study.keys'))),
      infoBox)));

  let study = null;

  function show(next) {
    const ko = studyKo(study, next);
    const newRecord = JSON.stringify(next.record) !== JSON.stringify(study?.record);
    study = next;
    lastStudy = next;
    sizeSelect.value = String(next.size);
    message.textContent = '';
    message.classList.remove('shown');
    countBox.textContent = '';
    board.update({ size: study.size, board: study.board, lastMove: study.last_move, preview: study.to_move, ko });
    status.textContent = `${t('study.moveNumber', { n: study.move_number, color: t(`color.${study.to_move}`) })} · ${t('replay.captures', { black: study.captures_black, white: study.captures_white })}`;
    koLine.textContent = koRuleText(study);
    commentBox.textContent = study.comment ?? '';
    commentBox.classList.toggle('shown', Boolean(study.comment));
    if (newRecord) showInfo(study.record);
    // One button per variation going on from here (null is a pass); none when there is only the main line's one move.
    fill(variations, study.next_moves.length > 1 ? [h('span', { class: 'muted small' }, t('study.variations')),
      study.next_moves.map((move, i) => h('button', { class: 'small', 'data-testid': `study-variation-${i}`, onclick: () => run({ type: 'study_forward', variation: i }) },
        t('study.variation', { n: i + 1, point: move ? pointName(move, study.size) : t('game.pass') })))] : []);
  }

  function showError(err) {
    message.textContent = err.text ?? actions.errorText(err);
    message.classList.add('shown');
  }

  /** Send a study request; resolves false when it was refused (the reason shows). */
  function run(msg) {
    return actions.study(msg).then(show, (err) => {
      showError(err);
      return false;
    });
  }

  function open() {
    return run({ type: 'study_open', size: Number(sizeSelect.value), komi_half_points: 15, handicap: 0 });
  }

  async function loadFile() {
    const file = fileInput.files?.[0];
    if (!file) return;
    fileInput.value = '';
    if (file.size > SGF_BYTES_MAX) return showError({ text: t('study.tooLarge', { size: file.size, max: SGF_BYTES_MAX }) });
    const sgf_base64 = toBase64(new Uint8Array(await file.arrayBuffer()));
    await run({ type: 'study_load_sgf', sgf_base64 });
  }

  /** The loaded record's players, result, komi, date, event and charset, or nothing for a new board. */
  function showInfo(record) {
    if (!record) return fill(infoBox);
    const line = (key, value, testId) => (value ? h('p', { 'data-testid': testId }, h('span', { class: 'muted' }, `${t(key)} `), value) : null);
    const player = (color, name, rank) => h('span', { 'data-testid': `study-player-${color}` }, h('span', { class: `stone-icon ${color}` }), ` ${name ?? '?'}${rank ? ` (${rank})` : ''}`);
    fill(infoBox, h('section', { class: 'panel' }, h('h3', { 'data-testid': 'study-record-name' }, record.name ?? t('study.record')),
      h('p', {}, player('black', record.black, record.black_rank), '  ', player('white', record.white, record.white_rank)),
      line('games.result', record.result), line('settings.komi', String(record.komi_half_points / 2)),
      line('settings.handicap', record.handicap ? String(record.handicap) : null), line('study.rules', record.rules),
      line('study.date', record.date), line('study.event', record.event), line('study.place', record.place),
      line('study.moves', String(record.moves_count)),
      line('study.charset', t(`study.charset.${record.charset_from}`, { charset: record.charset }), 'study-charset')));
  }

  /** Which ko rule the moves are checked under, and why (the record's rules, or none it names). */
  function koRuleText(view) {
    const rule = t(`study.ko.${view.ko_rule}`);
    const from = view.record?.ko_rule_from;
    if (!from) return t('study.koRule', { rule });
    return t(`study.koRule.${from}`, { rule, rules: view.record.rules ?? '' });
  }

  /** Go to move `n` of the line through this position (past its end: its end), in one request. */
  function goTo(n) {
    if (!study) return Promise.resolve(false);
    return run({ type: 'study_goto', move: n });
  }

  const onKey = (event) => {
    if (event.defaultPrevented || event.target.closest?.('input, textarea, select')) return;
    const msg = { ArrowLeft: { type: 'study_back' }, ArrowRight: { type: 'study_forward', variation: 0 } }[event.key];
    if (msg) run(msg);
    else if (event.key === 'Home') goTo(0);
    else if (event.key === 'End') goTo(END_MOVE);
    else return;
    event.preventDefault();
  };
  document.addEventListener('keydown', onKey);

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
  return {
    update() {},
    unmount() {
      document.removeEventListener('keydown', onKey);
    },
  };
}

/** Bytes as base64, in slices so a 1 MiB file does not overflow the argument list. */
function toBase64(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * The ko point after a step one move forward (a play, or forward along a variation), from the stones
 * the move took: the points the mover's opponent held before and that are empty now. Null otherwise.
 */
function studyKo(before, after) {
  if (!before || !after?.last_move || after.move_number !== before.move_number + 1 || before.size !== after.size) return null;
  const taken = STONE[otherColor(before.to_move)];
  const captured = [];
  after.board.forEach((line, row) => {
    for (let col = 0; col < line.length; col++) if (line[col] === EMPTY && before.board[row]?.[col] === taken) captured.push({ col, row });
  });
  return koPoint(after.board, after.last_move, captured);
}
