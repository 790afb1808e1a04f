import type { Database } from './database.ts';
import { migrations as registry } from './migrations/index.ts';
import type { Migration } from './migrations/migration.ts';

export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `the database schema is at version ${found}, but this paywalld only knows versions up to ${known}; ` +
        'run a newer paywalld (or restore a backup made by this version)',
    );
    this.name = 'SchemaTooNewError';
  }
}

interface MigrationResult {
  from: number;
  to: number;
  applied: string[];
}

export function currentVersion(db: Database): number {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!table) return 0;
  const row = db.prepare('SELECT max(version) AS version FROM schema_migrations').get() as { version: number | null };
  return row.version ?? 0;
}

/**
 * Applies every pending migration in one IMMEDIATE transaction, so two
 * processes starting at once cannot both migrate, and a failed migration
 * leaves the schema as it was.
 */
export function migrate(db: Database, migrations: readonly Migration[] = registry): MigrationResult {
  const known = migrations.at(-1)?.version ?? 0;
  const run = db.transaction((): MigrationResult => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at INTEGER NOT NULL
    ) STRICT`);
    const from = currentVersion(db);
    if (from > known) throw new SchemaTooNewError(from, known);
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    const applied: string[] = [];
    for (const migration of migrations) {
      if (migration.version <= from) continue;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
      applied.push(`${migration.version} ${migration.name}`);
    }
    return { from, to: Math.max(from, known), applied };
  });
  return run.immediate();
}
