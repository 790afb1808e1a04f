/**
 * The link fold (docs/guide/revenue.md, "One user across ids"): over random
 * sequences of exposures, purchases and identify links, the results asked
 * along the way (links applied one by one as they arrive) equal the results
 * of a state built from scratch (a restart) and a brute force over the raw
 * records, links one step: an anonymous id counts as its user, and a link
 * is never followed further.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { DerivedEvent } from '../../src/analytics/derived-event.ts';
import type { FoldQuery, FoldResult } from '../../src/analytics/fold/fold-types.ts';
import type { ProjectLinks, PurchaseReader, PurchaseRow } from '../../src/analytics/fold/purchase-records.ts';
import { DerivedState } from '../../src/analytics/state.ts';

const PROJECT = 'p';
const PAYWALL = 'w';
const VARIANTS = ['v0', 'v1'];
/** Few ids, so that random links chain, loop and name ids the events have not seen. */
const IDS = ['a', 'b', 'c', 'd', 'e', 'f'];
const FROM = Date.now() - 86_400_000;
const QUERY: FoldQuery = { from: FROM, to: null, variants: VARIANTS, conversionWindowMs: null, winsorizePercentile: null };

type Step =
  | { kind: 'expose'; id: string; variant: string; at: number }
  | { kind: 'buy'; id: string; at: number; revenue: number }
  | { kind: 'record'; id: string; at: number; revenue: number }
  | { kind: 'link'; anonymous: string; user: string }
  | { kind: 'ask' };

const id = fc.constantFrom(...IDS);
const at = fc.integer({ min: 0, max: 1000 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('expose' as const), id, variant: fc.constantFrom(...VARIANTS), at }),
  fc.record({ kind: fc.constant('buy' as const), id, at, revenue: fc.integer({ min: 1, max: 9 }) }),
  fc.record({ kind: fc.constant('record' as const), id, at, revenue: fc.integer({ min: 1, max: 9 }) }),
  { arbitrary: fc.record({ kind: fc.constant('link' as const), anonymous: id, user: id }), weight: 2 },
  fc.record({ kind: fc.constant('ask' as const) }),
);

function event(userId: string, type: string, at: number, variantId: string | null, revenue: number | null): DerivedEvent {
  const ts = FROM + 1000 + at * 1000;
  return {
    projectId: PROJECT,
    paywallId: PAYWALL,
    type,
    ts,
    clientTs: ts,
    eventId: null,
    userId,
    variantId,
    audience: null,
    revenue,
    currency: revenue === null ? null : 'USD',
    placement: null,
  };
}

/** The records and links as a writer thread's reader holds them: appended as they are stored. */
class MemoryReader implements PurchaseReader {
  readonly records: PurchaseRow[] = [];
  readonly list: [string, string][] = [];
  /** The links as identify answers them: anonymous id → user. */
  readonly map = new Map<string, string>();
  recordsSince(_projectId: string, seq: number): PurchaseRow[] {
    return this.records.filter((record) => record.seq > seq);
  }
  links(): ProjectLinks {
    return this;
  }
}

/** What the brute force and the fold are compared on: per variant, users, conversions and revenue; users seen in both variants. */
function figures(result: FoldResult) {
  return {
    multiple: result.multiple_exposure_users,
    variants: result.variants.map((v) => ({
      exposed: v.exposed_users,
      conversions: v.conversions,
      revenue: v.revenue.find((r) => r.currency === 'USD')?.total ?? 0,
    })),
  };
}

