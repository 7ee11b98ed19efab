// Replaying a game record (#/replay/12): fetches the SGF through `actions.getRecord`, reads its main
// line (sgf.js), computes every position with captures (replay.js) and steps through them with
// first/previous/next/last buttons, a slider, a click in the move list, or the left/right arrow keys.
// Move numbers on the stones can be switched on (remembered per browser); a ko shows its square.
// Links the SGF download.

import { h, fill } from '../dom.js';
import { createBoard } from '../board.js';
import { parseMainLine } from '../sgf.js';
import { replayPositions } from '../replay.js';
import { pointName } from '../geometry.js';
import { createNumbersSwitch, createMoveList } from './review.js';
import { resultBanner } from './result.js';
import { outcomeFromSgf } from '../result.js';
import { profileLink } from './player-link.js';

export function mountReplay(root, { t, actions, lang }, { game: gameId }) {
  const boardBox = h('div', { class: 'board-box' });
  const heading = h('div', { class: 'replay-info', 'data-testid': 'replay-info' }, '…');
  const bannerBox = h('div', {});
  const moveLabel = h('p', { 'data-testid': 'replay-move', 'aria-live': 'polite' });
  const button = (key, testId, onclick) => h('button', { 'data-testid': testId, onclick }, t(key));
  const controls = h('div', { class: 'row' },
    button('replay.first', 'replay-first', () => go(0)),
    button('replay.previous', 'replay-previous', () => go(index - 1)),
    button('replay.next', 'replay-next', () => go(index + 1)),
    button('replay.last', 'replay-last', () => go(positions.length - 1)));
  const slider = h('input', { type: 'range', min: '0', max: '0', value: '0', class: 'replay-slider', 'data-testid': 'replay-slider', 'aria-label': t('replay.slider'),
    oninput: () => go(Number(slider.value)) });
  const numbers = createNumbersSwitch({ t, onChange: () => go(index) });
  const moveList = createMoveList({ t, onPick: (n) => go(n) });
  const board = createBoard(boardBox, {
    arrowsToPage: true,
    describe: (point, stone) => t(`game.point.${stone ?? 'empty'}`, { point: pointName(point, record?.size ?? 19) }),
  });
  root.appendChild(h('div', { class: 'game-view' },
    h('div', { class: 'board-column' }, boardBox),
    h('aside', { class: 'game-side' },
      h('div', { class: 'row spread' }, h('a', { href: '#/games', class: 'small' }, `← ${t('games.title')}`),
        h('a', { href: `/api/games/${gameId}.sgf`, download: `tengen-${gameId}.sgf`, 'data-testid': 'replay-download' }, t('replay.download'))),
      bannerBox,
      h('section', { class: 'panel' }, h('h3', {}, t('replay.title', { game: gameId })), heading, moveLabel, slider, controls,
        h('div', { class: 'row spread' }, numbers.element, h('span', { class: 'muted small' }, t('replay.keys')))),
      moveList.element)));

  let record = null;
  let positions = [];
  let index = 0;

  function go(next) {
    if (!positions.length) return;
    index = Math.max(0, Math.min(positions.length - 1, next));
    const p = positions[index];
    board.update({ size: record.size, board: p.board, lastMove: p.lastMove, ko: p.ko, numbers: numbers.on() ? p.numbers : null });
    slider.value = String(index);
    moveList.select(index);
    const move = index === 0 ? t('replay.start')
      : t('replay.move', { n: p.moveNumber, color: t(`color.${p.color}`), point: p.lastMove ? pointName(p.lastMove, record.size) : t('game.pass') });
    moveLabel.textContent = `${move} · ${t('replay.of', { total: positions.length - 1 })} · ${t('replay.captures', { black: p.capturesBlack, white: p.capturesWhite })}`;
  }

  const onKey = (event) => {
    if (event.defaultPrevented || event.target.closest?.('input, textarea, select')) return;
    if (event.key === 'ArrowLeft') go(index - 1);
    else if (event.key === 'ArrowRight') go(index + 1);
    else return;
    event.preventDefault();
  };
  document.addEventListener('keydown', onKey);

  actions.getRecord(gameId).then((sgf) => {
    record = parseMainLine(sgf);
    positions = replayPositions(record);
    slider.max = String(positions.length - 1);
    moveList.show(record.moves, record.size);
    const info = record.info;
    // The result at a glance, as on the game screen (a finished game's page comes here after a reload).
    const outcome = outcomeFromSgf(info.RE);
    if (outcome) fill(bannerBox, resultBanner({ outcome, settings: { size: record.size, komi_half_points: 0, handicap: 0 } }, { t, lang, reasonKey: `game.reason.${outcome.reason}` }));
    // A record of this server names its players by their usernames: each links to the profile.
    const player = (name) => (name ? profileLink(t, name) : '?');
    fill(heading, h('p', {}, h('span', { class: 'stone-icon black' }), ' ', player(info.PB), ` (${info.BR ?? '?'}) `,
      h('span', { class: 'stone-icon white' }), ' ', player(info.PW), ` (${info.WR ?? '?'})`),
    h('p', { class: 'muted small' }, `${record.size}×${record.size} · ${t('settings.komi')} ${info.KM ?? '—'} · ${t('games.result')} ${info.RE ?? t('games.inProgress')}${info.DT ? ` · ${info.DT}` : ''}`));
    go(positions.length - 1);
  }).catch((err) => fill(heading, h('p', { class: 'game-message shown' }, err.code ? actions.errorText(err) : t('replay.unreadable', { message: err.message }))));

  return {
    update() {},
    unmount() {
      document.removeEventListener('keydown', onKey);
    },
  };
}
