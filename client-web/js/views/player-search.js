// Finding a player by the start of their name (the hall's search box): the server compares names as
// logging in does, so any case, width or script finds them; each result is a link to the profile.
// Props in, events out: `onSearch(prefix)` answers the players found.

import { h, fill } from '../dom.js';
import { profileLink } from './player-link.js';

/** Wait this long after the last keystroke before asking, so typing a name costs one request. */
export const SEARCH_PAUSE_MS = 250;

export function createPlayerSearch({ t, onSearch }) {
  const input = h('input', { type: 'search', name: 'player-search', 'aria-label': t('search.label'),
    placeholder: t('search.placeholder'), 'data-testid': 'player-search', autocomplete: 'off' });
  const results = h('ul', { class: 'player-list', 'data-testid': 'player-search-results' });
  let timer = null;
  // Answers may come back out of order; only the latest asked is shown.
  let asked = 0;
  async function search() {
    const prefix = input.value.trim();
    const ticket = ++asked;
    if (!prefix) return fill(results);
    let found;
    try {
      found = await onSearch(prefix);
    } catch {
      found = null;
    }
    if (ticket !== asked) return;
    if (found === null) return fill(results, h('li', { class: 'muted' }, t('search.failed')));
    fill(results, found.length === 0
      ? h('li', { class: 'muted' }, t('search.none'))
      : found.map((player) => h('li', {}, profileLink(t, player, { rank: 'chip' }))));
  }
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(search, SEARCH_PAUSE_MS);
  });
  const element = h('div', { class: 'player-search' }, input, results);
  return { element, unmount: () => clearTimeout(timer) };
}
