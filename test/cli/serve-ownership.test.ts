/** `serve` owns its database file: a second server on it exits 1 naming the owner; the CLI commands beside a server keep working. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, spawnServe } from '../helpers/cli.ts';
import { tempDir } from '../helpers/temp.ts';

test('a second serve on the same database exits 1 naming the owner; a SIGKILLed owner does not block the next start', async (t) => {
  const dir = tempDir(t);
  const db = path.join(dir, 'paywalld.db');
  const first = await spawnServe(t, ['--db', db]);

  const second = await runCli(['serve', '--port', '0', '--db', db]);
  assert.equal(second.status, 1, second.stderr);
  assert.match(second.stderr, new RegExp(`in use by another paywalld serve \\(pid ${first.child.pid}\\)`));
  assert.doesNotMatch(second.stdout, /listening/);
  // The first one serves on, and the commands docs/operations/backups.md calls safe beside a running server work.
  assert.equal((await fetch(`${first.url}/healthz`)).status, 200);
  const created = await runCli(['projects', 'create', 'beside', '--db', db]);
  assert.equal(created.status, 0, created.stderr);
  const backup = await runCli(['backup', path.join(dir, 'copy.db'), '--db', db]);
  assert.equal(backup.status, 0, backup.stderr);
  assert.equal((await runCli(['projects', 'list', '--db', db])).status, 0);

  // SIGKILL leaves the lock file behind, naming a process that is gone: the next serve takes over.
  assert.equal(await first.stop('SIGKILL'), null);
  assert.ok(fs.existsSync(`${db}-serve.lock`));
  const next = await spawnServe(t, ['--db', db]);
  assert.equal(fs.readFileSync(`${db}-serve.lock`, 'utf8').trim(), String(next.child.pid));
  assert.equal(await next.stop(), 0);
  assert.equal(fs.existsSync(`${db}-serve.lock`), false);
});
