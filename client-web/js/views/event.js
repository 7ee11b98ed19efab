// An event's page, `#/event/<id>`: its summary and status, Join/Leave while it is open, the director's
// "Start round N" (disabled, with the reason, while a round is in play), the user's own board while its
// game is on, the standings with a column for every figure that ranks them (fractions as "12 2/3"), the
// pairing table of every round (boards, results, a link to each game, byes and rests), a knockout's
// bracket, the entrants and the event's log (every player's name a link to their profile), and the director's warn, withdraw, adjudicate, pause,
// adjourn and resume (views/event-director.js); each live board's watchers and pool; and for a team
// event its teams, team standings, matches and relay, and founding or joining a team
// (views/event-teams.js). Asks for the event on opening (and the app asks again
// after a reconnect); entrants and the director then get every change pushed, and anyone else asks
// again when the hall's line of the event changes.

import { h, fill } from '../dom.js';
import { profileLink } from './player-link.js';
import { playersOf, isEntrant, myBoard, nextRoundState, boardWinner, standingsColumns, currentRound } from '../events.js';
import { formatSummary } from './events.js';
import { settingsSummary } from './settings.js';
import { createDirectorTools } from './event-director.js';
import { createTeamEntry, teamsPanel, teamStandingsPanel, matchesPanel, teamName } from './event-teams.js';

/** Log lines shown, newest first (an event's log holds up to 20,000; the page shows the recent ones). */
export const LOG_SHOWN_MAX = 100;

export function mountEvent(root, ctx, params) {
  const { t, actions, state } = ctx;
  const id = params.event;
  const body = h('div', { class: 'event-page', 'data-testid': 'event-page' }, h('p', { class: 'muted' }, t('event.loading')));
  root.appendChild(body);
  const director = createDirectorTools({ t, actions, event: id });
  const teamEntry = createTeamEntry({ t, actions, event: id });
  let failed = null;
  let asking = false;
  // The hall's pushes of the event's line counted so far; one more means a change, which someone not sent
  // the whole event (not an entrant, not the director) asks for.
  let seenPushes = state.events.listedPushes.get(id) ?? 0;
  const ask = () => {
    asking = true;
    actions.openEvent(id).then(() => { failed = null; }, (err) => { failed = err; }).finally(() => {
      asking = false;
      update();
    });
  };
  ask();

  // Each live board's spectator pool, asked once per game; the answers land in state.pools.
  const poolsAsked = new Set();
  function poolsOf(view) {
    for (const round of view.rounds) {
      for (const b of round.boards) {
        if (b.game != null && b.outcome == null && !poolsAsked.has(b.game)) {
          poolsAsked.add(b.game);
          actions.askPool(b.game);
        }
      }
    }
    return state.pools;
  }

  function update() {
    const view = state.events.views.get(id);
    if (!view) {
      fill(body, h('p', { class: 'muted', 'data-testid': 'event-error' }, failed ? actions.errorText(failed) : t('event.loading')));
      return;
    }
    const me = state.me?.user ?? null;
    const pushed = me != null && (isEntrant(view, me) || view.summary.director.user === me);
    const pushes = state.events.listedPushes.get(id) ?? 0;
    if (pushed) seenPushes = pushes;
    else if (!asking && pushes !== seenPushes) {
      seenPushes = pushes;
      ask();
    }
    // The director's tools while the event goes on.
    const tools = me != null && view.summary.director.user === me && view.summary.status !== 'finished' ? director : null;
    const players = playersOf(view);
    const name = (user) => players.get(user)?.username ?? `#${user}`;
    // The same name as a link to the player's profile, where the name stands alone (not inside a sentence).
    const link = (user) => (players.has(user) ? profileLink(t, players.get(user)) : name(user));
    // A team event ranks teams (its individual standings name teams by id) and its byes are teams.
    const teams = view.teams ? { standings: teamStandingsPanel(view, { t }), matches: matchesPanel(view, { t, name }), list: teamsPanel(view, { t, actions, me, name, link, kept: teamEntry.lineUps }) } : null;
    const byeName = view.teams ? (team) => teamName(view, team) : name;
    fill(body,
      header(view, { t, actions, me, name, teamEntry }),
      h('div', { class: 'event-columns' },
        h('div', { class: 'event-main' }, teams ? [teams.standings, teams.matches] : standingsPanel(view, { t, me, link }),
          roundsPanel(view, { t, me, link, byeName, tools, watching: watchingOf(state), pools: poolsOf(view) })),
        h('aside', { class: 'event-side' }, teams?.list, entrantsPanel(view, { t, me, tools }), logPanel(view, { t, name }))));
  }
  return { update, unmount() {} };
}

