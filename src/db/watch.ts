import type { Database } from './database.ts';
import { asUnavailable } from './unavailable.ts';

/**
 * Calls onChange when another connection (the CLI, a second process)
 * commits a change to configuration: projects, keys, products or paywalls.
 * Each tick reads three cheap values and the request path runs no SQL: PRAGMA
 * data_version, which changes only for commits made through other
 * connections, and the configuration generation (bumped by triggers, see
 * migration 4). A change is another connection's when both moved, so that
 * the event writer's commits (data_version alone) do not count, nor do
 * writes made through `db` itself (the generation alone), which the code
 * making them announces. The generation is read every tick so that an own
 * change is taken in before the event writer's next commit, which would
 * otherwise pass it for another connection's and cause a needless reload.
 */
export function watchConfigChanges(db: Database, intervalMs: number, onChange: () => void): () => void {
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const generation = db.prepare('SELECT generation FROM config_generation').pluck();
  /**
   * The generation with the data_version it goes with: read between two
   * data_version reads that agree, so that no other connection committed in
   * between (else the generation could hold another's change while
   * data_version says none came, and it would pass for this one's).
   * Undefined when one did: the next tick reads again.
   */
  const snapshot = (): { data: unknown; generation: unknown } | undefined => {
    const data = dataVersion.get();
    const now = generation.get();
    return dataVersion.get() === data ? { data, generation: now } : undefined;
  };
  let last = snapshot() ?? { data: undefined, generation: undefined };
  const timer = setInterval(() => {
    try {
      const now = snapshot();
      if (!now) return;
      if (now.data !== last.data && now.generation !== last.generation) onChange();
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
