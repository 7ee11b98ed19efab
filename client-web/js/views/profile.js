// A player's profile, `#/user/<name>`: name, rank (what a provisional one means, in words) and rating,
// the rating over time as a graph, the rated wins, losses and draws by board size, the recent games with
// links to their records and opponents (more on demand, `list_games` with `before`), the events entered
// with the place reached, member since, online now or last seen, and the games being played now with a
// link to watch. Anyone may look, guests too. Asks on opening through `actions.openProfile` (app.js asks
// again after a reconnect, and when the hall shows the player come, go, or start or end a game); the
// answer lands in `state.profiles`. The pieces are built by the functions below from props alone. A
// logged-in visitor follows, blocks or mutes the player from here (`relationsBar`).

import { formatRank } from '../rank.js';
import { h, fill, userName } from '../dom.js';
import { graphGeometry, recordTable, placeText, agoParts, gameFor, joinGames } from '../profile.js';
import { profileLink } from './player-link.js';
import { relationTo } from '../state.js';

const SVG = 'http://www.w3.org/2000/svg';

/** The pages of `list_games`: the profile's first page has 20 games, each further one up to 100. */
export const FIRST_PAGE_GAMES = 20;
export const PAGE_GAMES = 100;

export function mountProfile(root, ctx, params) {
  const { t, actions, state, lang } = ctx;
  const name = params.username;
  const body = h('div', { class: 'profile', 'data-testid': 'profile' }, h('p', { class: 'muted' }, t('profile.loading')));
  root.appendChild(h('main', { class: 'narrow-page' }, body));
  actions.openProfile(name);

  // Games asked for after the first page, and whether the last page asked was full (so more may follow).
  let more = [];
  let moreFull = null;
  let moreAsking = false;
  let moreError = null;
  let drawn = null;
  let drawnRelations = null;
  // What the hall shows of the player (online, listed, in a live game): when it changes, ask again.
  let hallSeen = null;

  function askMore(profile, games) {
    moreAsking = true;
    moreError = null;
    draw(true);
    const username = profile.player.username;
    actions.listGames(username, games[games.length - 1].game).then((page) => {
      more = joinGames(more, page);
      moreFull = page.length >= PAGE_GAMES;
    }, (err) => { moreError = err; }).finally(() => {
      moreAsking = false;
      draw(true);
      // The button was replaced: keep the keyboard where it was.
      body.querySelector('[data-testid=profile-more]')?.focus();
    });
  }

  function draw(force = false) {
    const known = state.profiles.get(name);
    if (!force && drawn === known && drawnRelations === state.relations) return;
    drawn = known;
    drawnRelations = state.relations;
    if (!known) {
      fill(body, h('p', { class: 'muted' }, t('profile.loading')));
      return;
    }
    if (!known.profile) {
      fill(body, h('section', { class: 'panel', 'data-testid': 'profile-error' },
        known.error?.code === 'no_such_user'
          ? h('p', {}, t('profile.notFound'), ' ', h('strong', {}, userName(name)))
          : h('p', {}, actions.errorText(known.error)),
        h('a', { href: '#/' }, `← ${t('game.back')}`)));
      return;
    }
    const p = known.profile;
    const games = joinGames(p.recent_games, more);
    const mayHaveMore = more.length === 0 && moreFull === null ? p.recent_games.length >= FIRST_PAGE_GAMES : moreFull;
    // Anyone logged in may report a player to the moderators, and follow, block or mute them (not themselves).
    const other = state.me && state.me.user !== p.player.user;
    const bar = other ? relationsBar(p.player, relationTo(state, p.player.user), { t, onChange: actions.relation }) : null;
    fill(body,
      summaryPanel(p, { t, lang, now: Date.now(), bar }),
      other ? h('p', { class: 'row end' }, h('button', { class: 'small', 'data-testid': 'report-user',
        onclick: () => actions.reportUser(p.player.username) }, t('report.user'))) : null,
      h('div', { class: 'profile-columns' },
        h('div', { class: 'profile-main' },
          h('section', { class: 'panel', 'data-testid': 'profile-graph' }, h('h3', {}, t('profile.graph')), ratingGraph(p.rating_history, { t, lang })),
          gamesPanel(p.player.username, games, {
            t, lang, mayHaveMore, asking: moreAsking, error: moreError ? actions.errorText(moreError) : null, onMore: () => askMore(p, games),
          })),
        h('aside', { class: 'profile-side' },
          h('section', { class: 'panel', 'data-testid': 'profile-record' }, h('h3', {}, t('profile.record')), recordPanel(p.record, { t })),
          h('section', { class: 'panel', 'data-testid': 'profile-events' }, h('h3', {}, t('profile.events')), eventsList(p.events, { t })))));
  }

  return {
    update() {
      const known = state.profiles.get(name)?.profile;
      if (known) {
        const user = known.player.user;
        const listed = state.hall.players.find((pl) => pl.user === user) ?? null;
        const playing = state.hall.games.filter((g) => g.black.user === user || g.white.user === user).map((g) => g.game);
        const seen = JSON.stringify([listed, playing]);
        if (hallSeen !== null && seen !== hallSeen) actions.openProfile(name);
        hallSeen = seen;
      }
      draw();
    },
    unmount() {},
  };
}

