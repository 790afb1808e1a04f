/**
 * The event writer: a worker thread with its own SQLite connection, the only
 * code that writes events. Requests arrive as messages; whatever arrived
 * while the previous transaction committed is committed together in the next
 * one (group commit), so under load one fsync covers many requests, and the
 * server's event loop never waits for a commit.
 *
 * It also owns the derived state (src/events/derived/): it loads the last
 * checkpoint and replays the raw events after it before anything else,
 * counts every committed event in memory, answers the statistics from it,
 * and writes a checkpoint every few seconds and before it ends.
 *
 * Runs from source through thread-from-source.mjs and, bundled, as
 * dist/events-writer.js (build.mjs).
 */
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../../db/database.ts';
import { LOCK_WAIT_MS } from '../../db/lock-retry.ts';
import { asUnavailable } from '../../db/unavailable.ts';
import { CHECKPOINT_MAX_PENDING, DerivedStore } from '../derived/checkpoint.ts';
import { collectGarbage } from './collect-garbage.ts';
import type { EventRow, FromWriter, ToWriter, WriterOptions } from './protocol.ts';
import { Retention } from './retention.ts';
import { EventSink } from './sink.ts';

/** Rows per transaction at most; a request is never split across transactions. */
const MAX_ROWS_PER_COMMIT = 20_000;
/** How often a retention pass starts (one also starts with the thread). */
const RETENTION_EVERY_MS = 10 * 60 * 1000;
/** How often the derived state is checkpointed while events arrive: what a restart replays at most. */
const CHECKPOINT_EVERY_MS = 5000;

/**
 * The writer's scheduling priority (nice value; the server thread keeps 0).
 * Where the writer and the request thread share a core, the kernel then lets
 * requests go first, so resolve latency does not pay for ingestion; with a
 * core to itself the writer loses nothing. Not 19, although that halves
 * resolve's p99 while ingesting on a shared core: the writer holds SQLite's
 * write lock during its transactions, and starved that far on a busy
 * machine it kept the request thread's own writes waiting past their 750 ms
 * (BENCHMARKS.md, "resolve while ingesting"). On Linux, setpriority on "0"
 * applies to the calling thread only.
 */
const WRITER_NICE = 10;

const port = parentPort;
if (!port) throw new Error('the event writer runs as a worker thread');
try {
  os.setPriority(0, WRITER_NICE);
} catch {
  // Where threads cannot be re-prioritised, the writer simply keeps the server's priority.
}
const options = workerData as WriterOptions;
const db = openDatabase(options.dbPath, { mustExist: true });
// A batch waits at most the server's own bound for a lock another process holds, as every other
// write does; past it the batch is answered 503 database_unavailable (and the start, which batches
// wait for, fails; the server starts a new thread at the next batch or a second later).
db.pragma(`busy_timeout = ${LOCK_WAIT_MS}`);
const derived = new DerivedStore(db);
const sink = new EventSink(db, derived);
const retention = options.retentionDays === undefined ? undefined : new Retention(db, options.retentionDays, () => derived.checkpointedSeq);

const queue: { id: number; rows: EventRow[] }[] = [];
let flushScheduled = false;
let closing = false;
let retentionRunning = false;

