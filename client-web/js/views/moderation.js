// The moderators' page, `#/moderation`: the queue of open reports, oldest first, each with what it is
// about (a player; a chat line with the lines around it in its channel, the reported one marked; a game
// with a link to it) and the acts that fit it (mute or ban the player concerned for a chosen time,
// remove the line, void the game, dismiss), each with a reason that starts as the reporter's; a form to
// lift a mute or a ban by the player's name; and below, the moderation log, newest first, with More for
// older entries. The server decides who may see and do
// this; a user who opens the page reads its refusal.

import { h, fill, userName } from '../dom.js';
import { formatChatTime } from '../timefmt.js';
import { profileLink } from './player-link.js';

/** Entries in a page of the log (the server's MOD_LOG_PAGE_MAX): a full page means more may follow. */
const LOG_PAGE = 50;

/** Mute lengths offered, in minutes: a cooling-off, an evening, a day, a week, a month. */
export const MUTE_CHOICES = [10, 60, 24 * 60, 7 * 24 * 60, 30 * 24 * 60];
/** Ban lengths offered, in days; `null` is for good. */
export const BAN_CHOICES = [1, 7, 30, 365, null];

/** A length as people say it: "10 min", "1 h", "7 d", "for good". */
export function lengthText(t, { minutes, days }) {
  if (days === null) return t('moderation.forever');
  if (days != null) return t('moderation.days', { count: days });
  if (minutes % (24 * 60) === 0) return t('moderation.days', { count: minutes / (24 * 60) });
  if (minutes % 60 === 0) return t('moderation.hours', { count: minutes / 60 });
  return t('moderation.minutes', { count: minutes });
}

/** Whom a report's mute or ban would fall on: the reported player, or the sayer of the line. */
function personOf(reported) {
  if (reported.kind === 'user') return reported.username;
  if (reported.kind === 'chat_line') return reported.line.username;
  return null;
}

export function mountModeration(root, ctx) {
  const { t, actions, lang } = ctx;
  const when = (ms) => new Date(ms).toLocaleString(lang === 'zh' ? 'zh-CN' : 'en-GB');
  const queue = h('section', { class: 'panel', 'data-testid': 'mod-queue' });
  const logBox = h('section', { class: 'panel', 'data-testid': 'mod-log' });
  const lifting = liftForm({ t, act: (action, reason) => act(null, action, reason) });
  root.appendChild(h('main', { class: 'narrow-page moderation' }, h('h2', {}, t('moderation.title')), queue, lifting, logBox));
  let reports = null;
  let entries = [];
  let logMore = false;
  let error = null;

  async function refresh() {
    try {
      reports = await actions.listReports();
      entries = await actions.moderationLog();
      logMore = entries.length >= LOG_PAGE;
      error = null;
    } catch (err) {
      error = err;
    }
    draw();
  }

  async function older() {
    const page = await actions.moderationLog(entries[entries.length - 1].entry).catch((err) => { error = err; return []; });
    entries = entries.concat(page);
    logMore = page.length >= LOG_PAGE;
    draw();
  }

  async function act(report, action, reason) {
    let refused = null;
    try {
      await actions.moderate(report ? { ...action, reason, report: report.report } : { ...action, reason });
    } catch (err) {
      refused = err;
    }
    // The queue and log are read again either way; a refusal is shown after, so the reading does not
    // clear it.
    await refresh();
    if (refused) {
      error = refused;
      draw();
    }
  }

  function draw() {
    const problem = error ? h('p', { class: 'form-error', role: 'alert', 'data-testid': 'mod-error' }, actions.errorText(error)) : null;
    fill(queue, h('h3', {}, t('moderation.queue')), problem,
      reports === null ? h('p', { class: 'muted' }, t('profile.loading'))
        : reports.length === 0 ? h('p', { class: 'muted', 'data-testid': 'mod-empty' }, t('moderation.empty'))
          : h('ol', { class: 'mod-reports' }, reports.map((report) => reportCard(report, { t, act, when }))));
    fill(logBox, h('h3', {}, t('moderation.log')),
      entries.length === 0 ? h('p', { class: 'muted' }, t('moderation.logEmpty'))
        : h('ol', { class: 'mod-log' }, entries.map((entry) => logLine(entry, { t, when }))),
      logMore ? h('button', { class: 'small', 'data-testid': 'mod-log-more', onclick: older }, t('profile.more')) : null);
  }

  refresh();
  return { update() {}, unmount() {} };
}

