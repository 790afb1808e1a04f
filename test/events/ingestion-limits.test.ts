/**
 * The ingestion limits on names the derived state keeps (src/analytics/limits.ts), here the
 * team's, which names sent with a secret key count in: past one, an event is refused by index with
 * the limit's code before anything is stored, the rest of its batch is stored, nothing fails after
 * a commit, and another project ingests and reads as before, across a restart. A database that
 * holds what no segment can code (stored by an older version) starts, says so, and serves. Names
 * sent without a secret key: test/events/public-names.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { Logger } from '../../src/log.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { openTestSql } from '../helpers/database.ts';
import { exported, fetchStats, ingest, JSON_TYPE, publishPaywall, sendEvents } from '../helpers/events.ts';
import type { Json } from '../helpers/json.ts';
import { needs, SQLITE_BACKEND } from '../helpers/requirements.ts';
import { bearer, restartServer, serverOn, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

const PAYWALLS = 1000;
const VARIANTS_PER_PAYWALL = 1000;
const AUDIENCES_PER_PAYWALL = 1000;
const EVENT_TYPES = 1000;

/** Sends events in batches of 1000 (keyless when key is undefined) and returns every answer's rejections, by index in `events`. */
async function sendAll(url: string, key: string | undefined, events: Json[]): Promise<{ accepted: number; rejected: Json[] }> {
  let accepted = 0;
  const rejected: Json[] = [];
  for (let from = 0; from < events.length; from += 1000) {
    const response = await sendEvents(url, { events: events.slice(from, from + 1000) }, key === undefined ? JSON_TYPE : { ...JSON_TYPE, ...bearer(key) });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    const result = JSON.parse(text);
    accepted += result.accepted;
    for (const r of result.rejected) rejected.push({ ...r, index: r.index + from });
  }
  return { accepted, rejected };
}

function codes(rejected: Json[]): string[] {
  return [...new Set(rejected.map((r) => r.code))];
}

test('events of more distinct variants than a paywall may have are refused before the commit; a restart and other projects are unaffected', async (t) => {
  const { url, keys, server, dbPath } = await startTestServer(t);
  await publishPaywall(url, keys.secret, 'pw');
  const other = await server.ctx.projects.create('other', TEST_CHANGE);
  await server.ctx.auth.reload();
  const ts = Date.now();
  const extra = 50;
  const events = Array.from({ length: VARIANTS_PER_PAYWALL + extra }, (_, i) => ({
    type: 'screen_impression',
    paywall_id: 'pw',
    ts,
    id: `e${i}`,
    user_id: `u${i}`,
    variant_id: `v${i}`,
  }));
  const { accepted, rejected } = await sendAll(url, keys.secret, events);
  assert.equal(accepted, VARIANTS_PER_PAYWALL);
  assert.deepEqual(codes(rejected), ['too_many_variants']);
  assert.deepEqual(
    rejected.map((r) => r.index),
    Array.from({ length: extra }, (_, i) => VARIANTS_PER_PAYWALL + i),
  );
  assert.match(rejected[0]!.message, /1000 distinct variant ids/);
  // A known variant is still taken, and a refused event sent again is refused again, never stored.
  const again = await sendAll(url, keys.secret, [events[0]!, { ...events[1]!, id: 'fresh' }, events[VARIANTS_PER_PAYWALL]!]);
  assert.equal(again.accepted, 1);
  assert.deepEqual(
    again.rejected.map((r) => [r.index, r.code]),
    [[2, 'too_many_variants']],
  );
  assert.equal((await exported(url, keys.secret)).length, VARIANTS_PER_PAYWALL + 1);
  await server.stop();

  const restarted = await restartServer(t, dbPath);
  assert.equal((await ingest(restarted, other.keys.sdk, { events: [{ type: 'screen_impression', paywall_id: 'pw', ts, user_id: 'x' }] })).accepted, 1);
  const stats = await fetchStats(restarted, keys.secret, 'pw');
  assert.equal(stats.status, 200);
  assert.equal((await stats.json()).variants.length, VARIANTS_PER_PAYWALL);
  const otherStats = await fetchStats(restarted, other.keys.secret, 'pw');
  assert.equal((await otherStats.json()).variants[0].totals.counts.screen_impression, 1);
  // Still refused after the restart: the limit counts what the derived state loaded.
  const after = await sendAll(restarted, keys.secret, [events[VARIANTS_PER_PAYWALL + 1]!]);
  assert.deepEqual(codes(after.rejected), ['too_many_variants']);
});