/** The same figures over the raw records, every id counted as the user its one link names. */
function bruteForce(events: DerivedEvent[], records: PurchaseRow[], links: ReadonlyMap<string, string>) {
  const userOf = (id: string) => links.get(id) ?? id;
  const users = new Map<string, { variants: Set<string>; first: number }>();
  for (const e of events) {
    if (e.type !== 'screen_impression') continue;
    const user = users.get(userOf(e.userId!)) ?? { variants: new Set<string>(), first: Number.POSITIVE_INFINITY };
    user.variants.add(e.variantId!);
    user.first = Math.min(user.first, e.ts);
    users.set(userOf(e.userId!), user);
  }
  const purchases = [
    ...events.filter((e) => e.type === 'purchase_complete').map((e) => ({ user: userOf(e.userId!), ts: e.ts, revenue: e.revenue! })),
    ...records.map((r) => ({ user: userOf(r.userId), ts: r.ts, revenue: r.revenue })),
  ];
  const result = { multiple: 0, variants: VARIANTS.map(() => ({ exposed: 0, conversions: 0, revenue: 0 })) };
  for (const [name, user] of users) {
    if (user.variants.size > 1) {
      result.multiple++;
      continue;
    }
    const figures = result.variants[VARIANTS.indexOf([...user.variants][0]!)]!;
    figures.exposed++;
    const counted = purchases.filter((p) => p.user === name && p.ts >= user.first);
    if (counted.length > 0) figures.conversions++;
    for (const p of counted) figures.revenue += p.revenue;
  }
  return result;
}

/** Runs the steps on one state, asking where they say; every answer must be the one a fresh state and the brute force give. */
function check(steps: Step[]): void {
  const reader = new MemoryReader();
  const live = new DerivedState();
  const events: DerivedEvent[] = [];
  const ask = (where: string) => {
    const answer = figures(live.results(PROJECT, PAYWALL, null, QUERY, reader));
    const fresh = new DerivedState();
    for (const e of events) fresh.apply(e);
    assert.deepEqual(answer, figures(fresh.results(PROJECT, PAYWALL, null, QUERY, reader)), `${where}: as it came vs from scratch`);
    assert.deepEqual(answer, bruteForce(events, reader.records, reader.map), `${where}: vs the brute force`);
  };
  for (const [i, s] of steps.entries()) {
    if (s.kind === 'expose' || s.kind === 'buy') {
      const e = s.kind === 'expose' ? event(s.id, 'screen_impression', s.at, s.variant, null) : event(s.id, 'purchase_complete', s.at, null, s.revenue);
      events.push(e);
      live.apply(e);
    } else if (s.kind === 'record') {
      const ts = FROM + 1000 + s.at * 1000;
      reader.records.push({
        seq: reader.records.length + 1,
        userId: s.id,
        type: 'initial_purchase',
        ts,
        revenue: s.revenue,
        currency: 'USD',
        paywallId: null,
      });
    } else if (s.kind === 'link') {
      // identify's rules: the ids differ, and the first link of an anonymous id wins.
      const { map, list } = reader;
      if (s.anonymous === s.user || map.has(s.anonymous)) continue;
      map.set(s.anonymous, s.user);
      list.push([s.anonymous, s.user]);
    } else ask(`step ${i}`);
  }
  ask('the end');
}

test('links applied as they arrive count the users a restart and the brute force count (a fast-check property)', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 40 }), (steps) => check(steps)),
    { numRuns: 5000 },
  );
});

test('a chain: a → b joins a and b; b → c then moves b to c, leaving a as b, and a restart counts the same', () => {
  for (const steps of [
    // Issue 31, finding 7: one exposed user after a → b, two once b → c.
    [
      { kind: 'expose', id: 'a', variant: 'v0', at: 1 },
      { kind: 'expose', id: 'b', variant: 'v0', at: 2 },
      { kind: 'ask' },
      { kind: 'link', anonymous: 'a', user: 'b' },
      { kind: 'ask' },
      { kind: 'link', anonymous: 'b', user: 'c' },
      { kind: 'ask' },
    ],
    // b is seen only after both links: it joins c, not a.
    [
      { kind: 'expose', id: 'a', variant: 'v0', at: 1 },
      { kind: 'expose', id: 'c', variant: 'v0', at: 2 },
      { kind: 'ask' },
      { kind: 'link', anonymous: 'a', user: 'b' },
      { kind: 'ask' },
      { kind: 'link', anonymous: 'b', user: 'c' },
      { kind: 'ask' },
      { kind: 'expose', id: 'b', variant: 'v1', at: 3 },
      { kind: 'ask' },
    ],
  ] satisfies Step[][]) {
    check(steps);
  }
});
