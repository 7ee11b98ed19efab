// Competitions in the hall: the events panel (open for entries, running, finished, each linking to its
// page `#/event/<id>`) kept live by the `event_listed` pushes, and the "Create event" form (name, format
// with its parameters, last tie, players at most, and every game's settings) for logged-in players.
// Also the app's event actions, so `app.js` only spreads them in.

import { h, fill } from '../dom.js';
import { createTeamFields } from './event-teams.js';
import { groupEvents, RANKS_WEAKEST_FIRST } from '../events.js';
import { createSettingsForm, DEFAULT_SETTINGS } from './settings.js';

/**
 * Events the hall's panel lists in each group (newest first), so it stays a few lines above the tables
 * however many there are; "All events" (`#/events`) lists every one.
 */
export const EVENTS_SHOWN_MAX = 5;

/** The requests of the event screens, given the app's plumbing. */
export function eventActions({ send, untilReady, following, toast, go }) {
  return {
    // The event on screen is followed: a reconnect asks for it again (app.js `resubscribe`).
    openEvent(event) {
      following.event = event;
      return untilReady().then(() => send({ type: 'get_event', event }));
    },
    async createEvent(spec) {
      const reply = await send({ type: 'create_event', spec });
      go(`#/event/${reply.event.summary.event}`);
    },
    joinEvent: (event) => send({ type: 'join_event', event }).catch(toast),
    leaveEvent: (event) => send({ type: 'leave_event', event }).catch(toast),
    startRound: (event) => send({ type: 'start_round', event }).catch(toast),
    // The director's actions: each is answered with the event (the state takes it), a refusal with a toast.
    warnEntrant: (event, user) => send({ type: 'event_warn', event, user }).catch(toast),
    withdrawEntrant: (event, user) => send({ type: 'event_withdraw', event, user }).catch(toast),
    adjudicateGame: (event, game, outcome, reason) => send({ type: 'event_adjudicate', event, game, outcome, reason }),
    // A game's director stops and restarts it: acknowledged, the game's events follow.
    pauseGame: (event, game, resumeAtMs) => send({ type: 'event_pause', event, game, resume_at_ms: resumeAtMs }),
    resumeGame: (event, game) => send({ type: 'event_resume', event, game }),
    adjournGame: (event, game, resumeAtMs) => send({ type: 'event_adjourn', event, game, resume_at_ms: resumeAtMs }),
    // The sealed move of an adjourned game (a null point is a pass).
    sealMove: (game, point) => send({ type: 'seal_move', game, point }),
    // Team events: found a team (its captain), join one, a captain's line-up; each answered with the event.
    createTeam: (event, name) => send({ type: 'create_team', event, name }),
    joinTeam: (event, team) => send({ type: 'join_team', event, team }).catch(toast),
    setLineUp: (event, players) => send({ type: 'set_line_up', event, players }),
    // Read an event without following it (the board page looking for its game's event).
    lookUpEvent: (event) => untilReady().then(() => send({ type: 'get_event', event })),
  };
}

/** "Swiss, 5 rounds", "Best of 3": a format with its parameters, in words. */
export function formatSummary(format, t) {
  switch (format.kind) {
    case 'knockout': return t('event.formatSummary.knockout', { n: format.out_after_losses });
    case 'round_robin': return t('event.formatSummary.round_robin', { n: format.cycles });
    case 'swiss': return format.out_after_losses
      ? t('event.formatSummary.swissOut', { n: format.rounds, k: format.out_after_losses })
      : t('event.formatSummary.swiss', { n: format.rounds });
    case 'match': return t('event.formatSummary.match', { n: format.games });
    default: return String(format.kind);
  }
}

/** The page of every event, `#/events`: the hall's panel without its limit. */
export function mountEvents(root, { t, state, actions }) {
  const panel = createEventsPanel({ t, state, actions, shownMax: Infinity });
  root.appendChild(h('main', { class: 'narrow-page' }, h('p', {}, h('a', { href: '#/' }, `← ${t('event.back')}`)), panel.element));
  return { update: panel.update, unmount() {} };
}

