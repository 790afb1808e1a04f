/**
 * The database a server runs on, whichever the backend: a SQLite file owned
 * by one process (server-sqlite.ts) or a PostgreSQL database shared by any
 * number of instances (server-postgres.ts, docs/scale-out.md). src/app.ts
 * starts the same services on either.
 */
import type { ServeConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Sql } from '../db/postgres/connection.ts';
import { isPostgresUrl } from '../db/postgres/url.ts';
import type { DatabaseProbe } from '../health/service.ts';
import type { Logger } from '../log.ts';
import { openPostgresServerDatabase } from './server-postgres.ts';
import { openSqliteServerDatabase } from './server-sqlite.ts';
import type { Storage } from './storage.ts';

export interface ServerDatabase {
  readonly storage: Storage;
  /** What /healthz asks, and what each write request checks first. */
  readonly probe: DatabaseProbe;
  /** The SQLite connection; undefined on PostgreSQL. */
  readonly sqlite: Database | undefined;
  /** The PostgreSQL pool (the event export reads through it); undefined on SQLite. */
  readonly postgres: Sql | undefined;
  /** The SQLite file (its size in /metrics, scheduled backups); undefined on PostgreSQL. */
  readonly file: string | undefined;
  /** `--db :memory:`: a private file deleted at the stop, whose keys file goes with it. */
  readonly temporary: boolean;
  /** The database as the logs name it: a file, or the URL without its password. */
  readonly name: string;
  /** Runs `steps` while no other server on this database runs its own (the empty-database bootstrap). */
  exclusively<T>(steps: () => Promise<T>): Promise<T>;
  /** Start-up is over: from now on a request must not wait for a lock. */
  serving(): void;
  /** Calls onChange when another process or instance commits configuration; resolves with the stop. */
  watch(intervalMs: number, onChange: () => void): Promise<() => Promise<void>>;
  /** Closes the storage and gives the database up (lock file, temporary file). */
  close(): Promise<void>;
}

/** Opens and migrates the database `config.dbPath` names (a SQLite file or a `postgres://` URL). */
export function openServerDatabase(config: ServeConfig, log: Logger): Promise<ServerDatabase> {
  return isPostgresUrl(config.dbPath) ? openPostgresServerDatabase(config.dbPath, log) : openSqliteServerDatabase(config.dbPath, log);
}
