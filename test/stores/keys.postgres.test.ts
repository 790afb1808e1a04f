/** The key store's contract, on every backend: creation under the limit, revocation, and what the registry loads. */
import assert from 'node:assert/strict';
import { hashKey, KEY_PREFIX } from '../../src/keys/key.ts';
import { MAX_ACTIVE_KEYS } from '../../src/keys/store.ts';
import { DomainError } from '../../src/shared/errors.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { storeTest } from '../helpers/storage-backends.ts';

const code = (expected: string) => (error: unknown) => error instanceof DomainError && error.code === expected;

storeTest('create returns the plain key once; list and allActive hold its hash, prefix and scope', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const created = await storage.keys.create(project.id, 'secret', '', TEST_CHANGE);
  assert.ok(created.key.startsWith(KEY_PREFIX.secret));
  assert.ok(created.key.startsWith(created.prefix));
  assert.equal(created.scope, 'secret');
  const listed = (await storage.keys.list(project.id)).find((row) => row.id === created.id)!;
  assert.equal(listed.hash, hashKey(created.key));
  assert.equal(listed.project_id, project.id);
  assert.equal(listed.revoked_at, null);
  assert.ok((await storage.keys.allActive()).some((row) => row.id === created.id));
  const listedIds = (await storage.keys.list(project.id)).map((row) => row.id);
  assert.equal(listedIds.at(-1), created.id, 'oldest first');
});

storeTest('list is creation order even for keys made in one millisecond (their ids are random)', async (storage, _backend, t) => {
  // One frozen millisecond for every creation: the case that random ids used to order at random.
  t.mock.timers.enable({ apis: ['Date'], now: 1_700_000_000_000 });
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const created = (await storage.keys.list(project.id)).map((row) => row.id);
  for (let i = 0; i < 40; i++) created.push((await storage.keys.create(project.id, i % 2 === 0 ? 'sdk' : 'secret', '', TEST_CHANGE)).id);
  const listed = await storage.keys.list(project.id);
  assert.deepEqual(
    listed.map((row) => row.id),
    created,
  );
});

storeTest(
  "revoke marks the key revoked (again: no error, same time), drops it from allActive, and refuses another project's key as unknown",
  async (storage) => {
    const { project } = await storage.projects.create('mine', TEST_CHANGE);
    const { project: other } = await storage.projects.create('theirs', TEST_CHANGE);
    const key = await storage.keys.create(project.id, 'sdk', '', TEST_CHANGE);
    await assert.rejects(storage.keys.revoke(key.id, other.id, TEST_CHANGE), code('key_not_found'));
    await assert.rejects(storage.keys.revoke('key_unknown', project.id, TEST_CHANGE), code('key_not_found'));
    await assert.rejects(storage.keys.revoke('key_unknown', undefined, TEST_CHANGE), code('key_not_found'));
    const revoked = await storage.keys.revoke(key.id, project.id, TEST_CHANGE);
    assert.notEqual(revoked.revoked_at, null);
    assert.equal((await storage.keys.revoke(key.id, undefined, TEST_CHANGE)).revoked_at, revoked.revoked_at);
    assert.ok(!(await storage.keys.allActive()).some((row) => row.id === key.id));
    assert.ok((await storage.keys.list(project.id)).some((row) => row.id === key.id && row.revoked_at !== null));
  },
);

storeTest(`a project holds at most ${MAX_ACTIVE_KEYS} active keys: the next is too_many_keys until one is revoked`, async (storage) => {
  const { project } = await storage.projects.create('busy', TEST_CHANGE);
  const { project: other } = await storage.projects.create('quiet', TEST_CHANGE);
  // The project has 2 keys already.
  for (let i = 2; i < MAX_ACTIVE_KEYS; i++) await storage.keys.create(project.id, 'sdk', '', TEST_CHANGE);
  await assert.rejects(storage.keys.create(project.id, 'sdk', '', TEST_CHANGE), code('too_many_keys'));
  assert.equal((await storage.keys.list(project.id)).length, MAX_ACTIVE_KEYS, 'the refused key was not stored');
  await storage.keys.create(other.id, 'sdk', '', TEST_CHANGE);
  const [first] = await storage.keys.list(project.id);
  await storage.keys.revoke(first!.id, project.id, TEST_CHANGE);
  await storage.keys.create(project.id, 'sdk', '', TEST_CHANGE);
});
