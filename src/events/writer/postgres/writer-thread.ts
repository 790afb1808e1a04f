/**
 * The PostgreSQL event writer: the same protocol as the SQLite thread
 * (../protocol.ts), so that EventWriter and everything above it do not
 * know which database is behind them. It keeps the instance's derived state
 * in memory (src/analytics/state.ts, as on SQLite), built at start from the
 * events table and then kept up to date with every instance's commits:
 * its own once committed, with the others' committed before them
 * (sink.ts), and the others' through LISTEN paywalld_events and a poll
 * every second (tail.ts). Statistics and results are answered from that
 * memory. Retention runs on one instance at a time (leadership.ts).
 * Everything that touches the state or the database runs one step after
 * another (`serial`): a commit, a catch-up, a results read.
 */

import { DerivedState } from '../../../analytics/state.ts';
import type { Sql } from '../../../db/postgres/connection.ts';
import { asUnavailable } from '../../../db/postgres/unavailable.ts';
import type { PostgresTarget } from '../../../db/target.ts';
import { describe, unavailableReason } from '../failure.ts';
import { type QueuedWrite, rowsAndMarks, takeGroup } from '../group-commit.ts';
import { LinkQueue } from '../link-queue.ts';
import type { FromWriter, ToWriter, WriterOptions } from '../protocol.ts';
import { ResultInputs, type WriterStores } from '../result-inputs.ts';
import { sendStateNews } from '../thread-news.ts';
import { loadCheckpoint, writeCheckpoint } from './checkpoints.ts';
import { Leadership } from './leadership.ts';
import { retentionStep } from './retention.ts';
import { PostgresEventSink } from './sink.ts';
import { EventTail } from './tail.ts';

/** The fallback for a lost notification or LISTEN connection: how often the tail reads anyway. */
const POLL_EVERY_MS = 1000;
/** How often the leader writes a checkpoint while events arrive, and after how many events it does not wait for that. */
const CHECKPOINT_EVERY_MS = 10_000;
const CHECKPOINT_EVENTS = 200_000;
/** Twice the pool's bound on a statement (15 s; a connection 5 s): a step this long is stuck, not slow. */
const STEP_LIMIT_MS = 30_000;
/** How often the leader starts a retention pass. */
const RETENTION_EVERY_MS = 10 * 60 * 1000;
const CHANNEL = 'paywalld_events';

export class PostgresWriterThread {
  private state = new DerivedState();
  private tail = new EventTail(this.state);
  private sink: PostgresEventSink;
  private readonly purchases: ResultInputs;
  private readonly links: LinkQueue;
  private readonly leadership: Leadership;
  private readonly queue: QueuedWrite[] = [];
  private chain: Promise<void> = Promise.resolve();
  private ready = false;
  private flushScheduled = false;
  private tailScheduled = false;
  private closing = false;
  private closed = false;
  private unrepresentableReported = 0;
  private nextRetention = 0;
  /** Where the retention pass in progress goes on at the next turn; undefined between passes. */
  private retentionAfter: number | undefined;
  /** The seq of the newest checkpoint this instance loaded or wrote, and when it wrote one. */
  private checkpointedSeq = 0;
  private checkpointedAt = 0;
  private pollTimer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private listening = false;

  /** `ended` is called once the pools are closed, when nothing should keep the thread alive any more. */
  constructor(
    private readonly sql: Sql,
    stores: WriterStores,
    private readonly options: WriterOptions<PostgresTarget>,
    private readonly send: (message: FromWriter) => void,
    private readonly ended: () => void,
  ) {
    this.sink = new PostgresEventSink(sql, this.state, this.tail);
    // `stores` are on the thread's pool, which the thread closes itself.
    this.purchases = new ResultInputs(stores);
    this.links = new LinkQueue(stores.identity, send);
    this.leadership = new Leadership(
      options.target.url,
      (leading) => {
        // A new leader runs a retention pass at once: the one before may have died before its next.
        if (leading) {
          this.nextRetention = 0;
          this.retentionAfter = undefined;
        }
        this.send({ kind: 'leadership', leading });
      },
      (leaderSql) => this.backgroundWork(leaderSql),
    );
  }

