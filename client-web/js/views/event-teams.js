// A team event (团体赛) on the event page and in the create form: the
// form's "teams of N players" and line-up (分台定人制 fixed boards, 临场出人制 free line-up, 全队循环制
// all-play-all, 擂台赛 relay); founding, joining and leaving a team while the event is open; every team
// with its captain and players in board order; the team standings (match points 场分, board points 局分,
// then board 1, board 2, ...); each round's matches with their boards and points; a relay's two orders
// and where it stands; a captain's line-up for the next match (free line-up). The view's `teams` is the
// server's `TeamsView`; the boards themselves are the round's individual games (event.js draws them).

import { h, fill } from '../dom.js';
import { boardWinner } from '../events.js';

/** The line-ups the form offers, in the order players meet them. */
const LINE_UPS = ['fixed_boards', 'free_line_up', 'all_play_all', 'relay'];
/** Players per team the server takes (teams in the competition rules are small: the core bounds them at 8). */
export const TEAM_PLAYERS_MAX = 8;
/** Team-name characters the form lets through (the server has the last word). */
const TEAM_NAME_CHARS_MAX = 40;

/** The create form's team fields: `element`, and `read()` giving the spec's `teams` (null: individual). */
export function createTeamFields({ t }) {
  const kind = h('select', { name: 'entry', 'aria-label': t('teams.form.entry') },
    h('option', { value: 'individual' }, t('teams.form.individual')), h('option', { value: 'teams' }, t('teams.form.teams')));
  const players = h('input', { name: 'team-players', type: 'number', value: 3, min: 1, max: TEAM_PLAYERS_MAX, step: 1 });
  const lineUp = h('select', { name: 'line-up', 'aria-label': t('teams.form.lineUp') }, LINE_UPS.map((l) => h('option', { value: l }, t(`teams.lineUp.${l}`))));
  const field = (label, input) => h('label', { class: 'field' }, h('span', {}, label), input);
  const teamOnly = [field(t('teams.form.players'), players), field(t('teams.form.lineUp'), lineUp)];
  const hint = h('p', { class: 'muted small team-hint', 'data-testid': 'team-hint' });
  const sync = () => {
    const teams = kind.value === 'teams';
    for (const node of teamOnly) node.hidden = !teams;
    hint.textContent = teams ? t(`teams.hint.${lineUp.value}`) : '';
  };
  kind.addEventListener('change', sync);
  lineUp.addEventListener('change', sync);
  sync();
  return {
    element: h('div', { class: 'settings-form', 'data-testid': 'team-fields' }, field(t('teams.form.entry'), kind), teamOnly, hint),
    read: () => (kind.value === 'teams' ? { players: Number(players.value), line_up: lineUp.value } : null),
    /** Two-team ways of play: the form's most-entrants field then means two teams. */
    twoTeams: () => kind.value === 'teams' && (lineUp.value === 'relay' || lineUp.value === 'all_play_all'),
  };
}

/** team id → the team, and a team's name (or "#id" for one the view does not list). */
export function teamsOf(view) {
  return new Map((view.teams?.teams ?? []).map((team) => [team.team, team]));
}

export function teamName(view, id) {
  return teamsOf(view).get(id)?.name ?? `#${id}`;
}

/** The team `user` plays in, or null. */
function myTeam(view, user) {
  return user == null ? null : (view.teams?.teams ?? []).find((team) => team.players.includes(user)) ?? null;
}

/**
 * While the event is open: found a team, or leave one's own (joining is on each team's line). The page is
 * drawn afresh on every push, so the form is made once per page and kept: what is typed survives.
 */
export function createTeamEntry({ t, actions, event }) {
  const name = h('input', { name: 'team-name', type: 'text', maxlength: TEAM_NAME_CHARS_MAX, placeholder: t('teams.namePlaceholder'), 'aria-label': t('teams.namePlaceholder') });
  const error = h('span', { class: 'form-error small', role: 'alert' });
  name.addEventListener('input', () => fill(error));
  const found = (ev) => {
    ev.preventDefault();
    const text = name.value.trim();
    if (!text) return fill(error, t('teams.nameNeeded'));
    fill(error);
    actions.createTeam(event, text).catch((err) => fill(error, actions.errorText(err)));
    return null;
  };
  const form = h('form', { class: 'row', 'data-testid': 'team-create', onsubmit: found }, name,
    h('button', { type: 'submit', class: 'primary', 'data-testid': 'team-create-submit' }, t('teams.create')), error);
  return {
    /** The captains' line-up forms, kept across redraws (see `lineUpEditor`). */
    lineUps: new Map(),
    element(view, me) {
      if (me == null || view.summary.status !== 'open') return null;
      const mine = myTeam(view, me);
      if (!mine) return form;
      return [h('span', { class: 'muted', 'data-testid': 'my-team' }, t('teams.youAreIn', { name: mine.name })),
        h('button', { 'data-testid': 'event-leave', onclick: () => actions.leaveEvent(event) }, t('teams.leave'))];
    },
  };
}

