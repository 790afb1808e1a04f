/**
 * The placement store's contract, on every backend: revisions served as
 * soon as written, archiving, what the live placements load, each write
 * only at the version the caller read, and each change with its audit
 * entry in its own transaction (none for a refusal or a no-op).
 */
import assert from 'node:assert/strict';
import type { Change } from '../../src/shared/change.ts';
import { STALE } from '../../src/shared/stale.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { storeTest } from '../helpers/storage-backends.ts';

const bob: Change = { actor: { type: 'user', id: 'usr_bob', label: 'bob@example.com' }, ip: '192.0.2.9' };

const document = (name: string, paywall = 'winback') => ({ name, document: JSON.stringify({ name, rules: [{ paywall_id: paywall }] }) });

function written<T>(value: T | typeof STALE): T {
  assert.notEqual(value, STALE);
  return value as T;
}

async function project(storage: Storage): Promise<string> {
  return (await storage.projects.create('p', TEST_CHANGE)).project.id;
}

async function placementEntries(storage: Storage) {
  return (await storage.audit.list({ limit: 100 })).filter((row) => row.target.type === 'placement');
}

storeTest('write creates the placement at revision 1, appends revisions at the version read, and is STALE otherwise', async (storage) => {
  const projectId = await project(storage);
  const created = written(await storage.placements.write(projectId, 'lapsed', document('First'), undefined, bob));
  assert.deepEqual([created.latest_revision, created.version, created.archived_at, created.name], [1, 1, null, 'First']);
  assert.equal(await storage.placements.write(projectId, 'lapsed', document('Lost'), undefined, bob), STALE, 'it exists');
  assert.equal(await storage.placements.write(projectId, 'lapsed', document('Lost'), 7, bob), STALE);
  const second = written(await storage.placements.write(projectId, 'lapsed', document('Second', 'offer'), 1, TEST_CHANGE));
  assert.deepEqual([second.latest_revision, second.version, second.name], [2, 2, 'Second']);
  assert.deepEqual(await storage.placements.get(projectId, 'lapsed'), second);
  assert.deepEqual(
    (await storage.placements.revisions(projectId, 'lapsed')).map((row) => [row.revision, row.name, JSON.parse(row.created_by).id]),
    [
      [2, 'Second', 'test'],
      [1, 'First', 'usr_bob'],
    ],
  );
  assert.equal((await storage.placements.revision(projectId, 'lapsed', 1))?.document, document('First').document);
  assert.equal(await storage.placements.revision(projectId, 'lapsed', 3), undefined);
  assert.deepEqual(
    (await storage.placements.list(projectId)).map((row) => row.id),
    ['lapsed'],
  );
  assert.equal(await storage.placements.get(projectId, 'other'), undefined);
  const entries = await placementEntries(storage);
  assert.deepEqual(
    entries.map((row) => [row.action, row.target.id, row.revision, row.actor.id]),
    [
      ['placement.written', 'lapsed', 2, 'test'],
      ['placement.written', 'lapsed', 1, 'usr_bob'],
    ],
  );
});

storeTest('the newest revision of every placement not archived is served; archiving stops it, a write brings it back', async (storage) => {
  const projectId = await project(storage);
  const other = await project(storage);
  written(await storage.placements.write(projectId, 'a', document('A1'), undefined, TEST_CHANGE));
  written(await storage.placements.write(projectId, 'a', document('A2', 'second'), 1, TEST_CHANGE));
  const b = written(await storage.placements.write(other, 'b', document('B'), undefined, TEST_CHANGE));
  const served = (await storage.placements.servedPlacements()).map((row) => [row.project_id, row.id, row.revision, JSON.parse(row.document).name]);
  assert.deepEqual(
    served.sort((x, y) => String(x[1]).localeCompare(String(y[1]))),
    [
      [projectId, 'a', 2, 'A2'],
      [other, 'b', 1, 'B'],
    ],
  );
  assert.equal(await storage.placements.archive(other, 'b', b.version + 1, TEST_CHANGE), STALE);
  const archived = written(await storage.placements.archive(other, 'b', b.version, bob));
  assert.ok(archived.archived_at !== null);
  assert.equal(archived.version, b.version + 1);
  assert.equal(await storage.placements.served(other, 'b'), undefined);
  const before = (await placementEntries(storage)).length;
  // Archiving an archived placement changes nothing and writes no entry.
  assert.deepEqual(written(await storage.placements.archive(other, 'b', archived.version, bob)), archived);
  assert.equal((await placementEntries(storage)).length, before);
  const back = written(await storage.placements.write(other, 'b', document('B again'), archived.version, TEST_CHANGE));
  assert.deepEqual([back.archived_at, back.latest_revision], [null, 2]);
  assert.equal((await storage.placements.served(other, 'b'))?.revision, 2);
  assert.deepEqual(
    (await placementEntries(storage)).slice(0, 2).map((row) => row.action),
    ['placement.written', 'placement.archived'],
  );
});

storeTest('a write whose audit entry cannot be stored is not made', async (storage, backend) => {
  const projectId = await project(storage);
  const undo = await backend.refuseInserts(storage, 'audit_log');
  await assert.rejects(storage.placements.write(projectId, 'lapsed', document('First'), undefined, bob));
  await undo();
  assert.equal(await storage.placements.get(projectId, 'lapsed'), undefined);
  assert.deepEqual(await storage.placements.revisions(projectId, 'lapsed'), []);
});
