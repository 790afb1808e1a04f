/**
 * The single executable that build-exe.mjs makes from the bundle `npm test`
 * builds first. It is built once for this file straight into an empty temp
 * directory (not dist/, which dist.test.ts copies meanwhile), so it runs with
 * nothing beside it: no bundle, no addon files, no node_modules.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli, spawnServe } from './helpers/cli.ts';
import { tempDir } from './helpers/temp.ts';

const BUILD_EXE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../build-exe.mjs');

const buildDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-exe-'));
const executable = path.join(buildDir, 'paywalld');
before(() => execFileSync(process.execPath, [BUILD_EXE, '--out', executable], { stdio: 'pipe' }));
after(() => fs.rmSync(buildDir, { recursive: true, force: true }));

/** The files under a cache root: one directory named by the build id, holding exactly the two addons. */
function cachedAddons(cache: string): string[] {
  const [buildId, ...others] = fs.readdirSync(cache);
  assert.deepEqual(others, []);
  assert.match(buildId!, /^[0-9a-f]{16}$/);
  return fs.readdirSync(path.join(cache, buildId!)).sort();
}

const ADDONS = ['better_sqlite3.node', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`];

test('the executable alone runs a session from a temp directory: create a project, serve, SIGTERM', async (t) => {
  const dir = tempDir(t);
  const cache = path.join(tempDir(t), 'cache');
  const db = path.join(dir, 'exe.db');
  const launch = { executable, cwd: dir, env: { PAYWALLD_CACHE_DIR: cache, NODE_PATH: '' } };

  const created = runCli(['projects', 'create', 'exe', '--json', '--db', db], launch);
  assert.equal(created.status, 0, created.stderr);
  const { keys } = JSON.parse(created.stdout);
  assert.deepEqual(cachedAddons(cache), ADDONS);

  const server = await spawnServe(t, ['--db', db], launch);
  const health = await fetch(`${server.url}/healthz`);
  assert.equal(health.status, 200);
  // The native uWS answered, not the pure-Node fallback of its JS wrapper.
  assert.equal(health.headers.get('uwebsockets'), '20');
  assert.equal((await fetch(`${server.url}/api/keys`, { headers: { authorization: `Bearer ${keys.secret}` } })).status, 200);
  assert.equal(await server.stop('SIGTERM'), 0);
});

test('two executables started at once against an empty cache both start', async (t) => {
  const dir = tempDir(t);
  const cache = path.join(dir, 'cache');
  const launch = { executable, cwd: dir, env: { PAYWALLD_CACHE_DIR: cache } };
  const servers = await Promise.all(['a', 'b'].map((name) => spawnServe(t, ['--db', path.join(dir, `${name}.db`)], launch)));
  for (const server of servers) {
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(health.headers.get('uwebsockets'), '20');
  }
  // Whichever rename came last, no temp file is left behind.
  assert.deepEqual(cachedAddons(cache), ADDONS);
  assert.deepEqual(await Promise.all(servers.map((server) => server.stop())), [0, 0]);
});

test('the executable refuses a cache directory that others may write to', (t) => {
  const cache = path.join(tempDir(t), 'cache');
  fs.mkdirSync(cache);
  fs.chmodSync(cache, 0o777);
  const result = runCli(['projects', 'list', '--db', path.join(path.dirname(cache), 'x.db')], { executable, env: { PAYWALLD_CACHE_DIR: cache } });
  assert.equal(result.status, 1);
  assert.match(result.stderr, /refusing to load native addons from .*cache: it must belong to this user and be writable by no one else/);
  assert.deepEqual(fs.readdirSync(cache), []);
});
