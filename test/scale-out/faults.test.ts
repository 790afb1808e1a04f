/**
 * Faults between paywalld instances and their PostgreSQL, with real
 * processes (docs/operations/scale-out.md, "Failure behaviour"): PostgreSQL stopped
 * under the servers, and recovery without restarting them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exported, numbered, sendEvents } from '../helpers/events.ts';
import { startInstances, within } from '../helpers/instances.ts';
import { api, seedProducts, single } from '../helpers/paywalls.ts';
import { POSTGRES, postgresDatabase, testPool } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';
import { bearer } from '../helpers/server.ts';

test(
  'PostgreSQL stopped: writes and /healthz answer 503 database_unavailable, resolve serves from memory and /readyz stays 200; started again, all recovers by itself',
  needs(POSTGRES),
  async (t) => {
    const { url, cluster } = await postgresDatabase(t);
    const { instances, keys } = await startInstances(t, url, 2);
    const [a, b] = instances.map((instance) => api({ url: instance.url, keys }));
    await seedProducts(a!);
    await a!.putPaywall('onboarding', single({ en: { title: 'Hello' } }));
    await a!.publish('onboarding');
    await within(10_000, 'the paywall on B', async () => (await b!.resolve({ paywallId: 'onboarding', userId: 'u1' })).status === 200);
    t.after(() => {
      if (!cluster.running) cluster.start();
    });

    cluster.stop('immediate');
    for (const client of [a!, b!]) {
      const write = await client.request('PUT', '/api/products/pro_weekly', { body: { name: 'Pro Weekly', store_ids: { app_store: 'w' } } });
      assert.equal(write.status, 503, await write.clone().text());
      assert.equal(((await write.json()) as { code: string }).code, 'database_unavailable');
      assert.ok(Number(write.headers.get('retry-after')) >= 1);
      const health = await fetch(`${client.url}/healthz`);
      assert.equal(health.status, 503);
      assert.equal(((await health.json()) as { code: string }).code, 'database_unavailable');
      // Still ready: the instance serves resolve from memory, so a load balancer keeps sending it traffic (docs/operations/scale-out.md).
      assert.equal((await fetch(`${client.url}/readyz`)).status, 200);
      assert.equal((await client.resolve({ paywallId: 'onboarding', userId: 'u2' })).status, 200);
    }

    cluster.start();
    const restartedAt = performance.now();
    for (const client of [a!, b!]) await within(15_000, '/healthz ok again', async () => (await fetch(`${client.url}/healthz`)).status === 200);
    t.diagnostic(`/healthz ok on both ${(performance.now() - restartedAt).toFixed(0)} ms after PostgreSQL accepted connections`);
    await within(15_000, 'a write through A', async () =>
      [200, 201].includes((await a!.request('PUT', '/api/products/pro_weekly', { body: { name: 'Pro Weekly', store_ids: { app_store: 'w' } } })).status),
    );
    const arrived = await within(10_000, "A's change on B", async () => (await b!.request('GET', '/api/products/pro_weekly')).status === 200);
    t.diagnostic(`a change made after the restart reached B in ${arrived.toFixed(0)} ms`);
  },
);

test('an instance SIGKILLed during ingestion loses no acknowledged event, and the other keeps serving', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const { instances, keys } = await startInstances(t, url, 2);
  const [victim, survivor] = instances;
  const acknowledged: string[] = [];
  let batches = 0;
  let killed = false;
  /** Posts batches of 20 to `target` until told to stop; keeps the ids of every batch answered 200. */
  const send = async (target: typeof victim, stopAfterKill: boolean) => {
    for (;;) {
      const events = numbered(`b${++batches}-`, 20);
      try {
        const answer = await sendEvents(target!.url, { events }, { 'content-type': 'application/json', ...bearer(keys.sdk) });
        await answer.text();
        if (answer.status === 200) acknowledged.push(...events.map((event) => (event as { id: string }).id));
      } catch {
        // The killed instance's connection reset: that batch was never acknowledged.
      }
      if (killed && (stopAfterKill || batches > 200)) return;
    }
  };
  const senders = [send(victim, true), send(survivor, false)];
  await within(10_000, 'some batches acknowledged', async () => acknowledged.length >= 200);
  await victim!.stop('SIGKILL');
  killed = true;
  await Promise.all(senders);
  const stored = new Set((await exported(survivor!.url, keys.secret)).map((event) => (event as { id: string }).id));
  const lost = acknowledged.filter((id) => !stored.has(id));
  assert.deepEqual(lost, []);
  t.diagnostic(`${acknowledged.length} acknowledged events, all stored`);
  assert.equal((await fetch(`${survivor!.url}/healthz`)).status, 200);
});

test('connections cut (every backend of the servers terminated): changes still converge, and the servers stay up', needs(POSTGRES), async (t) => {
  const { url, name } = await postgresDatabase(t);
  const { instances, keys } = await startInstances(t, url, 2);
  const [a, b] = instances.map((instance) => api({ url: instance.url, keys }));
  await seedProducts(a!);
  await within(10_000, 'the product on B', async () => (await b!.request('GET', '/api/products/pro_annual')).status === 200);
  const admin = testPool(t, url, 1);
  for (let round = 1; round <= 3; round++) {
    const cut = await admin<{ pid: number }[]>`
      SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity WHERE datname = ${name} AND pid <> pg_backend_pid() AND application_name LIKE 'paywalld%'`;
    assert.ok(cut.length >= 4, `${cut.length} backends terminated`);
    const id = `cut_${round}`;
    // The first write after the cut may meet a dead pooled connection: 503, retried as a client would.
    await within(10_000, `a write through A after cut ${round}`, async () =>
      [200, 201].includes((await a!.request('PUT', `/api/products/${id}`, { body: { name: id, store_ids: { app_store: id } } })).status),
    );
    const ms = await within(10_000, `the change on B after cut ${round}`, async () => (await b!.request('GET', `/api/products/${id}`)).status === 200);
    t.diagnostic(`after cut ${round}: the change reached B in ${ms.toFixed(0)} ms`);
  }
  for (const instance of instances) {
    assert.equal(instance.child.exitCode, null, instance.output());
    await within(10_000, '/healthz ok', async () => (await fetch(`${instance.url}/healthz`)).status === 200);
  }
});
