// The game screen: the board, both players with captures and ticking clocks (periods left, last seconds
// announced), pass, undo and resign, the scoring phase (click a chain to toggle it dead, territory shaded,
// live counts, accept or dispute), the result in both notations with my settled bets, the players' chat or
// the watchers' kibitz, the watcher count and list, away countdowns, and the stake and pool panels when
// the server keeps fortune points.

import { h, fill } from '../dom.js';
import { channelKey, outcomeReasonKey } from '../state.js';
import { createBoard } from '../board.js';
import { createChat } from './chat.js';
import { createPoolPanel, taxPercent } from './pool.js';
import { createStakePanel } from './stake.js';
import { createWatchersPanel } from './watchers.js';
import { settingsSummary, sameSettings } from './settings.js';
import { areaCount, halfPointsText } from '../score.js';
import { tick, displayMs, inOvertime } from '../clock.js';
import { formatClock } from '../timefmt.js';
import { clockCall, callText } from '../calls.js';
import { createAttention } from './attention.js';
import { createMoveConfirm } from './confirm.js';
import { resultBanner, countLines } from './result.js';
import { pointName } from '../geometry.js';
import { otherColor } from '../stones.js';
import { createGameNotices } from './game-notices.js';
import { clocksHalted } from '../event-game.js';
import { profileLink } from './player-link.js';

/** How often the clocks redraw; a fifth of a second keeps the seconds honest without busy work. */
const CLOCK_REDRAW_MS = 200;

