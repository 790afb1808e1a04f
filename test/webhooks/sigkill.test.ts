/**
 * Deliveries survive SIGKILL: a real `paywalld serve` killed while its
 * deliveries wait between retries, and while others were just queued or in
 * flight, is started again on the same database, and every delivery
 * reaches the receiver (at least once: one in flight may come twice).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { emptyDatabase } from '../helpers/backend.ts';
import { spawnServe } from '../helpers/cli.ts';
import { bearer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';
import { until } from '../helpers/until.ts';
import { deliveriesOf, putWebhook, startReceiver, verified } from '../helpers/webhooks.ts';

// Retries 2 s, then 6 s, after a failure: time enough to kill the server between them.
const ARGS = ['--rate-limit-api', '0', '--webhooks-allow-private', '--webhooks-backoff-scale', '0.2'];
const BEFORE = 10;
const AT_THE_KILL = 5;

test('SIGKILL of the sender between retries, and with deliveries queued or in flight, loses none of them', async (t) => {
  const database = await emptyDatabase();
  t.after(() => database.remove());
  const keysFile = path.join(tempDir(t), 'keys.json');
  const first = await spawnServe(t, ['--db', database.db, '--keys-file', keysFile, ...ARGS]);
  const { keys } = JSON.parse(fs.readFileSync(keysFile, 'utf8')) as { keys: { secret: string } };
  // Each delivery fails twice; after the restart, every attempt succeeds.
  let restarted = false;
  const receiver = await startReceiver(t, (_, n) => (restarted || n > 2 ? 200 : 500));
  const hook = await putWebhook({ url: first.url, keys }, 'crm', { url: receiver.url, events: ['key.created'] });
  assert.equal(hook.status, 201);
  const createKey = async (url: string) => {
    const response = await fetch(`${url}/api/keys`, {
      method: 'POST',
      headers: { ...bearer(keys.secret), 'content-type': 'application/json' },
      body: '{"scope":"sdk"}',
    });
    assert.equal(response.status, 201);
    return ((await response.json()) as { id: string }).id;
  };
  const created: string[] = [];
  for (let i = 0; i < BEFORE; i++) created.push(await createKey(first.url));
  await until(
    async () => (await deliveriesOf({ url: first.url, keys }, 'crm')).filter((d) => d.attempts === 2 && d.status === 'pending').length === BEFORE,
    'every delivery failed twice and waits for its third attempt',
    30_000,
    50,
  );
  // These are queued, or their first attempt in flight, when the process dies.
  for (let i = 0; i < AT_THE_KILL; i++) created.push(await createKey(first.url));
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  restarted = true;

  const second = await spawnServe(t, ['--db', database.db, ...ARGS]);
  const server = { url: second.url, keys };
  // A lease the killed process held on PostgreSQL expires after 30 s before another sender takes its delivery.
  await until(
    async () => (await deliveriesOf(server, 'crm')).filter((d) => d.status === 'succeeded').length === BEFORE + AT_THE_KILL,
    'every delivery sent',
    90_000,
    200,
  );
  const delivered = new Set(receiver.received.filter((r) => verified(hook.body.secret, r)).map((r) => r.event.data.key_id));
  assert.deepEqual([...delivered].sort(), [...created].sort(), 'each cause reached the receiver');
  for (const delivery of await deliveriesOf(server, 'crm')) {
    const tries = receiver.received.filter((r) => r.id === delivery.id).length;
    assert.ok(tries >= (created.indexOf(delivery.event.data.key_id) < BEFORE ? 3 : 1), `${delivery.id}: ${tries} requests`);
  }
  assert.equal(await second.stop(), 0);
});