function send(message: FromWriter): void {
  port!.postMessage(message);
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

port.on('message', (message: ToWriter) => {
  if (message.kind === 'stats') {
    const { id, projectId, paywallId, fromDay, toDay } = message;
    send({ kind: 'stats', id, variants: derived.state.stats(projectId, paywallId, fromDay, toDay) });
    return;
  }
  if (message.kind === 'results') {
    const { id, projectId, paywallId, audience, query } = message;
    send({ kind: 'results', id, result: derived.state.results(projectId, paywallId, audience, query) });
    return;
  }
  if (message.kind === 'write') queue.push(message);
  else closing = true;
  scheduleFlush();
});

/** Events were checkpointed since the last interval without any; the start (loading, replaying) counts as a burst too. */
let burst = true;

/** Writes a checkpoint when events were counted since the last one; a failure is reported and retried later. */
function checkpoint(): void {
  if (derived.pending.size === 0) {
    // A checkpoint interval without events after some: the burst is over, and what it left on the heap is garbage.
    if (burst) collectGarbage();
    burst = false;
    return;
  }
  burst = true;
  try {
    derived.checkpoint();
  } catch (error) {
    send({ kind: 'checkpoint_failed', error: describe(error) });
  }
  scheduleFill();
}

/** setImmediate runs after the event loop delivered every message that is waiting: they all join this commit. */
function scheduleFlush(): void {
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(flush);
}

function flush(): void {
  flushScheduled = false;
  if (queue.length > 0) {
    let rows = 0;
    let take = 0;
    while (take < queue.length && (take === 0 || rows + queue[take]!.rows.length <= MAX_ROWS_PER_COMMIT)) rows += queue[take++]!.rows.length;
    const batch = queue.splice(0, take);
    const ids = batch.map((request) => request.id);
    try {
      send({ kind: 'written', ids, ...sink.write(batch.map((request) => request.rows)) });
    } catch (error) {
      send({ kind: 'failed', ids, error: describe(error), unavailable: asUnavailable(error)?.message });
    }
  }
  if (derived.pending.size >= CHECKPOINT_MAX_PENDING) checkpoint();
  reportUnrepresentable();
  if (queue.length > 0) scheduleFlush();
  else if (closing) close();
}

let unrepresentableReported = 0;

/** Says so whenever the derived state left out more stored events than it last said (never below the ingestion limits). */
function reportUnrepresentable(): void {
  const events = derived.state.unrepresentable;
  if (events === unrepresentableReported) return;
  unrepresentableReported = events;
  send({ kind: 'unrepresentable', events });
}

function close(): void {
  clearInterval(retentionTimer);
  clearInterval(checkpointTimer);
  checkpoint();
  db.close();
  // Nothing else keeps the thread alive: it ends, and the server sees it exit.
  port!.unref();
}

/** One small delete per turn of the event loop, so writes queued meanwhile go first. */
function retentionPass(deletedSoFar = 0): void {
  if (!retention || closing) return;
  retentionRunning = true;
  let step: { deleted: number; more: boolean };
  try {
    step = retention.step(Date.now());
  } catch (error) {
    retentionRunning = false;
    send({ kind: 'retention_failed', error: describe(error) });
    return;
  }
  const deleted = deletedSoFar + step.deleted;
  if (step.more) {
    setImmediate(retentionPass, deleted);
    return;
  }
  retentionRunning = false;
  if (deleted > 0) send({ kind: 'retention', deleted });
}

// Before any message is handled (they wait in the port meanwhile): writes need the dedup keys of
// the events after the checkpoint, statistics need the counts.
const started = performance.now();
try {
  const { checkpointSeq, replayed } = derived.start();
  send({ kind: 'ready', rebuildMs: Math.round(performance.now() - started), checkpointSeq, replayed });
  reportUnrepresentable();
} catch (error) {
  send({ kind: 'start_failed', error: describe(error), unavailable: asUnavailable(error)?.message });
  db.close();
  throw error;
}
const checkpointTimer = setInterval(checkpoint, CHECKPOINT_EVERY_MS).unref();

let filling = false;
/** When the current fill started (performance.now()). */
let fillStarted = 0;

/** Fills the dedup key filter from event_dedup one page per turn of the event loop: writes queued meanwhile go first. */
function fillFilter(): void {
  filling = false;
  if (closing) return;
  try {
    if (!derived.storedKeys.fill()) scheduleFill();
    else {
      send({ kind: 'filter_filled', ms: Math.round(performance.now() - fillStarted), keys: derived.storedKeys.size });
      fillStarted = 0;
      // The fill read every stored key as a row: millions of them are garbage now.
      collectGarbage();
    }
  } catch (error) {
    // Without the filter every new key is looked up in event_dedup: slower, still exact.
    send({ kind: 'filter_failed', error: describe(error) });
  }
}

/**
 * After each checkpoint while a fill that failed is still incomplete, and once at start even when the
 * filter is complete already (a rebuild fills it in its pass), so that the log says when it is.
 */
function scheduleFill(atStart = false): void {
  if (filling || (!atStart && !derived.storedKeys.filling)) return;
  if (fillStarted === 0) fillStarted = performance.now();
  filling = true;
  setImmediate(fillFilter);
}
scheduleFill(true);

const retentionTimer = retention
  ? setInterval(() => {
      if (!retentionRunning) retentionPass();
    }, RETENTION_EVERY_MS).unref()
  : undefined;
if (retention) setImmediate(retentionPass);
