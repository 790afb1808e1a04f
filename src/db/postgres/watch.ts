import type { Sql } from './connection.ts';
import { asUnavailable } from './unavailable.ts';

/** The channel the schema's triggers notify (migrations/baseline.ts), with the new configuration generation as payload. */
const CHANNEL = 'paywalld_config';

interface WatchOptions {
  /** How often the generation is read, for what LISTEN missed (a lost connection, a notification dropped). */
  checkEveryMs: number;
  onChange: () => void;
  /** The instance whose pool commits this process's changes: their notifications are skipped (migrations/baseline.ts). */
  instance?: string;
}

/**
 * PostgreSQL's counterpart of watchConfigChanges (../watch.ts): calls
 * onChange when any instance commits a change to configuration. LISTEN
 * hears it when it commits. A periodic read of the generation counter
 * catches what LISTEN could not deliver (its connection lost, the server
 * restarted) by the tick after, and a read each time LISTEN is
 * (re)established catches what was committed meanwhile at once. The driver
 * keeps the listening connection apart from the pool and reconnects it by
 * itself. Generations only grow, so a notification older than what a read
 * already saw changes nothing; a read that finds a lower number (a database
 * restored from a dump) is a change. A notification of this instance's own
 * change that follows the last generation seen is taken in without
 * onChange: the code that made the change updated memory already (as on
 * SQLite, where the watch leaves out the server's own changes).
 *
 * Resolves once listening; returns the stop.
 */
export async function watchPostgresConfigChanges(sql: Sql, options: WatchOptions): Promise<() => Promise<void>> {
  // Undefined when the answer holds no row: the driver may resolve a query whose backend was terminated under it empty.
  const read = async () => (await sql<{ generation: number }[]>`SELECT generation FROM config_generation WHERE id = 1`)[0]?.generation;
  let last = (await read()) ?? 0;
  let reading = false;
  let stopped = false;

  const seen = (generation: number) => {
    if (stopped || generation === last) return;
    last = generation;
    options.onChange();
  };
  /** A generation a periodic read found ahead of what LISTEN had delivered, a tick ago. */
  let awaited: number | undefined;
  /** `now`: act on what the read finds (LISTEN was just established); else give LISTEN a tick to deliver it first. */
  const check = async (now: boolean) => {
    // One read at a time: with the server unreachable a read waits for the connect timeout, longer than a tick.
    if (reading || stopped) return;
    reading = true;
    try {
      const generation = await read();
      if (generation === undefined) return;
      // LISTEN delivers a change within a tick (this instance's own among them, which call no onChange): one it
      // has not delivered by the next tick, it missed. A generation below the last (a restored dump) is a change now.
      if (!now && generation > last && (awaited === undefined || last >= awaited)) awaited = generation;
      else {
        awaited = undefined;
        seen(generation);
      }
    } catch (error) {
      // The database unreachable: the next tick tries again (health reports it). Anything else is a bug.
      if (!asUnavailable(error)) throw error;
    } finally {
      reading = false;
    }
  };

  const listening = await sql.listen(
    CHANNEL,
    (payload) => {
      // `<generation> <instance>` (migrations/baseline.ts); the instance is empty for the CLI and other clients.
      const [number, sender] = payload.split(' ');
      const generation = Number(number);
      if (!Number.isSafeInteger(generation) || generation <= last) return;
      if (options.instance !== undefined && sender === options.instance && generation === last + 1) last = generation;
      else seen(generation);
    },
    // On every (re)connection of the listener: what was committed while it was away.
    () => void check(true),
  );
  const timer = setInterval(() => void check(false), options.checkEveryMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await listening.unlisten().catch((error: unknown) => {
      if (!asUnavailable(error)) throw error;
    });
  };
}
