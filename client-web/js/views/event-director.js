// The director's tools on an event's page, beside starting rounds: warn or withdraw an entrant (each
// asked to be confirmed: a second warning in a game loses it, a withdrawal is for good), adjudicate
// a game of the round in play with an outcome and a reason, and pause, adjourn (封棋) or resume it, a
// pause or an adjournment lasting the minutes given. The page is drawn afresh on every change, so
// each adjudication form is made once per game and kept: what the director has typed survives a push.

import { h, fill } from '../dom.js';

/** Reason characters the server takes for an adjudication (it refuses a blank or longer one). */
export const REASON_CHARS_MAX = 240;

const OUTCOMES = ['black_wins', 'white_wins', 'draw', 'both_lose'];

/** The pause or adjournment the form offers, in minutes from now. */
const HALT_MINUTES_DEFAULT = 10;
/** The longest a director may stop a game from this form: a day (an adjournment to the next day's session). */
const HALT_MINUTES_MAX = 24 * 60;

export function createDirectorTools({ t, actions, event }) {
  const forms = new Map(); // game id → its adjudication form, kept across renders
  const haltForms = new Map(); // game id → its pause/adjourn/resume form, kept likewise

  /** Pause (both clocks stop) or adjourn (the player to move seals a move) until a time, or resume now. */
  function haltForm(game) {
    const minutes = h('input', { type: 'number', name: 'minutes', min: '1', max: String(HALT_MINUTES_MAX), step: '1', value: String(HALT_MINUTES_DEFAULT), class: 'narrow-input', 'aria-label': t('event.halt.minutes') });
    const error = h('span', { class: 'form-error small', role: 'alert' });
    const done = h('span', { class: 'muted small', role: 'status' });
    const resumeAt = () => {
      const n = Number(minutes.value);
      if (!Number.isInteger(n) || n < 1 || n > HALT_MINUTES_MAX) {
        fill(error, t('event.halt.badMinutes', { max: HALT_MINUTES_MAX }));
        return null;
      }
      return Date.now() + n * 60000;
    };
    const act = (send, key) => {
      fill(error);
      fill(done);
      send().then(() => fill(done, t(key)), (err) => fill(error, actions.errorText(err)));
    };
    const stop = (kind) => {
      const at = resumeAt();
      if (at == null) return;
      act(() => (kind === 'pause' ? actions.pauseGame(event, game, at) : actions.adjournGame(event, game, at)), `event.halt.${kind}Done`);
    };
    return h('details', { class: 'adjudicate', 'data-testid': `halt-${game}` },
      h('summary', {}, t('event.halt')),
      h('div', { class: 'row' },
        h('label', { class: 'small' }, `${t('event.halt.minutes')} `, minutes),
        h('button', { type: 'button', class: 'small', 'data-testid': `pause-${game}`, onclick: () => stop('pause') }, t('event.halt.pause')),
        h('button', { type: 'button', class: 'small', 'data-testid': `adjourn-${game}`, onclick: () => stop('adjourn') }, t('event.halt.adjourn')),
        h('button', { type: 'button', class: 'small primary', 'data-testid': `resume-${game}`, onclick: () => act(() => actions.resumeGame(event, game), 'event.halt.resumeDone') }, t('event.halt.resume')),
        error, done));
  }

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
    /** Pause, adjourn and resume a board in play (the same node every render). */
    halt(game) {
      if (!haltForms.has(game)) haltForms.set(game, haltForm(game));
      return haltForms.get(game);
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
