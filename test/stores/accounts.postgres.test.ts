/**
 * The account and session stores' contract, on every backend: tokens
 * redeemed once, emails unique whatever their case, the last-owner rule
 * decided in the transaction, sessions and failed sign-ins as every
 * instance reads them.
 */
import assert from 'node:assert/strict';
import type { Role } from '../../src/shared/roles.ts';
import { STALE } from '../../src/shared/stale.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { storeTest } from '../helpers/storage-backends.ts';

const HOUR = 3600_000;

/** An invitation redeemed by a new account, with a session `session`. */
async function join(storage: Storage, projectId: string, email: string, role: Role, session = `session-of-${email}`) {
  const now = Date.now();
  const tokenHash = `invitation-of-${email}`;
  await storage.accounts.invite({ tokenHash, projectId, email, role, now, expiresAt: now + HOUR }, TEST_CHANGE);
  const user = { id: `usr_${email.replace(/\W/g, '')}`, email, name: email, passwordHash: 'not a real hash' };
  const joined = await storage.accounts.redeem({ tokenHash, now, user, session: { tokenHash: session, expiresAt: now + HOUR } }, TEST_CHANGE);
  assert.notEqual(joined, STALE);
  return user.id;
}

storeTest('a token is redeemed once and before it expires; an email is one account whatever its case', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const now = Date.now();
  await storage.accounts.invite({ tokenHash: 't1', projectId: project.id, email: 'Ann@Example.com', role: 'editor', now, expiresAt: now + HOUR }, TEST_CHANGE);
  await storage.accounts.invite({ tokenHash: 't2', projectId: project.id, email: null, role: 'viewer', now, expiresAt: now - 1 }, TEST_CHANGE);
  assert.equal((await storage.accounts.invitation('t1', now))?.email, 'Ann@Example.com');
  assert.equal(await storage.accounts.invitation('t2', now), undefined, 'expired');
  const user = { id: 'usr_ann', email: 'Ann@Example.com', name: 'Ann', passwordHash: 'h' };
  const redeem = (tokenHash: string, session: string) =>
    storage.accounts.redeem({ tokenHash, now, user, session: { tokenHash: session, expiresAt: now + HOUR } }, TEST_CHANGE);
  assert.notEqual(await redeem('t1', 's1'), STALE);
  assert.equal(await redeem('t1', 's2'), STALE, 'used');
  assert.equal(await redeem('t2', 's3'), STALE, 'expired');
  assert.equal(await storage.sessions.find('s2'), undefined, 'a refused redemption opens no session');
  assert.equal((await storage.accounts.userByEmail('ANN@example.COM'))?.id, 'usr_ann');
  await assert.rejects(
    storage.accounts.invite({ tokenHash: 't4', projectId: project.id, email: 'ann@example.com', role: 'viewer', now, expiresAt: now + HOUR }, TEST_CHANGE),
    {
      code: 'already_member',
    },
  );
  const found = await storage.sessions.find('s1');
  assert.deepEqual(found?.roles, [[project.id, 'editor']]);
  assert.equal(found?.session.email, 'Ann@Example.com');
});

storeTest('a project always keeps an owner: the last one is neither demoted nor removed, as a member or as an account', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const owner = await join(storage, project.id, 'owner@example.com', 'owner');
  const editor = await join(storage, project.id, 'editor@example.com', 'editor');
  await assert.rejects(storage.accounts.setRole(project.id, owner, 'viewer', TEST_CHANGE), { code: 'last_owner' });
  await assert.rejects(storage.accounts.removeMember(project.id, owner, TEST_CHANGE), { code: 'last_owner' });
  await assert.rejects(storage.accounts.removeUser(owner, TEST_CHANGE), { code: 'last_owner' });
  await assert.rejects(storage.accounts.setRole(project.id, 'usr_nobody', 'viewer', TEST_CHANGE), { code: 'member_not_found' });
  assert.equal((await storage.accounts.setRole(project.id, editor, 'owner', TEST_CHANGE)).role, 'owner');
  await storage.accounts.removeUser(owner, TEST_CHANGE);
  assert.equal(await storage.accounts.user(owner), undefined);
  assert.equal(await storage.sessions.find('session-of-owner@example.com'), undefined, 'its sessions went with it');
  assert.deepEqual(
    (await storage.accounts.members(project.id)).map((m) => [m.email, m.role]),
    [['editor@example.com', 'owner']],
  );
});

