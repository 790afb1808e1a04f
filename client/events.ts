import { TransportError } from './errors.ts';
import { snapshot } from './event-json.ts';
import { retryAfterMs } from './http.ts';
import { type ClientStorage, readJsonItemNow, STORAGE_PREFIX } from './storage.ts';
import type { EventInput, IngestResult } from './types.generated.ts';

/** An event as queued and sent: with its id and timestamp, which every retry repeats. */
export type QueuedEvent = EventInput & { id: string; ts: number };

/** An event the server refused, and why; it is not sent again. */
export interface RejectedEvent {
  event: QueuedEvent;
  /** The rejection's code (docs/reference/events.md), or the problem's code when the server refused the whole batch. */
  code: string;
  message: string;
}

/** What a POST of a batch came back with. */
export interface PostAnswer {
  status: number;
  retryAfter: string | null;
  body: unknown;
}

export interface EventQueueOptions {
  storage: ClientStorage;
  /** Sends one batch body; throws a TransportError when no answer came. */
  post(body: string): Promise<PostAnswer>;
  batchSize: number;
  flushIntervalMs: number;
  maxQueue: number;
  onRejected(rejected: RejectedEvent[]): void;
  report(error: unknown): void;
}

export interface QueueStatus {
  /** Events waiting to be acknowledged, the batch in flight included. */
  pending: number;
  /** Events dropped because the queue was full (oldest first). */
  dropped: number;
  /** Consecutive failed attempts; 0 after a success. */
  failures: number;
  /** The last failure, until the next success. */
  lastError: Error | undefined;
  /** When the next attempt may start (epoch ms): after a backoff or a Retry-After. */
  notBefore: number;
}

export const QUEUE_KEY = `${STORAGE_PREFIX}events`;
/** A batch is cut below the server's 1 MiB body limit. */
const MAX_BATCH_BYTES = 900_000;
const BACKOFF_BASE_MS = 1000;
const BACKOFF_MAX_MS = 5 * 60_000;
/** A Retry-After beyond this is read as this: an app session should not stall for hours on one header. */
const RETRY_AFTER_MAX_MS = 60 * 60_000;
/** Whole-batch answers that every retry would get again (docs/reference/client.md): the batch is dropped. */
const FINAL_STATUSES: ReadonlySet<number> = new Set([400, 413, 415]);
/** Rejections kept for the app to read. */
const REJECTIONS_KEPT = 100;

type Outcome = 'sent' | 'wait' | 'failed';

const encoder = new TextEncoder();

/**
 * The persisted event queue. Events are stored before they are sent and
 * removed only once the server acknowledged them (a 200) or refused them;
 * a batch is retried with the same ids and timestamps, so the server's
 * deduplication turns every retry into a no-op: exactly once, by construction.
 * One batch is in flight at a time.
 */
export class EventQueue {
  private queue: QueuedEvent[] = [];
  private readonly rejections: RejectedEvent[] = [];
  private readonly ready: Promise<void>;
  private writing: Promise<void>;
  private writeQueued = false;
  private inFlight: Promise<Outcome> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Events sent per batch at most; halved while the server answers 413, back to batchSize after a success. */
  private batchLimit: number;
  private failures = 0;
  private lastError: Error | undefined;
  private notBefore = 0;
  /** The part of notBefore that a Retry-After asked for: flush() waits it out, where it skips a backoff. */
  private retryAfterUntil = 0;
  /** When the oldest unsent event arrived (for the time threshold). */
  private waitingSince = 0;
  private dropped = 0;
  private closed = false;

  constructor(private readonly options: EventQueueOptions) {
    this.batchLimit = options.batchSize;
    const restore = (stored: QueuedEvent[] | undefined) => {
      if (!Array.isArray(stored)) return;
      const queued = new Set(this.queue.map((event) => event.id));
      // Events from before the restart go first, then those tracked while they were being read.
      this.queue = [...stored.filter((event) => typeof event?.id === 'string' && !queued.has(event.id)), ...this.queue];
      if (this.queue.length > 0) this.waitingSince = Date.now();
      this.trim();
    };
    // A synchronous storage (localStorage, a file) is read at once, so that queueStatus() right after
    // createClient counts the events a previous session left; an asynchronous one is read when it answers.
    const stored = readJsonItemNow<QueuedEvent[]>(options.storage, QUEUE_KEY);
    this.ready = stored instanceof Promise ? stored.then(restore) : Promise.resolve(restore(stored));
    this.writing = this.ready;
    void this.ready.then(() => this.schedule());
  }

