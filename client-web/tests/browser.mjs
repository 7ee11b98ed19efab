// Helpers for the browser tests: launching Debian's Chromium through playwright-core (never a downloaded
// browser), and acting on the Go board the way a person does, by clicking an intersection.

import { chromium } from 'playwright-core';
import { layout, pointToXY } from '../js/geometry.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function launchChromium() {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/** Click intersection {col, row} of the board on `page` (a board of `size` lines). */
export async function clickPoint(page, size, point) {
  const svg = page.locator('svg.goban');
  const box = await svg.boundingBox();
  const geom = layout(size, 1000);
  const { x, y } = pointToXY(geom, point);
  await page.mouse.click(box.x + (x / 1000) * box.width, box.y + (y / 1000) * box.height);
}

/** The stone drawn at a point ('black', 'white' or null). */
export async function stoneAt(page, point) {
  const node = page.locator(`svg.goban circle.stone[data-point="${point.col},${point.row}"]`);
  if ((await node.count()) === 0) return null;
  const cls = await node.getAttribute('class');
  return cls.includes('stone-black') ? 'black' : 'white';
}

/** Wait until the board on `page` shows `color` (or nothing, for null) at `point`. */
export async function waitStone(page, point, color, timeout = 10000) {
  const selector = `svg.goban circle.stone-${color ?? 'x'}[data-point="${point.col},${point.row}"]`;
  if (color) await page.waitForSelector(selector, { timeout });
  else await page.waitForSelector(`svg.goban circle.stone[data-point="${point.col},${point.row}"]`, { state: 'detached', timeout });
}

/**
 * A new browser context on `url` that registers `name` with `password` and lands in the hall's first room;
 * resolves with its page. Page errors are printed with the user's name.
 */
/** The page's last addresses and WebSocket frames, newest last: what a failed wait prints (see `explain`). */
const TRACE_LEN = 40;
function traceOf(page) {
  if (page.tengenTrace) return page.tengenTrace;
  const trace = [];
  const note = (line) => { trace.push(`${new Date().toISOString().slice(11, 23)} ${line.slice(0, 300)}`); if (trace.length > TRACE_LEN) trace.shift(); };
  page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) note(`url ${frame.url()}`); });
  page.on('websocket', (ws) => {
    ws.on('framesent', (frame) => note(`sent ${frame.payload}`));
    ws.on('framereceived', (frame) => note(`got ${frame.payload}`));
    ws.on('close', () => note('socket closed'));
  });
  page.tengenTrace = trace;
  return trace;
}

/**
 * Until `page`'s address matches `pattern` (a RegExp), read in the page itself. Playwright's `waitForURL`
 * waits for a navigation event when the address does not match yet, and a hash-only navigation (every
 * route here) was seen to come and go unnoticed by it: the page on `#/game/1`, the wait timed out.
 */
export async function waitForAddress(page, pattern, { timeout = 30000 } = {}) {
  await page.waitForFunction(([source, flags]) => new RegExp(source, flags).test(location.href), [pattern.source, pattern.flags], { polling: 50, timeout });
}

/**
 * `wait` (a promise of `page`'s), or its error with what the page last saw and sent: a wait that times out
 * once in many runs says why.
 */
export async function explain(page, wait) {
  try {
    return await wait;
  } catch (err) {
    err.message += `\n--- ${page.url()}; the page's last frames:\n${(page.tengenTrace ?? []).join('\n')}`;
    throw err;
  }
}

export async function registerInNewContext(browser, url, name, password, { lang = 'en-US', viewport = { width: 1280, height: 860 } } = {}) {
  const context = await browser.newContext({ viewport, locale: lang });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`[${name}] page error:`, err.message));
  traceOf(page);
  await page.goto(url);
  await page.fill('input[name=username]', name);
  await page.fill('input[name=password]', password);
  await page.click('[data-testid=register]');
  await page.waitForSelector(`[data-testid=me]:has-text("${name}")`);
  // Registration lands in the first room.
  await page.waitForSelector('[data-testid=table-1]');
  return page;
}
