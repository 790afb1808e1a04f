/** Limits on one event's values: `properties` depth, `revenue` range; refused by index, the rest of the batch stored. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exported, JSON_TYPE, sendEvents } from '../helpers/events.ts';
import { startTestServer } from '../helpers/server.ts';

/** `properties` of `levels` nested objects, as JSON text (the object itself is level 1). */
function nested(levels: number): string {
  return `${'{"a":'.repeat(levels - 1)}{"leaf":1}${'}'.repeat(levels - 1)}`;
}

test('properties nested past 32 levels are refused by index, never a 500 for the batch', async (t) => {
  const { url, keys } = await startTestServer(t);
  const ts = Date.now();
  const event = (properties: string, id: string) => `{"type":"paywall_close","paywall_id":"pw","ts":${ts},"id":"${id}","properties":${properties}}`;
  // 100,000 levels: JSON.stringify overflowed the stack on this; an array nests as deep as an object.
  const body = `{"events":[${event(nested(100_000), 'deep')},${event(nested(32), 'at-limit')},${event(nested(33), 'over')},${event(`{"list":${'['.repeat(40)}${']'.repeat(40)}}`, 'arrays')}]}`;
  const response = await sendEvents(url, body, { ...JSON_TYPE, authorization: `Bearer ${keys.sdk}` });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  const result = JSON.parse(text);
  assert.equal(result.accepted, 1);
  assert.deepEqual(
    result.rejected.map((r: { index: number; code: string }) => [r.index, r.code]),
    [
      [0, 'properties_too_deep'],
      [2, 'properties_too_deep'],
      [3, 'properties_too_deep'],
    ],
  );
  assert.equal(result.rejected[0].message, 'properties must nest at most 32 objects or arrays deep');
  const [stored] = await exported(url, keys.secret);
  assert.equal(stored!.id, 'at-limit');
});

test('revenue above 10^9 or not finite is refused by index with revenue_out_of_range', async (t) => {
  const { url, keys } = await startTestServer(t);
  const ts = Date.now();
  const purchase = (revenue: string, id: string) =>
    `{"type":"purchase_complete","paywall_id":"pw","ts":${ts},"id":"${id}","revenue":${revenue},"currency":"USD"}`;
  const body = `{"events":[${purchase('1e308', 'huge')},${purchase('1e999', 'infinite')},${purchase('1000000000', 'max')},${purchase('1000000000.01', 'over')},${purchase('-1', 'negative')}]}`;
  const response = await sendEvents(url, body, { ...JSON_TYPE, authorization: `Bearer ${keys.sdk}` });
  const result = await response.json();
  assert.equal(response.status, 200);
  assert.equal(result.accepted, 1);
  assert.deepEqual(
    result.rejected.map((r: { index: number; code: string }) => [r.index, r.code]),
    [
      [0, 'revenue_out_of_range'],
      [1, 'revenue_out_of_range'],
      [3, 'revenue_out_of_range'],
      [4, 'invalid_event'],
    ],
  );
  const [stored] = await exported(url, keys.secret);
  assert.equal(stored!.revenue, 1e9);
});
