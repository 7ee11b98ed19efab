// The server's security headers against the real client in real Chromium: under its
// Content-Security-Policy the page loads, opens its WebSocket, registers and lands in a room with no
// violation reported, and another page cannot show it in a frame (clickjacking the resign and bet
// buttons).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTengen } from './server.mjs';
import { launchChromium, registerInNewContext } from './browser.mjs';

let server;
let browser;

before(async () => {
  server = await startTengen();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('the client works under the Content-Security-Policy and reports no violation', async () => {
  const violations = [];
  const page = await registerInNewContext(browser, server.url, 'cspuser', 'correct horse battery');
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
  });
  // Reload: every script, style and the socket load again with the listener in place.
  await page.reload();
  await page.waitForSelector('[data-testid=table-1]');
  assert.deepEqual(violations, []);
  const csp = (await page.request.get(server.url)).headers()['content-security-policy'];
  assert.match(csp, /frame-ancestors 'none'/);
  await page.context().close();
});

test('another page cannot frame the client', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const refused = new Promise((resolve) => {
    page.on('console', (msg) => {
      if (/frame-ancestors/.test(msg.text())) resolve(msg.text());
    });
    setTimeout(() => resolve('no refusal within 10 s'), 10000);
  });
  await page.setContent(`<iframe src="${server.url}/" width="800" height="600"></iframe>`);
  assert.match(await refused, /frame-ancestors/);
  // The frame shows no part of the client.
  const frame = page.frames().find((f) => f !== page.mainFrame());
  assert.equal(await frame?.locator('[data-testid=register]').count() ?? 0, 0);
  await context.close();
});
