// The hall: rooms, the chosen room's tables (seated players with ranks, a game's watchers), live games
// with watcher counts, players online (with a challenge button and who is playing; every name in the
// lists links to the player's profile; a table's card is one link, to the table), the automatch panel,
// the room chat, the competitions (views/events.js), and for a logged-in user their friends (online
// first, a link to watch the game one plays; `friendsPanel`). On a phone the live games and the players come
// first and the tables start folded (style.css orders the panels; the tables are a <details> opened here
// on wider screens).

import { formatRank } from '../rank.js';
import { h, fill, userName } from '../dom.js';
import { channelKey, myLiveGame, friendsInOrder } from '../state.js';
import { createChat } from './chat.js';
import { createAutomatchPanel } from './automatch.js';
import { createPlayerSearch } from './player-search.js';
import { createEventsPanel, EVENTS_SHOWN_MAX } from './events.js';
import { profileLink } from './player-link.js';

/** A phone-sized screen, where the tables start folded (the same width as style.css's phone layout). */
const PHONE_QUERY = '(max-width: 600px)';

export function mountHall(root, ctx, params) {
  const { t, actions, state } = ctx;
  const roomId = params.room ?? null;
  const rooms = h('ul', { class: 'room-list' });
  const tables = h('div', { class: 'table-grid', 'data-testid': 'tables' });
  const games = h('ul', { class: 'game-list', 'data-testid': 'live-games' });
  const players = h('ul', { class: 'player-list', 'data-testid': 'players' });
  const friends = state.me ? h('ul', { class: 'player-list friend-list' }) : null;
  // Whom I block or mute, folded under the friends: each name opens the profile, where it is undone.
  const hidden = h('div', { 'data-testid': 'hidden-players' });
  const followers = state.me ? createFollowersPanel({ t, state, actions }) : null;
  const roomTitle = h('h2', {});
  // A live game of mine (the tab was closed, or I came to the hall during it): a call to go back to it.
  const returnBox = h('p', { class: 'return-game panel', 'data-testid': 'return-to-game', hidden: true });
  const automatch = state.me ? createAutomatchPanel({ t, actions }) : null;
  const events = createEventsPanel({ t, state, actions, shownMax: EVENTS_SHOWN_MAX });
  const search = createPlayerSearch({ t, onSearch: actions.findPlayers });
  const chat = roomId ? createChat({ t, title: t('room.chat'), testId: 'room-chat', onSend: (text) => actions.chat({ kind: 'room', room: roomId }, text),
    onReport: actions.reportLine, me: state.me,
    onMute: state.me ? (player) => actions.relation('mute', player.username) : null }) : null;

  const phone = !!globalThis.matchMedia?.(PHONE_QUERY).matches;
  root.appendChild(h('div', { class: 'hall' },
    h('aside', { class: 'hall-side' },
      h('section', { class: 'panel hall-rooms' }, h('h3', {}, t('hall.rooms')), rooms),
      automatch?.element,
      h('section', { class: 'panel hall-games' }, h('h3', {}, t('hall.games')), games)),
    h('main', { class: 'hall-main' }, returnBox, events.element,
      h('details', { class: 'panel hall-tables', open: !phone, 'data-testid': 'tables-panel' }, h('summary', {}, roomTitle), tables)),
    h('aside', { class: 'hall-side' },
      friends ? h('section', { class: 'panel hall-friends', 'data-testid': 'friends' }, h('h3', {}, t('friends.title')), friends, hidden, followers.element) : null,
      h('section', { class: 'panel hall-players' }, h('h3', {}, t('hall.players')), players, search.element),
      chat?.element)));

  if (roomId) actions.joinRoom(roomId);

  /** A room's name in the UI's language when it is one of the server's default rooms. */
  function roomName(name) {
    const key = `roomName.${name}`;
    const text = t(key);
    return text === key ? name : text;
  }

  function tableCard(table) {
    const seat = (player, side) => h('div', { class: `seat seat-${side}` },
      h('span', { class: `stone-icon ${side === 'left' ? 'black' : 'white'}`, 'aria-hidden': 'true' }),
      player ? h('span', { class: 'seat-name' }, userName(player.username), ` (${formatRank(t, player.rank)})`) : h('span', { class: 'muted' }, t('room.empty')));
    // The table's own count includes the players, who look at the table to sit: while a game is on, show
    // the game's count (people watching, players excluded), as the game screen and the live games do.
    const live = table.game != null ? state.hall.games.find((g) => g.game === table.game) : null;
    const watching = live ? live.watchers_count : table.watchers_count;
    return h('a', { class: `table-card${table.game ? ' in-game' : ''}`, href: `#/table/${table.table}`, 'data-testid': `table-${table.table}` },
      h('div', { class: 'table-head' }, h('b', {}, t('room.table', { n: table.table })),
        table.game ? h('span', { class: 'badge' }, t('room.playing')) : null,
        watching ? h('span', { class: 'muted small' }, t('hall.watchers', { count: watching })) : null),
      seat(table.left, 'left'), seat(table.right, 'right'));
  }

  return {
    update() {
      const live = myLiveGame(state);
      returnBox.hidden = live == null;
      fill(returnBox, live == null ? null : h('a', { href: `#/game/${live}`, class: 'button primary' }, t('hall.returnToGame')));
      fill(rooms, state.hall.rooms.map((r) => h('li', {},
        h('a', { href: `#/room/${r.room}`, class: r.room === roomId ? 'active' : '', 'data-testid': `room-${r.room}` },
          h('b', {}, roomName(r.name)), h('span', { class: 'muted small' }, ` ${t('hall.users', { count: r.users_count })} · ${t('hall.tables', { count: r.tables_count })}`)))));
      // The names open the players' profiles; the line about the game opens the game.
      fill(games, state.hall.games.length === 0 ? h('li', { class: 'muted' }, t('hall.noGames')) : state.hall.games.map((g) => {
        const about = `${g.size}×${g.size} · ${t('hall.moves', { count: g.moves_count })} · ${t('hall.watchers', { count: g.watchers_count })}`;
        const side = (color) => h('span', { class: 'nowrap' }, h('span', { class: `stone-icon ${color}` }), ' ', profileLink(t, g[color], { rank: 'paren' }));
        return h('li', { class: 'live-game' },
          h('span', {}, side('black'), ' ', side('white')),
          h('a', { class: 'small game-about', href: `#/game/${g.game}`, 'data-testid': `game-link-${g.game}`,
            'aria-label': `${t('hall.watchGame', { black: g.black.username, white: g.white.username })}: ${about}` }, about));
      }));
      // Computer players (engines connected with `tengen bot`) come first, offered as "play the computer".
      const listed = [...state.hall.players].sort((a, b) => Number(Boolean(b.computer)) - Number(Boolean(a.computer)));
      // Who is playing, from the live games: a link to their game beside the name.
      const playingIn = new Map();
      for (const g of state.hall.games) for (const p of [g.black, g.white]) if (!playingIn.has(p.user)) playingIn.set(p.user, g.game);
      fill(players, listed.map((p) => h('li', {},
        h('span', {}, profileLink(t, p, { rank: 'chip' }),
          p.computer ? h('span', { class: 'badge muted small' }, ` ${t('hall.computer')}`) : null,
          playingIn.has(p.user) ? h('a', { class: 'badge playing', href: `#/game/${playingIn.get(p.user)}`, 'data-testid': `playing-${p.username}` }, t('hall.playing')) : null),
        state.me && p.user !== state.me.user
          ? h('button', { class: 'small', 'data-testid': `challenge-${p.username}`, onclick: () => actions.openChallenge(p) },
            t(p.computer ? 'hall.playComputer' : 'hall.challenge'))
          : state.me?.user === p.user ? h('span', { class: 'muted small' }, t('hall.you')) : null)));
      if (roomId && state.room?.room === roomId) {
        roomTitle.textContent = `${roomName(state.room.name)} — ${t('room.tables')}`;
        fill(tables, state.room.tableIds.map((id) => tableCard(state.tables.get(id))));
      } else {
        roomTitle.textContent = t('room.tables');
        fill(tables, h('p', { class: 'muted' }, t('hall.pickRoom')));
      }
      if (friends) {
        fill(friends, friendsPanel(t, friendsInOrder(state)));
        // Redrawn on every update: kept open if it was.
        const open = Boolean(hidden.querySelector('details')?.open);
        fill(hidden, hiddenPlayers(t, state.relations, { open }));
        followers.update();
      }
      automatch?.update();
      events.update();
      chat?.update(state.chats.get(channelKey({ kind: 'room', room: roomId })), state.muted);
    },
    unmount() {
      search.unmount();
    },
  };
}

