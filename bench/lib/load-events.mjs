/**
 * Fills a stopped server's database with `total` events straight through
 * better-sqlite3, far faster than HTTP: the 30 UTC days ending today, in time
 * order, with the server's own statements and roll-ups (bench/lib/events.mjs)
 * so that the statistics read exactly what ingestion would have written.
 * synchronous=OFF while loading: a crash here loses nothing that matters.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { eventRow, openSqlite, sinkLikeTheServer } from './events.mjs';

const DAY_MS = 24 * 60 * 60 * 1000;
export const DAYS = 30;
const ROWS_PER_TRANSACTION = 100_000;

export function loadEvents({ file, addon, projectId, paywallId, users, total }) {
  const db = openSqlite(file, addon);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -65536');
    const write = sinkLikeTheServer(db);
    const stream = { projectId, paywallId, users, idPrefix: 'load-' };
    const firstDay = Math.floor(Date.now() / DAY_MS) - (DAYS - 1);
    let n = 0;
    let rows = [];
    for (let day = 0; day < DAYS; day++) {
      const perDay = Math.floor(total / DAYS) + (day < total % DAYS ? 1 : 0);
      const start = (firstDay + day) * DAY_MS;
      for (let i = 0; i < perDay; i++, n++) {
        const ts = start + Math.floor((i * DAY_MS) / perDay);
        rows.push(eventRow(stream, n, ts, ts));
        if (rows.length === ROWS_PER_TRANSACTION) {
          write(rows);
          rows = [];
        }
      }
    }
    if (rows.length > 0) write(rows);
    db.pragma('wal_checkpoint(TRUNCATE)');
    return { firstDay, lastDay: firstDay + DAYS - 1 };
  } finally {
    db.close();
  }
}

/** Loads in a worker thread, so that several databases fill at once. */
export function loadEventsInWorker(job) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: job });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the loader thread exited with ${code}`)));
  });
}

if (!isMainThread && workerData?.file) parentPort.postMessage(loadEvents(workerData));
