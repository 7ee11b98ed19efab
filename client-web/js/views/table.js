// A table: both seats with sit and stand, the settings White proposes and Black confirms, and the players'
// table chat. When a game starts here, the app moves to the game view.

import { h, fill } from '../dom.js';
import { channelKey } from '../state.js';
import { createChat } from './chat.js';
import { createSettingsForm, settingsSummary, rememberSettings, rememberedSettings } from './settings.js';
import { createStakePanel } from './stake.js';
import { profileLink } from './player-link.js';

export function mountTable(root, ctx, params) {
  const { t, actions, state } = ctx;
  const tableId = params.table;
  const seats = h('div', { class: 'seats' });
  const settingsBox = h('div', { class: 'settings-box' });
  const title = h('h2', {}, t('table.title', { n: tableId }));
  const back = h('button', { onclick: () => actions.leaveTable(tableId) }, t('table.leave'));
  const chat = createChat({ t, title: t('table.chat'), testId: 'table-chat', onSend: (text) => actions.chat({ kind: 'table', table: tableId }, text),
    onReport: actions.reportLine, me: state.me,
    onMute: state.me ? (player) => actions.relation('mute', player.username) : null });
  let form = null;
  const stakeError = h('p', { class: 'form-error', role: 'alert', 'data-testid': 'stake-error' });
  const guard = (promise) => { stakeError.textContent = ''; promise.catch((err) => { stakeError.textContent = actions.errorText(err); }); };
  const stake = createStakePanel({
    t,
    onOffer: (left, right, terms) => guard(actions.stakeOffer(tableId, left, right, terms)),
    onAnswer: (agree) => guard(actions.stakeAnswer(tableId, agree)),
    onRaise: () => {},
  });
  stake.element.appendChild(stakeError);
  root.appendChild(h('div', { class: 'table-view' },
    h('main', { class: 'panel' }, h('div', { class: 'row spread' }, title, back), seats,
      h('h3', {}, t('table.settings')), h('p', { class: 'muted small' }, t('table.proposalBy')), settingsBox),
    h('aside', { class: 'side-stack' }, stake.element, chat.element)));
  actions.joinTable(tableId);

  let lastKey = '';
  return {
    update() {
      const table = state.tables.get(tableId);
      if (!table) return;
      const me = state.me?.user;
      const mySeat = table.left?.user === me ? 'left' : table.right?.user === me ? 'right' : null;
      const seat = (side) => {
        const p = table[side];
        return h('div', { class: `seat-card seat-${side}`, 'data-testid': `seat-${side}` },
          h('span', { class: `stone-icon big ${side === 'left' ? 'black' : 'white'}` }),
          h('div', {}, h('div', { class: 'muted small' }, t(side === 'left' ? 'table.left' : 'table.right')),
            p ? h('b', {}, profileLink(t, p, { rank: 'paren' })) : h('span', { class: 'muted' }, t('room.empty'))),
          !p && !mySeat && me ? h('button', { class: 'primary', onclick: () => actions.sit(tableId, side), 'data-testid': `sit-${side}` }, t('table.sit')) : null,
          mySeat === side && !table.game ? h('button', { onclick: () => actions.stand(tableId) }, t('table.stand')) : null);
      };
      fill(seats, seat('left'), seat('right'));

      // Rebuild the settings area only when what it depends on changes, so a half-filled form survives.
      const key = JSON.stringify([mySeat, table.left?.user, table.right?.user, table.proposal, table.game]);
      if (key !== lastKey) {
        lastKey = key;
        const full = table.left && table.right;
        const summary = table.proposal ? h('p', { class: 'proposal', 'data-testid': 'proposal' }, h('b', {}, `${t('table.proposal')}: `), settingsSummary(table.proposal, t)) : null;
        if (table.game) {
          fill(settingsBox, h('a', { class: 'button primary', href: `#/game/${table.game}` }, t('table.toGame')));
        } else if (!full) {
          fill(settingsBox, summary, h('p', { class: 'muted' }, t('table.needTwo')));
        } else if (mySeat === 'right') {
          // The form starts from the proposal on the table, else from what this browser proposed last.
          form = createSettingsForm({ t, initial: table.proposal ?? rememberedSettings() ?? undefined });
          const propose = () => {
            const settings = form.read();
            rememberSettings(settings);
            actions.propose(tableId, settings);
          };
          fill(settingsBox, summary, form.element, h('button', { class: 'primary', 'data-testid': 'propose', onclick: propose }, t('table.propose')),
            table.proposal ? h('p', { class: 'muted' }, t('table.waitAccept')) : null);
        } else if (mySeat === 'left') {
          fill(settingsBox, summary ?? h('p', { class: 'muted' }, t('table.waitProposal')),
            table.proposal ? h('button', { class: 'primary', 'data-testid': 'accept-settings', onclick: () => actions.acceptSettings(tableId, table.proposal) }, t('table.accept')) : null);
        } else {
          fill(settingsBox, summary ?? h('p', { class: 'muted' }, t('table.waitProposal')));
        }
      }
      chat.update(state.chats.get(channelKey({ kind: 'table', table: tableId })), state.muted);
      // Stakes exist where the server keeps fortune points (it sends a balance on login).
      const stakeNow = state.stakes.get(tableId);
      stake.update({ stake: stakeNow?.stake ?? null, taxBp: stakeNow?.taxBp ?? state.taxBp, mySeat, game: null, balance: state.balance,
        visible: state.balance != null && !!(mySeat || stakeNow?.stake) && !!(table.left && table.right) });
    },
    unmount() {},
  };
}
