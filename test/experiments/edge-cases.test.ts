/**
 * Edge cases of experiment results, through the real server: 0 % and 100 %
 * conversion, one variant, revenue at the 1e9 cap, purchases before the
 * exposure, a user exposed twice, weights 1:19999, the conversion window,
 * the analysis override and the decision.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usersNeededPerVariant } from '../../src/experiments/power.ts';
import { ingest } from '../helpers/events.ts';
import type { Json } from '../helpers/json.ts';
import { bearer, startTestServer } from '../helpers/server.ts';

async function api(url: string, secret: string, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}${path}`, { ...init, headers: { 'content-type': 'application/json', ...bearer(secret) } });
}

function document(variants: Json[], experiment?: Json): Json {
  return {
    name: 'Edge',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro' } },
    root: { type: 'text', props: { text_key: 'title' } },
    variants,
    ...(experiment ? { experiment } : {}),
  };
}

async function publish(url: string, secret: string, id: string, doc: Json): Promise<void> {
  const put = await api(url, secret, `/api/paywalls/${id}`, { method: 'PUT', body: JSON.stringify(doc) });
  assert.ok(put.status === 200 || put.status === 201, await put.text());
  const published = await api(url, secret, `/api/paywalls/${id}/publish`, { method: 'POST', body: '' });
  assert.equal(published.status, 200, await published.text());
}

async function results(url: string, secret: string, id: string, query = ''): Promise<Json> {
  const response = await api(url, secret, `/api/paywalls/${id}/results${query}`);
  assert.equal(response.status, 200, await response.clone().text());
  return response.json();
}

/** Sends events in batches of 1000 and checks all were stored. */
async function send(url: string, key: string, events: Json[]): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) {
    const answer = await ingest(url, key, { events: events.slice(i, i + 1000) });
    assert.deepEqual(answer.rejected, []);
  }
}

/** Impressions of `n` users of `variant`, the first `buyers` of whom buy a second later. */
function users(paywall: string, variant: string, n: number, buyers: number, at: number, extra: Json = {}): Json[] {
  const events: Json[] = [];
  for (let u = 0; u < n; u++) {
    const user_id = `${variant}-${u}`;
    events.push({ type: 'screen_impression', paywall_id: paywall, ts: at, user_id, variant_id: variant });
    if (u < buyers) events.push({ type: 'purchase_complete', paywall_id: paywall, ts: at + 1000, user_id, ...extra });
  }
  return events;
}

test('0 % and 100 % conversion give null comparisons, never 0 or a degenerate interval; one variant has none', async (t) => {
  const { url, keys } = await startTestServer(t);
  await publish(
    url,
    keys.secret,
    'zero',
    document([
      { id: 'a', weight: 50 },
      { id: 'b', weight: 50 },
    ]),
  );
  const now = Date.now();
  await send(url, keys.sdk, [...users('zero', 'a', 120, 0, now), ...users('zero', 'b', 120, 0, now)]);
  const zero = await results(url, keys.secret, 'zero');
  assert.deepEqual(
    zero.variants.map((v: Json) => [v.conversion_rate, v.uplift, v.p_value, v.mde_relative]),
    [
      [0, null, null, null],
      [0, null, null, null],
    ],
  );
  assert.equal(zero.power.users_needed_per_variant, null);
  assert.equal(zero.decision.status, 'not_enough_data');
  const best = zero.variants.map((v: Json) => v.chance_to_be_best);
  assert.ok(Math.abs(best[0] - 0.5) < 1e-9 && Math.abs(best[0] + best[1] - 1) < 1e-12, String(best));

  await publish(
    url,
    keys.secret,
    'all',
    document([
      { id: 'a', weight: 50 },
      { id: 'b', weight: 50 },
    ]),
  );
  // Each paywall's events come after its publish: earlier ones are in no phase.
  await send(url, keys.sdk, [...users('all', 'a', 120, 120, Date.now()), ...users('all', 'b', 120, 120, Date.now())]);
  const all = await results(url, keys.secret, 'all');
  assert.equal(all.variants[1].conversion_rate, 1);
  assert.equal(all.variants[1].uplift, null);
  assert.equal(all.variants[1].p_value, null);
  // No lift of a rate at 100 % can be detected, nor planned.
  assert.equal(all.variants[1].mde_relative, null);
  assert.equal(all.power.users_needed_per_variant, null);
  assert.equal(all.decision.status, 'keep_running');

  await publish(url, keys.secret, 'one', document([{ id: 'only', weight: 1 }]));
  await send(url, keys.sdk, users('one', 'only', 150, 20, Date.now()));
  const one = await results(url, keys.secret, 'one');
  assert.equal(one.variants.length, 1);
  assert.equal(one.variants[0].chance_to_be_best, 1);
  assert.equal(one.variants[0].uplift, null);
  assert.equal(one.srm.p_value, null);
  assert.equal(one.decision.status, 'keep_running');
});

