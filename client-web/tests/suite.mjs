// One real `tengen` and one Chromium for a browser test file: started before its tests, stopped after
// them. `newUser` registers an account in a fresh browser context; `shot` saves a screenshot to
// client-web/test-output/ for people to look at.

import { before, after } from 'node:test';
import { mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTengen } from './server.mjs';
import { launchChromium, registerInNewContext } from './browser.mjs';

export const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-output');
export const PASSWORD = 'correct horse battery';

export function browserSuite(serverOptions = {}) {
  const suite = {
    server: null,
    browser: null,
    newUser: (name, options) => registerInNewContext(suite.browser, suite.server.url, name, PASSWORD, options),
    shot: (page, name) => page.screenshot({ path: join(OUT, name) }),
  };
  before(async () => {
    mkdirSync(OUT, { recursive: true });
    suite.server = await startTengen(serverOptions);
    suite.browser = await launchChromium();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.server?.stop();
  });
  return suite;
}