/** My friends' lines: the name (to the profile) and rank, online or not, and a game one plays to watch. */
export function friendsPanel(t, friends) {
  if (friends.length === 0) return h('li', { class: 'muted small' }, t('friends.empty'));
  return friends.map((f) => h('li', { class: f.online ? 'friend online' : 'friend', 'data-testid': `friend-${f.player.username}` },
    h('span', {}, profileLink(t, f.player, { rank: 'chip' })),
    f.playing?.length
      ? h('span', { class: 'small nowrap' }, `${t('friends.inGame')} `,
        h('a', { class: 'badge playing', href: `#/game/${f.playing[0]}`, 'data-testid': `friend-watch-${f.player.username}` }, t('friends.watch')))
      : h('span', { class: f.online ? 'online-dot small' : 'muted small' }, t(f.online ? 'friends.online' : 'friends.offline'))));
}

/** The players I block and those I mute, folded (nothing when there are none). */
export function hiddenPlayers(t, { blocked, muted }, { open = false } = {}) {
  if (blocked.length + muted.length === 0) return null;
  const names = (players) => players.map((p, i) => [i ? ', ' : '', profileLink(t, p)]).flat();
  return h('details', { class: 'hidden-players small', open },
    h('summary', { class: 'muted' }, t('friends.hidden', { count: blocked.length + muted.length })),
    blocked.length ? h('p', {}, `${t('friends.blocked')} `, ...names(blocked)) : null,
    muted.length ? h('p', {}, `${t('friends.muted')} `, ...names(muted)) : null);
}

