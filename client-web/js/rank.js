// A rank as the server sends it ("5k", "1d", "3k?" while provisional, "?" with no rating at all),
// written the way each language's players write it: 5k / 1d in English, 5级 / 1段 in Chinese, with the
// provisional mark kept ("5级?"), as KGS marks a rank its games have not settled yet.

const RANK = /^(\d{1,2})([kd])(\?)?$/;

/** The rank `rank` in the words of translator `t`; anything unexpected is shown as it came. */
export function formatRank(t, rank) {
  const parts = RANK.exec(String(rank ?? ''));
  if (!parts) return String(rank ?? '?');
  const [, number, kind, provisional] = parts;
  const text = t(kind === 'k' ? 'rank.kyu' : 'rank.dan', { n: number });
  return provisional ? `${text}?` : text;
}

/** A player's name with their rank: "alice (5k?)", "棋圣 (1段)". */
export function nameWithRank(t, player) {
  return `${player.username} (${formatRank(t, player.rank)})`;
}
