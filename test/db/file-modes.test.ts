/**
 * The database holds key hashes, events and connector configurations: the
 * file, its WAL and shm are created 0600 whatever the umask, and a server
 * started on a file others can read says so in its log.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Logger } from '../../src/log.ts';
import { ingest } from '../helpers/events.ts';
import { needs, SQLITE_BACKEND } from '../helpers/requirements.ts';
import { serverOn, startTestServer } from '../helpers/server.ts';

function modeOf(file: string): number {
  return fs.statSync(file).mode & 0o777;
}

test('under umask 022 the database, its WAL and shm are created 0600; a file others can read is named in a warning', needs(SQLITE_BACKEND), async (t) => {
  const umask = process.umask(0o022);
  t.after(() => process.umask(umask));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-modes-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const db = path.join(dir, 'paywalld.db');
  const first = await startTestServer(t, { dbPath: db });
  const now = Date.now();
  await ingest(first.url, first.keys.sdk, { events: [{ type: 'screen_impression', paywall_id: 'p', ts: now, id: 'e1' }] });
  for (const file of [db, `${db}-wal`, `${db}-shm`]) assert.equal(modeOf(file), 0o600, file);
  await first.server.stop();

  // A database made by an older version (or copied with cp) under umask 022.
  fs.chmodSync(db, 0o644);
  const lines: string[] = [];
  const log = new Logger('warn', { sink: (text) => lines.push(...text.trim().split('\n')) });
  await serverOn(t, db, {}, log);
  const warning = lines.map((line) => JSON.parse(line)).find((entry) => /can be read by other users/.test(entry.msg));
  assert.ok(warning, lines.join('\n'));
  assert.equal(warning.mode, '0644');
  assert.equal(warning.db, db);
});
