/**
 * The database held or failing: a lock held by another process is waited for
 * without freezing the server and answered 503 past a short bound (a full
 * or read-only database is refused the same way: full-database.unit.test.ts).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { type TestContext, test } from 'node:test';
import { LOCK_WAIT_MS } from '../../src/db/lock-retry.ts';
import { sqliteAddonPath } from '../../src/native.ts';
import { exported, ingest, JSON_TYPE, openTestDb, sendEvents } from '../helpers/events.ts';
import { api, seedProducts, single } from '../helpers/paywalls.ts';
import { problem } from '../helpers/problem.ts';
import { needs, SQLITE_BACKEND } from '../helpers/requirements.ts';
import { bearer, restartServer, startTestServer } from '../helpers/server.ts';

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * Another process that opens the database and holds its write lock (BEGIN IMMEDIATE) until told to commit.
 * It loads the addon paywalld loads: under another Node.js than npm's, node_modules holds the wrong one.
 */
async function holdWriteLock(t: TestContext, dbPath: string): Promise<() => Promise<void>> {
  const script = `
    const Database = require(${JSON.stringify(BETTER_SQLITE3)});
    const db = new Database(${JSON.stringify(dbPath)}, { nativeBinding: ${JSON.stringify(sqliteAddonPath())} });
    db.exec('BEGIN IMMEDIATE');
    console.log('locked');
    process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); console.log('released'); });
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  assert.equal((await lines.next()).value, 'locked');
  return async () => {
    child.stdin!.write('commit\n');
    assert.equal((await lines.next()).value, 'released');
  };
}

test(
  'a write lock held by another process: writes answer 503 with Retry-After while resolve and /healthz are served meanwhile',
  needs(SQLITE_BACKEND),
  async (t) => {
    const server = await startTestServer(t);
    const client = api(server);
    await seedProducts(client);
    await client.putProduct('spare', { name: 'Spare', store_ids: {} });
    await client.putPaywall('pw', single({ en: { title: 'T' } }));
    await client.publish('pw');

    const release = await holdWriteLock(t, server.dbPath);
    const finished: string[] = [];
    const track = <T>(name: string, promise: Promise<T>) =>
      promise.then((value) => {
        finished.push(name);
        return value;
      });
    const put = track('put', client.request('PUT', '/api/products/new', { body: { name: 'New', store_ids: {} } }));
    // A route without a body reads its headers again when it is retried.
    const remove = track('delete', client.request('DELETE', '/api/products/spare'));
    const resolve = track('resolve', client.resolve({ paywallId: 'pw', userId: 'u' }));
    const health = track('healthz', fetch(`${server.url}/healthz`));

    assert.equal((await resolve).status, 200);
    assert.equal((await health).status, 200);
    for (const response of [await put, await remove]) {
      await problem(response, 503, 'database_unavailable');
      assert.equal(response.headers.get('retry-after'), '1');
    }
    // The event loop was free while the writes waited: the reads were answered first.
    assert.deepEqual(finished.slice(0, 2).sort(), ['healthz', 'resolve']);

    await release();
    assert.equal((await client.request('PUT', '/api/products/new', { body: { name: 'New', store_ids: {} } })).status, 201);
    assert.equal((await client.request('DELETE', '/api/products/spare')).status, 204);
  },
);

const oneEvent = (id: string) => ({ events: [{ id, type: 'screen_impression', paywall_id: 'pw', ts: Date.now() }] });

test(
  'an event batch under a held write lock answers 503 database_unavailable once it waited for the lock, then goes through',
  needs(SQLITE_BACKEND),
  async (t) => {
    const server = await startTestServer(t);
    // The writer thread has started (it handles no batch before): this is the steady state's path.
    assert.equal((await ingest(server.url, server.keys.sdk, oneEvent('first'))).accepted, 1);
    const release = await holdWriteLock(t, server.dbPath);
    const sent = performance.now();
    const blocked = sendEvents(server.url, oneEvent('held'), { ...JSON_TYPE, ...bearer(server.keys.sdk) });
    // The writer thread waits for the lock; the event loop is free meanwhile.
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    const refused = await blocked;
    const waited = performance.now() - sent;
    await problem(refused, 503, 'database_unavailable');
    assert.equal(refused.headers.get('retry-after'), '1');
    // The writer's connection waited for the lock (LOCK_WAIT_MS, 750 ms, as the server's own writes do) before it refused;
    // how much longer it took depends on the machine's load, so only the diagnostic says it.
    assert.ok(waited >= LOCK_WAIT_MS, `answered after ${Math.round(waited)} ms`);
    t.diagnostic(`answered after ${Math.round(waited)} ms`);
    await release();
    assert.equal((await ingest(server.url, server.keys.sdk, oneEvent('held'))).accepted, 1);
  },
);

test(
  'a batch sent while the writer thread cannot start for a held lock answers 503 database_unavailable; the retry after the lock starts a new thread and is stored',
  needs(SQLITE_BACKEND),
  async (t) => {
    const first = await startTestServer(t);
    const { keys, dbPath } = first;
    assert.equal((await ingest(first.url, keys.sdk, oneEvent('before'))).accepted, 1);
    await first.server.stop();

    // The lock is taken right after the server migrated (startServer is synchronous up to listening),
    // long before its writer thread has loaded its code: the thread's start waits for it, then fails.
    const lock = openTestDb(t, dbPath);
    const starting = restartServer(t, dbPath);
    lock.exec('BEGIN IMMEDIATE');
    const url = await starting;
    const refused = await sendEvents(url, oneEvent('during'), { ...JSON_TYPE, ...bearer(keys.sdk) });
    await problem(refused, 503, 'database_unavailable');
    assert.equal(refused.headers.get('retry-after'), '1');
    lock.exec('COMMIT');
    // At once, not after the thread's restart timer: the refused thread was let go.
    assert.deepEqual(await ingest(url, keys.sdk, oneEvent('during')), { accepted: 1, duplicates: 0, rejected: [] });
    assert.deepEqual((await exported(url, keys.secret)).map((event) => event.id).sort(), ['before', 'during']);
  },
);
