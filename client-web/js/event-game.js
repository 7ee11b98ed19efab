// The rules' details inside an event's game as the game model keeps them: who is not
// arrived yet and when they forfeit, how late each arrived and what it cost them, the director's warnings
// per colour, a pause or an adjournment (with who seals and whether it is sealed), and a pass the clock
// forced (byo-yomi timeout with `timeout_is_pass`). Times the server gives as "in N ms" become local
// instants here, as the away countdowns do. No DOM: `state.js` folds the state and events in, the board
// page (views/game-notices.js) shows them.

/** The event-rule fields of a game model, from a `game_state`. */
export function eventRulesFrom(s, nowMs) {
  const awaited = {};
  for (const a of s.awaited ?? []) awaited[a.color] = nowMs + a.forfeit_in_ms;
  return {
    awaited,
    arrivals: {},
    warnings: { black: s.warnings_black ?? 0, white: s.warnings_white ?? 0 },
    halt: s.halt ? haltFrom(s.halt, nowMs) : null,
    forcedPass: null,
  };
}

function haltFrom(halt, nowMs) {
  return { kind: halt.kind, resumeAt: nowMs + (halt.resume_in_ms ?? 0), sealer: halt.sealer ?? null, sealed: !!halt.sealed };
}

/** Apply an event-rule game event; false when `msg` is not one (the caller's switch goes on). */
export function applyEventRule(game, msg, nowMs) {
  switch (msg.event) {
    case 'arrived': {
      const { [msg.color]: _gone, ...rest } = game.awaited ?? {};
      game.awaited = rest;
      game.arrivals = { ...game.arrivals, [msg.color]: { lateMs: msg.late_ms, chargedMs: msg.charged_ms } };
      return true;
    }
    case 'warned':
      game.warnings = { ...(game.warnings ?? { black: 0, white: 0 }), [msg.color]: msg.warnings };
      return true;
    case 'paused':
      game.halt = { kind: 'pause', resumeAt: nowMs + (msg.resume_in_ms ?? 0), sealer: null, sealed: false };
      return true;
    case 'adjourned':
      game.halt = { kind: 'adjournment', resumeAt: nowMs + (msg.resume_in_ms ?? 0), sealer: msg.to_move, sealed: false };
      return true;
    case 'sealed':
      if (game.halt) game.halt = { ...game.halt, sealed: true };
      return true;
    case 'resumed':
      game.halt = null;
      return true;
    default:
      return false;
  }
}

/** Whether both clocks stand still: a pause, or an adjournment once its move is sealed. */
export function clocksHalted(game) {
  return !!game.halt && (game.halt.kind === 'pause' || game.halt.sealed);
}

/** The event whose rounds (or matches) hold `gameId`, from the events this client has opened; or null. */
export function eventOfGame(views, gameId) {
  for (const [event, view] of views) if (holdsGame(view.rounds, gameId, 0)) return event;
  return null;
}

/** Whether any object under `value` has `game: gameId` (a round's boards, a team match's boards, a relay's games). */
function holdsGame(value, gameId, depth) {
  if (depth > 8 || value == null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => holdsGame(v, gameId, depth + 1));
  if (value.game === gameId) return true;
  return Object.values(value).some((v) => holdsGame(v, gameId, depth + 1));
}
