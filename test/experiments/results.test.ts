import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chanceToBeat } from '../../src/experiments/bayes.ts';
import { NO_ADJUSTMENT, pooledArms, rateMoments } from '../../src/experiments/cuped.ts';
import { compareArms, type Interval, type Test, Z95 } from '../../src/experiments/effects.ts';
import { normalCdf } from '../../src/experiments/special.ts';
import { bucketShares, sampleRatioMismatch } from '../../src/experiments/srm.ts';
import { wilsonInterval } from '../../src/experiments/statistics.ts';
import { openTestSql } from '../helpers/database.ts';
import { ingest } from '../helpers/events.ts';
import type { Json } from '../helpers/json.ts';
import { bearer, restartServer, serverOn, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';
import { expectedResults, moments, random, type SentEvent, sendShuffled } from './workload.ts';

const PAYWALL = 'exp';

function document(weights: { control: number; annual: number }) {
  return {
    name: 'Experiment',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro' } },
    root: { type: 'text', props: { text_key: 'title' } },
    variants: [
      { id: 'annual', weight: weights.annual },
      { id: 'control', weight: weights.control, control: true },
      { id: 'hold', weight: 20, holdout: true },
    ],
    audiences: [{ id: 'vip', when: { country: 'DE' }, weights: { control: 1, annual: 3 } }],
    // CUPED off and revenue read from 2 payers: the brute force below checks the plain tests of every figure (CUPED and the
    // minimum payers have tests of their own in decisions.test.ts).
    experiment: { cuped: false, min_payers_per_variant: 2 },
  };
}

/**
 * The sequential readout of a rate by brute force: the pooled test at each
 * day's end where every variant has 100 exposed users and the segment 10
 * conversions, and now; the minimum p-value and the intersection of the
 * relative intervals.
 */
function monotone(
  looks: { exposed: Record<string, number>; conversions: Record<string, number> }[],
  id: string,
): { now: Test | null; p: number; ci: Interval | null } {
  const testAt = (look: (typeof looks)[number]) =>
    compareArms(
      ...pooledArms(rateMoments(look.conversions[id]!, look.exposed[id]!), rateMoments(look.conversions.control!, look.exposed.control!), NO_ADJUSTMENT),
      'sequential',
    );
  const now = testAt(looks.at(-1)!);
  let p = now?.p_value ?? Number.NaN;
  let ci = now?.relativeCi ?? null;
  for (const look of looks.slice(0, -1)) {
    const ready = Object.values(look.exposed).every((n) => n >= 100) && Object.values(look.conversions).reduce((a, b) => a + b, 0) >= 10;
    const earlier = ready ? testAt(look) : null;
    if (earlier === null) continue;
    p = Math.min(p, earlier.p_value);
    if (ci && earlier.relativeCi) ci = [Math.max(ci[0], earlier.relativeCi[0]), Math.min(ci[1], earlier.relativeCi[1])];
  }
  return { now, p, ci };
}

/** The variants of each segment in document order (weight > 0). */
const SEGMENTS: Record<string, string[]> = { default: ['annual', 'control', 'hold'], vip: ['annual', 'control'] };

async function api(url: string, secret: string, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}${path}`, { ...init, headers: { 'content-type': 'application/json', ...bearer(secret), ...(init.headers as Record<string, string>) } });
}

async function publish(url: string, secret: string, weights: { control: number; annual: number }, body?: Json): Promise<void> {
  const put = await api(url, secret, `/api/paywalls/${PAYWALL}`, { method: 'PUT', body: JSON.stringify(document(weights)) });
  assert.ok(put.status === 200 || put.status === 201, await put.text());
  const published = await api(url, secret, `/api/paywalls/${PAYWALL}/publish`, { method: 'POST', body: body ? JSON.stringify(body) : '' });
  assert.equal(published.status, 200, await published.text());
}

async function phases(url: string, secret: string): Promise<Json[]> {
  const response = await api(url, secret, `/api/paywalls/${PAYWALL}/phases`);
  assert.equal(response.status, 200);
  return (await response.json()).phases;
}

/** Results once the server has its statistics ready (a restarted server answers 503 stats_warming_up first). */
async function results(url: string, secret: string, query: Record<string, string> = {}): Promise<Json> {
  let response!: Response;
  await until(
    async () => {
      response = await api(url, secret, `/api/paywalls/${PAYWALL}/results?${new URLSearchParams(query)}`);
      return response.status !== 503;
    },
    'the results to load',
    20_000,
  );
  assert.equal(response.status, 200, await response.clone().text());
  return response.json();
}

/** One user's events in a phase window [from, to): impressions (sometimes of two variants), purchases before and after exposure. */
function userEvents(rand: () => number, userId: string, from: number, to: number, audience: string | undefined, next: () => string): SentEvent[] {
  const variants = audience === undefined ? SEGMENTS.default! : SEGMENTS.vip!;
  const variant = variants[Math.floor(rand() * variants.length)]!;
  const at = () => from + Math.floor(rand() * (to - from));
  const base = { paywall_id: PAYWALL, user_id: userId, ...(audience === undefined ? {} : { audience }) };
  const events: SentEvent[] = [];
  const impressions = 1 + Math.floor(rand() * 3);
  const times = Array.from({ length: impressions }, at);
  for (const ts of times) events.push({ id: next(), type: 'screen_impression', ts, variant_id: variant, ...base });
  if (rand() < 0.06) events.push({ id: next(), type: 'screen_impression', ts: at(), variant_id: variants.find((v) => v !== variant)!, ...base });
  const first = Math.min(...times);
  if (rand() < 0.1 && first > from)
    events.push({ id: next(), type: 'purchase_complete', ts: from + Math.floor(rand() * (first - from)), revenue: 4.99, currency: 'USD', ...base });
  const buys = rand() < (variant === 'annual' ? 0.45 : 0.3) ? 1 + Math.floor(rand() * 2) : 0;
  for (let i = 0; i < buys; i++) {
    const ts = first + Math.floor(rand() * (to - first));
    const kind = rand();
    // A purchase a backend sends does not know the audience: it still counts for the user's segment.
    const sender = rand() < 0.3 ? { paywall_id: PAYWALL, user_id: userId } : base;
    const money = kind < 0.6 ? { revenue: [9.99, 49.99][Math.floor(rand() * 2)]!, currency: 'USD' } : kind < 0.85 ? { revenue: 8.99, currency: 'EUR' } : {};
    events.push({ id: next(), type: 'purchase_complete', ts, ...money, ...sender });
  }
  return events;
}

function close(actual: number | null, expected: number | null, message: string): void {
  if (expected === null || actual === null) {
    assert.equal(actual, expected, message);
    return;
  }
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${message}: ${actual} ≠ ${expected}`);
}

