// The clocks as the client shows them, between the server's word on them. The server alone decides time
// (docs/rules.md); this module only counts a side's display down between updates. A side's clock has the shape
// the server's `ClockView` uses for each side (main_left_ms, periods_left, period_left_ms,
// moves_left_in_block, block_left_ms, running), so clock updates from the wire drop straight in.
// Pure functions: the caller passes elapsed milliseconds.

/** A side's clock at the start of a game with these settings (`settings.clock` from the wire). */
export function initialSide(clock) {
  const side = { main_left_ms: 0, periods_left: 0, period_left_ms: 0, moves_left_in_block: 0, block_left_ms: 0, running: false };
  switch (clock?.kind) {
    case 'absolute':
      return { ...side, main_left_ms: clock.main_time_ms };
    case 'byo_yomi':
      return { ...side, main_left_ms: clock.main_time_ms, periods_left: clock.periods, period_left_ms: clock.period_ms };
    case 'canadian':
      return { ...side, main_left_ms: clock.main_time_ms, moves_left_in_block: clock.moves, block_left_ms: clock.block_ms };
    case 'fischer':
      return { ...side, main_left_ms: clock.main_time_ms };
    default:
      return null;
  }
}

/** The side's clock after `elapsedMs` of its own thinking time; `flagged` once it has run out. */
export function tick(side, clock, elapsedMs) {
  let s = { ...side };
  let left = elapsedMs;
  const fromMain = Math.min(s.main_left_ms, left);
  s.main_left_ms -= fromMain;
  left -= fromMain;
  if (left <= 0) return s;
  if (clock.kind === 'byo_yomi') {
    while (left > 0 && s.periods_left > 0) {
      const used = Math.min(s.period_left_ms, left);
      s.period_left_ms -= used;
      left -= used;
      if (s.period_left_ms === 0) {
        s.periods_left -= 1;
        s.period_left_ms = s.periods_left > 0 ? clock.period_ms : 0;
      }
    }
    if (s.periods_left === 0) s.flagged = true;
  } else if (clock.kind === 'canadian') {
    s.block_left_ms = Math.max(0, s.block_left_ms - left);
    if (s.block_left_ms === 0) s.flagged = true;
  } else {
    s.flagged = true;
  }
  return s;
}

/** The side's clock after it moved: a fresh period, a block move counted, or the increment added. */
export function afterMove(side, clock) {
  const s = { ...side };
  if (clock.kind === 'byo_yomi' && s.main_left_ms === 0 && s.periods_left > 0) {
    s.period_left_ms = clock.period_ms;
  } else if (clock.kind === 'canadian' && s.main_left_ms === 0) {
    s.moves_left_in_block -= 1;
    if (s.moves_left_in_block <= 0) {
      s.moves_left_in_block = clock.moves;
      s.block_left_ms += clock.block_ms;
    }
  } else if (clock.kind === 'fischer') {
    s.main_left_ms = Math.min(clock.max_time_ms, s.main_left_ms + clock.increment_ms);
  }
  return s;
}

/** What the big digits show: main time, then the current period or block. */
export function displayMs(side) {
  if (side.main_left_ms > 0) return side.main_left_ms;
  if (side.periods_left > 0) return side.period_left_ms;
  if (side.moves_left_in_block > 0) return side.block_left_ms;
  return 0;
}

/** True once the side is in overtime (byo-yomi periods or a moves-in-time block). */
export function inOvertime(side) {
  return side.main_left_ms === 0 && (side.periods_left > 0 || side.moves_left_in_block > 0);
}
