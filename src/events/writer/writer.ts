import { Worker } from 'node:worker_threads';
import type { FoldQuery, FoldResult } from '../../analytics/fold/fold-types.ts';
import type { LinkOutcome, LinkRequest } from '../../identity/store.ts';
import type { Logger } from '../../log.ts';
import { DomainError } from '../../shared/errors.ts';
import type { EventRow } from '../event-row.ts';
import type { Stats } from '../schema.ts';
import type { FromWriter, RequestWritten, ToWriter, WriterOptions, WriterScript } from './protocol.ts';
import { mayNotBeStored, notStored, refused, refusedResult, warmingUp } from './refusals.ts';
import { logThreadNews } from './thread-news.ts';

interface EventWriterOptions extends WriterOptions {
  script: WriterScript;
  /** Events accepted but not yet committed, at most; past it requests are answered 503. */
  queueLimit: number;
  /** The same bound in bytes of event data (rowBytes): a queue of large events stops sooner. */
  queueBytes: number;
  log: Logger;
  /** Called once per committed transaction with its number of rows (the group-commit batch size). */
  onTransaction?: (rows: number) => void;
  /** Told of the placement opens the thread counted (protocol.ts, 'placement_opens'). */
  onOpens?: (news: Extract<FromWriter, { kind: 'placement_opens' }>) => void;
}

interface Waiting {
  size: number;
  bytes: number;
  /** What the request hands over, for the errors that say it was not stored. */
  what: 'events' | 'link';
  resolve: (outcome: RequestWritten | LinkOutcome) => void;
  reject: (error: DomainError) => void;
}

/**
 * What a row weighs in the queue: the UTF-16 length of its texts plus 8 bytes per field. An estimate of the data, not
 * of the heap (a queued row is held as objects by both threads, two to three times this); what a large `properties` makes large.
 */
function rowBytes(row: EventRow): number {
  let bytes = 8 * row.length;
  for (const field of row) if (typeof field === 'string') bytes += field.length;
  return bytes;
}

/**
 * The writer thread's V8 heap. Under ingestion most of what it allocates
 * lives a few seconds (queued rows, the index entries waiting for the next
 * checkpoint), long enough to be promoted, so its old generation fills with
 * garbage; with V8's defaults it grows to four times what survived the last
 * full collection before the next one. With a maximum below 2 GB V8 grows
 * the heap by a smaller factor (bench/notes/found-while-measuring.md, "The writer thread's heap").
 * What the thread keeps for millions of events and users is in typed arrays
 * outside this heap; its objects (the queue, the pending entries) stay well
 * below the maximum. If it were ever reached, the thread ends and is started
 * again (requests waiting are answered 503).
 */
const WRITER_HEAP = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 16 };

/** How long after a writer thread died the next one starts. */
const RESTART_AFTER_MS = 1000;

/**
 * The server's side of the event writer thread: hands each request's rows over, resolves the request once they are
 * committed, bounds how many events may wait, and asks the thread for statistics. The thread starts with the server
 * (it rebuilds the derived state first) and is replaced if it dies.
 */
