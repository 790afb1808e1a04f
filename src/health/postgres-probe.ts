import type { Sql } from '../db/postgres/connection.ts';
import { DomainError } from '../shared/errors.ts';
import type { DatabaseProbe } from './service.ts';

/** /healthz answers within this even while PostgreSQL does not (a connection attempt waits up to 5 s). */
const ANSWER_WITHIN_MS = 2_000;

function unavailable(): DomainError {
  return new DomainError('database_unavailable', 'PostgreSQL does not answer', { retryAfterSeconds: 1 });
}

/** PostgreSQL's health: a query round trip through the server's pool. */
export class PostgresProbe implements DatabaseProbe {
  constructor(private readonly sql: Sql) {}

  /** Nothing to check before a write: a write PostgreSQL cannot take fails on its own, with database_unavailable. */
  checkWritable(): void {}

  async checkLive(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(unavailable()), ANSWER_WITHIN_MS);
    });
    const asked = this.sql`SELECT 1`;
    try {
      await Promise.race([asked, late]);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      throw unavailable();
    } finally {
      clearTimeout(timer);
      // A query still waiting for a connection fails later; nobody waits for it any more.
      asked.catch(() => {});
    }
  }
}
