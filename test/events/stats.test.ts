/** GET /api/paywalls/{id}/stats: roll-ups that always equal a recount of the raw events. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEST_CHANGE } from '../helpers/change.ts';
import { exported, fetchStats, ingest, KNOWN_TYPES, publishPaywall } from '../helpers/events.ts';
import type { Json } from '../helpers/json.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';

const DAY = 24 * 60 * 60 * 1000;

function stats(url: string, secret: string, paywallId: string, query: Record<string, string> = {}): Promise<Response> {
  return fetchStats(url, secret, paywallId, query);
}

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

interface Figures {
  counts: Record<string, number>;
  users: Set<string>;
}

function figures(): Figures {
  return { counts: Object.fromEntries(KNOWN_TYPES.map((type) => [type, 0])), users: new Set() };
}

function add(target: Figures, event: Json): void {
  target.counts[event.type] = (target.counts[event.type] ?? 0) + 1;
  if (event.user_id !== null) target.users.add(event.user_id);
}

function expected(target: Figures): Json {
  const impressions = target.counts.screen_impression!;
  return {
    counts: target.counts,
    unique_users: target.users.size,
    conversion_rate: impressions === 0 ? null : target.counts.purchase_complete! / impressions,
  };
}

/** The statistics recomputed from the exported raw events, in the response's shape. */
function recount(events: Json[], paywallId: string, fromDay: string, toDay: string): Json[] {
  const variants = new Map<string, { totals: Figures; days: Map<string, Figures> }>();
  for (const event of events) {
    const day = new Date(event.ts).toISOString().slice(0, 10);
    if (event.paywall_id !== paywallId || day < fromDay || day > toDay) continue;
    const id = event.variant_id ?? 'unknown';
    let variant = variants.get(id);
    if (!variant) variants.set(id, (variant = { totals: figures(), days: new Map() }));
    add(variant.totals, event);
    let daily = variant.days.get(day);
    if (!daily) variant.days.set(day, (daily = figures()));
    add(daily, event);
  }
  return [...variants]
    .sort(([a], [b]) => (a === 'unknown' ? 1 : b === 'unknown' ? -1 : a.localeCompare(b)))
    .map(([variant_id, { totals, days }]) => ({
      variant_id,
      totals: expected(totals),
      days: [...days].sort(([a], [b]) => a.localeCompare(b)).map(([day, daily]) => ({ day, ...expected(daily) })),
    }));
}

test('statistics equal a recount from the raw events: per variant, per day and in total', async (t) => {
  const { url, keys } = await startTestServer(t);
  await publishPaywall(url, keys.secret, 'onboarding');
  const next = random(7);
  const now = Date.now();
  const users = Array.from({ length: 30 }, (_, i) => `user-${i}`);
  const events: Json[] = [];
  for (let i = 0; i < 3000; i++) {
    const r = next();
    events.push({
      id: `e${i}`,
      type: KNOWN_TYPES[Math.floor(next() * KNOWN_TYPES.length)] ?? 'screen_impression',
      // A few other types and other paywalls are in the mix too.
      paywall_id: r < 0.1 ? 'other' : 'onboarding',
      ts: now - Math.floor(next() * 6 * DAY),
      // Returning users across days; some events without a user; some with the variant derived, some sent.
      ...(next() < 0.85 ? { user_id: users[Math.floor(next() * users.length)] } : {}),
      ...(next() < 0.3 ? { variant_id: next() < 0.5 ? 'control' : 'sent-only' } : {}),
    });
  }
  events.push({ id: 'custom', type: 'checkout_viewed', paywall_id: 'onboarding', ts: now, user_id: 'user-1' });
  for (let i = 0; i < events.length; i += 500) await ingest(url, keys.sdk, { events: events.slice(i, i + 500) });
  // Retries change nothing.
  await ingest(url, keys.sdk, { events: events.slice(0, 500) });

  const raw = await exported(url, keys.secret);
  assert.equal(raw.length, events.length);
  const from = new Date(now - 6 * DAY).toISOString().slice(0, 10);
  const to = new Date(now).toISOString().slice(0, 10);
  const response = await stats(url, keys.secret, 'onboarding', { from, to });
  assert.equal(response.status, 200);
  const body = await response.json();
  assert.equal(body.paywall_id, 'onboarding');
  assert.equal(body.from, from);
  assert.equal(body.to, to);
  assert.deepEqual(body.variants, recount(raw, 'onboarding', from, to));
  assert.deepEqual(
    body.variants.map((v: Json) => v.variant_id),
    ['control', 'sent-only', 'treatment', 'unknown'],
  );
  // A returning user is one user over the range, not one per day.
  const control = body.variants[0];
  const dailySum = control.days.reduce((sum: number, d: Json) => sum + d.unique_users, 0);
  assert.ok(control.totals.unique_users < dailySum);
  // Types beyond the known ones are counted under their own names.
  assert.equal(body.variants.filter((v: Json) => v.totals.counts.checkout_viewed === 1).length, 1);

  // A narrower range is a recount of that range, not a slice of the totals.
  const yesterday = new Date(now - DAY).toISOString().slice(0, 10);
  const narrow = await (await stats(url, keys.secret, 'onboarding', { from: yesterday, to: yesterday })).json();
  assert.deepEqual(narrow.variants, recount(raw, 'onboarding', yesterday, yesterday));
});

