/**
 * The event writer thread driven directly, without HTTP: the part of event
 * ingestion that runs on every supported Node.js, uWS or not (.ci/run runs it
 * under Node 24 too, where the thread loads its own better-sqlite3 addon).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import type { EventRow } from '../../src/events/event-row.ts';
import { EventWriter } from '../../src/events/writer/writer.ts';
import { Logger } from '../../src/log.ts';
import { openSqliteStorage } from '../../src/storage/sqlite.ts';
import { writerThreadScript } from '../../src/storage/writer-thread-script.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { tempDir } from '../helpers/temp.ts';

function row(projectId: string, eventId: string, ts: number): EventRow {
  return [projectId, 'onboarding', 'screen_impression', ts, ts, null, ts, eventId, 'user-1', 'control', null, null, null, null, null, null];
}

test('the writer thread commits each batch, counts duplicates, and has stored everything once closed', async (t) => {
  const file = path.join(tempDir(t), 'writer.db');
  const db = openDatabase(file);
  t.after(() => db.close());
  migrate(db);
  const projectId = (await openSqliteStorage(db).projects.create('writer', TEST_CHANGE)).project.id;

  const transactions: number[] = [];
  const writer = new EventWriter({
    target: { kind: 'sqlite', file },
    script: writerThreadScript({ kind: 'sqlite', file }),
    retentionDays: undefined,
    queueLimit: 10_000,
    queueBytes: 16 * 1024 * 1024,
    log: new Logger('error'),
    onTransaction: (rows) => transactions.push(rows),
  });
  const ts = Date.UTC(2026, 0, 1);
  assert.deepEqual(await Promise.all([writer.write([row(projectId, 'a', ts), row(projectId, 'b', ts)]), writer.write([row(projectId, 'c', ts)])]), [
    { inserted: 2, refused: [] },
    { inserted: 1, refused: [] },
  ]);
  // A retry of a stored event (same id, same client time) is a duplicate; another time makes it a new event.
  assert.deepEqual(await writer.write([row(projectId, 'a', ts), row(projectId, 'a', ts + 1)]), { inserted: 1, refused: [] });
  await writer.close();

  assert.equal(
    transactions.reduce((sum, rows) => sum + rows, 0),
    5,
  );
  assert.deepEqual(db.prepare('SELECT event_id FROM events ORDER BY seq').pluck().all(), ['a', 'b', 'c', 'a']);
  await assert.rejects(writer.write([row(projectId, 'd', ts)]), { code: 'ingestion_failed' });
});