/** A date as the reader's language writes it: "5 Jan 2026", "2026年1月5日". */
export function dateText(ms, lang) {
  return new Date(ms).toLocaleDateString(lang === 'zh' ? 'zh-CN' : 'en-GB', { year: 'numeric', month: 'short', day: 'numeric' });
}

/** "3 hours ago", or the date once it is a month back. */
function agoText(ms, { t, lang, now }) {
  const ago = agoParts(ms, now);
  return ago ? t(`profile.ago.${ago.unit}`, { count: ago.count }) : dateText(ms, lang);
}

/** The name, rank and rating, member since, online or last seen, and the games being played now. */
function summaryPanel(p, { t, lang, now, bar }) {
  const rank = String(p.player.rank ?? '?');
  const rankNote = rank === '?' ? t('profile.unranked') : rank.endsWith('?') ? t('profile.provisional') : null;
  return h('section', { class: 'panel profile-head' },
    h('div', { class: 'row spread' },
      h('h2', { 'data-testid': 'profile-name' }, userName(p.player.username),
        p.player.computer ? h('span', { class: 'badge computer' }, t('hall.computer')) : null),
      h('a', { href: '#/', class: 'small' }, `← ${t('game.back')}`)),
    h('dl', { class: 'profile-facts' },
      h('div', {}, h('dt', {}, t('profile.rank')), h('dd', { 'data-testid': 'profile-rank' }, formatRank(t, rank))),
      h('div', {}, h('dt', {}, t('profile.rating')), h('dd', { 'data-testid': 'profile-rating' }, String(Math.round(p.player.rating))))),
    rankNote ? h('p', { class: 'muted small', 'data-testid': 'profile-rank-note' }, rankNote) : null,
    h('p', { class: 'profile-presence', 'data-testid': 'profile-presence' },
      p.online ? h('span', { class: 'online-dot' }, t('profile.online'))
        : h('span', { class: 'muted' }, p.last_seen_ms != null ? t('profile.lastSeen', { when: agoText(p.last_seen_ms, { t, lang, now }) }) : t('profile.offline')),
      h('span', { class: 'muted' }, ` · ${t('profile.memberSince', { date: dateText(p.member_since_ms, lang) })}`)),
    p.playing.length ? h('ul', { class: 'profile-playing', 'data-testid': 'profile-playing' }, p.playing.map((game) => h('li', {},
      t('profile.playing', { game }), ' — ',
      h('a', { class: 'button primary small', href: `#/game/${game}`, 'data-testid': `profile-watch-${game}` }, t('profile.watch'))))) : null,
    bar);
}

/**
 * Follow, block and mute buttons for a player (`held`: what I hold toward them, from state.js's
 * `relationTo`), each reporting `onChange(messageType, username)`, with a line saying what holds now.
 * Following waits for an unblock (the server refuses it), so it is not offered while blocking.
 */
