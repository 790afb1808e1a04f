/**
 * Several `paywalld serve --db postgres://…` processes on one database
 * (docs/operations/scale-out.md, "Running several instances"): an empty database gets
 * one project however many start at once, configuration and keys written
 * through one instance reach the others (how soon, the 1 s promise, is
 * measured by `npm run bench -- --postgres --only propagation`; a test waits
 * up to 10 s, and prints what it saw), and the background
 * event work has one leader, which moves when it is killed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ServeProcess } from '../helpers/cli.ts';
import { exported, ingest, numbered } from '../helpers/events.ts';
import { startInstances, within } from '../helpers/instances.ts';
import { metric } from '../helpers/metrics.ts';
import { api, seedProducts, single } from '../helpers/paywalls.ts';
import { POSTGRES, postgresDatabase } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';
import { bearer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

test('three instances on an empty database: one creates the project, the others join it, and none logs the password', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const secretUrl = url.replace('postgres@', 'postgres:hunter2@');
  const { instances, keys } = await startInstances(t, secretUrl, 3);
  for (const instance of instances) {
    assert.ok(!instance.output().includes('hunter2'), instance.output());
    // An instance that joined hears of the project through the watch, like any change made elsewhere.
    await within(10_000, 'the keys on every instance', async () => (await fetch(`${instance.url}/api/keys`, { headers: bearer(keys.secret) })).status === 200);
    const answer = await fetch(`${instance.url}/api/keys`, { headers: bearer(keys.secret) });
    assert.equal(((await answer.json()) as { keys: unknown[] }).keys.length, 2);
    assert.equal((await fetch(`${instance.url}/healthz`)).status, 200);
  }
  // A graceful stop closes the pool and the writer thread's: the process ends with 0.
  assert.deepEqual(await Promise.all(instances.map((instance) => instance.stop())), [0, 0, 0]);
});

test('a paywall and a product published through A are served by B and C; If-Match holds across instances', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const { instances, keys } = await startInstances(t, url, 3);
  const [a, b, c] = instances.map((instance) => api({ url: instance.url, keys }));
  await seedProducts(a!);
  await a!.putPaywall('onboarding', single({ en: { title: 'Hello' } }));
  await a!.publish('onboarding');
  for (const other of [b!, c!]) {
    const ms = await within(
      10_000,
      'the published paywall on another instance',
      async () => (await other.resolve({ paywallId: 'onboarding', userId: 'u1' })).status === 200,
    );
    t.diagnostic(`paywall propagated in ${ms.toFixed(0)} ms`);
    const product = await within(
      10_000,
      'the product on another instance',
      async () => (await other.request('GET', '/api/products/pro_annual')).status === 200,
    );
    t.diagnostic(`product propagated in ${product.toFixed(0)} ms`);
  }
  const etag = (await b!.request('GET', '/api/paywalls/onboarding')).headers.get('etag');
  assert.ok(etag);
  const writes = await Promise.all(
    [b!, c!].map((client) => client.request('PUT', '/api/paywalls/onboarding', { body: single({ en: { title: 'Changed' } }), headers: { 'If-Match': etag } })),
  );
  assert.deepEqual(writes.map((answer) => answer.status).sort(), [200, 412]);
});

test('a key created on A works on B and C; revoked on B, it is refused on A and C', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const { instances, keys } = await startInstances(t, url, 3);
  const [a, b, c] = instances;
  const created = (await (
    await fetch(`${a!.url}/api/keys`, { method: 'POST', headers: { ...bearer(keys.secret), 'content-type': 'application/json' }, body: '{"scope":"secret"}' })
  ).json()) as {
    id: string;
    key: string;
  };
  const status = async (instance: ServeProcess) => {
    const answer = await fetch(`${instance.url}/api/keys`, { headers: bearer(created.key) });
    await answer.body?.cancel();
    return answer.status;
  };
  for (const instance of [b!, c!])
    t.diagnostic(`key works after ${(await within(10_000, 'the new key on another instance', async () => (await status(instance)) === 200)).toFixed(0)} ms`);
  assert.equal((await fetch(`${b!.url}/api/keys/${created.id}`, { method: 'DELETE', headers: bearer(keys.secret) })).status, 200);
  for (const instance of [a!, c!])
    t.diagnostic(`revocation after ${(await within(10_000, 'the revoked key refused', async () => (await status(instance)) === 401)).toFixed(0)} ms`);
});

test('the background event work has one leader; SIGKILLed, another instance takes it', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const { instances, keys } = await startInstances(t, url, 3);
  const leading = async (list: ServeProcess[]) =>
    Promise.all(list.map(async (instance) => (await metric(instance.url, keys.secret, 'paywalld_events_leader')) === 1));
  let flags: boolean[] = [];
  await until(async () => (flags = await leading(instances)).filter(Boolean).length === 1, 'one leader', 10_000, 50);
  const leader = instances[flags.indexOf(true)]!;
  const others = instances.filter((instance) => instance !== leader);
  const killedAt = performance.now();
  await leader.stop('SIGKILL');
  await until(async () => (await leading(others)).filter(Boolean).length === 1, 'a new leader', 30_000, 50);
  t.diagnostic(`leadership moved ${(performance.now() - killedAt).toFixed(0)} ms after the SIGKILL`);
});

test('the same batch sent to A and B at once is stored once', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const { instances, keys } = await startInstances(t, url, 2);
  const batch = { events: numbered('same', 50) };
  const [first, second] = await Promise.all(instances.map((instance) => ingest(instance.url, keys.sdk, batch)));
  assert.equal(first!.accepted + second!.accepted, 50);
  assert.equal(first!.duplicates + second!.duplicates, 50);
  for (const instance of instances) {
    const ids = (await exported(instance.url, keys.secret)).map((event) => (event as { id: string }).id);
    assert.equal(ids.length, 50);
    assert.equal(new Set(ids).size, 50);
  }
});
