/**
 * Frequency caps through a real server: a user's screen_impression events
 * naming the placement count, per UTC day, ISO week (from Monday 00:00 UTC)
 * or ever, for requests with a userId; other users, other placements and
 * events before the period do not; session caps are the client's; the
 * counts survive a restart (the writer thread's checkpoint and replay).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ingest } from '../helpers/events.ts';
import { livePaywalls, placementAnswer, putPlacement, sendOpens, shown } from '../helpers/placements.ts';
import { serverOn, startTestServer, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

const DAY = 86_400_000;

/** The period starts, written out here rather than taken from the server's code. */
function periods(now: number): { dayStart: number; weekStart: number } {
  const date = new Date(now);
  const dayStart = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  const sinceMonday = (date.getUTCDay() + 6) % 7;
  return { dayStart, weekStart: dayStart - sinceMonday * DAY };
}

/** Waits until the server has counted what was sent before: a marker placement capped at one open. */
async function marked(server: TestServer, userId: string): Promise<void> {
  await sendOpens(server, 'marker', 'offer', userId, [Date.now()]);
  await until(async () => (await shown(server, { placement: 'marker', userId })) === '-frequency_cap', `the marker open of ${userId}`);
}

test('opens count per UTC day, ISO week and ever, per user and placement; a session cap is left to the client', async (t) => {
  const server = await startTestServer(t);
  await livePaywalls(server, ['offer']);
  const cap = (limit: number, per: string) => ({ name: per, rules: [{ paywall_id: 'offer', frequency: { limit, per } }] });
  await putPlacement(server, 'daily', cap(2, 'day'));
  await putPlacement(server, 'weekly', cap(1, 'week'));
  await putPlacement(server, 'ever', cap(3, 'ever'));
  await putPlacement(server, 'session', cap(1, 'session'));
  await putPlacement(server, 'marker', cap(1, 'ever'));
  const now = Date.now();
  const { dayStart, weekStart } = periods(now);

  // Before each period: not counted.
  await sendOpens(server, 'daily', 'offer', 'ann', [dayStart - 1, dayStart - 2, dayStart - DAY, dayStart]);
  await sendOpens(server, 'weekly', 'offer', 'ann', [weekStart - 1, weekStart - 7 * DAY]);
  await sendOpens(server, 'ever', 'offer', 'ann', [now - 400 * DAY, now - 30 * DAY]);
  await sendOpens(server, 'session', 'offer', 'ann', [now, now - 1]);
  // Another user's opens, and opens of another placement, count for them only.
  await sendOpens(server, 'daily', 'offer', 'bob', [now, now - 1, now - 2]);
  await marked(server, 'ann');
  assert.equal(await shown(server, { placement: 'daily', userId: 'ann' }), 'offer', 'one open today, the cap is 2');
  assert.equal(await shown(server, { placement: 'weekly', userId: 'ann' }), 'offer', 'no open this week');
  assert.equal(await shown(server, { placement: 'ever', userId: 'ann' }), 'offer', 'two opens ever, the cap is 3');
  assert.equal(await shown(server, { placement: 'session', userId: 'ann' }), 'offer', 'the server counts no session');
  assert.deepEqual((await placementAnswer(server, { placement: 'session', userId: 'ann' })).frequency, { limit: 1, per: 'session' });
  assert.equal(await shown(server, { placement: 'daily', userId: 'bob' }), '-frequency_cap');
  assert.equal(await shown(server, { placement: 'daily' }), 'offer', 'without a userId nobody is counted');

  await sendOpens(server, 'daily', 'offer', 'ann', [now]);
  await sendOpens(server, 'weekly', 'offer', 'ann', [weekStart]);
  await sendOpens(server, 'ever', 'offer', 'ann', [now - 3 * DAY]);
  await until(async () => (await shown(server, { placement: 'ever', userId: 'ann' })) === '-frequency_cap', 'the third open ever');
  assert.deepEqual(await placementAnswer(server, { placement: 'daily', userId: 'ann' }), {
    show: false,
    placement: 'daily',
    reason: 'frequency_cap',
    rule: 0,
    paywall_id: 'offer',
  });
  assert.equal(await shown(server, { placement: 'weekly', userId: 'ann' }), '-frequency_cap');
  // A placement_holdout event is not an open.
  await putPlacement(server, 'held', cap(1, 'ever'));
  await ingest(server.url, server.keys.sdk, { events: [{ type: 'placement_holdout', paywall_id: 'offer', ts: now, user_id: 'cid', placement: 'held' }] });
  await marked(server, 'cid');
  assert.equal(await shown(server, { placement: 'held', userId: 'cid' }), 'offer');

  // After a restart, the counts come back from the writer thread's state.
  await server.server.stop();
  const restarted = { ...server, ...(await serverOn(t, server.dbPath)) };
  await until(async () => (await shown(restarted, { placement: 'ever', userId: 'ann' })) === '-frequency_cap', 'the caps after a restart');
  assert.equal(await shown(restarted, { placement: 'daily', userId: 'ann' }), '-frequency_cap');
  assert.equal(await shown(restarted, { placement: 'daily', userId: 'carl' }), 'offer');
});
