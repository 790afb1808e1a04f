/**
 * Two `paywalld serve` instances on one PostgreSQL database send from one
 * outbox: each delivery is sent by one of them at a time (a lease), so
 * that the receiver gets each exactly once when it answers 2xx at once,
 * and exactly once more per retry when it answers 500 first.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startInstances } from '../helpers/instances.ts';
import { metric } from '../helpers/metrics.ts';
import { POSTGRES, postgresDatabase } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';
import { bearer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';
import { deliveriesOf, putWebhook, startReceiver, verified } from '../helpers/webhooks.ts';

const CAUSES = 60;

test('two instances send each delivery once: every request the receiver gets is an attempt one of them recorded', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const { instances, keys } = await startInstances(t, url, 2, ['--webhooks-allow-private', '--webhooks-backoff-scale', '0.01']);
  // One delivery in ten is answered 500 the first time, so that retries are claimed by whichever instance comes first too.
  const receiver = await startReceiver(t, (delivery, n) => (n === 1 && delivery.event.data.purchase.id.endsWith('0') ? 500 : 200));
  const hook = await putWebhook({ url: instances[0]!.url, keys }, 'warehouse', { url: receiver.url, events: ['purchase.recorded'] });
  assert.equal(hook.status, 201);
  await Promise.all(
    Array.from({ length: CAUSES }, async (_, i) => {
      const purchase = { id: `p${i}`, user_id: `u${i}`, type: 'initial_purchase', ts: Date.now(), product_id: 'pro', revenue: 1, currency: 'EUR' };
      const response = await fetch(`${instances[i % 2]!.url}/api/purchases`, {
        method: 'POST',
        headers: { ...bearer(keys.secret), 'content-type': 'application/json' },
        body: JSON.stringify({ purchases: [purchase] }),
      });
      assert.equal(response.status, 200);
    }),
  );
  const server = { url: instances[1]!.url, keys };
  await until(
    async () => (await deliveriesOf(server, 'warehouse')).filter((d) => d.status === 'succeeded').length === CAUSES,
    'every delivery sent',
    30_000,
    100,
  );
  const deliveries = await deliveriesOf(server, 'warehouse');
  assert.equal(deliveries.length, CAUSES);
  for (const delivery of deliveries) {
    const requests = receiver.received.filter((r) => r.id === delivery.id);
    assert.equal(requests.length, delivery.attempts, `${delivery.id}: the receiver got ${requests.length} requests for ${delivery.attempts} attempts`);
    assert.equal(delivery.attempts, delivery.event.data.purchase.id.endsWith('0') ? 2 : 1);
    assert.ok(requests.every((r) => verified(hook.body.secret, r)));
  }
  let attempts = 0;
  for (const instance of instances) {
    for (const outcome of ['succeeded', 'failed'])
      attempts += (await metric(instance.url, keys.secret, `paywalld_webhook_attempts_total{outcome="${outcome}"}`)) ?? 0;
  }
  assert.equal(attempts, receiver.received.length, 'no request the instances did not count');
});
