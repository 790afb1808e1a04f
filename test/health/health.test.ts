import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { needs, SQLITE_BACKEND } from '../helpers/requirements.ts';
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

// PostgreSQL stopped under running instances: test/scale-out/faults.test.ts.
test('/healthz answers 503 when the database file really fails, and the server keeps running', needs(SQLITE_BACKEND), async (t) => {
  const { url, server, dbPath, keys } = await startTestServer(t);
  assert.equal((await fetch(`${url}/healthz`)).status, 200);
  // Everything into the main file, then the file is damaged under the running server (as a failing
  // disk or a stray process would): a check that reads no page, or reads it from the cache, passes.
  const other = openDatabase(dbPath, { mustExist: true });
  other.pragma('wal_checkpoint(TRUNCATE)');
  other.close();
  fs.truncateSync(dbPath, 0);
  const response = await fetch(`${url}/healthz`);
  assert.equal(response.status, 503);
  assert.equal(response.headers.get('retry-after'), '1');
  assert.equal((await response.json()).code, 'database_unavailable');
  // A request that reads the damaged file answers the same 503, not 500.
  const list = await fetch(`${url}/api/products`, { headers: { authorization: `Bearer ${keys.secret}` } });
  assert.equal(list.status, 503, await list.clone().text());
  assert.equal((await list.json()).code, 'database_unavailable');
  assert.equal((await fetch(`${url}/readyz`)).status, 200, 'the process is still up');
  assert.ok(server.port > 0);
});