/** The teams: name, captain, players in board order (a free line-up's next order when the captain set one). */
export function teamsPanel(view, { t, actions, me, name, link = name, kept }) {
  const rules = view.teams.rules;
  const open = view.summary.status === 'open';
  const joinable = (team) => open && me != null && !myTeam(view, me) && team.players.length < rules.players;
  const line = (team) => h('li', { 'data-testid': `team-${team.team}`, class: team.players.includes(me) ? 'me' : '' },
    h('b', {}, team.name), ' ', h('span', { class: 'muted small' }, t('teams.count', { count: team.players.length, max: rules.players })),
    joinable(team) ? h('button', { class: 'small', 'data-testid': `join-team-${team.team}`, onclick: () => actions.joinTeam(view.summary.event, team.team) }, t('teams.join')) : null,
    h('ol', { class: 'team-players' }, team.players.map((user) => h('li', {}, link(user), user === team.captain ? h('span', { class: 'muted small' }, ` · ${t('teams.captain')}`) : null))),
    team.next_line_up ? h('p', { class: 'muted small' }, t('teams.nextLineUp', { names: team.next_line_up.map(name).join(', ') })) : null,
    lineUpEditor(view, team, { t, actions, me, name, kept }));
  return h('section', { class: 'panel', 'data-testid': 'teams' },
    h('h3', {}, `${t('teams.title')} (${view.teams.teams.length})`),
    h('p', { class: 'muted small' }, t('teams.rules', { players: rules.players, lineUp: t(`teams.lineUp.${rules.line_up}`) })),
    view.teams.winner != null ? h('p', { class: 'event-winner', 'data-testid': 'team-winner' }, t('teams.winner', { name: teamName(view, view.teams.winner) })) : null,
    view.teams.teams.length === 0 ? h('p', { class: 'muted' }, t('teams.none')) : h('ul', { class: 'team-list' }, view.teams.teams.map(line)));
}

/**
 * A captain's order for the next match (free line-up): a board-by-board choice among the team's players.
 * Kept in `kept` across the page's redraws (keyed by the team and its players), so a choice survives a push.
 */
function lineUpEditor(view, team, { t, actions, me, name, kept }) {
  if (view.teams.rules.line_up !== 'free_line_up' || team.captain !== me || view.summary.status === 'finished') return null;
  if (team.players.length !== view.teams.rules.players) return null;
  const key = `${team.team}:${team.players.join(',')}`;
  if (!kept.has(key)) kept.set(key, lineUpForm(view, team, { t, actions, name }));
  return kept.get(key);
}

function lineUpForm(view, team, { t, actions, name }) {
  const current = team.next_line_up ?? team.players;
  const selects = current.map((user, i) => h('select', { name: `board-${i + 1}`, 'aria-label': t('teams.boardN', { n: i + 1 }) },
    team.players.map((p) => h('option', { value: String(p), selected: p === user }, name(p)))));
  const error = h('span', { class: 'form-error small', role: 'alert' });
  const submit = (ev) => {
    ev.preventDefault();
    const players = selects.map((s) => Number(s.value));
    if (new Set(players).size !== players.length) return fill(error, t('teams.lineUpTwice'));
    fill(error);
    actions.setLineUp(view.summary.event, players).catch((err) => fill(error, actions.errorText(err)));
    return null;
  };
  return h('form', { class: 'row', 'data-testid': 'line-up', onsubmit: submit },
    selects.map((s, i) => h('label', { class: 'small' }, `${t('teams.boardN', { n: i + 1 })} `, s)),
    h('button', { type: 'submit', class: 'small', 'data-testid': 'line-up-submit' }, t('teams.setLineUp')), error);
}

