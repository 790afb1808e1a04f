/**
 * The single executable that build-exe.mjs makes from the dist/ that
 * `npm test` builds first, with `--node` the Node.js running the tests: under
 * Node 20 (npm test) one that serves; under Node 24 (npm run test:no-http in
 * .ci/run) one carrying Node 24, which on glibc older than 2.38 runs every
 * command but serve, and the tests that need serve are skipped with that
 * reason. It is built once for this file straight into an empty temp
 * directory (not dist/, which dist.test.ts copies meanwhile), so it runs with
 * nothing beside it: no bundle, no addons, no node_modules.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli, spawnServe } from '../helpers/cli.ts';
import { tempDir } from '../helpers/temp.ts';

const BUILD_EXE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../build-exe.mjs');
const ABI = process.versions.modules;
const GLIBC = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime;
const SERVES =
  (ABI === '115' && GLIBC && Number(GLIBC.split('.')[1]) >= 28) || (['127', '137', '141'].includes(ABI) && GLIBC && Number(GLIBC.split('.')[1]) >= 38);
/** The skip of a test that needs serve, where no uWS build fits this runtime (the refusal is checked by the --node test). */
const NEEDS_SERVE = SERVES ? false : `no uWS build fits Node.js ${process.version} on this glibc: serve cannot run in its executable`;

const buildDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-exe-'));
const executable = path.join(buildDir, 'paywalld');
before(() => execFileSync(process.execPath, [BUILD_EXE, '--node', process.execPath, '--out', executable], { stdio: 'pipe' }));
after(() => fs.rmSync(buildDir, { recursive: true, force: true }));

/** The files unpacked under a cache root: one directory named by the build id, with no temp file left behind. */
function unpacked(cache: string): string[] {
  const [buildId, ...others] = fs.readdirSync(cache);
  assert.deepEqual(others, []);
  assert.match(buildId!, /^[0-9a-f]{16}$/);
  const files = fs.readdirSync(path.join(cache, buildId!)).sort();
  assert.deepEqual(
    files.filter((name) => name.endsWith('.tmp')),
    [],
  );
  return files;
}

/** What the bundle needs beside itself: the event writer threads (SQLite's, PostgreSQL's) and the two addons, for the embedded Node.js ABI only. */
const UNPACKED = [
  `better_sqlite3_${process.platform}_${process.arch}_${process.versions.modules}.node`,
  'events-writer-postgres.js',
  'events-writer.js',
  'package.json',
  'paywalld.js',
  `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`,
];

const PAYWALL = {
  name: 'Smoke',
  default_locale: 'en',
  strings: { en: { title: 'Go Pro' } },
  root: { type: 'stack', props: { axis: 'vertical' }, children: [{ type: 'text', props: { text_key: 'title' } }] },
};

test("an executable built with --node carries that Node.js and its ABI's addons, and says so", async (t) => {
  const dir = tempDir(t);
  const cache = path.join(dir, 'cache');
  const launch = { executable, cwd: dir, env: { PAYWALLD_CACHE_DIR: cache } };

  const version = await runCli(['--version'], launch);
  assert.equal(version.status, 0, version.stderr);
  assert.equal(
    version.stdout.split('\n')[1],
    `Node.js ${process.version} (ABI ${ABI}, ${process.platform} ${process.arch}${GLIBC ? `, glibc ${GLIBC}` : ''}), embedded in this executable`,
  );
  const [buildId] = fs.readdirSync(cache);
  const addons = fs.readdirSync(path.join(cache, buildId!)).filter((name) => name.endsWith('.node'));
  assert.deepEqual(addons.sort(), [`better_sqlite3_${process.platform}_${process.arch}_${ABI}.node`, `uws_${process.platform}_${process.arch}_${ABI}.node`]);

  const db = path.join(dir, 'exe.db');
  const created = await runCli(['projects', 'create', 'embedded', '--json', '--db', db], launch);
  assert.equal(created.status, 0, created.stderr);

  if (SERVES) {
    const server = await spawnServe(t, ['--db', db], launch);
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    assert.equal(await server.stop(), 0);
    return;
  }
  // Inside an executable the way out is another executable: the message says which to build.
  const served = await runCli(['serve', '--port', '0', '--db', db], launch);
  assert.equal(served.status, 1);
  assert.equal(served.stdout, '');
  assert.equal(
    served.stderr.split('\n')[1],
    'What works: an executable built with one of these (npm run build:exe -- --node 20): Node.js 20 on glibc 2.28+ (Debian 10, Ubuntu 20.04, RHEL 8 and newer); Node.js 22, 24 or 25 on glibc 2.38+ (Debian 13, Ubuntu 24.04, Fedora 39, RHEL 10 and newer).',
  );
});

