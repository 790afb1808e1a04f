/**
 * The decision's rules of issue 35 through the real server: an arm with no
 * conversion still has a test and holdouts are out of the decision's
 * family; revenue gets intervals only from 100 payers per arm; a guardrail
 * stops a winner; CUPED finds purchases before the exposure through identify
 * links and is on by default from 10 % of users with such a history.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ingest } from '../helpers/events.ts';
import type { Json } from '../helpers/json.ts';
import { api } from '../helpers/paywalls.ts';
import { startTestServer } from '../helpers/server.ts';

function document(variants: Json[], experiment: Json): Json {
  return {
    name: 'Decisions',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro' } },
    root: { type: 'text', props: { text_key: 'title' } },
    variants,
    experiment,
  };
}

/** Impressions of users `${variant}-0…n−1` now, and a purchase a second later by the first `buyers` (with `money`). */
function users(paywall: string, variant: string, n: number, buyers: number, at: number, money: Json = {}): Json[] {
  const events: Json[] = [];
  for (let u = 0; u < n; u++) {
    const user_id = `${variant}-${u}`;
    events.push({ type: 'screen_impression', paywall_id: paywall, ts: at, user_id, variant_id: variant });
    if (u < buyers) events.push({ type: 'purchase_complete', paywall_id: paywall, ts: at + 1000, user_id, ...money });
  }
  return events;
}

async function send(url: string, key: string, events: Json[]): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) assert.deepEqual((await ingest(url, key, { events: events.slice(i, i + 1000) })).rejected, []);
}

test('an arm with no conversion is tested, and a holdout is out of the decision: every treatment worse is control_best', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  const variants = [
    { id: 'c', weight: 1, control: true },
    { id: 'b', weight: 1 },
    { id: 'h', weight: 1, holdout: true },
  ];
  await client.putPaywall('zero', document(variants, { analysis: 'fixed' }));
  await client.publish('zero');
  const now = Date.now();
  await send(server.url, server.keys.sdk, [...users('zero', 'c', 300, 30, now), ...users('zero', 'b', 300, 0, now), ...users('zero', 'h', 300, 0, now)]);
  const body = (await (await client.request('GET', '/api/paywalls/zero/results')).json()) as Json;
  const [, b, h] = body.variants;
  // b converts nobody: its test exists (the pooled variance), and its ratio's interval stops at −100 %.
  assert.ok(b.p_value < 0.001, `p ${b.p_value}`);
  assert.equal(b.p_value_adjusted, b.p_value, 'the family is b alone: the holdout is not in it');
  assert.ok(Math.abs(b.difference + 0.1) < 1e-12);
  assert.deepEqual([b.uplift.relative, b.uplift.ci95[0]], [-1, -1]);
  assert.deepEqual([b.holdout, h.holdout], [false, true]);
  assert.equal(body.power.comparisons, 1);
  assert.equal(body.decision.status, 'control_best');
  // The holdout answers incrementality instead: what showing the paywall adds, here to the control (a ratio over 0 has no value).
  const shown = body.incrementality.find((entry: Json) => entry.variant === 'c');
  assert.deepEqual([shown.holdout, shown.relative], ['h', null]);
  assert.ok(shown.p_value < 0.001);
});

test('revenue gets intervals and tests only from min_payers_per_variant payers in each arm: counts and totals before', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  const variants = [
    { id: 'c', weight: 1 },
    { id: 'v', weight: 1 },
  ];
  await client.putPaywall('money', document(variants, { primary_metric: 'revenue:USD', analysis: 'fixed' }));
  await client.publish('money');
  const now = Date.now();
  const money = { revenue: 9.99, currency: 'USD' };
  await send(server.url, server.keys.sdk, [
    ...users('money', 'c', 150, 40, now, money),
    ...users('money', 'v', 150, 60, now, { revenue: 12.99, currency: 'USD' }),
  ]);
  const read = async () => (await (await client.request('GET', '/api/paywalls/money/results')).json()) as Json;
  const few = await read();
  const usd = few.variants[1].revenue[0];
  assert.deepEqual([usd.payers, few.variants[0].revenue[0].payers], [60, 40]);
  assert.ok(Math.abs(usd.total - 60 * 12.99) < 1e-9);
  assert.ok(Math.abs(usd.per_exposed_user - (60 * 12.99) / 150) < 1e-12);
  assert.deepEqual([usd.per_exposed_user_ci95, usd.uplift, usd.difference, usd.chance_to_beat_control], [null, null, null, null]);
  assert.equal(few.min_payers_per_variant, 100);
  assert.equal(few.enough_data, false);
  assert.equal(few.decision.status, 'not_enough_data');
  assert.match(few.decision.reason, /100 payers in every variant/);
  // The setting lowers the minimum (changing it starts no phase): the intervals and the decision follow.
  await client.putPaywall('money', document(variants, { primary_metric: 'revenue:USD', analysis: 'fixed', min_payers_per_variant: 40 }));
  await client.publish('money');
  const enough = await read();
  assert.equal(enough.phase.number, few.phase.number);
  const informed = enough.variants[1].revenue[0];
  assert.ok(informed.per_exposed_user_ci95 !== null && informed.uplift !== null && informed.difference.p_value < 0.05);
  assert.equal(enough.decision.status, 'winner');
  assert.equal(enough.power.users_needed_per_variant > 0, true);
});