  /** Queues a copy of the event as it will be sent; throws a TypeError at once for one that cannot be sent as JSON. */
  enqueue(event: QueuedEvent): void {
    if (this.closed) throw new Error('the client is closed');
    const sent = snapshot(event);
    if (this.queue.length === 0) this.waitingSince = Date.now();
    this.queue.push(sent);
    this.trim();
    this.persist();
    this.schedule();
  }

  status(): QueueStatus {
    return { pending: this.queue.length, dropped: this.dropped, failures: this.failures, lastError: this.lastError, notBefore: this.notBefore };
  }

  rejected(): RejectedEvent[] {
    return [...this.rejections];
  }

  /**
   * Sends what is queued now, skipping a backoff but not a Retry-After the
   * server asked for. Resolves when the queue is empty, after an attempt of
   * its own that failed (the queue retries on its own later), or at the
   * deadline. A background attempt under way when flush is called may fail on
   * what has recovered since it began (the server back up): flush joins it,
   * and tries once more of its own if it failed.
   */
  async flush(timeoutMs: number): Promise<{ pending: number }> {
    await this.ready;
    const deadline = Date.now() + timeoutMs;
    let joinedEarlier = this.inFlight !== undefined;
    while (this.queue.length > 0) {
      const wait = this.retryAfterUntil - Date.now();
      if (wait > 0) {
        if (Date.now() + wait > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      const outcome = await this.sendNext();
      if (Date.now() >= deadline || (outcome === 'failed' && !joinedEarlier)) break;
      joinedEarlier = false;
    }
    await this.writing;
    return { pending: this.queue.length };
  }

  /** Flushes, then stops the timers; the queue stays in storage for the next start. */
  async close(timeoutMs: number): Promise<{ pending: number }> {
    await this.flush(timeoutMs);
    this.closed = true;
    clearTimeout(this.timer);
    await this.inFlight;
    await this.writing;
    return { pending: this.queue.length };
  }

  /** Drops the oldest events past maxQueue: storage is finite, and the newest events say most about the present. */
  private trim(): void {
    const excess = this.queue.length - this.options.maxQueue;
    if (excess > 0) {
      this.queue.splice(0, excess);
      this.dropped += excess;
    }
  }

  /** Writes the queue to storage after the writes before it; writes asked for meanwhile collapse into one. */
  private persist(): void {
    if (this.writeQueued) return;
    this.writeQueued = true;
    this.writing = this.writing
      .then(() => {
        this.writeQueued = false;
        return this.options.storage.setItem(QUEUE_KEY, JSON.stringify(this.queue));
      })
      .catch((error: unknown) => {
        this.writeQueued = false;
        this.options.report(error);
      });
  }

  /** Arms the timer for the next attempt: at once when a batch is full, else when the oldest event has waited the interval. */
  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed || this.queue.length === 0) return;
    const due = this.queue.length >= this.options.batchSize ? Date.now() : this.waitingSince + this.options.flushIntervalMs;
    const delay = Math.max(0, Math.max(due, this.notBefore) - Date.now());
    this.timer = setTimeout(() => {
      void this.sendNext().then(() => this.schedule());
    }, delay);
    // A Node process may end with events queued: they are in storage, and close() is how an app waits for them.
    (this.timer as { unref?: () => void }).unref?.();
  }

