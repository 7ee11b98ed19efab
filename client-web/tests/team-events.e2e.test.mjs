// Team events in the browser, in real Chromium against the real `tengen`: a
// relay (擂台赛) of two teams of two is created from the hall's form, teams are founded and joined from
// the event page, the relay is played to its end (whoever is White resigns each game: the loser is out,
// the winner meets the next opponent), and the page shows the teams with captains, the relay's order and
// state, the match with its boards, and the team standings (match points, board points, board 1, 2), in
// English and Chinese. Screenshots (1366x768) go to client-web/test-output/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserSuite } from './suite.mjs';
import { waitForAddress } from './browser.mjs';

const suite = browserSuite();
const { newUser, shot } = suite;
const VIEWPORT = { width: 1366, height: 768 };

const eventOn = (page, event) => page.evaluate((id) => window.tengen.state.events.views.get(id) ?? null, event);
const userOf = (page) => page.evaluate(() => window.tengen.state.me.user);

async function openEvent(page, event) {
  await page.goto(`${suite.server.url}/#/event/${event}`);
  await page.waitForSelector('[data-testid=event-name]');
}

test('a relay of two teams: created, teams founded and joined, played to its end, standings by match and board points', { timeout: 180000 }, async () => {
  const mia = await newUser('mia', { viewport: VIEWPORT });
  const ned = await newUser('ned', { viewport: VIEWPORT });
  const oda = await newUser('oda', { lang: 'zh-CN', viewport: VIEWPORT });
  const pip = await newUser('pip', { lang: 'zh-CN', viewport: VIEWPORT });

  // Mia creates a relay of teams of two on 9x9; the form says how a relay goes and sets two teams.
  await mia.click('[data-testid=create-event]');
  await mia.fill('[data-testid=event-form] input[name=event-name]', 'Team Relay');
  await mia.selectOption('[data-testid=event-form] select[name=format]', 'round_robin');
  await mia.selectOption('[data-testid=team-fields] select[name=entry]', 'teams');
  await mia.fill('[data-testid=team-fields] input[name=team-players]', '2');
  await mia.selectOption('[data-testid=team-fields] select[name=line-up]', 'relay');
  await mia.waitForSelector('[data-testid=team-hint]:has-text("the loser is out")');
  assert.equal(await mia.inputValue('[data-testid=event-form] input[name=players-max]'), '2');
  await mia.selectOption('[data-testid=event-settings] select[name=size]', '9');
  await shot(mia, 'team-event-create.png');
  await mia.click('[data-testid=event-submit]');
  await waitForAddress(mia, /#\/event\/\d+/);
  const event = Number(mia.url().match(/#\/event\/(\d+)/)[1]);

  // Teams: a name of spaces is refused here; Mia founds Red, Oda (in Chinese) founds 蓝队; Ned and Pip join.
  await mia.fill('[data-testid=team-create] input[name=team-name]', '  ');
  await mia.click('[data-testid=team-create-submit]');
  await mia.waitForSelector('[data-testid=team-create] .form-error:has-text("Give the team a name")');
  await mia.fill('[data-testid=team-create] input[name=team-name]', 'Red');
  await mia.click('[data-testid=team-create-submit]');
  await mia.waitForSelector('[data-testid=my-team]:has-text("You play for Red")');
  await openEvent(oda, event);
  await oda.fill('[data-testid=team-create] input[name=team-name]', '蓝队');
  await oda.click('[data-testid=team-create-submit]');
  await oda.waitForSelector('[data-testid=my-team]:has-text("蓝队")');
  const view = await eventOn(oda, event);
  const red = view.teams.teams.find((team) => team.name === 'Red').team;
  const blue = view.teams.teams.find((team) => team.name === '蓝队').team;
  await openEvent(ned, event);
  await ned.click(`[data-testid=join-team-${red}]`);
  await ned.waitForSelector('[data-testid=my-team]:has-text("Red")');
  await openEvent(pip, event);
  await pip.click(`[data-testid=join-team-${blue}]`);
  await pip.waitForSelector('[data-testid=my-team]');
  // Everyone sees both teams full, each with its captain.
  await mia.waitForSelector(`[data-testid=team-${blue}]:has-text("2/2"):has-text("pip")`);
  assert.match(await mia.textContent(`[data-testid=team-${red}]`), /mia · captain/);
  await shot(oda, 'team-event-open-zh.png');

  // The relay, game by game: whoever is White resigns, until one side has lost all its players.
  const pages = new Map([[await userOf(mia), mia], [await userOf(ned), ned], [await userOf(oda), oda], [await userOf(pip), pip]]);
  // A guest follows the event page (the players are taken to their games as each starts).
  const guestContext = await suite.browser.newContext({ viewport: VIEWPORT });
  const guest = await guestContext.newPage();
  await openEvent(guest, event);
  await mia.click('[data-testid=start-round]');
  await guest.waitForSelector('[data-testid=relay-state]:has-text("Playing now")');
  await guest.waitForSelector('[data-testid=relay] .relay-now');
  await shot(guest, 'team-event-relay-en.png');
  for (let games = 1; games <= 3; games++) {
    // The next game starts as the last ends (a push of its own), unless the relay is over.
    await mia.waitForFunction((id) => {
      const v = window.tengen.state.events.views.get(id);
      return v?.teams?.winner != null || v?.rounds.flatMap((r) => r.boards).some((b) => b.game != null && b.outcome == null);
    }, event);
    const now = await eventOn(mia, event);
    if (now.teams.winner != null) break;
    const board = now.rounds.flatMap((r) => r.boards).find((b) => b.game != null && b.outcome == null);
    assert.ok(board, `a game in play after ${games - 1} games`);
    const white = pages.get(board.white);
    await white.goto(`${suite.server.url}/#/game/${board.game}`);
    white.once('dialog', (dialog) => dialog.accept());
    await white.click('[data-testid=resign]');
    await mia.waitForFunction(([id, game]) => window.tengen.state.events.views.get(id)?.rounds.flatMap((r) => r.boards).some((b) => b.game === game && b.outcome != null), [event, board.game]);
  }
  await guest.waitForSelector('[data-testid=team-winner]');
  await guest.waitForSelector('[data-testid=relay-state]:has-text("won the relay")');
  const final = await eventOn(mia, event);
  assert.notEqual(final.teams.winner, null);
  // The standings: the winner 2 match points, first; board points and each board's column.
  const top = final.teams.standings[0];
  assert.equal(top.team, final.teams.winner);
  assert.equal(await guest.textContent(`[data-testid=team-standing-${top.team}] [data-col=match_points]`), '2');
  assert.equal(await guest.textContent(`[data-testid=team-standing-${top.team}] [data-col=board_points]`), String(top.board_points));
  assert.equal(await guest.locator('[data-testid=team-standings] td[data-col=board_2]').count(), 2);
  await guest.waitForSelector(`[data-testid=match-points-1-${final.teams.matches[0].home}]:has-text("match points")`);
  await shot(guest, 'team-event-standings-en.png');
  // In Chinese: 场分, 局分 and the relay's end.
  await openEvent(oda, event);
  await oda.waitForSelector('[data-testid=team-standings] th:has-text("场分")');
  await oda.waitForSelector('[data-testid=relay-state]:has-text("赢得擂台赛")');
  await shot(oda, 'team-event-standings-zh.png');
  // Nothing scrolls sideways on a phone.
  await oda.setViewportSize({ width: 390, height: 844 });
  await oda.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
  assert.equal(await oda.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0);
  await guestContext.close();
});

test('a free line-up: the captain orders the team for the next match; a player twice is refused here', { timeout: 90000 }, async () => {
  const quin = await newUser('quin', { lang: 'zh-CN', viewport: VIEWPORT });
  const rex = await newUser('rex', { viewport: VIEWPORT });
  await quin.click('[data-testid=create-event]');
  await quin.fill('[data-testid=event-form] input[name=event-name]', '临场出人');
  await quin.selectOption('[data-testid=event-form] select[name=format]', 'round_robin');
  await quin.selectOption('[data-testid=team-fields] select[name=entry]', 'teams');
  await quin.fill('[data-testid=team-fields] input[name=team-players]', '2');
  await quin.selectOption('[data-testid=team-fields] select[name=line-up]', 'free_line_up');
  await quin.click('[data-testid=event-submit]');
  await waitForAddress(quin, /#\/event\/\d+/);
  const event = Number(quin.url().match(/#\/event\/(\d+)/)[1]);
  await quin.fill('[data-testid=team-create] input[name=team-name]', '白虎');
  await quin.click('[data-testid=team-create-submit]');
  await quin.waitForSelector('[data-testid=my-team]');
  const team = (await eventOn(quin, event)).teams.teams[0].team;
  await openEvent(rex, event);
  await rex.click(`[data-testid=join-team-${team}]`);
  await rex.waitForSelector('[data-testid=my-team]:has-text("白虎")');
  // Only the captain has the form; the same player on both boards is refused before anything is sent.
  assert.equal(await rex.locator('[data-testid=line-up]').count(), 0);
  await quin.waitForSelector('[data-testid=line-up]');
  const rexId = await userOf(rex);
  await quin.selectOption('[data-testid=line-up] select[name=board-1]', String(rexId));
  await quin.selectOption('[data-testid=line-up] select[name=board-2]', String(rexId));
  await quin.click('[data-testid=line-up-submit]');
  await quin.waitForSelector('[data-testid=line-up] .form-error:has-text("每名队员只能出场一次")');
  await quin.selectOption('[data-testid=line-up] select[name=board-2]', String(await userOf(quin)));
  await quin.click('[data-testid=line-up-submit]');
  await rex.waitForSelector(`[data-testid=team-${team}]:has-text("Next line-up: rex, quin")`);
  assert.deepEqual((await eventOn(rex, event)).teams.teams[0].next_line_up, [rexId, await userOf(quin)]);
  await quin.waitForSelector('[data-testid=event-log] li:has-text("quin 排定了 白虎 的出场顺序")');
  await quin.waitForSelector('[data-testid=start-round-why]:has-text("至少要有两支队伍")');
  await shot(quin, 'team-event-line-up-zh.png');
});
