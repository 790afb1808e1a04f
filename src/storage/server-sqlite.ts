/**
 * A server's SQLite database: one file, owned by one process (owner.ts),
 * watched for the CLI's configuration changes (db/watch.ts).
 */

import { scheduleBackups } from '../backup/schedule.ts';
import { failFastOnLocks, openDatabase, openToOthers } from '../db/database.ts';
import { serverStorage } from '../db/ephemeral.ts';
import { migrate } from '../db/migrate.ts';
import { claimDatabase, realDatabasePath } from '../db/owner.ts';
import { watchConfigChanges } from '../db/watch.ts';
import { exportEvents } from '../events/export.ts';
import { SqliteProbe } from '../health/sqlite-probe.ts';
import type { Logger } from '../log.ts';
import { sqliteFileMetrics } from '../metrics/process.ts';
import { secretsKeyFile } from '../shared/secret-box.ts';
import type { ServerDatabase } from './server-database.ts';
import { openSqliteStorage } from './sqlite.ts';
import { writerThreadScript } from './writer-thread-script.ts';

export async function openSqliteServerDatabase(dbPath: string, log: Logger): Promise<ServerDatabase> {
  const location = serverStorage(dbPath);
  // The real file (links resolved), opened and locked under one name: its WAL and shm are beside it (owner.ts).
  const file = realDatabasePath(location.file);
  // Before anything opens the file: a second server must not even migrate it.
  const release = claimDatabase(file);
  const giveUp = () => {
    release();
    location.remove();
  };
  // A file this version creates is 0600 (database.ts); an older one, or a copy, may be open to everyone.
  const mode = openToOthers(file);
  if (mode !== undefined) {
    log.warn('the database file can be read by other users: it holds key hashes, events and connector configurations; chmod 600 it', { db: file, mode });
  }
  let db: ReturnType<typeof openDatabase>;
  try {
    db = openDatabase(file);
  } catch (error) {
    giveUp();
    throw error;
  }
  try {
    // Deleted and replaced content is overwritten on disk (connector secrets sealed at start, revoked keys): not left in free space.
    db.pragma('secure_delete = ON');
    const migration = migrate(db);
    if (migration.applied.length > 0) log.info('database migrated', { db: file, from: migration.from, to: migration.to });
    const storage = openSqliteStorage(db);
    return {
      storage,
      probe: new SqliteProbe(db, file),
      target: { kind: 'sqlite', file },
      writerScript: writerThreadScript({ kind: 'sqlite', file }),
      exportEvents: (range) => exportEvents(file, range),
      // The lock file (owner.ts) keeps every other server off this file.
      shared: false,
      registerMetrics: (registry) => sqliteFileMetrics(registry, file),
      scheduleBackups: (schedule, log) => scheduleBackups(file, schedule, log),
      secretsKeyFile: secretsKeyFile(undefined, file),
      // With secure_delete on, what the log held is then gone from the file's bytes too.
      truncateLog: () => db.pragma('wal_checkpoint(TRUNCATE)'),
      temporary: location.file !== dbPath,
      name: file,
      // The lock file (owner.ts) already keeps every other server off this file.
      exclusively: (steps) => steps(),
      serving: () => failFastOnLocks(db),
      watch: async (intervalMs, onChange) => {
        const stop = watchConfigChanges(db, intervalMs, onChange);
        return async () => stop();
      },
      close: async () => {
        await storage.close();
        giveUp();
      },
    };
  } catch (error) {
    db.close();
    giveUp();
    throw error;
  }
}
