import { SchemaTooNewError } from '../migrate.ts';
import type { Migration } from '../migrations/migration.ts';
import { ADVISORY_LOCKS } from './advisory-locks.ts';
import type { Sql } from './connection.ts';
import { postgresMigrations } from './migrations/index.ts';

interface MigrationResult {
  from: number;
  to: number;
  applied: string[];
}

type Queryable = Pick<Sql, 'unsafe'>;

/**
 * A schema made by a development build before the PostgreSQL migrations
 * were squashed into one baseline (migrations/baseline.ts): no release made
 * one, and no migration leads from it to the baseline.
 */
export class SchemaBeforeBaselineError extends Error {
  constructor(
    readonly found: number,
    readonly baseline: number,
  ) {
    super(
      `the PostgreSQL schema is at version ${found}, made by a development build before the baseline (version ${baseline}); ` +
        'create a new database (paywalld migrate-to copies a SQLite one into it)',
    );
    this.name = 'SchemaBeforeBaselineError';
  }
}

/** The highest version recorded in schema_migrations; 0 on an empty database. */
export async function currentPostgresVersion(sql: Queryable): Promise<number> {
  const [table] = await sql.unsafe<{ present: boolean }[]>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`);
  if (!table?.present) return 0;
  const [row] = await sql.unsafe<{ version: number | null }[]>('SELECT max(version) AS version FROM schema_migrations');
  return row?.version ?? 0;
}

/**
 * Applies every pending migration in one transaction that first takes an
 * advisory lock: instances starting at once wait for the first one, then
 * find nothing left to do. A failed migration leaves the schema as it was
 * (PostgreSQL's DDL is transactional). A schema newer than the last known
 * version is refused, as on SQLite.
 */
export async function migratePostgres(sql: Sql, migrations: readonly Migration[] = postgresMigrations): Promise<MigrationResult> {
  const known = migrations.at(-1)?.version ?? 0;
  return await sql.begin(async (tx) => {
    // A migration may rewrite a large table: the pool's statement timeout is for requests.
    await tx.unsafe('SET LOCAL statement_timeout = 0');
    await tx.unsafe('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCKS.migrate.toString()]);
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer PRIMARY KEY,
      name       text NOT NULL,
      applied_at bigint NOT NULL
    )`);
    const from = await currentPostgresVersion(tx);
    if (from > known) throw new SchemaTooNewError(from, known);
    const baseline = migrations[0]?.version ?? 0;
    if (from > 0 && from < baseline) throw new SchemaBeforeBaselineError(from, baseline);
    const applied: string[] = [];
    for (const migration of migrations) {
      if (migration.version <= from) continue;
      // An empty migration stands for a SQLite one PostgreSQL has no use for: only its version is recorded.
      if (migration.sql !== '') await tx.unsafe(migration.sql);
      await tx.unsafe('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, Date.now()]);
      applied.push(`${migration.version} ${migration.name}`);
    }
    return { from, to: Math.max(from, known), applied };
  });
}
