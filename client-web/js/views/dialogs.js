// Modal dialogs: sending a challenge (with a settings form) and answering one, and reporting a user, a
// chat line or a game to the moderators (with a reason). A dialog reports its choice through callbacks and
// removes itself; Escape cancels.

import { nameWithRank } from '../rank.js';
import { h } from '../dom.js';
import { createSettingsForm, settingsSummary, DEFAULT_SETTINGS } from './settings.js';

function modal(title, body, buttons, onCancel) {
  const dialog = h('div', { class: 'modal-backdrop' },
    h('div', { class: 'modal panel', role: 'dialog', 'aria-modal': 'true', 'aria-label': title },
      h('h3', {}, title), body, h('div', { class: 'row end' }, buttons)));
  dialog.addEventListener('keydown', (e) => { if (e.key === 'Escape') { close(); onCancel?.(); } });
  const close = () => dialog.remove();
  document.body.appendChild(dialog);
  dialog.querySelector('button, input, select')?.focus();
  return close;
}

export function openChallengeDialog({ t, player, onSend }) {
  const form = createSettingsForm({ t, initial: { ...DEFAULT_SETTINGS, size: 9, nigiri: true }, testId: 'challenge-form' });
  const close = modal(t('challenge.title', { name: player.username }), form.element, [
    h('button', { onclick: () => close() }, t('common.cancel')),
    h('button', { class: 'primary', onclick: () => { close(); onSend(form.read()); } }, t('challenge.send')),
  ]);
}

export function openChallengedDialog({ t, challenge, onAnswer }) {
  const close = modal(t('challenge.from', { name: nameWithRank(t, challenge.from) }),
    h('p', {}, settingsSummary(challenge.settings, t)), [
      h('button', { onclick: () => { close(); onAnswer(false); } }, t('challenge.decline')),
      h('button', { class: 'primary', onclick: () => { close(); onAnswer(true); } }, t('challenge.accept')),
    ], () => onAnswer(false));
}

/** Report `what` (a sentence naming it) to the moderators: `onSend(reason)` with the reason typed. */
export function openReportDialog({ t, what, onSend }) {
  const reason = h('textarea', { maxlength: 500, rows: 3, 'data-testid': 'report-reason', 'aria-label': t('report.reason') });
  const send = () => {
    const text = reason.value.trim();
    if (!text) return reason.focus();
    close();
    onSend(text);
  };
  const body = h('div', { class: 'report-form' }, h('p', {}, what), h('label', { class: 'field' }, t('report.reason'), reason));
  const close = modal(t('report.title'), body, [
    h('button', { onclick: () => close() }, t('common.cancel')),
    h('button', { class: 'primary', 'data-testid': 'report-send', onclick: send }, t('report.send')),
  ]);
  reason.focus();
}
