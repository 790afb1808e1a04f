/**
 * The writer thread's queue of identify links (src/events/writer/link-queue.ts)
 * on the real stores of both backends: the links that wait are committed
 * together, one transaction per group, those arriving meanwhile in the
 * next; each request gets its own outcome, and a group that fails is
 * answered as failed, all of it.
 */
import assert from 'node:assert/strict';
import { LinkQueue } from '../../src/events/writer/link-queue.ts';
import type { FromWriter } from '../../src/events/writer/protocol.ts';
import type { LinkRequest } from '../../src/identity/store.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { storeTest } from '../helpers/storage-backends.ts';

/** The queue over the storage's identity store, counting the store's calls (each one transaction). */
function queueOn(storage: Storage) {
  const groups: number[] = [];
  const sent: FromWriter[] = [];
  const store = {
    link: (requests: readonly LinkRequest[], now: number) => {
      groups.push(requests.length);
      return storage.identity.link(requests, now);
    },
  };
  return { queue: new LinkQueue(store, (message) => sent.push(message)), groups, sent };
}

storeTest('links waiting are committed in one transaction, those arriving meanwhile in the next, each answered in order', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const { queue, groups, sent } = queueOn(storage);
  const request = (anonymousId: string, userId: string): LinkRequest => ({ projectId: project.id, anonymousId, userId, secret: false });
  for (let id = 1; id <= 10; id++) queue.push({ kind: 'link', id, request: request(`device-${id}`, `user-${id}`) });
  queue.push({ kind: 'link', id: 11, request: request('device-1', 'someone-else') });
  const committing = queue.commit();
  assert.equal(queue.idle, false);
  queue.push({ kind: 'link', id: 12, request: request('device-12', 'user-12') });
  assert.equal(queue.commit(), committing, 'one commit at a time');
  await committing;
  assert.deepEqual(groups, [11, 1]);
  assert.equal(queue.idle, true);
  assert.deepEqual(sent[0], {
    kind: 'linked',
    ids: Array.from({ length: 11 }, (_, i) => i + 1),
    outcomes: [...Array.from({ length: 10 }, (_, i) => ({ userId: `user-${i + 1}`, created: true })), { userId: 'user-1', created: false }],
  });
  assert.deepEqual(sent[1], { kind: 'linked', ids: [12], outcomes: [{ userId: 'user-12', created: true }] });
  assert.equal((await storage.identity.links(project.id)).size, 11);
});

storeTest('a group whose transaction fails is answered failed, every request of it, and stores nothing', async (storage, backend) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const { queue, sent } = queueOn(storage);
  const undo = await backend.refuseInserts(storage, 'user_tokens');
  queue.push({ kind: 'link', id: 1, request: { projectId: project.id, anonymousId: 'a', userId: 'alice', secret: false } });
  queue.push({ kind: 'link', id: 2, request: { projectId: project.id, anonymousId: 'b', userId: 'bob', secret: true } });
  await queue.commit();
  await undo();
  assert.equal(sent.length, 1);
  const failed = sent[0]!;
  assert.ok(failed.kind === 'failed', failed.kind);
  assert.deepEqual(failed.ids, [1, 2]);
  assert.equal((await storage.identity.links(project.id)).size, 0);
});