test('revenue at 1e9 is summed and finite, above it rejected by index; purchases before exposure and a second impression change nothing', async (t) => {
  const { url, keys } = await startTestServer(t);
  await publish(
    url,
    keys.secret,
    'rev',
    document(
      [
        { id: 'a', weight: 50, control: true },
        { id: 'b', weight: 50 },
      ],
      { min_payers_per_variant: 10, analysis: 'fixed' },
    ),
  );
  const now = Date.now();
  const events = [...users('rev', 'a', 100, 10, now, { revenue: 1e9, currency: 'USD' }), ...users('rev', 'b', 100, 12, now, { revenue: 1e9, currency: 'USD' })];
  // A purchase before the exposure, and a second impression of the same variant later.
  events.push({ type: 'purchase_complete', paywall_id: 'rev', ts: now - 5000, user_id: 'a-50', revenue: 5, currency: 'USD' });
  events.push({ type: 'screen_impression', paywall_id: 'rev', ts: now + 9000, user_id: 'a-0', variant_id: 'a' });
  await send(url, keys.sdk, events);
  const over = await ingest(url, keys.sdk, {
    events: [{ type: 'purchase_complete', paywall_id: 'rev', ts: now + 2000, user_id: 'b-0', revenue: 1e9 + 1, currency: 'USD' }],
  });
  assert.deepEqual(
    over.rejected.map((r: Json) => [r.index, r.code]),
    [[0, 'revenue_out_of_range']],
  );
  const body = await results(url, keys.secret, 'rev');
  const [a, b] = body.variants;
  assert.deepEqual([a.exposed_users, a.conversions, b.conversions], [100, 10, 12]);
  // The purchase before the exposure counts nowhere but as a-50's history (CUPED's covariate).
  assert.deepEqual([a.users_with_history, b.users_with_history], [1, 0]);
  assert.equal(a.revenue[0].total, 1e10);
  assert.equal(b.revenue[0].total, 1.2e10);
  assert.ok(Number.isFinite(b.revenue[0].uplift.relative) && Number.isFinite(b.revenue[0].difference.ci95[1]));
  assert.ok(Math.abs(b.revenue[0].difference.value - 2e7) < 1e-3);
  const csv = await (await api(url, keys.secret, '/api/paywalls/rev/results?format=csv')).text();
  assert.doesNotMatch(csv, /Infinity|NaN/);
});

test('weights 1:19999 that the data follow pass the SRM check; a holdout that loses users fails it and the decision says so', async (t) => {
  const { url, keys } = await startTestServer(t);
  await publish(
    url,
    keys.secret,
    'skew',
    document([
      { id: 'a', weight: 1 },
      { id: 'b', weight: 19999 },
    ]),
  );
  const now = Date.now();
  // 1 bucket of 10,000 against 9,999: 2 and 19,998 users of 20,000 follow the assignment exactly.
  await send(url, keys.sdk, [...users('skew', 'a', 2, 0, now), ...users('skew', 'b', 19998, 0, now)]);
  const skew = await results(url, keys.secret, 'skew');
  assert.deepEqual(skew.srm.expected, { a: 2, b: 19998 });
  assert.equal(skew.srm.ok, true);

  await publish(
    url,
    keys.secret,
    'hold',
    document([
      { id: 'a', weight: 45 },
      { id: 'b', weight: 45 },
      { id: 'h', weight: 10, holdout: true },
    ]),
  );
  const later = Date.now();
  await send(url, keys.sdk, [...users('hold', 'a', 900, 90, later), ...users('hold', 'b', 900, 95, later), ...users('hold', 'h', 30, 0, later)]);
  const hold = await results(url, keys.secret, 'hold');
  assert.equal(hold.srm.observed.h, 30);
  assert.equal(hold.srm.ok, false);
  assert.equal(hold.decision.status, 'srm_failed');
});