/** The team standings: rank, team, matches, match points, board points, then each board's points. */
export function teamStandingsPanel(view, { t }) {
  const rows = view.teams.standings;
  const boards = view.teams.rules.players;
  const boardCols = Array.from({ length: boards }, (_, i) => i);
  const head = h('tr', {}, h('th', {}, t('event.col.rank')), h('th', {}, t('teams.col.team')), h('th', { class: 'num' }, t('teams.col.matches')),
    h('th', { class: 'num', title: t('teams.hint.matchPoints') }, t('teams.col.matchPoints')), h('th', { class: 'num', title: t('teams.hint.boardPoints') }, t('teams.col.boardPoints')),
    boardCols.map((i) => h('th', { class: 'num' }, t('teams.col.boardN', { n: i + 1 }))));
  const row = (r) => h('tr', { 'data-testid': `team-standing-${r.team}` },
    h('td', {}, r.tied ? `=${r.rank}` : String(r.rank)), h('td', {}, teamName(view, r.team)),
    h('td', { class: 'num' }, String(r.matches)), h('td', { class: 'num', 'data-col': 'match_points' }, String(r.match_points)),
    h('td', { class: 'num', 'data-col': 'board_points' }, String(r.board_points)),
    boardCols.map((i) => h('td', { class: 'num', 'data-col': `board_${i + 1}` }, String(r.board_points_by_board[i] ?? 0))));
  return h('section', { class: 'panel', 'data-testid': 'team-standings' },
    h('h3', {}, t('teams.standings')),
    rows.length === 0 ? h('p', { class: 'muted' }, t('event.noStandings')) : h('div', { class: 'table-scroll' },
      h('table', { class: 'records standings' }, h('thead', {}, head), h('tbody', {}, rows.map(row)))),
    h('p', { class: 'muted small' }, t('teams.rankedBy')));
}

/** Each round's matches: home against away, board points (and match points once decided), each board. */
export function matchesPanel(view, { t, name }) {
  const matches = view.teams.matches;
  const boardsOf = (m) => {
    const round = view.rounds.find((r) => r.number === m.round);
    return (round?.boards ?? []).filter((b) => m.boards.includes(b.board));
  };
  const boardLine = (b) => {
    const w = boardWinner(b);
    return h('li', { class: 'small' }, t('teams.boardLine', { n: b.board, black: name(b.black), white: name(b.white) }), ' ',
      h('span', { class: w ? '' : 'muted' }, w ? t(`event.outcome.${w}`) : t(b.game != null ? 'event.inPlay' : 'event.waiting')),
      b.game != null ? [' · ', h('a', { href: b.outcome == null ? `#/game/${b.game}` : `#/replay/${b.game}` }, t(b.outcome == null ? 'event.watch' : 'event.record'))] : null);
  };
  const match = (m) => h('div', { class: 'team-match', 'data-testid': `match-${m.round}-${m.home}` },
    h('p', {}, t('teams.roundN', { n: m.round }), ' · ', h('b', {}, teamName(view, m.home)), ' – ', h('b', {}, teamName(view, m.away)), ' ',
      h('span', { 'data-testid': `match-points-${m.round}-${m.home}` }, m.match_points
        ? t('teams.decided', { home: m.board_points[0], away: m.board_points[1], mpHome: m.match_points[0], mpAway: m.match_points[1] })
        : t('teams.sofar', { home: m.board_points[0], away: m.board_points[1] }))),
    h('ul', { class: 'team-boards' }, boardsOf(m).map(boardLine)));
  return h('section', { class: 'panel', 'data-testid': 'team-matches' },
    h('h3', {}, t('teams.matches')),
    view.teams.relay ? relayPanel(view, { t, name }) : null,
    matches.length === 0 ? h('p', { class: 'muted' }, t('event.noRounds')) : [...matches].reverse().map(match));
}

/** A relay (擂台赛): each side's order, who is out, and who plays now or next, or how it ended. */
function relayPanel(view, { t, name }) {
  const relay = view.teams.relay;
  // The relay is the teams' one match: its home and away, else the teams in order.
  const teams = teamsOf(view);
  const first = view.teams.matches[0];
  const home = first ? teams.get(first.home) : view.teams.teams[0];
  const away = first ? teams.get(first.away) : view.teams.teams[1];
  const state = relay.state ?? {};
  const stateText = {
    next: () => t('teams.relay.next', { home: name(state.home), away: name(state.away) }),
    playing: () => t('teams.relay.playing', { home: name(state.home), away: name(state.away) }),
    won: () => t('teams.relay.won', { name: state.side === 'home' ? home?.name ?? '?' : away?.name ?? '?' }),
    drawn: () => t('teams.relay.drawn'),
  }[state.state];
  const order = (label, users, current) => h('p', { class: 'small' }, h('b', {}, `${label}: `),
    users.map((user, i) => [i ? ' → ' : '', h('span', { class: user === current ? 'relay-now' : '' }, name(user))]));
  return h('div', { class: 'relay', 'data-testid': 'relay' },
    h('h4', {}, t('teams.relay')),
    order(home?.name ?? t('teams.home'), relay.home, state.home),
    order(away?.name ?? t('teams.away'), relay.away, state.away),
    h('p', { 'data-testid': 'relay-state' }, stateText ? stateText() : String(state.state ?? '')));
}
