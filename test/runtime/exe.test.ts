/**
 * `build-exe.mjs --node PATH` embeds the given Node.js and only the addons of
 * its ABI. The test hands it the node running the tests, so under Node 24
 * (npm run test:no-http in .ci/run) this is an executable carrying Node 24,
 * which on glibc older than 2.38 runs every command but serve.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli, spawnServe } from '../helpers/cli.ts';
import { tempDir } from '../helpers/temp.ts';

const BUILD_EXE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../build-exe.mjs');
const ABI = process.versions.modules;
const GLIBC = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime;
const SERVES =
  (ABI === '115' && GLIBC && Number(GLIBC.split('.')[1]) >= 28) || (['127', '137', '141'].includes(ABI) && GLIBC && Number(GLIBC.split('.')[1]) >= 38);

test("an executable built with --node carries that Node.js and its ABI's addons, and says so", async (t) => {
  const dir = tempDir(t);
  const executable = path.join(dir, 'paywalld');
  execFileSync(process.execPath, [BUILD_EXE, '--node', process.execPath, '--out', executable], { stdio: 'pipe' });
  const cache = path.join(dir, 'cache');
  const launch = { executable, cwd: dir, env: { PAYWALLD_CACHE_DIR: cache } };

  const version = runCli(['--version'], launch);
  assert.equal(version.status, 0, version.stderr);
  assert.equal(
    version.stdout.split('\n')[1],
    `Node.js ${process.version} (ABI ${ABI}, ${process.platform} ${process.arch}${GLIBC ? `, glibc ${GLIBC}` : ''}), embedded in this executable`,
  );
  const [buildId] = fs.readdirSync(cache);
  const addons = fs.readdirSync(path.join(cache, buildId!)).filter((name) => name.endsWith('.node'));
  assert.deepEqual(addons.sort(), [`better_sqlite3_${process.platform}_${process.arch}_${ABI}.node`, `uws_${process.platform}_${process.arch}_${ABI}.node`]);

  const db = path.join(dir, 'exe.db');
  const created = runCli(['projects', 'create', 'embedded', '--json', '--db', db], launch);
  assert.equal(created.status, 0, created.stderr);

  if (SERVES) {
    const server = await spawnServe(t, ['--db', db], launch);
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    assert.equal(await server.stop(), 0);
    return;
  }
  // Inside an executable the way out is another executable: the message says which to build.
  const served = runCli(['serve', '--port', '0', '--db', db], launch);
  assert.equal(served.status, 1);
  assert.equal(served.stdout, '');
  assert.equal(
    served.stderr.split('\n')[1],
    'What works: an executable built with one of these (npm run build:exe -- --node 20): Node.js 20 on glibc 2.28+ (Debian 10, Ubuntu 20.04, RHEL 8 and newer); Node.js 22, 24 or 25 on glibc 2.38+ (Debian 13, Ubuntu 24.04, Fedora 39, RHEL 10 and newer).',
  );
});
