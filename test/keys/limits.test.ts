import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTarget } from '../../src/db/target.ts';
import { openStorage } from '../../src/storage/open.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { metric } from '../helpers/metrics.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

/** `count` sdk keys written by another process's connection (one transaction where the backend has one), as the CLI would. */
async function keysWrittenElsewhere(db: string, projectId: string, count: number): Promise<void> {
  const storage = await openStorage(parseTarget(db));
  try {
    const steps = async () => {
      for (let i = 0; i < count; i++) await storage.keys.create(projectId, 'sdk', '', TEST_CHANGE);
    };
    await (storage.atomically ? storage.atomically(steps) : steps());
  } finally {
    await storage.close();
  }
}

const createKey = (url: string, secret: string) =>
  fetch(`${url}/api/keys`, { method: 'POST', headers: { ...bearer(secret), 'content-type': 'application/json' }, body: JSON.stringify({ scope: 'sdk' }) });

test('creating and revoking keys through the API updates the key registry in place, however many keys exist; other processes still cause a reload', async (t) => {
  const { url, keys, dbPath, projectId } = await startTestServer(t);
  const reloads = () => metric(url, keys.secret, 'paywalld_key_registry_reloads_total');
  const active = () => metric(url, keys.secret, 'paywalld_api_keys_active');
  // Another process writes many keys (of other projects and this one): the server reloads once for it.
  const before = await reloads();
  await keysWrittenElsewhere(dbPath, projectId, 500);
  await until(async () => (await active()) === 502, 'the server to load the keys another process wrote');
  const loaded = await reloads();
  assert.ok(before !== undefined && loaded !== undefined && loaded > before, `reloads: ${before} then ${loaded}`);

  const created = await createKey(url, keys.secret);
  assert.equal(created.status, 201);
  const key = await created.json();
  assert.equal((await fetch(`${url}/api/sdk/config?paywallId=none`, { headers: bearer(key.key) })).status, 404, 'the new key works at once');
  assert.equal(await active(), 503);
  const revoked = await fetch(`${url}/api/keys/${key.id}`, { method: 'DELETE', headers: bearer(keys.secret) });
  assert.equal(revoked.status, 200);
  assert.equal((await fetch(`${url}/api/sdk/config?paywallId=none`, { headers: bearer(key.key) })).status, 401, 'the revoked key stops at once');
  assert.equal(await active(), 502);
  assert.equal(await reloads(), loaded, 'no full reload for this process’s own changes');
});

test('a project holds at most 1,000 active keys: the next is 409 too_many_keys until one is revoked', async (t) => {
  const { url, keys, dbPath, projectId } = await startTestServer(t);
  await keysWrittenElsewhere(dbPath, projectId, 997);
  await until(async () => (await metric(url, keys.secret, 'paywalld_api_keys_active')) === 999, 'the server to load the keys');
  const last = await createKey(url, keys.secret);
  assert.equal(last.status, 201);
  const { id } = await last.json();
  const refused = await createKey(url, keys.secret);
  assert.equal(refused.status, 409);
  assert.equal(refused.headers.get('content-type'), 'application/problem+json');
  const problem = await refused.json();
  assert.equal(problem.code, 'too_many_keys');
  assert.match(problem.detail, /at most 1000 active keys/);
  assert.equal((await fetch(`${url}/api/keys/${id}`, { method: 'DELETE', headers: bearer(keys.secret) })).status, 200);
  assert.equal((await createKey(url, keys.secret)).status, 201);
});
