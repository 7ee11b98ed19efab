// Getting a player's attention back to their game when it is in another tab or window: the tab's title
// says when it is their move (and counts the byo-yomi down), an optional desktop notification when the
// opponent moves while the page is hidden (permission asked only on the player's click), and a question
// before leaving the page during their game, which they would lose by forfeit if they stayed away.
//
//   const attention = createAttention({ t, storage: localStorage });
//   attention.update({ myTurn, clockText, playing });   // every redraw
//   attention.opponentMoved(text);                      // the opponent's move, in words
//   attention.unmount();

import { h, fill } from '../dom.js';

const NOTIFY_KEY = 'tengen.notify';

export function createAttention({ t, storage = globalThis.localStorage, notifications = globalThis.Notification }) {
  const baseTitle = document.title;
  let playing = false;
  // Asks before the page goes while the player's game is on (the browser words the question itself).
  const onBeforeUnload = (event) => {
    if (!playing) return;
    event.preventDefault();
    event.returnValue = '';
  };
  window.addEventListener('beforeunload', onBeforeUnload);

  const box = h('div', { class: 'attention small muted', 'data-testid': 'attention' });
  const wanted = () => storage?.getItem(NOTIFY_KEY) === 'on';
  const allowed = () => notifications?.permission === 'granted';

  async function toggle() {
    if (wanted()) storage?.setItem(NOTIFY_KEY, 'off');
    else {
      // Asked here, on the player's click, never unprompted.
      const answer = notifications.permission === 'granted' ? 'granted' : await notifications.requestPermission();
      if (answer === 'granted') storage?.setItem(NOTIFY_KEY, 'on');
    }
    draw();
  }

  function draw() {
    if (!playing) return fill(box);
    const canNotify = !!notifications && notifications.permission !== 'denied';
    fill(box,
      h('p', { 'data-testid': 'leave-hint' }, t('game.leaveHint')),
      canNotify ? h('button', { class: 'small', 'data-testid': 'notify-switch', 'aria-pressed': String(wanted() && allowed()), onclick: toggle },
        t(wanted() && allowed() ? 'notify.turnOff' : 'notify.turnOn')) : null);
  }

  return {
    element: box,
    /** `playing`: my game is on (not over); `myTurn`: it is my move; `clockText`: my clock, in byo-yomi. */
    update(next) {
      const was = playing;
      playing = !!next.playing;
      const title = next.myTurn ? `${next.clockText ? `${next.clockText} ` : ''}${t('title.yourMove')} · ${baseTitle}` : baseTitle;
      if (document.title !== title) document.title = title;
      if (was !== playing) draw();
    },
    /** The opponent moved: a notification if the player asked for them and cannot see the page. */
    opponentMoved(body) {
      if (!wanted() || !allowed() || !document.hidden) return;
      try {
        new notifications(t('notify.title'), { body, tag: 'tengen-move' });
      } catch {
        // Some browsers only notify from a service worker; the title still says it.
      }
    },
    unmount() {
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.title = baseTitle;
    },
  };
}
