/** Deduplication by event id: within a batch, across batches, and never across projects. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer } from '../helpers/server.ts';
import { exported, ingest, numbered } from './client.ts';

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
  const other = server.ctx.projects.create('other');
  server.ctx.auth.reload();
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
