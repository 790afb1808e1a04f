import { DomainError } from '../shared/errors.ts';

/** Another connection holds the lock this statement needs (better-sqlite3 puts SQLite's extended code in `code`). */
const CONTENDED = /^SQLITE_(BUSY|LOCKED)(_|$)/;
/**
 * Failures of the database rather than of the request: a lock held
 * elsewhere, a full disk, a file that became read-only, an I/O error, a file
 * that is gone or damaged. They answer 503 with Retry-After, never 500.
 */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|READONLY|IOERR|CANTOPEN|PROTOCOL|NOLFS|CORRUPT|NOTADB)(_|$)/;

function sqliteCode(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'SqliteError') return undefined;
  const code = (error as Error & { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether `error` is a lock held by another connection: worth trying again shortly. */
export function isLockContention(error: unknown): boolean {
  return CONTENDED.test(sqliteCode(error) ?? '');
}

/** The domain error a database failure becomes; undefined for anything else (a bug stays a bug). */
export function asUnavailable(error: unknown): DomainError | undefined {
  const code = sqliteCode(error);
  if (code === undefined || !UNAVAILABLE.test(code)) return undefined;
  const detail = CONTENDED.test(code)
    ? 'the database is locked by another process (a CLI command, a backup, another tool); try again'
    : 'the database cannot be written or read right now (disk full, read-only or failing); try again';
  return new DomainError('database_unavailable', detail, { retryAfterSeconds: 1 });
}