function closeInterval(actual: [number, number] | null, expected: [number, number] | null, message: string): void {
  if (expected === null || actual === null) {
    assert.equal(actual, expected, message);
    return;
  }
  close(actual[0], expected[0], `${message} low`);
  close(actual[1], expected[1], `${message} high`);
}

/** Compares a results answer with the figures computed from the sent events. */
function check(body: Json, events: SentEvent[], phase: Json, audience: string | null, weights: Record<string, number>): void {
  const variants = audience === null ? SEGMENTS.default! : SEGMENTS.vip!;
  const from = Date.parse(phase.started_at);
  const to = phase.ended_at === null ? null : Date.parse(phase.ended_at);
  const expected = expectedResults(events, PAYWALL, from, to, audience, variants);
  const where = `phase ${phase.number} ${audience ?? 'default'}`;
  assert.equal(body.paywall_id, PAYWALL);
  assert.equal(body.audience, audience);
  assert.deepEqual(body.phase, { number: phase.number, started_at: phase.started_at, ended_at: phase.ended_at, revision: phase.revision, weights });
  assert.equal(body.control, 'control');
  assert.equal(body.multiple_exposure_users, expected.multiple, where);
  assert.deepEqual(
    body.variants.map((v: Json) => v.variant_id),
    variants,
  );
  const nc = expected.exposed.control!;
  const cc = expected.conversions.control!;
  const currencies = [...expected.revenue.keys()].sort();
  assert.equal(body.analysis, 'sequential');
  const looks = [
    ...[...expected.days.values()].map((row) => ({
      exposed: Object.fromEntries(variants.map((v) => [v, row[v]?.[0] ?? 0])),
      conversions: Object.fromEntries(variants.map((v) => [v, row[v]?.[1] ?? 0])),
    })),
    { exposed: expected.exposed, conversions: expected.conversions },
  ];
  for (const variant of body.variants as Json[]) {
    const id = variant.variant_id as string;
    const n = expected.exposed[id]!;
    const c = expected.conversions[id]!;
    const at = `${where} ${id}`;
    assert.equal(variant.exposed_users, n, at);
    assert.equal(variant.conversions, c, at);
    assert.equal(variant.holdout, id === 'hold', at);
    close(variant.conversion_rate, n === 0 ? null : c / n, `${at} rate`);
    closeInterval(variant.conversion_rate_ci95, wilsonInterval(c, n), `${at} rate ci`);
    if (id === 'control') {
      assert.equal(variant.uplift, null);
      assert.equal(variant.p_value, null);
      assert.equal(variant.chance_to_beat_control, null);
    } else {
      const { now, p, ci } = monotone(looks, id);
      // Fieller's interval is unbounded while the control's rate is not told from 0 at the sequential critical value: no uplift then.
      close(variant.uplift?.relative ?? null, now?.relativeCi ? now.relative : null, `${at} uplift`);
      closeInterval(variant.uplift?.ci95 ?? null, now?.relativeCi ? ci : null, `${at} uplift ci`);
      close(variant.p_value, now === null ? null : p, `${at} p`);
      // The holdout is out of the decision's family, and the family here is one variant: each adjusted p is its own.
      close(variant.p_value_adjusted, now === null ? null : p, `${at} adjusted p`);
      close(variant.chance_to_beat_control, chanceToBeat(c, n, cc, nc), `${at} chance`);
    }
    assert.deepEqual(
      variant.revenue.map((r: Json) => r.currency),
      currencies,
      at,
    );
    for (const revenue of variant.revenue as Json[]) {
      const amounts = expected.revenue.get(revenue.currency)!.get(id)!;
      const { mean, sd } = moments(amounts, n);
      const payers = (list: number[]) => list.filter((amount) => amount > 0).length;
      close(
        revenue.total,
        amounts.reduce((a, b) => a + b, 0),
        `${at} ${revenue.currency} total`,
      );
      assert.equal(revenue.payers, payers(amounts), `${at} ${revenue.currency} payers`);
      close(revenue.per_exposed_user, mean, `${at} ${revenue.currency} mean`);
      const informed = payers(amounts) >= 2;
      closeInterval(
        revenue.per_exposed_user_ci95,
        informed ? [mean - (Z95 * sd) / Math.sqrt(n), mean + (Z95 * sd) / Math.sqrt(n)] : null,
        `${at} ${revenue.currency} ci`,
      );
      if (id === 'control') assert.equal(revenue.chance_to_beat_control, null);
      else {
        const theirs = expected.revenue.get(revenue.currency)!.get('control')!;
        const control = moments(theirs, nc);
        const both = informed && payers(theirs) >= 2;
        close(
          revenue.chance_to_beat_control,
          both ? normalCdf((mean - control.mean) / Math.sqrt((sd * sd) / n + (control.sd * control.sd) / nc)) : null,
          `${at} ${revenue.currency} chance`,
        );
      }
    }
  }
  // The holdout is in the SRM check, against its true share of the buckets.
  const shares = bucketShares(variants.map((v) => weights[v]!));
  const srm = sampleRatioMismatch(
    variants,
    shares,
    looks.map((look) => variants.map((v) => look.exposed[v]!)),
  );
  close(body.srm.p_value, srm.p_value, `${where} srm`);
  assert.equal(body.srm.ok, srm.ok);
  assert.deepEqual(body.srm.observed, { ...srm.observed });
  const totalConversions = variants.reduce((sum, v) => sum + expected.conversions[v]!, 0);
  assert.equal(body.enough_data, variants.every((v) => expected.exposed[v]! >= 100) && totalConversions >= 10, where);
  assert.deepEqual(
    body.days.map((day: Json) => [
      day.day,
      Object.fromEntries(Object.entries(day.variants as Record<string, Json>).map(([v, f]) => [v, [f.exposed_users, f.conversions]])),
    ]),
    [...expected.days].map(([day, row]) => [day, row]),
    where,
  );
}

