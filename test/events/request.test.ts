/** Whole-request rules of POST /api/sdk/events: each failure stores nothing. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exported, ingest, JSON_TYPE, numbered, sendEvents } from '../helpers/events.ts';
import { problem } from '../helpers/problem.ts';
import { responseHeadWhileSending } from '../helpers/raw.ts';
import { bearer, startTestServer } from '../helpers/server.ts';

test("a batch with an sdk key is stored for the key's project and answered with counts", async (t) => {
  const { url, keys } = await startTestServer(t);
  const result = await ingest(url, keys.sdk, { events: numbered('a', 3) });
  assert.deepEqual(result, { accepted: 3, duplicates: 0, rejected: [] });
  assert.equal((await exported(url, keys.secret)).length, 3);
});

test('a secret key may send events too', async (t) => {
  const { url, keys } = await startTestServer(t);
  assert.equal((await ingest(url, keys.secret, { events: numbered('a', 1) })).accepted, 1);
});

test('a wrong content type is 415 and stores nothing', async (t) => {
  const { url, keys } = await startTestServer(t);
  const response = await sendEvents(url, { events: numbered('a', 2) }, { 'content-type': 'text/plain', ...bearer(keys.sdk) });
  await problem(response, 415, 'unsupported_media_type');
  assert.deepEqual(await exported(url, keys.secret), []);
});

test('malformed JSON is 400 malformed_json and stores nothing', async (t) => {
  const { url, keys } = await startTestServer(t);
  const body = JSON.stringify({ events: numbered('a', 2) }).slice(0, -2);
  await problem(await sendEvents(url, body, { ...JSON_TYPE, ...bearer(keys.sdk) }), 400, 'malformed_json');
  assert.deepEqual(await exported(url, keys.secret), []);
});

test('a body without an events array is 400 invalid_batch', async (t) => {
  const { url, keys } = await startTestServer(t);
  const headers = { ...JSON_TYPE, ...bearer(keys.sdk) };
  for (const body of [{}, { events: 'screen_impression' }, [numbered('a', 1)], 'null', { events: numbered('a', 1), extra: 'do-not-echo-me' }]) {
    const found = await problem(await sendEvents(url, body, headers), 400, 'invalid_batch');
    assert.doesNotMatch(JSON.stringify(found), /do-not-echo-me|extra/);
  }
  assert.deepEqual(await exported(url, keys.secret), []);
});

test('an empty events array is 400 invalid_batch', async (t) => {
  const { url, keys } = await startTestServer(t);
  const found = await problem(await sendEvents(url, { events: [] }, { ...JSON_TYPE, ...bearer(keys.sdk) }), 400, 'invalid_batch');
  assert.match(found.detail, /empty/);
});

test('a sent_at that is not epoch milliseconds is 400 invalid_batch and stores nothing', async (t) => {
  const { url, keys } = await startTestServer(t);
  for (const sent_at of [Math.floor(Date.now() / 1000), 'now', 1.5e12 + 0.5]) {
    await problem(await sendEvents(url, { events: numbered('a', 1), sent_at }, { ...JSON_TYPE, ...bearer(keys.sdk) }), 400, 'invalid_batch');
  }
  assert.deepEqual(await exported(url, keys.secret), []);
});

test('more than 1,000 events is 413 too_many_events and stores none of them', async (t) => {
  const { url, keys } = await startTestServer(t);
  const response = await sendEvents(url, { events: numbered('a', 1001) }, { ...JSON_TYPE, ...bearer(keys.sdk) });
  await problem(response, 413, 'too_many_events');
  assert.deepEqual(await exported(url, keys.secret), []);
  // Exactly 1,000 is fine.
  assert.equal((await ingest(url, keys.sdk, { events: numbered('a', 1000) })).accepted, 1000);
});

test('a body over 1 MiB is 413 body_too_large, answered without reading the rest', async (t) => {
  const { url, keys, server } = await startTestServer(t);
  const padding = 'x'.repeat(1100);
  const big = { events: numbered('a', 1000, { properties: { padding } }) };
  assert.ok(JSON.stringify(big).length > 1024 * 1024);
  await problem(await sendEvents(url, big, { ...JSON_TYPE, ...bearer(keys.sdk) }), 413, 'body_too_large');

  // Chunked, no Content-Length: the answer comes once 1 MiB has arrived, long before the 64 MiB the client announces it has.
  const chunk = 'x'.repeat(64 * 1024);
  const answer = await responseHeadWhileSending(
    server.port,
    `POST /api/sdk/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${keys.sdk}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    Array.from({ length: 17 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`),
  );
  assert.match(answer, /^HTTP\/1.1 413 /);
  assert.deepEqual(await exported(url, keys.secret), []);
});

test('an unknown or revoked key is 401 even though keys are optional', async (t) => {
  const { url, keys } = await startTestServer(t);
  const unknown = await sendEvents(url, { events: numbered('a', 1) }, { ...JSON_TYPE, ...bearer(`pwk_sdk_${'A'.repeat(32)}`) });
  await problem(unknown, 401, 'invalid_api_key');
  const malformed = await sendEvents(url, { events: numbered('a', 1) }, { ...JSON_TYPE, authorization: 'Basic eDp5' });
  await problem(malformed, 401, 'invalid_authorization');
  assert.deepEqual(await exported(url, keys.secret), []);
});

test('serve --require-key refuses keyless batches with 401 and accepts keyed ones', async (t) => {
  const { url, keys } = await startTestServer(t, { requireKey: true });
  await problem(await sendEvents(url, { events: numbered('a', 1) }), 401, 'missing_api_key');
  assert.equal((await ingest(url, keys.sdk, { events: numbered('b', 1) })).accepted, 1);
  assert.deepEqual(
    (await exported(url, keys.secret)).map((e) => e.id),
    ['b0'],
  );
});
