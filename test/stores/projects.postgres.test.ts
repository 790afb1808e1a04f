/** The project store's contract, on every backend: a project is created with its two keys in one transaction. */
import assert from 'node:assert/strict';
import { hashKey, KEY_PREFIX } from '../../src/keys/key.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { storeTest } from '../helpers/storage-backends.ts';

storeTest('create makes a project with one sdk and one secret key, whose hashes the key store holds', async (storage) => {
  assert.equal(await storage.projects.isEmpty(), true);
  const created = await storage.projects.create('Acme', TEST_CHANGE);
  assert.equal(created.project.name, 'Acme');
  assert.match(created.project.id, /^prj_/);
  assert.ok(created.keys.sdk.startsWith(KEY_PREFIX.sdk));
  assert.ok(created.keys.secret.startsWith(KEY_PREFIX.secret));
  const keys = await storage.keys.list(created.project.id);
  assert.deepEqual(keys.map((key) => key.scope).sort(), ['sdk', 'secret']);
  assert.deepEqual(keys.map((key) => key.hash).sort(), [hashKey(created.keys.sdk), hashKey(created.keys.secret)].sort());
  assert.equal(await storage.projects.isEmpty(), false);
});

storeTest('list is oldest first, get finds one project and answers undefined for an unknown id', async (storage) => {
  const first = await storage.projects.create('first', TEST_CHANGE);
  const second = await storage.projects.create('second', TEST_CHANGE);
  const listed = await storage.projects.list();
  assert.deepEqual(
    listed.map((project) => project.id),
    [first.project.id, second.project.id],
  );
  assert.ok(!Number.isNaN(Date.parse(listed[0]!.created_at)));
  assert.deepEqual(await storage.projects.get(second.project.id), listed[1]);
  assert.equal(await storage.projects.get('prj_unknown'), undefined);
});

storeTest('oldest first is creation order even for projects made in one millisecond (their ids are random)', async (storage, _backend, t) => {
  // One frozen millisecond for every creation: the case that random ids used to order at random.
  t.mock.timers.enable({ apis: ['Date'], now: 1_700_000_000_000 });
  const created: string[] = [];
  for (let i = 0; i < 40; i++) created.push((await storage.projects.create(`p${i}`, TEST_CHANGE)).project.id);
  const listed = await storage.projects.list();
  assert.deepEqual(
    listed.map((project) => project.id),
    created,
  );
});

storeTest('a name is 1 to 100 characters without a space at either end; a refused name stores nothing', async (storage) => {
  for (const name of ['', ' lead', 'trail ', 'x'.repeat(101)])
    await assert.rejects(storage.projects.create(name, TEST_CHANGE), /a project name is 1 to 100 characters/);
  assert.equal(await storage.projects.isEmpty(), true);
  assert.equal((await storage.projects.create('x'.repeat(100), TEST_CHANGE)).project.name.length, 100);
});

storeTest('a name holding NUL or a lone surrogate is refused with a clear message on every backend; a surrogate pair is kept', async (storage) => {
  for (const name of ['nul\u0000name', 'lone\ud800surrogate', 'low\udc00first', 'ends\ud83d'])
    await assert.rejects(
      storage.projects.create(name, TEST_CHANGE),
      /a project name must be well-formed Unicode text without NUL \(U\+0000\) or a lone surrogate/,
    );
  assert.equal(await storage.projects.isEmpty(), true);
  const created = await storage.projects.create('smile \ud83d\ude00', TEST_CHANGE);
  assert.equal((await storage.projects.get(created.project.id))?.name, 'smile \ud83d\ude00');
});

storeTest('a project is never left without its keys: when a key cannot be written, the project is not either', async (storage, backend) => {
  const undo = await backend.refuseInserts(storage, 'api_keys');
  await assert.rejects(storage.projects.create('half', TEST_CHANGE));
  assert.deepEqual(await storage.projects.list(), []);
  await undo();
  const created = await storage.projects.create('whole', TEST_CHANGE);
  assert.equal((await storage.keys.list(created.project.id)).length, 2);
});
