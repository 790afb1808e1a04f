/**
 * A project's members: invitations (72 hours, once), roles, the last-owner
 * rule, removal, and the project a signed-in person acts on (docs/guide/teams.md).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accept, asPerson, firstOwner, invite, member, PASSWORD, signUp, tokenOf } from '../helpers/accounts.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { openTestSql } from '../helpers/database.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

const json = { 'content-type': 'application/json' };

test("an invitation works once, within 72 hours; the first start's asks for an email; a new password has 10 characters at least", async (t) => {
  const server = await startTestServer(t);
  const bootstrap = server.server.bootstrap!.invitation!;
  assert.ok(Math.abs(Date.parse(bootstrap.expires_at) - Date.now() - 72 * 3600_000) < 60_000);
  const noEmail = await problem(await accept(server.url, { token: bootstrap.token, password: PASSWORD }), 422, 'validation_failed');
  assert.equal(noEmail.errors[0].path, '/email');
  const short = await problem(await accept(server.url, { token: bootstrap.token, password: 'too short', email: 'a@example.com' }), 422, 'validation_failed');
  assert.equal(short.errors[0].path, '/password');
  const owner = await firstOwner(server);
  await problem(await accept(server.url, { token: bootstrap.token, password: PASSWORD, email: 'again@example.com' }), 400, 'invitation_invalid');

  const response = await fetch(`${server.url}/api/projects/${server.projectId}/invitations`, {
    method: 'POST',
    headers: { ...asPerson(owner), ...json },
    body: JSON.stringify({ email: 'Viewer@Example.com', role: 'viewer' }),
  });
  assert.equal(response.status, 201);
  const { url, expires_at } = await response.json();
  assert.match(url, new RegExp(`^${server.url}/dashboard/#/accept/[A-Za-z0-9_-]{43}$`));
  assert.ok(Date.parse(expires_at) > Date.now() + 71 * 3600_000);
  const sql = openTestSql(t, server.dbPath);
  await sql.run('UPDATE invitations SET expires_at = ? WHERE used_at IS NULL', Date.now() - 1);
  await problem(await accept(server.url, { token: tokenOf(url), password: PASSWORD }), 400, 'invitation_invalid');
  await problem(await accept(server.url, { token: 'A'.repeat(43), password: PASSWORD }), 400, 'invitation_invalid');
});

test('inviting an existing account adds the role once its own password is given; a member cannot be invited twice', async (t) => {
  const server = await startTestServer(t);
  const owner = await firstOwner(server);
  const other = await server.server.ctx.projects.create('other', TEST_CHANGE);
  const editor = await member(server, owner, 'editor');
  await assert.rejects(invite(server.url, owner, server.projectId, 'EDITOR@example.com', 'viewer'), /already_member/);
  // The owner joins the second project (through an invitation such as the CLI makes), then invites the editor there as an analyst.
  const ownerThere = await server.server.ctx.members.invite(other.project.id, owner.email, 'owner', TEST_CHANGE);
  await signUp(server.url, ownerThere.token, owner.email);
  const token = await invite(server.url, owner, other.project.id, editor.email, 'analyst');
  await problem(await accept(server.url, { token, password: 'not their password' }), 401, 'invalid_credentials');
  const joined = await accept(server.url, { token, password: PASSWORD, name: 'ignored for an existing account' });
  assert.equal(joined.status, 200);
  assert.equal((await joined.json()).user.id, editor.userId);
  const me = await (await fetch(`${server.url}/api/auth/me`, { headers: asPerson(editor) })).json();
  assert.deepEqual(
    me.projects.map((p: { id: string; role: string }) => [p.id, p.role]),
    [
      [server.projectId, 'editor'],
      [other.project.id, 'analyst'],
    ],
  );
});

test('a person in several projects names one with X-Paywalld-Project; one in a single project may omit it', async (t) => {
  const server = await startTestServer(t);
  const owner = await firstOwner(server);
  assert.equal((await fetch(`${server.url}/api/products`, { headers: asPerson(owner) })).status, 200);
  const other = await server.server.ctx.projects.create('other', TEST_CHANGE);
  const elsewhere = await signUp(server.url, (await server.server.ctx.members.invite(other.project.id, null, 'viewer', TEST_CHANGE)).token, 'x@example.com');
  assert.equal((await fetch(`${server.url}/api/products`, { headers: asPerson(elsewhere) })).status, 200);
  await signUp(server.url, (await server.server.ctx.members.invite(other.project.id, owner.email, 'viewer', TEST_CHANGE)).token, owner.email);
  await problem(await fetch(`${server.url}/api/products`, { headers: asPerson(owner) }), 400, 'project_required');
  assert.equal((await fetch(`${server.url}/api/products`, { headers: asPerson(owner, other.project.id) })).status, 200);
  // A viewer there: reading is allowed, writing is not, whatever the role elsewhere.
  const put = await fetch(`${server.url}/api/products/pro`, {
    method: 'PUT',
    headers: { ...asPerson(owner, other.project.id), ...json },
    body: JSON.stringify({ name: 'Pro', store_ids: {} }),
  });
  const refused = await problem(put, 403, 'forbidden');
  assert.equal(refused.detail, 'this needs the owner or editor role; you are viewer in this project');
  await problem(await fetch(`${server.url}/api/products`, { headers: asPerson(elsewhere, server.projectId) }), 403, 'forbidden');
  // A path that names a project overrides the header, and is checked the same way.
  await problem(await fetch(`${server.url}/api/projects/${server.projectId}/members`, { headers: asPerson(elsewhere) }), 403, 'forbidden');
  // A key acts on its own project only.
  await problem(await fetch(`${server.url}/api/projects/${other.project.id}/members`, { headers: bearer(server.keys.secret) }), 403, 'forbidden');
});

test('the last owner cannot be removed or demoted; a removed member is refused from their next request', async (t) => {
  const server = await startTestServer(t);
  const owner = await firstOwner(server);
  const members = `${server.url}/api/projects/${server.projectId}/members`;
  const patch = (who: { userId: string }, role: string, by = owner) =>
    fetch(`${members}/${who.userId}`, { method: 'PATCH', headers: { ...asPerson(by), ...json }, body: JSON.stringify({ role }) });
  const remove = (who: { userId: string }, by = owner) => fetch(`${members}/${who.userId}`, { method: 'DELETE', headers: asPerson(by) });
  await problem(await patch(owner, 'editor'), 409, 'last_owner');
  await problem(await remove(owner), 409, 'last_owner');
  await problem(await remove({ userId: 'usr_nobody' }), 404, 'member_not_found');

  const editor = await member(server, owner, 'editor');
  assert.equal((await fetch(`${server.url}/api/paywalls`, { headers: asPerson(editor) })).status, 200);
  const promoted = await patch(editor, 'owner');
  assert.equal(promoted.status, 200);
  assert.equal((await promoted.json()).role, 'owner');
  // Two owners: either may now step down, but not both.
  assert.equal((await patch(owner, 'viewer', editor)).status, 200);
  await problem(await patch(editor, 'analyst', editor), 409, 'last_owner');
  const list = await (await fetch(members, { headers: asPerson(editor) })).json();
  assert.deepEqual(
    list.members.map((m: { email: string; role: string }) => [m.email, m.role]),
    [
      [owner.email, 'viewer'],
      [editor.email, 'owner'],
    ],
  );
  assert.equal((await remove(owner, editor)).status, 204);
  await problem(await fetch(`${server.url}/api/paywalls`, { headers: asPerson(owner) }), 403, 'forbidden');
  const me = await (await fetch(`${server.url}/api/auth/me`, { headers: asPerson(owner) })).json();
  assert.deepEqual(me.projects, [], 'still signed in, in no project');
});

test('keys get a name and the time of their last use, written at most once a minute', async (t) => {
  const server = await startTestServer(t);
  const created = await fetch(`${server.url}/api/keys`, {
    method: 'POST',
    headers: { ...bearer(server.keys.secret), ...json },
    body: JSON.stringify({ scope: 'sdk', name: 'iOS app' }),
  });
  const { id, key } = await created.json();
  const listed = async () =>
    (await (await fetch(`${server.url}/api/keys`, { headers: bearer(server.keys.secret) })).json()).keys.find((k: { id: string }) => k.id === id);
  assert.equal((await listed()).name, 'iOS app');
  assert.equal((await listed()).last_used_at, null);
  const before = Date.now();
  assert.equal((await fetch(`${server.url}/api/sdk/fallback?paywallId=x`, { headers: bearer(key) })).status, 200);
  const sql = openTestSql(t, server.dbPath);
  const stamp = async () => Number((await sql.value('SELECT last_used_at FROM api_key_usage WHERE key_id = ?', id)) ?? 0);
  await until(async () => (await stamp()) >= before, "the key's use recorded");
  const first = await stamp();
  assert.equal(Date.parse((await listed()).last_used_at), first);
  // More uses within the minute write nothing.
  for (let i = 0; i < 3; i++) await (await fetch(`${server.url}/api/sdk/fallback?paywallId=x`, { headers: bearer(key) })).arrayBuffer();
  assert.equal(await stamp(), first);
  await problem(
    await fetch(`${server.url}/api/keys`, {
      method: 'POST',
      headers: { ...bearer(server.keys.secret), ...json },
      body: JSON.stringify({ scope: 'sdk', name: 'x'.repeat(101) }),
    }),
    422,
    'validation_failed',
  );
});
