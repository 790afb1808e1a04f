/** KeyFilter, the Bloom filter in front of event_dedup: never a false "not stored", few false "may be". */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { idHash } from '../../src/analytics/id-hash.ts';
import { KeyFilter } from '../../src/analytics/key-filter.ts';

const NOW = 1_767_225_600_000;

test('every added key may be contained; at capacity about 2 % of other keys are false positives', () => {
  const capacity = 100_000;
  const filter = new KeyFilter(capacity);
  for (let i = 0; i < capacity; i++) filter.add(1, NOW + (i % 977), idHash(`id-${i}`));
  for (let i = 0; i < capacity; i++) assert.equal(filter.mightContain(1, NOW + (i % 977), idHash(`id-${i}`)), true, `key ${i}`);
  let falsePositives = 0;
  for (let i = 0; i < capacity; i++) if (filter.mightContain(2, NOW + (i % 977), idHash(`id-${i}`))) falsePositives++;
  assert.ok(falsePositives < capacity * 0.04, `${falsePositives} false positives of ${capacity} (another project)`);
  falsePositives = 0;
  for (let i = 0; i < capacity; i++) if (filter.mightContain(1, NOW + 977 + (i % 977), idHash(`id-${i}`))) falsePositives++;
  assert.ok(falsePositives < capacity * 0.04, `${falsePositives} false positives of ${capacity} (another client time)`);
});

test('past its capacity it lets more keys through but still never misses one', () => {
  const filter = new KeyFilter(1000);
  for (let i = 0; i < 50_000; i++) filter.add(i % 3, NOW - i, idHash(`k${i}`));
  for (let i = 0; i < 50_000; i++) assert.equal(filter.mightContain(i % 3, NOW - i, idHash(`k${i}`)), true);
});

test('idHash: 52-bit integers, the same for the same id, different for ids that differ in one character', () => {
  const seen = new Map<number, string>();
  for (let i = 0; i < 200_000; i++) {
    const id = `0b8e${i.toString(16).padStart(6, '0')}-7c1f-4a49-9b0d-5f3e2a1c9d7e`;
    const hash = idHash(id);
    assert.ok(Number.isSafeInteger(hash) && hash >= 0 && hash < 2 ** 52, `${id}: ${hash}`);
    assert.equal(idHash(id), hash);
    assert.equal(seen.get(hash), undefined, `${id} and ${seen.get(hash)} share a hash`);
    seen.set(hash, id);
  }
});

test("the bench's copy of idHash (its baselines run without tsx) hashes as the server does", async () => {
  // By URL: the bench is plain JavaScript without type declarations.
  const bench = (await import(new URL('../../bench/lib/events.mjs', import.meta.url).href)) as { idHash: (id: string) => number };
  for (const id of ['', 'a', 'évènement-ü', crypto.randomUUID(), 'x'.repeat(200), ...Array.from({ length: 200 }, (_, i) => `id-${i}`)]) {
    assert.equal(bench.idHash(id), idHash(id), id);
  }
});
