import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ingest } from '../helpers/events.ts';
import { type Exposure, exposedUsers } from '../helpers/exposures.ts';
import type { Json } from '../helpers/json.ts';
import { api } from '../helpers/paywalls.ts';
import { startTestServer } from '../helpers/server.ts';
import { random } from './workload.ts';

const VARIANTS = ['control', 'b', 'c'];
/** The chance that a user of each variant starts a trial: b clearly more than the control, c about the same. */
const TRIAL_RATE: Record<string, number> = { control: 0.15, b: 0.4, c: 0.16 };
const USERS_PER_VARIANT = 400;
const HOUR = 3_600_000;

function paywall(primaryMetric: string): Json {
  return {
    name: 'Trial test',
    default_locale: 'en',
    strings: { en: { title: 'Try Pro free' } },
    root: { type: 'text', props: { text_key: 'title' } },
    variants: VARIANTS.map((id) => ({ id, weight: 1, ...(id === 'control' ? { control: true } : {}) })),
    experiment: { primary_metric: primaryMetric },
  };
}

interface TrialRecord {
  user: string;
  ts: number;
  type: string;
  paywall: string | null;
}

/**
 * Per variant, the exposed users (with their first exposure) and those with a
 * trial start that counts (docs/guide/revenue.md, "Attribution", with its
 * time), over the raw records.
 */
function bruteForce(exposures: Exposure[], records: TrialRecord[], links: Map<string, string>, from: number) {
  const one = (id: string) => links.get(id) ?? id;
  const figures = new Map(
    VARIANTS.map((variant) => [variant, { exposed: [] as { id: string; ts: number }[], trialStarts: [] as { id: string; ts: number }[] }]),
  );
  for (const [id, user] of exposedUsers(exposures, links, from)) {
    const f = figures.get(user.variant)!;
    f.exposed.push({ id, ts: user.first });
    const starts = records
      .filter((r) => one(r.user) === id && r.type === 'trial_started' && (r.paywall === null || r.paywall === 'trial') && r.ts >= user.first)
      .map((r) => r.ts);
    if (starts.length > 0) f.trialStarts.push({ id, ts: Math.min(...starts) });
  }
  return figures;
}

