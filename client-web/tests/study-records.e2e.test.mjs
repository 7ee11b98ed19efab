// Records from other servers and editors opened from the study board's file picker, in real Chromium
// against the real `tengen`: a GB2312 record in Fox's layout and a Shift_JIS one in the Nihon Ki-in's
// show their Chinese and Japanese names and comments (the browser sends the bytes; the server reads
// the charset), the ko rule each replays under, and a triple ko runs to its last move; a record the
// server refuses shows the server's reason, in English and in Chinese. The records are the committed
// test records (rules/tests/data/records). Screenshots at 1366x768 in client-web/test-output/.

import { test } from 'node:test';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserSuite } from './suite.mjs';

const suite = browserSuite();
const { newUser, shot } = suite;
const VIEWPORT = { width: 1366, height: 768 };
const RECORDS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'rules', 'tests', 'data', 'records');

async function studyPage(name, lang) {
  const page = await newUser(name, { lang, viewport: VIEWPORT });
  await page.click('[data-testid=nav-study]');
  await page.waitForSelector('[data-testid=study-status]:has-text("0")');
  return page;
}

const openFile = (page, file) => page.setInputFiles('[data-testid=study-file]', join(RECORDS, file));

test('GB2312 and Shift_JIS records show their names and comments as written', { timeout: 45000 }, async () => {
  const page = await studyPage('kana', 'en-US');
  await openFile(page, 'fox-gb2312.sgf');
  await page.waitForSelector('[data-testid=study-player-black]:has-text("清风明月")');
  await page.waitForSelector('[data-testid=study-player-white]:has-text("弈林高手")');
  await page.waitForSelector('[data-testid=study-record-name]:has-text("野狐围棋 友谊赛")');
  await page.waitForSelector('[data-testid=study-charset]:has-text("GBK (as the file says)")');
  await page.waitForSelector('[data-testid=study-ko-rule]:has-text("positional superko, as the record’s rules (Chinese) say")');
  await page.click('[data-testid=study-forward]');
  await page.waitForSelector('[data-testid=study-comment]:has-text("黑棋星位开局。")');
  await shot(page, 'study-fox-gb2312-en.png');

  await openFile(page, 'nihon-kiin-triple-ko-shift-jis.sgf');
  await page.waitForSelector('[data-testid=study-player-black]:has-text("十河 表太郎")');
  await page.waitForSelector('[data-testid=study-player-white]:has-text("宗像 能ソ子")');
  await page.waitForSelector('[data-testid=study-info]:has-text("第十期 ソウル杯争奪 研究会")');
  await page.waitForSelector('[data-testid=study-charset]:has-text("Shift_JIS")');
  await page.waitForSelector('[data-testid=study-ko-rule]:has-text("basic ko (no immediate recapture), as the record’s rules (Japanese) say")');
  await page.waitForSelector('[data-testid=study-comment]:has-text("三劫無勝負の一局。")');
  // To the end through the repeated positions: the last comment says why there is no result.
  await page.click('[data-testid=study-end]');
  await page.waitForSelector('[data-testid=study-comment]:has-text("三劫により無勝負")');
  await shot(page, 'study-triple-ko-shift-jis-en.png');
});

test('a refused record shows the server’s reason, in English and in Chinese', { timeout: 30000 }, async () => {
  const triple = '(;GM[1]SZ[9]RU[Chinese]AB[ba][ab][bc][ha][ib][hc][bf][ag][bh][cg]AW[ca][db][cc][bb][ga][fb][gc][hb][cf][dg][ch];B[cb];W[bg];B[gb];W[bb];B[cg];W[hb])';
  const en = await studyPage('rei', 'en-US');
  await en.setInputFiles('[data-testid=study-file]', { name: 'chinese.sgf', mimeType: 'application/x-go-sgf', buffer: Buffer.from(triple) });
  await en.waitForSelector('[data-testid=study-message]:has-text("The SGF could not be opened: move 6 (white hb): the move repeats a position (ko) (under positional superko, as RU[Chinese] says)")');
  await shot(en, 'study-refused-en.png');

  const zh = await studyPage('mei', 'zh-CN');
  const broken = '(;GM[1]FF[4]CA[gb2312]SZ[19]\nPB[x]\n;B[pd]C[没有闭合';
  await zh.setInputFiles('[data-testid=study-file]', { name: 'broken.sgf', mimeType: 'application/x-go-sgf', buffer: Buffer.from(broken) });
  await zh.waitForSelector('[data-testid=study-message]:has-text("无法打开该 SGF 棋谱：SGF error at line 3, column")');
  await shot(zh, 'study-refused-zh.png');
  // The board that was open stays, and still plays.
  await zh.waitForSelector('[data-testid=study-ko-rule]:has-text("劫规则：禁止全局同形再现")');
});
