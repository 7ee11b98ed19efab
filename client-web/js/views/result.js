// The result of a finished game at a glance: a banner with the winner's stone and the reason in words,
// and for a counted game the count in the form of the rules (see ../result.js), in points as well.

import { h } from '../dom.js';
import { countedResult, quarterStones, pointsText } from '../result.js';

/** The banner: "Black wins" (黑胜) with how (by resignation, on time, by counting: ¾ stone, 1.5 points). */
export function resultBanner(game, { t, lang, reasonKey }) {
  const o = game.outcome;
  // The margin from the counts (a live game's outcome) or as a record's result gave it (W+7.5).
  const margin = Math.abs(countedResult(o, game.settings)?.margin ?? o.margin_half_points ?? 0);
  const title = o.winner ? t('result.wins', { color: t(`color.${o.winner}`) }) : o.reason === 'void' ? t('result.void') : t('result.draw');
  const marginText = margin && o.winner ? t('result.margin', {
    stones: quarterStones(margin, lang),
    // "¾ stone", "1 stone", "1¼ stones": the noun's form for the English reader.
    unit: margin <= 4 ? 1 : 2,
    points: pointsText(margin),
  }) : '';
  return h('div', { class: `result-banner ${o.winner ? `won-${o.winner}` : 'no-winner'}`, role: 'status', 'data-testid': 'result-banner' },
    o.winner ? h('span', { class: `stone-icon big ${o.winner}`, 'aria-hidden': 'true' }) : null,
    h('div', {},
      h('div', { class: 'result-title' }, title),
      h('div', { class: 'result-how' }, [t(reasonKey), marginText].filter(Boolean).join(lang === 'zh' ? '，' : ', '))));
}

/** A counted game's figures: "Black 185 − 3¾ = 181¼ against 180½" and what Black gives, or nothing. */
export function countLines(game, { t, lang }) {
  const o = game.outcome;
  const c = countedResult(o, game.settings);
  if (!c) return null;
  const q = (n) => quarterStones(n, lang);
  const gives = [
    c.given.komi ? t('result.komi', { komi: pointsText(c.given.komi), stones: q(c.given.komi) }) : null,
    c.given.handicap ? t('result.handicapBack', { handicap: game.settings.handicap, stones: q(c.given.handicap) }) : null,
  ].filter(Boolean).join(lang === 'zh' ? '，' : ', ');
  return h('div', { class: 'count-lines small', 'data-testid': 'count-lines' },
    h('p', { 'data-testid': 'count-black' }, c.given.total
      ? t('result.countGiven', { count: q(c.black), given: q(c.given.total), net: q(c.net), gives })
      : t('result.count', { count: q(c.black) })),
    h('p', {}, t('result.breakEven', { even: q(c.breakEven) }), ' · ',
      t('game.count', { black: pointsText(o.black_count_half_points), white: pointsText(o.white_count_half_points) })));
}
