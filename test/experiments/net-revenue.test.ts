import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ingest } from '../helpers/events.ts';
import { type Exposure, exposedUsers } from '../helpers/exposures.ts';
import type { Json } from '../helpers/json.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { random } from './workload.ts';

const PAYWALL = 'net';
const TWIN = 'net-twin';
const WINDOW_HOURS = 6;
const HOUR = 3_600_000;

/** GET without a body, else POST (or `method`) with the body as JSON. */
async function api(url: string, key: string, path: string, body?: Json | '', method = 'POST'): Promise<Response> {
  const headers = { 'content-type': 'application/json', ...bearer(key) };
  return fetch(`${url}${path}`, body === undefined ? { headers } : { method, headers, body: body === '' ? '' : JSON.stringify(body) });
}

interface Money {
  user: string;
  ts: number;
  /** sale, renewal, refund, trial_started or trial_converted (a client purchase is a sale). */
  kind: string;
  revenue: number;
  currency: string;
  paywall: string | null;
}

const SERVER_TYPES: Record<string, string> = {
  sale: 'initial_purchase',
  renewal: 'renewal',
  refund: 'refund',
  trial_started: 'trial_started',
  trial_converted: 'trial_converted',
};

/** The figures of docs/guide/revenue.md, "Attribution", computed over the raw records. */
function bruteForce(exposures: Exposure[], money: Money[], links: Map<string, string>, from: number, paywall = PAYWALL) {
  const one = (id: string) => links.get(id) ?? id;
  const figures: Record<
    string,
    {
      exposed: number;
      conversions: number;
      trialStarts: number;
      trialConversions: number;
      net: Map<string, number[]>;
      gross: Map<string, number>;
      refunded: Map<string, number>;
    }
  > = {};
  for (const variant of ['control', 'annual'])
    figures[variant] = { exposed: 0, conversions: 0, trialStarts: 0, trialConversions: 0, net: new Map(), gross: new Map(), refunded: new Map() };
  for (const [id, user] of exposedUsers(exposures, links, from)) {
    const f = figures[user.variant]!;
    f.exposed++;
    const counted = money.filter(
      (m) => one(m.user) === id && (m.paywall === null || m.paywall === paywall) && m.ts >= user.first && m.ts <= user.first + WINDOW_HOURS * HOUR,
    );
    // A renewal converts no one: the user converted with the purchase it renews, or before the exposure.
    if (counted.some((m) => m.kind === 'sale' || m.kind === 'trial_converted')) f.conversions++;
    const starts = counted.filter((m) => m.kind === 'trial_started').map((m) => m.ts);
    if (starts.length > 0) {
      f.trialStarts++;
      if (counted.some((m) => m.kind === 'trial_converted' && m.ts >= Math.min(...starts))) f.trialConversions++;
    }
    const net = new Map<string, number>();
    for (const m of counted) {
      if (m.kind === 'trial_started') continue;
      const sign = m.kind === 'refund' ? -1 : 1;
      net.set(m.currency, (net.get(m.currency) ?? 0) + sign * m.revenue);
      const side = m.kind === 'refund' ? f.refunded : f.gross;
      side.set(m.currency, (side.get(m.currency) ?? 0) + m.revenue);
    }
    for (const [currency, amount] of net) {
      if (!f.net.has(currency)) f.net.set(currency, []);
      f.net.get(currency)!.push(amount);
    }
  }
  return figures;
}

