/**
 * Webhook endpoints' signing secrets at rest (src/webhooks/secrets.ts): the
 * row keeps the secret sealed with the server's key file, never its text,
 * and deliveries are still signed with it; a secret stored in plaintext by
 * an earlier version is sealed at the next start and still signs.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import type { ServeConfig } from '../../src/config.ts';
import { openTestSql } from '../helpers/database.ts';
import { bearer, serverOn, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';
import { putWebhook, type Receiver, startReceiver, verified } from '../helpers/webhooks.ts';

const WEBHOOKS: Partial<ServeConfig> = { webhooks: { allowPrivate: true, backoffScale: 0.001 } };

/** Every byte SQLite keeps of a database: the file and, when there is one, its WAL. */
function storedBytes(db: string): Buffer {
  return Buffer.concat([db, `${db}-wal`].filter((file) => fs.existsSync(file)).map((file) => fs.readFileSync(file)));
}

/** Sends the endpoint's test event and answers it as the receiver got it. */
async function testDelivery(url: string, secretKey: string, receiver: Receiver): Promise<Receiver['received'][number]> {
  const before = receiver.received.length;
  assert.equal((await fetch(`${url}/api/webhooks/hook/test`, { method: 'POST', headers: bearer(secretKey) })).status, 202);
  await until(() => receiver.received.length > before, 'the test delivery arrives', 10_000, 50);
  return receiver.received.at(-1)!;
}

test('the secret is stored sealed, never as its text, and deliveries are still signed with it', async (t) => {
  const s = await startTestServer(t, WEBHOOKS);
  const receiver = await startReceiver(t);
  const created = await putWebhook(s, 'hook', { url: receiver.url, events: ['key.created'] });
  assert.equal(created.status, 201);
  const secret: string = created.body.secret;
  assert.match(secret, /^whsec_/);
  const sql = openTestSql(t, s.dbPath);
  const stored = String(await sql.value('SELECT secret FROM webhooks WHERE project_id = ? AND id = ?', s.projectId, 'hook'));
  assert.equal(stored.includes(secret), false);
  assert.equal(stored.includes(secret.slice('whsec_'.length)), false);
  assert.equal(JSON.parse(stored).sealed, 'aes-256-gcm');
  if (sql.backend === 'sqlite') assert.equal(storedBytes(s.dbPath).includes(secret.slice('whsec_'.length)), false, 'nowhere in the file');
  assert.ok(verified(secret, await testDelivery(s.url, s.keys.secret, receiver)));
});

test('a secret stored in plaintext by an earlier version is sealed at the next start and still signs', async (t) => {
  const first = await startTestServer(t, WEBHOOKS);
  const receiver = await startReceiver(t);
  assert.equal((await putWebhook(first, 'hook', { url: receiver.url, events: ['key.created'] })).status, 201);
  await first.server.stop();
  // What an earlier version wrote: the secret's text.
  const legacy = 'whsec_cGxhaW50ZXh0IHNlY3JldCBvZiBhbiBlYXJsaWVyIHZlcnNpb24=';
  const sql = openTestSql(t, first.dbPath);
  await sql.run('UPDATE webhooks SET secret = ? WHERE project_id = ? AND id = ?', legacy, first.projectId, 'hook');
  const again = await serverOn(t, first.dbPath, WEBHOOKS);
  const stored = String(await sql.value('SELECT secret FROM webhooks WHERE project_id = ? AND id = ?', first.projectId, 'hook'));
  assert.equal(stored.includes(legacy), false);
  assert.equal(JSON.parse(stored).sealed, 'aes-256-gcm');
  if (sql.backend === 'sqlite') assert.equal(storedBytes(first.dbPath).includes(legacy), false, 'the file holds the secret no more');
  assert.ok(verified(legacy, await testDelivery(again.url, first.keys.secret, receiver)));
});
