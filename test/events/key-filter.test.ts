/** KeyFilter, the Bloom filter in front of event_dedup: never a false "not stored", few false "may be". */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyFilter } from '../../src/events/derived/key-filter.ts';
import { dedupKey } from '../../src/events/derived/pending.ts';

test('every added key may be contained; at capacity about 2 % of other keys are false positives', () => {
  const capacity = 100_000;
  const filter = new KeyFilter(capacity);
  const now = 1_767_225_600_000;
  for (let i = 0; i < capacity; i++) filter.add(dedupKey('proj_a', now + (i % 977), `id-${i}`));
  for (let i = 0; i < capacity; i++) assert.equal(filter.mightContain(dedupKey('proj_a', now + (i % 977), `id-${i}`)), true, `key ${i}`);
  let falsePositives = 0;
  for (let i = 0; i < capacity; i++) if (filter.mightContain(dedupKey('proj_b', now + (i % 977), `id-${i}`))) falsePositives++;
  assert.ok(falsePositives < capacity * 0.04, `${falsePositives} false positives of ${capacity}`);
});

test('past its capacity it lets more keys through but still never misses one', () => {
  const filter = new KeyFilter(1000);
  for (let i = 0; i < 50_000; i++) filter.add(`k${i}`);
  for (let i = 0; i < 50_000; i++) assert.equal(filter.mightContain(`k${i}`), true);
});

test('addParts adds the same key as add(dedupKey(…))', () => {
  const filter = new KeyFilter(10_000);
  for (let i = 0; i < 5000; i++) filter.addParts('proj_a', 1_767_225_600_000 + i, `id-${i}`);
  for (let i = 0; i < 5000; i++) assert.equal(filter.mightContain(dedupKey('proj_a', 1_767_225_600_000 + i, `id-${i}`)), true);
});
