// Unit tests for friends, blocks and mutes in the client's state: the lists replaced by each `relations`
// reply, a friend's presence pushed in, the notice of a friend's new game, the order the hall lists
// friends in, and chat from a muted or blocked player dropped (the lines said before too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createState, applyMessage, friendsInOrder, relationTo } from '../js/state.js';

const player = (user, username) => ({ user, username, rank: '?', rating: 1500 });
const line = (from, text) => ({ type: 'chat', channel: { kind: 'room', room: 1 }, from, text, at_ms: 1 });

test('the lists, a friend coming online, and the order friends are shown in', () => {
  const state = createState();
  const [amy, bo, cy] = [player(2, 'amy'), player(3, 'bo'), player(4, 'cy')];
  applyMessage(state, { type: 'relations', relations: { friends: [
    { player: cy, online: false }, { player: bo, online: true }, { player: amy, online: true, playing: [7] },
  ], blocked: [], muted: [] } });
  assert.deepEqual(friendsInOrder(state).map((f) => f.player.username), ['amy', 'bo', 'cy']);
  applyMessage(state, { type: 'friend_presence', friend: { player: cy, online: true, playing: [9] } });
  assert.deepEqual(friendsInOrder(state).map((f) => f.player.username), ['amy', 'cy', 'bo']);
  // Someone not followed changes nothing.
  applyMessage(state, { type: 'friend_presence', friend: { player: player(5, 'dee'), online: true } });
  assert.equal(state.relations.friends.length, 3);
  assert.deepEqual(relationTo(state, 4), { follows: true, blocks: false, mutes: false });
  applyMessage(state, { type: 'friend_started_game', friend: cy, game: 9, opponent: bo });
  assert.deepEqual(state.notices.pop(), { key: 'friends.started', params: { name: 'cy', opponent: 'bo' },
    href: '#/game/9', linkKey: 'friends.watch', testId: 'friend-started-9' });
  applyMessage(state, { type: 'logged_out', reason: 'elsewhere' });
  assert.deepEqual(state.relations, { friends: [], blocked: [], muted: [] });
});

test('a muted or blocked player’s chat is dropped, the lines said before too', () => {
  const state = createState();
  const [troll, pest, friend] = [player(6, 'troll'), player(7, 'pest'), player(8, 'friend')];
  for (const from of [troll, pest, friend]) applyMessage(state, line(from, `hi from ${from.username}`));
  applyMessage(state, { type: 'relations', relations: { friends: [], blocked: [troll], muted: [pest] } });
  assert.deepEqual(state.chats.get('room:1').map((l) => l.text), ['hi from friend']);
  applyMessage(state, line(troll, 'again'));
  applyMessage(state, line(pest, 'again'));
  applyMessage(state, line(friend, 'again'));
  assert.deepEqual(state.chats.get('room:1').map((l) => l.text), ['hi from friend', 'again']);
  assert.deepEqual(relationTo(state, 7), { follows: false, blocks: false, mutes: true });
});