test('the analysis setting and its override, Holm, the conversion window, power and a winner', async (t) => {
  const { url, keys } = await startTestServer(t);
  const variants = [
    { id: 'c', weight: 1 },
    { id: 'x', weight: 1 },
    { id: 'y', weight: 1 },
  ];
  await publish(url, keys.secret, 'win', document(variants, { analysis: 'fixed', target_uplift: 0.2, conversion_window_hours: 1 }));
  const now = Date.now();
  const events = [...users('win', 'c', 2000, 100, now), ...users('win', 'x', 2000, 200, now), ...users('win', 'y', 2000, 110, now)];
  // Bought two hours after the first exposure: out of the one-hour window.
  for (let u = 1000; u < 1100; u++) events.push({ type: 'purchase_complete', paywall_id: 'win', ts: now + 2 * 3600_000 - 60_000, user_id: `c-${u}` });
  await send(url, keys.sdk, events);
  const fixed = await results(url, keys.secret, 'win');
  assert.equal(fixed.analysis, 'fixed');
  assert.equal(fixed.conversion_window_hours, 1);
  assert.equal(fixed.variants[0].conversions, 100);
  const [x, y] = [fixed.variants[1], fixed.variants[2]];
  assert.ok(Math.abs(x.uplift.relative - 1) < 1e-12);
  assert.equal(x.uplift.p_value_adjusted, Math.min(1, Math.max(2 * x.uplift.p_value)));
  assert.equal(y.uplift.p_value_adjusted, Math.max(x.uplift.p_value_adjusted, y.uplift.p_value));
  assert.deepEqual(fixed.decision.status, 'winner');
  assert.equal(fixed.decision.variant, 'x');
  assert.match(fixed.decision.reason, /^Variant x beats the control/);
  assert.equal(fixed.power.target_uplift, 0.2);
  // Planned on the control's 5 %, for the fixed analysis, at 0.05 / 2 comparisons (statistics.unit.test.ts checks the plan against SciPy).
  const planned = usersNeededPerVariant({ analysis: 'fixed', comparisons: 2, kind: 'rate', mean: 0.05, variance: 0, reduction: 0, perLook: null }, 0.2);
  assert.deepEqual([fixed.power.users_needed_per_variant, fixed.power.comparisons, fixed.power.analysis], [planned, 2, 'fixed']);
  const sequential = await results(url, keys.secret, 'win', '?analysis=sequential');
  assert.equal(sequential.analysis, 'sequential');
  assert.ok(sequential.variants[1].uplift.p_value > x.uplift.p_value);
  assert.ok(sequential.variants[1].uplift.ci95[1] - 1 > x.uplift.ci95[1] - 1);
  const bad = await api(url, keys.secret, '/api/paywalls/win/results?analysis=bayes');
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).code, 'invalid_query');
});

test('winsorizing caps each payer at the nearest-rank percentile for inference only, and a revenue primary metric decides on revenue', async (t) => {
  const { url, keys } = await startTestServer(t);
  const variants = [
    { id: 'c', weight: 1 },
    { id: 'v', weight: 1 },
  ];
  await publish(url, keys.secret, 'cap', document(variants, { revenue_winsorize_percentile: 90, primary_metric: 'revenue:USD', min_payers_per_variant: 5 }));
  const now = Date.now();
  const events = [...users('cap', 'c', 100, 0, now), ...users('cap', 'v', 100, 0, now)];
  // Ten payers per variant paying 1…10; one whale in v pays 1000 (and 5 in EUR, capped on its own).
  for (let u = 0; u < 10; u++) {
    for (const variant of ['c', 'v']) {
      const revenue = variant === 'v' && u === 9 ? 1000 : u + 1;
      events.push({ type: 'purchase_complete', paywall_id: 'cap', ts: now + 1000, user_id: `${variant}-${u}`, revenue, currency: 'USD' });
    }
  }
  events.push({ type: 'purchase_complete', paywall_id: 'cap', ts: now + 1000, user_id: 'v-0', revenue: 5, currency: 'EUR' });
  await send(url, keys.sdk, events);
  const body = await results(url, keys.secret, 'cap');
  const usd = (variant: Json) => variant.revenue.find((entry: Json) => entry.currency === 'USD');
  // 20 USD payers: 1,1,2,2,…,9,9,10,1000; the 90th percentile by nearest rank is the 18th smallest, 9.
  assert.deepEqual([usd(body.variants[0]).cap_value, usd(body.variants[0]).winsorized_at], [9, 9]);
  // Totals and per-user revenue are never capped; the cap applies to what the interval and the tests read:
  // c: 1…9 and 10 capped at 9; v: 1…9 and the whale capped at 9.
  assert.deepEqual([usd(body.variants[0]).total, usd(body.variants[1]).total], [55, 1045]);
  assert.deepEqual([usd(body.variants[0]).gross - usd(body.variants[0]).refunded, usd(body.variants[1]).per_exposed_user], [55, 10.45]);
  assert.deepEqual([usd(body.variants[0]).per_exposed_user_capped, usd(body.variants[1]).per_exposed_user_capped], [0.54, 0.54]);
  assert.deepEqual([usd(body.variants[0]).users_capped, usd(body.variants[1]).users_capped], [1, 1]);
  assert.equal(usd(body.variants[1]).difference.value, 0);
  const [low, high] = usd(body.variants[0]).per_exposed_user_ci95;
  assert.ok(low < 0.54 && high > 0.54 && Math.abs(low + high - 1.08) < 1e-9, 'the interval is about the capped mean');
  assert.equal(body.variants[1].revenue[0].currency, 'EUR');
  assert.equal(body.variants[1].revenue[0].cap_value, 5);
  assert.equal(body.primary_metric, 'revenue:USD');
  // Equal capped revenue: no conclusion, said of revenue in USD.
  assert.equal(body.decision.status, 'keep_running');
  assert.match(body.decision.reason, /revenue per exposed user in USD/);
});
