/** collectGarbage: a full collection on demand, without --expose-gc on the command line. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import { collectGarbage } from '../../src/events/writer/collect-garbage.ts';

test('collectGarbage frees what is no longer reachable, and can be called again', () => {
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined', 'this test runs without --expose-gc');
  let rows: string[][] | undefined = Array.from({ length: 200_000 }, (_, i) => [`project-${i}`, `event-${i}`, `user-${i % 977}`]);
  const held = v8.getHeapStatistics().used_heap_size;
  assert.equal(rows.length, 200_000);
  rows = undefined;
  collectGarbage();
  const after = v8.getHeapStatistics().used_heap_size;
  // 200,000 rows of three strings take well over 20 MB; all of it is garbage.
  assert.ok(held - after > 20 * 1024 * 1024, `heap ${held} before, ${after} after`);
  collectGarbage();
});
