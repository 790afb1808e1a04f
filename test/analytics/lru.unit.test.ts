/** The writer thread's caches' one LRU type: at most its capacity, forgetting the least recently used, a read counting as a use. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Lru } from '../../src/analytics/lru.ts';

test('past its capacity it forgets the least recently used; get and set count as a use', () => {
  const lru = new Lru<string, number>(3);
  lru.set('a', 1);
  lru.set('b', 2);
  lru.set('c', 3);
  assert.equal(lru.get('a'), 1);
  lru.set('d', 4);
  assert.equal(lru.get('b'), undefined, 'b was the least recently used');
  assert.deepEqual([...lru.values()], [3, 1, 4]);
  lru.set('c', 30);
  lru.set('e', 5);
  assert.equal(lru.get('a'), undefined);
  assert.deepEqual([...lru.values()], [4, 30, 5]);
  assert.equal(lru.get('missing'), undefined);
  assert.deepEqual([...lru.values()], [4, 30, 5], 'a miss changes nothing');
});
