/**
 * The paywall store's contract, on every backend: revisions, publication
 * with its phase bookkeeping in the same transaction, archiving, what the
 * live paywalls load; every write only at the version the caller read.
 */
import assert from 'node:assert/strict';
import type { PhaseDesign } from '../../src/experiments/phases.ts';
import type { Publication } from '../../src/paywalls/store.ts';
import { STALE } from '../../src/shared/stale.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { storeTest } from '../helpers/storage-backends.ts';

const split = (weight: number): PhaseDesign => ({
  variants: [
    { id: 'a', weight, holdout: false },
    { id: 'b', weight: 100 - weight, holdout: false },
  ],
  audiences: [],
});

const revision = (name: string, products: string[] = []) => ({ name, document: JSON.stringify({ name }), products });

function publication(revision: number, design: PhaseDesign, options: Partial<Publication['options']> = {}, products: string[] = []): Publication {
  return { revision, design, options: { forceNew: false, reseed: true, ...options }, products, now: Date.now() };
}

function written<T>(value: T | typeof STALE): T {
  assert.notEqual(value, STALE);
  return value as T;
}

async function project(storage: Storage): Promise<string> {
  return (await storage.projects.create('p', TEST_CHANGE)).project.id;
}

storeTest('addRevision creates the paywall at revision 1, appends revisions at the version read, and is STALE otherwise', async (storage) => {
  const projectId = await project(storage);
  const created = written(await storage.paywalls.addRevision(projectId, 'pw', revision('First'), undefined, TEST_CHANGE));
  assert.deepEqual([created.latest_revision, created.version, created.live_revision, created.archived_at, created.name], [1, 1, null, null, 'First']);
  assert.equal(await storage.paywalls.addRevision(projectId, 'pw', revision('Lost'), undefined, TEST_CHANGE), STALE, 'it exists');
  assert.equal(await storage.paywalls.addRevision(projectId, 'pw', revision('Lost'), 5, TEST_CHANGE), STALE);
  const second = written(await storage.paywalls.addRevision(projectId, 'pw', revision('Second'), 1, TEST_CHANGE));
  assert.deepEqual([second.latest_revision, second.version, second.name], [2, 2, 'Second']);
  assert.deepEqual(await storage.paywalls.get(projectId, 'pw'), second);
  assert.deepEqual(
    (await storage.paywalls.revisions(projectId, 'pw')).map((row) => [row.revision, row.name, row.published_at]),
    [
      [2, 'Second', null],
      [1, 'First', null],
    ],
  );
  assert.equal((await storage.paywalls.revision(projectId, 'pw', 1))?.document, JSON.stringify({ name: 'First' }));
  assert.equal(await storage.paywalls.revision(projectId, 'pw', 3), undefined);
  assert.deepEqual(
    (await storage.paywalls.list(projectId)).map((row) => row.id),
    ['pw'],
  );
  assert.equal(await storage.paywalls.get(projectId, 'other'), undefined);
});

storeTest('a revision or publication naming a product that does not exist (or was deleted) is STALE', async (storage) => {
  const projectId = await project(storage);
  assert.equal(await storage.paywalls.addRevision(projectId, 'pw', revision('P', ['monthly']), undefined, TEST_CHANGE), STALE);
  assert.equal(await storage.paywalls.get(projectId, 'pw'), undefined);
  written(await storage.products.write(projectId, 'monthly', { name: 'M', store_ids: {} }, undefined, TEST_CHANGE));
  const row = written(await storage.paywalls.addRevision(projectId, 'pw', revision('P', ['monthly']), undefined, TEST_CHANGE));
  await storage.products.delete(projectId, 'monthly', 1, TEST_CHANGE);
  assert.equal(await storage.paywalls.publish(projectId, 'pw', publication(1, split(50), {}, ['monthly']), row.version, TEST_CHANGE), STALE);
  assert.equal((await storage.paywalls.get(projectId, 'pw'))?.live_revision, null);
});

