// Starts the real `tengen` binary for a browser test: a temp data dir, port 0, and the bound address read
// from its "tengen listening" log line. The binary is $TENGEN_BIN, else debug/tengen in $CARGO_TARGET_DIR
// (where cargo built it when that is set), else target/debug/tengen (scripts/test.sh builds it first).

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const STARTUP_TIMEOUT_MS = 20000;

export function tengenBinary() {
  const targetDir = process.env.CARGO_TARGET_DIR ?? join(repo, 'target');
  const bin = process.env.TENGEN_BIN ?? join(targetDir, 'debug', 'tengen');
  if (!existsSync(bin)) throw new Error(`no tengen binary at ${bin}: run \`cargo build -p tengen-server --bin tengen\` first`);
  return bin;
}

/** Start a server (with `adminToken`, its admin API on); resolves with {url, stop()}. */
export async function startTengen({ adminToken = null } = {}) {
  const data = mkdtempSync(join(tmpdir(), 'tengen-web-'));
  // The tests register many players from one address and bet at once: grants at once, no registration limit.
  // Every player is a browser context of its own, kept open to the file's end, each holding its socket and
  // up to six HTTP connections for the client's files: a file of ten players passes the 64 connections
  // one address may hold in production.
  const args = ['serve', '--listen', '127.0.0.1:0', '--data', data, '--grant-at-once', '--registrations-per-ip', '100000',
    '--connections-per-ip', '10000'];
  if (adminToken) args.push('--admin-token', adminToken);
  const child = spawn(tengenBinary(), args, {
    env: { ...process.env, RUST_LOG: 'info', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tengen did not start:\n${log}`)), STARTUP_TIMEOUT_MS);
    const onData = (chunk) => {
      log += chunk;
      // Strip colour codes, then find `addr=127.0.0.1:PORT` on the listening line.
      const plain = log.replace(/\x1b\[[0-9;]*m/g, '');
      const match = plain.match(/tengen listening.*?addr=(\S+)/) ?? plain.match(/addr=(\S+).*tengen listening/);
      if (match) {
        clearTimeout(timer);
        resolve(`http://${match[1]}`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`tengen exited with ${code}:\n${log}`)));
  });
  return {
    url,
    log: () => log,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      rmSync(data, { recursive: true, force: true });
    },
  };
}