/** Name, status, format, director, games' settings; Join/Leave, Start round, and "Your game". */
function header(view, { t, actions, me, name, teamEntry }) {
  const s = view.summary;
  return h('section', { class: 'panel event-head' },
    h('div', { class: 'row spread' },
      h('h2', { 'data-testid': 'event-name' }, s.name, ' ', h('span', { class: `badge event-status status-${s.status}`, 'data-testid': 'event-status' }, t(`event.status.${s.status}`))),
      h('a', { href: '#/' }, `← ${t('event.back')}`)),
    h('p', { class: 'muted' }, `${[formatSummary(s.format, t), t('events.entered', { count: s.entrants_count, max: s.players_max })].join(' · ')} · `,
      withLink(t('event.director', { name: '\u0000' }), profileLink(t, s.director)), ` · ${t('event.lastTie', { rule: t(`event.finalTie.${view.final_tie}`) })}`),
    h('p', { class: 'muted small' }, t('event.games', { settings: settingsSummary(view.settings, t) })),
    // A team event's winner is a team (the teams panel names it).
    view.winner != null && !view.teams ? h('p', { class: 'event-winner', 'data-testid': 'event-winner' }, t('event.winner', { name: name(view.winner) })) : null,
    yourGame(view, { t, me }),
    h('div', { class: 'row' }, entryButtons(view, { t, actions, me, teamEntry }), directorControls(view, { t, actions, me })));
}

/** A translated sentence with a node where its name was (the name given to `t` as \u0000). */
function withLink(text, node) {
  const [before, after = ''] = text.split('\u0000');
  return [before, node, after];
}

function yourGame(view, { t, me }) {
  const mine = myBoard(view, me);
  if (!mine) return null;
  return h('p', { class: 'return-game panel', 'data-testid': 'your-game' },
    h('b', {}, t('event.yourGame', { board: mine.board })), ' ',
    mine.game != null ? h('a', { class: 'button primary', href: `#/game/${mine.game}`, 'data-testid': 'your-game-link' }, t('event.goToGame')) : null);
}

function entryButtons(view, { t, actions, me, teamEntry }) {
  if (view.teams || view.summary.teams) return teamEntry.element(view, me);
  if (me == null || view.summary.status !== 'open') return null;
  const event = view.summary.event;
  return isEntrant(view, me)
    ? [h('span', { class: 'muted' }, t('event.youAreIn')), h('button', { 'data-testid': 'event-leave', onclick: () => actions.leaveEvent(event) }, t('event.leave'))]
    : h('button', { class: 'primary', 'data-testid': 'event-join', onclick: () => actions.joinEvent(event) }, t('event.join'));
}

function directorControls(view, { t, actions, me }) {
  // A finished event has no round left to start: no button at all.
  if (me == null || view.summary.director.user !== me || view.summary.status === 'finished') return null;
  const next = nextRoundState(view);
  return [
    h('button', { class: 'primary', 'data-testid': 'start-round', disabled: !next.ok, onclick: () => actions.startRound(view.summary.event) }, t('event.startRound', { n: next.round })),
    next.ok ? null : h('span', { class: 'muted small', 'data-testid': 'start-round-why' }, t(next.reason, next.vars)),
  ];
}

/** The standings: rank, player, a column per ranking figure (plus score and W/D/L), and byes if any. */
function standingsPanel(view, { t, me, link }) {
  const { criteria, rows } = view.standings;
  const columns = standingsColumns(criteria);
  const anyByes = rows.some((row) => row.byes > 0);
  const text = (value) => (typeof value === 'string' ? value : t(value.key, value.vars));
  const head = h('tr', {}, h('th', {}, t('event.col.rank')), h('th', {}, t('event.col.player')),
    columns.map((c) => h('th', { class: 'num', title: label(`event.hint.${c.id}`, null, t) }, label(`event.col.${c.id}`, c.id, t))),
    anyByes ? h('th', { class: 'num' }, t('event.col.byes')) : null);
  const row = (r) => h('tr', { class: r.player === me ? 'me' : '', 'data-testid': `standing-${r.player}` },
    h('td', {}, r.tied ? `=${r.rank}` : String(r.rank)),
    h('td', {}, link(r.player), flags(r, t)),
    columns.map((c) => h('td', { class: 'num', 'data-col': c.id }, text(c.read(r)))),
    anyByes ? h('td', { class: 'num' }, String(r.byes)) : null);
  return h('section', { class: 'panel', 'data-testid': 'standings' },
    h('h3', {}, t('event.standings')),
    rows.length === 0 ? h('p', { class: 'muted' }, t('event.noStandings')) : h('div', { class: 'table-scroll' },
      h('table', { class: 'records standings' }, h('thead', {}, head), h('tbody', {}, rows.map(row)))),
    h('p', { class: 'muted small' }, t('event.rankedBy', { criteria: criteria.map((c) => label(`event.criterion.${c}`, c, t)).join(' › ') })));
}

