// A chat panel: the lines of one channel and a box to say something (for a guest, `readOnly`: a note instead). It reports what was typed through
// `onSend(text)`; the lines come in through `update(lines)`. The input survives updates. With `onMute`, each
// line of someone but `me` (the logged-in user) has a small "mute" at its end, reporting `onMute(player)`.

import { h, fill } from '../dom.js';
import { formatChatTime } from '../timefmt.js';
import { profileLink } from './player-link.js';

export function createChat({ t, title, onSend, testId, readOnly = false, me = null, onMute = null }) {
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
  const element = h('section', { class: 'chat panel', 'data-testid': testId }, h('h3', {}, title), list,
    readOnly ? h('p', { class: 'muted small', 'data-testid': 'chat-login' }, t('chat.loginToChat')) : form);
  let shown = -1;
  const muteButton = (from) => (onMute && from.user !== me?.user
    ? h('button', { type: 'button', class: 'chat-mute', title: t('relations.muteName', { name: from.username }), 'aria-label': t('relations.muteName', { name: from.username }),
      'data-testid': `mute-${from.username}`, onclick: () => onMute(from) }, t('relations.muteShort'))
    : null);
  const offset = -new Date().getTimezoneOffset();
  return {
    element,
    update(lines = []) {
      if (lines.length === shown && lines.length < 200) return;
      shown = lines.length;
      fill(list, lines.length === 0 ? h('li', { class: 'muted' }, t('chat.empty')) : lines.map((line) =>
        h('li', {}, h('time', {}, formatChatTime(line.at_ms, offset)), ' ', h('b', {}, profileLink(t, line.from)), muteButton(line.from), ' ', line.text)));
      list.scrollTop = list.scrollHeight;
    },
  };
}
