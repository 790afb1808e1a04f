/**
 * Placement names in events cost the derived state a segment each (their
 * results), so they count against the project's limit on segments, as
 * audiences do: an exposure naming a new placement past it is refused by
 * index, and events naming known placements are still taken.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ingest } from '../helpers/events.ts';
import { startTestServer } from '../helpers/server.ts';

/** The project's segments at most (src/analytics/limits.ts), written out. */
const SEGMENTS_PER_PROJECT = 10_000;

test('exposures naming more placements than the project may keep segments are refused past the limit', async (t) => {
  const { url, keys } = await startTestServer(t);
  const ts = Date.now();
  const names = Array.from({ length: SEGMENTS_PER_PROJECT + 1 }, (_, i) => `place${i}`);
  const rejected: { index: number; code: string }[] = [];
  let accepted = 0;
  for (let from = 0; from < names.length; from += 1000) {
    const events = names.slice(from, from + 1000).map((placement, i) => ({
      type: i % 2 ? 'screen_impression' : 'placement_holdout',
      paywall_id: 'pw',
      ts,
      user_id: 'u',
      placement,
    }));
    const result = await ingest(url, keys.sdk, { events });
    accepted += result.accepted;
    rejected.push(...result.rejected.map((r) => ({ index: from + r.index, code: r.code })));
  }
  assert.equal(accepted, SEGMENTS_PER_PROJECT);
  assert.deepEqual(rejected, [{ index: SEGMENTS_PER_PROJECT, code: 'too_many_audiences' }]);
  // A known placement, and an event that exposes nobody (no user, or another type), still go in.
  const known = await ingest(url, keys.sdk, {
    events: [
      { type: 'screen_impression', paywall_id: 'pw', ts, user_id: 'v', placement: 'place3' },
      { type: 'screen_impression', paywall_id: 'pw', ts, placement: 'brand_new' },
      { type: 'paywall_close', paywall_id: 'pw', ts, user_id: 'v', placement: 'brand_new' },
    ],
  });
  assert.deepEqual([known.accepted, known.rejected], [3, []]);
});
