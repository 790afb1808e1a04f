/**
 * Durability of the built bundle, run from a copy of dist/ in a temp
 * directory (the writer thread starts from dist/events-writer.js there):
 * SIGKILL in the middle of concurrent ingestion, then SIGTERM.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { DIST, spawnServe } from '../helpers/cli.ts';
import { fetchStats, JSON_TYPE } from '../helpers/events.ts';
import { needs, STRACE } from '../helpers/requirements.ts';
import { bearer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';
import { until } from '../helpers/until.ts';

const CLIENTS = 4;
const EVENTS_PER_BATCH = 200;

interface Outcome {
  /** Ids of events in batches answered 200, minus those the answer rejected. */
  acknowledged: Set<string>;
  /** Ids of events answered with an error: a whole-request error, or a per-event rejection. */
  refused: Set<string>;
  /** Batches that got no answer (the connection died), to be retried with the same ids. */
  unanswered: Batch[];
  /** Batches answered 200. */
  answered: Batch[];
}

interface Batch {
  ids: string[];
  body: string;
  /** The index of the event the server must reject, if any. */
  rejectedIndex: number | undefined;
}

function outcome(): Outcome {
  return { acknowledged: new Set(), refused: new Set(), unanswered: [], answered: [] };
}

/** One batch of client `client`: usually fine but for one bad event; every fifth one too big to be taken at all. */
function batch(client: number, n: number): Batch {
  const tooMany = n % 5 === 4;
  const size = tooMany ? 1001 : EVENTS_PER_BATCH;
  const ts = Date.now();
  const ids = Array.from({ length: size }, (_, i) => `c${client}-b${n}-e${i}`);
  const events = ids.map((id, i) => ({ type: 'screen_impression', paywall_id: 'pw', id, ts: i === 7 && !tooMany ? -1 : ts, user_id: `u${i % 13}` }));
  return { ids, body: JSON.stringify({ events }), rejectedIndex: tooMany ? undefined : 7 };
}

