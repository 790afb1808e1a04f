/**
 * PostgreSQL's migrations on a real server: they apply on a fresh database,
 * instances migrating at once apply them once, a schema newer than this
 * paywalld is refused as on SQLite, and one older than the baseline too, a
 * failing migration changes nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrate, SchemaTooNewError } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { currentPostgresVersion, migratePostgres, SchemaBeforeBaselineError } from '../../src/db/postgres/migrate.ts';
import { postgresMigrations } from '../../src/db/postgres/migrations/index.ts';
import { POSTGRES, postgresDatabase, testPool } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';

const LAST = migrations.at(-1)!.version;
const BASELINE = postgresMigrations[0]!.version;

test("PostgreSQL's migrations are a baseline at one of SQLite's versions, then SQLite's after it: versions and names", () => {
  assert.ok(migrations.some((migration) => migration.version === BASELINE));
  assert.deepEqual(
    postgresMigrations.slice(1).map(({ version, name }) => ({ version, name })),
    migrations.filter((migration) => migration.version > BASELINE).map(({ version, name }) => ({ version, name })),
  );
});

test('migrations apply on a fresh database, record their versions, the last as SQLite does, and apply nothing the second time', needs(POSTGRES), async (t) => {
  const sql = testPool(t, (await postgresDatabase(t)).url);
  assert.equal(await currentPostgresVersion(sql), 0);
  const first = await migratePostgres(sql);
  assert.deepEqual(first, { from: 0, to: LAST, applied: postgresMigrations.map((m) => `${m.version} ${m.name}`) });
  const recorded = await sql<{ version: number; name: string }[]>`SELECT version, name FROM schema_migrations ORDER BY version`;
  assert.deepEqual(
    recorded.map((row) => ({ ...row })),
    postgresMigrations.map(({ version, name }) => ({ version, name })),
  );
  assert.deepEqual(await migratePostgres(sql), { from: LAST, to: LAST, applied: [] });
  assert.equal(await currentPostgresVersion(sql), LAST);
});

test('three instances migrating at once: one applies every migration, the others wait for it and find nothing to do', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const instances = [testPool(t, url), testPool(t, url), testPool(t, url)];
  // Each pool connects first, so that the three transactions really start together.
  await Promise.all(instances.map((sql) => sql`SELECT 1`));
  const results = await Promise.all(instances.map((sql) => migratePostgres(sql)));
  assert.deepEqual(results.map((result) => result.applied.length).sort(), [0, 0, postgresMigrations.length]);
  for (const result of results) assert.equal(result.to, LAST);
  const [{ count }] = (await instances[0]!`SELECT count(*) AS count FROM schema_migrations`) as unknown as [{ count: number }];
  assert.equal(count, postgresMigrations.length);
});

test('a schema newer than this paywalld knows is refused, with the message SQLite gives', needs(POSTGRES), async (t) => {
  const sql = testPool(t, (await postgresDatabase(t)).url);
  await migratePostgres(sql);
  await sql`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${LAST + 1}, 'from the future', 0)`;

  const sqlite = openDatabase(':memory:');
  t.after(() => sqlite.close());
  migrate(sqlite);
  sqlite.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)').run(LAST + 1, 'from the future');
  const sqliteError = (() => {
    try {
      migrate(sqlite);
    } catch (error) {
      return error;
    }
    assert.fail('SQLite accepted a newer schema');
  })();

  await assert.rejects(migratePostgres(sql), (error) => {
    assert.ok(error instanceof SchemaTooNewError);
    assert.equal(error.found, LAST + 1);
    assert.equal(error.known, LAST);
    assert.equal(error.message, (sqliteError as Error).message);
    return true;
  });
});

test('a failing migration leaves the schema as it was: nothing of it stays, and its version is not recorded', needs(POSTGRES), async (t) => {
  const sql = testPool(t, (await postgresDatabase(t)).url);
  await migratePostgres(sql);
  const broken = [...postgresMigrations, { version: LAST + 1, name: 'broken', sql: 'CREATE TABLE half_done (id text); SELECT * FROM no_such_table;' }];
  await assert.rejects(migratePostgres(sql, broken), /no_such_table/);
  assert.equal(await currentPostgresVersion(sql), LAST);
  const [row] = await sql<{ present: boolean }[]>`SELECT to_regclass('half_done') IS NOT NULL AS present`;
  assert.equal(row!.present, false);
});

test('a schema from before the baseline is refused, saying what to do, and left as it was', needs(POSTGRES), async (t) => {
  const sql = testPool(t, (await postgresDatabase(t)).url);
  // What a development build made before the squash: its first steps recorded, their tables there.
  await sql.unsafe(`CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL);
    CREATE TABLE projects (id text PRIMARY KEY, name text NOT NULL, created_at bigint NOT NULL);
    INSERT INTO schema_migrations VALUES (1, 'projects and api keys', 0), (2, 'products, paywalls and paywall revisions', 0)`);
  await assert.rejects(migratePostgres(sql), (error) => {
    assert.ok(error instanceof SchemaBeforeBaselineError);
    assert.equal(error.found, 2);
    assert.equal(error.baseline, BASELINE);
    assert.match(error.message, /before the baseline .*create a new database/);
    return true;
  });
  assert.equal(await currentPostgresVersion(sql), 2);
  const [row] = await sql<{ present: boolean }[]>`SELECT to_regclass('products') IS NOT NULL AS present`;
  assert.equal(row!.present, false);
});
