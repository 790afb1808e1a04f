import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../log.ts';
import { DomainError } from '../../shared/errors.ts';
import type { EventRow, FromWriter, ToWriter, WriterOptions } from './protocol.ts';

declare const PAYWALLD_BUNDLED: boolean | undefined;

const bundled = typeof PAYWALLD_BUNDLED !== 'undefined' && PAYWALLD_BUNDLED;

function threadScript(): string | URL {
  // build.mjs writes the thread as a file of its own next to dist/paywalld.js.
  if (bundled) return path.join(path.dirname(fileURLToPath(import.meta.url)), 'events-writer.js');
  return new URL('./thread-from-source.mjs', import.meta.url);
}

export interface EventWriterOptions extends WriterOptions {
  /** Events accepted but not yet committed, at most; past it requests are answered 503. */
  queueLimit: number;
  log: Logger;
  /** Called once per committed transaction with its number of rows (the group-commit batch size). */
  onTransaction?: (rows: number) => void;
}

interface Waiting {
  size: number;
  resolve: (inserted: number) => void;
  reject: (error: DomainError) => void;
}

function notStored(detail: string): DomainError {
  return new DomainError('ingestion_failed', detail, { retryAfterSeconds: 1 });
}

/**
 * The server's side of the event writer thread: hands each request's rows
 * over, resolves the request once they are committed, and bounds how many
 * events may wait. The thread starts with the first write (or at once when
 * retention has to run) and is replaced if it dies.
 */
export class EventWriter {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private pending = 0;
  private committed = 0;
  private deleted = 0;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: EventWriterOptions) {
    if (options.retentionDays !== undefined) this.thread();
  }

  /** Events handed over and not yet committed. */
  get queued(): number {
    return this.pending;
  }

  /** Transactions committed so far: fewer than requests when group commit works. */
  get transactions(): number {
    return this.committed;
  }

  /** Raw events deleted by retention so far. */
  get deletedByRetention(): number {
    return this.deleted;
  }

  /** Resolves with how many of `rows` were stored (the others were duplicates) once they are committed. */
  write(rows: EventRow[]): Promise<number> {
    if (this.closing) return Promise.reject(notStored('the server is shutting down; retry'));
    if (this.pending > 0 && this.pending + rows.length > this.options.queueLimit) {
      return Promise.reject(
        new DomainError('ingestion_overloaded', 'too many events are waiting to be written; retry shortly', { retryAfterSeconds: 1 }),
      );
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { size: rows.length, resolve, reject });
      this.pending += rows.length;
      this.post({ kind: 'write', id, rows });
    });
  }

  /** Commits everything handed over so far, then ends the thread. */
  close(): Promise<void> {
    return (this.closing ??= new Promise((resolve) => {
      const worker = this.worker;
      if (!worker) return resolve();
      // Keep the process alive until the last commit, whatever else has stopped.
      worker.ref();
      worker.once('exit', () => resolve());
      this.post({ kind: 'close' });
    }));
  }

  private post(message: ToWriter): void {
    this.thread().postMessage(message);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const { dbPath, retentionDays } = this.options;
    const worker = new Worker(threadScript(), { workerData: { dbPath, retentionDays } satisfies WriterOptions, name: 'events-writer' });
    // The HTTP server keeps the process alive while it serves; the writer alone must not.
    worker.unref();
    worker.on('message', (message: FromWriter) => this.receive(message));
    worker.on('error', (error) => this.options.log.error('event writer failed', { error: error.stack ?? String(error) }));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      // Whatever it had not confirmed is answered 503: it was rolled back, or (with a crash between
      // commit and reply) stored, which a retry with the same event ids turns into duplicates.
      if (this.waiting.size > 0) {
        this.options.log.error('event writer exited with requests waiting', { code, requests: this.waiting.size });
        for (const id of [...this.waiting.keys()]) this.settle(id, undefined, notStored('the events may not have been stored; retry with the same ids'));
      }
    });
    return (this.worker = worker);
  }

  private receive(message: FromWriter): void {
    switch (message.kind) {
      case 'written': {
        this.committed++;
        let rows = 0;
        for (const id of message.ids) rows += this.waiting.get(id)?.size ?? 0;
        this.options.onTransaction?.(rows);
        message.ids.forEach((id, i) => {
          this.settle(id, message.inserted[i]!, undefined);
        });
        return;
      }
      case 'failed':
        this.options.log.error('event transaction failed', { requests: message.ids.length, error: message.error });
        for (const id of message.ids) this.settle(id, undefined, notStored('the events were not stored; retry'));
        return;
      case 'retention':
        this.deleted += message.deleted;
        this.options.log.info('old events deleted', { deleted: message.deleted, retention_days: this.options.retentionDays });
        return;
      case 'retention_failed':
        this.options.log.error('retention pass failed', { error: message.error });
        return;
    }
  }

  private settle(id: number, inserted: number | undefined, error: DomainError | undefined): void {
    const waiting = this.waiting.get(id);
    if (!waiting) return;
    this.waiting.delete(id);
    this.pending -= waiting.size;
    if (error) waiting.reject(error);
    else waiting.resolve(inserted!);
  }
}