storeTest('publish makes a revision live and keeps the phases: a new split starts one, reseeded unless asked not to', async (storage) => {
  const projectId = await project(storage);
  let row = written(await storage.paywalls.addRevision(projectId, 'pw', revision('One'), undefined, TEST_CHANGE));
  assert.equal(await storage.paywalls.publish(projectId, 'pw', publication(1, split(50)), row.version + 1, TEST_CHANGE), STALE);
  const first = written(await storage.paywalls.publish(projectId, 'pw', publication(1, split(50)), row.version, TEST_CHANGE));
  assert.equal(first.started, true);
  assert.deepEqual([first.phase.number, first.phase.revision, first.phase.seed_suffix, first.phase.ended_at], [1, 1, null, null]);
  assert.deepEqual([first.row.live_revision, first.row.version], [1, 2]);
  assert.notEqual((await storage.paywalls.revision(projectId, 'pw', 1))?.published_at, null);

  row = written(await storage.paywalls.addRevision(projectId, 'pw', revision('Two'), first.row.version, TEST_CHANGE));
  // The same split in another key order: the phase goes on.
  const same = written(
    await storage.paywalls.publish(
      projectId,
      'pw',
      publication(2, { audiences: [], variants: split(50).variants.map((v) => ({ holdout: v.holdout, weight: v.weight, id: v.id })) }),
      row.version,
      TEST_CHANGE,
    ),
  );
  assert.equal(same.started, false);
  assert.equal(same.phase.number, 1);
  assert.equal(same.row.live_revision, 2);

  const moved = written(await storage.paywalls.publish(projectId, 'pw', publication(2, split(90)), same.row.version, TEST_CHANGE));
  assert.deepEqual([moved.started, moved.phase.number, moved.phase.seed_suffix], [true, 2, '#2']);
  const kept = written(
    await storage.paywalls.publish(projectId, 'pw', publication(2, split(90), { forceNew: true, reseed: false }), moved.row.version, TEST_CHANGE),
  );
  assert.deepEqual([kept.started, kept.phase.number, kept.phase.seed_suffix], [true, 3, '#2']);

  const phases = await storage.phases.phases(projectId, 'pw');
  assert.deepEqual(
    phases.map((phase) => [phase.number, phase.revision, phase.seed_suffix, phase.ended_at === null]),
    [
      [1, 1, null, false],
      [2, 2, '#2', false],
      [3, 2, '#2', true],
    ],
  );
  assert.equal(phases[0]!.ended_at, phases[1]!.started_at, 'a phase ends when the next starts');
  assert.deepEqual(await storage.phases.phases(projectId, 'other'), []);
});

storeTest('publish is one transaction: when its phase cannot be stored, the revision is not live either', async (storage, backend) => {
  const projectId = await project(storage);
  const row = written(await storage.paywalls.addRevision(projectId, 'pw', revision('One'), undefined, TEST_CHANGE));
  const undo = await backend.refuseInserts(storage, 'paywall_phases');
  await assert.rejects(storage.paywalls.publish(projectId, 'pw', publication(1, split(50)), row.version, TEST_CHANGE));
  await undo();
  assert.deepEqual(await storage.paywalls.get(projectId, 'pw'), row);
  assert.equal((await storage.paywalls.revision(projectId, 'pw', 1))?.published_at, null);
  assert.deepEqual(await storage.phases.phases(projectId, 'pw'), []);
});

storeTest('archive at the version read stops serving the paywall; publishing again brings it back in the same phase', async (storage) => {
  const projectId = await project(storage);
  const row = written(await storage.paywalls.addRevision(projectId, 'pw', revision('One'), undefined, TEST_CHANGE));
  const published = written(await storage.paywalls.publish(projectId, 'pw', publication(1, split(50)), row.version, TEST_CHANGE));
  assert.equal(await storage.paywalls.archive(projectId, 'pw', row.version, TEST_CHANGE), STALE);
  const archived = written(await storage.paywalls.archive(projectId, 'pw', published.row.version, TEST_CHANGE));
  assert.notEqual(archived.archived_at, null);
  assert.equal(archived.version, published.row.version + 1);
  assert.equal(await storage.paywalls.served(projectId, 'pw'), undefined);
  assert.deepEqual(await storage.paywalls.servedPaywalls(), []);
  const again = written(await storage.paywalls.publish(projectId, 'pw', publication(1, split(50)), archived.version, TEST_CHANGE));
  assert.equal(again.row.archived_at, null);
  assert.equal(again.started, false);
});

