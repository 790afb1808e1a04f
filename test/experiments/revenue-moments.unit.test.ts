/**
 * The fold's revenue moments at each daily look against a brute force of
 * their definition: for each look, each exposed user's capped revenue up to
 * its end, and the two-pass moments of those values with the covariate.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Moments } from '../../src/analytics/fold/fold-types.ts';
import { listedMoments, revenueLooks, type Sparse } from '../../src/analytics/fold/revenue-moments.ts';
import { random } from './workload.ts';

const DAY = 86_400_000;

/** The moments of the listed users exposed before `end` and the other exposed users as zeros, by two passes over all n values. */
function bruteForce(list: Sparse[], cap: number, n: number, v: number, end: number): { moments: Moments; payers: number; capped: number } {
  const ys: number[] = [];
  const xs: number[] = [];
  let payers = 0;
  let capped = 0;
  for (const entry of list) {
    if (entry.variant !== v || !(entry.exposed < end)) continue;
    let net = 0;
    let paid = false;
    const changes = entry.changes ?? [];
    for (let j = 0; j < changes.length; j += 3) {
      if (!(changes[j]! < end)) continue;
      net += changes[j + 1]!;
      if (changes[j + 2]! > 0 && changes[j + 1]! > 0) paid = true;
    }
    ys.push(Math.min(cap, net));
    xs.push(entry.x);
    if (paid) payers++;
    if (net > cap) capped++;
  }
  while (ys.length < n) {
    ys.push(0);
    xs.push(0);
  }
  const meanY = ys.reduce((a, b) => a + b, 0) / n;
  const meanX = xs.reduce((a, b) => a + b, 0) / n;
  let m2y = 0;
  let m2x = 0;
  let c = 0;
  ys.forEach((y, i) => {
    m2y += (y - meanY) ** 2;
    m2x += (xs[i]! - meanX) ** 2;
    c += (y - meanY) * (xs[i]! - meanX);
  });
  return { moments: { n, meanY, m2y, meanX, m2x, c }, payers, capped };
}

function close(actual: number, expected: number, what: string, scale = 1): void {
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected), scale), `${what}: ${actual} vs ${expected}`);
}

test('the moments at each day’s end and now match a two-pass brute force: payments, refunds, changes out of order, a cap, a covariate', () => {
  const rand = random(35);
  const days = 12;
  const k = 3;
  const list: Sparse[] = [];
  for (let key = 0; key < 600; key++) {
    const exposed = Math.floor(rand() * days * DAY);
    const changes: number[] = [];
    for (let c = Math.floor(rand() * 4); c > 0; c--) {
      const refund = rand() < 0.2;
      changes.push(exposed + Math.floor(rand() * 8 * DAY), refund ? -4.99 : [0.99, 9.99, 49.99, 0][Math.floor(rand() * 4)]!, refund ? -1 : 1);
    }
    list.push({ variant: key % k, exposed, x: rand() < 0.3 ? Math.round(rand() * 5000) / 100 : 0, changes });
  }
  const ends = [...Array.from({ length: days }, (_, d) => (d + 1) * DAY), Number.POSITIVE_INFINITY];
  // Exposed users per variant by each look: the listed ones and as many again who never pay.
  const exposedPerLook = ends.map((end) => Array.from({ length: k }, (_, v) => 2 * list.filter((e) => e.variant === v && e.exposed < end).length));
  for (const cap of [Number.POSITIVE_INFINITY, 30]) {
    const looks = revenueLooks(listedMoments(list, cap, k, ends), exposedPerLook);
    looks.forEach((look, l) => {
      look.forEach((figures, v) => {
        const expected = bruteForce(list, cap, exposedPerLook[l]![v]!, v, ends[l]!);
        const at = `cap ${cap}, look ${l}, variant ${v}`;
        assert.deepEqual([figures.payers, figures.capped], [expected.payers, expected.capped], at);
        for (const field of ['n', 'meanY', 'meanX'] as const) close(figures.moments[field], expected.moments[field], `${at} ${field}`);
        for (const field of ['m2y', 'm2x', 'c'] as const) close(figures.moments[field], expected.moments[field], `${at} ${field}`, expected.moments.m2y);
      });
    });
  }
});

test('a revenue the same for every payer has no spread at any look, past or now', () => {
  const days = 30;
  const list: Sparse[] = Array.from({ length: 30_000 }, (_, key) => {
    const exposed = (key % days) * DAY + 1000;
    return { variant: 0, exposed, x: 0, changes: [exposed + 5000, 9.99, 1] };
  });
  const ends = [...Array.from({ length: days }, (_, d) => (d + 1) * DAY), Number.POSITIVE_INFINITY];
  const exposedPerLook = ends.map((end) => [list.filter((entry) => entry.exposed < end).length]);
  for (const [look] of revenueLooks(listedMoments(list, Number.POSITIVE_INFINITY, 1, ends), exposedPerLook)) {
    assert.equal(look!.moments.m2y, 0, `spread at ${look!.moments.n} users`);
    close(look!.moments.meanY, 9.99, 'mean');
  }
});
