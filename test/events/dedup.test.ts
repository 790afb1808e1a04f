/** Deduplication by event id: within a batch, across batches, across restarts, never across projects, exact when id hashes collide. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { idHash } from '../../src/analytics/id-hash.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { exported, ingest, numbered, openTestDb } from '../helpers/events.ts';
import { needs, SQLITE_BACKEND } from '../helpers/requirements.ts';
import { restartServer, serverOn, startTestServer } from '../helpers/server.ts';

test('an id repeated within one batch is stored once and counted as a duplicate', async (t) => {
  const { url, keys } = await startTestServer(t);
  const [first] = numbered('same', 1);
  const result = await ingest(url, keys.sdk, { events: [first, first, { ...first }, ...numbered('other', 2)] });
  assert.deepEqual(result, { accepted: 3, duplicates: 2, rejected: [] });
  assert.deepEqual((await exported(url, keys.secret)).map((e) => e.id).sort(), ['other0', 'other1', 'same0']);
});

test('a retried batch is all duplicates, even with a new sent_at: the dedup key never uses the corrected time', async (t) => {
  const { url, keys } = await startTestServer(t);
  const events = numbered('retry', 50);
  assert.deepEqual(await ingest(url, keys.sdk, { events, sent_at: Date.now() - 5000 }), { accepted: 50, duplicates: 0, rejected: [] });
  assert.deepEqual(await ingest(url, keys.sdk, { events, sent_at: Date.now() }), { accepted: 0, duplicates: 50, rejected: [] });
  assert.deepEqual(await ingest(url, keys.sdk, { events: [...events.slice(0, 10), ...numbered('fresh', 5)] }), {
    accepted: 5,
    duplicates: 10,
    rejected: [],
  });
  assert.equal((await exported(url, keys.secret)).length, 55);
});

test('the same instant in seconds or in milliseconds is the same dedup key', async (t) => {
  const { url, keys } = await startTestServer(t);
  const seconds = Math.floor(Date.now() / 1000);
  const event = { type: 'screen_impression', paywall_id: 'pw', id: 'unit', ts: seconds };
  await ingest(url, keys.sdk, { events: [event] });
  // The same instant in ms is the same stored time, so it is the same key.
  assert.deepEqual(await ingest(url, keys.sdk, { events: [{ ...event, ts: seconds * 1000 }] }), { accepted: 0, duplicates: 1, rejected: [] });
});

test('events without an id are never duplicates', async (t) => {
  const { url, keys } = await startTestServer(t);
  const event = { type: 'screen_impression', paywall_id: 'pw', ts: Date.now() };
  assert.equal((await ingest(url, keys.sdk, { events: [event, event] })).accepted, 2);
  assert.equal((await ingest(url, keys.sdk, { events: [event] })).accepted, 1);
  assert.equal((await exported(url, keys.secret)).length, 3);
});

test('the same id in two projects is two events', async (t) => {
  const { url, keys, server } = await startTestServer(t);
  const other = await server.ctx.projects.create('other', TEST_CHANGE);
  await server.ctx.auth.reload();
  const events = numbered('shared', 3);
  assert.equal((await ingest(url, keys.sdk, { events })).accepted, 3);
  assert.equal((await ingest(url, other.keys.sdk, { events })).accepted, 3);
  assert.equal((await exported(url, other.keys.secret)).length, 3);
  assert.equal((await exported(url, keys.secret)).length, 3);
});

test('duplicates do not count twice in the statistics', async (t) => {
  const { url, keys } = await startTestServer(t);
  const events = numbered('s', 4, { user_id: 'u1', variant_id: 'a' });
  await ingest(url, keys.sdk, { events });
  await ingest(url, keys.sdk, { events });
  const stats = await (await fetch(`${url}/api/paywalls/pw/stats`, { headers: { authorization: `Bearer ${keys.secret}` } })).json();
  assert.equal(stats.variants[0].totals.counts.screen_impression, 4);
});

test(
  'two ids whose hashes collide at the same client time are two events; each is still a duplicate of itself, before and after a restart',
  needs(SQLITE_BACKEND),
  async (t) => {
    const { url, keys, dbPath, server } = await startTestServer(t);
    const ts = Date.now() - 1000;
    const a = { type: 'screen_impression', paywall_id: 'pw', ts, id: 'id-a', user_id: 'u1' };
    const b = { ...a, id: 'id-b' };
    assert.equal((await ingest(url, keys.sdk, { events: [a] })).accepted, 1);
    await server.stop();
    // event_dedup keeps a 52-bit hash of each id; a real collision is too rare to find, so the test adds the
    // entry a colliding id-a would have had: id-b's hash at id-a's client time, pointing at id-a's row.
    const db = openTestDb(t, dbPath);
    const [projectNo, seqA] = db.prepare('SELECT project_no, seq FROM event_dedup').raw().get() as [number, number];
    db.prepare('INSERT INTO event_dedup (project_no, client_ts, id_hash, seq) VALUES (?, ?, ?, ?)').run(projectNo, ts, idHash('id-b'), seqA);

    const second = await serverOn(t, dbPath);
    // id-b matches the entry's hash, but the stored row's id is id-a: a new event.
    assert.deepEqual(await ingest(second.url, keys.sdk, { events: [b] }), { accepted: 1, duplicates: 0, rejected: [] });
    assert.deepEqual(await ingest(second.url, keys.sdk, { events: [a, b] }), { accepted: 0, duplicates: 2, rejected: [] });
    await second.server.stop();
    // After the checkpoint both entries carry id-b's hash; the check against the rows still tells them apart.
    assert.equal(db.prepare('SELECT count(*) FROM event_dedup WHERE id_hash = ?').pluck().get(idHash('id-b')), 2);
    const third = await restartServer(t, dbPath);
    assert.deepEqual(await ingest(third, keys.sdk, { events: [a, b, { ...b, id: 'id-c' }] }), { accepted: 1, duplicates: 2, rejected: [] });
    assert.deepEqual(
      (await exported(third, keys.secret)).map((e) => e.id),
      ['id-a', 'id-b', 'id-c'],
    );
  },
);

test('a project that sends only events without ids has them exported in time order after a restart (from the time index)', async (t) => {
  const { url, keys, dbPath, server, backend } = await startTestServer(t);
  const now = Date.now();
  const events = [3, 1, 2].map((minutes) => ({ type: 'screen_impression', paywall_id: 'pw', ts: now - minutes * 60_000 }));
  assert.equal((await ingest(url, keys.sdk, { events })).accepted, 3);
  await server.stop();
  const restarted = await restartServer(t, dbPath);
  assert.deepEqual(
    (await exported(restarted, keys.secret)).map((e) => e.ts),
    [now - 3 * 60_000, now - 2 * 60_000, now - 60_000],
  );
  // SQLite answers it from its time index; PostgreSQL from the index events_by_time, of events itself.
  if (backend === 'sqlite') assert.equal(openTestDb(t, dbPath).prepare('SELECT count(*) FROM event_time_index').pluck().get(), 3);
});
