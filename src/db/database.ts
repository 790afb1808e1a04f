/**
 * The one place that opens the SQLite file. Every connection, the server's and
 * the CLI's, goes through openDatabase so they all share the same pragmas.
 */
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { loadSqliteAddon } from '../native.ts';

export type Database = BetterSqlite3.Database;

interface OpenOptions {
  /** Refuse to create the file: commands that only read or copy need an existing database. */
  mustExist?: boolean;
}

export function openDatabase(file: string, options: OpenOptions = {}): Database {
  if (file !== ':memory:') {
    if (options.mustExist && !fs.existsSync(file)) {
      throw new Error(`database ${file} does not exist`);
    }
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  }
  const db = new BetterSqlite3(file, { nativeBinding: loadSqliteAddon() as never, fileMustExist: options.mustExist ?? false });
  // busy_timeout first: switching to WAL needs a lock another process may hold.
  db.pragma('busy_timeout = 5000');
  const mode = db.pragma('journal_mode = WAL', { simple: true });
  if (file !== ':memory:' && mode !== 'wal') {
    db.close();
    throw new Error(`database ${file} cannot use WAL mode (journal_mode is ${String(mode)})`);
  }
  // FULL: an acknowledged write survives power loss, not just a process crash.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  return db;
}

/**
 * For the server's own connection once it is up: a statement that meets a
 * lock held elsewhere fails at once (SQLITE_BUSY) instead of sleeping inside
 * SQLite, which would freeze the event loop; retryWhileLocked
 * (db/lock-retry.ts) waits for it with timers instead. The CLI and the event
 * writer's thread keep the 5 s wait: blocking is harmless there.
 */
export function failFastOnLocks(db: Database): void {
  db.pragma('busy_timeout = 0');
}

/**
 * For the event writer's connection: SQLite's sorter keeps what it sorts in
 * memory instead of spilling past a few MB to a temporary file. The
 * checkpoint sorts each index's new entries (up to 200,000, about 10 MB) with
 * INSERT … SELECT … ORDER BY; spilled, they were written to disk once more
 * (bench/notes/analytics-storage.md, "Storage designs", has the bytes per event).
 */
export function sortInMemory(db: Database): void {
  db.pragma('temp_store = MEMORY');
}
