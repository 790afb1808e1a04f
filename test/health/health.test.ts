import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer } from '../helpers/server.ts';

test('/healthz and /readyz answer 200 while serving', async (t) => {
  const { url } = await startTestServer(t);
  const health = await fetch(`${url}/healthz`);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: 'ok' });
  const ready = await fetch(`${url}/readyz`);
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), { status: 'ready' });
});

test('/readyz answers 503 once draining began, while /healthz stays 200', async (t) => {
  const { url, server } = await startTestServer(t);
  server.ctx.lifecycle.draining = true;
  const ready = await fetch(`${url}/readyz`);
  assert.equal(ready.status, 503);
  assert.equal(ready.headers.get('retry-after'), '1');
  assert.equal((await ready.json()).code, 'draining');
  assert.equal((await fetch(`${url}/healthz`)).status, 200);
});

test('/healthz answers 503 when the database does not', async (t) => {
  const { url, server } = await startTestServer(t);
  server.ctx.db.close();
  const response = await fetch(`${url}/healthz`);
  assert.equal(response.status, 503);
  assert.equal((await response.json()).code, 'database_unavailable');
});