test('results count client purchases, server sales, refunds and trials of linked users as net revenue', async (t) => {
  const { url, keys } = await startTestServer(t);
  const doc = {
    name: 'Net',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro' } },
    root: { type: 'text', props: { text_key: 'title' } },
    variants: [
      { id: 'control', weight: 1, control: true },
      { id: 'annual', weight: 1 },
    ],
    experiment: { conversion_window_hours: WINDOW_HOURS },
  };
  const put = await api(url, keys.secret, `/api/paywalls/${PAYWALL}`, doc, 'PUT');
  assert.ok(put.status === 200 || put.status === 201, await put.text());
  assert.equal((await api(url, keys.secret, `/api/paywalls/${PAYWALL}/publish`, '')).status, 200);
  const from = Date.parse(((await (await api(url, keys.secret, `/api/paywalls/${PAYWALL}/phases`)).json()) as Json).phases.at(-1).started_at);
  // A twin paywall with the same exposures: a second fold of the project, asked less often, applies the joins it missed at once.
  assert.equal((await api(url, keys.secret, `/api/paywalls/${TWIN}`, doc, 'PUT')).status, 201);
  assert.equal((await api(url, keys.secret, `/api/paywalls/${TWIN}/publish`, '')).status, 200);
  const twinFrom = Date.parse(((await (await api(url, keys.secret, `/api/paywalls/${TWIN}/phases`)).json()) as Json).phases.at(-1).started_at);
  const rand = random(22);
  const exposures: Exposure[] = [];
  const money: Money[] = [];
  const links = new Map<string, string>();
  /** Second devices of signed-in users, linked after the first links were read (their own random numbers: the workload above stays as it was). */
  const devices = random(23);
  const deviceLinks = new Map<string, string>();
  const events: Json[] = [];
  const records: Json[] = [];
  let seq = 0;
  const at = (base: number, spanHours: number) => base + Math.floor(rand() * spanHours * HOUR);
  // A refund record counts at most what the records of its user and currency paid at or before it, net of the refunds
  // counted before it in storage order (docs/guide/revenue.md, "Refunds"); client purchases (events) are not its purchases.
  const paidRecords: { user: string; currency: string; ts: number; revenue: number }[] = [];
  const refundedRecords = new Map<string, number>();
  const counted = (user: string, currency: string, ts: number, revenue: number) => {
    const paid = paidRecords.filter((p) => p.user === user && p.currency === currency && p.ts <= ts).reduce((sum, p) => sum + p.revenue, 0);
    const before = refundedRecords.get(`${user}\0${currency}`) ?? 0;
    const amount = paid > 0 ? Math.min(revenue, Math.max(0, Number((paid - before).toFixed(6)))) : 0;
    refundedRecords.set(`${user}\0${currency}`, before + amount);
    return amount;
  };
  for (let i = 0; i < 120; i++) {
    const anonymous = `anon-${i}`;
    const signedIn = `user-${i}`;
    const identified = rand() < 0.6;
    if (identified) links.set(anonymous, signedIn);
    const variant = rand() < 0.5 ? 'control' : 'annual';
    const first = at(from + 60_000, 2);
    const seen = rand() < 0.05 ? ['control', 'annual'] : [variant];
    if (identified && devices() < 0.3) {
      // Sent before the first device's events, the second device gets the smaller ordinal: its link moves the user's fold state onto it.
      const device = `device-${i}`;
      deviceLinks.set(device, signedIn);
      const v = devices() < 0.2 ? (variant === 'control' ? 'annual' : 'control') : variant;
      exposures.push({ user: device, ts: first + 30_000, variant: v });
      events.push({ id: `e${seq++}`, type: 'screen_impression', paywall_id: PAYWALL, variant_id: v, user_id: device, ts: first + 30_000 });
    }
    for (const [n, v] of seen.entries()) {
      const ts = first + n * 60_000;
      const user = identified && rand() < 0.3 ? signedIn : anonymous;
      exposures.push({ user, ts, variant: v });
      events.push({ id: `e${seq++}`, type: 'screen_impression', paywall_id: PAYWALL, variant_id: v, user_id: user, ts });
    }
    const buyer = identified ? signedIn : anonymous;
    const moves = Math.floor(rand() * 5);
    for (let m = 0; m < moves; m++) {
      // Some before the exposure or past the window: they must not count.
      const ts = at(first - HOUR, 9);
      const pick = rand();
      const paywall = rand() < 0.15 ? 'other' : rand() < 0.5 ? PAYWALL : null;
      const currency = rand() < 0.7 ? 'USD' : 'EUR';
      if (pick < 0.25) {
        const user = rand() < 0.5 ? anonymous : buyer;
        const revenue = [4.99, 9.99][Math.floor(rand() * 2)]!;
        money.push({ user, ts, kind: 'sale', revenue, currency, paywall: PAYWALL });
        events.push({ id: `e${seq++}`, type: 'purchase_complete', paywall_id: PAYWALL, user_id: user, ts, revenue, currency });
        continue;
      }
      const kind = pick < 0.45 ? 'sale' : pick < 0.6 ? 'renewal' : pick < 0.75 ? 'refund' : pick < 0.88 ? 'trial_started' : 'trial_converted';
      const revenue = kind === 'trial_started' ? 0 : [2.5, 9.99, 49.99][Math.floor(rand() * 3)]!;
      if (kind === 'refund') {
        const amount = counted(buyer, currency, ts, revenue);
        if (amount > 0) money.push({ user: buyer, ts, kind, revenue: amount, currency, paywall });
      } else {
        if (kind !== 'trial_started') paidRecords.push({ user: buyer, currency, ts, revenue });
        money.push({ user: buyer, ts, kind, revenue, currency, paywall });
      }
      records.push({
        id: `r${seq++}`,
        user_id: buyer,
        type: SERVER_TYPES[kind],
        ts,
        product_id: 'pro',
        revenue,
        currency,
        ...(paywall === null ? {} : { paywall_id: paywall }),
      });
    }
    if (rand() < 0.2) {
      // A trial, converted three hours later by some.
      const started = first + 10 * 60_000;
      money.push({ user: buyer, ts: started, kind: 'trial_started', revenue: 0, currency: 'USD', paywall: null });
      records.push({ id: `r${seq++}`, user_id: buyer, type: 'trial_started', ts: started, product_id: 'pro', revenue: 0, currency: 'USD' });
      if (rand() < 0.6) {
        money.push({ user: buyer, ts: started + 3 * HOUR, kind: 'trial_converted', revenue: 29.99, currency: 'USD', paywall: null });
        paidRecords.push({ user: buyer, currency: 'USD', ts: started + 3 * HOUR, revenue: 29.99 });
        records.push({ id: `r${seq++}`, user_id: buyer, type: 'trial_converted', ts: started + 3 * HOUR, product_id: 'pro', revenue: 29.99, currency: 'USD' });
      }
    }
    // A cancellation carries no money and converts no one.
    if (rand() < 0.1) records.push({ id: `r${seq++}`, user_id: buyer, type: 'cancellation', ts: at(first, 1), product_id: 'pro', revenue: 0, currency: 'USD' });
  }
  // Records first, then the events and links: records of users the events do not know yet wait for them.
  const stored = await api(url, keys.secret, '/api/purchases', { purchases: records });
  assert.equal(stored.status, 200, await stored.clone().text());
  assert.equal(((await stored.json()) as Json).accepted, records.length);
  const expectedBefore = bruteForce(exposures, money, new Map(), from);
  await ingest(url, keys.sdk, { events });
  const twinEvents = events.filter((e) => e.type === 'screen_impression').map((e) => ({ ...e, id: `twin-${e.id}`, paywall_id: TWIN }));
  await ingest(url, keys.sdk, { events: twinEvents });
  const before = (await (await api(url, keys.secret, `/api/paywalls/${PAYWALL}/results`)).json()) as Json;
  compare(before, expectedBefore, 'before identify');
  const twin = async () => (await (await api(url, keys.secret, `/api/paywalls/${TWIN}/results`)).json()) as Json;
  compare(await twin(), bruteForce(exposures, money, new Map(), twinFrom, TWIN), 'twin before identify');
  for (const [anonymous, user] of links) {
    const linked = await api(url, keys.sdk, '/api/sdk/identify', { anonymous_id: anonymous, user_id: user });
    assert.equal(linked.status, 200, await linked.text());
  }
  const after = (await (await api(url, keys.secret, `/api/paywalls/${PAYWALL}/results`)).json()) as Json;
  const seen = compare(after, bruteForce(exposures, money, links, from), 'after identify');
  compareCsv(await (await api(url, keys.secret, `/api/paywalls/${PAYWALL}/results?format=csv`)).text(), bruteForce(exposures, money, links, from));
  // The second devices' links, read by the fold the first ones were joined in.
  for (const [device, user] of deviceLinks) {
    const linked = await api(url, keys.sdk, '/api/sdk/identify', { anonymous_id: device, user_id: user });
    assert.equal(linked.status, 200, await linked.text());
    links.set(device, user);
  }
  assert.ok(deviceLinks.size > 5, `${deviceLinks.size} second devices`);
  compare(
    (await (await api(url, keys.secret, `/api/paywalls/${PAYWALL}/results`)).json()) as Json,
    bruteForce(exposures, money, links, from),
    'after second devices',
  );
  compare(await twin(), bruteForce(exposures, money, links, twinFrom, TWIN), 'twin after both links');
  // Late exposures with earlier times, under the other id of linked users: records before the old first exposure may now count.
  const late: Json[] = [];
  for (const e of exposures.filter((_, i) => i % 3 === 0)) {
    const other = links.get(e.user) ?? [...links].find(([, user]) => user === e.user)?.[0] ?? e.user;
    const ts = from + 30_000;
    exposures.push({ user: other, ts, variant: e.variant });
    late.push({ id: `e${seq++}`, type: 'screen_impression', paywall_id: PAYWALL, variant_id: e.variant, user_id: other, ts });
  }
  await ingest(url, keys.sdk, { events: late });
  const moved = (await (await api(url, keys.secret, `/api/paywalls/${PAYWALL}/results`)).json()) as Json;
  compare(moved, bruteForce(exposures, money, links, from), 'after late exposures');
  // The workload exercises what it checks.
  assert.ok(seen.refunds > 0 && seen.trials > 0, JSON.stringify(seen));
});

