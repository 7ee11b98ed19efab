// A chat panel: the lines of one channel and a box to say something (for a guest, `readOnly`: a note instead). It reports what was typed through
// `onSend(text)`, and a line someone reports through `onReport(line)` (a flag beside others' lines); the lines come in through
// `update(lines, muted)`, with the mute on me while it holds (a note says until when). The input survives updates. With
// `onMute`, each line of someone but `me` (the logged-in user) has a small "mute" beside the name, reporting `onMute(player)`.

import { h, fill } from '../dom.js';
import { formatChatTime } from '../timefmt.js';
import { profileLink } from './player-link.js';

export function createChat({ t, title, onSend, testId, readOnly = false, onReport = null, me = null, onMute = null }) {
  const list = h('ol', { class: 'chat-lines', 'aria-live': 'polite' });
  const input = h('input', { type: 'text', maxlength: 500, placeholder: t('chat.placeholder'), 'aria-label': title });
  const form = h('form', { class: 'chat-form', onsubmit: (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    onSend(text);
    input.value = '';
  } }, input, h('button', { type: 'submit' }, t('common.send')));
  // A guest reads along but cannot speak (the server takes chat from accounts only): no box, a note why.
  const mutedNote = h('p', { class: 'muted small chat-muted', 'data-testid': 'chat-muted', hidden: true });
  const element = h('section', { class: 'chat panel', 'data-testid': testId }, h('h3', {}, title), list, mutedNote,
    readOnly ? h('p', { class: 'muted small', 'data-testid': 'chat-login' }, t('chat.loginToChat')) : form);
  const flag = (line) => (onReport && line.line != null && line.from.user !== me?.user
    ? h('button', { class: 'link report-line', 'data-testid': 'report-line', title: t('report.line'), 'aria-label': t('report.line'),
      onclick: () => onReport(line) }, '⚑')
    : null);
  let shown = null;
  let shownLength = -1;
  const muteButton = (from) => (onMute && from.user !== me?.user
    ? h('button', { type: 'button', class: 'chat-mute', title: t('relations.muteName', { name: from.username }), 'aria-label': t('relations.muteName', { name: from.username }),
      'data-testid': `mute-${from.username}`, onclick: () => onMute(from) }, t('relations.muteShort'))
    : null);
  const offset = -new Date().getTimezoneOffset();
  return {
    element,
    update(lines = [], muted = null) {
      const holds = muted && muted.until_ms > Date.now();
      mutedNote.hidden = !holds;
      if (holds) mutedNote.textContent = t('chat.muted', { until: new Date(muted.until_ms).toLocaleString(), reason: muted.reason });
      // New lines lengthen the array; a removed line makes a new one (state.js): either is redrawn.
      if ((lines === shown || lines.length === 0) && lines.length === shownLength && lines.length < 200) return;
      shown = lines;
      shownLength = lines.length;
      fill(list, lines.length === 0 ? h('li', { class: 'muted' }, t('chat.empty')) : lines.map((line) =>
        h('li', { 'data-line': line.line ?? '' }, h('time', {}, formatChatTime(line.at_ms, offset)), ' ', h('b', {}, profileLink(t, line.from)), muteButton(line.from), ' ', line.text, ' ', flag(line))));
      list.scrollTop = list.scrollHeight;
    },
  };
}
