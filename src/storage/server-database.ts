/**
 * The database a server runs on, whichever the backend: a SQLite file owned
 * by one process (server-sqlite.ts) or a PostgreSQL database shared by any
 * number of instances (server-postgres.ts, docs/operations/scale-out.md). The backend
 * is decided here, once: src/app.ts starts the same services on either, and
 * they ask the capabilities below rather than holding a connection.
 */
import type { BackupSchedule } from '../backup/schedule.ts';
import type { ServeConfig } from '../config.ts';
import type { DatabaseTarget } from '../db/target.ts';
import type { EventExport } from '../events/export-line.ts';
import type { WriterScript } from '../events/writer/protocol.ts';
import type { DatabaseProbe } from '../health/service.ts';
import type { Logger } from '../log.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import { openPostgresServerDatabase } from './server-postgres.ts';
import { openSqliteServerDatabase } from './server-sqlite.ts';
import type { Storage } from './storage.ts';

export interface ServerDatabase {
  readonly storage: Storage;
  /** What /healthz asks, and what each write request checks first. */
  readonly probe: DatabaseProbe;
  /** The database as opened (`:memory:` replaced by its temporary file): the event writer thread opens its own connections on it. */
  readonly target: DatabaseTarget;
  /** The event writer thread's script, of the database's kind: it opens its own connections on `target`. */
  readonly writerScript: WriterScript;
  /** The event export, read on a connection of its own. */
  readonly exportEvents: EventExport;
  /** Other servers may serve from this database at once (PostgreSQL); false where this one owns it (SQLite's lock file). */
  readonly shared: boolean;
  /** `--db :memory:`: a private file deleted at the stop, whose keys file goes with it. */
  readonly temporary: boolean;
  /** The database as the logs name it: a file, or the URL without its password. */
  readonly name: string;
  /** Registers the database's own gauges (the SQLite file's size); none where the database is not a file. */
  registerMetrics(registry: MetricsRegistry): void;
  /** Starts the scheduled snapshots (`--backup-dir`), resolving with their stop; undefined where the backend has its own (config.ts refuses the flag). */
  readonly scheduleBackups: ((schedule: BackupSchedule, log: Logger) => () => Promise<void>) | undefined;
  /** Where the secrets key is kept unless the setting names a file: beside the SQLite file; undefined where there is none. */
  readonly secretsKeyFile: string | undefined;
  /** Moves SQLite's write-ahead log into the file and empties it, so that rows rewritten (secrets sealed) leave no copy; nothing elsewhere. */
  truncateLog(): void;
  /** Runs `steps` while no other server on this database runs its own (the empty-database bootstrap). */
  exclusively<T>(steps: () => Promise<T>): Promise<T>;
  /** Start-up is over: from now on a request must not wait for a lock. */
  serving(): void;
  /** Calls onChange when another process or instance commits configuration; resolves with the stop. */
  watch(intervalMs: number, onChange: () => void): Promise<() => Promise<void>>;
  /** Closes the storage and gives the database up (lock file, temporary file). */
  close(): Promise<void>;
}

/** Opens and migrates the database `config.database` names (a SQLite file or a `postgres://` URL). */
export function openServerDatabase(config: ServeConfig, log: Logger): Promise<ServerDatabase> {
  const { database } = config;
  return database.kind === 'postgres' ? openPostgresServerDatabase(database.url, log) : openSqliteServerDatabase(database.file, log);
}
