/**
 * The derived state's checkpoint driven directly, without HTTP: a checkpoint
 * refused the write lock loses nothing, and the next one writes what it
 * would have, once (the projects numbered meanwhile among it).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openSqliteStorage } from '../../src/db/sqlite-storage.ts';
import { DerivedStore } from '../../src/events/derived/checkpoint.ts';
import type { EventRow } from '../../src/events/writer/protocol.ts';
import { EventSink } from '../../src/events/writer/sink.ts';
import { tempDir } from '../helpers/temp.ts';

function row(projectId: string, eventId: string, ts: number): EventRow {
  return [projectId, 'onboarding', 'screen_impression', ts, ts, null, ts, eventId, 'user-1', 'control', null, null, null, null, null];
}

test('a checkpoint refused the write lock is written whole by the next one', async (t) => {
  const file = path.join(tempDir(t), 'checkpoint.db');
  const db = openDatabase(file);
  t.after(() => db.close());
  migrate(db);
  const { projects } = openSqliteStorage(db);
  const first = (await projects.create('first')).project.id;
  const second = (await projects.create('second')).project.id;
  const store = new DerivedStore(db);
  store.start();
  const sink = new EventSink(db, store);
  const ts = Date.UTC(2026, 0, 1);
  sink.write([[row(first, 'a', ts), row(second, 'b', ts)]]);

  const other = openDatabase(file);
  t.after(() => other.close());
  db.pragma('busy_timeout = 0');
  other.exec('BEGIN IMMEDIATE');
  assert.throws(() => store.checkpoint(), /locked|busy/i);
  other.exec('ROLLBACK');

  store.checkpoint();
  assert.deepEqual(db.prepare('SELECT project_id FROM event_projects ORDER BY project_no').pluck().all(), [first, second]);
  assert.equal(db.prepare('SELECT seq FROM event_checkpoint').pluck().get(), 2);
  assert.equal(db.prepare('SELECT count(*) FROM event_dedup').pluck().get(), 2);

  // A later checkpoint writes the next events against the same numbers, and a start loads them with nothing to replay.
  sink.write([[row(first, 'c', ts + 1)]]);
  store.checkpoint();
  assert.equal(db.prepare('SELECT count(*) FROM event_dedup').pluck().get(), 3);
  assert.deepEqual(new DerivedStore(db).start(), { checkpointSeq: 3, replayed: 0 });
});
