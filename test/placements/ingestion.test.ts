/**
 * Placement names in events cost the derived state a segment each (their
 * results), so they count against the project's limit on segments, as
 * audiences do: an exposure naming a new placement past it is refused by
 * index, and events naming known placements are still taken. Names sent
 * without a secret key count in their own daily budget
 * (analytics/name-budget.ts), which never refuses a placement the project
 * defines.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ingest } from '../helpers/events.ts';
import { livePaywalls, putPlacement } from '../helpers/placements.ts';
import { startTestServer } from '../helpers/server.ts';

/** The project's segments at most (src/analytics/limits.ts), written out. */
const SEGMENTS_PER_PROJECT = 10_000;
/** New audiences a project takes in a day without a secret key (src/analytics/name-budget.ts), written out. */
const PUBLIC_SEGMENTS_PER_DAY = 1000;

/** Exposures of one user to each placement named, alternating both exposing types; what was accepted and refused, by index. */
async function expose(url: string, key: string, names: string[], ts: number): Promise<{ accepted: number; rejected: { index: number; code: string }[] }> {
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
    const result = await ingest(url, key, { events });
    accepted += result.accepted;
    rejected.push(...result.rejected.map((r) => ({ index: from + r.index, code: r.code })));
  }
  return { accepted, rejected };
}

test('exposures naming more placements than the project may keep segments are refused past the limit', async (t) => {
  const { url, keys } = await startTestServer(t);
  const ts = Date.now();
  const names = Array.from({ length: SEGMENTS_PER_PROJECT + 1 }, (_, i) => `place${i}`);
  const { accepted, rejected } = await expose(url, keys.secret, names, ts);
  assert.equal(accepted, SEGMENTS_PER_PROJECT);
  assert.deepEqual(rejected, [{ index: SEGMENTS_PER_PROJECT, code: 'too_many_audiences' }]);
  // A known placement, and an event that exposes nobody (no user, or another type), still go in.
  const known = await ingest(url, keys.secret, {
    events: [
      { type: 'screen_impression', paywall_id: 'pw', ts, user_id: 'v', placement: 'place3' },
      { type: 'screen_impression', paywall_id: 'pw', ts, placement: 'brand_new' },
      { type: 'paywall_close', paywall_id: 'pw', ts, user_id: 'v', placement: 'brand_new' },
    ],
  });
  assert.deepEqual([known.accepted, known.rejected], [3, []]);
});

test('placements an app makes up without a secret key use their own budget, never what a defined placement needs', async (t) => {
  const server = await startTestServer(t);
  const { url, keys } = server;
  const ts = Date.now();
  const junk = await expose(
    url,
    keys.sdk,
    Array.from({ length: PUBLIC_SEGMENTS_PER_DAY + 1 }, (_, i) => `junk${i}`),
    ts,
  );
  assert.equal(junk.accepted, PUBLIC_SEGMENTS_PER_DAY);
  assert.deepEqual(junk.rejected, [{ index: PUBLIC_SEGMENTS_PER_DAY, code: 'too_many_audiences' }]);
  // The budget is spent: a placement the project defines is still taken from the app, and so are more of the team's own.
  await livePaywalls(server, ['home_pw']);
  await putPlacement(server, 'home', { name: 'Home', rules: [], default: 'home_pw' });
  const defined = await expose(url, keys.sdk, ['home'], ts);
  assert.deepEqual([defined.accepted, defined.rejected], [1, []]);
  const team = await expose(url, keys.secret, ['made_by_the_team'], ts);
  assert.deepEqual([team.accepted, team.rejected], [1, []]);
});