  /**
   * Builds the derived state from every stored event, then listens, polls
   * and competes for leadership. Writes that arrive meanwhile wait in the
   * queue; statistics are not asked before 'ready'.
   */
  async start(): Promise<void> {
    const started = performance.now();
    try {
      const checkpoint = await loadCheckpoint(this.sql);
      if (checkpoint) {
        this.state = checkpoint.state;
        this.tail = new EventTail(this.state);
        this.tail.lastSeq = this.checkpointedSeq = checkpoint.seq;
        this.sink = new PostgresEventSink(this.sql, this.state, this.tail);
      }
      const replayed = await this.tail.catchUp(this.sql);
      this.send({ kind: 'ready', rebuildMs: Math.round(performance.now() - started), checkpointSeq: this.checkpointedSeq, replayed });
      this.reportNews();
    } catch (error) {
      this.send({ kind: 'start_failed', error: describe(error), unavailable: asUnavailable(error)?.message });
      await this.end();
      return;
    }
    this.ready = true;
    await this.listen();
    this.pollTimer = setInterval(() => {
      this.scheduleTail();
      // The first LISTEN failed (the database was unreachable): the driver reconnects an established one, not this.
      if (!this.unlisten) void this.listen();
    }, POLL_EVERY_MS).unref();
    this.leadership.start();
    this.scheduleFlush();
  }

  /** LISTEN paywalld_events; a failure leaves `unlisten` unset, and the poll tries again. */
  private async listen(): Promise<void> {
    if (this.listening || this.closed) return;
    this.listening = true;
    try {
      const { unlisten } = await this.sql.listen(
        CHANNEL,
        (payload) => {
          if (Number(payload) > this.tail.lastSeq) this.scheduleTail();
        },
        // On each (re)connect of the LISTEN connection: what was notified while it was down is read now.
        () => this.scheduleTail(),
      );
      this.unlisten = unlisten;
    } catch {
      // Unreachable now: the poll reads meanwhile and tries again.
    } finally {
      this.listening = false;
    }
  }

  receive(message: ToWriter): void {
    if (message.kind === 'stats') {
      const { id, projectId, paywallId, fromDay, toDay } = message;
      this.send({ kind: 'stats', id, variants: this.state.stats(projectId, paywallId, fromDay, toDay) });
      return;
    }
    if (message.kind === 'results') {
      const { id, projectId, paywallId, audience, query } = message;
      this.serial(async () => {
        try {
          await this.purchases.refresh(projectId);
        } catch (error) {
          this.send({ kind: 'results_failed', id, error: describe(error), unavailable: unavailableReason(error) });
          return;
        }
        this.send({ kind: 'results', id, result: this.state.results(projectId, paywallId, audience, query, this.purchases) });
      });
      return;
    }
    if (message.kind === 'write') this.queue.push(message);
    else if (message.kind === 'link') this.links.push(message);
    else this.closing = true;
    this.scheduleFlush();
  }

  /**
   * Runs `step` after every step queued before it. A step that has not
   * ended after STEP_LIMIT_MS is stuck on a query that will never settle
   * (porsager/postgres#1208: the driver may lose a write on a connection
   * that broke): the thread ends, EventWriter answers what waits 503 and
   * starts another, rather than leave every later batch waiting.
   */
  private serial(step: () => Promise<void>): void {
    this.chain = this.chain.then(async () => {
      const watchdog = setTimeout(() => process.exit(1), STEP_LIMIT_MS);
      try {
        await step();
      } finally {
        clearTimeout(watchdog);
      }
    });
  }

  private scheduleTail(): void {
    if (this.tailScheduled || this.closed) return;
    this.tailScheduled = true;
    this.serial(async () => {
      this.tailScheduled = false;
      try {
        await this.tail.catchUp(this.sql);
      } catch {
        // The database is unreachable: the next poll (or the next commit's catch-up) reads again.
      }
      this.reportNews();
    });
  }

