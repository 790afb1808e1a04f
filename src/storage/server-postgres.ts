/**
 * A server's PostgreSQL database, shared by every instance (docs/operations/scale-out.md,
 * "Running several instances"). What the SQLite server needs for a file it
 * owns alone has no use here: no lock file (instances sharing the database is
 * the point), no file-identity check (/healthz asks the server instead), no
 * scheduled file snapshots (pg_dump or the provider's backups; config.ts
 * refuses --backup-dir with a URL).
 */
import { randomUUID } from 'node:crypto';
import { ADVISORY_LOCKS } from '../db/postgres/advisory-locks.ts';
import { closePool, openPool } from '../db/postgres/connection.ts';
import { migratePostgres } from '../db/postgres/migrate.ts';
import { watchPostgresConfigChanges } from '../db/postgres/watch.ts';
import { redactUrl } from '../db/target.ts';
import { exportPostgresEvents } from '../events/postgres-export.ts';
import { PostgresProbe } from '../health/postgres-probe.ts';
import type { Logger } from '../log.ts';
import { openPostgresStorage } from './postgres.ts';
import type { ServerDatabase } from './server-database.ts';
import { writerThreadScript } from './writer-thread-script.ts';

/** Requests share these; the event writer thread opens its own two. */
const SERVER_POOL_SIZE = 10;

export async function openPostgresServerDatabase(url: string, log: Logger): Promise<ServerDatabase> {
  // This process's changes are announced with its name, so that it does not reload what it changed itself (postgres/watch.ts).
  const instance = randomUUID();
  const sql = openPool(url, { size: SERVER_POOL_SIZE, applicationName: 'paywalld serve', instance });
  const name = redactUrl(url);
  try {
    // Under the migrate advisory lock: instances starting at once migrate one after the other.
    const migration = await migratePostgres(sql);
    if (migration.applied.length > 0) log.info('database migrated', { db: name, from: migration.from, to: migration.to });
  } catch (error) {
    await closePool(sql);
    throw error;
  }
  const storage = openPostgresStorage(sql);
  return {
    storage,
    probe: new PostgresProbe(sql),
    target: { kind: 'postgres', url },
    writerScript: writerThreadScript({ kind: 'postgres', url }),
    exportEvents: (range) => exportPostgresEvents(sql, range),
    shared: true,
    // The database is no file of this host's: its size is the provider's to report.
    registerMetrics: () => {},
    // pg_dump or the provider's backups (config.ts refuses --backup-dir with a URL).
    scheduleBackups: undefined,
    // Only the setting names the secrets key: there is no file to keep it beside.
    secretsKeyFile: undefined,
    // The server's storage is its own business: nothing is left for paywalld to overwrite.
    truncateLog: () => {},
    temporary: false,
    name,
    exclusively: async (steps) => {
      // A session lock on a connection of its own: the steps run on the pool and commit before it is let go.
      const reserved = await sql.reserve();
      try {
        await reserved`SELECT pg_advisory_lock(${ADVISORY_LOCKS.bootstrap.toString()})`;
        try {
          return await steps();
        } finally {
          await reserved`SELECT pg_advisory_unlock(${ADVISORY_LOCKS.bootstrap.toString()})`;
        }
      } finally {
        reserved.release();
      }
    },
    // Each query already gives up after the pool's statement timeout (connection.ts).
    serving: () => {},
    watch: (intervalMs, onChange) => watchPostgresConfigChanges(sql, { checkEveryMs: intervalMs, onChange, instance }),
    close: () => storage.close(),
  };
}
