// "My games" (我的棋谱): the logged-in user's games, newest first, with colours, size, result and start
// date; each links to its replay. Asks once on mount through `actions.listGames`.

import { h, fill } from '../dom.js';
import { profileLink } from './player-link.js';

export function mountGames(root, { t, actions, state }) {
  const body = h('div', { 'data-testid': 'my-games' }, h('p', { class: 'muted' }, '…'));
  root.appendChild(h('main', { class: 'panel narrow' },
    h('div', { class: 'row spread' }, h('h2', {}, t('games.title')),
      h('span', { class: 'row' }, h('a', { href: '#/study' }, t('study.title')), h('a', { href: '#/' }, `← ${t('game.back')}`))),
    body));
  const date = (ms) => new Date(ms).toISOString().slice(0, 10);
  if (!state.me) fill(body, h('p', { class: 'muted' }, t('error.not_logged_in')));
  else {
    actions.listGames(state.me.username).then((games) => {
      fill(body, games.length === 0 ? h('p', { class: 'muted' }, t('games.none')) : h('table', { class: 'records' },
        h('thead', {}, h('tr', {}, ['games.game', 'color.black', 'color.white', 'settings.size', 'games.result', 'games.date'].map((k) => h('th', {}, t(k))))),
        h('tbody', {}, games.map((g) => h('tr', {},
          h('td', {}, h('a', { href: `#/replay/${g.game}`, 'data-testid': `replay-link-${g.game}` }, t('games.replay', { game: g.game }))),
          h('td', {}, profileLink(t, g.black)), h('td', {}, profileLink(t, g.white)), h('td', {}, `${g.size}×${g.size}`),
          h('td', {}, g.result ?? t('games.inProgress')), h('td', { class: 'muted small' }, date(g.started_at_ms)))))));
    }).catch((err) => fill(body, h('p', { class: 'muted' }, actions.errorText(err))));
  }
  return { update() {}, unmount() {} };
}
