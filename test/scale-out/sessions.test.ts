/**
 * Sessions across `paywalld serve` instances on one PostgreSQL database
 * (docs/guide/teams.md): a session opened on one instance works on the others,
 * and signing out, a removal or a password change holds on every instance
 * from its next request, with no wait.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accept, asPerson, login, PASSWORD, sessionOf, tokenOf } from '../helpers/accounts.ts';
import { startInstances } from '../helpers/instances.ts';
import { POSTGRES, postgresDatabase } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';

test('signing out on one instance ends the session on every instance at once', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const { instances } = await startInstances(t, url, 2);
  const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
  const link = /The first owner signs up at (\S+)/.exec(instances.map((instance) => instance.output()).join('\n'))?.[1];
  assert.ok(link, "the instance that created the project printed the first owner's link");
  const signedUp = await accept(b.url, { token: tokenOf(link), password: PASSWORD, email: 'owner@example.com' });
  assert.equal(signedUp.status, 200);
  const first = { token: sessionOf(signedUp) };
  const second = { token: sessionOf(await login(a.url, 'owner@example.com', PASSWORD)) };
  const me = async (instance: { url: string }, session: { token: string }) =>
    (await fetch(`${instance.url}/api/auth/me`, { headers: asPerson(session) })).status;
  assert.deepEqual([await me(a, first), await me(b, first), await me(a, second), await me(b, second)], [200, 200, 200, 200]);

  assert.equal((await fetch(`${a.url}/api/auth/logout`, { method: 'POST', headers: asPerson(first) })).status, 204);
  // No wait: B reads the session from the database on this very request.
  assert.equal(await me(b, first), 401);
  assert.equal(await me(a, first), 401);
  assert.equal(await me(b, second), 200, 'the other session goes on');

  // A password changed through B ends the other sessions on A too.
  const third = { token: sessionOf(await login(a.url, 'owner@example.com', PASSWORD)) };
  const changed = await fetch(`${b.url}/api/auth/password`, {
    method: 'POST',
    headers: { ...asPerson(second), 'content-type': 'application/json' },
    body: JSON.stringify({ current_password: PASSWORD, new_password: 'another long password' }),
  });
  assert.equal(changed.status, 204);
  assert.equal(await me(a, third), 401);
  assert.equal(await me(a, second), 200);
});
