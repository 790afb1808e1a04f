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

test('the lock follows the real file: a symbolic link to a served database, or a second hard link, is refused', async (t) => {
  const dir = tempDir(t);
  const db = path.join(dir, 'a.db');
  const first = await spawnServe(t, ['--db', db]);
  const symlink = path.join(dir, 'link.db');
  fs.symlinkSync(db, symlink);
  const linkedDir = path.join(dir, 'linked-dir');
  fs.symlinkSync(dir, linkedDir);

  for (const through of [symlink, path.join(linkedDir, 'a.db')]) {
    const second = await runCli(['serve', '--port', '0', '--db', through]);
    assert.equal(second.status, 1, second.stderr);
    assert.match(second.stderr, new RegExp(`in use by another paywalld serve \\(pid ${first.child.pid}\\)`));
  }
  // A second name of the same inode: its own WAL would hide each server's writes from the other.
  const hardLink = path.join(dir, 'hard.db');
  fs.linkSync(db, hardLink);
  const third = await runCli(['serve', '--port', '0', '--db', hardLink]);
  assert.equal(third.status, 1, third.stderr);
  assert.match(third.stderr, /has 2 names \(hard links\)/);
  assert.equal((await fetch(`${first.url}/healthz`)).status, 200);
  assert.equal(await first.stop(), 0);

  // Alone, the database with two names is still refused, under either name; with one name again, served through the symlink.
  assert.match((await runCli(['serve', '--port', '0', '--db', db])).stderr, /hard links/);
  fs.rmSync(hardLink);
  const again = await spawnServe(t, ['--db', symlink]);
  assert.equal(fs.readFileSync(`${db}-serve.lock`, 'utf8').trim(), String(again.child.pid));
  assert.equal(fs.existsSync(`${symlink}-serve.lock`), false);
  assert.equal(fs.existsSync(`${symlink}-wal`), false);
  assert.equal(await again.stop(), 0);
});
