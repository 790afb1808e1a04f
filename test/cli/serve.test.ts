// The CLI around a running server: serve itself, and commands run beside one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { SERVE_OPTIONS } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { runCli, spawnServe } from '../helpers/cli.ts';
import { tempDir } from '../helpers/temp.ts';

test('backup while the server runs produces a database that opens and holds the same projects', async (t) => {
  const dir = tempDir(t);
  const db = path.join(dir, 'live.db');
  const server = await spawnServe(t, ['--db', db]);
  for (const name of ['one', 'two']) await runCli(['projects', 'create', name, '--db', db]);
  const target = path.join(dir, 'backups', 'copy.db');
  const result = await runCli(['backup', target, '--db', db]);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /Backed up \d+ pages/);
  assert.deepEqual(fs.readdirSync(path.dirname(target)), ['copy.db']);

  const names = (file: string) => {
    const handle = openDatabase(file, { mustExist: true });
    try {
      return handle.prepare('SELECT name FROM projects ORDER BY name').pluck().all();
    } finally {
      handle.close();
    }
  };
  assert.deepEqual(names(target), ['default', 'one', 'two']);
  assert.deepEqual(names(target), names(db));
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);

  const again = await runCli(['backup', target, '--db', db]);
  assert.equal(again.status, 1);
  assert.match(again.stderr, /exists already/);
  assert.equal(await server.stop(), 0);
});

test('serve prints the default project keys once, on the first start only', async (t) => {
  const db = path.join(tempDir(t), 'first.db');
  const first = await spawnServe(t, ['--db', db]);
  assert.match(first.output(), /sdk key: {4}pwk_sdk_\w{32}\n {2}secret key: pwk_secret_\w{32}\nThese keys will not be shown again/);
  assert.equal(await first.stop(), 0);
  const second = await spawnServe(t, ['--db', db]);
  assert.doesNotMatch(second.output(), /pwk_/);
  assert.equal(await second.stop('SIGINT'), 0);
});

test('a second server on a busy port fails with "address in use" instead of sharing it', async (t) => {
  const dir = tempDir(t);
  const first = await spawnServe(t, ['--db', path.join(dir, 'a.db')]);
  const second = await runCli(['serve', '--port', String(first.port), '--db', path.join(dir, 'b.db')]);
  assert.equal(second.status, 1);
  assert.match(second.stderr, /address is in use/);
  assert.equal(await first.stop(), 0);
});

test('a first start that fails on a busy port has printed the keys of the project it created, and they work at the next start', async (t) => {
  const dir = tempDir(t);
  const db = path.join(dir, 'first.db');
  const busy = await spawnServe(t, ['--db', path.join(dir, 'other.db')]);
  const failed = await runCli(['serve', '--port', String(busy.port), '--db', db]);
  assert.equal(failed.status, 1);
  assert.match(failed.stderr, /address is in use/);
  const secret = /secret key: (pwk_secret_\w{32})\nThese keys will not be shown again/.exec(failed.stdout)?.[1];
  assert.ok(secret, failed.stdout);
  assert.equal(await busy.stop(), 0);

  const next = await spawnServe(t, ['--db', db]);
  assert.doesNotMatch(next.output(), /pwk_/);
  const projects = await fetch(`${next.url}/api/products`, { headers: { authorization: `Bearer ${secret}` } });
  assert.equal(projects.status, 200);
  assert.equal(await next.stop(), 0);
});

test('with --keys-file, a first start that fails on a busy port leaves the keys file of the project it kept', async (t) => {
  const dir = tempDir(t);
  const keysFile = path.join(dir, 'keys.json');
  const busy = await spawnServe(t, ['--db', path.join(dir, 'other.db')]);
  const failed = await runCli(['serve', '--port', String(busy.port), '--db', path.join(dir, 'first.db'), '--keys-file', keysFile]);
  assert.equal(failed.status, 1);
  assert.equal(await busy.stop(), 0);
  assert.match(JSON.parse(fs.readFileSync(keysFile, 'utf8')).keys.secret, /^pwk_secret_/);
  assert.equal(fs.statSync(keysFile).mode & 0o777, 0o600);
});

test('serve documents and accepts every flag it has', async (t) => {
  const help = (await runCli(['serve', '--help'])).stdout;
  for (const flag of Object.keys(SERVE_OPTIONS)) assert.match(help, new RegExp(`--${flag}\\b`), flag);
  const dir = tempDir(t);
  const server = await spawnServe(t, [
    ...['--db', path.join(dir, 'all.db'), '--host', '127.0.0.1', '--log-level', 'info', '--require-key', '--trust-proxy'],
    ...['--rate-limit-sdk', '50', '--rate-limit-api', '10', '--cors-origin', 'https://a.example', '--cors-origin', 'https://b.example'],
    ...['--body-timeout', '10', '--retention-days', '30', '--metrics-port', '0', '--request-log-rate', '5'],
    ...['--backup-dir', path.join(dir, 'backups'), '--backup-every', '6h', '--backup-keep', '3'],
  ]);
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  assert.equal(await server.stop(), 0);
});

test('serve refuses a database newer than the binary with a clear message', async (t) => {
  const file = path.join(tempDir(t), 'future.db');
  const db = openDatabase(file);
  migrate(db);
  const latest = migrations.at(-1)!.version;
  db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(latest + 1, 'from the future', Date.now());
  db.close();
  const result = await runCli(['serve', '--port', '0', '--db', file]);
  assert.equal(result.status, 1);
  assert.match(result.stderr, new RegExp(`schema is at version ${latest + 1}, but this paywalld only knows versions up to ${latest}`));
});
