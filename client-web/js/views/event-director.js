// The director's tools on an event's page, beside starting rounds: warn or withdraw an entrant (each
// asked to be confirmed: a second warning in a game loses it, a withdrawal is for good), and adjudicate
// a game of the round in play with an outcome and a reason. The page is drawn afresh on every change, so
// each adjudication form is made once per game and kept: what the director has typed survives a push.

import { h, fill } from '../dom.js';

/** Reason characters the server takes for an adjudication (it refuses a blank or longer one). */
export const REASON_CHARS_MAX = 240;

const OUTCOMES = ['black_wins', 'white_wins', 'draw', 'both_lose'];

export function createDirectorTools({ t, actions, event }) {
  const forms = new Map(); // game id → its adjudication form, kept across renders

  function adjudicateForm(game) {
    const outcome = h('select', { name: 'outcome', 'aria-label': t('event.adjudicate.outcome') },
      OUTCOMES.map((o) => h('option', { value: o }, t(`event.adjudicate.${o}`))));
    const reason = h('input', { name: 'reason', type: 'text', maxlength: REASON_CHARS_MAX, placeholder: t('event.adjudicate.reason'), 'aria-label': t('event.adjudicate.reason') });
    const error = h('span', { class: 'form-error small', role: 'alert' });
    reason.addEventListener('input', () => fill(error));
    const submit = (ev) => {
      ev.preventDefault();
      const why = reason.value.trim();
      if (!why) return fill(error, t('event.adjudicate.reasonNeeded'));
      fill(error);
      actions.adjudicateGame(event, game, outcome.value, why).catch((err) => fill(error, actions.errorText(err)));
      return null;
    };
    return h('details', { class: 'adjudicate', 'data-testid': `adjudicate-${game}` },
      h('summary', {}, t('event.adjudicate')),
      h('form', { class: 'row', onsubmit: submit }, outcome, reason,
        h('button', { type: 'submit', class: 'small danger', 'data-testid': `adjudicate-submit-${game}` }, t('event.adjudicate.submit')), error));
  }

  return {
    /** The adjudication control of a board in play (the same node every render). */
    adjudicate(game) {
      if (!forms.has(game)) forms.set(game, adjudicateForm(game));
      return forms.get(game);
    },
    /** Warn and Withdraw for an entrant still playing. */
    entrantButtons(entrant) {
      const { user, username } = entrant.player;
      const confirmed = (key) => confirm(t(key, { name: username }));
      return h('span', { class: 'director-tools' },
        h('button', { class: 'small', 'data-testid': `warn-${username}`, onclick: () => { if (confirmed('event.warn.confirm')) actions.warnEntrant(event, user); } }, t('event.warn')),
        h('button', { class: 'small danger', 'data-testid': `withdraw-${username}`, onclick: () => { if (confirmed('event.withdraw.confirm')) actions.withdrawEntrant(event, user); } }, t('event.withdraw')));
    },
  };
}
