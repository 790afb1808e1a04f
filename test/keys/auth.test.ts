import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { openTestDb } from '../helpers/events.ts';
import { needs, SQLITE_BACKEND } from '../helpers/requirements.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

async function code(response: Response): Promise<string> {
  assert.equal(response.headers.get('content-type'), 'application/problem+json');
  return (await response.json()).code;
}

test('the management API needs a key: missing 401, malformed 401, unknown 401', async (t) => {
  const { url } = await startTestServer(t);
  const missing = await fetch(`${url}/api/keys`);
  assert.equal(missing.status, 401);
  assert.equal(missing.headers.get('www-authenticate'), 'Bearer');
  assert.equal(await code(missing), 'missing_api_key');
  const malformed = await fetch(`${url}/api/keys`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
  assert.equal(malformed.status, 401);
  assert.equal(await code(malformed), 'invalid_authorization');
  const unknown = await fetch(`${url}/api/keys`, { headers: bearer(`pwk_secret_${'A'.repeat(32)}`) });
  assert.equal(unknown.status, 401);
  assert.equal(await code(unknown), 'invalid_api_key');
});

test('an sdk key on the management API is 403; the secret key is accepted', async (t) => {
  const { url, keys, projectId } = await startTestServer(t);
  const sdk = await fetch(`${url}/api/keys`, { headers: bearer(keys.sdk) });
  assert.equal(sdk.status, 403);
  assert.equal(await code(sdk), 'insufficient_scope');
  const secret = await fetch(`${url}/api/keys`, { headers: bearer(keys.secret) });
  assert.equal(secret.status, 200);
  const body = await secret.json();
  assert.deepEqual(body.keys.map((k: { scope: string }) => k.scope).sort(), ['sdk', 'secret']);
  assert.ok(body.keys.every((k: { project_id: string; prefix: string }) => k.project_id === projectId && !('hash' in k)));
});

test('keys created through the API work at once and carry their scope prefix; revoked keys fail at once', async (t) => {
  const { url, keys } = await startTestServer(t);
  const created = await fetch(`${url}/api/keys`, {
    method: 'POST',
    headers: { ...bearer(keys.secret), 'content-type': 'application/json' },
    body: JSON.stringify({ scope: 'secret' }),
  });
  assert.equal(created.status, 201);
  const key = await created.json();
  assert.match(key.key, /^pwk_secret_[0-9A-Za-z]{32}$/);
  assert.ok(key.key.startsWith(key.prefix));
  assert.equal((await fetch(`${url}/api/keys`, { headers: bearer(key.key) })).status, 200);

  const revoked = await fetch(`${url}/api/keys/${key.id}`, { method: 'DELETE', headers: bearer(keys.secret) });
  assert.equal(revoked.status, 200);
  assert.notEqual((await revoked.json()).revoked_at, null);
  const after = await fetch(`${url}/api/keys`, { headers: bearer(key.key) });
  assert.equal(after.status, 401);
  assert.equal(await code(after), 'invalid_api_key');
});

test('a key of another project cannot be revoked (404), and an invalid scope is a 422', async (t) => {
  const { url, keys, dbPath } = await startTestServer(t);
  const other = JSON.parse((await runCli(['projects', 'create', 'other', '--json', '--db', dbPath])).stdout);
  const otherKeyId = JSON.parse((await runCli(['keys', 'list', '--project', other.project.id, '--json', '--db', dbPath])).stdout).keys[0].id;
  const response = await fetch(`${url}/api/keys/${otherKeyId}`, { method: 'DELETE', headers: bearer(keys.secret) });
  assert.equal(response.status, 404);
  const invalid = await fetch(`${url}/api/keys`, {
    method: 'POST',
    headers: { ...bearer(keys.secret), 'content-type': 'application/json' },
    body: JSON.stringify({ scope: 'admin' }),
  });
  assert.equal(invalid.status, 422);
  assert.deepEqual(
    (await invalid.json()).errors.map((e: { path: string }) => e.path),
    ['/scope'],
  );
});

test('a key revoked by the CLI in another process stops working on the running server', async (t) => {
  const { url, dbPath, projectId } = await startTestServer(t);
  const created = JSON.parse((await runCli(['keys', 'create', '--project', projectId, '--scope', 'secret', '--json', '--db', dbPath])).stdout);
  assert.deepEqual(Object.keys(created).sort(), ['id', 'key', 'prefix', 'scope']);
  // A key created by another process reaches the server the same way.
  const answers = (want: number) => async () => (await fetch(`${url}/api/keys`, { headers: bearer(created.key) })).status === want;
  await until(answers(200), 'the key the CLI created to work');
  const revoke = await runCli(['keys', 'revoke', created.id, '--db', dbPath]);
  assert.equal(revoke.status, 0, revoke.stderr);
  await until(answers(401), 'the key the CLI revoked to be refused');
});

test('the plain key never touches the database file', needs(SQLITE_BACKEND), async (t) => {
  const { url, keys, dbPath } = await startTestServer(t);
  await fetch(`${url}/api/keys`, { headers: bearer(keys.secret) });
  // A checkpoint is the database's, whichever connection asks: the log's pages reach the file.
  openTestDb(t, dbPath).pragma('wal_checkpoint(PASSIVE)');
  const bytes = Buffer.concat([dbPath, `${dbPath}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)));
  for (const key of [keys.sdk, keys.secret]) {
    assert.equal(bytes.includes(key), false);
    assert.equal(bytes.includes(key.slice(-16)), false);
  }
  // What is stored is the SHA-256 of the key.
  const { createHash } = await import('node:crypto');
  assert.equal(bytes.includes(createHash('sha256').update(keys.secret).digest('hex')), true);
});