/** Purchase records: a sale of 9.99 per user, and a refund of it for the refunded ones (linked by its transaction). */
function sales(users: string[], refunded: number, at: number, paywall: string): Json[] {
  return users.flatMap((user, i) => {
    const base = { user_id: user, store: 'app_store', store_product_id: 'pro', currency: 'USD', original_transaction_id: `t-${user}`, paywall_id: paywall };
    const sale = { ...base, id: `sale-${user}`, type: 'initial_purchase', ts: at + 2000, revenue: 9.99 };
    return i < refunded ? [sale, { ...base, id: `refund-${user}`, type: 'refund', ts: at + 3000, revenue: 9.99 }] : [sale];
  });
}

test('a guardrail stops a winner that is significantly worse on it, and says which', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  const variants = [
    { id: 'c', weight: 1 },
    { id: 'b', weight: 1 },
  ];
  const settings = { analysis: 'fixed', guardrails: ['refund_rate', 'trial_cancellation_rate'] };
  await client.putPaywall('guard', document(variants, settings));
  await client.publish('guard');
  const now = Date.now();
  await send(server.url, server.keys.sdk, [...users('guard', 'c', 400, 0, now), ...users('guard', 'b', 400, 0, now)]);
  const buyers = (variant: string, n: number) => Array.from({ length: n }, (_, u) => `${variant}-${u}`);
  const records = [...sales(buyers('c', 80), 4, now, 'guard'), ...sales(buyers('b', 160), 80, now, 'guard')];
  for (let i = 0; i < records.length; i += 1000) {
    const answer = (await (await client.request('POST', '/api/purchases', { body: { purchases: records.slice(i, i + 1000) } })).json()) as Json;
    assert.deepEqual(answer.rejected, []);
  }
  const read = async () => (await (await client.request('GET', '/api/paywalls/guard/results')).json()) as Json;
  let body!: Json;
  // Records reach the writer's fold on its own schedule.
  for (let tries = 0; tries < 100 && body?.variants?.[1]?.refunded_users !== 80; tries++) body = await read();
  const b = body.variants[1];
  assert.deepEqual([b.conversions, b.refunded_users, body.variants[0].refunded_users], [160, 80, 4]);
  assert.deepEqual(body.guardrails, { metrics: ['refund_rate', 'trial_cancellation_rate'], alpha: 0.05 });
  const [refunds, cancellations] = b.guardrails;
  assert.deepEqual([refunds.metric, refunds.users, refunds.out_of, refunds.rate, refunds.failed], ['refund_rate', 80, 160, 0.5, true]);
  assert.ok(refunds.p_value < 0.001);
  assert.deepEqual([cancellations.metric, cancellations.rate, cancellations.failed], ['trial_cancellation_rate', null, false]);
  assert.deepEqual([body.decision.status, body.decision.variant, body.decision.guardrail], ['guardrail_failed', 'b', 'refund_rate']);
  assert.match(body.decision.reason, /significantly worse on its refund rate guardrail/);
  const csv = await (await client.request('GET', '/api/paywalls/guard/results?format=csv')).text();
  assert.ok(
    csv
      .split('\r\n')[0]!
      .endsWith(
        ',guardrail_refund_rate_rate,guardrail_refund_rate_p_value,guardrail_refund_rate_failed,guardrail_trial_cancellation_rate_rate,guardrail_trial_cancellation_rate_p_value,guardrail_trial_cancellation_rate_failed',
      ),
  );
  // Without the guardrail, the same data crown b.
  await client.putPaywall('guard', document(variants, { analysis: 'fixed' }));
  await client.publish('guard');
  const free = await read();
  assert.deepEqual([free.decision.status, free.decision.variant, free.decision.guardrail], ['winner', 'b', null]);
  assert.deepEqual(free.variants[1].guardrails, []);
});

