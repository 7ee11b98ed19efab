// The timekeeper's calls (读秒), in the rules' own cadence: in a byo-yomi period of 60 s the timekeeper
// calls 30, 40, 50, 55 and 58 seconds used; in the last period 30, 40 and 50, then counts the last ten
// seconds 1..10 (ten is the period gone). A period of another length keeps the calls at the same times
// before its end (30, 20, 10, 5 and 2 s left), those that fit. Other clocks count their last ten seconds
// down (10..1). A call is made when the running clock crosses its moment, never at the start of a turn
// (a fresh period has used nothing yet). Pure functions over the clock sides of clock.js.
//
//   clockCall(settings.clock, sideBefore, sideAfter) → null | {kind: 'used', seconds} | {kind: 'count', n} | {kind: 'left', seconds}

import { displayMs } from './clock.js';
import { secondToAnnounce, ANNOUNCE_FROM_SECONDS } from './timefmt.js';

/** Seconds before a period's end at which the timekeeper calls the seconds used (60 s: 30, 40, 50, 55, 58). */
const CALLS_BEFORE_END_S = [30, 20, 10, 5, 2];
/** In the last period the calls stop at 10 s left: the last ten are counted instead. */
const LAST_PERIOD_CALLS_BEFORE_END_S = [30, 20, 10];
/** How many seconds are counted at the end of the last period (and counted down on other clocks). */
export const COUNTED_SECONDS = ANNOUNCE_FROM_SECONDS;

/** The moments (ms used in the period) of a period's calls, each with its call, latest last. */
export function periodCalls(periodMs, last) {
  const calls = [];
  for (const s of last ? LAST_PERIOD_CALLS_BEFORE_END_S : CALLS_BEFORE_END_S) {
    const at = periodMs - s * 1000;
    if (at > 0) calls.push({ at, call: { kind: 'used', seconds: at / 1000 } });
  }
  if (last) {
    for (let n = 1; n <= COUNTED_SECONDS; n++) {
      const at = periodMs - (COUNTED_SECONDS - n) * 1000;
      if (at > 0) calls.push({ at, call: { kind: 'count', n } });
    }
  }
  return calls.sort((a, b) => a.at - b.at);
}

/** The byo-yomi call crossed between two readings of one side's clock, or null. */
function byoYomiCall(clock, before, after) {
  const period = clock.period_ms;
  if (after.main_left_ms > 0 || !(period > 0)) return null;
  let usedBefore = before.main_left_ms > 0 ? 0 : period - before.period_left_ms;
  let usedAfter = period - after.period_left_ms;
  let last = before.periods_left <= 1;
  if (after.periods_left !== before.periods_left) {
    if (after.periods_left === 0) usedAfter = period; // the last period ran out: its "10"
    else {
      // A new period began: its calls start from nothing used.
      usedBefore = 0;
      last = after.periods_left <= 1;
    }
  }
  let crossed = null;
  for (const { at, call } of periodCalls(period, last)) if (usedBefore < at && at <= usedAfter) crossed = call;
  return crossed;
}

/** The last seconds counted down on a clock without periods (or a moves-in-time block). */
function lastSecondsCall(before, after) {
  const seconds = secondToAnnounce(displayMs(before), displayMs(after));
  return seconds ? { kind: 'left', seconds } : null;
}

/**
 * The call to make as a running side's clock goes from `before` to `after` (two readings of the same
 * turn; pass the same reading twice, or null before, at a turn's start), or null.
 */
export function clockCall(clock, before, after) {
  if (!before || !after || !clock || clock.kind === 'none') return null;
  if (clock.kind === 'byo_yomi') return byoYomiCall(clock, before, after);
  return lastSecondsCall(before, after);
}

/** What a call says, in words: `t` is the translator. */
export function callText(call, t) {
  if (call.kind === 'used') return t('clock.call.used', { seconds: call.seconds });
  if (call.kind === 'count') return String(call.n);
  return String(call.seconds);
}
