/** PendingKeys, the exact set of the dedup keys stored since the last checkpoint: exact under hash collisions, and taken back on rollback. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { idHash } from '../../src/analytics/id-hash.ts';
import { PendingKeys } from '../../src/analytics/pending.ts';

const TS = 1_767_225_600_000;

test('a key is found only with the same project, client time and id, also when other keys share its id hash', () => {
  const keys = new PendingKeys();
  // The hash is the caller's to give: here several ids are given one hash, as colliding ids would have.
  keys.add(1, TS, 42, 'a');
  keys.add(1, TS, 42, 'b');
  keys.add(2, TS, 42, 'a');
  keys.add(1, TS + 1, 42, 'a');
  assert.equal(keys.length, 4);
  for (const [no, ts, id] of [
    [1, TS, 'a'],
    [1, TS, 'b'],
    [2, TS, 'a'],
    [1, TS + 1, 'a'],
  ] as const)
    assert.equal(keys.has(no, ts, 42, id), true, `${no} ${ts} ${id}`);
  assert.equal(keys.has(1, TS, 42, 'c'), false);
  assert.equal(keys.has(2, TS, 42, 'b'), false);
  assert.equal(keys.has(1, TS + 2, 42, 'a'), false);
  assert.equal(keys.has(1, TS, 43, 'a'), false);
});

test('truncate takes back the keys added after the mark, colliding ones included, and keeps the ones before', () => {
  const keys = new PendingKeys();
  for (let i = 0; i < 100; i++) keys.add(1, TS + i, idHash(`before-${i}`), `before-${i}`);
  keys.add(1, TS, 7, 'kept');
  const mark = keys.length;
  keys.add(1, TS, 7, 'rolled-back');
  for (let i = 0; i < 100; i++) keys.add(1, TS + i, idHash(`after-${i}`), `after-${i}`);
  keys.truncate(mark);
  assert.equal(keys.length, mark);
  assert.equal(keys.has(1, TS, 7, 'kept'), true);
  assert.equal(keys.has(1, TS, 7, 'rolled-back'), false);
  for (let i = 0; i < 100; i++) {
    assert.equal(keys.has(1, TS + i, idHash(`before-${i}`), `before-${i}`), true);
    assert.equal(keys.has(1, TS + i, idHash(`after-${i}`), `after-${i}`), false);
  }
  // Added again after the rollback, as a retried transaction does.
  keys.add(1, TS, 7, 'rolled-back');
  assert.equal(keys.has(1, TS, 7, 'rolled-back'), true);
  assert.deepEqual([keys.projectNos.length, keys.clientTimes.length, keys.hashes.length], [mark + 1, mark + 1, mark + 1]);
  keys.clear();
  assert.equal(keys.length, 0);
  assert.equal(keys.has(1, TS, 7, 'kept'), false);
});
