/** The identity store's contract, on every backend: the first link of an id wins, and every linked user's appAccountToken is remembered with it. */
import assert from 'node:assert/strict';
import { appAccountToken } from '../../src/identity/app-account-token.ts';
import { storeTest } from '../helpers/storage-backends.ts';

storeTest('link stores the first link of an anonymous id; a later one answers the user it is linked to', async (storage) => {
  const { project } = await storage.projects.create('p');
  assert.deepEqual(await storage.identity.link(project.id, 'anon', 'alice', 1), { userId: 'alice', created: true });
  assert.deepEqual(await storage.identity.link(project.id, 'anon', 'bob', 2), { userId: 'alice', created: false });
  assert.deepEqual(await storage.identity.link(project.id, 'anon', 'alice', 3), { userId: 'alice', created: false });
  await storage.identity.link(project.id, 'other-device', 'alice', 4);
  assert.deepEqual([...(await storage.identity.links(project.id))].sort(), [
    ['anon', 'alice'],
    ['other-device', 'alice'],
  ]);
  const { project: other } = await storage.projects.create('q');
  assert.equal((await storage.identity.links(other.id)).size, 0);
});

storeTest("link remembers both ids' appAccountTokens, found in any case and only in their project", async (storage) => {
  const { project } = await storage.projects.create('p');
  const { project: other } = await storage.projects.create('q');
  await storage.identity.link(project.id, 'anon', 'alice', 1);
  const token = appAccountToken('alice');
  assert.equal(await storage.identity.userOfAppAccountToken(project.id, token), 'alice');
  assert.equal(await storage.identity.userOfAppAccountToken(project.id, token.toUpperCase()), 'alice');
  assert.equal(await storage.identity.userOfAppAccountToken(project.id, appAccountToken('anon')), 'anon');
  assert.equal(await storage.identity.userOfAppAccountToken(other.id, token), undefined);
  assert.equal(await storage.identity.userOfAppAccountToken(project.id, appAccountToken('nobody')), undefined);
});

storeTest('a link is one transaction: when its token cannot be stored, the link is not either', async (storage, backend) => {
  const { project } = await storage.projects.create('p');
  const undo = await backend.refuseInserts(storage, 'user_tokens');
  await assert.rejects(storage.identity.link(project.id, 'anon', 'alice', 1));
  await undo();
  assert.equal((await storage.identity.links(project.id)).size, 0);
});

storeTest('catching up with the event users of a project that has none has nothing more to do', async (storage) => {
  const { project } = await storage.projects.create('p');
  assert.equal(await storage.identity.catchUpWithEventUsers(project.id), false);
});