/** The text of `key`, or `fallback` when there is none (a figure newer than this client). */
function label(key, fallback, t) {
  const text = t(key);
  return text === key ? fallback : text;
}

function flags(row, t) {
  const list = [];
  if (row.withdrawn) list.push(t('event.withdrawn'));
  if (row.results_void) list.push(t('event.void'));
  if (row.by_lots) list.push(t('event.byLots'));
  return list.length ? h('span', { class: 'muted small' }, ` (${list.join(', ')})`) : null;
}

/** game id → how many watch it, for the live games the hall lists. */
function watchingOf(state) {
  return new Map(state.hall.games.map((g) => [g.game, g.watchers_count]));
}

/** Every round's pairing table, the latest first; a knockout's bracket above them. */
function roundsPanel(view, { t, me, link, byeName, tools, watching, pools }) {
  const rounds = [...view.rounds].reverse();
  return h('section', { class: 'panel', 'data-testid': 'pairings' },
    view.summary.format.kind === 'knockout' && view.rounds.length ? bracket(view, { t, link, byeName }) : null,
    h('h3', {}, t('event.pairings')),
    rounds.length === 0 ? h('p', { class: 'muted' }, t('event.noRounds')) : rounds.map((round) => roundTable(round, { t, me, link, byeName, watching, pools, tools: round === currentRound(view) ? tools : null })));
}

function roundTable(round, { t, me, link, byeName, watching, pools, tools }) {
  const player = (user, color) => h('td', { class: user === me ? 'me' : '' }, h('span', { class: `stone-icon ${color}`, 'aria-hidden': 'true' }), ' ', link(user));
  const rows = round.boards.map((b) => h('tr', { 'data-testid': `board-${round.number}-${b.board}` },
    h('td', {}, String(b.board)), player(b.black, 'black'), player(b.white, 'white'),
    h('td', { 'data-testid': `result-${round.number}-${b.board}` }, resultText(b, t)),
    h('td', {}, gameLink(b, t), watchers(b, watching, t), poolLine(b, pools, t),
      tools && b.game != null && b.outcome == null ? [tools.adjudicate(b.game), tools.halt(b.game)] : null)));
  const names = (list) => list.map(byeName).join(', ');
  return h('div', { class: 'event-round', 'data-testid': `round-${round.number}` },
    h('h4', {}, t('event.roundN', { n: round.number })),
    h('div', { class: 'table-scroll' }, h('table', { class: 'records' },
      h('thead', {}, h('tr', {}, ['event.board', 'color.black', 'color.white', 'event.result', 'event.game'].map((k) => h('th', {}, t(k))))),
      h('tbody', {}, rows))),
    round.byes.length ? h('p', { class: 'small' }, t('event.byes', { names: names(round.byes) })) : null,
    round.resting.length ? h('p', { class: 'small muted' }, t('event.resting', { names: names(round.resting) })) : null);
}

function resultText(board, t) {
  const winner = boardWinner(board);
  if (winner) return t(`event.outcome.${winner}`);
  return h('span', { class: 'muted' }, t(board.game != null ? 'event.inPlay' : 'event.waiting'));
}

/** A live game opens on its board; a finished one as its record (a finished game is no longer live). */
function gameLink(board, t) {
  if (board.game == null) return null;
  return board.outcome == null
    ? h('a', { href: `#/game/${board.game}`, 'data-testid': `event-game-${board.game}` }, t('event.watch'))
    : h('a', { href: `#/replay/${board.game}`, 'data-testid': `event-game-${board.game}` }, t('event.record'));
}

/** A live board's watcher count, as the hall's list of games has it. */
function watchers(board, watching, t) {
  const count = board.outcome == null && board.game != null ? watching.get(board.game) : undefined;
  return count ? h('span', { class: 'muted small' }, ` · ${t('hall.watchers', { count })}`) : null;
}

