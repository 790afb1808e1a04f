/**
 * The PostgreSQL event writer as a worker thread
 * (src/events/writer/postgres/writer-thread.ts does the work): the thread
 * EventWriter starts for a PostgreSQL target, with the stores it uses on its
 * pool built here, above the features. Runs from source through
 * postgres-writer-thread-from-source.mjs and, bundled, as
 * dist/events-writer-postgres.js (build.mjs).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openPool } from '../db/postgres/connection.ts';
import { letDriverDefectsPass } from '../db/postgres/driver-defects.ts';
import type { PostgresTarget } from '../db/target.ts';
import { PostgresWriterThread } from '../events/writer/postgres/writer-thread.ts';
import { lowerWriterPriority } from '../events/writer/priority.ts';
import type { ToWriter, WriterOptions } from '../events/writer/protocol.ts';
import { openPostgresStorage } from './postgres.ts';

const port = parentPort;
if (!port) throw new Error('the event writer runs as a worker thread');
lowerWriterPriority();
// The driver's throw after a lost connection (driver-defects.ts) must not end the thread: its
// transaction has failed already and is answered database_unavailable.
letDriverDefectsPass();
// threadScript starts this thread for a PostgreSQL target only.
const options = workerData as WriterOptions<PostgresTarget>;
// The writer's queries are one after another (group commit): two connections, one for the LISTEN.
const sql = openPool(options.target.url, { size: 2, applicationName: 'paywalld events' });
const writer = new PostgresWriterThread(
  sql,
  // The stores on the thread's pool; the thread closes it itself.
  openPostgresStorage(sql),
  options,
  (message) => port.postMessage(message),
  // Nothing else keeps the thread alive once the pools are closed: it ends, and the server sees it exit.
  () => port.unref(),
);
port.on('message', (message: ToWriter) => writer.receive(message));
// A failed start is answered with start_failed and ends the thread: nothing is left to throw.
void writer.start();
