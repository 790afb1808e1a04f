/**
 * The writer thread: group commit of concurrent requests, the bounded queue,
 * a failed transaction, and shutdown. A test holds what event transactions
 * wait for from a connection of its own (as a second process could: SQLite's
 * write lock, PostgreSQL's events lock) to keep events queued for as long as
 * it needs them queued.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { openTestSql } from '../helpers/database.ts';
import { exported, fetchStats, ingest, JSON_TYPE, numbered, sendEvents } from '../helpers/events.ts';
import { metric } from '../helpers/metrics.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

test('concurrent requests are all committed and each answered with its own counts', async (t) => {
  const { url, keys } = await startTestServer(t);
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => ingest(url, keys.sdk, { events: numbered(`r${i}-`, 50) })));
  for (const result of results) assert.deepEqual(result, { accepted: 50, duplicates: 0, rejected: [] });
  // Two requests racing with the same ids: one stores them, the other sees duplicates.
  const same = numbered('race', 30);
  const [a, b] = await Promise.all([ingest(url, keys.sdk, { events: same }), ingest(url, keys.sdk, { events: same })]);
  assert.equal(a.accepted + b.accepted, 30);
  assert.equal(a.duplicates + b.duplicates, 30);
  assert.equal((await exported(url, keys.secret)).length, 1030);
});

test('a full queue answers 503 ingestion_overloaded with Retry-After and stores nothing of that batch', async (t) => {
  const { url, keys, dbPath } = await startTestServer(t, { eventQueueLimit: 1000 });
  await ingest(url, keys.sdk, { events: numbered('warm', 1) });
  const release = await openTestSql(t, dbPath).holdEventWrites();
  const headers = { ...JSON_TYPE, ...bearer(keys.sdk) };
  const requests = ['a', 'b', 'c'].map((prefix) => sendEvents(url, { events: numbered(prefix, 400) }, headers));
  // Two batches wait for the lock (800 events); the third would make 1,200.
  const first = await Promise.race(requests);
  const body = await problem(first, 503, 'ingestion_overloaded');
  assert.equal(first.headers.get('retry-after'), '1');
  assert.doesNotMatch(JSON.stringify(body), /"events"/);
  await release();
  const statuses = (await Promise.all(requests)).map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, 200, 503]);
  assert.equal((await exported(url, keys.secret)).length, 801);
});

test('the queue is bounded in bytes too: large events answer 503 ingestion_overloaded before the event count is reached, and none is lost', async (t) => {
  // Each batch: 100 events with about 2,000 characters of properties, over 200 KB of event data.
  const { url, keys, dbPath } = await startTestServer(t, { eventQueueLimit: 100_000, eventQueueBytes: 500_000 });
  await ingest(url, keys.sdk, { events: numbered('warm', 1) });
  const release = await openTestSql(t, dbPath).holdEventWrites();
  const headers = { ...JSON_TYPE, ...bearer(keys.sdk) };
  const properties = { note: 'x'.repeat(2000) };
  const batch = (prefix: string) => ({ events: numbered(prefix, 100, { properties }) });
  const requests = ['a', 'b', 'c'].map((prefix) => sendEvents(url, batch(prefix), headers));
  // Two batches wait for the lock (about 430 KB); the third would pass 500,000 bytes with only 300 events queued.
  const first = await Promise.race(requests);
  await problem(first, 503, 'ingestion_overloaded');
  assert.equal(first.headers.get('retry-after'), '1');
  await release();
  const statuses = (await Promise.all(requests)).map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, 200, 503]);
  // The refused batch, sent again once the queue drained, is stored whole; nothing acknowledged is missing.
  const refused = ['a', 'b', 'c'][(await Promise.all(requests)).findIndex((r) => r.status === 503)]!;
  const retry = await ingest(url, keys.sdk, batch(refused));
  assert.equal(retry.accepted, 100);
  const stored = await exported(url, keys.secret);
  assert.equal(stored.length, 301);
  for (const prefix of ['a', 'b', 'c']) assert.equal(stored.filter((e) => String(e.id).startsWith(prefix)).length, 100, prefix);
});

test('a transaction that fails answers 503 ingestion_failed and stores nothing; the retry stores everything', async (t) => {
  const { url, keys, dbPath } = await startTestServer(t);
  await ingest(url, keys.sdk, { events: numbered('warm', 1) });
  const db = openTestSql(t, dbPath);
  // A disk error cannot be ordered on demand; a trigger that aborts the insert fails the transaction the same way.
  if (db.backend === 'sqlite') {
    await db.run("CREATE TRIGGER fail_boom BEFORE INSERT ON events WHEN NEW.paywall_id = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END");
  } else {
    await db.run(
      "CREATE FUNCTION fail_boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.paywall_id = 'boom' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$",
    );
    await db.run('CREATE TRIGGER fail_boom BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION fail_boom()');
  }
  const batch = { events: [...numbered('keep', 3), ...numbered('boom', 1, { paywall_id: 'boom' })] };
  const failed = await sendEvents(url, batch, { ...JSON_TYPE, ...bearer(keys.sdk) });
  await problem(failed, 503, 'ingestion_failed');
  assert.equal(failed.headers.get('retry-after'), '1');
  assert.equal((await exported(url, keys.secret)).length, 1);
  await db.run(db.backend === 'sqlite' ? 'DROP TRIGGER fail_boom' : 'DROP TRIGGER fail_boom ON events');
  assert.deepEqual(await ingest(url, keys.sdk, batch), { accepted: 4, duplicates: 0, rejected: [] });
  // The statistics count the stored events only: the rolled-back ones left no trace in memory either.
  const counted = async (paywallId: string) => {
    const body = (await (await fetchStats(url, keys.secret, paywallId)).json()) as { variants: { totals: { counts: Record<string, number> } }[] };
    return body.variants.reduce((sum, variant) => sum + variant.totals.counts.screen_impression!, 0);
  };
  assert.equal((await counted('pw')) + (await counted('boom')), 5);
});

test('stopping the server commits every queued event and answers its request before the database closes', async (t) => {
  const { url, keys, server, dbPath } = await startTestServer(t, { drainTimeoutMs: 0 });
  await ingest(url, keys.sdk, { events: numbered('warm', 1) });
  const db = openTestSql(t, dbPath);
  const release = await db.holdEventWrites();
  const headers = { ...JSON_TYPE, ...bearer(keys.sdk) };
  const sent = ['a', 'b', 'c', 'd'].map((prefix) => sendEvents(url, { events: numbered(prefix, 200) }, headers));
  await until(async () => (await metric(url, keys.secret, 'paywalld_events_queued')) === 800);
  // The drain timeout is 0: stop() goes straight to the shutdown hooks while the writer still waits for the lock.
  const stopping = server.stop();
  await release();
  await stopping;
  for (const response of await Promise.all(sent)) assert.deepEqual(await response.json(), { accepted: 200, duplicates: 0, rejected: [] });
  assert.equal(await db.value('SELECT count(*) FROM events'), 801);
});

test('/metrics counts stored, duplicate and rejected events, and transactions', async (t) => {
  const { url, keys } = await startTestServer(t);
  const events = numbered('m', 5);
  await ingest(url, keys.sdk, { events: [...events, { type: 'Bad', paywall_id: 'pw', ts: Date.now() }] });
  await ingest(url, keys.sdk, { events });
  assert.equal(await metric(url, keys.secret, 'paywalld_events_stored_total'), 5);
  assert.equal(await metric(url, keys.secret, 'paywalld_events_duplicates_total'), 5);
  assert.equal(await metric(url, keys.secret, 'paywalld_events_rejected_total{code="invalid_type"}'), 1);
  assert.equal(await metric(url, keys.secret, 'paywalld_event_transactions_total'), 2);
  assert.equal(await metric(url, keys.secret, 'paywalld_events_queued'), 0);
  // Each transaction held one request's 5 rows (duplicates are rows handed to the writer too).
  assert.equal(await metric(url, keys.secret, 'paywalld_event_transaction_rows_count'), 2);
  assert.equal(await metric(url, keys.secret, 'paywalld_event_transaction_rows_sum'), 10);
  assert.equal(await metric(url, keys.secret, 'paywalld_event_transaction_rows_bucket{le="1"}'), 0);
  assert.equal(await metric(url, keys.secret, 'paywalld_event_transaction_rows_bucket{le="10"}'), 2);
});

test('the writer thread runs at a lower scheduling priority than the request thread', async (t) => {
  const { url, keys } = await startTestServer(t);
  await ingest(url, keys.sdk, { events: numbered('nice', 1) });
  // Field 19 of /proc/<pid>/task/<tid>/stat is the thread's nice value (fields after the parenthesised name).
  const niceOf = (tid: string) => {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  };
  // The main thread's id is the process id (not always the first listed: thread ids wrap around with pids).
  assert.equal(niceOf(String(process.pid)), 0);
  const nice = fs.readdirSync('/proc/self/task').map(niceOf);
  assert.ok(nice.includes(10), `thread nice values: ${nice.join(' ')}`);
});