/** A live board's spectator pool: its total and each side's, once asked. */
function poolLine(board, pools, t) {
  const pool = board.outcome == null && board.game != null ? pools?.get(board.game) : undefined;
  if (!pool) return null;
  return h('span', { class: 'muted small', 'data-testid': `event-pool-${board.game}` }, ` · ${t('event.pool', { total: pool.total ?? 0, black: pool.black ?? 0, white: pool.white ?? 0 })}`);
}

/** A knockout's bracket: a column per round, each board a box with its winner in bold, then the byes. */
function bracket(view, { t, link, byeName }) {
  const side = (user, won) => h('div', { class: `bracket-player${won ? ' won' : ''}` }, link(user));
  const match = (b) => {
    const w = boardWinner(b);
    return h('div', { class: 'bracket-match' }, side(b.black, w === 'black'), side(b.white, w === 'white'));
  };
  const bye = (user) => h('div', { class: 'bracket-match bye' }, h('div', { class: 'bracket-player won' }, byeName(user)), h('div', { class: 'bracket-player muted' }, t('event.byeShort')));
  return h('div', { 'data-testid': 'bracket' },
    h('h3', {}, t('event.bracket')),
    h('div', { class: 'bracket' }, view.rounds.map((round) => h('div', { class: 'bracket-round' },
      h('h4', {}, t('event.roundN', { n: round.number })), h('div', { class: 'bracket-body' }, round.boards.map(match), round.byes.map(bye))))));
}

function entrantsPanel(view, { t, me, tools }) {
  return h('section', { class: 'panel', 'data-testid': 'entrants' },
    h('h3', {}, `${t('event.entrants')} (${view.entrants.length})`),
    view.entrants.length === 0 ? h('p', { class: 'muted' }, t('event.noEntrants')) : h('ol', { class: 'entrant-list' },
      view.entrants.map((e) => h('li', { class: e.player.user === me ? 'me' : '' },
        profileLink(t, e.player, { rank: 'chip' }),
        e.warnings ? h('span', { class: 'muted small' }, ` · ${t('event.warnings', { count: e.warnings })}`) : null,
        e.withdrawn ? h('span', { class: 'muted small' }, ` · ${t('event.withdrawn')}`) : null,
        tools && !e.withdrawn ? tools.entrantButtons(e) : null))));
}

/** The event's log, newest first: who did what, with the time. */
function logPanel(view, { t, name }) {
  const time = (ms) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const lines = view.log.slice(-LOG_SHOWN_MAX).reverse();
  return h('section', { class: 'panel', 'data-testid': 'event-log' },
    h('h3', {}, t('event.log')),
    h('ul', { class: 'event-log' }, lines.map((entry) => h('li', {},
      h('span', { class: 'muted small' }, time(entry.at_ms)), ' ', logText(view, entry, { t, name })))));
}

function logText(view, entry, { t, name }) {
  const user = entry.user != null ? name(entry.user) : '';
  switch (entry.action) {
    case 'created': case 'joined': case 'left': case 'finished':
      return t(`event.log.${entry.action}`, { user });
    case 'round_started':
      return t('event.log.round_started', { user, round: entry.round });
    case 'withdrew': case 'warned':
      return t(`event.log.${entry.action}`, { user, detail: entry.game != null ? t('event.log.in_game', { game: entry.game }) : '' });
    case 'adjudicated':
      return t('event.log.adjudicated', { round: entry.round, game: entry.game ?? '', detail: entry.detail ?? '' });
    case 'paused': case 'adjourned': case 'sealed': case 'resumed':
      return haltLogText(entry, { t, user });
    case 'team_created': case 'team_joined': case 'line_up_set':
      return t(`event.log.${entry.action}`, { user, team: entry.team != null ? teamName(view, entry.team) : '' });
    case 'result': {
      // The server names a result by its board's Black player.
      const round = view.rounds.find((r) => r.number === entry.round);
      const board = round?.boards.find((b) => b.black === entry.user);
      const winner = board ? boardWinner(board) : null;
      if (!board || !winner) return t('event.log.other', { action: `${entry.action} ${user}` });
      return t('event.log.result', { round: entry.round, black: name(board.black), white: name(board.white), result: t(`event.outcome.${winner}`) });
    }
    default:
      return t('event.log.other', { action: entry.action });
  }
}

/**
 * A pause, adjournment, sealed move or resumption in the log: the server names the game (`game`) and the
 * set resumption (`until_ms`, Unix ms), shown in the reader's language and local time.
 */
function haltLogText(entry, { t, user }) {
  const time = entry.until_ms != null
    ? new Date(entry.until_ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : '';
  return t(`event.log.${entry.action}`, { game: entry.game ?? '', time, user });
}
