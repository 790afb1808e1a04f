/** The retry schedule of docs/guide/webhooks.md, "Deliveries and retries": exponential from 10 s, capped at 4 h, jittered by a fifth, for 24 hours, scaled as a whole. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextAttemptAt, nominalDelay } from '../../src/webhooks/schedule.ts';

const HOUR = 3_600_000;

test('the delays grow three times from 10 s up to 4 h; the documented table adds up', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8, 12].map(nominalDelay), [10_000, 30_000, 90_000, 270_000, 810_000, 2_430_000, 7_290_000, 4 * HOUR, 4 * HOUR]);
  // Without jitter: attempts at these times after the first, and none after 24 hours (docs/guide/webhooks.md).
  let at = 0;
  const times: number[] = [];
  for (let failed = 1; ; failed++) {
    const next = nextAttemptAt(failed, 0, at, 1, () => 0.5);
    if (next === undefined) break;
    times.push((at = next));
  }
  assert.deepEqual(
    times.map((ms) => Math.round(ms / 1000)),
    [10, 40, 130, 400, 1210, 3640, 10_930, 25_330, 39_730, 54_130, 68_530, 82_930],
  );
});

test('jitter moves a delay by at most a fifth either way; the scale shrinks delays and the window alike', () => {
  assert.equal(
    nextAttemptAt(1, 0, 0, 1, () => 0),
    8000,
  );
  assert.equal(
    nextAttemptAt(1, 0, 0, 1, () => 1),
    12_000,
  );
  assert.equal(
    nextAttemptAt(3, 0, 0, 0.001, () => 0.5),
    90,
  );
  // The window: a retry that would fall after 24 hours (scaled) is not made.
  assert.equal(
    nextAttemptAt(12, 0, 23.5 * HOUR, 1, () => 0.5),
    undefined,
  );
  assert.equal(
    nextAttemptAt(12, 0, 23.5 * HOUR * 0.001, 0.001, () => 0.5),
    undefined,
  );
  assert.equal(
    nextAttemptAt(12, 0, 19 * HOUR * 0.001, 0.001, () => 0.5),
    19 * HOUR * 0.001 + 4 * HOUR * 0.001,
  );
});
