// Game settings: the form White fills in to propose (also used for challenges), and the one-line summary
// Black reads before confirming. Reads and writes the wire's `GameSettings` shape.

import { h } from '../dom.js';
import { formatDuration } from '../timefmt.js';

const REMEMBERED_KEY = 'tengen.settings';
const CLOCK_KINDS = ['none', 'absolute', 'byo_yomi', 'canadian', 'fischer'];

/** Keep the settings this browser last proposed, for the next table's form. */
export function rememberSettings(settings, storage = globalThis.localStorage) {
  storage?.setItem(REMEMBERED_KEY, JSON.stringify(settings));
}

/** The settings this browser last proposed, or null (none kept, or not settings any more). */
export function rememberedSettings(storage = globalThis.localStorage) {
  try {
    const s = JSON.parse(storage?.getItem(REMEMBERED_KEY) ?? 'null');
    const plausible = s && [9, 13, 19].includes(s.size) && Number.isInteger(s.komi_half_points) && Number.isInteger(s.handicap)
      && typeof s.ko_rule === 'string' && CLOCK_KINDS.includes(s.clock?.kind);
    return plausible ? { ...DEFAULT_SETTINGS, ...s, clock: { ...s.clock } } : null;
  } catch {
    return null;
  }
}

export const DEFAULT_SETTINGS = {
  size: 19,
  komi_half_points: 15,
  handicap: 0,
  ko_rule: 'positional',
  clock: { kind: 'byo_yomi', main_time_ms: 600000, periods: 3, period_ms: 30000 },
  nigiri: false,
};

const MIN = 60000;
const SEC = 1000;

