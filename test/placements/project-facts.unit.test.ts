/**
 * The purchases.* facts (src/placements/facts/project-facts.ts) against a
 * brute force over the records, for generated histories: whatever the order
 * records and identify links arrive in, each id's facts are what the
 * definitions (docs/guide/placements.md) give over every record of the ids that
 * count as one user.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ProjectFacts } from '../../src/placements/facts/project-facts.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 15, 12);
const TYPES = [
  'initial_purchase',
  'trial_started',
  'trial_converted',
  'renewal',
  'refund',
  'cancellation',
  'expiration',
  'non_renewing_purchase',
  'product_change',
];
const IDS = ['a', 'b', 'c', 'd', 'e'];

interface Rec {
  userId: string;
  type: string;
  ts: number;
  product: string | null;
  subscription: string | null;
}

const recordArb = fc.record({
  userId: fc.constantFrom(...IDS),
  type: fc.constantFrom(...TYPES),
  // Half days within 30 days, or any second: records at the same second (ties) are common.
  ts: fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 20 }).map((n) => NOW - n * 43_200_000) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 30 * 86_400 }).map((s) => NOW - s * 1000) },
  ),
  product: fc.constantFrom('monthly', 'annual', null),
  subscription: fc.constantFrom('s1', 's2', null),
});
const linkArb = fc.tuple(fc.constantFrom(...IDS), fc.constantFrom(...IDS)).filter(([x, y]) => x !== y);

/** Each id's user: links followed to the end, the first link of an id kept, a link that would close a loop ignored. */
function users(links: readonly [string, string][]): (id: string) => string {
  const parent = new Map<string, string>();
  const root = (id: string): string => (parent.has(id) ? root(parent.get(id)!) : id);
  for (const [anonymous, user] of links) if (root(anonymous) !== root(user)) parent.set(root(anonymous), root(user));
  return root;
}

function bruteForce(records: readonly Rec[], userOf: (id: string) => string, id: string) {
  const mine = records.filter((r) => userOf(r.userId) === userOf(id));
  const paid = mine.filter((r) => ['initial_purchase', 'renewal', 'trial_converted', 'non_renewing_purchase'].includes(r.type));
  const periods = new Map([
    ['initial_purchase', true],
    ['trial_started', false],
    ['trial_converted', true],
    ['renewal', true],
    ['product_change', false],
  ]);
  const subscriptions = new Map<string, { ts: number; ended: boolean; paid: boolean }>();
  for (const r of mine) {
    const isEnd = r.type === 'expiration' || r.type === 'refund';
    if (r.subscription === null || (!periods.has(r.type) && !isEnd)) continue;
    const s = subscriptions.get(r.subscription) ?? { ts: -1, ended: false, paid: false };
    const seconds = r.ts / 1000;
    if (seconds > s.ts || (seconds === s.ts && isEnd)) [s.ts, s.ended] = [seconds, isEnd || (seconds === s.ts && s.ended)];
    s.paid ||= periods.get(r.type) === true;
    subscriptions.set(r.subscription, s);
  }
  const active = [...subscriptions.values()].some((s) => !s.ended);
  const ends = [...subscriptions.values()].filter((s) => s.ended && s.paid).map((s) => s.ts);
  const days = (seconds: number) => Math.floor((NOW - seconds * 1000) / DAY);
  const first = paid.length === 0 ? null : Math.min(...paid.map((r) => r.ts / 1000));
  const products = new Set(mine.filter((r) => (paid.includes(r) || r.type === 'product_change') && r.product !== null).map((r) => r.product!));
  return {
    is_subscriber: active,
    had_trial: mine.some((r) => r.type === 'trial_started' || r.type === 'trial_converted'),
    lapsed_days: active || ends.length === 0 ? null : days(Math.max(...ends)),
    count: paid.length,
    products: [...products].sort(),
    first_purchase_days: first === null ? null : days(first),
  };
}

test('the facts of every id are the brute force over its user’s records, whatever the order of records and links', () => {
  fc.assert(
    fc.property(
      fc.array(recordArb, { minLength: 5, maxLength: 40 }),
      fc.array(linkArb, { maxLength: 4 }),
      fc.array(fc.integer(), { minLength: 44, maxLength: 44 }),
      (records, links, shuffle) => {
        // One stream of records and links in a generated order (links keep their own order: the first link of an id wins).
        const steps: ({ record: Rec } | { link: [string, string] })[] = [
          ...records.map((record) => ({ record })),
          ...links.map((link) => ({ link: link as [string, string] })),
        ];
        const order = steps.map((step, i) => ({ step, key: shuffle[i % shuffle.length]! + i * 1e-9 })).sort((x, y) => x.key - y.key);
        const linkOrder = order.flatMap(({ step }) => ('link' in step ? [step.link] : []));
        const facts = new ProjectFacts();
        for (const { step } of order) {
          if ('record' in step) facts.fold(step.record);
          else facts.link(...step.link);
        }
        const userOf = users(linkOrder);
        for (const id of IDS) assert.deepEqual(facts.factsOf(id, NOW), bruteForce(records, userOf, id), id);
      },
    ),
    { numRuns: 2000 },
  );
});

test('an id no record or link names has no facts; more than 32 products and several subscriptions are kept', () => {
  const facts = new ProjectFacts();
  assert.deepEqual(facts.factsOf('nobody', NOW), {
    is_subscriber: false,
    had_trial: false,
    lapsed_days: null,
    count: 0,
    products: [],
    first_purchase_days: null,
  });
  const products = Array.from({ length: 40 }, (_, i) => `p${String(i).padStart(2, '0')}`);
  for (const product of products) facts.fold({ userId: 'u', type: 'non_renewing_purchase', ts: NOW - DAY, product, subscription: null });
  for (const subscription of ['x', 'y', 'z']) facts.fold({ userId: 'u', type: 'initial_purchase', ts: NOW - 3 * DAY, product: 'p00', subscription });
  facts.fold({ userId: 'u', type: 'expiration', ts: NOW - 2 * DAY, product: 'p00', subscription: 'x' });
  facts.fold({ userId: 'u', type: 'expiration', ts: NOW - 2 * DAY, product: 'p00', subscription: 'y' });
  let answer = facts.factsOf('u', NOW);
  assert.deepEqual([answer.products, answer.count, answer.is_subscriber], [products, 43, true]);
  facts.fold({ userId: 'u', type: 'refund', ts: NOW - DAY, product: 'p00', subscription: 'z' });
  answer = facts.factsOf('u', NOW);
  assert.deepEqual([answer.is_subscriber, answer.lapsed_days], [false, 1]);
});