const QUERIES: Record<string, string>[] = [{ phase: '1' }, { phase: '1', audience: 'vip' }, { phase: '2' }, { phase: '2', audience: 'vip' }];

test('results of two phases, two segments, a holdout, two currencies, shuffled and retried batches match a brute-force count of the events sent, and survive restarts with and without derived state', async (t) => {
  const { url, keys, server, dbPath } = await startTestServer(t);
  const secret = keys.secret;
  await publish(url, secret, { control: 50, annual: 50 });
  const s1 = Date.parse((await phases(url, secret))[0]!.started_at);
  // Phase 1 gets a window of its own: the next publish comes at least 2 s later.
  await until(() => Date.now() >= s1 + 2000, 'two seconds into the first phase');
  await publish(url, secret, { control: 60, annual: 40 });
  const listed = await phases(url, secret);
  assert.equal(listed.length, 2);
  assert.equal(listed[0]!.ended_at, listed[1]!.started_at);
  const s2 = Date.parse(listed[1]!.started_at);

  const rand = random(12);
  let serial = 0;
  const next = () => `e${serial++}`;
  const events: SentEvent[] = [];
  for (let u = 0; u < 360; u++) {
    const audience = rand() < 0.35 ? 'vip' : undefined;
    if (rand() < 0.4) events.push(...userEvents(rand, `u${u}`, s1, s2, audience, next));
    // Phase 2 lasts into tomorrow (events may be up to 24 h ahead of the server), so days have more than one row.
    if (rand() < 0.8) events.push(...userEvents(rand, `u${u}`, s2, s2 + 20 * 3600_000, audience, next));
  }
  // Not in results: before any phase, without a user, and of another paywall.
  events.push({ id: next(), type: 'screen_impression', paywall_id: PAYWALL, ts: s1 - 5000, user_id: 'early', variant_id: 'annual' });
  events.push({ id: next(), type: 'screen_impression', paywall_id: PAYWALL, ts: s2 + 10, variant_id: 'annual' });
  // Exactly at the boundary: phase 2.
  events.push({ id: next(), type: 'screen_impression', paywall_id: PAYWALL, ts: s2, user_id: 'boundary', variant_id: 'control' });
  const send = (batch: Json[]) => ingest(url, keys.sdk, { events: batch });
  // Results asked between batches: the server's folds are then brought up to date batch by batch, where
  // a late impression moves a user's first exposure before purchases already counted or left out.
  await sendShuffled(send, events, rand, async () => {
    for (const query of QUERIES) await results(url, secret, query);
  });
  // An in-batch duplicate: stored once.
  const dup = { id: 'dup', type: 'purchase_complete', paywall_id: PAYWALL, ts: s2 + 60_000, user_id: 'boundary', revenue: 1, currency: 'USD' };
  assert.deepEqual(await send([dup, dup]), { accepted: 1, duplicates: 1, rejected: [] });
  events.push(dup);

  const weights = (phase: Json, audience: string | null): Record<string, number> =>
    audience === null ? { annual: phase.weights.annual, control: phase.weights.control, hold: 20 } : { annual: 3, control: 1 };
  const answers: Json[] = [];
  for (const phase of listed) {
    for (const audience of [null, 'vip']) {
      const body = await results(url, secret, { phase: String(phase.number), ...(audience ? { audience } : {}) });
      check(body, events, phase, audience, weights(phase, audience));
      answers.push(body);
    }
  }
  // Defaults: the current phase, the default split.
  assert.deepEqual(await results(url, secret), answers[2]);

  // From the checkpoint, then with every derived table emptied: the same answers.
  await server.stop();
  const again = await serverOn(t, dbPath);
  for (const [i, query] of QUERIES.entries()) {
    assert.deepEqual(await results(again.url, secret, query), answers[i]);
  }
  // serve owns its database file: one server at a time.
  await again.server.stop();
  // SQLite's writer keeps its derived state in tables; PostgreSQL's instances share whole checkpoints.
  const db = openTestSql(t, dbPath);
  const derived = db.backend === 'sqlite' ? ['event_checkpoint', 'event_experiment_chunks', 'event_experiment_segments', 'event_users'] : ['event_checkpoints'];
  for (const table of derived) await db.run(`DELETE FROM ${table}`);
  const rebuilt = await restartServer(t, dbPath, { port: 0 });
  for (const [i, query] of QUERIES.entries()) {
    assert.deepEqual(await results(rebuilt, secret, query), answers[i]);
  }
});