export function mountGame(root, ctx, params) {
  const { t, actions, state, sounds } = ctx;
  const gameId = params.game;
  const message = h('p', { class: 'game-message', role: 'alert', 'data-testid': 'game-message' });
  const boardBox = h('div', { class: 'board-box' });
  const status = h('div', { class: 'game-status', 'data-testid': 'game-status' });
  const players = { black: h('div', { class: 'player-card black', 'data-testid': 'player-black' }), white: h('div', { class: 'player-card white', 'data-testid': 'player-white' }) };
  const controls = h('div', { class: 'controls' });
  const scoring = h('div', { class: 'scoring', 'data-testid': 'scoring' });
  const result = h('div', { class: 'result', 'data-testid': 'result' });
  const undoBox = h('div', { class: 'undo-box', 'data-testid': 'undo-box' });
  const awayBox = h('p', { class: 'away', role: 'status', 'data-testid': 'away' });
  const firstMoveBox = h('p', { class: 'away', role: 'status', 'data-testid': 'first-move' });
  const info = h('p', { class: 'muted small settings-line' });
  const watchers = h('p', { class: 'watchers', 'data-testid': 'watchers' });
  const watchersPanel = createWatchersPanel({ t });
  const announcer = h('div', { class: 'sr-only', 'aria-live': 'assertive' });
  const attention = createAttention({ t });
  const twoTaps = createMoveConfirm({ t, onPlay: (point) => run(actions.play(gameId, point)), redraw: () => api.update() });
  const chatBox = h('div', {});
  const notices = createGameNotices({ t, actions, state, gameId, run: (promise) => run(promise) });
  const pool = createPoolPanel({ t, onBet: (side, amount) => run(actions.bet(gameId, side, amount)) });
  const stake = createStakePanel({
    t,
    onOffer: (left, right, terms) => run(actions.stakeOffer(game().table, left, right, terms)),
    onAnswer: (agree) => run(actions.stakeAnswer(game().table, agree)),
    onRaise: (amount) => run(actions.stakeRaise(gameId, amount)),
  });
  let chat = null;
  let chatKey = null;
  let chatGuest = false;
  const settlementBox = h('div', { class: 'settlement', 'data-testid': 'settlement' });
  let settlementAsked = false;

  const board = createBoard(boardBox, {
    onPoint: (point) => clicked(point),
    describe: (point, stone) => t(`game.point.${stone ?? 'empty'}`, { point: pointName(point, game()?.settings.size ?? 19) }),
  });

  root.appendChild(h('div', { class: 'game-view' },
    h('div', { class: 'board-column' }, boardBox, twoTaps.buttons),
    h('aside', { class: 'game-side' },
      h('div', { class: 'row spread' }, h('a', { href: '#/', class: 'small' }, `← ${t('game.back')}`), watchers,
        state.me ? h('button', { class: 'small', 'data-testid': 'report-game', onclick: () => actions.reportGame(gameId) }, t('report.game')) : null),
      watchersPanel.element,
      result, players.black, players.white, status, notices.element, firstMoveBox, awayBox, message, controls, undoBox, scoring, attention.element, info, stake.element, pool.element, chatBox, announcer)));

  actions.watch(gameId);
  actions.askPool(gameId);

  const game = () => state.games.get(gameId);
  const myColor = () => {
    const g = game();
    if (!g || !state.me) return null;
    if (g.black.user === state.me.user) return 'black';
    if (g.white.user === state.me.user) return 'white';
    return null;
  };

  // An error stays until it is stale: the next action, the next event of the game (a move error must not
  // outlive the position it was about), or the connection coming back after it was lost.
  let errorShownAt = null; // {seq, online} when the error was shown
  function showError(err) {
    message.textContent = actions.errorText(err);
    message.classList.add('shown');
    errorShownAt = { seq: game()?.seq, online: state.connection === 'online' };
  }
  const clearError = () => { message.textContent = ''; message.classList.remove('shown'); errorShownAt = null; };
  function clearStaleError(g) {
    if (!errorShownAt) return;
    const reconnected = !errorShownAt.online && state.connection === 'online';
    if (g.seq !== errorShownAt.seq || reconnected) clearError();
  }

  async function run(promise) {
    clearError();
    try {
      await promise;
    } catch (err) {
      showError(err);
    }
  }

  function clicked(point) {
    const g = game();
    if (!g || !myColor()) return;
    // An event game paused or adjourned: no move; the sealer's click picks the sealed move.
    if (notices.clicked(g, myColor(), point)) return;
    // At my move on a phone the first tap only shows where the stone would go (confirm.js).
    if (g.phase === 'playing' && g.toMove === myColor() && twoTaps.tapped(point, g.seq)) return;
    if (g.phase === 'playing') run(actions.play(gameId, point));
    else if (g.phase === 'scoring' && g.board[point.row][point.col] !== '.') run(actions.toggleDead(gameId, point));
  }

  /** The clocks as of now: the side to move's count runs on from the last event. */
  function clocksNow(g) {
    if (!g.clocks?.black || g.settings.clock.kind === 'none') return null;
    const now = { ...g.clocks };
    if (g.phase === 'playing' && !clocksHalted(g)) now[g.toMove] = tick(g.clocks[g.toMove], g.settings.clock, Date.now() - g.clockAtMs);
    return now;
  }

  // Each side's clock at the last redraw while it ran (null when it did not): a call is made when the
  // running clock crosses its moment between two redraws.
  const lastReading = { black: null, white: null };
  function drawClock(node, g, color, clocks) {
    if (!clocks) {
      fill(node, h('span', { class: 'clock-time muted' }, t('game.noClock')));
      return;
    }
    const side = clocks[color];
    const ms = displayMs(side);
    const running = g.phase === 'playing' && g.toMove === color;
    const extra = side.periods_left > 0 && inOvertime(side) ? t('game.periods', { count: side.periods_left })
      : side.moves_left_in_block > 0 && inOvertime(side) ? t('game.moves', { count: side.moves_left_in_block })
        : side.periods_left > 0 ? t('game.periods', { count: side.periods_left }) : '';
    const low = running && ms <= 10000;
    node.className = `clock${running ? ' running' : ''}${low ? ' low' : ''}${inOvertime(side) ? ' overtime' : ''}`;
    fill(node, h('span', { class: 'clock-time' }, formatClock(ms)), extra ? h('span', { class: 'clock-extra' }, extra) : null);
    // The timekeeper's calls for the side to move (calls.js), spoken and beeped to that player.
    const call = running ? clockCall(g.settings.clock, lastReading[color], side) : null;
    lastReading[color] = running ? side : null;
    if (call) {
      announcer.textContent = callText(call, t);
      if (myColor() === color) {
        sounds?.call(call.kind !== 'used');
        sounds?.say(callText(call, t), ctx.lang);
      }
    }
  }

  const clockNodes = { black: h('div', { class: 'clock' }), white: h('div', { class: 'clock' }) };
  function drawClocks() {
    const g = game();
    if (!g) return;
    // A player who left loses by forfeit when the countdown ends, unless they come back.
    const now = Date.now();
    awayBox.textContent = g.phase === 'over' ? '' : Object.entries(g.away ?? {})
      .map(([color, atMs]) => t('game.away', { color: t(`color.${color}`), time: formatClock(atMs - now) })).join(' · ');
    // Nobody has moved yet: the game is void unless the first move comes in time (2 minutes: docs/rules.md).
    firstMoveBox.textContent = g.phase === 'playing' && g.firstMoveBy != null
      ? t('game.firstMove', { color: t(`color.${g.toMove}`), time: formatClock(Math.max(0, g.firstMoveBy - now)) }) : '';
    notices.tick(g, now);
    const clocks = clocksNow(g);
    drawClock(clockNodes.black, g, 'black', clocks);
    drawClock(clockNodes.white, g, 'white', clocks);
    // The tab's title tells the player it is their move, with the clock once it is in overtime or low.
    const mine = myColor();
    const myTurn = g.phase === 'playing' && mine && g.toMove === mine;
    const mySide = myTurn && clocks ? clocks[mine] : null;
    const clockText = mySide && (inOvertime(mySide) || displayMs(mySide) <= 10000) ? formatClock(displayMs(mySide)) : '';
    attention.update({ playing: !!mine && g.phase !== 'over', myTurn, clockText });
  }
  const timer = setInterval(drawClocks, CLOCK_REDRAW_MS);

  function playerCard(g, color) {
    const p = g[color];
    const captures = color === 'black' ? g.capturesBlack : g.capturesWhite;
    const toMove = g.phase === 'playing' && g.toMove === color;
    const accepted = g.phase === 'scoring' && (color === 'black' ? g.acceptedBlack : g.acceptedWhite);
    players[color].classList.toggle('to-move', toMove);
    fill(players[color],
      h('span', { class: `stone-icon big ${color}`, 'aria-hidden': 'true' }),
      h('div', { class: 'player-name' }, h('b', {}, profileLink(t, p, { rank: 'chip' })),
        h('div', { class: 'muted small' }, t(`color.${color}`), toMove ? ` · ${t('game.toMove')}` : '', accepted ? ` · ${t('game.accepted', { color: '' }).trim()}` : '')),
      h('div', { class: 'captures small' }, t('game.captures', { count: captures })),
      clockNodes[color]);
  }

  function syncChat(g) {
    const mine = myColor();
    // Players talk at their table, or in their game's own channel when it has no table (a challenge,
    // automatch or the computer); watchers kibitz (players never see kibitz during play).
    const channel = mine ? (g.table != null ? { kind: 'table', table: g.table } : { kind: 'game', game: gameId }) : { kind: 'kibitz', game: gameId };
    const key = channel ? channelKey(channel) : null;
    const guest = !state.me;
    if (key !== chatKey || guest !== chatGuest) {
      chatKey = key;
      chatGuest = guest;
      chat = channel ? createChat({ t, title: t(channel.kind === 'kibitz' ? 'game.kibitz' : 'game.tableChat'), testId: `${channel.kind}-chat`, readOnly: guest, onSend: (text) => run(actions.chat(channel, text)),
        onReport: guest ? null : actions.reportLine, me: state.me,
        onMute: state.me ? (player) => actions.relation('mute', player.username) : null }) : null;
      fill(chatBox, chat?.element);
    }
    chat?.update(state.chats.get(chatKey), state.muted);
  }

  /** My bets and stakes on this game once it is settled: staked, returned, net, tax rate (docs/wagering.md). */
  async function showSettlement() {
    // Settlement follows the end of the game closely but not in the same instant: look a few times.
    for (let attempt = 0; attempt < 6; attempt++) {
      let records;
      try {
        records = (await actions.myBets()).filter((r) => r.game === gameId);
      } catch {
        return;
      }
      if (records.length === 0) return;
      fill(settlementBox, records.map((r) => h('p', { class: 'small' },
        h('b', {}, t(`bets.kind.${r.kind}`)), ' ', r.side ? t(`color.${r.side}`) : '', ': ',
        t('bets.line', { staked: r.staked, returned: r.returned ?? '…', net: r.net == null ? '…' : r.net > 0 ? `+${r.net}` : r.net, rate: taxPercent(r.tax_bp) }))));
      if (records.every((r) => r.returned != null)) return;
      await new Promise((wake) => setTimeout(wake, 1000));
    }
  }

  /**
   * After a table game, its players may play again with the same settings (table messages: White
   * proposes, Black accepts). The table is followed so its seats and proposal are known here.
   */
  let tableFollowed = false;
  function rematchBox(g) {
    const mine = myColor();
    if (g.table == null || !mine || !state.me) return h('span', {});
    if (!tableFollowed && !state.tables.has(g.table)) {
      tableFollowed = true;
      actions.joinTable(g.table);
    }
    const table = state.tables.get(g.table);
    const seat = table?.left?.user === state.me.user ? 'left' : table?.right?.user === state.me.user ? 'right' : null;
    if (!seat || !table.left || !table.right || table.game != null) return h('span', {});
    const offered = seat === 'left' && sameSettings(table.proposal, g.settings);
    const other = seat === 'left' ? table.right : table.left;
    return h('div', { class: 'rematch', 'data-testid': 'rematch-box' },
      offered ? h('p', { class: 'small' }, t('game.rematchOffered', { name: other.username })) : null,
      actions.rematchPending(g.table) ? h('p', { class: 'small muted' }, t('game.rematchWaiting')) : null,
      h('button', { class: 'primary', 'data-testid': 'rematch', onclick: () => run(offered ? actions.acceptSettings(g.table, table.proposal) : actions.rematch(g.table, g.settings)) },
        t(offered ? 'game.rematchAccept' : 'game.rematch')));
  }

  /** The pool's stakes (by colour, raises included) by seat of `table`, or null when unknown. */
  function stakesBySeat(poolNow, table, g) {
    if (!poolNow || !table?.left) return null;
    const leftColor = table.left.user === g.black.user ? 'black' : table.left.user === g.white.user ? 'white' : null;
    if (!leftColor) return null;
    const rightColor = leftColor === 'black' ? 'white' : 'black';
    return { left: poolNow[`stake_${leftColor}`], right: poolNow[`stake_${rightColor}`] };
  }

  /** A move of this game as it arrives: its sound (and a notification of the opponent's move). */
  function heard(msg) {
    if (msg.type !== 'game_event' || msg.game !== gameId || msg.event !== 'played') return;
    sounds?.stone();
    if (msg.captured?.length) sounds?.capture(msg.captured.length);
    const g = game();
    const mine = myColor();
    if (g && mine && msg.color !== mine) attention.opponentMoved(t('notify.body', { name: g[msg.color].username, point: pointName(msg.point, g.settings.size) }));
  }

  const api = {
    onMessage: heard,
    update() {
      const g = game();
      if (!g) return;
      clearStaleError(g);
      const mine = myColor();
      notices.update(g, mine);
      const scoringNow = g.phase === 'scoring';
      const myTurnNow = g.phase === 'playing' && !!mine && g.toMove === mine;
      const ghostPoint = twoTaps.ghost(myTurnNow ? g.seq : null, g.settings.size);
      const counted = scoringNow || (g.phase === 'over' && g.outcome?.reason === 'score') ? areaCount(g.board, g.dead) : null;
      board.update({
        size: g.settings.size,
        board: g.board,
        lastMove: g.lastMove?.point ?? null,
        ko: g.phase === 'playing' ? g.ko : null,
        ghost: myTurnNow ? ghostPoint && { point: ghostPoint, color: mine } : null,
        dead: g.phase === 'playing' ? [] : g.dead,
        territory: counted?.owner ?? null,
        preview: g.phase === 'playing' && mine && g.toMove === mine ? mine : null,
        label: t('game.coords', { size: g.settings.size }),
      });
      playerCard(g, 'black');
      playerCard(g, 'white');
      drawClocks();
      watchers.textContent = t('game.watchers', { count: g.watchersCount });
      watchersPanel.update(g.watching);
      info.textContent = settingsSummary(g.settings, t);
      fill(status,
        h('span', { class: `phase phase-${g.phase}` }, t(`game.phase.${g.phase}`)), ' · ',
        t('game.moveNumber', { n: g.movesCount }),
        g.lastMove ? ` · ${t('game.lastMove', { point: pointName(g.lastMove.point, g.settings.size) })}` : '',
        g.lastPass ? ` · ${t('game.passed', { color: t(`color.${g.lastPass}`) })}` : '',
        ' · ', mine ? t('game.youAre', { color: t(`color.${mine}`) }) : t('game.watching'));
      const opponent = otherColor(mine);
      // A paused or adjourned event game takes no move, pass, undo or resignation (the sealer seals instead).
      fill(controls, mine && g.phase === 'playing' && !g.halt ? [
        h('button', { 'data-testid': 'pass', onclick: () => run(actions.pass(gameId)) }, t('game.pass')),
        h('button', { 'data-testid': 'undo', disabled: g.undoRequestedBy === mine, onclick: () => run(actions.undo(gameId)) }, t('game.undo')),
        h('button', { class: 'danger', 'data-testid': 'resign', onclick: () => { if (confirm(t('game.confirmResign'))) run(actions.resign(gameId)); } }, t('game.resign')),
        twoTaps.switchElement,
      ] : null);
      // An undo request (悔棋) waits for the opponent's consent.
      fill(undoBox, g.phase === 'playing' && g.undoRequestedBy ? (
        mine && g.undoRequestedBy === opponent ? [
          h('p', {}, t('game.undoAsked', { color: t(`color.${opponent}`) })),
          h('div', { class: 'row' },
            h('button', { class: 'primary', 'data-testid': 'undo-accept', onclick: () => run(actions.answerUndo(gameId, true)) }, t('game.undoAccept')),
            h('button', { 'data-testid': 'undo-decline', onclick: () => run(actions.answerUndo(gameId, false)) }, t('game.undoDecline'))),
        ] : h('p', { class: 'muted' }, t(g.undoRequestedBy === mine ? 'game.undoWaiting' : 'game.undoAsked', { color: t(`color.${g.undoRequestedBy}`) }))
      ) : g.phase === 'playing' && mine && g.undoRefused === mine ? h('p', { 'data-testid': 'undo-refused' }, t('game.undoRefused')) : null);
      if (scoringNow) {
        const iAccepted = mine === 'black' ? g.acceptedBlack : mine === 'white' ? g.acceptedWhite : false;
        fill(scoring,
          h('p', { class: 'small' }, t('game.scoringHelp')),
          h('p', { class: 'live-count', 'data-testid': 'live-count' }, t('game.count', { black: halfPointsText(counted.blackHalf), white: halfPointsText(counted.whiteHalf) })),
          h('p', { class: 'small muted' }, [g.acceptedBlack && t('game.accepted', { color: t('color.black') }), g.acceptedWhite && t('game.accepted', { color: t('color.white') })].filter(Boolean).join(' · ')),
          mine ? h('div', { class: 'row' },
            h('button', { class: 'primary', 'data-testid': 'accept-score', disabled: iAccepted, onclick: () => run(actions.acceptScore(gameId, g.dead)) }, t('game.accept')),
            h('button', { 'data-testid': 'resume-play', onclick: () => run(actions.resumePlay(gameId)) }, t('game.resumePlay'))) : null);
      } else fill(scoring);
      if (g.phase === 'over' && g.outcome) {
        const o = g.outcome;
        fill(result,
          resultBanner(g, { t, lang: ctx.lang, reasonKey: outcomeReasonKey(g) }),
          h('p', { class: 'result-line' }, h('b', { 'data-testid': 'result-sgf' }, o.sgf), ' · ', h('b', { 'data-testid': 'result-chinese', lang: 'zh' }, o.chinese)),
          countLines(g, { t, lang: ctx.lang }),
          settlementBox,
          h('a', { href: `/api/games/${gameId}/sgf`, download: `tengen-${gameId}.sgf` }, t('game.downloadSgf')));
        if (!settlementAsked && state.me && state.balance != null) {
          settlementAsked = true;
          showSettlement();
        }
        result.appendChild(rematchBox(g));
      } else fill(result);
      pool.update({
        pool: state.pools.get(gameId) ?? null, canBet: !!state.me && !mine, balance: state.balance, myBet: state.myBets.get(gameId),
        outcome: g.phase === 'over' ? g.outcome : null,
      });
      const stakeNow = g.table != null ? state.stakes.get(g.table) : null;
      // Stakes belong to seats (with nigiri, Black may sit on the right).
      const tableNow = state.tables.get(g.table);
      const seat = !mine ? null : tableNow?.left?.user === state.me.user ? 'left' : tableNow?.right?.user === state.me.user ? 'right' : null;
      stake.update({ stake: stakeNow?.stake ?? null, taxBp: stakeNow?.taxBp ?? state.taxBp, mySeat: seat, game: g.phase === 'playing' ? gameId : null,
        balance: state.balance, visible: state.balance != null && g.table != null && g.phase !== 'over' && !!(seat || stakeNow?.stake),
        inGame: stakesBySeat(state.pools.get(gameId), tableNow, g) });
      syncChat(g);
    },
    unmount() {
      clearInterval(timer);
      attention.unmount();
      if (!myColor()) actions.unwatch(gameId);
    },
  };
  return api;
}