test('a database holding more variants than a segment can code (stored before the limits) starts, logs it and serves', async (t) => {
  const { keys, server, dbPath } = await startTestServer(t);
  const other = await server.ctx.projects.create('other', TEST_CHANGE);
  await server.ctx.auth.reload();
  await server.stop();
  // What the old writer stored before it failed: 65,540 distinct variants of one paywall's default segment.
  const db = openTestSql(t, dbPath);
  const ts = Date.now();
  await db.run(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 65539)
     INSERT INTO events (project_id, paywall_id, type, ts, client_ts, received_at, user_id, variant_id)
     SELECT ?, 'pw', 'screen_impression', ?, ?, ?, 'u' || (i % 100), 'v' || i FROM n`,
    server.bootstrap!.project.id,
    ts,
    ts,
    ts,
  );
  const lines: string[] = [];
  const log = new Logger('warn', { sink: (text) => lines.push(...text.trim().split('\n')) });
  const { url: restartedUrl } = await serverOn(t, dbPath, {}, log);
  const stats = await fetchStats(restartedUrl, keys.secret, 'pw');
  assert.equal(stats.status, 200);
  await until(() => lines.some((line) => line.includes('left out of the experiment results')));
  assert.match(lines.find((line) => line.includes('left out of the experiment results'))!, /"events":5\b/);
  assert.equal((await ingest(restartedUrl, other.keys.sdk, { events: [{ type: 'purchase_start', paywall_id: 'pw', ts, user_id: 'u' }] })).accepted, 1);
  const otherStats = await fetch(`${restartedUrl}/api/paywalls/pw/stats`, { headers: bearer(other.keys.secret) });
  assert.equal((await otherStats.json()).variants[0].totals.counts.purchase_start, 1);
});

test('audiences, paywall ids and event types past their limits are refused per event; known ones are still taken', async (t) => {
  const { url, keys } = await startTestServer(t);
  const ts = Date.now();
  const audiences = Array.from({ length: AUDIENCES_PER_PAYWALL + 1 }, (_, i) => ({
    type: 'screen_impression',
    paywall_id: 'pw',
    ts,
    user_id: 'u',
    variant_id: 'a',
    audience: `aud${i}`,
  }));
  // The default split is a segment too: it takes one of the paywall's places.
  const first = await sendAll(url, keys.secret, [{ type: 'screen_impression', paywall_id: 'pw', ts, user_id: 'u', variant_id: 'a' }, ...audiences]);
  assert.equal(first.accepted, AUDIENCES_PER_PAYWALL);
  assert.deepEqual(
    first.rejected.map((r) => [r.index, r.code]),
    [
      [AUDIENCES_PER_PAYWALL, 'too_many_audiences'],
      [AUDIENCES_PER_PAYWALL + 1, 'too_many_audiences'],
    ],
  );
  // An event that opens no segment (no user) carries any audience.
  assert.equal((await sendAll(url, keys.secret, [{ type: 'paywall_close', paywall_id: 'pw', ts, audience: 'new' }])).accepted, 1);

  const paywalls = Array.from({ length: PAYWALLS + 1 }, (_, i) => ({ type: 'paywall_close', paywall_id: `p${i}`, ts }));
  const byPaywall = await sendAll(url, keys.secret, paywalls);
  // 'pw' took one of the places already.
  assert.equal(byPaywall.accepted, PAYWALLS - 1);
  assert.deepEqual(codes(byPaywall.rejected), ['too_many_paywalls']);
  assert.deepEqual(
    byPaywall.rejected.map((r) => r.index),
    [PAYWALLS - 1, PAYWALLS],
  );

  const types = Array.from({ length: EVENT_TYPES + 1 }, (_, i) => ({ type: `custom_${i}`, paywall_id: 'pw', ts }));
  const byType = await sendAll(url, keys.secret, types);
  // screen_impression and paywall_close were stored already.
  assert.equal(byType.accepted, EVENT_TYPES - 2);
  assert.deepEqual(codes(byType.rejected), ['too_many_event_types']);
  assert.equal((await sendAll(url, keys.secret, [{ type: 'screen_impression', paywall_id: 'p0', ts }])).accepted, 1);
});

test('a checkpoint rewrites the day rows of the types that changed, not every type of the group', needs(SQLITE_BACKEND), async (t) => {
  const { url, keys, server, dbPath } = await startTestServer(t);
  const ts = Date.now();
  const types = Array.from({ length: 200 }, (_, i) => ({ type: `custom_${i}`, paywall_id: 'pw', ts, user_id: 'u' }));
  assert.equal((await ingest(url, keys.secret, { events: types })).accepted, types.length);
  // The stop writes a checkpoint; then every later write of a day row is counted.
  await server.stop();
  const db = openDatabase(dbPath, { mustExist: true });
  db.exec(`CREATE TABLE test_rewrites (type TEXT NOT NULL);
           CREATE TRIGGER test_count_rewrites AFTER UPDATE ON event_day_sets BEGIN INSERT INTO test_rewrites VALUES (new.type); END;
           CREATE TRIGGER test_count_inserts AFTER INSERT ON event_day_sets BEGIN INSERT INTO test_rewrites VALUES (new.type); END;`);
  db.close();
  const restarted = await serverOn(t, dbPath);
  assert.equal((await ingest(restarted.url, keys.secret, { events: [{ type: 'custom_7', paywall_id: 'pw', ts, user_id: 'v' }] })).accepted, 1);
  await restarted.server.stop();
  const check = openDatabase(dbPath, { mustExist: true });
  const rewritten = check.prepare('SELECT type FROM test_rewrites ORDER BY type').pluck().all();
  check.close();
  assert.deepEqual(rewritten, ['*', 'custom_7']);
});
