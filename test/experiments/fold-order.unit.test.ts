/**
 * A phase fold's answer does not depend on the order in which it counted
 * the purchases (src/analytics/fold/fold-revenue.ts, Entry): a fold kept up
 * to date event by event, with late exposures that move users' first
 * exposures earlier, and folds of the same entries stored in other orders
 * give the same answer to the last bit. Amounts such as 0.1, 0.2 and 0.3
 * sum to different doubles in different orders.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PhaseFold } from '../../src/analytics/fold/experiment-fold.ts';
import { Segment } from '../../src/analytics/fold/experiment-log.ts';
import type { FoldQuery, FoldResult } from '../../src/analytics/fold/fold-types.ts';
import { random } from './workload.ts';

const DAY = 86_400_000;
const FROM = 20_000 * DAY;
const USERS = 60;
const AMOUNTS = [0.1, 0.2, 0.3, 0.7, 1e6 + 0.01, 9.99];

type Entry = { kind: 'exposure'; user: number; ts: number; variant: number } | { kind: 'purchase'; user: number; ts: number; currency: number; value: number };

function entries(): Entry[] {
  const rand = random(91);
  const list: Entry[] = [];
  for (let user = 0; user < USERS; user++) {
    const seen = FROM + Math.floor(rand() * 5 * DAY);
    list.push({ kind: 'exposure', user, ts: seen, variant: user % 2 });
    // A later exposure to the same variant, and for some an earlier one that arrives last.
    list.push({ kind: 'exposure', user, ts: seen + DAY, variant: user % 2 });
    if (user % 3 === 0) list.push({ kind: 'exposure', user, ts: seen - DAY, variant: user % 2 });
    for (let n = 0; n < 5; n++) {
      const ts = seen + Math.floor((rand() - 0.3) * 3 * DAY);
      list.push({ kind: 'purchase', user, ts, currency: n % 2, value: AMOUNTS[Math.floor(rand() * AMOUNTS.length)]! });
    }
  }
  return list;
}

function store(segment: Segment, entry: Entry): void {
  if (entry.kind === 'exposure') segment.exposures.push(entry.user, entry.ts, segment.code(segment.variants, ['a', 'b'][entry.variant]!), 0);
  else segment.addPurchase(entry.user, entry.ts, segment.code(segment.currencies, ['USD', 'EUR'][entry.currency]!), entry.value);
}

const QUERY: FoldQuery = { from: FROM, to: FROM + 30 * DAY, variants: ['a', 'b'], conversionWindowMs: null, winsorizePercentile: 90 };

/** The answer of one fold of `list`, stored in that order, folded once at the end. */
function foldedOnce(list: Entry[]): FoldResult {
  const segment = new Segment();
  for (const entry of list) store(segment, entry);
  const fold = new PhaseFold(segment, QUERY);
  fold.update(USERS, [segment], []);
  return fold.result();
}

test('a fold answers the same to the last bit whatever the order it counted purchases in: at once, reversed, shuffled, or event by event', () => {
  const list = entries();
  const expected = foldedOnce(list);
  assert.ok(
    expected.variants.every((figures) => figures.revenue.length === 2 && figures.history > 0),
    'both currencies have payers, and some users bought before their exposure',
  );
  assert.deepEqual(foldedOnce([...list].reverse()), expected, 'stored in reverse');
  const rand = random(7);
  const shuffled = [...list].sort(() => rand() - 0.5);
  assert.deepEqual(foldedOnce(shuffled), expected, 'stored shuffled');
  // Kept up to date: an answer after every entry, so the late earlier exposures recount their users' purchases.
  const segment = new Segment();
  const fold = new PhaseFold(segment, QUERY);
  let last: FoldResult | undefined;
  for (const entry of shuffled) {
    store(segment, entry);
    fold.update(USERS, [segment], []);
    last = fold.result();
  }
  assert.deepEqual(last, expected, 'kept up to date');
});
