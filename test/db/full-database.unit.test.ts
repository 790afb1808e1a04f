/**
 * A full database and a read-only one: a store's write fails with
 * database_unavailable and its Retry-After, which the edge answers 503 (the
 * lock test of unavailable.test.ts shows the answer), never an unknown
 * error (500). On the store's own connection: SQLite's page limit and
 * query_only hold per connection, and the server hands its connection to
 * no one.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { DomainError } from '../../src/shared/errors.ts';
import { STALE } from '../../src/shared/stale.ts';
import { openSqliteStorage } from '../../src/storage/sqlite.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { tempDir } from '../helpers/temp.ts';

const unavailable = (error: unknown) => error instanceof DomainError && error.code === 'database_unavailable' && error.retryAfterSeconds === 1;

test('a full database and a read-only one refuse a write with database_unavailable, and take it once they can', async (t) => {
  const db = openDatabase(path.join(tempDir(t), 'paywalld.db'));
  t.after(() => db.close());
  migrate(db);
  const storage = openSqliteStorage(db);
  const { project } = await storage.projects.create('full', TEST_CHANGE);
  const big = { name: 'x'.repeat(200_000), store_ids: {} };

  // SQLite's own limit on the file's size: the next page it needs fails with SQLITE_FULL.
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true })}`);
  await assert.rejects(storage.products.write(project.id, 'big', big, undefined, TEST_CHANGE), unavailable);
  db.pragma('max_page_count = 4294967294');

  // query_only: every write fails with SQLITE_READONLY, as on a file that became read-only.
  db.pragma('query_only = 1');
  await assert.rejects(storage.products.write(project.id, 'ro', { name: 'RO', store_ids: {} }, undefined, TEST_CHANGE), unavailable);
  db.pragma('query_only = 0');

  // Nothing of the refused writes was kept, and the database takes them now.
  assert.deepEqual(await storage.products.list(project.id), []);
  const written = await storage.products.write(project.id, 'big', big, undefined, TEST_CHANGE);
  assert.ok(written !== STALE && written.created);
});
