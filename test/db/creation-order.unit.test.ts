/**
 * SQLite's migration 13 numbers the projects and keys stored before it in
 * the order they were listed then (created_at, then id), and rows made after
 * it follow them. PostgreSQL's schema starts at its baseline, which has no
 * rows to number (src/db/postgres/migrations/baseline.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';

const BEFORE_13 = (migration: { version: number }) => migration.version < 13;
/** Listed before migration 13 as b (older), then a and c (one millisecond, ids in byte order). */
const STORED = [
  ['c', 2],
  ['b', 1],
  ['a', 2],
] as const;

test('SQLite: rows stored before the creation sequence are numbered as they were listed, new ones after them', () => {
  const db = openDatabase(':memory:');
  migrate(db, migrations.filter(BEFORE_13));
  for (const [id, at] of STORED) db.prepare('INSERT INTO projects (id, name, created_at) VALUES (?, ?, ?)').run(id, id, at);
  migrate(db);
  db.prepare("INSERT INTO projects (id, name, created_at, seq) VALUES ('0', '0', 0, (SELECT max(seq) + 1 FROM projects))").run();
  assert.deepEqual(db.prepare('SELECT id FROM projects ORDER BY seq').pluck().all(), ['b', 'a', 'c', '0']);
  db.close();
});
