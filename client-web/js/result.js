// A finished game's result as players read it: who won and how, and for a counted game the count in the
// form of the rules (数子法): Black's stones on the board, less what Black gives (komi, and in a handicap
// game half a stone back for each handicap stone), against the break-even count of half the board, so
// "Black 185 − 3¾ = 181¼ against 180½: Black wins by ¾ stone", and the same margin in points (B+1.5).
// The server's count decides (it comes in the outcome); this only spells it out. Pure functions.
//
// Everything is counted in quarter stones, the rules' smallest unit: a half point is a quarter stone.

const FRACTIONS = { en: ['', '¼', '½', '¾'], zh: ['', '1/4', '1/2', '3/4'] };

/** Quarter stones as people write them: en 15 → "3¾", 2 → "½"; zh 15 → "3又3/4", 2 → "1/2"; signs kept. */
export function quarterStones(quarters, lang = 'en') {
  const sign = quarters < 0 ? '−' : '';
  const q = Math.abs(quarters);
  const whole = Math.floor(q / 4);
  const fraction = (FRACTIONS[lang] ?? FRACTIONS.en)[q % 4];
  if (!fraction) return `${sign}${whole}`;
  if (whole === 0) return `${sign}${fraction}`;
  return lang === 'zh' ? `${sign}${whole}又${fraction}` : `${sign}${whole}${fraction}`;
}

/** Half points as points: 3 → "1.5". */
export function pointsText(halfPoints) {
  const sign = halfPoints < 0 ? '−' : '';
  const h = Math.abs(halfPoints);
  return `${sign}${Math.floor(h / 2)}${h % 2 ? '.5' : ''}`;
}

/** What Black gives at the count, in quarter stones: komi, and N/2 stones back for N ≥ 2 handicap stones. */
export function compensation(settings) {
  const handicapBack = settings.handicap >= 2 ? 2 * settings.handicap : 0;
  return { komi: settings.komi_half_points ?? 0, handicap: handicapBack, total: (settings.komi_half_points ?? 0) + handicapBack };
}

/**
 * A counted game's figures, in quarter stones, or null when the outcome has no count (resignation, time,
 * forfeit, void): Black's count, what Black gives, the net, the break-even and the margin (for Black:
 * negative when White won). A quarter stone is a half point, so the margin is also B+1.5's 3 half points.
 */
export function countedResult(outcome, settings) {
  if (outcome?.black_count_half_points == null) return null;
  const black = 2 * outcome.black_count_half_points;
  const given = compensation(settings);
  const net = black - given.total;
  const breakEven = 2 * settings.size * settings.size;
  return { black, given, net, breakEven, margin: net - breakEven };
}

const SGF_REASONS = { R: 'resignation', T: 'time', F: 'forfeit' };

/**
 * An outcome read back from a record's SGF result (RE): "B+R", "W+T", "B+F", "W+7.5", "0" (a draw),
 * "Void"; null for anything else (a record still in progress has none). A counted result carries its
 * margin in half points (W+7.5 → 15), as the live outcome's counts would give it.
 */
export function outcomeFromSgf(re) {
  if (re === '0' || re === 'Draw') return { winner: null, reason: 'score', sgf: re };
  if (re === 'Void') return { winner: null, reason: 'void', sgf: re };
  const match = /^([BW])\+(R|T|F|\d+(?:\.5)?)$/.exec(re ?? '');
  if (!match) return null;
  const winner = match[1] === 'B' ? 'black' : 'white';
  if (SGF_REASONS[match[2]]) return { winner, reason: SGF_REASONS[match[2]], sgf: re };
  return { winner, reason: 'score', sgf: re, margin_half_points: Math.round(Number(match[2]) * 2) };
}