test('renewals add revenue and convert no one: a subscriber is one conversion however often they renew', async (t) => {
  const { url, keys } = await startTestServer(t);
  const doc = {
    name: 'Renewals',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro' } },
    root: { type: 'text', props: { text_key: 'title' } },
    variants: [
      { id: 'control', weight: 1, control: true },
      { id: 'annual', weight: 1 },
    ],
  };
  assert.equal((await api(url, keys.secret, '/api/paywalls/renewals', doc, 'PUT')).status, 201);
  assert.equal((await api(url, keys.secret, '/api/paywalls/renewals/publish', '')).status, 200);
  const from = Date.parse(((await (await api(url, keys.secret, '/api/paywalls/renewals/phases')).json()) as Json).phases.at(-1).started_at);
  const seen = from + HOUR;
  await ingest(url, keys.sdk, {
    events: ['new', 'old', 'lapsed'].map((user) => ({
      id: user,
      type: 'screen_impression',
      paywall_id: 'renewals',
      variant_id: 'control',
      user_id: user,
      ts: seen,
    })),
  });
  const record = (id: string, user: string, type: string, ts: number) => ({ id, user_id: user, type, ts, product_id: 'pro', revenue: 10, currency: 'USD' });
  const stored = await api(url, keys.secret, '/api/purchases', {
    purchases: [
      // Bought after the exposure, then renewed twice: one conversion, 30 of revenue.
      record('n1', 'new', 'initial_purchase', seen + 1000),
      record('n2', 'new', 'renewal', seen + 2000),
      record('n3', 'new', 'renewal', seen + 3000),
      // Subscribed before the exposure: the renewal after it adds its revenue, the paywall converted no one.
      record('o1', 'old', 'initial_purchase', seen - 1000),
      record('o2', 'old', 'renewal', seen + 1000),
      // A renewal alone (its purchase before paywalld knew the user) converts no one either.
      record('l1', 'lapsed', 'renewal', seen + 1000),
    ],
  });
  assert.equal(((await stored.json()) as Json).accepted, 6);
  const body = (await (await api(url, keys.secret, '/api/paywalls/renewals/results')).json()) as Json;
  const control = body.variants.find((variant: Json) => variant.variant_id === 'control');
  assert.equal(control.exposed_users, 3);
  assert.equal(control.conversions, 1);
  assert.equal(control.revenue[0].gross, 50);
  assert.equal(control.revenue[0].total, 50);
  assert.equal(body.days.at(-1).variants.control.conversions, 1);
});

