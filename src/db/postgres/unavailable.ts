/**
 * PostgreSQL's failures that are the database's, not the request's: the
 * server unreachable, restarting or out of resources, a conflicting
 * transaction. They answer 503 database_unavailable with Retry-After, as
 * SQLite's do (src/db/unavailable.ts); anything else stays a bug.
 */
import { DomainError } from '../../shared/errors.ts';

/** Errors of the connection itself: Node's socket errors and the driver's own codes. */
const CONNECTION = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
]);

/** SQLSTATEs of a server shutting down, starting up or gone (class 08: connection exception). */
const SERVER_GONE = /^(08...|57P0[123])$/;
/** Out of resources (class 53: disk full, out of memory, too many connections), an I/O error, or a read-only server (a standby after a failover). */
const SERVER_FAILING = /^(53...|58030|25006)$/;
/** Another transaction in the way: serialization failure, deadlock, a lock not granted, a statement past statement_timeout. */
const CONTENDED = /^(40001|40P01|55P03|57014)$/;

function codeOf(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as Error & { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** The domain error a database failure becomes; undefined for anything else (a bug stays a bug). */
export function asUnavailable(error: unknown): DomainError | undefined {
  const code = codeOf(error);
  if (code === undefined) return undefined;
  const postgresError = error instanceof Error && error.name === 'PostgresError';
  let detail: string;
  if (CONNECTION.has(code) || (postgresError && SERVER_GONE.test(code))) {
    detail = 'the database cannot be reached right now (connection refused or lost, or the server restarting); try again';
  } else if (postgresError && SERVER_FAILING.test(code)) {
    detail = 'the database cannot be written or read right now (disk full, out of memory or connections, or read-only); try again';
  } else if (postgresError && CONTENDED.test(code)) {
    detail = 'the database is busy (a conflicting transaction, or a statement past its time limit); try again';
  } else {
    return undefined;
  }
  return new DomainError('database_unavailable', detail, { retryAfterSeconds: 1 });
}