/** The events panel (hall and `#/events`): `element` to place, `update()` on every render; `shownMax` per group. */
export function createEventsPanel({ t, state, actions, shownMax }) {
  const lists = { open: h('ul', { class: 'event-list', 'data-testid': 'events-open' }),
    running: h('ul', { class: 'event-list', 'data-testid': 'events-running' }),
    finished: h('ul', { class: 'event-list', 'data-testid': 'events-finished' }) };
  const form = state.me ? createEventForm({ t, actions, onClose: () => { form.element.hidden = true; } }) : null;
  if (form) form.element.hidden = true;
  const createButton = state.me
    ? h('button', { class: 'small primary', 'data-testid': 'create-event', onclick: () => { form.element.hidden = !form.element.hidden; } }, t('events.create'))
    : h('span', { class: 'muted small' }, t('events.loginToCreate'));
  const all = h('a', { href: '#/events', class: 'small', 'data-testid': 'all-events' });
  const element = h('section', { class: 'panel events-panel', 'data-testid': 'events' },
    h('div', { class: 'row spread' }, h('h3', {}, t('events.title')), h('span', { class: 'row' }, all, createButton)),
    form?.element,
    h('div', { class: 'event-groups' },
      ['open', 'running', 'finished'].map((group) => h('div', { class: 'event-group' }, h('h4', {}, t(`events.${group}`)), lists[group]))));

  const line = (e) => h('li', {},
    h('a', { href: `#/event/${e.event}`, 'data-testid': `event-link-${e.event}` }, h('b', {}, e.name)),
    h('span', { class: 'muted small' }, ` ${formatSummary(e.format, t)} · ${t('events.entered', { count: e.entrants_count, max: e.players_max })}${e.ranks ? ` · ${e.ranks.weakest}–${e.ranks.strongest}` : ''}`,
      e.rounds_count ? ` · ${t('events.roundsPlayed', { count: e.rounds_count })}` : ''));

  return {
    element,
    update() {
      const groups = groupEvents(state.events.list);
      for (const [group, items] of Object.entries(groups)) {
        const shown = items.slice(0, shownMax);
        fill(lists[group], shown.length ? shown.map(line) : h('li', { class: 'muted small' }, t('events.none')),
          items.length > shown.length ? h('li', { class: 'muted small' }, t('events.more', { count: items.length - shown.length })) : null);
      }
      all.hidden = shownMax === Infinity || state.events.list.size <= shownMax;
      fill(all, t('events.all', { count: state.events.list.size }));
    },
  };
}

