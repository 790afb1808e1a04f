/**
 * `--db :memory:` for CI: a database nobody has to provide or clean up.
 * SQLite's own :memory: database lives in one connection, but the server has
 * several (the event writer thread, the event export), so it is a real file
 * in a private temporary directory (mode 0700 under $TMPDIR) that the server
 * deletes when it stops. A server killed with SIGKILL leaves the directory
 * behind in $TMPDIR, where the system's temp cleaning finds it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MEMORY = ':memory:';

interface ServerStorage {
  /** The database file to open. */
  file: string;
  /** Deletes the file when it is a private one; a no-op otherwise. Call after the last connection closed. */
  remove(): void;
}

export function serverStorage(dbPath: string): ServerStorage {
  if (dbPath !== MEMORY) return { file: dbPath, remove: () => {} };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-memory-'));
  return { file: path.join(dir, 'paywalld.db'), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