test('the executable alone runs a session from a temp directory: project, paywall, resolve, events, SIGTERM', { skip: NEEDS_SERVE }, async (t) => {
  const dir = tempDir(t);
  const cache = path.join(tempDir(t), 'cache');
  const db = path.join(dir, 'exe.db');
  const launch = { executable, cwd: dir, env: { PAYWALLD_CACHE_DIR: cache, NODE_PATH: '' } };

  const created = await runCli(['projects', 'create', 'exe', '--json', '--db', db], launch);
  assert.equal(created.status, 0, created.stderr);
  const { keys } = JSON.parse(created.stdout);
  assert.deepEqual(unpacked(cache), UNPACKED);

  const server = await spawnServe(t, ['--db', db], launch);
  const health = await fetch(`${server.url}/healthz`);
  assert.equal(health.status, 200);
  // The native uWS answered, not the pure-Node fallback of its JS wrapper.
  assert.equal(health.headers.get('uwebsockets'), '20');
  // The dashboard is inside the executable too: its page and the script the page names.
  const page = await fetch(`${server.url}/dashboard/`);
  assert.equal(page.status, 200);
  const script = /src="(\/dashboard\/assets\/app-[A-Z0-9]+\.js)"/.exec(await page.text())?.[1];
  assert.ok(script);
  const asset = await fetch(`${server.url}${script}`);
  assert.equal(asset.status, 200);
  assert.match(await asset.text(), /paywalld/);
  const secret = { authorization: `Bearer ${keys.secret}`, 'content-type': 'application/json' };
  const sdk = { authorization: `Bearer ${keys.sdk}`, 'content-type': 'application/json' };
  assert.equal((await fetch(`${server.url}/api/keys`, { headers: secret })).status, 200);

  const put = await fetch(`${server.url}/api/paywalls/smoke`, { method: 'PUT', headers: secret, body: JSON.stringify(PAYWALL) });
  assert.equal(put.status, 201, await put.text());
  assert.equal((await fetch(`${server.url}/api/paywalls/smoke/publish`, { method: 'POST', headers: secret })).status, 200);
  const resolved = await fetch(`${server.url}/api/sdk/config?paywallId=smoke&userId=user-1`, { headers: sdk });
  assert.equal(resolved.status, 200);
  const config = await resolved.json();
  assert.equal(config.paywall_id, 'smoke');
  assert.match(JSON.stringify(config.root), /"Go Pro"/);

  // Answered once committed by the event writer, a worker thread that starts from a file the executable unpacked.
  const event = { type: 'screen_impression', paywall_id: 'smoke', ts: Date.now(), id: 'evt-1', user_id: 'user-1', variant_id: config.variant.id };
  const sent = await fetch(`${server.url}/api/sdk/events`, { method: 'POST', headers: sdk, body: JSON.stringify({ events: [event] }) });
  assert.equal(sent.status, 200);
  assert.deepEqual(await sent.json(), { accepted: 1, duplicates: 0, rejected: [] });

  assert.equal(await server.stop('SIGTERM'), 0);
});

test('two executables started at once against an empty cache both start', { skip: NEEDS_SERVE }, async (t) => {
  const dir = tempDir(t);
  const cache = path.join(dir, 'cache');
  const launch = { executable, cwd: dir, env: { PAYWALLD_CACHE_DIR: cache } };
  const servers = await Promise.all(['a', 'b'].map((name) => spawnServe(t, ['--db', path.join(dir, `${name}.db`)], launch)));
  for (const server of servers) {
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(health.headers.get('uwebsockets'), '20');
  }
  assert.deepEqual(unpacked(cache), UNPACKED);
  assert.deepEqual(await Promise.all(servers.map((server) => server.stop())), [0, 0]);
});

test('the executable refuses a cache directory that others may write to', async (t) => {
  const cache = path.join(tempDir(t), 'cache');
  fs.mkdirSync(cache);
  fs.chmodSync(cache, 0o777);
  const result = await runCli(['projects', 'list', '--db', path.join(path.dirname(cache), 'x.db')], { executable, env: { PAYWALLD_CACHE_DIR: cache } });
  assert.equal(result.status, 1);
  assert.match(
    result.stderr,
    /^paywalld: cannot unpack the executable: refusing to run files from .*cache: it must belong to this user and be writable by no one else/,
  );
  assert.deepEqual(fs.readdirSync(cache), []);
});
