/**
 * The derived state's checkpoint driven directly, without HTTP: a checkpoint
 * refused the write lock loses nothing, and the next one writes what it
 * would have, once (the projects numbered meanwhile among it); the users
 * dictionary comes back the same from a checkpoint, a replay and a rebuild.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { DerivedStore } from '../../src/analytics/checkpoint.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import type { EventRow } from '../../src/events/event-row.ts';
import { EventSink } from '../../src/events/writer/sink.ts';
import { openSqliteStorage } from '../../src/storage/sqlite.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { tempDir } from '../helpers/temp.ts';

function row(projectId: string, eventId: string, ts: number): EventRow {
  return [projectId, 'onboarding', 'screen_impression', ts, ts, null, ts, eventId, 'user-1', 'control', null, null, null, null, null, null];
}

test('a checkpoint refused the write lock is written whole by the next one', async (t) => {
  const file = path.join(tempDir(t), 'checkpoint.db');
  const db = openDatabase(file);
  t.after(() => db.close());
  migrate(db);
  const { projects } = openSqliteStorage(db);
  const first = (await projects.create('first', TEST_CHANGE)).project.id;
  const second = (await projects.create('second', TEST_CHANGE)).project.id;
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

test('users of every kind come back with their ordinals from a checkpoint, a replay and a rebuild', async (t) => {
  const file = path.join(tempDir(t), 'users.db');
  const db = openDatabase(file);
  t.after(() => db.close());
  migrate(db);
  const project = (await openSqliteStorage(db).projects.create('users', TEST_CHANGE)).project.id;
  const store = new DerivedStore(db);
  store.start();
  const sink = new EventSink(db, store);
  // More than one page of the checkpoint's users (4,096 a statement), with ids JSON must escape and ids in any script.
  const odd = ['quote " and \\ backslash', 'tab\tnew\nline\0nul', '用户 😀', '123', 'null', ''];
  const ids = [...odd, ...Array.from({ length: 5000 }, (_, i) => `u${i}`)];
  const ts = Date.UTC(2026, 0, 1);
  const withUser = (userId: string, i: number): EventRow => {
    const event = row(project, `e${i}`, ts + i);
    event[8] = userId;
    return event;
  };
  sink.write([ids.slice(0, 3000).map(withUser)]);
  store.checkpoint();
  // The rest after the checkpoint: replayed at the next start.
  sink.write([ids.slice(3000).map((id, i) => withUser(id, 3000 + i))]);
  const usersOf = (derived: DerivedStore) => derived.state.users.ids(project, 0, derived.state.users.count(project));

  const loaded = new DerivedStore(db);
  assert.deepEqual(loaded.start(), { checkpointSeq: 3000, replayed: ids.length - 3000 });
  assert.deepEqual(usersOf(loaded), ids);
  assert.deepEqual(db.prepare('SELECT user_id FROM event_users WHERE project_id = ? ORDER BY ordinal').pluck().all(project), ids);

  db.exec('DELETE FROM event_checkpoint');
  const rebuilt = new DerivedStore(db);
  assert.deepEqual(rebuilt.start(), { checkpointSeq: 0, replayed: ids.length });
  assert.deepEqual(usersOf(rebuilt), ids);
  const again = new DerivedStore(db);
  assert.deepEqual(again.start(), { checkpointSeq: ids.length, replayed: 0 });
  assert.deepEqual(usersOf(again), ids);
});
