import type { Database } from './database.ts';
import { asUnavailable } from './unavailable.ts';

/**
 * Calls onChange when another connection (the CLI, a second process)
 * commits a change to configuration: projects, keys, products or paywalls.
 * Each tick reads one cheap row and the request path runs no SQL: the
 * configuration generation, which triggers bump by one for every change
 * (see migration 4), beside how many of those bumps this connection made,
 * which a TEMP trigger counts (a temporary trigger fires for its own
 * connection's writes only). Bumps beyond this connection's own are
 * another's. So the event writer's commits do not count (they bump
 * nothing), nor do writes made through `db` itself, which the code making
 * them announces, whatever else commits in the same tick.
 */
export function watchConfigChanges(db: Database, intervalMs: number, onChange: () => void): () => void {
  db.exec(`
    CREATE TEMP TABLE IF NOT EXISTS own_config_changes (id INTEGER PRIMARY KEY CHECK (id = 1), count INTEGER NOT NULL);
    INSERT OR IGNORE INTO temp.own_config_changes (id, count) VALUES (1, 0);
    CREATE TEMP TRIGGER IF NOT EXISTS own_config_change AFTER UPDATE OF generation ON main.config_generation
      BEGIN UPDATE temp.own_config_changes SET count = count + 1; END;`);
  const read = db.prepare<[], { generation: number; own: number }>(
    'SELECT (SELECT generation FROM main.config_generation) AS generation, (SELECT count FROM temp.own_config_changes) AS own',
  );
  let last = read.get()!;
  const timer = setInterval(() => {
    try {
      const now = read.get()!;
      if (now.generation - last.generation !== now.own - last.own) onChange();
      // Only once the change was taken in: a tick that failed looks again next time.
      last = now;
    } catch (error) {
      // A failing database (I/O error, damaged file) must not end the process from a timer:
      // /healthz reports it, and the next tick tries again. Anything else is a bug and surfaces.
      if (!asUnavailable(error)) throw error;
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