test('the range defaults to the 30 days ending today and accepts ISO dates, date-times and epoch ms', async (t) => {
  const { url, keys } = await startTestServer(t);
  const now = Date.now();
  const today = new Date(now).toISOString().slice(0, 10);
  await ingest(url, keys.sdk, {
    events: [
      { type: 'screen_impression', paywall_id: 'pw', ts: now },
      { type: 'screen_impression', paywall_id: 'pw', ts: now - 29 * DAY },
      { type: 'screen_impression', paywall_id: 'pw', ts: now - 31 * DAY },
    ],
  });
  const defaults = await (await stats(url, keys.secret, 'pw')).json();
  assert.equal(defaults.to, today);
  assert.equal(defaults.from, new Date(now - 29 * DAY).toISOString().slice(0, 10));
  assert.equal(defaults.variants[0].totals.counts.screen_impression, 2);

  const byMs = await (await stats(url, keys.secret, 'pw', { from: String(now - 40 * DAY), to: String(now) })).json();
  assert.equal(byMs.variants[0].totals.counts.screen_impression, 3);
  const byDateTime = await (await stats(url, keys.secret, 'pw', { from: new Date(now - 40 * DAY).toISOString(), to: `${today}T23:59:59+00:00` })).json();
  assert.equal(byDateTime.variants[0].totals.counts.screen_impression, 3);
});

test('a paywall without events in the range has no variants; conversion_rate is null without impressions', async (t) => {
  const { url, keys } = await startTestServer(t);
  assert.deepEqual((await (await stats(url, keys.secret, 'nothing')).json()).variants, []);
  await ingest(url, keys.sdk, { events: [{ type: 'purchase_complete', paywall_id: 'pw', ts: Date.now(), variant_id: 'a' }] });
  const [variant] = (await (await stats(url, keys.secret, 'pw')).json()).variants;
  assert.equal(variant.totals.counts.purchase_complete, 1);
  assert.equal(variant.totals.conversion_rate, null);
  assert.equal(variant.totals.unique_users, 0);
});

test("statistics are the key's project's only", async (t) => {
  const { url, keys, server } = await startTestServer(t);
  const other = await server.ctx.projects.create('other', TEST_CHANGE);
  await server.ctx.auth.reload();
  await ingest(url, other.keys.sdk, { events: [{ type: 'screen_impression', paywall_id: 'pw', ts: Date.now() }] });
  assert.deepEqual((await (await stats(url, keys.secret, 'pw')).json()).variants, []);
  assert.equal((await (await stats(url, other.keys.secret, 'pw')).json()).variants.length, 1);
});

test('statistics need a secret key', async (t) => {
  const { url, keys } = await startTestServer(t);
  await problem(await fetch(`${url}/api/paywalls/pw/stats`, { headers: bearer(keys.sdk) }), 403, 'insufficient_scope');
  await problem(await fetch(`${url}/api/paywalls/pw/stats`), 401, 'missing_api_key');
});

test('an unreadable from or to is 400 invalid_query', async (t) => {
  const { url, keys } = await startTestServer(t);
  const queries: Record<string, string>[] = [{ from: 'last week' }, { to: '2025-02-30' }, { from: '2025-01-01T10:00' }, { to: '-5' }];
  for (const query of queries) {
    const body = await problem(await stats(url, keys.secret, 'pw', query), 400, 'invalid_query');
    assert.equal(body.errors[0].path, `/${Object.keys(query)[0]}`);
    assert.doesNotMatch(JSON.stringify(body), /last week|2025/);
  }
});

test('a range outside the years 0000 to 9999 is 400 invalid_range, not dates like +033658-09', async (t) => {
  const { url, keys } = await startTestServer(t);
  const outside: Record<string, string>[] = [
    { from: '999999999999000', to: '999999999999999' },
    { from: '9999-12-31', to: String(Date.UTC(10000, 0, 1)) },
    { to: '0000-01-10' },
    { from: '0000-01-01T00:00+01:00', to: '0000-01-02' },
  ];
  for (const query of outside) {
    const body = await problem(await stats(url, keys.secret, 'pw', query), 400, 'invalid_range');
    assert.match(body.detail, /0000 to 9999/, JSON.stringify(query));
  }
  const edges = await stats(url, keys.secret, 'pw', { from: '9999-12-01', to: '9999-12-31' });
  assert.equal(edges.status, 200);
  const last = await edges.json();
  assert.deepEqual([last.from, last.to], ['9999-12-01', '9999-12-31']);
  const first = await (await stats(url, keys.secret, 'pw', { from: '0000-01-01', to: '0000-01-31' })).json();
  assert.deepEqual([first.from, first.to], ['0000-01-01', '0000-01-31']);
});

test('from after to, or more than 366 days, is 400 invalid_range', async (t) => {
  const { url, keys } = await startTestServer(t);
  await problem(await stats(url, keys.secret, 'pw', { from: '2025-03-02', to: '2025-03-01' }), 400, 'invalid_range');
  await problem(await stats(url, keys.secret, 'pw', { from: '2024-01-01', to: '2025-01-01' }), 400, 'invalid_range');
  assert.equal((await stats(url, keys.secret, 'pw', { from: '2024-01-01', to: '2024-12-31' })).status, 200);
});
