/**
 * Signing in and out: the session cookie's attributes, what is stored of
 * it, its expiries, the same answer for an unknown email and a wrong
 * password, the throttle, password changes, and the CSRF rule for changes
 * a cookie authenticates (docs/guide/teams.md).
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { asPerson, firstOwner, login, PASSWORD, sessionOf } from '../helpers/accounts.ts';
import { openTestSql } from '../helpers/database.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
const product = JSON.stringify({ name: 'Pro', store_ids: {} });

test('signing in sets an opaque HttpOnly, SameSite=Strict cookie whose hash alone is stored; signing out ends it at once', async (t) => {
  const server = await startTestServer(t);
  const owner = await firstOwner(server);
  const signedIn = await login(server.url, owner.email.toUpperCase(), PASSWORD);
  assert.equal(signedIn.status, 200);
  const cookie = signedIn.headers.get('set-cookie')!;
  assert.match(cookie, /^paywalld_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Strict$/);
  assert.equal(signedIn.headers.get('cache-control'), 'no-store');
  const token = sessionOf(signedIn);
  assert.deepEqual((await signedIn.json()).user, { id: owner.userId, email: owner.email, name: 'The Owner' });

  const sql = openTestSql(t, server.dbPath);
  assert.equal(await sql.value('SELECT count(*) FROM sessions WHERE token_hash = ?', token), 0, 'the token itself is not stored');
  assert.equal(await sql.value('SELECT count(*) FROM sessions WHERE token_hash = ?', sha256(token)), 1);
  assert.match(
    String(await sql.value('SELECT password_hash FROM users WHERE id = ?', owner.userId)),
    /^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/,
  );

  const me = await fetch(`${server.url}/api/auth/me`, { headers: asPerson({ token }) });
  assert.equal(me.status, 200);
  const body = await me.json();
  assert.deepEqual(body.projects, [{ id: server.projectId, name: 'default', role: 'owner' }]);
  assert.ok(Date.parse(body.session.idle_expires_at) - Date.now() <= 12 * 3600_000);
  assert.ok(Date.parse(body.session.expires_at) - Date.now() > 6 * 24 * 3600_000);
  assert.equal((await fetch(`${server.url}/api/paywalls`, { headers: asPerson({ token }) })).status, 200);

  const out = await fetch(`${server.url}/api/auth/logout`, { method: 'POST', headers: asPerson({ token }) });
  assert.equal(out.status, 204);
  assert.match(out.headers.get('set-cookie')!, /^paywalld_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/);
  await problem(await fetch(`${server.url}/api/auth/me`, { headers: asPerson({ token }) }), 401, 'invalid_session');
  const refused = await fetch(`${server.url}/api/paywalls`, { headers: asPerson({ token }) });
  assert.match(refused.headers.get('set-cookie')!, /Max-Age=0/, 'an ended session is cleared from the browser');
  await problem(refused, 401, 'invalid_session');
  // The other session of the same person is untouched.
  assert.equal((await fetch(`${server.url}/api/auth/me`, { headers: asPerson(owner) })).status, 200);
  // A cookie that cannot be ours is refused as such, not looked up.
  await problem(await fetch(`${server.url}/api/paywalls`, { headers: { cookie: 'paywalld_session=nope' } }), 401, 'invalid_session');
});

test('the cookie is Secure when the trusted proxy says the request came over TLS, and only then', async (t) => {
  const proxied = await startTestServer(t, { trustProxy: true });
  const owner = await firstOwner(proxied);
  const overTls = await login(proxied.url, owner.email, PASSWORD, { 'x-forwarded-proto': 'https' });
  assert.match(overTls.headers.get('set-cookie')!, /; SameSite=Strict; Secure$/);
  const plain = await login(proxied.url, owner.email, PASSWORD, { 'x-forwarded-proto': 'http' });
  assert.doesNotMatch(plain.headers.get('set-cookie')!, /Secure/);

  const direct = await startTestServer(t);
  const other = await firstOwner(direct);
  const untrusted = await login(direct.url, other.email, PASSWORD, { 'x-forwarded-proto': 'https' });
  assert.doesNotMatch(untrusted.headers.get('set-cookie')!, /Secure/, "without --trust-proxy the header is anyone's");
});

test('an unknown email and a wrong password get the same answer', async (t) => {
  const server = await startTestServer(t);
  const owner = await firstOwner(server);
  const wrong = await problem(await login(server.url, owner.email, 'not the password'), 401, 'invalid_credentials');
  const unknown = await problem(await login(server.url, 'nobody@example.com', PASSWORD), 401, 'invalid_credentials');
  assert.deepEqual(wrong, unknown);
});

test('5 failed sign-ins in 15 minutes throttle the account and the address: 429 with Retry-After, the right password included', async (t) => {
  const server = await startTestServer(t, { trustProxy: true });
  const owner = await firstOwner(server);
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  // The account: five failures from five addresses.
  for (let i = 1; i <= 5; i++) await problem(await login(server.url, owner.email, 'wrong password', from(`10.0.0.${i}`)), 401, 'invalid_credentials');
  const throttled = await login(server.url, owner.email, PASSWORD, from('10.0.0.9'));
  const retryAfter = Number(throttled.headers.get('retry-after'));
  assert.ok(retryAfter > 800 && retryAfter <= 900, `Retry-After ${retryAfter}`);
  await problem(throttled, 429, 'sign_in_throttled');
  // The address: five failures for five unknown emails, then even another account is refused from it.
  for (let i = 1; i <= 5; i++) await problem(await login(server.url, `guess${i}@example.com`, 'wrong password', from('10.0.1.1')), 401, 'invalid_credentials');
  await problem(await login(server.url, 'someone@example.com', PASSWORD, from('10.0.1.1')), 429, 'sign_in_throttled');
  assert.equal((await login(server.url, 'someone@example.com', PASSWORD, from('10.0.1.2'))).status, 401, 'another address is not throttled');
  // Once the window has passed (the failures made older), the account signs in again.
  const sql = openTestSql(t, server.dbPath);
  await sql.run('UPDATE sign_in_failures SET at = at - ?', 15 * 60_000);
  assert.equal((await login(server.url, owner.email, PASSWORD, from('10.0.0.9'))).status, 200);
  // Each throttle is on the audit log, with no project: one for the account, one for the address.
  const entries = await sql.value("SELECT count(*) FROM audit_log WHERE action = 'sign_in.throttled' AND project_id IS NULL");
  assert.equal(Number(entries), 2);
});

test('a change with the session cookie needs X-Paywalld-Request: 1 and, when the browser names it, this origin', async (t) => {
  const server = await startTestServer(t);
  const owner = await firstOwner(server);
  const cookie = `paywalld_session=${owner.token}`;
  const put = (headers: Record<string, string>) =>
    fetch(`${server.url}/api/products/pro`, { method: 'PUT', headers: { cookie, 'content-type': 'application/json', ...headers }, body: product });
  await problem(await put({}), 403, 'csrf_rejected');
  await problem(await put({ 'x-paywalld-request': 'true' }), 403, 'csrf_rejected');
  await problem(await put({ 'x-paywalld-request': '1', origin: 'https://evil.example.com' }), 403, 'csrf_rejected');
  await problem(await put({ 'x-paywalld-request': '1', origin: server.url.replace('127.0.0.1', 'localhost') }), 403, 'csrf_rejected');
  assert.equal((await put({ 'x-paywalld-request': '1', origin: server.url })).status, 201);
  assert.equal((await put({ 'x-paywalld-request': '1' })).status, 200, 'without Origin (not a browser), the header suffices');
  await problem(await fetch(`${server.url}/api/auth/logout`, { method: 'POST', headers: { cookie } }), 403, 'csrf_rejected');
  // Reads need no header; key requests are as before.
  assert.equal((await fetch(`${server.url}/api/products`, { headers: { cookie } })).status, 200);
  const byKey = await fetch(`${server.url}/api/products/pro`, { method: 'DELETE', headers: { ...bearer(server.keys.secret), 'if-match': '*' } });
  assert.notEqual(byKey.status, 403);
});

test('changing the password ends every other session of the account; the old password stops working', async (t) => {
  const server = await startTestServer(t);
  const owner = await firstOwner(server);
  const other = sessionOf(await login(server.url, owner.email, PASSWORD));
  const change = (current: string, next: string) =>
    fetch(`${server.url}/api/auth/password`, {
      method: 'POST',
      headers: { ...asPerson(owner), 'content-type': 'application/json' },
      body: JSON.stringify({ current_password: current, new_password: next }),
    });
  await problem(await change('wrong password', 'a new long password'), 401, 'invalid_credentials');
  const short = await problem(await change(PASSWORD, 'short'), 422, 'validation_failed');
  assert.equal(short.errors[0].path, '/new_password');
  assert.equal((await change(PASSWORD, 'a new long password')).status, 204);
  await problem(await fetch(`${server.url}/api/auth/me`, { headers: asPerson({ token: other }) }), 401, 'invalid_session');
  assert.equal((await fetch(`${server.url}/api/auth/me`, { headers: asPerson(owner) })).status, 200, 'the session that changed it stays');
  await problem(await login(server.url, owner.email, PASSWORD), 401, 'invalid_credentials');
  assert.equal((await login(server.url, owner.email, 'a new long password')).status, 200);
});

test('a session ends 12 hours after its last request, and 7 days after signing in whatever happens', async (t) => {
  const server = await startTestServer(t);
  const owner = await firstOwner(server);
  const sql = openTestSql(t, server.dbPath);
  const idle = sessionOf(await login(server.url, owner.email, PASSWORD));
  const old = sessionOf(await login(server.url, owner.email, PASSWORD));
  const hour = 3600_000;
  await sql.run('UPDATE sessions SET last_seen_at = last_seen_at - ? WHERE token_hash = ?', 12 * hour + 1000, sha256(idle));
  await sql.run('UPDATE sessions SET expires_at = ?, last_seen_at = ? WHERE token_hash = ?', Date.now() - 1, Date.now(), sha256(old));
  for (const token of [idle, old]) await problem(await fetch(`${server.url}/api/auth/me`, { headers: asPerson({ token }) }), 401, 'invalid_session');
  assert.equal(await sql.value('SELECT count(*) FROM sessions WHERE token_hash IN (?, ?)', sha256(idle), sha256(old)), 0, 'deleted when found expired');
  // A request moves the idle expiry (at most once a minute).
  const used = sessionOf(await login(server.url, owner.email, PASSWORD));
  await sql.run('UPDATE sessions SET last_seen_at = last_seen_at - ? WHERE token_hash = ?', 11 * hour, sha256(used));
  assert.equal((await fetch(`${server.url}/api/auth/me`, { headers: asPerson({ token: used }) })).status, 200);
  assert.ok(Number(await sql.value('SELECT last_seen_at FROM sessions WHERE token_hash = ?', sha256(used))) > Date.now() - 60_000);
});