function close(actual: number, expected: number, message: string): void {
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${message}: ${actual} ≠ ${expected}`);
}

/** Checks every figure; returns the refunds and trial conversions it saw. */
function compare(body: Json, expected: ReturnType<typeof bruteForce>, where: string): { refunds: number; trials: number } {
  let refunds = 0;
  let trials = 0;
  for (const variant of body.variants as Json[]) {
    const f = expected[variant.variant_id]!;
    const at = `${where} ${variant.variant_id}`;
    assert.equal(variant.exposed_users, f.exposed, `${at} exposed`);
    assert.equal(variant.conversions, f.conversions, `${at} conversions`);
    assert.equal(variant.trial_starts, f.trialStarts, `${at} trial starts`);
    assert.equal(variant.trial_conversions, f.trialConversions, `${at} trial conversions`);
    trials += f.trialConversions;
    assert.deepEqual(
      variant.revenue.map((r: Json) => r.currency),
      [...new Set(Object.values(expected).flatMap((e) => [...e.net.keys()]))].sort(),
      `${at} currencies`,
    );
    for (const r of variant.revenue as Json[]) {
      const amounts = f.net.get(r.currency) ?? [];
      const total = amounts.reduce((sum, amount) => sum + amount, 0);
      close(r.total, total, `${at} ${r.currency} net`);
      close(r.per_exposed_user, total / f.exposed, `${at} ${r.currency} per user`);
      close(r.gross, f.gross.get(r.currency) ?? 0, `${at} ${r.currency} gross`);
      close(r.refunded, f.refunded.get(r.currency) ?? 0, `${at} ${r.currency} refunded`);
      close(r.total, r.gross - r.refunded, `${at} ${r.currency} net = gross − refunded`);
      refunds += r.refunded;
    }
  }
  return { refunds, trials };
}

/** The CSV's net, gross and refunded revenue and trial columns against the brute force (CSV numbers are the JSON's, printed by String). */
function compareCsv(csv: string, expected: ReturnType<typeof bruteForce>): void {
  const [header, ...rows] = csv
    .trimEnd()
    .split('\r\n')
    .map((line) => line.split(','));
  const column = (row: string[], name: string) => {
    const index = header!.indexOf(name);
    assert.notEqual(index, -1, `the CSV has ${name}`);
    return row[index]!;
  };
  assert.equal(rows.length, 2);
  for (const row of rows) {
    const f = expected[row[0]!]!;
    assert.equal(Number(column(row, 'trial_starts')), f.trialStarts, `${row[0]} CSV trial starts`);
    assert.equal(Number(column(row, 'trial_conversions')), f.trialConversions, `${row[0]} CSV trial conversions`);
    assert.equal(Number(column(row, 'trial_started_rate')), f.trialStarts / f.exposed, `${row[0]} CSV trial started rate`);
    for (const currency of ['USD', 'EUR']) {
      const net = (f.net.get(currency) ?? []).reduce((sum, amount) => sum + amount, 0);
      close(Number(column(row, `revenue_${currency}`)), net, `${row[0]} CSV net ${currency}`);
      close(Number(column(row, `revenue_gross_${currency}`)), f.gross.get(currency) ?? 0, `${row[0]} CSV gross ${currency}`);
      close(Number(column(row, `revenue_refunded_${currency}`)), f.refunded.get(currency) ?? 0, `${row[0]} CSV refunded ${currency}`);
    }
  }
}
