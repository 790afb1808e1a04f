import fs from 'node:fs';
import type { Database } from '../db/database.ts';
import { DomainError } from '../shared/errors.ts';
import type { DatabaseProbe } from './service.ts';

/** The SQLite file's health: still the file the connection opened, and readable. */
export class SqliteProbe implements DatabaseProbe {
  private readonly dropCache;
  private readonly readPage;

  /** The file the connection opened: a file deleted or replaced at its path still answers through the open descriptor. */
  private readonly opened: { dev: number; ino: number } | undefined;

  constructor(
    db: Database,
    private readonly file: string,
  ) {
    this.opened = identity(file);
    // SELECT 1 touches no file. Page 1 (the schema) is read from the file itself: the page cache is
    // dropped first (shrink_memory), else a database whose file is gone or damaged would still look fine.
    this.dropCache = db.prepare('PRAGMA shrink_memory');
    this.readPage = db.prepare('SELECT count(*) FROM sqlite_schema').pluck();
  }

  /**
   * Throws database_unavailable when the database file was deleted or replaced at its path: the server
   * would go on answering and "storing" through its open descriptor, and lose everything at the stop.
   */
  checkWritable(): void {
    const now = identity(this.file);
    if (now === undefined || this.opened === undefined || now.dev !== this.opened.dev || now.ino !== this.opened.ino) {
      throw new DomainError('database_unavailable', 'the database file was deleted or replaced while the server ran; restart it', { retryAfterSeconds: 1 });
    }
  }

  checkLive(): void {
    this.checkWritable();
    try {
      this.dropCache.run();
      this.readPage.get();
    } catch {
      throw new DomainError('database_unavailable', 'the database does not answer', { retryAfterSeconds: 1 });
    }
  }
}

function identity(file: string): { dev: number; ino: number } | undefined {
  try {
    const { dev, ino } = fs.statSync(file);
    return { dev, ino };
  } catch {
    return undefined;
  }
}
