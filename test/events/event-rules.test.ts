/** Per-event rules: each rejection code, the units of ts and the clock-skew correction. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exported, ingest } from '../helpers/events.ts';
import type { Json } from '../helpers/json.ts';
import { startTestServer } from '../helpers/server.ts';

const HOUR = 60 * 60 * 1000;

function event(extra: Json = {}): Json {
  return { type: 'screen_impression', paywall_id: 'pw', ts: Date.now(), ...extra };
}

test('per-event failures do not sink the batch: accepted + duplicates + rejected = events sent', async (t) => {
  const { url, keys } = await startTestServer(t);
  // A duplicate is the same id at the same client time: both copies carry one ts.
  const ts = Date.now();
  const events = [
    event({ id: 'ok-1', ts }),
    event({ type: 'Bad Type' }),
    event({ id: 'ok-1', ts }),
    event({ ts: 'yesterday' }),
    event({ id: 'ok-2', user_id: 'u1' }),
  ];
  const result = await ingest(url, keys.sdk, { events });
  assert.equal(result.accepted, 2);
  assert.equal(result.duplicates, 1);
  assert.deepEqual(
    result.rejected.map((r) => [r.index, r.code]),
    [
      [1, 'invalid_type'],
      [3, 'invalid_event'],
    ],
  );
  assert.equal(result.accepted + result.duplicates + result.rejected.length, events.length);
  assert.deepEqual((await exported(url, keys.secret)).map((e) => e.id).sort(), ['ok-1', 'ok-2']);
});

test('invalid_event: stored text holding NUL or a lone surrogate is refused by index, the rest of the batch stored', async (t) => {
  const { url, keys } = await startTestServer(t);
  const events = [
    event({ id: 'ok-1', user_id: 'u1' }),
    event({ id: 'nul', user_id: 'nul\u0000user' }),
    event({ id: 'ok-2', user_id: 'smile \ud83d\ude00' }),
    event({ id: 'lone\ud800surrogate', user_id: 'u3' }),
    event({ id: 'ok-3', variant_id: 'v', audience: 'a', product_id: 'p' }),
    event({ id: 'ok-4', audience: 'low\udc00first' }),
  ];
  const result = await ingest(url, keys.sdk, { events });
  assert.equal(result.accepted, 3);
  assert.deepEqual(
    result.rejected.map((r) => [r.index, r.code, r.message]),
    [
      [1, 'invalid_event', 'user_id must be well-formed Unicode text without NUL (U+0000) or a lone surrogate'],
      [3, 'invalid_event', 'id must be well-formed Unicode text without NUL (U+0000) or a lone surrogate'],
      [5, 'invalid_event', 'audience must be well-formed Unicode text without NUL (U+0000) or a lone surrogate'],
    ],
  );
  const stored = await exported(url, keys.secret);
  assert.deepEqual(stored.map((e) => e.id).sort(), ['ok-1', 'ok-2', 'ok-3']);
  // A well-formed pair is text like any other, kept as sent.
  assert.equal(stored.find((e) => e.id === 'ok-2')?.user_id, 'smile \ud83d\ude00');
});

test('invalid_event: the wrong shape, named by field, never echoing the input', async (t) => {
  const { url, keys } = await startTestServer(t);
  const secret = 'do-not-echo-me';
  const cases: [Json | unknown, RegExp][] = [
    [secret, /JSON object/],
    [{ paywall_id: 'pw', ts: Date.now() }, /^type is required/],
    [{ type: 'screen_impression', ts: Date.now() }, /^paywall_id is required/],
    [{ type: 'screen_impression', paywall_id: 'pw' }, /^ts is required/],
    [event({ paywall_id: `${secret}/../x` }), /^paywall_id must match/],
    [event({ ts: secret }), /^ts must be a number/],
    [event({ id: '' }), /^id must not be empty/],
    [event({ id: 'x'.repeat(65) }), /^id must be at most 64 characters/],
    [event({ user_id: 42 }), /^user_id must be a string/],
    [event({ variant_id: 'v'.repeat(65) }), /^variant_id must be at most 64/],
    [event({ product_id: [secret] }), /^product_id must be a string/],
    [event({ properties: [secret] }), /^properties must be a JSON object/],
    [event({ properties: secret }), /^properties must be a JSON object/],
    [event({ [secret]: 1 }), /^unknown property/],
  ];
  const result = await ingest(url, keys.sdk, { events: cases.map(([input]) => input) });
  assert.equal(result.accepted, 0);
  result.rejected.forEach((rejection, i) => {
    assert.equal(rejection.index, i);
    assert.equal(rejection.code, 'invalid_event', rejection.message);
    assert.match(rejection.message, cases[i]![1]);
  });
  assert.equal(result.rejected.length, cases.length);
  assert.doesNotMatch(JSON.stringify(result), new RegExp(secret));
});

test('optional fields may be null, as many SDKs send them', async (t) => {
  const { url, keys } = await startTestServer(t);
  const nulls = { id: null, user_id: null, variant_id: null, product_id: null, properties: null };
  assert.equal((await ingest(url, keys.sdk, { events: [event(nulls)] })).accepted, 1);
});

test('invalid_type: a type that does not match [a-z][a-z0-9_]{0,63}; other well-formed names are stored', async (t) => {
  const { url, keys } = await startTestServer(t);
  const bad = ['Screen_impression', '1st', 'a-b', 'a'.repeat(65), '', 'ümlaut'];
  const result = await ingest(url, keys.sdk, { events: [...bad.map((type) => event({ type })), event({ type: 'custom_step_2' })] });
  assert.deepEqual(
    result.rejected.map((r) => r.code),
    bad.map(() => 'invalid_type'),
  );
  assert.equal(result.accepted, 1);
  assert.deepEqual(
    (await exported(url, keys.secret)).map((e) => e.type),
    ['custom_step_2'],
  );
});

test('ts_unit: zero, negative, fractional, unsafe or 10^14 and above', async (t) => {
  const { url, keys } = await startTestServer(t);
  const bad = [0, -1700000000, 1700000000.5, 1e14, 2 ** 53, 1e20];
  const result = await ingest(url, keys.sdk, { events: bad.map((ts) => event({ ts })) });
  assert.deepEqual(
    result.rejected.map((r) => r.code),
    bad.map(() => 'ts_unit'),
  );
  assert.match(result.rejected[0]!.message, /seconds below 10\^11, milliseconds from 10\^11/);
});

test('ts below 10^11 is seconds (stored as ms), from 10^11 milliseconds', async (t) => {
  const { url, keys } = await startTestServer(t);
  const seconds = Math.floor(Date.now() / 1000) - 3600;
  const millis = Date.now() - 7200_000;
  const result = await ingest(url, keys.sdk, {
    events: [event({ id: 's', ts: seconds }), event({ id: 'ms', ts: millis }), event({ id: 'edge-ms', ts: 1e11 }), event({ id: 'edge-s', ts: 1e11 - 1 })],
  });
  // The edges show the unit each was read in: 10^11 ms is March 1973, 10^11 - 1 s is the year 5138.
  assert.deepEqual(
    result.rejected.map((r) => [r.index, r.code, /before 2000/.test(r.message) ? 'past' : 'future']),
    [
      [2, 'ts_out_of_range', 'past'],
      [3, 'ts_out_of_range', 'future'],
    ],
  );
  const rows = new Map((await exported(url, keys.secret)).map((e) => [e.id, e]));
  assert.equal(rows.get('s')!.ts, seconds * 1000);
  assert.equal(rows.get('s')!.client_ts, seconds * 1000);
  assert.equal(rows.get('ms')!.ts, millis);
  assert.equal(rows.size, 2);
});

test('ts_out_of_range: before 2000-01-01, or more than 24 h after receipt; no lower bound on age', async (t) => {
  const { url, keys } = await startTestServer(t);
  const now = Date.now();
  const events = [
    event({ id: 'y1999', ts: Date.UTC(1999, 11, 31, 23, 59, 59) }),
    event({ id: 'y1999-seconds', ts: Date.UTC(1999, 11, 31) / 1000 }),
    event({ id: 'tomorrow-plus', ts: now + 25 * HOUR }),
    event({ id: 'y2000', ts: Date.UTC(2000, 0, 1) }),
    event({ id: 'last-year', ts: now - 365 * 24 * HOUR }),
    event({ id: 'soon', ts: now + 23 * HOUR }),
  ];
  const result = await ingest(url, keys.sdk, { events });
  assert.deepEqual(
    result.rejected.map((r) => [r.index, r.code]),
    [
      [0, 'ts_out_of_range'],
      [1, 'ts_out_of_range'],
      [2, 'ts_out_of_range'],
    ],
  );
  assert.deepEqual(
    (await exported(url, keys.secret)).map((e) => e.id),
    ['y2000', 'last-year', 'soon'],
  );
});

test('sent_at corrects the device clock by received_at - sent_at; the raw time is kept', async (t) => {
  const { url, keys } = await startTestServer(t);
  // A device whose clock runs three hours behind.
  const skew = 3 * HOUR;
  const deviceNow = Date.now() - skew;
  const deviceEvent = deviceNow - 60_000;
  await ingest(url, keys.sdk, { sent_at: deviceNow, events: [event({ id: 'late-clock', ts: deviceEvent })] });
  const [row] = await exported(url, keys.secret);
  assert.equal(row!.client_ts, deviceEvent);
  assert.equal(row!.sent_at, deviceNow);
  assert.equal(row!.ts, deviceEvent + (row!.received_at - deviceNow));
  assert.ok(Math.abs(row!.ts - (deviceEvent + skew)) < 60_000);
});

test('the range check applies after the correction: a fast clock is forgiven, a corrected time past 24 h is not', async (t) => {
  const { url, keys } = await startTestServer(t);
  // A device clock two days ahead: its "now" is fine once corrected, without sent_at it is out of range.
  const deviceNow = Date.now() + 48 * HOUR;
  const fast = await ingest(url, keys.sdk, { sent_at: deviceNow, events: [event({ id: 'fast', ts: deviceNow - 1000 })] });
  assert.equal(fast.accepted, 1);
  const uncorrected = await ingest(url, keys.sdk, { events: [event({ id: 'fast-2', ts: deviceNow - 1000 })] });
  assert.equal(uncorrected.rejected[0]!.code, 'ts_out_of_range');
  // A correct clock that says the event is 30 hours ahead stays out of range.
  const ahead = await ingest(url, keys.sdk, { sent_at: Date.now(), events: [event({ id: 'ahead', ts: Date.now() + 30 * HOUR })] });
  assert.equal(ahead.rejected[0]!.code, 'ts_out_of_range');
});

test('properties_too_large: properties over 8 KiB as JSON; up to 8 KiB is stored verbatim', async (t) => {
  const { url, keys } = await startTestServer(t);
  const fits = { note: 'é'.repeat(4000) }; // 8,000 bytes of UTF-8 in the value, 8,013 as JSON
  const tooBig = { note: 'é'.repeat(4100) };
  const result = await ingest(url, keys.sdk, { events: [event({ id: 'fits', properties: fits }), event({ id: 'big', properties: tooBig })] });
  assert.deepEqual(
    result.rejected.map((r) => [r.index, r.code]),
    [[1, 'properties_too_large']],
  );
  const [row] = await exported(url, keys.secret);
  assert.deepEqual(row!.properties, fits);
});

test('unattributable: a keyless event for a paywall no project has', async (t) => {
  const { url, keys } = await startTestServer(t);
  const response = await fetch(`${url}/api/sdk/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events: [event({ paywall_id: 'nobody-has-this' })] }),
  });
  const result = await response.json();
  assert.equal(response.status, 200);
  assert.deepEqual(
    result.rejected.map((r: Json) => r.code),
    ['unattributable'],
  );
  assert.match(result.rejected[0].message, /send an API key/);
  assert.deepEqual(await exported(url, keys.secret), []);
});