test('a publish that keeps the split keeps the phase; new_phase starts one; results start empty in a new phase and CSV lists the variants', async (t) => {
  const { url, keys } = await startTestServer(t);
  await publish(url, keys.secret, { control: 50, annual: 50 });
  const [phase] = await phases(url, keys.secret);
  await ingest(url, keys.sdk, {
    events: [
      { type: 'screen_impression', paywall_id: PAYWALL, ts: Date.now(), user_id: 'a', variant_id: 'control' },
      { type: 'purchase_complete', paywall_id: PAYWALL, ts: Date.now() + 1000, user_id: 'a', revenue: 9.99, currency: 'USD' },
    ],
  });
  const csv = await api(url, keys.secret, `/api/paywalls/${PAYWALL}/results?format=csv`);
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get('content-type')!, /^text\/csv/);
  const lines = (await csv.text()).trimEnd().split('\r\n');
  assert.equal(lines.length, 4);
  assert.ok(lines[0]!.startsWith('variant_id,control,exposed_users,conversions,conversion_rate,'));
  assert.ok(lines[0]!.includes(',p_value_adjusted,chance_to_be_best,mde_relative,analysis,'), lines[0]);
  assert.ok(lines[0]!.includes(',revenue_difference_ci95_high_USD,revenue_winsorized_at_USD,revenue_payers_USD,'), lines[0]);
  assert.ok(lines[0]!.endsWith(',revenue_users_capped_USD,revenue_variance_reduction_USD'), lines[0]);
  assert.ok(lines[2]!.startsWith('control,true,1,1,1,'), lines[2]);

  // A text change keeps the phase (same split); new_phase starts one.
  await publish(url, keys.secret, { control: 50, annual: 50 });
  assert.equal((await phases(url, keys.secret)).length, 1);
  await publish(url, keys.secret, { control: 50, annual: 50 }, { new_phase: true });
  const listed = await phases(url, keys.secret);
  assert.deepEqual(
    listed.map((p: Json) => [p.number, p.revision]),
    [
      [1, phase!.revision],
      [2, 3],
    ],
  );
  const current = await results(url, keys.secret);
  assert.equal(current.phase.number, 2);
  assert.ok(current.variants.every((v: Json) => v.exposed_users === 0 && v.conversion_rate === null && v.revenue.length === 0));
  assert.equal(current.srm.p_value, null);
  assert.equal(current.enough_data, false);
});

