/**
 * Fills a stopped server's database with `total` events straight through
 * better-sqlite3, far faster than HTTP: the 30 UTC days ending today, in time
 * order, appended to the events table as the server's writer appends them.
 * The derived state (statistics, dedup and time indexes) is then built by
 * the server's own code (rebuildDerived: bench/lib/rebuild-derived.ts runs
 * src/analytics/ from source), exactly what a server starting on a
 * database without a checkpoint does. synchronous=OFF while loading: a crash
 * here loses nothing that matters.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { eventRow, eventStore, openSqlite } from './events.mjs';

const DAY_MS = 24 * 60 * 60 * 1000;
export const DAYS = 30;
const ROWS_PER_TRANSACTION = 100_000;

export function loadEvents({ file, addon, projectId, paywallId, users, total }) {
  const db = openSqlite(file, addon);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -65536');
    const { write } = eventStore(db, 'noindex');
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

/** Builds the derived state with the server's code from source; resolves with the time the rebuild took (ms). */
export function rebuildDerived(file) {
  const script = path.join(import.meta.dirname, 'rebuild-derived.ts');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', script, file],
      { cwd: path.join(import.meta.dirname, '..', '..'), maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`rebuilding the derived state of ${file} failed: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1)));
      },
    );
  });
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