  /** After the messages waiting now have been received: they all join the next commit. */
  private scheduleFlush(): void {
    if (this.flushScheduled || !this.ready) return;
    this.flushScheduled = true;
    setImmediate(() => this.serial(() => this.flush()));
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    await this.links.commit();
    const queue = this.queue;
    if (queue.length > 0) {
      await this.commit(takeGroup(queue));
      this.reportNews();
    }
    if (queue.length > 0) this.scheduleFlush();
    else if (this.closing) await this.end();
  }

  /**
   * Commits a group of requests in one transaction. When it fails for another reason than the database's (a value PostgreSQL refuses,
   * such as a NUL character in a text, which the edge refuses before it gets here: src/shared/text.ts), each request is committed
   * alone, so that one request's rows do not fail the others'.
   */
  private async commit(group: QueuedWrite[]): Promise<void> {
    const ids = group.map((request) => request.id);
    try {
      this.send({ kind: 'written', ids, ...(await this.sink.write(...rowsAndMarks(group))) });
    } catch (error) {
      const unavailable = asUnavailable(error)?.message;
      if (unavailable === undefined && group.length > 1) {
        for (const request of group) await this.commit([request]);
        return;
      }
      this.send({ kind: 'failed', ids, error: describe(error), unavailable });
    }
  }

  /** A checkpoint and retention, each when due, on the leader's connection. */
  private async backgroundWork(sql: Sql): Promise<void> {
    if (this.closing) return;
    await this.checkpoint(sql);
    const days = this.options.retentionDays;
    const now = Date.now();
    if (days === undefined || (this.retentionAfter === undefined && now < this.nextRetention)) return;
    if (this.retentionAfter === undefined) this.nextRetention = now + RETENTION_EVERY_MS;
    try {
      // Only events a checkpoint counts: an instance starting later loads them from it, as it could no longer fold them.
      const step = await retentionStep(sql, days, now, this.checkpointedSeq, this.retentionAfter);
      this.retentionAfter = step.after;
      // Old events the checkpoint does not count yet go once the next checkpoint does, not a whole period later.
      if (step.atCheckpoint) this.nextRetention = Math.min(this.nextRetention, now + CHECKPOINT_EVERY_MS);
      if (step.deleted > 0) this.send({ kind: 'retention', deleted: step.deleted });
    } catch (error) {
      this.retentionAfter = undefined;
      this.send({ kind: 'retention_failed', error: describe(error) });
    }
  }

  /** Writes a checkpoint when events were folded since the last one, at most every CHECKPOINT_EVERY_MS unless many were. */
  private async checkpoint(sql: Sql): Promise<void> {
    const seq = this.tail.lastSeq;
    const now = Date.now();
    if (seq <= this.checkpointedSeq || (seq - this.checkpointedSeq < CHECKPOINT_EVENTS && now < this.checkpointedAt + CHECKPOINT_EVERY_MS)) return;
    const started = performance.now();
    try {
      // The state is read at once, here, where it counts exactly the events up to seq (folds happen between awaits, never across one).
      const bytes = await writeCheckpoint(sql, this.state, seq);
      this.checkpointedSeq = seq;
      this.checkpointedAt = now;
      this.send({ kind: 'checkpoint_written', seq, bytes, ms: Math.round(performance.now() - started) });
    } catch (error) {
      this.send({ kind: 'checkpoint_failed', error: describe(error) });
    }
  }

  /** Tells the server what the derived state counted that it hears of (thread-news.ts). */
  private reportNews(): void {
    this.unrepresentableReported = sendStateNews(this.state, this.unrepresentableReported, this.send);
  }

  private async end(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pollTimer);
    await this.unlisten?.().catch(() => undefined);
    await this.leadership.stop();
    await this.sql.end({ timeout: 5 });
    this.ended();
  }
}