test('unknown phases and audiences are 404 problems, bad queries 400, bad revenue rejects its event by index', async (t) => {
  const { url, keys } = await startTestServer(t);
  const never = await api(url, keys.secret, `/api/paywalls/${PAYWALL}/results`);
  assert.equal(never.status, 404);
  assert.equal((await never.json()).code, 'paywall_not_found');
  await publish(url, keys.secret, { control: 50, annual: 50 });
  for (const [query, status, code] of [
    ['phase=7', 404, 'phase_not_found'],
    ['audience=nobody', 404, 'audience_not_found'],
    ['phase=0', 400, 'invalid_query'],
    ['phase=x', 400, 'invalid_query'],
    ['format=xml', 400, 'invalid_query'],
  ] as const) {
    const response = await api(url, keys.secret, `/api/paywalls/${PAYWALL}/results?${query}`);
    assert.equal(response.status, status, query);
    assert.match(response.headers.get('content-type')!, /^application\/problem\+json/);
    assert.equal((await response.json()).code, code, query);
  }
  assert.equal((await api(url, keys.sdk, `/api/paywalls/${PAYWALL}/results`)).status, 403);

  const ts = Date.now();
  const purchase = { type: 'purchase_complete', paywall_id: PAYWALL, ts, user_id: 'u' };
  const body = JSON.stringify({
    events: [
      { ...purchase, revenue: 9.99 },
      { ...purchase, revenue: -1, currency: 'USD' },
      { ...purchase, revenue: 1, currency: 'usd' },
      { ...purchase, revenue: 1, currency: 'USDX' },
      { ...purchase, revenue: 'ten', currency: 'USD' },
      { type: 'screen_impression', paywall_id: PAYWALL, ts, user_id: 'u', revenue: 1, currency: 'USD' },
      { ...purchase, audience: '' },
      { ...purchase, revenue: 0, currency: 'EUR', audience: null },
    ],
  }).replace('"revenue":"ten"', '"revenue":1e999');
  const response = await fetch(`${url}/api/sdk/events`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(keys.sdk) }, body });
  const answer = await response.json();
  assert.equal(response.status, 200);
  assert.equal(answer.accepted, 1);
  assert.deepEqual(
    answer.rejected.map((r: Json) => [r.index, r.code, r.message]),
    [
      [0, 'invalid_event', 'currency is required with revenue'],
      [1, 'invalid_event', 'revenue must not be negative'],
      [2, 'invalid_event', 'currency must be an ISO 4217 code: three capital letters'],
      [3, 'invalid_event', 'currency must be an ISO 4217 code: three capital letters'],
      [4, 'revenue_out_of_range', 'revenue must be a finite number'],
      [5, 'invalid_event', 'revenue is only accepted on purchase_complete'],
      [6, 'invalid_event', 'audience must not be empty'],
    ],
  );
});