export function relationsBar(player, held, { t, onChange }) {
  const name = player.username;
  const button = (kind, on, primary) => h('button', { class: `small${primary ? ' primary' : ''}`, 'data-testid': `relation-${kind}`, 'aria-pressed': String(on),
    onclick: () => onChange(kind, name) }, t(`relations.${kind}`));
  const notes = [held.follows && 'following', held.blocks && 'blocking', held.mutes && !held.blocks && 'muting'].filter(Boolean);
  return h('div', { class: 'relations-bar', 'data-testid': 'relations-bar' },
    h('div', { class: 'row' },
      held.blocks ? null : button(held.follows ? 'unfollow' : 'follow', held.follows, !held.follows),
      held.blocks ? null : button(held.mutes ? 'unmute' : 'mute', held.mutes, false),
      button(held.blocks ? 'unblock' : 'block', held.blocks, false)),
    notes.map((note) => h('p', { class: 'muted small', 'data-testid': `relation-note-${note}` }, t(`relations.${note}`, { name }))));
}

/**
 * The rating over time: props in (the history, oldest first), an SVG line that stretches to the column's
 * width, with the highest and lowest ratings beside it and the first and last dates under it, or a
 * sentence when there is no rated game yet.
 */
export function ratingGraph(points, { t, lang }) {
  const g = graphGeometry(points);
  if (!g) return h('p', { class: 'muted', 'data-testid': 'graph-empty' }, t('profile.graphEmpty'));
  const svg = document.createElementNS(SVG, 'svg');
  const attrs = (node, values) => { for (const [k, v] of Object.entries(values)) node.setAttribute(k, String(v)); return node; };
  const el = (tag, values) => attrs(document.createElementNS(SVG, tag), values);
  const rating = (r) => String(Math.round(r));
  // Stretched to the box, so the strokes keep their width and the dots (zero-length round-capped lines)
  // stay round.
  attrs(svg, {
    viewBox: `0 0 ${g.width} ${g.height}`, preserveAspectRatio: 'none', class: 'graph-svg', role: 'img', 'data-testid': 'rating-graph',
    'aria-label': t('profile.graphLabel', { count: points.length, from: rating(g.from), to: rating(g.to), min: rating(g.min), max: rating(g.max) }),
  });
  svg.append(
    el('line', { x1: 0, x2: g.width, y1: g.yMax, y2: g.yMax, class: 'graph-guide' }),
    el('line', { x1: 0, x2: g.width, y1: g.yMin, y2: g.yMin, class: 'graph-guide' }),
    el('polyline', { points: g.polyline, class: 'graph-line' }),
    ...g.points.map((p) => el('line', { x1: p.x, x2: p.x, y1: p.y, y2: p.y, class: 'graph-dot' })));
  // A grid: the ratings to the left of the line, the dates under it.
  return h('figure', { class: 'rating-graph' },
    // One rating (a level line in the middle) has its one label beside the line.
    h('div', { class: `graph-y${g.max > g.min ? '' : ' level'}`, 'aria-hidden': 'true' }, h('span', {}, rating(g.max)), g.max > g.min ? h('span', {}, rating(g.min)) : null),
    svg,
    h('span', {}),
    h('div', { class: 'graph-x', 'aria-hidden': 'true' }, h('span', {}, dateText(g.first, lang)),
      dateText(g.last, lang) !== dateText(g.first, lang) ? h('span', {}, dateText(g.last, lang)) : null));
}

