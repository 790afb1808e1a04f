import type { Database } from '../db/database.ts';
import { DomainError } from '../shared/errors.ts';

/** Liveness and readiness of the server, as the health endpoints report them. */
export class Health {
  private readonly dropCache;
  private readonly readPage;

  constructor(
    db: Database,
    private readonly lifecycle: { readonly draining: boolean },
  ) {
    // SELECT 1 touches no file. Page 1 (the schema) is read from the file itself: the page cache is
    // dropped first (shrink_memory), else a database whose file is gone or damaged would still look fine.
    this.dropCache = db.prepare('PRAGMA shrink_memory');
    this.readPage = db.prepare('SELECT count(*) FROM sqlite_schema').pluck();
  }

  /** Throws database_unavailable unless the database file can be read. */
  checkLive(): void {
    try {
      this.dropCache.run();
      this.readPage.get();
    } catch {
      throw new DomainError('database_unavailable', 'the database does not answer', { retryAfterSeconds: 1 });
    }
  }

  /** Throws draining once a graceful shutdown began. */
  checkReady(): void {
    if (this.lifecycle.draining) throw new DomainError('draining', 'the server is shutting down', { retryAfterSeconds: 1 });
  }
}
