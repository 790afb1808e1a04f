import type { Database } from './database.ts';

/**
 * Calls onChange when another connection (the CLI, a second process) commits
 * to the database. PRAGMA data_version changes only for commits made through
 * other connections, so polling it is one cheap statement per tick and no SQL
 * on the request path. Writes made through `db` itself are announced by the
 * code that makes them.
 */
export function watchDataVersion(db: Database, intervalMs: number, onChange: () => void): () => void {
  const version = db.prepare('PRAGMA data_version').pluck();
  let last = version.get();
  const timer = setInterval(() => {
    const now = version.get();
    if (now === last) return;
    last = now;
    onChange();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
