/**
 * The one place that opens PostgreSQL: a pool of connections from a
 * `postgres://` URL (docs/operations/scale-out.md, "The driver"), with the settings
 * every paywalld connection shares. The URL's own parameters (sslmode, a
 * password, several hosts) are the driver's to read.
 */
import postgres from 'postgres';

/**
 * int8 as a JavaScript number: the bigint columns hold ms timestamps, seqs
 * and counts, all far below 2^53, and the SQLite stores hand out numbers
 * too. (The driver's default is a string.)
 */
const INT8 = { to: 20, from: [20], serialize: (value: number) => String(value), parse: (raw: string) => Number(raw) };

export type Sql = postgres.Sql<{ int8: number }>;
/** The queries of one transaction (`sql.begin`), which a store may hand another store to write in it. */
export type Transaction = postgres.TransactionSql<{ int8: number }>;

interface PoolOptions {
  /** Connections in the pool: every query waits for a free one. */
  size?: number;
  /** What PostgreSQL shows in pg_stat_activity for these connections. */
  applicationName?: string;
  /** The serve process these connections belong to: configuration notifications name it (migrations/baseline.ts). */
  instance?: string;
}

/** A query that runs past this is cancelled by the server: a request never waits on the database without bound. */
const STATEMENT_TIMEOUT_MS = 15_000;
/** A transaction left open (a bug, a process frozen mid-way) loses its locks after this. */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

/**
 * Opens a pool (no connection is made until the first query). Connections
 * that break are replaced on the next query; a connection attempt gives up
 * after 5 s, and a query meanwhile fails with an error `asUnavailable`
 * (./unavailable.ts) turns into 503.
 */
export function openPool(url: string, options: PoolOptions = {}): Sql {
  return postgres(url, {
    max: options.size ?? 10,
    connect_timeout: 5,
    types: { int8: INT8 },
    // CREATE … IF NOT EXISTS and friends send notices; the driver would print each one.
    onnotice: () => {},
    connection: {
      application_name: options.applicationName ?? 'paywalld',
      statement_timeout: STATEMENT_TIMEOUT_MS,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
      ...(options.instance === undefined ? {} : { 'paywalld.instance': options.instance }),
    },
  });
}

/** Closes the pool: queries running finish (up to 5 s), later ones fail. */
export async function closePool(sql: Sql): Promise<void> {
  await sql.end({ timeout: 5 });
}