  /** One attempt at the oldest batch, or the attempt already under way. */
  private sendNext(): Promise<Outcome> {
    this.inFlight ??= this.attempt().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private takeBatch(): QueuedEvent[] {
    const batch: QueuedEvent[] = [];
    let bytes = 0;
    for (const event of this.queue) {
      const size = encoder.encode(JSON.stringify(event)).length + 1;
      if (batch.length === this.batchLimit || (batch.length > 0 && bytes + size > MAX_BATCH_BYTES)) break;
      batch.push(event);
      bytes += size;
    }
    return batch;
  }

  private async attempt(): Promise<Outcome> {
    await this.ready;
    const batch = this.takeBatch();
    if (batch.length === 0) return 'sent';
    let answer: PostAnswer;
    try {
      answer = await this.options.post(JSON.stringify({ events: batch, sent_at: Date.now() }));
    } catch (error) {
      if (!(error instanceof TransportError)) this.options.report(error);
      return this.backoff(error as Error, undefined);
    }
    const { status } = answer;
    const error = new Error(`POST /api/sdk/events answered ${status}`);
    if (status === 200) {
      const result = answer.body as IngestResult | undefined;
      // A captive portal answers 200 too: only paywalld's answer acknowledges a batch.
      if (typeof result?.accepted !== 'number' || !Array.isArray(result.rejected))
        return this.backoff(new Error("POST /api/sdk/events answered 200 with something that is not paywalld's answer"), undefined);
      this.acknowledge(batch, result);
      return 'sent';
    }
    if (status === 429 || status === 503) return this.backoff(error, retryAfterMs(answer.retryAfter, Date.now()));
    if (status === 413 && batch.length > 1) {
      this.batchLimit = Math.ceil(batch.length / 2);
      return 'sent';
    }
    // Retried: a proxy's 404/405/410 page during a deploy, 401/403 (a key the app's next version may fix), 408, 5xx.
    if (!FINAL_STATUSES.has(status)) return this.backoff(error, undefined);
    // 400, 413 for one event, 415 would fail again whatever the retry: the batch is dropped, with the reason.
    const problem = answer.body as { code?: unknown; detail?: unknown } | undefined;
    const code = typeof problem?.code === 'string' ? problem.code : `http_${status}`;
    const message = typeof problem?.detail === 'string' ? problem.detail : `the server refused the batch with ${status}`;
    this.remove(
      batch,
      batch.map((event) => ({ event, code, message })),
    );
    return 'sent';
  }

  private acknowledge(batch: QueuedEvent[], result: IngestResult): void {
    const rejected: RejectedEvent[] = [];
    for (const rejection of result.rejected) {
      const event = batch[rejection.index];
      if (event) rejected.push({ event, code: rejection.code, message: rejection.message });
    }
    this.remove(batch, rejected);
  }

  /** A batch is done with: out of the queue and out of storage, its refused events kept for the app. */
  private remove(batch: QueuedEvent[], rejected: RejectedEvent[]): void {
    const done = new Set(batch.map((event) => event.id));
    this.queue = this.queue.filter((event) => !done.has(event.id));
    this.failures = 0;
    this.lastError = undefined;
    this.notBefore = 0;
    this.retryAfterUntil = 0;
    this.batchLimit = this.options.batchSize;
    this.waitingSince = Date.now();
    this.persist();
    if (rejected.length > 0) {
      this.rejections.push(...rejected);
      this.rejections.splice(0, Math.max(0, this.rejections.length - REJECTIONS_KEPT));
      try {
        this.options.onRejected(rejected);
      } catch (error) {
        this.options.report(error);
      }
    }
  }

  /**
   * After a failure: wait what the server asked for (Retry-After), else an
   * exponential backoff with jitter, so that a fleet of apps coming back
   * online does not retry in step.
   */
  private backoff(error: Error, retryAfter: number | undefined): Outcome {
    this.failures++;
    this.lastError = error;
    const now = Date.now();
    if (retryAfter !== undefined) {
      this.retryAfterUntil = now + Math.min(retryAfter, RETRY_AFTER_MAX_MS);
      this.notBefore = this.retryAfterUntil;
      return 'wait';
    }
    const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.min(this.failures - 1, 20));
    this.notBefore = now + ceiling / 2 + Math.random() * (ceiling / 2);
    return 'failed';
  }
}
