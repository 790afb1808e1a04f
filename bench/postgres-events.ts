// The PostgreSQL event path's costs (docs/scale-out.md, "Events and derived
// state"), on a cluster of its own started as the tests start one
// (test/helpers/postgres.ts): what the events advisory lock costs two
// writers, events through two EventWriters against a bare batched insert,
// the start-up rebuild per 10^6 events, and how long after one instance's
// acknowledgement the other instance's statistics include the batch.
// Usage: node --import tsx bench/postgres-events.ts [--events N] [--seconds S] [--rebuild-only]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { ADVISORY_LOCKS } from '../src/db/postgres/advisory-locks.ts';
import { closePool, openPool, type Sql } from '../src/db/postgres/connection.ts';
import { migratePostgres } from '../src/db/postgres/migrate.ts';
import { DerivedStore } from '../src/events/derived/checkpoint.ts';
import { DerivedState } from '../src/events/derived/state.ts';
import { loadCheckpoint, writeCheckpoint } from '../src/events/writer/postgres/checkpoints.ts';
import { EventTail } from '../src/events/writer/postgres/tail.ts';
import { EVENT_COLUMNS, type EventRow } from '../src/events/writer/protocol.ts';
import { EventWriter } from '../src/events/writer/writer.ts';
import { Logger } from '../src/log.ts';
import { postgresCluster } from '../test/helpers/postgres.ts';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}
const REBUILD_EVENTS = option('events', 1_000_000);
const SECONDS = option('seconds', 10);
const BATCH = 100;
const DAY = Date.UTC(2026, 0, 1);

let counter = 0;
function batch(): EventRow[] {
  return Array.from({ length: BATCH }, () => {
    const n = counter++;
    const ts = DAY + (n % 30) * 86_400_000 + (n % 86_400_000);
    return [
      'p1',
      `paywall-${n % 5}`,
      n % 10 === 0 ? 'purchase_complete' : 'screen_impression',
      ts,
      ts,
      null,
      ts,
      `e-${n}`,
      `u-${n % 50_000}`,
      n % 2 ? 'control' : 'treatment',
      null,
      null,
      null,
      null,
      null,
    ];
  });
}

const cluster = await postgresCluster();
let databases = 0;
async function freshDatabase(): Promise<string> {
  const name = `bench_${process.pid}_${++databases}`;
  const admin = postgres(cluster.url('postgres'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = cluster.url(name);
  const sql = openPool(url, { size: 1 });
  await migratePostgres(sql);
  await closePool(sql);
  return url;
}

const COLUMN_TYPES = ['text', 'text', 'text', 'int8', 'int8', 'int8', 'int8', 'text', 'text', 'text', 'text', 'text', 'text', 'float8', 'text'];
const INSERT = `INSERT INTO events (${EVENT_COLUMNS.join(', ')}) SELECT * FROM unnest(${COLUMN_TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})
  ON CONFLICT (project_id, client_ts, event_id) WHERE event_id IS NOT NULL DO NOTHING RETURNING seq`;

/** Two connections inserting batches for SECONDS, each batch a transaction, with or without the events lock first: batches/s. */
async function bareInserts(url: string, lock: boolean): Promise<number> {
  const deadline = performance.now() + SECONDS * 1000;
  let batches = 0;
  const writer = async () => {
    const sql = openPool(url, { size: 1 });
    while (performance.now() < deadline) {
      const rows = batch();
      const columns = COLUMN_TYPES.map((_, column) => rows.map((row) => row[column] ?? null));
      await sql.begin(async (tx) => {
        if (lock) await tx.unsafe('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCKS.events.toString()]);
        await tx.unsafe(INSERT, columns);
        await tx.unsafe(`SELECT pg_notify('paywalld_events', '1')`);
      });
      batches++;
    }
    await closePool(sql);
  };
  const started = performance.now();
  await Promise.all([writer(), writer()]);
  return batches / ((performance.now() - started) / 1000);
}

function writerOn(url: string): EventWriter {
  return new EventWriter({ dbPath: url, retentionDays: undefined, queueLimit: 1_000_000, queueBytes: 1 << 30, log: new Logger('error') });
}

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 1));
}

/** Two EventWriters, each with 4 clients sending batches for SECONDS: batches/s. */
async function throughWriters(url: string): Promise<number> {
  const writers = [writerOn(url), writerOn(url)];
  await until(() => writers.every((writer) => writer.statsReady));
  const deadline = performance.now() + SECONDS * 1000;
  let batches = 0;
  const client = async (writer: EventWriter) => {
    while (performance.now() < deadline) {
      await writer.write(batch());
      batches++;
    }
  };
  const started = performance.now();
  await Promise.all(writers.flatMap((writer) => [1, 2, 3, 4].map(() => client(writer))));
  const rate = batches / ((performance.now() - started) / 1000);
  await Promise.all(writers.map((writer) => writer.close()));
  return rate;
}

