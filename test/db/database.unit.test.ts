import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { currentVersion, migrate, SchemaTooNewError } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/temp.ts';

const latest = migrations.at(-1)!.version;

test('the database runs in WAL mode with synchronous=FULL, foreign keys and a busy timeout', (t) => {
  const db = openDatabase(path.join(tempDir(t), 'a.db'));
  t.after(() => db.close());
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  assert.equal(db.pragma('synchronous', { simple: true }), 2);
  assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
  assert.equal(db.pragma('busy_timeout', { simple: true }), 5000);
});

test('migrations are versioned, recorded and applied once', (t) => {
  const db = openDatabase(path.join(tempDir(t), 'a.db'));
  t.after(() => db.close());
  const first = migrate(db);
  assert.equal(first.from, 0);
  assert.equal(first.to, latest);
  assert.equal(first.applied.length, migrations.length);
  assert.equal(currentVersion(db), latest);
  const again = migrate(db);
  assert.deepEqual(again, { from: latest, to: latest, applied: [] });
  const recorded = db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
  assert.deepEqual(
    recorded,
    migrations.map((m) => m.version),
  );
});

test('the registry lists versions strictly in order from 1', () => {
  migrations.forEach((m, i) => {
    assert.equal(m.version, i + 1, m.name);
  });
});

test('a failing migration leaves the schema as it was', (t) => {
  const db = openDatabase(path.join(tempDir(t), 'a.db'));
  t.after(() => db.close());
  migrate(db);
  const broken = [...migrations, { version: latest + 1, name: 'broken', sql: 'CREATE TABLE ok_so_far (x); THIS IS NOT SQL' }];
  assert.throws(() => migrate(db, broken), /syntax error/);
  assert.equal(currentVersion(db), latest);
  assert.equal(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'ok_so_far'").pluck().get(), 0);
});

// serve refuses it too: test/cli/serve.test.ts, with the tests that need uWS.
test('a database newer than the binary is refused with a clear message, by the library, migrate and the other commands', async (t) => {
  const file = path.join(tempDir(t), 'future.db');
  const db = openDatabase(file);
  migrate(db);
  db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(latest + 1, 'from the future', Date.now());
  assert.throws(
    () => migrate(db),
    (error) => error instanceof SchemaTooNewError && error.found === latest + 1,
  );
  db.close();

  for (const args of [['migrate'], ['projects', 'list']]) {
    const result = await runCli([...args, '--db', file]);
    assert.equal(result.status, 1, args.join(' '));
    assert.match(result.stderr, new RegExp(`schema is at version ${latest + 1}, but this paywalld only knows versions up to ${latest}`));
  }
});