test('a trial test decides on trial starts when primary_metric is trial_started, with the statistics of conversion', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  await client.putPaywall('trial', paywall('conversion'));
  await client.publish('trial');
  // The mirror paywall converts exactly the users the brute force counts as trial starters: its conversion figures are what trial_started must read.
  await client.putPaywall('mirror', paywall('conversion'));
  await client.publish('mirror');
  const phases = (await (await client.request('GET', '/api/paywalls/trial/phases')).json()) as Json;
  const from = Date.parse(phases.phases.at(-1).started_at);

  const rand = random(2622);
  const exposures: Exposure[] = [];
  const records: TrialRecord[] = [];
  const links = new Map<string, string>();
  const events: Json[] = [];
  let seq = 0;
  for (const variant of VARIANTS) {
    for (let i = 0; i < USERS_PER_VARIANT; i++) {
      const anonymous = `anon-${variant}-${i}`;
      const signedIn = `user-${variant}-${i}`;
      // Most users sign in: the exposure is anonymous, the store names the signed-in user.
      const identified = rand() < 0.7;
      if (identified) links.set(anonymous, signedIn);
      const first = from + 60_000 + Math.floor(rand() * 2 * HOUR);
      const seen =
        rand() < 0.03
          ? VARIANTS.filter((other) => other !== variant)
              .slice(0, 1)
              .concat(variant)
          : [variant];
      for (const [n, v] of seen.entries()) {
        const ts = first + n * 60_000;
        exposures.push({ user: anonymous, ts, variant: v });
        events.push({ id: `e${seq++}`, type: 'screen_impression', paywall_id: 'trial', variant_id: v, user_id: anonymous, ts });
      }
      const buyer = identified ? signedIn : anonymous;
      // Conversions at one rate in every variant: on conversion, no variant wins. At the exposure, they add no day of their own.
      if (rand() < 0.1) events.push({ id: `e${seq++}`, type: 'purchase_complete', paywall_id: 'trial', user_id: anonymous, ts: first });
      if (rand() < TRIAL_RATE[variant]!) {
        const paywall = rand() < 0.5 ? 'trial' : null;
        const start = first + 5 * 60_000;
        records.push({ user: buyer, ts: start, type: 'trial_started', paywall });
        // A second start (another device) counts the user once; a conversion does not start a trial. The conversion, at the start's
        // time, adds no day of its own: the mirror (below) must have the days of this paywall, whatever the time of day the test runs.
        if (rand() < 0.2) records.push({ user: buyer, ts: first + 2 * HOUR, type: 'trial_started', paywall: null });
        if (rand() < 0.5) records.push({ user: buyer, ts: start, type: 'trial_converted', paywall: null });
      }
      // What must not count: a trial started before the exposure, or credited to another paywall.
      if (rand() < 0.05) records.push({ user: buyer, ts: first - 30 * 60_000, type: 'trial_started', paywall: null });
      if (rand() < 0.05) records.push({ user: buyer, ts: first + 60_000, type: 'trial_started', paywall: 'other' });
    }
  }
  const body = records.map((r, i) => ({
    id: `r${i}`,
    user_id: r.user,
    type: r.type,
    ts: r.ts,
    product_id: 'pro',
    revenue: r.type === 'trial_converted' ? 29.99 : 0,
    currency: 'USD',
    ...(r.paywall === null ? {} : { paywall_id: r.paywall }),
  }));
  for (let i = 0; i < body.length; i += 1000) {
    const stored = await client.request('POST', '/api/purchases', { body: { purchases: body.slice(i, i + 1000) } });
    assert.equal(stored.status, 200, await stored.clone().text());
    assert.equal(((await stored.json()) as Json).rejected.length, 0);
  }
  for (let i = 0; i < events.length; i += 1000)
    assert.equal((await ingest(server.url, server.keys.sdk, { events: events.slice(i, i + 1000) })).rejected.length, 0);
  for (const [anonymous, user] of links) {
    const linked = await client.request('POST', '/api/sdk/identify', { body: { anonymous_id: anonymous, user_id: user }, key: server.keys.sdk });
    assert.equal(linked.status, 200, await linked.text());
  }
  const expected = bruteForce(exposures, records, links, from);
  const mirror: Json[] = [];
  // Each mirror event at the time of what it mirrors: both folds then have the same days, so the same daily looks (the sequential p-value and power read them).
  for (const [variant, f] of expected) {
    for (const user of f.exposed)
      mirror.push({ id: `m${seq++}`, type: 'screen_impression', paywall_id: 'mirror', variant_id: variant, user_id: `m-${user.id}`, ts: user.ts });
    for (const user of f.trialStarts) mirror.push({ id: `m${seq++}`, type: 'purchase_complete', paywall_id: 'mirror', user_id: `m-${user.id}`, ts: user.ts });
  }
  for (let i = 0; i < mirror.length; i += 1000)
    assert.equal((await ingest(server.url, server.keys.sdk, { events: mirror.slice(i, i + 1000) })).accepted, mirror.slice(i, i + 1000).length);

  const results = async (id: string) => {
    const response = await client.request('GET', `/api/paywalls/${id}/results`);
    assert.equal(response.status, 200);
    return (await response.json()) as Json;
  };
  const onConversion = await results('trial');
  assert.equal(onConversion.primary_metric, 'conversion');
  assert.notEqual(onConversion.decision.status, 'winner', 'conversions are at one rate: no winner on conversion');

  // Changing the primary metric starts no phase: the same figures, now decided on trial starts.
  await client.putPaywall('trial', paywall('trial_started'));
  await client.publish('trial');
  const trial = await results('trial');
  assert.equal(trial.phase.number, onConversion.phase.number);
  assert.equal(trial.primary_metric, 'trial_started');
  const reference = await results('mirror');
  assert.deepEqual(
    trial.days.map((day: Json) => day.day),
    reference.days.map((day: Json) => day.day),
    'the mirror has the days of the trial paywall: the same daily looks',
  );
  for (const variant of trial.variants as Json[]) {
    const f = expected.get(variant.variant_id)!;
    const where = `variant ${variant.variant_id}`;
    assert.equal(variant.exposed_users, f.exposed.length, `${where} exposed`);
    assert.equal(variant.trial_starts, f.trialStarts.length, `${where} trial starts`);
    assert.equal(variant.trial_started.rate, f.trialStarts.length / f.exposed.length, `${where} rate`);
    const same = reference.variants.find((other: Json) => other.variant_id === variant.variant_id);
    assert.equal(same.conversions, f.trialStarts.length, `${where} mirror conversions`);
    assert.deepEqual(
      variant.trial_started,
      {
        rate: same.conversion_rate,
        rate_ci95: same.conversion_rate_ci95,
        uplift: same.uplift,
        difference: same.difference,
        p_value: same.p_value,
        p_value_adjusted: same.p_value_adjusted,
        expected_loss: same.expected_loss,
        chance_to_beat_control: same.chance_to_beat_control,
        chance_to_be_best: same.chance_to_be_best,
        mde_relative: same.mde_relative,
      },
      `${where}: trial_started has the statistics of conversion on the same counts`,
    );
  }
  const control = expected.get('control')!;
  const b = trial.variants.find((variant: Json) => variant.variant_id === 'b');
  const relative = expected.get('b')!.trialStarts.length / expected.get('b')!.exposed.length / (control.trialStarts.length / control.exposed.length) - 1;
  assert.ok(Math.abs(b.trial_started.uplift.relative - relative) < 1e-12, `uplift ${b.trial_started.uplift.relative} ≠ ${relative}`);
  assert.ok(b.trial_started.uplift.p_value_adjusted > b.trial_started.uplift.p_value || b.trial_started.uplift.p_value_adjusted === 1, 'Holm over b and c');
  // The decision, its readiness and its power are those of the mirror's conversion, on trial starts.
  assert.deepEqual(trial.decision.status, 'winner');
  assert.equal(trial.decision.variant, 'b');
  assert.match(trial.decision.reason, /beats the control on trial starts/);
  assert.equal(reference.decision.status, 'winner');
  assert.equal(trial.enough_data, reference.enough_data);
  assert.deepEqual(trial.power, reference.power);
  // The CSV carries the metric too.
  const csv = await (await client.request('GET', '/api/paywalls/trial/results?format=csv')).text();
  const [header, ...rows] = csv
    .trimEnd()
    .split('\r\n')
    .map((line) => line.split(','));
  const row = rows.find((cells) => cells[0] === 'b')!;
  assert.equal(Number(row[header!.indexOf('trial_started_rate')]), b.trial_started.rate);
  assert.equal(Number(row[header!.indexOf('trial_started_p_value_adjusted')]), b.trial_started.uplift.p_value_adjusted);
});

test('primary_metric takes "trial_started" and refuses what is not a metric', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  for (const metric of ['trial_start', 'trials', 'revenue:usd']) {
    const refused = await client.request('PUT', '/api/paywalls/bad', { body: paywall(metric) });
    assert.equal(refused.status, 422, metric);
    const problem = (await refused.json()) as Json;
    assert.ok(
      problem.errors.some((error: Json) => error.path === '/experiment/primary_metric'),
      `${metric}: ${JSON.stringify(problem.errors)}`,
    );
  }
  await client.putPaywall('good', paywall('trial_started'));
  // The results schema documents the metric.
  const openapi = (await (await client.request('GET', '/api/openapi.json')).json()) as Json;
  assert.match(JSON.stringify(openapi), /"trial_started":\{/);
});