test('CUPED reads purchases before the exposure through identify links, is on from 10 % of users with history, and off when set', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  const variants = [
    { id: 'c', weight: 1 },
    { id: 'v', weight: 1 },
  ];
  await client.putPaywall('cuped', document(variants, { analysis: 'fixed' }));
  await client.publish('cuped');
  const now = Date.now();
  // 200 anonymous users per arm; the 30 % who bought before (as their signed-in id) buy again more often.
  const events: Json[] = [];
  const earlier: Json[] = [];
  for (const variant of ['c', 'v']) {
    for (let u = 0; u < 200; u++) {
      const known = u % 10 < 3;
      const anonymous = `anon-${variant}-${u}`;
      events.push({ type: 'screen_impression', paywall_id: 'cuped', ts: now, user_id: anonymous, variant_id: variant });
      if (known ? u % 2 === 0 : u % 10 === 9 || (variant === 'v' && u % 10 === 8))
        events.push({ type: 'purchase_complete', paywall_id: 'cuped', ts: now + 1000, user_id: anonymous });
      if (known) earlier.push(...sales([`user-${variant}-${u}`], 0, now - 60_000, 'cuped'));
    }
  }
  await send(server.url, server.keys.sdk, events);
  assert.deepEqual(((await (await client.request('POST', '/api/purchases', { body: { purchases: earlier } })).json()) as Json).rejected, []);
  const read = async () => (await (await client.request('GET', '/api/paywalls/cuped/results')).json()) as Json;
  // The earlier purchases are of ids the events never saw: no history yet.
  const unlinked = await read();
  assert.deepEqual([unlinked.variants[0].users_with_history, unlinked.cuped.enabled, unlinked.cuped.history_share], [0, false, 0]);
  for (const variant of ['c', 'v']) {
    for (let u = 0; u < 200; u++) {
      if (u % 10 >= 3) continue;
      const linked = await client.request('POST', '/api/sdk/identify', { body: { anonymous_id: `anon-${variant}-${u}`, user_id: `user-${variant}-${u}` } });
      assert.equal(linked.status, 200, await linked.text());
    }
  }
  let body!: Json;
  for (let tries = 0; tries < 100 && body?.variants?.[1]?.users_with_history !== 60; tries++) body = await read();
  assert.deepEqual([body.variants[0].users_with_history, body.variants[1].users_with_history], [60, 60]);
  assert.deepEqual([body.cuped.enabled, body.cuped.history_share], [true, 0.3]);
  const conversion = body.cuped.metrics.find((entry: Json) => entry.metric === 'conversion');
  assert.ok(conversion.variance_reduction > 0.05 && conversion.theta > 0, JSON.stringify(conversion));
  assert.equal(body.power.variance_reduction, conversion.variance_reduction);
  // Set off, it is off whatever the history.
  await client.putPaywall('cuped', document(variants, { analysis: 'fixed', cuped: false }));
  await client.publish('cuped');
  const off = await read();
  assert.equal(off.cuped.enabled, false);
  assert.deepEqual([off.cuped.metrics[0].theta, off.cuped.metrics[0].variance_reduction, off.power.variance_reduction], [0, 0, 0]);
  // The covariate explains part of who converts: the adjusted test is the sharper one.
  assert.ok(off.variants[1].p_value > body.variants[1].p_value, `${off.variants[1].p_value} vs ${body.variants[1].p_value}`);
});

test('the experiment settings of issue 35 refuse what they cannot mean, each at its pointer', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  const variants = [{ id: 'c', weight: 1 }];
  const bad: [Json, string][] = [
    [{ guardrails: ['bounce_rate'] }, '/experiment/guardrails/0'],
    [{ guardrails: ['refund_rate', 'refund_rate'] }, '/experiment/guardrails/1'],
    [{ guardrails: 'refund_rate' }, '/experiment/guardrails'],
    [{ cuped: 'yes' }, '/experiment/cuped'],
    [{ loss_threshold: 1.5 }, '/experiment/loss_threshold'],
    [{ loss_threshold: -0.01 }, '/experiment/loss_threshold'],
    [{ min_payers_per_variant: 1 }, '/experiment/min_payers_per_variant'],
    [{ min_payers_per_variant: 50.5 }, '/experiment/min_payers_per_variant'],
  ];
  for (const [experiment, path] of bad) {
    const refused = await client.request('PUT', '/api/paywalls/bad', { body: document(variants, experiment) });
    assert.equal(refused.status, 422, JSON.stringify(experiment));
    const problem = (await refused.json()) as Json;
    assert.ok(
      problem.errors.some((error: Json) => error.path === path),
      `${JSON.stringify(experiment)}: ${JSON.stringify(problem.errors)}`,
    );
  }
  await client.putPaywall('good', document(variants, { guardrails: ['conversion'], cuped: true, loss_threshold: 0, min_payers_per_variant: 2 }));
});
