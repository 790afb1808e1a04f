import type { Sql } from './connection.ts';
import { asUnavailable } from './unavailable.ts';

/** The channel migration 4's triggers notify, with the new configuration generation as payload. */
const CHANNEL = 'paywalld_config';

interface WatchOptions {
  /** How often the generation is read, for what LISTEN missed (a lost connection, a notification dropped). */
  checkEveryMs: number;
  onChange: () => void;
}

/**
 * PostgreSQL's counterpart of watchConfigChanges (../watch.ts): calls
 * onChange when any instance commits a change to configuration. LISTEN
 * hears it when it commits; a periodic read of the generation counter
 * catches what LISTEN could not (its connection lost, the server
 * restarted), and so does a read each time LISTEN is (re)established. The
 * driver keeps the listening connection apart from the pool and reconnects
 * it by itself. Generations only grow, so a notification older than what a
 * read already saw changes nothing; a read that finds any other number (a
 * database restored from a dump) is a change.
 *
 * Resolves once listening; returns the stop.
 */
export async function watchPostgresConfigChanges(sql: Sql, options: WatchOptions): Promise<() => Promise<void>> {
  const read = async () => (await sql<{ generation: number }[]>`SELECT generation FROM config_generation WHERE id = 1`)[0]!.generation;
  let last = await read();
  let reading = false;
  let stopped = false;

  const seen = (generation: number) => {
    if (stopped || generation === last) return;
    last = generation;
    options.onChange();
  };
  const check = async () => {
    // One read at a time: with the server unreachable a read waits for the connect timeout, longer than a tick.
    if (reading || stopped) return;
    reading = true;
    try {
      seen(await read());
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
      const generation = Number(payload);
      if (Number.isSafeInteger(generation) && generation > last) seen(generation);
    },
    // On every (re)connection of the listener: what was committed while it was away.
    () => void check(),
  );
  const timer = setInterval(() => void check(), options.checkEveryMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await listening.unlisten().catch((error: unknown) => {
      if (!asUnavailable(error)) throw error;
    });
  };
}