/**
 * Who follows me, folded under the friends and asked for when opened (mine to look at, not pushed):
 * each name opens the profile, with "Follow back" beside those I do not follow. The server names at most
 * as many as a list of one's own holds and counts the rest.
 */
function createFollowersPanel({ t, state, actions }) {
  const summary = h('summary', { class: 'muted' }, t('friends.followers'));
  const list = h('ul', { class: 'player-list' });
  const element = h('details', { class: 'followers small', 'data-testid': 'followers' }, summary, list);
  let answer = null;
  const ask = () => actions.ask({ type: 'followers' }).then((reply) => { answer = reply; update(); },
    (err) => fill(list, h('li', { class: 'muted' }, actions.errorText(err))));
  element.addEventListener('toggle', () => { if (element.open) ask(); });

  function update() {
    if (answer == null) return;
    summary.textContent = t('friends.followersCount', { count: answer.followers_count });
    const follows = new Set(state.relations.friends.map((f) => f.player.user));
    const lines = answer.followers.map((p) => h('li', { 'data-testid': `follower-${p.username}` },
      h('span', {}, profileLink(t, p, { rank: 'chip' })),
      follows.has(p.user) ? null : h('button', { type: 'button', class: 'small', 'data-testid': `follow-back-${p.username}`,
        onclick: () => actions.relation('follow', p.username) }, t('relations.followBack'))));
    const unnamed = answer.followers_count - answer.followers.length;
    if (unnamed > 0) lines.push(h('li', { class: 'muted' }, t('friends.followersMore', { count: unnamed })));
    fill(list, lines.length ? lines : h('li', { class: 'muted' }, t('friends.followersNone')));
  }
  return { element, update };
}
