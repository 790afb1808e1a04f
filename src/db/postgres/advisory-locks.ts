/**
 * Every advisory lock key paywalld takes, in one list so that no two jobs
 * share one by accident. Keys are bigints; the high 32 bits spell 'payw' so
 * that they stay clear of other applications' locks on a shared database.
 */
const BASE = 0x7061_7977n << 32n;

export const ADVISORY_LOCKS = {
  /** Held by the transaction that applies migrations: instances starting at once migrate one after the other. */
  migrate: BASE + 1n,
  /**
   * Held by each event transaction from its first statement to its commit: event commits are
   * serialized across instances, so the order of seq is the order of commits (docs/operations/scale-out.md,
   * "Events and derived state").
   */
  events: BASE + 2n,
  /**
   * For each transaction that inserts purchase records: as for events, seq order is then commit order,
   * and the results' reader (src/events/writer/postgres/purchase-feed.ts) reads `seq > last` without skipping one.
   * Identify's links take it too: the sdk key's rule reads the records and links it must not miss.
   */
  purchases: BASE + 4n,
  /** Held for its session by the one instance doing the background work that must run once (retention). */
  eventsLeader: BASE + 3n,
  /** Held by the server that checks for an empty database and creates the first project: instances starting at once create one. */
  bootstrap: BASE + 5n,
} as const;
