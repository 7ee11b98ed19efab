// Who watches a game (the watcher list and count are visible): the named watchers with their
// ranks and a mark for computer players, the rest folded into "and N more" (a disclosure that opens with
// the keyboard or a tap), and the guests, who are counted but have no name. Props in, no events; the
// server pushes the list when it changes, so `update` just redraws.

import { h, fill } from '../dom.js';
import { profileLink } from './player-link.js';

/** Names shown before the rest fold away: one or two lines of the side panel, even on a phone. */
export const WATCHERS_SHOWN_MAX = 12;

/**
 * What to show of a game's watchers: the first names, the named rest, how many the server counted but
 * did not name (it lists at most 100), and the guests. Pure, so it is unit-tested.
 */
export function watchersSummary({ count = 0, anonymous = 0, watchers = [] }, shownMax = WATCHERS_SHOWN_MAX) {
  const shown = watchers.slice(0, shownMax);
  const folded = watchers.slice(shownMax);
  const unnamed = Math.max(0, count - anonymous - watchers.length);
  return { shown, folded, more: folded.length + unnamed, anonymous, empty: count === 0 };
}

export function createWatchersPanel({ t }) {
  const list = h('ul', { class: 'watcher-list' });
  const element = h('section', { class: 'watchers-panel', 'data-testid': 'watchers-list', 'aria-label': t('game.watchersList') },
    h('span', { class: 'watchers-label muted small', 'aria-hidden': 'true' }, t('game.watchersList')), list);

  const chip = (p) => h('li', { class: 'watcher', 'data-testid': `watcher-${p.username}` },
    profileLink(t, p, { rank: 'chip' }),
    p.computer ? h('span', { class: 'badge computer', title: t('hall.computer') }, t('hall.computer')) : null);

  return {
    element,
    /** `watching`: {count, anonymous, watchers} as the game model keeps them. */
    update(watching) {
      const s = watchersSummary(watching);
      if (s.empty) {
        fill(list, h('li', { class: 'muted' }, t('game.watchersNone')));
        return;
      }
      const more = t('game.watchersMore', { count: s.more });
      fill(list,
        s.shown.map(chip),
        s.more > 0 && s.folded.length > 0
          ? h('li', { class: 'watcher-more' }, h('details', {}, h('summary', {}, more), h('ul', { class: 'watcher-list' }, s.folded.map(chip))))
          : s.more > 0 ? h('li', { class: 'watcher-more muted' }, more) : null,
        s.anonymous > 0 ? h('li', { class: 'watcher-guests muted', 'data-testid': 'watcher-guests' }, t('game.watchersGuests', { count: s.anonymous })) : null);
    },
  };
}
