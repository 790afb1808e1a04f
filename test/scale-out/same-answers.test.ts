/**
 * Derived answers across instances (docs/operations/scale-out.md, "Events and derived
 * state"): events sent to three PostgreSQL instances give the same stats,
 * results, export and fallback bundle on each (waiting up to 10 s; the lag
 * is measured by `npm run bench -- --postgres --only reads`), and the same
 * as a SQLite server given the same events.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { spawnServe } from '../helpers/cli.ts';
import { exported, fetchStats, ingest, publishPaywall } from '../helpers/events.ts';
import { startInstances, within } from '../helpers/instances.ts';
import type { Json } from '../helpers/json.ts';
import { POSTGRES, postgresDatabase } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';
import { bearer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';

const PAYWALL = 'onboarding';

/** 60 events of 20 users on both variants, at fixed times of today, in three batches. */
function batches(): Json[][] {
  const day = Math.floor(Date.now() / 86_400_000) * 86_400_000;
  const events = Array.from({ length: 60 }, (_, i) => ({
    id: `e${i}`,
    type: i % 3 === 2 ? 'purchase_complete' : 'screen_impression',
    paywall_id: PAYWALL,
    variant_id: i % 2 === 0 ? 'control' : 'treatment',
    user_id: `u${i % 20}`,
    ts: day + 1000 * i,
    ...(i % 3 === 2 ? { product_id: 'pro', revenue: 9.99, currency: 'USD' } : {}),
  }));
  return [events.slice(0, 20), events.slice(20, 40), events.slice(40)];
}

/** What may differ between two databases given the same requests: ids and times they assign. */
function normalized(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, inner) =>
    ['received_at', 'project_id', 'seq', 'etag', 'generated_at', 'revision_id', 'started_at', 'ended_at', 'published_at', 'created_at', 'updated_at'].includes(
      key,
    )
      ? '·'
      : inner,
  );
}

async function answers(url: string, secret: string, sdk: string): Promise<unknown> {
  const stats = await (await fetchStats(url, secret, PAYWALL)).json();
  const results = await (await fetch(`${url}/api/paywalls/${PAYWALL}/results`, { headers: bearer(secret) })).json();
  const exportedEvents = (await exported(url, secret)).sort((a, b) => String((a as { id: string }).id).localeCompare(String((b as { id: string }).id)));
  const phases = await (await fetch(`${url}/api/paywalls/${PAYWALL}/phases`, { headers: bearer(secret) })).json();
  const fallback = await (await fetch(`${url}/api/sdk/fallback`, { headers: bearer(sdk) })).json();
  return normalized({ stats, results, phases, exportedEvents, fallback });
}

test('events sent to three instances: every instance answers the same, and as a SQLite server does', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const { instances, keys } = await startInstances(t, url, 3);
  const sqlite = await spawnServe(t, ['--db', path.join(tempDir(t), 'paywalld.db'), '--rate-limit-sdk', '0', '--rate-limit-api', '0']);
  const sqliteKeys = { sdk: /sdk key:\s+(\S+)/.exec(sqlite.output())![1]!, secret: /secret key:\s+(\S+)/.exec(sqlite.output())![1]! };
  await publishPaywall(instances[0]!.url, keys.secret, PAYWALL);
  await publishPaywall(sqlite.url, sqliteKeys.secret, PAYWALL);
  await within(10_000, 'the paywall everywhere', async () =>
    (
      await Promise.all(instances.map(async (instance) => (await fetch(`${instance.url}/api/paywalls/${PAYWALL}`, { headers: bearer(keys.secret) })).status))
    ).every((s) => s === 200),
  );
  const sent = batches();
  const acknowledgedAt = performance.now();
  const answered = await Promise.all(sent.map((events, i) => ingest(instances[i]!.url, keys.sdk, { events })));
  assert.deepEqual(
    answered.map((result) => result.accepted),
    [20, 20, 20],
  );
  for (const events of sent) await ingest(sqlite.url, sqliteKeys.sdk, { events });
  const expected = await answers(sqlite.url, sqliteKeys.secret, sqliteKeys.sdk);
  for (const instance of instances) {
    let last: unknown;
    try {
      await within(10_000, 'the same answers as SQLite', async () => {
        last = await answers(instance.url, keys.secret, keys.sdk);
        return JSON.stringify(last) === JSON.stringify(expected);
      });
    } catch (error) {
      assert.deepEqual(last, expected, String(error));
    }
  }
  t.diagnostic(`all three instances answered as SQLite ${(performance.now() - acknowledgedAt).toFixed(0)} ms after the acknowledgements`);
});