/** A form for `GameSettings`; `read()` returns the settings it shows. */
export function createSettingsForm({ t, initial = DEFAULT_SETTINGS, testId = 'settings-form' }) {
  const s = structuredClone(initial);
  const c = s.clock;
  const select = (name, options, value) => h('select', { name, 'aria-label': name },
    options.map(([v, label]) => h('option', { value: v, selected: String(v) === String(value) }, label)));
  const number = (name, value, attrs = {}) => h('input', { name, type: 'number', value, ...attrs });
  const size = select('size', [[9, '9×9'], [13, '13×13'], [19, '19×19']], s.size);
  const komi = number('komi', s.komi_half_points / 2, { step: 0.5, min: -50, max: 50 });
  const handicap = select('handicap', [[0, '0'], ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => [n, String(n)])], s.handicap);
  const ko = select('ko_rule', ['positional', 'situational', 'simple'].map((k) => [k, t(`settings.ko.${k}`)]), s.ko_rule);
  const kind = select('clock', ['none', 'absolute', 'byo_yomi', 'canadian', 'fischer'].map((k) => [k, t(`settings.clock.${k}`)]), c.kind);
  const main = number('main', (c.main_time_ms ?? 600000) / MIN, { min: 0, step: 1 });
  const periods = number('periods', c.periods ?? 3, { min: 1, max: 100 });
  const period = number('period', (c.period_ms ?? 30000) / SEC, { min: 1 });
  const moves = number('moves', c.moves ?? 25, { min: 1 });
  const block = number('block', (c.block_ms ?? 300000) / MIN, { min: 1 });
  const increment = number('increment', (c.increment_ms ?? 10000) / SEC, { min: 0 });
  const nigiri = h('input', { type: 'checkbox', name: 'nigiri', checked: s.nigiri });
  // docs/rules.md: on request, running out of the last byo-yomi period is a forced pass instead of a loss.
  const timeoutIsPass = h('input', { type: 'checkbox', name: 'timeout_is_pass', checked: !!c.timeout_is_pass });
  const field = (label, input, cls = '') => h('label', { class: `field ${cls}` }, h('span', {}, label), input);
  const clockFields = {
    main: field(t('settings.mainMinutes'), main),
    periods: field(t('settings.periods'), periods),
    period: field(t('settings.periodSeconds'), period),
    moves: field(t('settings.moves'), moves),
    block: field(t('settings.blockMinutes'), block),
    increment: field(t('settings.incrementSeconds'), increment),
    timeoutIsPass: h('label', { class: 'field check' }, timeoutIsPass, h('span', {}, t('settings.timeoutIsPass'))),
  };
  const shownFor = { none: [], absolute: ['main'], byo_yomi: ['main', 'periods', 'period', 'timeoutIsPass'], canadian: ['main', 'moves', 'block'], fischer: ['main', 'increment'] };
  const syncClockFields = () => {
    for (const [name, node] of Object.entries(clockFields)) node.hidden = !shownFor[kind.value].includes(name);
  };
  kind.addEventListener('change', syncClockFields);
  // Under the rules a handicap game has no komi (Black gives back half the handicap stones at the count
  // instead), so choosing a handicap sets komi to 0, and going back to none restores the even game's.
  handicap.addEventListener('change', () => {
    komi.value = Number(handicap.value) > 0 ? 0 : DEFAULT_SETTINGS.komi_half_points / 2;
  });
  syncClockFields();
  const element = h('div', { class: 'settings-form', 'data-testid': testId },
    field(t('settings.size'), size), field(t('settings.komi'), komi), field(t('settings.handicap'), handicap),
    field(t('settings.ko'), ko), field(t('settings.clock'), kind), Object.values(clockFields),
    h('label', { class: 'field check' }, nigiri, h('span', {}, t('settings.nigiri'))));
  return {
    element,
    read() {
      const mainMs = Math.round(Number(main.value) * MIN);
      const clocks = {
        none: { kind: 'none' },
        absolute: { kind: 'absolute', main_time_ms: mainMs },
        byo_yomi: { kind: 'byo_yomi', main_time_ms: mainMs, periods: Number(periods.value), period_ms: Math.round(Number(period.value) * SEC),
          // Sent only when set, as the server writes it (so a proposal reads back the same).
          ...(timeoutIsPass.checked ? { timeout_is_pass: true } : {}) },
        canadian: { kind: 'canadian', main_time_ms: mainMs, moves: Number(moves.value), block_ms: Math.round(Number(block.value) * MIN) },
        fischer: { kind: 'fischer', main_time_ms: mainMs, increment_ms: Math.round(Number(increment.value) * SEC), max_time_ms: 2 * Math.max(mainMs, MIN) },
      };
      return {
        size: Number(size.value),
        komi_half_points: Math.round(Number(komi.value) * 2),
        handicap: Number(handicap.value),
        ko_rule: ko.value,
        clock: clocks[kind.value],
        nigiri: nigiri.checked,
      };
    },
  };
}

/** "19×19 · komi 7.5 · 10 min + 3×30 s · positional superko" */
export function settingsSummary(s, t) {
  const units = t('settings.mainMinutes').includes('分') ? { h: '小时', min: '分', s: '秒' } : { h: 'h', min: 'min', s: 's' };
  const d = (ms) => formatDuration(ms, units);
  const c = s.clock;
  const clock = c.kind === 'none' ? t('settings.clock.none')
    : `${t(`settings.clock.${c.kind}`)} ${t(`settings.summary.${c.kind}`, {
      main: d(c.main_time_ms), periods: c.periods, period: d(c.period_ms ?? 0), moves: c.moves, block: d(c.block_ms ?? 0), increment: d(c.increment_ms ?? 0),
    })}`;
  const parts = [`${s.size}×${s.size}`, `${t('settings.komi')} ${s.komi_half_points / 2}`];
  if (s.handicap) parts.push(`${t('settings.handicap')} ${s.handicap}`);
  parts.push(clock);
  if (c.timeout_is_pass) parts.push(t('settings.timeoutIsPass'));
  parts.push(t(`settings.ko.${s.ko_rule}`));
  if (s.nigiri) parts.push(t('settings.nigiri'));
  return parts.join(' · ');
}

/** Whether two `GameSettings` are the same (key order aside, as a stored copy may differ from the wire's). */
export function sameSettings(a, b) {
  const canonical = (v) => (v && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${k}:${canonical(v[k])}`).join(',')}}` : JSON.stringify(v));
  return !!a && !!b && canonical(a) === canonical(b);
}