/** One report: who filed it and why, what it is about, and the acts that fit it. */
function reportCard(report, { t, act, when }) {
  const reason = h('input', { type: 'text', maxlength: 500, value: report.reason, 'aria-label': t('moderation.reason'), 'data-testid': 'mod-reason' });
  const doing = (action) => () => act(report, action, reason.value.trim());
  const person = personOf(report.reported);
  const choose = (choices, text, testId) => h('select', { 'data-testid': testId, 'aria-label': t('moderation.length') },
    choices.map((value, i) => h('option', { value: String(i) }, text(value))));
  const muteFor = choose(MUTE_CHOICES, (minutes) => lengthText(t, { minutes }), 'mod-mute-length');
  const banFor = choose(BAN_CHOICES, (days) => lengthText(t, { days }), 'mod-ban-length');
  const buttons = [
    person ? h('span', { class: 'mod-act' }, muteFor, h('button', { 'data-testid': 'mod-mute',
      onclick: () => doing({ action: 'mute', username: person, minutes: MUTE_CHOICES[Number(muteFor.value)] })() }, t('moderation.mute', { name: person }))) : null,
    person ? h('span', { class: 'mod-act' }, banFor, h('button', { class: 'danger', 'data-testid': 'mod-ban',
      onclick: () => {
        const days = BAN_CHOICES[Number(banFor.value)];
        doing(days === null ? { action: 'ban', username: person } : { action: 'ban', username: person, days })();
      } }, t('moderation.ban', { name: person }))) : null,
    report.reported.kind === 'chat_line' ? h('button', { 'data-testid': 'mod-remove',
      onclick: doing({ action: 'remove_chat', line: report.reported.line.line }) }, t('moderation.remove')) : null,
    report.reported.kind === 'game' ? h('button', { class: 'danger', 'data-testid': 'mod-void',
      onclick: doing({ action: 'void_game', game: report.reported.game }) }, t('moderation.void')) : null,
    h('button', { 'data-testid': 'mod-dismiss', onclick: doing({ action: 'dismiss' }) }, t('moderation.dismiss')),
  ];
  return h('li', { class: 'mod-report', 'data-testid': 'mod-report', 'data-report': report.report },
    h('p', { class: 'small muted' }, t('moderation.reportedBy', { name: report.reporter, when: when(report.at_ms) })),
    h('p', { class: 'mod-why' }, `“${report.reason}”`),
    subject(report.reported, { t }),
    h('label', { class: 'field' }, t('moderation.reason'), reason),
    h('div', { class: 'row wrap mod-acts' }, buttons));
}

/** Lifting a mute or a ban, which answers no report: the player's name, a reason, and which to lift. */
function liftForm({ t, act }) {
  const who = h('input', { type: 'text', maxlength: 40, 'aria-label': t('moderation.liftWho'), 'data-testid': 'mod-lift-name' });
  const reason = h('input', { type: 'text', maxlength: 500, 'aria-label': t('moderation.reason'), 'data-testid': 'mod-lift-reason' });
  const lift = (action) => () => act({ action, username: who.value.trim() }, reason.value.trim());
  return h('section', { class: 'panel', 'data-testid': 'mod-lift' }, h('h3', {}, t('moderation.lift')),
    h('label', { class: 'field' }, t('moderation.liftWho'), who),
    h('label', { class: 'field' }, t('moderation.reason'), reason),
    h('div', { class: 'row wrap mod-acts' },
      h('button', { 'data-testid': 'mod-unmute', onclick: lift('unmute') }, t('moderation.unmute')),
      h('button', { 'data-testid': 'mod-unban', onclick: lift('unban') }, t('moderation.unban'))));
}

/** What a report is about, as a moderator needs to see it. */
function subject(reported, { t }) {
  if (reported.kind === 'user') {
    return h('p', { 'data-testid': 'mod-subject' }, t('moderation.aboutUser'), ' ', profileLink(t, { username: reported.username }));
  }
  if (reported.kind === 'game') {
    return h('p', { 'data-testid': 'mod-subject' }, h('a', { href: `#/game/${reported.game}` }, t('moderation.aboutGame', { game: reported.game })),
      ' ', userName(reported.black), ' – ', userName(reported.white));
  }
  const offset = -new Date().getTimezoneOffset();
  return h('ol', { class: 'chat-lines mod-context', 'data-testid': 'mod-context' }, reported.context.map((line) =>
    h('li', { class: line.line === reported.line.line ? 'reported' : '' },
      h('time', {}, formatChatTime(line.at_ms, offset)), ' ', h('b', {}, userName(line.username)), ' ', line.text)));
}

/** One act of the log: when, who, what to whom, why, and until when. */
function logLine(entry, { t, when }) {
  const what = entry.action === 'mute' ? t('moderation.did.mute', { name: entry.username, length: lengthText(t, { minutes: entry.minutes }) })
    : entry.action === 'ban' ? t('moderation.did.ban', { name: entry.username, length: lengthText(t, { days: entry.days ?? null }) })
      : entry.action === 'remove_chat' ? t('moderation.did.remove_chat', { line: entry.line })
        : entry.action === 'void_game' ? t('moderation.did.void_game', { game: entry.game })
          : entry.action === 'unmute' || entry.action === 'unban' ? t(`moderation.did.${entry.action}`, { name: entry.username })
            : t('moderation.did.dismiss', { report: entry.report });
  return h('li', { 'data-testid': 'mod-log-entry' },
    h('span', { class: 'small muted' }, `#${entry.entry} ${when(entry.at_ms)} `),
    h('b', {}, userName(entry.moderator)), ' ', what, ' — ', h('i', {}, entry.reason));
}