storeTest('a password change ends every session of the account but the one kept; a reset ends them all', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const ann = await join(storage, project.id, 'ann@example.com', 'owner', 'first');
  await storage.sessions.create('second', ann, Date.now(), Date.now() + HOUR);
  await storage.sessions.create('third', ann, Date.now(), Date.now() + HOUR);
  await storage.accounts.changePassword(ann, 'new hash', 'second', TEST_CHANGE);
  assert.equal((await storage.accounts.user(ann))?.password_hash, 'new hash');
  assert.deepEqual(await Promise.all(['first', 'second', 'third'].map(async (s) => (await storage.sessions.find(s)) !== undefined)), [false, true, false]);
  await storage.accounts.issueReset(ann, 'reset', Date.now(), Date.now() + HOUR, TEST_CHANGE);
  assert.equal(await storage.sessions.find('second'), undefined);
  assert.equal((await storage.accounts.invitation('reset', Date.now()))?.kind, 'reset');
});

storeTest('sessions move their last use forward only, and expired ones are pruned', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const ann = await join(storage, project.id, 'ann@example.com', 'owner', 'current');
  const now = Date.now();
  await storage.sessions.touch('current', now + 5000);
  await storage.sessions.touch('current', now + 1000);
  assert.equal((await storage.sessions.find('current'))?.session.last_seen_at, now + 5000);
  await storage.sessions.create('idle', ann, now - 13 * HOUR, now + HOUR);
  await storage.sessions.create('over', ann, now - 8 * 24 * HOUR, now - 1);
  await storage.sessions.prune(now, 12 * HOUR, now);
  assert.ok(await storage.sessions.find('current'));
  assert.equal(await storage.sessions.find('idle'), undefined);
  assert.equal(await storage.sessions.find('over'), undefined);
  await storage.sessions.end('current');
  assert.equal(await storage.sessions.find('current'), undefined);
});

storeTest('failed sign-ins are counted per account and per address; reaching the limit writes one throttle entry', async (storage) => {
  const now = Date.now();
  const since = now - 15 * 60_000;
  for (let i = 0; i < 6; i++) await storage.sessions.recordFailure({ account: 'ann@example.com', ip: `10.0.0.${i}`, now: now + i }, since, 5, TEST_CHANGE);
  const [account, firstIp] = await storage.sessions.failures(['account:ann@example.com', 'ip:10.0.0.0'], since);
  assert.deepEqual(account, [now, now + 1, now + 2, now + 3, now + 4, now + 5]);
  assert.deepEqual(firstIp, [now]);
  const throttled = await storage.audit.list({ action: 'sign_in.throttled', limit: 10 });
  assert.equal(throttled.length, 1, 'when the fifth failure came, not again on the sixth');
  assert.equal(throttled[0]!.project, null);
  // Failures older than the window are forgotten as new ones are recorded, and pruned.
  await storage.sessions.recordFailure({ account: 'ann@example.com', ip: '10.0.0.9', now: now + 20 * 60_000 }, now + 5 * 60_000, 5, TEST_CHANGE);
  assert.deepEqual(await storage.sessions.failures(['account:ann@example.com'], 0), [[now + 20 * 60_000]]);
  await storage.sessions.prune(now, HOUR, now + 60 * 60_000);
  assert.deepEqual(await storage.sessions.failures(['account:ann@example.com', 'ip:10.0.0.1'], 0), [[], []]);
});
