import { DomainError } from '../shared/errors.ts';

/** What the health endpoints and the write requests ask of the database (sqlite-probe.ts, postgres-probe.ts). */
export interface DatabaseProbe {
  /** Throws database_unavailable when a write made now would be lost; run before each write request. */
  checkWritable(): void;
  /** Throws (or rejects with) database_unavailable unless the database answers. */
  checkLive(): void | Promise<void>;
}

/** Liveness and readiness of the server, as the health endpoints report them. */
export class Health {
  constructor(
    private readonly probe: DatabaseProbe,
    private readonly lifecycle: { readonly draining: boolean },
  ) {}

  /** Throws database_unavailable when a write made now would be lost (a SQLite file replaced under the server). */
  checkFile(): void {
    this.probe.checkWritable();
  }

  /** Rejects with database_unavailable unless the database answers. */
  async checkLive(): Promise<void> {
    await this.probe.checkLive();
  }

  /** Throws draining once a graceful shutdown began. */
  checkReady(): void {
    if (this.lifecycle.draining) throw new DomainError('draining', 'the server is shutting down', { retryAfterSeconds: 1 });
  }
}
