/** serve --retention-days: raw events received too long ago are deleted; the statistics stay. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serveConfig } from '../../src/config.ts';
import { ConfigError } from '../../src/config-error.ts';
import { openTestSql } from '../helpers/database.ts';
import { exported, fetchStats, ingest } from '../helpers/events.ts';
import { metric } from '../helpers/metrics.ts';
import { restartServer, serverOn, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

const DAY = 24 * 60 * 60 * 1000;

test('raw events received more than N days ago are deleted in the background; roll-ups stay', async (t) => {
  const first = await startTestServer(t);
  const { url, keys, dbPath } = first;
  const now = Date.now();
  // 2,500 events: more than one delete batch.
  const old = Array.from({ length: 2500 }, (_, i) => ({
    type: 'screen_impression',
    paywall_id: 'pw',
    ts: now - 10 * DAY,
    id: `old-${i}`,
    user_id: `u${i % 7}`,
  }));
  for (let i = 0; i < old.length; i += 1000) await ingest(url, keys.sdk, { events: old.slice(i, i + 1000) });
  await ingest(url, keys.sdk, { events: [{ type: 'purchase_complete', paywall_id: 'pw', ts: now - 10 * DAY, id: 'recent', user_id: 'u1' }] });
  const range = { from: String(now - 11 * DAY), to: String(now) };
  const before = await (await fetchStats(url, keys.secret, 'pw', range)).json();
  await first.server.stop();

  // Receipt times cannot be sent by a client: the test moves them back in the database, as if received three days ago.
  const db = openTestSql(t, dbPath);
  await db.run("UPDATE events SET received_at = ? WHERE event_id LIKE 'old-%'", now - 3 * DAY);

  const second = await restartServer(t, dbPath, { retentionDays: 2 });
  await until(async () => (await metric(second, keys.secret, 'paywalld_events_retention_deleted_total')) === 2500);
  assert.deepEqual(
    (await exported(second, keys.secret)).map((e) => e.id),
    ['recent'],
  );
  const after = await (await fetchStats(second, keys.secret, 'pw', range)).json();
  assert.deepEqual(after, before);
  assert.equal(after.variants[0].totals.counts.screen_impression, 2500);
  // SQLite's dedup and time-index entries went with them: only the kept event's are left (PostgreSQL's are indexes of events).
  if (db.backend === 'sqlite') for (const table of ['event_dedup', 'event_time_index']) assert.equal(await db.value(`SELECT count(*) FROM ${table}`), 1, table);
  // Events keep arriving and are kept; a deleted event sent again is stored again, as a new one.
  assert.equal((await ingest(second, keys.sdk, { events: [{ type: 'screen_impression', paywall_id: 'pw', ts: now, id: 'new' }, old[0]] })).accepted, 2);
  assert.equal((await exported(second, keys.secret)).length, 3);
});

test('the newest event is kept however old on SQLite, so the events stored after a pass get new seqs and are counted and exported after a restart', async (t) => {
  const first = await startTestServer(t);
  const { url, keys, dbPath } = first;
  const now = Date.now();
  const old = Array.from({ length: 1200 }, (_, i) => ({ type: 'screen_impression', paywall_id: 'pw', ts: now - 10 * DAY, id: `old-${i}`, user_id: 'u' }));
  for (let i = 0; i < old.length; i += 1000) await ingest(url, keys.sdk, { events: old.slice(i, i + 1000) });
  await first.server.stop();
  const db = openTestSql(t, dbPath);
  await db.run('UPDATE events SET received_at = ?', now - 3 * DAY);
  const newestSeq = await db.value('SELECT max(seq) FROM events');

  // SQLite keeps the newest row, whose seq it would hand out again; PostgreSQL's identity column never does (docs/operations/scale-out.md).
  const kept = db.backend === 'sqlite' ? ['old-1199'] : [];
  const second = await serverOn(t, dbPath, { retentionDays: 2 });
  await until(async () => (await metric(second.url, keys.secret, 'paywalld_events_retention_deleted_total')) === 1200 - kept.length);
  assert.deepEqual(
    (await exported(second.url, keys.secret)).map((e) => e.id),
    kept,
  );
  const fresh = Array.from({ length: 10 }, (_, i) => ({ type: 'purchase_complete', paywall_id: 'pw', ts: now, id: `new-${i}`, user_id: 'v' }));
  assert.equal((await ingest(second.url, keys.sdk, { events: fresh })).accepted, 10);
  await second.server.stop();
  assert.ok(((await db.value('SELECT min(seq) FROM events WHERE event_id = ?', 'new-0')) as number) > (newestSeq as number));
  const third = await restartServer(t, dbPath);
  assert.equal((await exported(third, keys.secret)).length, 10 + kept.length);
  const stats = await (await fetchStats(third, keys.secret, 'pw', { from: String(now - 11 * DAY), to: String(now) })).json();
  assert.equal(stats.variants[0].totals.counts.purchase_complete, 10);
  assert.equal((await ingest(third, keys.sdk, { events: fresh })).duplicates, 10);
});

test('rows received "in the future" (a clock that jumped ahead) do not stop retention from deleting the old rows after them', async (t) => {
  const first = await startTestServer(t);
  const { url, keys, dbPath } = first;
  const now = Date.now();
  // Received first, while the clock ran a month ahead: more than a delete window of them.
  const ahead = Array.from({ length: 1500 }, (_, i) => ({ type: 'screen_impression', paywall_id: 'pw', ts: now, id: `ahead-${i}` }));
  // Received after the clock was set right, long enough ago to be deleted.
  const old = Array.from({ length: 2500 }, (_, i) => ({ type: 'screen_impression', paywall_id: 'pw', ts: now - 10 * DAY, id: `old-${i}` }));
  for (const events of [ahead, old]) {
    for (let i = 0; i < events.length; i += 1000) await ingest(url, keys.sdk, { events: events.slice(i, i + 1000) });
  }
  await ingest(url, keys.sdk, { events: [{ type: 'screen_impression', paywall_id: 'pw', ts: now, id: 'recent' }] });
  await first.server.stop();

  const db = openTestSql(t, dbPath);
  await db.run("UPDATE events SET received_at = ? WHERE event_id LIKE 'ahead-%'", now + 30 * DAY);
  await db.run("UPDATE events SET received_at = ? WHERE event_id LIKE 'old-%'", now - 3 * DAY);

  const second = await restartServer(t, dbPath, { retentionDays: 2 });
  await until(async () => (await metric(second, keys.secret, 'paywalld_events_retention_deleted_total')) === 2500);
  const left = (await exported(second, keys.secret)).map((e) => e.id as string);
  assert.equal(left.length, 1501);
  assert.ok(left.every((id) => id.startsWith('ahead-') || id === 'recent'));
});

test('without --retention-days nothing is deleted', async (t) => {
  const { url, keys, dbPath, server } = await startTestServer(t);
  await ingest(url, keys.sdk, { events: [{ type: 'screen_impression', paywall_id: 'pw', ts: Date.now() - 400 * DAY, id: 'ancient' }] });
  await openTestSql(t, dbPath).run('UPDATE events SET received_at = ?', Date.now() - 400 * DAY);
  assert.equal(server.ctx.config.retentionDays, undefined);
  assert.equal(await metric(url, keys.secret, 'paywalld_events_retention_deleted_total'), 0);
  assert.deepEqual(
    (await exported(url, keys.secret)).map((e) => e.id),
    ['ancient'],
  );
});

test('--retention-days takes a whole number of days from 1 (or PAYWALLD_RETENTION_DAYS)', () => {
  assert.equal(serveConfig({ 'retention-days': '30' }, {}).retentionDays, 30);
  assert.equal(serveConfig({}, { 'retention-days': '7' }).retentionDays, 7);
  assert.equal(serveConfig({ 'retention-days': '3' }, { 'retention-days': '7' }).retentionDays, 3);
  assert.equal(serveConfig({}, {}).retentionDays, undefined);
  for (const bad of ['0', '-1', '1.5', 'week', '']) {
    assert.throws(() => serveConfig({ 'retention-days': bad }, {}), ConfigError, bad);
  }
});
