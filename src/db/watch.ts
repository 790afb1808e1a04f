import type { Database } from './database.ts';
import { asUnavailable } from './unavailable.ts';

/**
 * Calls onChange when another connection (the CLI, a second process)
 * commits a change to configuration: projects, keys, products or paywalls.
 * PRAGMA data_version changes only for commits made through other
 * connections, so each tick costs one cheap statement and the request path
 * runs no SQL; only when it moved is the configuration generation (bumped by
 * triggers, see migration 4) read, so that the event writer's commits do not
 * count. Writes made through `db` itself are announced by the code that
 * makes them.
 */
export function watchConfigChanges(db: Database, intervalMs: number, onChange: () => void): () => void {
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const generation = db.prepare('SELECT generation FROM config_generation').pluck();
  let lastData = dataVersion.get();
  let lastGeneration = generation.get();
  const timer = setInterval(() => {
    try {
      const data = dataVersion.get();
      if (data === lastData) return;
      const now = generation.get();
      if (now !== lastGeneration) onChange();
      // Only once the change was taken in: a tick that failed looks again next time.
      lastData = data;
      lastGeneration = now;
    } catch (error) {
      // A failing database (I/O error, damaged file) must not end the process from a timer:
      // /healthz reports it, and the next tick tries again. Anything else is a bug and surfaces.
      if (!asUnavailable(error)) throw error;
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