/** The "Create event" form; on success the app goes to the new event's page. */
function createEventForm({ t, actions, onClose }) {
  const number = (name, value, min, max) => h('input', { name, type: 'number', value, min, max, step: 1 });
  const select = (name, options, value) => h('select', { name, 'aria-label': name },
    options.map(([v, label]) => h('option', { value: v, selected: String(v) === String(value) }, label)));
  const field = (label, input) => h('label', { class: 'field' }, h('span', {}, label), input);
  const inputs = {
    name: h('input', { name: 'event-name', type: 'text', maxlength: 60, required: true }),
    format: select('format', ['swiss', 'round_robin', 'knockout', 'match'].map((k) => [k, t(`event.format.${k}`)]), 'swiss'),
    outAfter: number('out-after', 1, 1, 64),
    cycles: number('cycles', 1, 1, 64),
    rounds: number('rounds', 5, 1, 64),
    swissOut: number('swiss-out', 0, 0, 64),
    ranking: select('ranking', ['total_score', 'score_then_opponents'].map((k) => [k, t(`event.ranking.${k}`)]), 'total_score'),
    games: select('games', [3, 4, 5, 6, 7, 10].map((n) => [n, String(n)]), 3),
    finalTie: select('final-tie', ['stands', 'play_off', 'lots'].map((k) => [k, t(`event.finalTie.${k}`)]), 'stands'),
    playersMax: number('players-max', 16, 2, 512),
    weakest: select('weakest-rank', RANKS_WEAKEST_FIRST.map((r) => [r, r]), '30k'),
    strongest: select('strongest-rank', RANKS_WEAKEST_FIRST.map((r) => [r, r]), '9d'),
  };
  const params = {
    outAfter: field(t('events.form.outAfter'), inputs.outAfter),
    cycles: field(t('events.form.cycles'), inputs.cycles),
    rounds: field(t('events.form.rounds'), inputs.rounds),
    swissOut: field(t('events.form.swissOut'), inputs.swissOut),
    ranking: field(t('events.form.ranking'), inputs.ranking),
    games: field(t('events.form.games'), inputs.games),
  };
  const shownFor = { knockout: ['outAfter'], round_robin: ['cycles'], swiss: ['rounds', 'swissOut', 'ranking'], match: ['games'] };
  const sync = () => {
    for (const [name, node] of Object.entries(params)) node.hidden = !shownFor[inputs.format.value].includes(name);
    // A match is between two players.
    const match = inputs.format.value === 'match';
    if (match) inputs.playersMax.value = 2;
    inputs.playersMax.disabled = match;
  };
  inputs.format.addEventListener('change', sync);
  sync();
  const teams = createTeamFields({ t });
  // A relay or all-play-all is between two teams.
  teams.element.addEventListener('change', () => {
    if (teams.twoTeams()) inputs.playersMax.value = 2;
  });
  const settings = createSettingsForm({ t, initial: DEFAULT_SETTINGS, testId: 'event-settings' });
  const error = h('p', { class: 'form-error', role: 'alert' });
  const submit = async (ev) => {
    ev.preventDefault();
    const name = inputs.name.value.trim();
    if (!name) return fill(error, t('events.form.nameNeeded'));
    fill(error);
    try {
      const ranks = readRanks(inputs);
      await actions.createEvent({ name, format: readFormat(inputs), final_tie: inputs.finalTie.value, settings: settings.read(), players_max: Number(inputs.playersMax.value), ...(ranks ? { ranks } : {}), ...(teams.read() ? { teams: teams.read() } : {}) });
    } catch (err) {
      fill(error, actions.errorText(err));
    }
    return null;
  };
  const element = h('form', { class: 'event-form', 'data-testid': 'event-form', onsubmit: submit },
    h('h4', {}, t('events.form.title')),
    h('div', { class: 'settings-form' }, field(t('events.form.name'), inputs.name), field(t('events.form.format'), inputs.format),
      Object.values(params), field(t('events.form.finalTie'), inputs.finalTie), field(t('events.form.playersMax'), inputs.playersMax),
      field(t('events.form.weakest'), inputs.weakest), field(t('events.form.strongest'), inputs.strongest)),
    teams.element,
    settings.element,
    error,
    h('div', { class: 'row end' },
      h('button', { type: 'button', onclick: onClose }, t('events.form.cancel')),
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'event-submit' }, t('events.form.submit'))));
  return { element };
}

/** The entry range from the form, or none when it is the whole scale. */
function readRanks(inputs) {
  const [weakest, strongest] = [inputs.weakest.value, inputs.strongest.value];
  return weakest === '30k' && strongest === '9d' ? null : { weakest, strongest };
}

/** The wire's format from the form's fields. */
function readFormat(inputs) {
  const n = (input) => Number(input.value);
  switch (inputs.format.value) {
    case 'knockout': return { kind: 'knockout', out_after_losses: n(inputs.outAfter) };
    case 'round_robin': return { kind: 'round_robin', cycles: n(inputs.cycles) };
    case 'match': return { kind: 'match', games: n(inputs.games) };
    default: return { kind: 'swiss', rounds: n(inputs.rounds), out_after_losses: n(inputs.swissOut) || null, ranking: inputs.ranking.value };
  }
}
