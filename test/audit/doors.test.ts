/**
 * Every door writes its changes' entries: the CLI on the database (a
 * running server's included, on either backend), paywalls as code through
 * the database or through a server's API with a key, `serve --seed`; and
 * `paywalld audit-log` reads them back as the API does.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isPostgresUrl } from '../../src/db/target.ts';
import { asPerson, firstOwner } from '../helpers/accounts.ts';
import { secretsKeyFileFor } from '../helpers/backend.ts';
import { runCli } from '../helpers/cli.ts';
import { ciServer, EXAMPLE, exampleCopy } from '../helpers/config-dir.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';

interface Entry {
  action: string;
  actor: { type: string; id: string; label: string };
  target: { type: string; id: string };
  revision?: number;
}

async function log(url: string, project: string, key: string, query = ''): Promise<Entry[]> {
  const response = await fetch(`${url}/api/projects/${project}/audit-log${query}`, { headers: bearer(key) });
  assert.equal(response.status, 200);
  return (await response.json()).entries;
}

test("the CLI on a running server's database and paywalls as code, through the database or a key, each name themselves", async (t) => {
  const server = await startTestServer(t);
  const { url, projectId, dbPath, keys } = server;
  const created = await runCli(['keys', 'create', '--project', projectId, '--scope', 'secret', '--name', 'CI', '--json', '--db', dbPath]);
  assert.equal(created.status, 0, created.stderr);
  const config = path.join(tempDir(t), 'revenuecat.json');
  fs.writeFileSync(config, JSON.stringify({ authorization: 'Bearer a-long-shared-secret' }));
  // On PostgreSQL connector secrets need the key file the server seals with (src/shared/secret-box.ts): the CLI gets the same one.
  const sealing = isPostgresUrl(dbPath) ? { PAYWALLD_SECRETS_KEY_FILE: secretsKeyFileFor(dbPath) } : {};
  const set = await runCli(['integrations', 'set', 'revenuecat', '--project', projectId, '--config', config, '--db', dbPath], { env: sealing });
  assert.equal(set.status, 0, set.stderr);
  // A copy: apply records what it wrote beside the directory (.paywalld-sync.json).
  const byDb = await runCli(['apply', exampleCopy(t), '--publish', '--db', dbPath]);
  assert.equal(byDb.status, 0, byDb.stderr);

  const [connector, key] = (await log(url, projectId, keys.secret)).filter((e) => e.action === 'connector.configured' || e.action === 'key.created');
  assert.equal(connector!.actor.type, 'cli');
  assert.equal(connector!.actor.label, 'paywalld integrations set');
  assert.equal(key!.actor.label, 'paywalld keys create');
  assert.equal(key!.target.id, JSON.parse(created.stdout).id);
  const applied = (await log(url, projectId, keys.secret)).filter((e) => e.actor.label === 'paywalld apply');
  assert.ok(applied.some((e) => e.action === 'product.written'));
  assert.ok(applied.some((e) => e.action === 'paywall.written' && e.target.id === 'onboarding' && e.revision === 1));
  assert.ok(applied.some((e) => e.action === 'paywall.published' && e.target.id === 'onboarding'));
  assert.ok(applied.every((e) => e.actor.type === 'cli'));

  // Through the server's API, apply's changes are its key's.
  const dir = exampleCopy(t);
  const onboarding = JSON.parse(fs.readFileSync(path.join(dir, 'paywalls/onboarding.json'), 'utf8'));
  onboarding.strings.en.title = 'Changed in git';
  fs.writeFileSync(path.join(dir, 'paywalls/onboarding.json'), JSON.stringify(onboarding));
  const byApi = await runCli(['apply', dir, '--server', url], { env: { PAYWALLD_KEY: keys.secret } });
  assert.equal(byApi.status, 0, byApi.stderr);
  const [written] = await log(url, projectId, keys.secret, '?action=paywall.written&target=onboarding');
  assert.equal(written!.actor.type, 'key');
  assert.equal(written!.actor.label, `${keys.secret.slice(0, 15)}…`);
  assert.equal(written!.revision, 2);
  // And each paywall's history says who wrote each revision.
  const history = await (await fetch(`${url}/api/paywalls/onboarding/revisions`, { headers: bearer(keys.secret) })).json();
  assert.deepEqual(
    history.revisions.map((r: { created_by: Entry['actor'] }) => [r.created_by.type, r.created_by.label]),
    [
      ['key', written!.actor.label],
      ['cli', 'paywalld apply'],
    ],
  );
});

test('paywalld audit-log prints what the API answers, filtered and a page at a time', async (t) => {
  const server = await startTestServer(t);
  const { url, projectId, dbPath, keys } = server;
  for (const id of ['a', 'b', 'c']) {
    const put = await fetch(`${url}/api/products/${id}`, {
      method: 'PUT',
      headers: { ...bearer(keys.secret), 'content-type': 'application/json' },
      body: JSON.stringify({ name: id, store_ids: {} }),
    });
    assert.equal(put.status, 201);
  }
  const page = await runCli(['audit-log', '--project', projectId, '--action', 'product.written', '--limit', '2', '--json', '--db', dbPath]);
  assert.equal(page.status, 0, page.stderr);
  const printed = JSON.parse(page.stdout);
  const answered = await (await fetch(`${url}/api/projects/${projectId}/audit-log?action=product.written&limit=2`, { headers: bearer(keys.secret) })).json();
  assert.deepEqual(printed, answered);
  assert.deepEqual(
    printed.entries.map((e: Entry) => e.target.id),
    ['c', 'b'],
  );
  const next = await runCli(['audit-log', '--project', projectId, '--action', 'product.written', '--cursor', printed.next_cursor, '--db', dbPath]);
  assert.match(next.stdout, /^\S+ {2}prj_\S+ {2}pwk_secret_\S+… \(key\) {2}product\.written {2}product a {2}created product a \(a\) {2}from 127\.0\.0\.1\n$/);
  const everything = await runCli(['audit-log', '--db', dbPath]);
  assert.match(everything.stdout, /project\.created/);
  const bad = await runCli(['audit-log', '--since', 'yesterday', '--db', dbPath]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--since must be an ISO date/);
  const refused = await fetch(`${url}/api/projects/${projectId}/audit-log?cursor=0&action=nope`, { headers: bearer(keys.secret) });
  assert.equal(refused.status, 400);
  assert.deepEqual((await refused.json()).errors.map((e: { path: string }) => e.path).sort(), ['/action', '/cursor']);
});

test("paywalld users invites, lists, resets and removes people on a running server's database, which sees it at once", async (t) => {
  const server = await startTestServer(t);
  const { url, projectId, dbPath } = server;
  const owner = await firstOwner(server);
  const invited = await runCli(['users', 'invite', 'Ed@Example.com', '--role', 'editor', '--url', url, '--json', '--db', dbPath]);
  assert.equal(invited.status, 0, invited.stderr);
  const link = JSON.parse(invited.stdout).url as string;
  assert.ok(link.startsWith(`${url}/dashboard/#/accept/`));
  const joined = await fetch(`${url}/api/auth/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: link.slice(link.lastIndexOf('/') + 1), password: 'an editor password' }),
  });
  assert.equal(joined.status, 200);
  const listed = JSON.parse((await runCli(['users', 'list', '--json', '--db', dbPath])).stdout);
  assert.deepEqual(
    listed.users.map((u: { email: string; projects: { id: string; role: string }[] }) => [u.email, u.projects.map((p) => `${p.id}:${p.role}`)]),
    [
      [owner.email, [`${projectId}:owner`]],
      ['Ed@Example.com', [`${projectId}:editor`]],
    ],
  );
  assert.equal((await runCli(['users', 'invite', 'ed@example.com', '--role', 'viewer', '--db', dbPath])).status, 1, 'a member already');
  assert.equal((await runCli(['users', 'invite', 'x@example.com', '--role', 'boss', '--db', dbPath])).status, 2);

  const reset = await runCli(['users', 'reset-password', owner.email, '--db', dbPath]);
  assert.equal(reset.status, 0, reset.stderr);
  assert.match(reset.stdout, /^http:\/\/localhost:8787\/dashboard\/#\/accept\/[A-Za-z0-9_-]{43}\n/);
  assert.equal((await fetch(`${url}/api/auth/me`, { headers: asPerson(owner) })).status, 401, "the owner's sessions ended at once");
  const removeLast = await runCli(['users', 'remove', owner.email, '--db', dbPath]);
  assert.equal(removeLast.status, 1);
  assert.match(removeLast.stderr, /without an owner/);
  assert.equal((await runCli(['users', 'remove', 'ed@example.com', '--db', dbPath])).status, 0);
  assert.equal((await runCli(['users', 'remove', 'ed@example.com', '--db', dbPath])).status, 1, 'no such account any more');
  const entries = JSON.parse((await runCli(['audit-log', '--json', '--db', dbPath])).stdout).entries as Entry[];
  assert.deepEqual(
    entries.slice(0, 2).map((e) => [e.action, e.actor.label]),
    [
      ['user.removed', 'paywalld users remove'],
      ['user.password_reset', 'paywalld users reset-password'],
    ],
  );
});

test("serve --seed names itself; a first start prints the first owner's link beside the keys", async (t) => {
  const server = await ciServer(t, ['--seed', EXAMPLE]);
  const owner = /The first owner signs up at (http:\/\/127\.0\.0\.1:\d+\/dashboard\/#\/accept\/[A-Za-z0-9_-]{43})\n/.exec(server.output());
  assert.ok(owner, server.output());
  const entries = await log(server.url, server.projectId, server.keys.secret);
  assert.ok(entries.some((e) => e.action === 'paywall.published' && e.actor.label === 'paywalld serve --seed'));
  assert.equal(entries.at(-1)!.action, 'project.created');
  assert.equal(entries.at(-1)!.actor.label, 'paywalld serve (first start)');
});
