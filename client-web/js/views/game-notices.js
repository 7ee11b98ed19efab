// What the board page says beside the clocks about a forced pass and an event game's rules: "Black ran
// out of time: a pass was played for them"; the link back to the event (the game's settings name it; an
// older server's event is found among the running events' rounds); each colour's warnings; who is
// not arrived yet with the countdown to their forfeit, and how late each arrived and what it cost; a
// pause with its resume time; and an adjournment (封棋): the player to move picks a point on the board
// (or a pass) and seals it, everyone else reads "move sealed, resumes at …". The model's fields come
// from event-game.js. `clicked` takes a board click while the player seals (the move is not played).

import { h, fill } from '../dom.js';
import { formatClock } from '../timefmt.js';
import { pointName } from '../geometry.js';
import { eventOfGame } from '../event-game.js';

/** An arrival later than this is told; one within it is on time (a player's page connects in milliseconds). */
const LATE_SHOWN_MS = 1000;
/** Running events looked through for a game's event when the client has none of them open. */
const EVENTS_LOOKED_MAX = 20;

export function createGameNotices({ t, actions, state, gameId, run }) {
  const forced = h('p', { class: 'notice', role: 'status', 'data-testid': 'forced-pass' });
  const eventLine = h('p', { class: 'small', 'data-testid': 'event-of-game' });
  const warnings = h('p', { class: 'small', 'data-testid': 'warnings' });
  const lateness = h('p', { class: 'away', role: 'status', 'data-testid': 'lateness' });
  const arrivals = h('p', { class: 'small muted', 'data-testid': 'arrivals' });
  const halt = h('div', { class: 'halt', role: 'status', 'data-testid': 'halt' });
  const element = h('div', { class: 'game-notices' }, forced, eventLine, warnings, lateness, arrivals, halt);
  let sealPoint = null; // the point the sealer picked, not sent yet

  const colorName = (color) => t(`color.${color}`);
  const clockTime = (resumeAt) => new Date(resumeAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

  /**
   * Open the running events not looked at yet until one holds this game (the game's state does not name
   * its event). Asked again as the hall's list of events arrives or grows; each event is read once.
   */
  const looked = new Set();
  let looking = false;
  async function lookUpEvent() {
    if (looking) return;
    looking = true;
    try {
      const running = [...state.events.list.values()].filter((e) => e.status !== 'open' && e.status !== 'finished' && !looked.has(e.event));
      for (const e of running) {
        if (looked.size >= EVENTS_LOOKED_MAX || eventOfGame(state.events.views, gameId) != null) return;
        looked.add(e.event);
        try {
          await actions.lookUpEvent(e.event);
        } catch {
          // A refusal only means this one is not to be read; look on.
        }
      }
    } finally {
      looking = false;
    }
  }

  function drawEventLine(g) {
    // The game's settings name its event; a server that does not say is asked through its events' rounds.
    const event = g.settings.event ?? eventOfGame(state.events.views, gameId);
    const eventGame = g.settings.lateness_limit_ms != null || event != null;
    if (!eventGame) return fill(eventLine);
    if (event == null) lookUpEvent();
    else if (!state.events.list.has(event) && !looked.has(event)) {
      // Its name: read the event once.
      looked.add(event);
      actions.lookUpEvent(event).catch(() => {});
    }
    const summary = event != null ? state.events.list.get(event) : null;
    return fill(eventLine, event == null ? h('span', { class: 'muted' }, t('eventGame.unknownEvent'))
      : h('a', { href: `#/event/${event}`, 'data-testid': 'event-link' }, `← ${t('eventGame.backToEvent', { name: summary?.name ?? `#${event}` })}`));
  }

  function drawWarnings(g) {
    const list = ['black', 'white'].filter((c) => (g.warnings?.[c] ?? 0) > 0)
      .map((c) => t('eventGame.warnings', { color: colorName(c), count: g.warnings[c] }));
    warnings.textContent = list.join(' · ');
  }

  /** Who is awaited, counting down to their forfeit (a warning), and who arrived late and what it cost. */
  function drawLateness(g, now) {
    const over = g.phase === 'over';
    const waiting = over ? [] : Object.entries(g.awaited ?? {}).map(([c, at]) => t('eventGame.awaited', { color: colorName(c), time: formatClock(Math.max(0, at - now)) }));
    const arrived = Object.entries(g.arrivals ?? {}).filter(([, a]) => a.lateMs >= LATE_SHOWN_MS).map(([c, a]) => t('eventGame.arrived', { color: colorName(c), late: formatClock(a.lateMs), charged: formatClock(a.chargedMs) }));
    fill(lateness, waiting.join(' · '));
    fill(arrivals, arrived.join(' · '));
  }

  function drawHalt(g, mine) {
    const stop = g.phase === 'playing' ? g.halt : null;
    halt.className = stop ? 'halt shown' : 'halt';
    if (!stop) {
      sealPoint = null;
      return fill(halt);
    }
    const at = clockTime(stop.resumeAt);
    if (stop.kind === 'pause') return fill(halt, h('b', {}, t('eventGame.paused', { time: at })));
    if (stop.sealed) return fill(halt, h('b', {}, t('eventGame.sealedResumes', { color: colorName(stop.sealer), time: at })));
    if (mine !== stop.sealer) return fill(halt, h('b', {}, t('eventGame.adjourned', { color: colorName(stop.sealer), time: at })));
    // The sealer's dialog: pick a point on the board (or a pass), then seal it; nobody else sees it.
    const size = g.settings.size;
    return fill(halt, h('div', { class: 'seal-dialog', 'data-testid': 'seal-dialog' },
      h('b', {}, t('eventGame.sealYours', { time: at })),
      h('p', { class: 'small' }, sealPoint ? t('eventGame.sealPicked', { point: pointName(sealPoint, size) }) : t('eventGame.sealPick')),
      h('div', { class: 'row' },
        h('button', { class: 'primary', 'data-testid': 'seal-move', disabled: !sealPoint, onclick: () => seal(sealPoint) },
          sealPoint ? t('eventGame.sealPoint', { point: pointName(sealPoint, size) }) : t('eventGame.sealPoint', { point: '…' })),
        h('button', { 'data-testid': 'seal-pass', onclick: () => seal(null) }, t('eventGame.sealPass')))));
  }

  function seal(point) {
    run(actions.sealMove(gameId, point));
  }

  return {
    element,
    /** A board click while this player seals picks the point (true: the click is taken). */
    clicked(g, mine, point) {
      const stop = g.phase === 'playing' ? g.halt : null;
      if (!stop) return false;
      if (stop.kind === 'adjournment' && !stop.sealed && mine && mine === stop.sealer && g.board[point.row]?.[point.col] === '.') {
        sealPoint = point;
        drawHalt(g, mine);
      }
      // No move is played while the game stands still.
      return true;
    },
    update(g, mine) {
      forced.textContent = g.forcedPass && g.phase !== 'over' ? t('game.forcedPass', { color: colorName(g.forcedPass) }) : '';
      forced.className = forced.textContent ? 'notice shown' : 'notice';
      drawEventLine(g);
      drawWarnings(g);
      drawLateness(g, Date.now());
      drawHalt(g, mine);
    },
    /** The countdowns, redrawn with the clocks. */
    tick(g, now) {
      drawLateness(g, now);
    },
  };
}