/** Rated wins, losses and draws: a row per board size and the totals. */
function recordPanel(record, { t }) {
  const { rows, total } = recordTable(record);
  if (rows.length === 0) return h('p', { class: 'muted' }, t('profile.recordEmpty'));
  const cells = (r) => [r.wins, r.losses, r.draws].map((n, i) => h('td', { class: 'num', 'data-col': ['wins', 'losses', 'draws'][i] }, String(n)));
  return h('table', { class: 'records record-table' },
    h('thead', {}, h('tr', {}, h('th', {}, t('profile.size')), ['profile.wins', 'profile.losses', 'profile.draws'].map((k) => h('th', { class: 'num' }, t(k))))),
    h('tbody', {}, rows.map((r) => h('tr', { 'data-testid': `record-${r.size}` }, h('td', {}, `${r.size}×${r.size}`), cells(r)))),
    rows.length > 1 ? h('tfoot', {}, h('tr', { 'data-testid': 'record-total' }, h('th', {}, t('profile.total')), cells(total))) : null);
}

/** The games, newest first: date, the player's colour, the opponent, size, the outcome, the record's link. */
function gamesPanel(username, games, { t, lang, mayHaveMore, asking, error, onMore }) {
  const outcomeCell = (game, outcome) => h('td', { class: `nowrap outcome outcome-${outcome ?? 'other'}` },
    outcome && outcome !== 'playing' ? `${t(`profile.outcome.${outcome}`)} ` : '', h('span', { class: 'muted small' }, game.result ?? t('games.inProgress')));
  const row = (game) => {
    const { color, opponent, outcome } = gameFor(game, username);
    const other = color === 'black' ? 'white' : 'black';
    return h('tr', { 'data-testid': `profile-game-${game.game}` },
      // The date as the games list (#/games) writes it: short enough for a phone's column.
      h('td', { class: 'muted small nowrap' }, new Date(game.started_at_ms).toISOString().slice(0, 10)),
      // The opponent with the stone they played.
      h('td', { class: 'nowrap' }, h('span', { class: `stone-icon ${other}`, role: 'img', 'aria-label': t(`color.${other}`), title: t(`color.${other}`) }), ' ', profileLink(t, opponent)),
      h('td', { class: 'nowrap' }, `${game.size}×${game.size}`),
      outcomeCell(game, outcome),
      h('td', { class: 'nowrap' }, outcome === 'playing'
        ? h('a', { href: `#/game/${game.game}`, 'data-testid': `profile-game-link-${game.game}` }, t('profile.watchGame', { game: game.game }))
        : h('a', { href: `#/replay/${game.game}`, 'data-testid': `profile-game-link-${game.game}` }, t('games.replay', { game: game.game }))));
  };
  return h('section', { class: 'panel', 'data-testid': 'profile-games' },
    h('h3', {}, t('profile.games')),
    games.length === 0 ? h('p', { class: 'muted' }, t('games.none')) : h('div', { class: 'table-scroll' }, h('table', { class: 'records profile-games' },
      h('thead', {}, h('tr', {}, ['games.date', 'profile.opponent', 'settings.size', 'games.result', 'games.game'].map((k) => h('th', {}, t(k))))),
      h('tbody', {}, games.map(row)))),
    error ? h('p', { class: 'form-error', role: 'alert' }, error) : null,
    mayHaveMore ? h('button', { 'data-testid': 'profile-more', disabled: asking, onclick: onMore }, t(asking ? 'profile.moreLoading' : 'profile.more'))
      : games.length > FIRST_PAGE_GAMES ? h('p', { class: 'muted small', 'data-testid': 'profile-no-more' }, t('profile.noMore')) : null);
}

/** The events entered, newest first: a link to each, its status, and the place reached once paired. */
function eventsList(events, { t }) {
  if (events.length === 0) return h('p', { class: 'muted' }, t('profile.eventsEmpty'));
  return h('ul', { class: 'event-list' }, events.map((e) => h('li', { 'data-testid': `profile-event-${e.event}` },
    h('a', { href: `#/event/${e.event}` }, h('bdi', {}, e.name)), ' ',
    h('span', { class: `badge event-status status-${e.status}` }, t(`event.status.${e.status}`)), ' ',
    h('span', { class: 'small', 'data-testid': `profile-place-${e.event}` },
      e.place != null ? placeText(t, e.place, e.entrants_count) : h('span', { class: 'muted' }, t('profile.entrants', { count: e.entrants_count }))))));
}
