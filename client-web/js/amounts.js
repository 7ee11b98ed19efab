// Checks on the amounts a player types for bets and stakes, made before anything is sent, so each
// mistake gets its own clear text (the server would answer a negative number with a parse error, and a
// coach's stake with the bets' bad_amount text). Pure: each returns an error code the i18n tables name
// (`error.<code>`), or null when the amounts may go to the server.

/** Whether `n` is a whole number of points, at least `min`. */
export const wholePoints = (n, min) => Number.isSafeInteger(n) && n >= min;

/** What is wrong with a stake offer of `left` and `right` on `terms` ({kind, coach?}), or null. */
export function stakeOfferProblem(left, right, terms) {
  if (!wholePoints(left, 0) || !wholePoints(right, 0)) return 'stake_amount';
  if (terms?.kind === 'coaching' && (terms.coach === 'left' ? left : right) !== 0) return 'coach_stake';
  return null;
}

/** What is wrong with a bet or a stake raise of `amount`, or null (`code`: the error to name). */
export const positiveProblem = (amount, code) => (wholePoints(amount, 1) ? null : code);
