/** A database file deleted or replaced under a running server: /healthz and every write say so (503), never "ok". */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { needs, SQLITE_BACKEND } from '../helpers/requirements.ts';
import { bearer, startTestServer } from '../helpers/server.ts';

const JSON_TYPE = { 'content-type': 'application/json' };

test('the database file, -wal and -shm deleted under the server: /healthz and writes answer 503 database_unavailable', needs(SQLITE_BACKEND), async (t) => {
  const { url, keys, dbPath } = await startTestServer(t);
  assert.equal((await fetch(`${url}/healthz`)).status, 200);
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${dbPath}${suffix}`, { force: true });

  const health = await fetch(`${url}/healthz`);
  const problem = await health.json();
  assert.equal(health.status, 503);
  assert.equal(problem.code, 'database_unavailable');
  assert.match(problem.detail, /deleted or replaced/);

  const events = await fetch(`${url}/api/sdk/events`, {
    method: 'POST',
    headers: { ...JSON_TYPE, ...bearer(keys.sdk) },
    body: JSON.stringify({ events: [{ type: 'paywall_close', paywall_id: 'pw', ts: Date.now() }] }),
  });
  assert.equal(events.status, 503);
  assert.equal((await events.json()).code, 'database_unavailable');
  const product = await fetch(`${url}/api/products/pro`, {
    method: 'PUT',
    headers: { ...JSON_TYPE, ...bearer(keys.secret) },
    body: JSON.stringify({ name: 'Pro' }),
  });
  assert.equal(product.status, 503);
  assert.equal((await product.json()).code, 'database_unavailable');
});

test('a database file replaced at its path by another one is noticed as well', needs(SQLITE_BACKEND), async (t) => {
  const { url, dbPath } = await startTestServer(t);
  fs.copyFileSync(dbPath, `${dbPath}.copy`);
  fs.renameSync(`${dbPath}.copy`, dbPath);
  const health = await fetch(`${url}/healthz`);
  assert.equal(health.status, 503);
  assert.match((await health.json()).detail, /deleted or replaced/);
});
