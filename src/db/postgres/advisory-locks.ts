/**
 * Every advisory lock key paywalld takes, in one list so that no two jobs
 * share one by accident. Keys are bigints; the high 32 bits spell 'payw' so
 * that they stay clear of other applications' locks on a shared database.
 */
const BASE = 0x7061_7977n << 32n;

export const ADVISORY_LOCKS = {
  /** Held by the transaction that applies migrations: instances starting at once migrate one after the other. */
  migrate: BASE + 1n,
} as const;
