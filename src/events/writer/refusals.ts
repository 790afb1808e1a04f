/**
 * What the server's side of the writer thread answers when the thread could
 * not do what a request asked: the database's own failures answer as every
 * other read and write does (503 database_unavailable), the writer's own as
 * ingestion_failed, a derived state still being built as stats_warming_up.
 */
import { DomainError } from '../../shared/errors.ts';

export function notStored(detail: string): DomainError {
  return new DomainError('ingestion_failed', detail, { retryAfterSeconds: 1 });
}

/** What a request waiting when the thread died is answered: it was rolled back, or (with a crash between commit and reply) stored. */
export function mayNotBeStored(what: 'events' | 'link'): DomainError {
  return notStored(what === 'link' ? 'the link may not have been stored; retry' : 'the events may not have been stored; retry with the same ids');
}

/** Why a refused batch (or link) was not stored: the database's own failure (a held lock, a full disk, …) answers as every write does; else the writer's. */
export function refused(unavailable: string | undefined, what: 'events' | 'link' = 'events'): DomainError {
  const subject = what === 'link' ? 'the link was' : 'the events were';
  if (unavailable === undefined) return notStored(`${subject} not stored; retry`);
  return new DomainError('database_unavailable', `${subject} not stored: ${unavailable}`, { retryAfterSeconds: 1 });
}

/** Why a result was not answered: the database's own failure answers as every read does; anything else is a bug (500). */
export function refusedResult(error: string, unavailable: string | undefined): Error {
  if (unavailable === undefined) return new Error(`the results could not be computed: ${error}`);
  return new DomainError('database_unavailable', `the results could not be computed: ${unavailable}`, { retryAfterSeconds: 1 });
}

export function warmingUp(): DomainError {
  return new DomainError('stats_warming_up', 'the statistics are being rebuilt after the start; retry shortly', { retryAfterSeconds: 1 });
}