/** From one instance's acknowledgement to the other's statistics counting the batch, in ms, per sample. */
async function tailLag(url: string, samples: number): Promise<number[]> {
  const [a, b] = [writerOn(url), writerOn(url)];
  await until(() => a.statsReady && b.statsReady);
  const lags: number[] = [];
  const count = async () => (await b.stats('p1', 'lag', 0, 30_000)).reduce((sum, variant) => sum + variant.totals.counts.screen_impression!, 0);
  for (let i = 0; i < samples; i++) {
    const ts = DAY + i;
    await a.write([['p1', 'lag', 'screen_impression', ts, ts, null, ts, `lag-${i}`, 'u', 'control', null, null, null, null, null]]);
    const acked = performance.now();
    await until(async () => (await count()) === i + 1);
    lags.push(performance.now() - acked);
  }
  await Promise.all([a.close(), b.close()]);
  return lags.sort((x, y) => x - y);
}

/** Rebuild: REBUILD_EVENTS events written straight into the table, then folded as a starting instance folds them. */
async function rebuild(url: string): Promise<{ ms: number; events: number }> {
  const sql: Sql = openPool(url, { size: 1 });
  // One connection: the bulk insert and the rebuild's pages may take longer than a request's bound.
  await sql.unsafe('SET statement_timeout = 0');
  await sql.unsafe(`INSERT INTO events (${EVENT_COLUMNS.join(', ')})
    SELECT 'p1', 'paywall-' || (n % 5), CASE WHEN n % 10 = 0 THEN 'purchase_complete' ELSE 'screen_impression' END,
      ${DAY} + (n % 30) * 86400000 + n, ${DAY} + (n % 30) * 86400000 + n, NULL, ${DAY}, 'e-' || n, 'u-' || (n % 50000),
      CASE WHEN n % 2 = 1 THEN 'control' ELSE 'treatment' END, NULL, NULL, NULL, NULL, NULL
    FROM generate_series(1::bigint, ${REBUILD_EVENTS}) n`);
  await sql.unsafe('VACUUM ANALYZE events');
  const started = performance.now();
  const state = new DerivedState();
  const tail = new EventTail(state);
  const events = await tail.catchUp(sql);
  const ms = performance.now() - started;
  // The checkpoint of that state, as the leader writes it, and loaded back as a starting instance loads it.
  let clock = performance.now();
  const bytes = await writeCheckpoint(sql, state, tail.lastSeq);
  const writeMs = performance.now() - clock;
  clock = performance.now();
  await loadCheckpoint(sql);
  const loadMs = performance.now() - clock;
  console.log(`checkpoint of ${events} events: ${(bytes / 2 ** 20).toFixed(1)} MiB, written in ${writeMs.toFixed(0)} ms, loaded in ${loadMs.toFixed(0)} ms`);
  await closePool(sql);
  return { ms, events };
}

/** The same events in a SQLite file, rebuilt as the SQLite writer rebuilds without a checkpoint (bench/lib/rebuild-derived.ts): the comparison in the same run. */
function sqliteRebuild(): { ms: number; events: number } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-bench-'));
  try {
    const db = openDatabase(path.join(dir, 'events.db'));
    migrate(db);
    db.exec(`WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${REBUILD_EVENTS})
      INSERT INTO events (${EVENT_COLUMNS.join(', ')})
      SELECT 'p1', 'paywall-' || (n % 5), CASE WHEN n % 10 = 0 THEN 'purchase_complete' ELSE 'screen_impression' END,
        ${DAY} + (n % 30) * 86400000 + n, ${DAY} + (n % 30) * 86400000 + n, NULL, ${DAY}, 'e-' || n, 'u-' || (n % 50000),
        CASE WHEN n % 2 = 1 THEN 'control' ELSE 'treatment' END, NULL, NULL, NULL, NULL, NULL FROM g`);
    const started = performance.now();
    const { replayed } = new DerivedStore(db).start();
    const ms = performance.now() - started;
    db.close();
    return { ms, events: replayed };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const rebuildOnly = process.argv.includes('--rebuild-only');
if (!rebuildOnly) {
  const withLock = await bareInserts(await freshDatabase(), true);
  const withoutLock = await bareInserts(await freshDatabase(), false);
  console.log(
    `two connections, ${BATCH}-event batches: ${withoutLock.toFixed(0)} batches/s without the events lock, ${withLock.toFixed(0)} with it (${((withLock / withoutLock) * 100).toFixed(0)}%)`,
  );
  const writers = await throughWriters(await freshDatabase());
  console.log(
    `two EventWriters, 4 clients each: ${writers.toFixed(0)} batches/s (${(writers * BATCH).toFixed(0)} events/s), ${((writers / withoutLock) * 100).toFixed(0)}% of the bare insert without lock`,
  );
  const lags = await tailLag(await freshDatabase(), 50);
  const at = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]!.toFixed(1);
  console.log(`tail lag (ack on A to B's stats counting it), 50 samples: median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms`);
}
const { ms, events } = await rebuild(await freshDatabase());
console.log(
  `rebuild: ${events} events in ${ms.toFixed(0)} ms (${(((ms / events) * 1e6) / 1000).toFixed(1)} s per 10^6), RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`,
);
const sqlite = sqliteRebuild();
console.log(`SQLite rebuild of the same events (derived tables and indexes included): ${(((sqlite.ms / sqlite.events) * 1e6) / 1000).toFixed(1)} s per 10^6`);
cluster.stop();
process.exit(0);