export class EventWriter {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  // biome-ignore lint/suspicious/noExplicitAny: each question's promise resolves with its own answer type
  private readonly asking = new Map<number, { resolve: (answer: any) => void; reject: (error: Error) => void }>();
  /** The thread's derived state is caught up with the raw events. */
  private ready = false;
  private nextId = 1;
  private pending = 0;
  private pendingBytes = 0;
  private committed = 0;
  private deleted = 0;
  private leader = false;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: EventWriterOptions) {
    this.thread();
  }

  /**
   * Per-variant statistics from the thread's derived state; 503
   * stats_warming_up while the thread is still loading or replaying it
   * (never a number that misses events).
   */
  stats(projectId: string, paywallId: string, fromDay: number, toDay: number): Promise<Stats['variants']> {
    if (!this.ready || this.closing) return Promise.reject(warmingUp());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.asking.set(id, { resolve, reject });
      this.post({ kind: 'stats', id, projectId, paywallId, fromDay, toDay });
    });
  }

  /** Experiment counts of one paywall segment over one phase; 503 stats_warming_up like stats(). */
  results(projectId: string, paywallId: string, audience: string | null, query: FoldQuery): Promise<FoldResult> {
    if (!this.ready || this.closing) return Promise.reject(warmingUp());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.asking.set(id, { resolve, reject });
      this.post({ kind: 'results', id, projectId, paywallId, audience, query });
    });
  }

  /** Events handed over and not yet committed. */
  get queued(): number {
    return this.pending;
  }

  /** Transactions committed so far: fewer than requests when group commit works. */
  get transactions(): number {
    return this.committed;
  }

  /** The statistics can be answered (the thread's derived state is caught up with the raw events). */
  get statsReady(): boolean {
    return this.ready;
  }

  /** This instance holds the PostgreSQL leader lock: retention and checkpoints run here (never on SQLite). */
  get leading(): boolean {
    return this.leader;
  }

  /** Raw events deleted by retention so far. */
  get deletedByRetention(): number {
    return this.deleted;
  }

  /** Resolves, once committed, with how many of `rows` were stored and which a limit refused; `marks` as in protocol.ts. */
  write(rows: EventRow[], marks?: number[]): Promise<RequestWritten> {
    let bytes = 0;
    for (const row of rows) bytes += rowBytes(row);
    return this.enqueue('events', rows.length, bytes, (id) => (marks === undefined ? { kind: 'write', id, rows } : { kind: 'write', id, rows, marks }));
  }

  /**
   * Resolves with what became of the link once it is committed, with the
   * links that arrived meanwhile, in one transaction of the thread
   * (IdentityStore.link): the request thread never waits for a disk.
   * Links wait in the events' queue and count against its bounds.
   */
  link(request: LinkRequest): Promise<LinkOutcome> {
    return this.enqueue('link', 1, 64 + request.anonymousId.length + request.userId.length, (id) => ({ kind: 'link', id, request }));
  }

  private enqueue<T extends RequestWritten | LinkOutcome>(what: Waiting['what'], size: number, bytes: number, message: (id: number) => ToWriter): Promise<T> {
    if (this.closing) return Promise.reject(notStored('the server is shutting down; retry'));
    // An empty queue takes any request: a batch larger than a bound alone is still stored.
    if (this.pending > 0 && (this.pending + size > this.options.queueLimit || this.pendingBytes + bytes > this.options.queueBytes)) {
      return Promise.reject(
        new DomainError('ingestion_overloaded', `too many ${what === 'link' ? 'links and events' : 'events'} are waiting to be written; retry shortly`, {
          retryAfterSeconds: 1,
        }),
      );
    }
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { size, bytes, what, resolve: resolve as Waiting['resolve'], reject });
      this.pending += size;
      this.pendingBytes += bytes;
      this.post(message(id));
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
    const { target, retentionDays } = this.options;
    const { file, execArgv } = this.options.script;
    const worker = new Worker(file, {
      execArgv,
      workerData: { target, retentionDays } satisfies WriterOptions,
      name: 'events-writer',
      resourceLimits: WRITER_HEAP,
    });
    // The HTTP server keeps the process alive while it serves; the writer alone must not.
    worker.unref();
    worker.on('message', (message: FromWriter) => this.receive(message));
    worker.on('error', (error) => this.options.log.error('event writer failed', { error: error.stack ?? String(error) }));
    worker.on('exit', (code) => {
      // A thread whose start failed was let go at once (see 'start_failed'): its successor owns what waits now.
      if (this.worker !== worker) return;
      this.letGo();
      for (const [id, { reject }] of this.asking) {
        this.asking.delete(id);
        reject(warmingUp());
      }
      // Whatever it had not confirmed is answered 503: it was rolled back, or (with a crash between
      // commit and reply) stored, which a retry with the same event ids turns into duplicates.
      if (this.waiting.size > 0) {
        this.options.log.error('event writer exited with requests waiting', { code, requests: this.waiting.size });
        for (const [id, { what }] of [...this.waiting]) this.settle(id, undefined, mayNotBeStored(what));
      }
    });
    this.ready = false;
    return (this.worker = worker);
  }

  /**
   * Forgets the current thread (it died, or its start failed) and starts the next one a little later,
   * so that the statistics come back without waiting for the next event; a batch sent meanwhile starts it sooner.
   */
  private letGo(): void {
    this.worker = undefined;
    this.ready = false;
    if (!this.closing) setTimeout(() => this.closing || this.thread(), RESTART_AFTER_MS).unref();
  }

  private receive(message: FromWriter): void {
    if (logThreadNews(this.options.log, message)) return;
    if (message.kind === 'placement_opens') this.options.onOpens?.(message);
    switch (message.kind) {
      case 'ready':
        this.ready = true;
        this.options.log.info('event statistics ready', {
          rebuild_ms: message.rebuildMs,
          checkpoint_seq: message.checkpointSeq,
          replayed_events: message.replayed,
        });
        return;
      case 'start_failed':
        this.options.log.error('loading the event statistics failed', { error: message.error });
        // The thread handles no write before it is ready: the batches sent to it are not stored. It is
        // let go now, so that the next batch (a client's retry) starts a new thread instead of meeting this one's exit.
        this.letGo();
        for (const [id, { what }] of [...this.waiting]) this.settle(id, undefined, refused(message.unavailable, what));
        return;
      case 'stats':
      case 'results': {
        const asked = this.asking.get(message.id);
        this.asking.delete(message.id);
        asked?.resolve(message.kind === 'stats' ? message.variants : message.result);
        return;
      }
      case 'results_failed': {
        const asked = this.asking.get(message.id);
        this.asking.delete(message.id);
        this.options.log.error('reading the purchase records for results failed', { error: message.error });
        asked?.reject(refusedResult(message.error, message.unavailable));
        return;
      }
      case 'leadership':
        this.leader = message.leading;
        this.options.log.info(message.leading ? 'leading the background event work' : 'no longer leading the background event work', {});
        return;
      case 'written': {
        this.committed++;
        let rows = 0;
        for (const id of message.ids) rows += this.waiting.get(id)?.size ?? 0;
        this.options.onTransaction?.(rows);
        for (const [i, id] of message.ids.entries()) this.settle(id, { inserted: message.inserted[i]!, refused: message.refused[i]! }, undefined);
        return;
      }
      case 'linked':
        for (const [i, id] of message.ids.entries()) this.settle(id, message.outcomes[i], undefined);
        return;
      case 'failed': {
        this.options.log.error('event transaction failed', { requests: message.ids.length, error: message.error });
        for (const id of message.ids) this.settle(id, undefined, refused(message.unavailable, this.waiting.get(id)?.what));
        return;
      }
      case 'retention':
        this.deleted += message.deleted;
        this.options.log.info('old events deleted', { deleted: message.deleted, retention_days: this.options.retentionDays });
        return;
    }
  }

  private settle(id: number, outcome: RequestWritten | LinkOutcome | undefined, error: DomainError | undefined): void {
    const waiting = this.waiting.get(id);
    if (!waiting) return;
    this.waiting.delete(id);
    this.pending -= waiting.size;
    this.pendingBytes -= waiting.bytes;
    if (error) waiting.reject(error);
    else waiting.resolve(outcome!);
  }
}
