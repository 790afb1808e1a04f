/**
 * The event writer: a worker thread with its own SQLite connection, the only
 * code that writes events. Requests arrive as messages; whatever arrived
 * while the previous transaction committed is committed together in the next
 * one (group commit), so under load one fsync covers many requests, and the
 * server's event loop never waits for a commit.
 *
 * It also owns the derived state (src/analytics/): it loads the last
 * checkpoint and replays the raw events after it before anything else,
 * counts every committed event in memory, answers the statistics from it,
 * and writes a checkpoint every few seconds and before it ends.
 *
 * This module script sets the thread up, builds the stores it uses on its
 * connection (here, above the features, as the server's own are), and wires
 * its port to a WriterThread (src/events/writer/writer-thread.ts), which does
 * the work. Runs from source through sqlite-writer-thread-from-source.mjs
 * and, bundled, as dist/events-writer.js (build.mjs).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/database.ts';
import { LOCK_WAIT_MS } from '../db/lock-retry.ts';
import type { SqliteTarget } from '../db/target.ts';
import { lowerWriterPriority } from '../events/writer/priority.ts';
import type { ToWriter, WriterOptions } from '../events/writer/protocol.ts';
import { WriterThread } from '../events/writer/writer-thread.ts';
import { openSqliteStorage } from './sqlite.ts';

const port = parentPort;
if (!port) throw new Error('the event writer runs as a worker thread');
lowerWriterPriority();
// threadScript starts this thread for a SQLite target only.
const options = workerData as WriterOptions<SqliteTarget>;
const db = openDatabase(options.target.file, { mustExist: true });
// A batch waits at most the server's own bound for a lock another process holds, as every other
// write does; past it the batch is answered 503 database_unavailable (and the start, which batches
// wait for, fails; the server starts a new thread at the next batch or a second later).
db.pragma(`busy_timeout = ${LOCK_WAIT_MS}`);
const writer = new WriterThread(
  db,
  // The stores on the thread's connection; the thread closes it itself.
  openSqliteStorage(db),
  options,
  (message) => port.postMessage(message),
  // Nothing else keeps the thread alive once the database is closed: it ends, and the server sees it exit.
  () => port.unref(),
);
port.on('message', (message: ToWriter) => writer.receive(message));
writer.start();
