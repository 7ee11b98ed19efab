// A player's name as every screen shows it: a link to their profile (`#/user/<name>`), the name isolated
// as dom.js's `userName` writes it (<bdi>, so a right-to-left name does not reorder the line around it),
// and the rank beside it in the form the place uses. The name goes in as text, never as markup.

import { formatRank } from '../rank.js';
import { h, userName } from '../dom.js';

/** A profile's address. Names may be in any script and hold '/', '#' or '%': encoded, app.js decodes. */
export function profileHref(username) {
  return `#/user/${encodeURIComponent(username)}`;
}

/**
 * `who` is a player ({username, rank}) or a bare username. `rank`: 'paren' writes "alice (5k?)" as
 * nameWithRank does, 'chip' the name then the rank in a muted span, absent the name alone (also for a
 * bare username, which has no rank to show). `testId` goes on the link.
 */
export function profileLink(t, who, { rank, testId } = {}) {
  const username = typeof who === 'string' ? who : who.username;
  const link = h('a', { class: 'player-link', href: profileHref(username), 'data-testid': testId }, userName(username));
  if (!rank || typeof who === 'string') return link;
  if (rank === 'paren') return h('span', { class: 'player' }, link, ` (${formatRank(t, who.rank)})`);
  return h('span', { class: 'player' }, link, ' ', h('span', { class: 'rank' }, formatRank(t, who.rank)));
}
