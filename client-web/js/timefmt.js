// Time formatting for clocks and chat, and which seconds to announce. Pure functions (no DOM, no Date.now),
// so the clock view and the unit tests share them.

/** "m:ss", or "h:mm:ss" from an hour up; a negative time shows as 0:00. Rounds up, as clocks do. */
export function formatClock(ms) {
  const totalSeconds = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  const ss = String(seconds).padStart(2, '0');
  if (hours > 0) return `${hours}:${String(minutes).padStart(2, '0')}:${ss}`;
  return `${minutes}:${ss}`;
}

/** A duration for settings: "10 min", "30 s", "1 h 30 min". */
export function formatDuration(ms, units = { h: 'h', min: 'min', s: 's' }) {
  const totalSeconds = Math.round(ms / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  const parts = [];
  if (h) parts.push(`${h} ${units.h}`);
  if (m) parts.push(`${m} ${units.min}`);
  if (s || parts.length === 0) parts.push(`${s} ${units.s}`);
  return parts.join(' ');
}

/** "14:05" for a chat line's `at_ms`, in the given time zone offset (minutes east of UTC). */
export function formatChatTime(atMs, offsetMinutes = 0) {
  const d = new Date(atMs + offsetMinutes * 60000);
  return `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
}

/** How many seconds to announce when a clock shows `ms` left of its current budget: the last ten. */
export const ANNOUNCE_FROM_SECONDS = 10;

/**
 * The whole second to announce when a ticking budget goes from `beforeMs` to `afterMs`, or null.
 * Announces each whole second crossed inside the last ten (10, 9, ... 1), once.
 */
export function secondToAnnounce(beforeMs, afterMs) {
  const before = Math.ceil(beforeMs / 1000);
  const after = Math.ceil(afterMs / 1000);
  if (after >= before || after > ANNOUNCE_FROM_SECONDS || after <= 0) return null;
  return after;
}
