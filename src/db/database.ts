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

/**
 * Creates a missing database file empty (SQLite takes an empty file for a new
 * database) and mode 0600 whatever the umask: it holds key hashes, events and
 * connector configurations. SQLite gives the WAL, shm and journal the mode of
 * the database file.
 */
function createPrivate(file: string): void {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  try {
    fs.fchmodSync(fd, 0o600);
  } finally {
    fs.closeSync(fd);
  }
}

/** The permission bits of a file (as `ls` shows them, 0644) when they let users other than its owner in; undefined otherwise. */
export function openToOthers(file: string): string | undefined {
  const mode = (fs.statSync(file, { throwIfNoEntry: false })?.mode ?? 0) & 0o777;
  return (mode & 0o077) === 0 ? undefined : `0${mode.toString(8)}`;
}

export function openDatabase(file: string, options: OpenOptions = {}): Database {
  if (file !== ':memory:') {
    if (options.mustExist && !fs.existsSync(file)) {
      throw new Error(`database ${file} does not exist`);
    }
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    if (!options.mustExist) createPrivate(file);
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
