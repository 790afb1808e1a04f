/**
 * What the event writer thread does with its messages and its time: group
 * commits, checkpoints every few seconds, the dedup key filter filled
 * between commits at start, retention passes, and the close. thread.ts
 * wires the worker's port to one of these.
 */

import { CHECKPOINT_MAX_PENDING, DerivedStore } from '../../analytics/checkpoint.ts';
import type { Database } from '../../db/database.ts';
import { asUnavailable } from '../../db/unavailable.ts';
import { collectGarbage } from './collect-garbage.ts';
import { describe, unavailableReason } from './failure.ts';
import { type QueuedWrite, rowsAndMarks, takeGroup } from './group-commit.ts';
import { LinkQueue } from './link-queue.ts';
import type { FromWriter, ToWriter, WriterOptions } from './protocol.ts';
import { ResultInputs, type WriterStores } from './result-inputs.ts';
import { Retention } from './retention.ts';
import { EventSink } from './sink.ts';
import { sendStateNews } from './thread-news.ts';

/** How often a retention pass starts (one also starts with the thread). */
const RETENTION_EVERY_MS = 10 * 60 * 1000;
/** How often the derived state is checkpointed while events arrive: what a restart replays at most. */
const CHECKPOINT_EVERY_MS = 5000;

export class WriterThread {
  private readonly derived: DerivedStore;
  private readonly sink: EventSink;
  /** Purchase records and identity links, which results read. */
  private readonly purchases: ResultInputs;
  /** Identify's links, committed a group at a time beside the events. */
  private readonly links: LinkQueue;
  private readonly retention: Retention | undefined;
  private readonly queue: QueuedWrite[] = [];
  private flushScheduled = false;
  private closing = false;
  private retentionRunning = false;
  /** Events were checkpointed since the last interval without any; the start (loading, replaying) counts as a burst too. */
  private burst = true;
  private unrepresentableReported = 0;
  private filling = false;
  /** When the current fill started (performance.now()). */
  private fillStarted = 0;
  private checkpointTimer: NodeJS.Timeout | undefined;
  private retentionTimer: NodeJS.Timeout | undefined;

  /** `stores`: on `db`. `closed` is called once the database is closed, when nothing should keep the thread alive any more. */
  constructor(
    private readonly db: Database,
    stores: WriterStores,
    options: WriterOptions,
    private readonly send: (message: FromWriter) => void,
    private readonly closed: () => void,
  ) {
    this.derived = new DerivedStore(db);
    this.sink = new EventSink(db, this.derived);
    this.purchases = new ResultInputs(stores);
    this.links = new LinkQueue(stores.identity, send);
    this.retention = options.retentionDays === undefined ? undefined : new Retention(db, options.retentionDays, () => this.derived.checkpointedSeq);
  }

  /**
   * Loads the derived state, then starts the timers. Runs before any message
   * is handled (they wait in the port meanwhile): writes need the dedup keys
   * of the events after the checkpoint, statistics need the counts.
   */
  start(): void {
    const started = performance.now();
    try {
      const { checkpointSeq, replayed } = this.derived.start();
      this.send({ kind: 'ready', rebuildMs: Math.round(performance.now() - started), checkpointSeq, replayed });
      this.reportNews();
    } catch (error) {
      this.send({ kind: 'start_failed', error: describe(error), unavailable: asUnavailable(error)?.message });
      this.db.close();
      throw error;
    }
    this.checkpointTimer = setInterval(() => this.checkpoint(), CHECKPOINT_EVERY_MS).unref();
    this.scheduleFill(true);
    if (this.retention) {
      this.retentionTimer = setInterval(() => {
        if (!this.retentionRunning) this.retentionPass();
      }, RETENTION_EVERY_MS).unref();
      setImmediate(() => this.retentionPass());
    }
  }

  receive(message: ToWriter): void {
    const state = this.derived.state;
    if (message.kind === 'stats') {
      const { id, projectId, paywallId, fromDay, toDay } = message;
      this.send({ kind: 'stats', id, variants: state.stats(projectId, paywallId, fromDay, toDay) });
      return;
    }
    if (message.kind === 'results') {
      void this.answerResults(message);
      return;
    }
    if (message.kind === 'write') this.queue.push(message);
    else if (message.kind === 'link') this.links.push(message);
    else this.closing = true;
    this.scheduleFlush();
  }

