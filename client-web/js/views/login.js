// The login and registration screen. Reports `actions.login/register(username, password)` and shows the
// server's error, and the ban that logged this browser out (why and until when), if one did.

import { formatRank } from '../rank.js';
import { h } from '../dom.js';
import { RANKS_WEAKEST_FIRST } from '../events.js';

export function mountLogin(root, { t, actions, state, lang }) {
  const username = h('input', { name: 'username', autocomplete: 'username', required: true, 'aria-label': t('auth.username') });
  const password = h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true, 'aria-label': t('auth.password') });
  // A new player may say their rank (OGS and KGS ask): it only matters when registering.
  const rank = h('select', { name: 'rank', 'aria-label': t('auth.rank'), 'data-testid': 'register-rank' },
    h('option', { value: '' }, t('auth.rankUnknown')), RANKS_WEAKEST_FIRST.map((r) => h('option', { value: r }, formatRank(t, r))));
  const error = h('p', { class: 'form-error', role: 'alert' });
  const ban = state?.banned;
  if (ban) {
    const until = ban.until_ms ? new Date(ban.until_ms).toLocaleString(lang === 'zh' ? 'zh-CN' : 'en-GB') : t('moderation.forever');
    error.setAttribute('data-testid', 'banned');
    error.textContent = t('auth.banned', { reason: ban.reason, until });
  }
  const submit = (kind) => async (e) => {
    e?.preventDefault();
    error.textContent = '';
    try {
      await actions[kind](username.value.trim(), password.value, rank.value || undefined);
    } catch (err) {
      error.textContent = actions.errorText(err);
    }
  };
  const form = h('form', { class: 'auth panel', onsubmit: submit('login') },
    h('div', { class: 'auth-logo', 'aria-hidden': 'true' }, '天元'),
    h('h2', {}, t('auth.title')),
    h('label', {}, t('auth.username'), username),
    h('label', {}, t('auth.password'), password),
    h('label', {}, t('auth.rank'), rank),
    h('p', { class: 'muted small' }, t('auth.hint')),
    error,
    h('div', { class: 'row' },
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'login' }, t('auth.login')),
      h('button', { type: 'button', onclick: submit('register'), 'data-testid': 'register' }, t('auth.register'))),
    h('button', { type: 'button', class: 'link', onclick: () => actions.guest() }, t('auth.guest')));
  root.appendChild(h('div', { class: 'auth-screen' }, form));
  username.focus();
  return { update() {}, unmount() {} };
}