storeTest('serving_since is when a paywall was created, or published again after it was archived; a publish of a served one keeps it', async (storage) => {
  const projectId = await project(storage);
  const row = written(await storage.paywalls.addRevision(projectId, 'pw', revision('A'), undefined, TEST_CHANGE));
  const first = written(await storage.paywalls.publish(projectId, 'pw', publication(1, split(50)), row.version, TEST_CHANGE));
  assert.equal((await storage.paywalls.served(projectId, 'pw'))?.serving_since, row.created_at);
  const archived = written(await storage.paywalls.archive(projectId, 'pw', first.row.version, TEST_CHANGE));
  const again = publication(1, split(50));
  again.now = row.created_at + 60_000;
  written(await storage.paywalls.publish(projectId, 'pw', again, archived.version, TEST_CHANGE));
  assert.equal((await storage.paywalls.served(projectId, 'pw'))?.serving_since, again.now);
  const later = written(
    await storage.paywalls.addRevision(projectId, 'pw', revision('B'), (await storage.paywalls.get(projectId, 'pw'))!.version, TEST_CHANGE),
  );
  written(await storage.paywalls.publish(projectId, 'pw', { ...publication(2, split(60)), now: again.now + 1000 }, later.version, TEST_CHANGE));
  assert.equal((await storage.paywalls.served(projectId, 'pw'))?.serving_since, again.now);
});

storeTest(
  'servedPaywalls and served: every paywall not archived, with its live revision, phase seed suffix and a catalog stamp that moves with the products',
  async (storage) => {
    const projectId = await project(storage);
    const draft = written(await storage.paywalls.addRevision(projectId, 'draft', revision('D'), undefined, TEST_CHANGE));
    const live = written(await storage.paywalls.addRevision(projectId, 'live', revision('L'), undefined, TEST_CHANGE));
    const first = written(await storage.paywalls.publish(projectId, 'live', publication(1, split(50)), live.version, TEST_CHANGE));
    written(await storage.paywalls.publish(projectId, 'live', publication(1, split(80)), first.row.version, TEST_CHANGE));
    const stamp = await storage.paywalls.catalogStamp(projectId);
    const served = await storage.paywalls.served(projectId, 'live');
    assert.deepEqual(served, { project_id: projectId, id: 'live', live_revision: 1, serving_since: live.created_at, seed_suffix: '#2', catalog_stamp: stamp });
    assert.deepEqual(await storage.paywalls.served(projectId, 'draft'), {
      project_id: projectId,
      id: 'draft',
      live_revision: null,
      serving_since: draft.created_at,
      seed_suffix: null,
      catalog_stamp: stamp,
    });
    assert.deepEqual(
      (await storage.paywalls.servedPaywalls()).sort((a, b) => a.id.localeCompare(b.id)),
      [await storage.paywalls.served(projectId, 'draft'), served],
    );
    assert.equal(draft.live_revision, null);

    written(await storage.products.write(projectId, 'monthly', { name: 'M', store_ids: {} }, undefined, TEST_CHANGE));
    const afterWrite = await storage.paywalls.catalogStamp(projectId);
    assert.notEqual(afterWrite, stamp);
    await storage.products.delete(projectId, 'monthly', 1, TEST_CHANGE);
    const afterDelete = await storage.paywalls.catalogStamp(projectId);
    assert.ok(![stamp, afterWrite].includes(afterDelete));
    assert.equal((await storage.paywalls.served(projectId, 'live'))?.catalog_stamp, afterDelete);
  },
);