  /** Reads the project's records and links stored since its last results, then folds. */
  private async answerResults({ id, projectId, paywallId, audience, query }: Extract<ToWriter, { kind: 'results' }>): Promise<void> {
    try {
      await this.purchases.refresh(projectId);
    } catch (error) {
      this.send({ kind: 'results_failed', id, error: describe(error), unavailable: unavailableReason(error) });
      return;
    }
    this.send({ kind: 'results', id, result: this.derived.state.results(projectId, paywallId, audience, query, this.purchases) });
  }

  /** Writes a checkpoint when events were counted since the last one; a failure is reported and retried later. */
  private checkpoint(): void {
    if (this.derived.pending.size === 0) {
      // A checkpoint interval without events after some: the burst is over, and what it left on the heap is garbage.
      if (this.burst) collectGarbage();
      this.burst = false;
      return;
    }
    this.burst = true;
    try {
      this.derived.checkpoint();
    } catch (error) {
      this.send({ kind: 'checkpoint_failed', error: describe(error) });
    }
    this.scheduleFill();
  }

  /** setImmediate runs after the event loop delivered every message that is waiting: they all join this commit. */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    // A commit of links that waits for a lock another process holds goes on while events commit; at its end, a close may go on.
    if (!this.links.idle) void this.links.commit().then(() => this.closing && this.scheduleFlush());
    const queue = this.queue;
    if (queue.length > 0) {
      const batch = takeGroup(queue);
      const ids = batch.map((request) => request.id);
      try {
        this.send({ kind: 'written', ids, ...this.sink.write(...rowsAndMarks(batch)) });
      } catch (error) {
        this.send({ kind: 'failed', ids, error: describe(error), unavailable: asUnavailable(error)?.message });
      }
    }
    if (this.derived.pending.size >= CHECKPOINT_MAX_PENDING) this.checkpoint();
    this.reportNews();
    if (queue.length > 0) this.scheduleFlush();
    else if (this.closing && this.links.idle) this.close();
  }

  /** Tells the server what the derived state counted that it hears of (thread-news.ts). */
  private reportNews(): void {
    this.unrepresentableReported = sendStateNews(this.derived.state, this.unrepresentableReported, this.send);
  }

  private close(): void {
    clearInterval(this.retentionTimer);
    clearInterval(this.checkpointTimer);
    this.checkpoint();
    this.db.close();
    this.closed();
  }

  /** One small delete per turn of the event loop, so writes queued meanwhile go first. */
  private retentionPass(deletedSoFar = 0): void {
    if (!this.retention || this.closing) return;
    this.retentionRunning = true;
    let step: { deleted: number; more: boolean };
    try {
      step = this.retention.step(Date.now());
    } catch (error) {
      this.retentionRunning = false;
      this.send({ kind: 'retention_failed', error: describe(error) });
      return;
    }
    const deleted = deletedSoFar + step.deleted;
    if (step.more) {
      setImmediate(() => this.retentionPass(deleted));
      return;
    }
    this.retentionRunning = false;
    if (deleted > 0) this.send({ kind: 'retention', deleted });
  }

  /** Fills the dedup key filter from event_dedup one page per turn of the event loop: writes queued meanwhile go first. */
  private fillFilter(): void {
    this.filling = false;
    if (this.closing) return;
    const keys = this.derived.storedKeys;
    try {
      if (!keys.fill()) this.scheduleFill();
      else {
        this.send({ kind: 'filter_filled', ms: Math.round(performance.now() - this.fillStarted), keys: keys.size });
        this.fillStarted = 0;
        // The fill read every stored key as a row: millions of them are garbage now.
        collectGarbage();
      }
    } catch (error) {
      // Without the filter every new key is looked up in event_dedup: slower, still exact.
      this.send({ kind: 'filter_failed', error: describe(error) });
    }
  }

  /**
   * After each checkpoint while a fill that failed is still incomplete, and once at start even when the
   * filter is complete already (a rebuild fills it in its pass), so that the log says when it is.
   */
  private scheduleFill(atStart = false): void {
    if (this.filling || (!atStart && !this.derived.storedKeys.filling)) return;
    if (this.fillStarted === 0) this.fillStarted = performance.now();
    this.filling = true;
    setImmediate(() => this.fillFilter());
  }
}