async function send(url: string, key: string, sent: Batch, into: Outcome): Promise<'answered' | 'unanswered'> {
  const { ids, body, rejectedIndex } = sent;
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${url}/api/sdk/events`, { method: 'POST', headers: { ...JSON_TYPE, ...bearer(key) }, body });
    text = await response.text();
  } catch {
    into.unanswered.push(sent);
    return 'unanswered';
  }
  if (response.status !== 200) {
    for (const id of ids) into.refused.add(id);
    return 'answered';
  }
  const result = JSON.parse(text) as { accepted: number; duplicates: number; rejected: { index: number }[] };
  assert.equal(result.accepted + result.duplicates + result.rejected.length, ids.length);
  assert.deepEqual(
    result.rejected.map((r) => r.index),
    rejectedIndex === undefined ? [] : [rejectedIndex],
  );
  ids.forEach((id, i) => {
    (i === rejectedIndex ? into.refused : into.acknowledged).add(id);
  });
  into.answered.push(sent);
  return 'answered';
}

/** Copies the built dist/ to a temp directory and returns the path of the copied bundle and a database beside it. */
function distCopy(t: TestContext): { script: string; db: string } {
  assert.ok(fs.existsSync(path.join(path.dirname(DIST), 'events-writer.js')), 'run `node build.mjs` first (npm test does)');
  const dir = tempDir(t);
  fs.cpSync(path.dirname(DIST), path.join(dir, 'dist'), { recursive: true });
  return { script: path.join(dir, 'dist', 'paywalld.js'), db: path.join(dir, 'paywalld.db') };
}

function sdkKey(output: string): string {
  const match = /sdk key:\s+(pwk_sdk_\S+)/.exec(output);
  assert.ok(match, output);
  return match[1]!;
}

function secretKey(output: string): string {
  const match = /secret key:\s+(pwk_\S+)/.exec(output);
  assert.ok(match, output);
  return match[1]!;
}

/** Impressions per UTC day counted from the raw events: what the statistics must say. */
function countedPerDay(db: string): Record<string, number> {
  const conn = openDatabase(db, { mustExist: true });
  try {
    const rows = conn.prepare("SELECT ts / 86400000 AS day, count(*) AS n FROM events WHERE paywall_id = 'pw' GROUP BY day").all() as {
      day: number;
      n: number;
    }[];
    return Object.fromEntries(rows.map((row) => [new Date(row.day * 86_400_000).toISOString().slice(0, 10), row.n]));
  } finally {
    conn.close();
  }
}

/** Impressions per UTC day as the server's statistics say. */
async function statsPerDay(url: string, secret: string): Promise<Record<string, number>> {
  const response = await fetchStats(url, secret, 'pw');
  assert.equal(response.status, 200);
  const body = (await response.json()) as { variants: { days: { day: string; counts: Record<string, number> }[] }[] };
  const perDay: Record<string, number> = {};
  for (const variant of body.variants) for (const day of variant.days) perDay[day.day] = (perDay[day.day] ?? 0) + day.counts.screen_impression!;
  return perDay;
}

/** How often each event id is stored, and whether the checkpointed day sets agree with the raw events. */
function storedIds(db: string): { counts: Map<string, number>; total: number; rolledUp: number } {
  const conn = openDatabase(db, { mustExist: true });
  try {
    const counts = new Map<string, number>();
    for (const row of conn.prepare('SELECT event_id, count(*) AS n FROM events GROUP BY event_id').all() as { event_id: string; n: number }[]) {
      counts.set(row.event_id, row.n);
    }
    const total = conn.prepare('SELECT count(*) FROM events').pluck().get() as number;
    const rolledUp = conn.prepare("SELECT coalesce(sum(count), 0) FROM event_day_sets WHERE type = '*'").pluck().get() as number;
    return { counts, total, rolledUp };
  } finally {
    conn.close();
  }
}

test('SIGKILL mid-stream: every acknowledged event is stored exactly once, nothing of a refused batch is stored', async (t) => {
  const { script, db } = distCopy(t);
  const args = ['--db', db, '--rate-limit-sdk', '0'];
  const first = await spawnServe(t, args, { script });
  const key = sdkKey(first.output());
  const seen = outcome();
  let answeredBatches = 0;
  let killed = false;
  const exited = new Promise((resolve) => first.child.once('exit', resolve));
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; !killed; n++) {
        if ((await send(first.url, key, batch(client, n), seen)) === 'answered' && ++answeredBatches === 40) {
          // Mid-stream: the other clients have batches in flight.
          first.child.kill('SIGKILL');
          killed = true;
        }
      }
    }),
  );
  await exited;
  assert.ok(seen.acknowledged.size > 3000, `${seen.acknowledged.size} events acknowledged before the kill`);

  const afterKill = storedIds(db);
  for (const id of seen.acknowledged) assert.equal(afterKill.counts.get(id), 1, `acknowledged ${id}`);
  for (const id of seen.refused) assert.equal(afterKill.counts.has(id), false, `refused ${id}`);
  // The checkpoint on disk lags behind the raw events by up to a few seconds of events, never ahead of them.
  assert.ok(afterKill.rolledUp <= afterKill.total);

  // Restarted on the same file: the events after the checkpoint are replayed, and the statistics count every stored event.
  const second = await spawnServe(t, args, { script });
  const secret = secretKey(first.output());
  assert.deepEqual(await statsPerDay(second.url, secret), countedPerDay(db));
  // Clients retry what got no answer, and one answered batch for good measure.
  const retried = outcome();
  for (const sent of [...seen.unanswered, seen.answered[0]!]) assert.equal(await send(second.url, key, sent, retried), 'answered');
  assert.equal(await second.stop('SIGTERM'), 0);

  const final = storedIds(db);
  const everStored = new Set([...seen.acknowledged, ...retried.acknowledged]);
  for (const id of everStored) assert.equal(final.counts.get(id), 1, `stored ${id}`);
  for (const id of [...seen.refused, ...retried.refused]) assert.equal(final.counts.has(id), false, `refused ${id}`);
  assert.equal(final.total, everStored.size);
  // SIGTERM wrote a final checkpoint.
  assert.equal(final.rolledUp, final.total);
  const third = await spawnServe(t, args, { script });
  assert.deepEqual(await statsPerDay(third.url, secret), countedPerDay(db));
  assert.equal(await third.stop('SIGTERM'), 0);
});

test('SIGTERM answers the batches in flight and commits them before the process exits 0', async (t) => {
  const { script, db } = distCopy(t);
  const server = await spawnServe(t, ['--db', db, '--rate-limit-sdk', '0'], { script });
  const key = sdkKey(server.output());
  const seen = outcome();
  let answeredBatches = 0;
  let stopping: Promise<number | null> | undefined;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; !stopping; n++) {
        if ((await send(server.url, key, batch(client, n), seen)) === 'answered' && ++answeredBatches === 20) {
          stopping = server.stop('SIGTERM');
        }
      }
    }),
  );
  assert.equal(await stopping, 0);
  assert.match(server.output(), /"msg":"stopped"/);
  const stored = storedIds(db);
  // Nothing half-done: what is stored is exactly what was acknowledged.
  for (const id of seen.acknowledged) assert.equal(stored.counts.get(id), 1, `acknowledged ${id}`);
  assert.equal(stored.total, seen.acknowledged.size);
  assert.equal(stored.rolledUp, stored.total);
});

test('every acknowledged batch was fsynced to the write-ahead log before its answer (synchronous=FULL on the writer thread)', needs(STRACE), async (t) => {
  // SIGKILL cannot tell FULL from NORMAL (the OS keeps unsynced writes); counting fsync calls on the
  // WAL can: with NORMAL a commit writes the WAL without syncing it, so the count stays near zero.
  const { script, db } = distCopy(t);
  const trace = path.join(path.dirname(db), 'fsync.trace');
  const child = spawn(
    'strace',
    ['-f', '-qq', '-y', '-e', 'trace=fsync,fdatasync', '-o', trace, process.execPath, script, 'serve', '--port', '0', '--db', db, '--rate-limit-sdk', '0'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let server: number | undefined;
  t.after(() => {
    child.kill('SIGKILL');
    if (server !== undefined && child.exitCode === null) process.kill(server, 'SIGKILL');
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await until(() => /"msg":"listening"/.test(output), 'the server to listen', 30_000);
  const url = `http://127.0.0.1:${/"port":(\d+)/.exec(output)![1]}`;
  const key = sdkKey(output);
  // The server is strace's child; strace exits with the server's exit code.
  server = Number(execFileSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' }).trim());
  const walSyncs = () => (fs.readFileSync(trace, 'utf8').match(/^\d+\s+f(data)?sync\(\d+<[^>]*paywalld\.db-wal>\)\s+= 0$/gm) ?? []).length;

  const before = walSyncs();
  const BATCHES = 20;
  for (let n = 0; n < BATCHES; n++) {
    // One after the other: each is its own transaction, answered only once committed.
    const response = await fetch(`${url}/api/sdk/events`, {
      method: 'POST',
      headers: { ...JSON_TYPE, ...bearer(key) },
      body: JSON.stringify({ events: [{ type: 'screen_impression', paywall_id: 'pw', id: `sync-${n}`, ts: Date.now() }] }),
    });
    assert.equal(response.status, 200, await response.text());
  }
  process.kill(server, 'SIGTERM');
  assert.equal(await exited, 0);
  assert.ok(walSyncs() - before >= BATCHES, `${walSyncs() - before} fsyncs of the WAL for ${BATCHES} acknowledged batches`);
});
